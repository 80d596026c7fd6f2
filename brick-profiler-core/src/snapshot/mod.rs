//! Snapshots: the slabs of every thread (and the exited threads' totals)
//! merged in recording units, then converted once into a [`Profile`] with
//! the run facts, steps, phases, layers, timeline and loss counters.
//! Recording continues while this runs.

mod convert;
mod memory;

use std::sync::atomic::Ordering::Relaxed;

use crate::context::phase::phases;
use crate::context::step::steps;
use crate::kernel_data::{ChecksumLog, ExecutionGraph};
use crate::profile::{
    CategoryEntry, ClockInfo, Counters, GenerationLog, PhaseStats, Profile, RankIdentity,
    RecordedExecutionTrace, RunInfo, SCHEMA_VERSION, StepSummary, SyncMode, TokenEvent,
};
use crate::record::device::TIMER_PANICS;
use crate::record::facts::{RunFacts, run_facts};
use crate::record::registry::registered_sites;
use crate::record::site::{OVERFLOW_SLOT, all_slots};
use crate::record::state::{self, HOOK_PANICS, Settings};
use crate::record::thread::{LOST_AT_EXIT, collect};
use crate::record::totals::Totals;
use crate::stats::LatencyHistogram;
use crate::sync::{DEVICE_FALLBACKS, LAUNCH_TO_SYNC};
use crate::tools::checksums::log;
use crate::tools::graph::ptx;
use convert::{
    Conversion, brick_stats, counter_tracks, kernels_on_timeline, layers, tiles, timeline,
};

/// Merges everything recorded so far into a [`Profile`]. The snapshot's
/// own allocations are not charged to the calling thread.
pub(crate) fn build() -> Profile {
    crate::record::ledger::flush_current();
    crate::record::uncharged::uncharged(build_uncharged)
}

/// The snapshot itself, in the order its locks are taken: the merged
/// slabs, the run facts (held while the run is described), the settings,
/// the checksum log, then steps, phases and the loss counters.
fn build_uncharged() -> Profile {
    let totals = &collect();
    let clock = ClockInfo {
        ns_per_tick: crate::clock::ns_per_tick(),
        source: crate::clock::source(),
    };
    let metas = all_slots();
    // Before the facts lock: `rank_identity` takes it too.
    let identity = crate::record::rank::rank_identity();
    let facts = run_facts();
    let conv = conversion(&facts, clock);
    let bricks = brick_stats(totals, &metas, &conv, |slot| {
        let bottleneck = facts.bottlenecks.get(&slot).copied().unwrap_or_default();
        (
            bottleneck,
            facts.compressed.get(&slot).copied().unwrap_or(0),
        )
    });
    let settings = state::settings();
    let device = DeviceFacts::of(&settings);
    let graph_on = settings.graph;
    let timer = settings.device_timer;
    drop(settings);
    // Outside the settings lock: a capture flushes and names bricks.
    let mut device_kernels =
        timer.and_then(|t| crate::record::device::guarded(|| t.kernels()).flatten());
    if let Some(kernels) = &mut device_kernels {
        kernels_on_timeline(kernels, &conv);
    }
    let checksums = log();
    let run = run_info(totals, &facts, identity, clock, device);
    drop(facts);
    let steps = step_summary(&conv);
    let phases = phase_stats(&conv);
    let counters = loss_counters(totals, &checksums);
    let trace = recorded_trace(totals);
    let mut threads = totals.threads.clone();
    threads.sort_by_key(|t| t.thread);
    Profile {
        schema_version: SCHEMA_VERSION.to_owned(),
        run,
        categories: CategoryEntry::all_of(&bricks),
        bricks,
        sites: registered_sites(),
        steps,
        phases,
        layers: layers(totals, &metas, &conv),
        threads,
        timeline: timeline(totals, &metas, &conv),
        counter_tracks: counter_tracks(totals, &conv),
        tiles: tiles(totals, &conv),
        checksums: checksums.entries().to_vec(),
        graph: totals
            .graph
            .clone()
            .or_else(|| graph_on.then(ExecutionGraph::new)),
        ptx: ptx().clone(),
        trace,
        counters,
        memory: memory::collect(&metas, &conv),
        generation: generation_log(&conv),
        device_kernels,
    }
}

/// Every recorded prefill and decode occurrence, on the run's clock.
fn generation_log(conv: &Conversion) -> GenerationLog {
    let phases = phases();
    GenerationLog {
        events: phases
            .generation
            .iter()
            .map(|e| TokenEvent {
                phase: e.phase,
                start_ns: conv.ns(e.start.saturating_sub(conv.origin_ticks)),
                duration_ns: conv.ns(e.ticks),
                step: e.step,
            })
            .collect(),
        dropped: phases.generation_dropped,
    }
}

/// How ticks become nanoseconds: the clock's rate, the overhead floor
/// subtracted from every sample (when asked), and the run's start.
fn conversion(facts: &RunFacts, clock: ClockInfo) -> Conversion {
    let floor_ticks = match facts.overhead {
        Some(m) if facts.subtract_overhead => m.floor_ticks,
        _ => 0,
    };
    Conversion {
        ns_per_tick: clock.ns_per_tick,
        ticks_are_cycles: clock.source == crate::clock::ClockSource::Tsc,
        floor_ticks,
        origin_ticks: facts.started.map_or(0, |s| s.ticks),
    }
}

/// What the settings say about device time: the sync mode, whether a
/// device timer is installed, and that timer's notes.
struct DeviceFacts {
    sync_mode: SyncMode,
    device_timer: bool,
    notes: Vec<String>,
}

impl DeviceFacts {
    fn of(settings: &Settings) -> Self {
        let notes = settings.device_timer.map_or_else(Vec::new, |timer| {
            crate::record::device::guarded(|| timer.notes()).unwrap_or_default()
        });
        Self {
            sync_mode: settings.sync_mode,
            device_timer: settings.device_timer.is_some(),
            notes,
        }
    }
}

/// The run's description: identity, clocks, overhead, hardware facts and
/// the notes that qualify its numbers.
fn run_info(
    totals: &Totals,
    facts: &RunFacts,
    identity: RankIdentity,
    clock: ClockInfo,
    device: DeviceFacts,
) -> RunInfo {
    let overhead = facts.overhead.map(|m| m.report(facts.subtract_overhead));
    let mut notes = Vec::new();
    if let Some(o) = overhead.filter(|o| o.subtracted) {
        notes.push(format!(
            "profiler overhead subtracted: {:.1} ns from every brick sample (phases and steps are raw)",
            o.floor_ns
        ));
    }
    notes.extend(device.notes);
    let launch_to_sync = LAUNCH_TO_SYNC.load(Relaxed);
    if launch_to_sync > 0 {
        notes.push(format!(
            "{launch_to_sync} deferred samples measure launch-to-sync time, not device time \
             (install a DeviceTimer to attribute device time per brick)"
        ));
    }
    notes.extend(
        identity
            .problems
            .iter()
            .map(|p| format!("launcher variable ignored: {p}")),
    );
    let distributed = identity.source != crate::profile::IdentitySource::Single;
    RunInfo {
        name: facts.name.clone().unwrap_or_else(program_name),
        started_at_unix_ns: facts.started.map_or(0, |s| s.unix_ns),
        rank: distributed.then_some(identity.rank),
        world_size: distributed.then_some(identity.world_size),
        local_rank: identity.local_rank,
        run_id: identity.run_id,
        wall_ns: facts.started.map_or(0, |s| {
            u64::try_from(s.instant.elapsed().as_nanos()).unwrap_or(u64::MAX)
        }),
        host: identity.host,
        pid: std::process::id(),
        threads_seen: u32::try_from(totals.threads_seen).unwrap_or(u32::MAX),
        sync_mode: device.sync_mode,
        device_timer: device.device_timer,
        trace_format: facts.trace_format,
        launch_gap: crate::sync::launch_gaps(),
        clock,
        overhead,
        hardware: facts.hardware.clone(),
        l2_cache_hit_rate: facts.l2_cache_hit_rate,
        zero_copy: facts.zero_copy,
        notes,
        compiled_out: cfg!(feature = "off"),
    }
}

/// The steps recorded: count, tokens, total and the sampled step times.
fn step_summary(conv: &Conversion) -> StepSummary {
    let s = steps();
    StepSummary {
        count: s.recorded,
        skipped: s.skipped,
        tokens: s.tokens,
        total_ns: conv.ns(s.ticks),
        samples_ns: s.samples.iter().map(|&(_, t, _)| conv.ns(t)).collect(),
        samples_index: s.samples.iter().map(|&(i, ..)| i).collect(),
        samples_tokens: s.samples.iter().map(|&(.., n)| n).collect(),
        samples_dropped: s.samples_dropped,
        schedule: s.schedule,
        empty: s.empty,
        nested: s.nested,
    }
}

/// Every phase entered at least once.
fn phase_stats(conv: &Conversion) -> Vec<PhaseStats> {
    phases()
        .stats
        .iter()
        .filter(|p| p.count > 0)
        .map(|p| PhaseStats {
            name: p.name.to_string(),
            count: p.count,
            total_ns: conv.ns(p.ticks),
            min_ns: conv.ns(p.min),
            max_ns: conv.ns(p.max),
            in_steps_ns: conv.ns(p.in_steps),
            latency: LatencyHistogram::from_ticks(&p.hist, conv.ns_per_tick),
        })
        .collect()
}

/// What was lost or is still pending, from every counter that tracks it.
fn loss_counters(totals: &Totals, checksums: &ChecksumLog) -> Counters {
    Counters {
        pending: totals.pending,
        pending_overflow: totals.pending_overflow,
        pending_abandoned: totals.pending_abandoned,
        device_timer_fallbacks: DEVICE_FALLBACKS.load(Relaxed),
        timeline_dropped: totals.timeline_dropped,
        lost_at_thread_exit: LOST_AT_EXIT.load(Relaxed),
        slot_overflow_samples: totals
            .slots
            .get(OVERFLOW_SLOT as usize)
            .map_or(0, |s| s.time.count),
        sync_hook_panics: HOOK_PANICS.load(Relaxed),
        device_timer_panics: TIMER_PANICS.load(Relaxed),
        trace_entries_dropped: totals.trace_entries_dropped,
        counter_values_rejected: totals.counters_rejected,
        checksums_dropped: checksums.dropped(),
    }
}

/// `#[trace_op]` entries of every thread, by start time.
fn recorded_trace(totals: &Totals) -> RecordedExecutionTrace {
    let mut trace = RecordedExecutionTrace::new();
    let mut entries = totals.trace_entries.clone();
    entries.sort_by(|a, b| {
        a.start_us
            .unwrap_or(0.0)
            .total_cmp(&b.start_us.unwrap_or(0.0))
    });
    for entry in entries {
        trace.add_entry(entry);
    }
    trace
}

fn program_name() -> String {
    std::env::args_os()
        .next()
        .and_then(|a| {
            std::path::Path::new(&a)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "run".to_owned())
}
