//! Switching the global profiler on and off, resetting it, taking
//! snapshots, and the run facts a [`Profile`] carries.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{LazyLock, Mutex, MutexGuard, PoisonError};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use crate::catalogue::BrickBottleneck;
use crate::profile::{
    ClockInfo, Counters, HardwareInfo, PhaseStats, Profile, RunInfo, SCHEMA_VERSION, StepSummary,
};
use crate::snapshot::{self, Conversion, Totals};
use crate::state::{self, ENABLED};

/// Facts set by the user or measured once, reported in every profile.
#[derive(Default)]
pub(crate) struct RunFacts {
    pub(crate) name: Option<String>,
    pub(crate) hardware: Option<HardwareInfo>,
    pub(crate) l2_cache_hit_rate: Option<f32>,
    pub(crate) zero_copy: bool,
    /// (Unix ns, counter ticks, Instant) when recording (re)started.
    pub(crate) started: Option<(u64, u64, Instant)>,
    pub(crate) bottlenecks: HashMap<u32, BrickBottleneck>,
    pub(crate) overhead: Option<crate::overhead::Measured>,
    pub(crate) subtract_overhead: bool,
    pub(crate) rank: Option<u32>,
    pub(crate) world_size: Option<u32>,
}

static RUN: LazyLock<Mutex<RunFacts>> = LazyLock::new(Mutex::default);

pub(crate) fn run_facts() -> MutexGuard<'static, RunFacts> {
    RUN.lock().unwrap_or_else(PoisonError::into_inner)
}

fn mark_start(facts: &mut RunFacts) {
    let unix_ns = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let ticks = crate::clock::now(crate::clock::init());
    ORIGIN_TICKS.store(ticks, Relaxed);
    facts.started = Some((unix_ns, ticks, Instant::now()));
}

/// Turns recording on. The first call also starts the run clock and the
/// deferred-time epoch, and measures the profiler's own per-call cost (a few
/// milliseconds, once; see [`calibrate_overhead`](crate::calibrate_overhead)).
/// With the `off` feature this does nothing.
pub fn enable() {
    if cfg!(feature = "off") {
        return;
    }
    let first = {
        let mut facts = run_facts();
        let first = facts.started.is_none();
        if first {
            mark_start(&mut facts);
            crate::sync::reset_epoch();
        }
        first && facts.overhead.is_none()
    };
    if first {
        crate::overhead::calibrate_overhead();
    }
    let mut settings = state::settings();
    settings.enabled = true;
    settings.publish();
}

/// Turns recording off; annotated calls then cost one relaxed load.
pub fn disable() {
    let mut settings = state::settings();
    settings.enabled = false;
    settings.publish();
}

/// Whether recording is on (it may still be paused by a step schedule).
#[must_use]
pub fn is_enabled() -> bool {
    state::load() & ENABLED != 0
}

/// Turns trace mode on or off: while on, bricks, phases, layers and steps
/// also append timeline events (see [`Profile::timeline`]) to bounded
/// per-thread buffers.
pub fn set_trace_mode(on: bool) {
    let mut settings = state::settings();
    settings.timeline = on;
    settings.publish();
}

/// Whether trace mode is on.
#[must_use]
pub fn is_trace_mode() -> bool {
    state::load() & state::TIMELINE != 0
}

/// Sets how many timeline events each thread keeps (default 1 048 576,
/// 24 bytes each); further events are dropped and counted.
pub fn set_trace_capacity(events_per_thread: usize) {
    crate::timeline::set_capacity(events_per_thread);
}

/// Clears every measurement (bricks, layers, steps, phases, timeline,
/// pending records, counters) and restarts the run clock. Registrations,
/// settings, the schedule and bottleneck labels are kept.
///
/// Each thread clears its own storage the next time it records, so calls
/// in flight on other threads are never torn.
pub fn reset() {
    {
        let mut settings = state::settings();
        settings.generation = settings.generation.wrapping_add(1);
        settings.publish();
    }
    {
        let mut registry = crate::slab::registry();
        let generation = state::generation(state::load());
        *registry.exited(generation) = Totals::EMPTY;
    }
    {
        let mut steps = crate::session::steps();
        let (schedule, begun) = (steps.schedule, steps.begun);
        *steps = crate::session::Steps {
            schedule,
            begun,
            ..Default::default()
        };
    }
    crate::session::phases().clear();
    crate::slab::COMPRESSED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clear();
    crate::sync::clear_local_pending();
    crate::slab::LOST_AT_EXIT.store(0, Relaxed);
    crate::sync::HOOK_PANICS.store(0, Relaxed);
    crate::sync::DEVICE_FALLBACKS.store(0, Relaxed);
    crate::sync::LAUNCH_TO_SYNC.store(0, Relaxed);
    let mut facts = run_facts();
    if facts.started.is_some() {
        mark_start(&mut facts);
    }
}

/// Names the run in profiles (default: the program name).
pub fn set_run_name(name: impl Into<String>) {
    run_facts().name = Some(name.into());
}

/// Sets this process's rank and the number of ranks of a distributed run
/// (default: the `RANK` and `WORLD_SIZE` environment variables, if set).
pub fn set_rank(rank: u32, world_size: u32) {
    let mut facts = run_facts();
    facts.rank = Some(rank);
    facts.world_size = Some(world_size);
}

/// Records the hardware the run uses, for reports that compare against it.
pub fn set_hardware(hardware: HardwareInfo) {
    run_facts().hardware = Some(hardware);
}

/// Records the measured L2 cache hit rate, clamped to `[0, 1]`; NaN clears it.
pub fn set_l2_cache_hit_rate(rate: f32) {
    run_facts().l2_cache_hit_rate = (!rate.is_nan()).then(|| rate.clamp(0.0, 1.0));
}

/// Records whether zero-copy transfers are in use.
pub fn set_zero_copy(enabled: bool) {
    run_facts().zero_copy = enabled;
}

/// Labels a brick's bottleneck (built-in names and aliases resolve).
pub fn set_brick_bottleneck(name: &str, bottleneck: BrickBottleneck) {
    let slot = crate::site::intern(name, crate::BrickCategory::Other);
    run_facts().bottlenecks.insert(slot, bottleneck);
}

/// Copies everything recorded so far into a [`Profile`], without stopping
/// recording. Counts are exact for threads that have finished their calls,
/// including threads that have exited.
#[must_use]
pub fn snapshot() -> Profile {
    let totals = collect();
    build_profile(&totals)
}

/// Reads every slab of the current generation plus the exited threads' totals.
pub(crate) fn collect() -> Totals {
    let mut registry = crate::slab::registry();
    // Read under the lock, so a concurrent reset cannot slip between the
    // generation and the exited totals it selects.
    let generation = state::generation(state::load());
    let mut totals = registry.exited(generation).clone();
    for slab in registry.live.iter().filter(|s| !s.internal) {
        totals.add_slab(slab, generation);
    }
    totals
}

fn build_profile(totals: &Totals) -> Profile {
    let ns_per_tick = crate::clock::ns_per_tick();
    let source = crate::clock::source();
    let metas = crate::site::all_slots();
    let facts = run_facts();
    let overhead = facts.overhead.map(|m| m.report(facts.subtract_overhead));
    let floor_ticks = match facts.overhead {
        Some(m) if facts.subtract_overhead => m.floor_ticks,
        _ => 0,
    };
    let origin_ticks = facts.started.map_or(0, |s| s.1);
    let conv = Conversion {
        ns_per_tick,
        ticks_are_cycles: source == crate::clock::ClockSource::Tsc,
        floor_ticks,
        origin_ticks,
    };
    let compressed = crate::slab::COMPRESSED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    let bricks = snapshot::brick_stats(totals, &metas, &conv, |slot| {
        let bottleneck = facts.bottlenecks.get(&slot).copied().unwrap_or_default();
        (bottleneck, compressed.get(&slot).copied().unwrap_or(0))
    });
    let slot_overflow_samples = totals
        .slots
        .get(crate::site::OVERFLOW_SLOT as usize)
        .map_or(0, |s| s.count);
    let mut notes = Vec::new();
    if let Some(o) = overhead.filter(|o| o.subtracted) {
        notes.push(format!(
            "profiler overhead subtracted: {:.1} ns from every brick sample (phases and steps are raw)",
            o.floor_ns
        ));
    }
    let settings = state::settings();
    let (sync_mode, device_timer) = (settings.sync_mode, settings.device_timer.is_some());
    drop(settings);
    let launch_to_sync = crate::sync::LAUNCH_TO_SYNC.load(Relaxed);
    if launch_to_sync > 0 {
        notes.push(format!(
            "{launch_to_sync} deferred samples measure launch-to-sync time, not device time \
             (install a DeviceTimer to attribute device time per brick)"
        ));
    }
    let run = RunInfo {
        name: facts.name.clone().unwrap_or_else(program_name),
        started_at_unix_ns: facts.started.map_or(0, |s| s.0),
        rank: facts.rank.or_else(|| env_u32("RANK")),
        world_size: facts.world_size.or_else(|| env_u32("WORLD_SIZE")),
        wall_ns: facts.started.map_or(0, |s| s.2.elapsed().as_nanos() as u64),
        host: host_name(),
        pid: std::process::id(),
        threads_seen: totals.threads.len() as u32,
        sync_mode,
        device_timer,
        clock: ClockInfo {
            source,
            ns_per_tick,
        },
        overhead,
        hardware: facts.hardware.clone(),
        l2_cache_hit_rate: facts.l2_cache_hit_rate,
        zero_copy: facts.zero_copy,
        notes,
    };
    drop(facts);
    let steps = {
        let s = crate::session::steps();
        StepSummary {
            count: s.recorded,
            skipped: s.skipped,
            tokens: s.tokens,
            total_ns: conv.ns(s.ticks),
            samples_ns: s.samples.iter().map(|&t| conv.ns(t)).collect(),
            samples_dropped: s.samples_dropped,
            schedule: s.schedule,
        }
    };
    let phases = crate::session::phases()
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
        })
        .collect();
    let counters = Counters {
        pending: totals.pending,
        pending_overflow: totals.pending_overflow,
        pending_abandoned: totals.pending_abandoned,
        device_timer_fallbacks: crate::sync::DEVICE_FALLBACKS.load(Relaxed),
        timeline_dropped: totals.timeline_dropped,
        lost_at_thread_exit: crate::slab::LOST_AT_EXIT.load(Relaxed),
        slot_overflow_samples,
        sync_hook_panics: crate::sync::HOOK_PANICS.load(Relaxed),
        trace_entries_dropped: totals.trace_entries_dropped,
    };
    let mut trace = crate::trace::RecordedExecutionTrace::new();
    let mut entries = totals.trace_entries.clone();
    entries.sort_by(|a, b| {
        a.start_us
            .unwrap_or(0.0)
            .total_cmp(&b.start_us.unwrap_or(0.0))
    });
    for entry in entries {
        trace.add_entry(entry);
    }
    let mut threads = totals.threads.clone();
    threads.sort_by_key(|t| t.thread);
    Profile {
        schema_version: SCHEMA_VERSION.to_owned(),
        run,
        categories: snapshot::categories(&bricks),
        bricks,
        sites: crate::registry::registered_sites(),
        steps,
        phases,
        layers: snapshot::layers(totals, &metas, &conv),
        threads,
        timeline: snapshot::timeline(totals, &metas, &conv),
        trace,
        counters,
    }
}

/// Counter value when recording (re)started: time zero of timelines and
/// trace entries, readable without a lock.
static ORIGIN_TICKS: AtomicU64 = AtomicU64::new(0);

/// Counter value of the run's start.
pub(crate) fn origin_ticks() -> u64 {
    ORIGIN_TICKS.load(Relaxed)
}

fn env_u32(name: &str) -> Option<u32> {
    std::env::var(name).ok()?.trim().parse().ok()
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

fn host_name() -> String {
    std::env::var("HOSTNAME")
        .ok()
        .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
        .map(|h| h.trim().to_owned())
        .unwrap_or_default()
}
