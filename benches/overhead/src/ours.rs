//! Variants of this profiler: `#[brick]` enabled, runtime-disabled, custom
//! name, deferred with a device timer, trace mode, two threads, a
//! `profiler::counter` sample per call, and a kernel tile timer per call
//! with tile profiling off and on.
//!
//! Each batch starts from `profiler::reset()` and ends with a
//! `profiler::snapshot()` (the profiler's report), which is where the
//! recorded count comes from; the snapshot is inside the all-in CPU window.

use std::hint::black_box;
use std::rc::Rc;
use std::sync::Barrier;

use profiler::{
    Profile,
    sync::{CpuEventTimer, SyncMode},
};

use crate::measure::{Timing, call_n, in_chunks, ns_per_call};
use crate::subjects::{COUNTER_SERIES, counter_sample, custom_op, rms_norm, tile};
use crate::team::Team;
use crate::variant::{Batch, Expect, Recorded, Variant};

/// Calls per forward pass in deferred mode: `finalize` runs after each
/// (the pending queue holds 65 536 records per thread by default).
pub const CALLS_PER_PASS: u64 = 10_000;

/// How the profiler is configured for a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Enabled,
    Disabled,
    Deferred,
    Trace,
}

/// Installs the device timer (once; deferred batches switch it in through
/// the sync mode) and pays the one-time calibration of the first `enable`.
pub fn setup() {
    profiler::Config::new()
        .device_timer(CpuEventTimer::default())
        .apply();
    profiler::sync::set_sync_mode(SyncMode::None);
    profiler::enable();
    black_box(rms_norm(0));
    black_box(custom_op(0));
    profiler::disable();
    profiler::reset();
}

fn prepare(mode: Mode) {
    profiler::Config::new()
        .trace_mode(mode == Mode::Trace)
        .apply();
    profiler::sync::set_sync_mode(if mode == Mode::Deferred {
        SyncMode::Deferred
    } else {
        SyncMode::None
    });
    if mode == Mode::Disabled {
        profiler::disable();
    } else {
        profiler::enable();
    }
    profiler::reset();
}

/// Takes the snapshot and leaves the profiler off and in plain mode.
fn finish(mode: Mode, brick: &str) -> Recorded {
    let profile = profiler::snapshot();
    profiler::disable();
    profiler::Config::new().trace_mode(false).apply();
    profiler::sync::set_sync_mode(SyncMode::None);
    let count = recorded_count(&profile, brick, mode);
    if mode == Mode::Disabled {
        Recorded::Unexpected(count)
    } else {
        Recorded::Count(count)
    }
}

/// Samples of `brick`; in trace mode the timeline must hold them all too,
/// and nothing may be pending, overflowed or dropped.
fn recorded_count(profile: &Profile, brick: &str, mode: Mode) -> u64 {
    let mut count = profile.brick(brick).map_or(0, |b| b.count);
    if mode == Mode::Trace {
        count = count.min(profile.timeline.event_count() as u64);
    }
    let c = &profile.counters;
    let lost = c.pending + c.pending_overflow + c.timeline_dropped + c.lost_at_thread_exit;
    count.saturating_sub(lost)
}

fn one_thread(mode: Mode, brick: &'static str, f: fn(u64) -> u64) -> impl FnMut(u64) -> Batch {
    move |calls| {
        prepare(mode);
        let timing = if mode == Mode::Deferred {
            ns_per_call(calls, |calls| {
                in_chunks(calls, CALLS_PER_PASS, |n| {
                    call_n(n, f);
                    profiler::sync::finalize(profiler::sync::elapsed_ns());
                });
            })
        } else {
            ns_per_call(calls, |n| call_n(n, f))
        };
        Batch {
            timing,
            recorded: finish(mode, brick),
        }
    }
}

/// `profiler::counter` once per call, enabled (not in trace mode: counters
/// record either way); every sample must be in the snapshot's track.
fn counter_batch(calls: u64) -> Batch {
    prepare(Mode::Enabled);
    let timing = ns_per_call(calls, |n| call_n(n, counter_sample));
    let profile = profiler::snapshot();
    profiler::disable();
    let kept = profile
        .counter_tracks
        .iter()
        .find(|t| t.name == COUNTER_SERIES)
        .map_or(0, |t| t.samples.len() as u64);
    let c = &profile.counters;
    let lost = c.timeline_dropped + c.counter_values_rejected + c.lost_at_thread_exit;
    Batch {
        timing,
        recorded: Recorded::Count(kept.saturating_sub(lost)),
    }
}

/// A tile timer per call, with `Config::tile_profiling` off (the timer is
/// disarmed: nothing may be recorded) or on (every tile in the snapshot).
fn tile_batch(on: bool) -> impl FnMut(u64) -> Batch {
    move |calls| {
        prepare(Mode::Enabled);
        profiler::Config::new().tile_profiling(on).apply();
        let timing = ns_per_call(calls, |n| call_n(n, tile));
        let profile = profiler::snapshot();
        profiler::disable();
        profiler::Config::new().tile_profiling(false).apply();
        let count = profile.tiles.iter().map(|t| t.count).sum();
        Batch {
            timing,
            recorded: if on {
                Recorded::Count(count)
            } else {
                Recorded::Unexpected(count)
            },
        }
    }
}

fn brick_job(calls: u64, start: &Barrier) -> Timing {
    start.wait();
    ns_per_call(calls, |n| call_n(n, rms_norm))
}

/// The single-thread variants.
#[must_use]
pub fn variants() -> Vec<Variant> {
    vec![
        Variant::new(
            "brick",
            "#[brick(RmsNorm)] enabled",
            1,
            Expect::Every,
            one_thread(Mode::Enabled, "RmsNorm", rms_norm),
        ),
        Variant::new(
            "brick-disabled",
            "#[brick(RmsNorm)] runtime-disabled",
            1,
            Expect::None,
            one_thread(Mode::Disabled, "RmsNorm", rms_norm),
        ),
        Variant::new(
            "brick-custom",
            "#[brick(\"CustomOp\")] enabled",
            1,
            Expect::Every,
            one_thread(Mode::Enabled, "CustomOp", custom_op),
        ),
        Variant::new(
            "brick-deferred",
            format!("#[brick] deferred, CpuEventTimer, finalize/{CALLS_PER_PASS}"),
            1,
            Expect::Every,
            one_thread(Mode::Deferred, "RmsNorm", rms_norm),
        ),
        Variant::new(
            "brick-trace",
            "#[brick] trace mode (timeline events)",
            1,
            Expect::Every,
            one_thread(Mode::Trace, "RmsNorm", rms_norm),
        ),
        Variant::new(
            "counter",
            "profiler::counter(name, value) enabled",
            1,
            Expect::Every,
            counter_batch,
        ),
        Variant::new(
            "tile-off",
            "kernel tile timer, tile profiling off",
            1,
            Expect::None,
            tile_batch(false),
        ),
        Variant::new(
            "tile",
            "kernel tile timer, tile profiling on",
            1,
            Expect::Every,
            tile_batch(true),
        ),
    ]
}

/// `#[brick(RmsNorm)]` enabled on every thread of `team` at once.
#[must_use]
pub fn team_variant(team: Rc<Team>) -> Variant {
    let threads = team.size() as u32;
    Variant::new(
        "brick-threads",
        "#[brick(RmsNorm)] enabled",
        threads,
        Expect::Every,
        move |calls| {
            prepare(Mode::Enabled);
            let timing = team.run(brick_job, calls);
            Batch {
                timing,
                recorded: finish(Mode::Enabled, "RmsNorm"),
            }
        },
    )
}
