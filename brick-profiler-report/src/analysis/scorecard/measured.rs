//! What a profile measured, for the scorecard: throughput over its steps or,
//! when there is none, why (a build without instrumentation, a profiler
//! never enabled, a schedule that skipped every step, steps never marked),
//! and whether the run timed a device at all.

use profiler_core::{Profile, Schedule, sync::SyncMode};

use profiler_core::hardware::{Hardware, MemoryLevel};

use crate::model::hardware::DeviceSpec;

/// Whether the run timed device work: a device timer, or a sync mode that
/// waits for the device before each stop.
pub(crate) fn timed_a_device(profile: &Profile) -> bool {
    profile.run.device_timer
        || matches!(
            profile.run.sync_mode,
            SyncMode::Immediate | SyncMode::PerLayer
        )
}

/// An alert when a run that timed no device (`device_timed` false, with
/// `sync_mode`) is graded against a known device's table bandwidth:
/// probably a CPU run graded against a GPU.
pub(crate) fn cpu_run_on_a_device(
    device_timed: bool,
    sync_mode: SyncMode,
    hw: &Hardware,
) -> Option<String> {
    let device = DeviceSpec::lookup(hw.preset.as_deref()?)?;
    let table_bandwidth = hw
        .memory(MemoryLevel::Dram)
        .is_some_and(|f| f.source.is_preset());
    (!device_timed && table_bandwidth).then(|| {
        format!(
            "Graded against the memory bandwidth of {} ({} GB/s), but this run timed no device \
             work (no device timer, sync mode {}): if it ran on the CPU, set \
             PROFILER_PEAK_BW_GB_S to the CPU's memory bandwidth instead.",
            device.name,
            device.mem_bw_gb_s,
            sync_mode_name(sync_mode)
        )
    })
}

fn sync_mode_name(mode: SyncMode) -> &'static str {
    match mode {
        SyncMode::Immediate => "immediate",
        SyncMode::PerLayer => "per-layer",
        SyncMode::Deferred => "deferred",
        SyncMode::None => "none",
    }
}

/// `wait 1, warm-up 3, active 10, repeat 2`.
fn describe_schedule(s: &Schedule) -> String {
    let active = if s.active == u64::MAX {
        "all".to_owned()
    } else {
        s.active.to_string()
    };
    let repeat = match s.repeat {
        0 => "forever".to_owned(),
        1 => "once".to_owned(),
        n => format!("{n} times"),
    };
    format!(
        "wait {}, warm-up {}, active {active}, repeated {repeat}",
        s.wait, s.warmup
    )
}

/// Tokens/s over recorded steps, or what is missing, telling apart a build
/// without instrumentation, a profiler never enabled, a schedule that
/// skipped every step, and steps that were never marked.
pub(crate) fn measured_throughput(profile: &Profile) -> Result<f64, String> {
    let steps = &profile.steps;
    if steps.count == 0 {
        let bricks = profile.bricks.iter().filter(|b| b.count > 0).count();
        return Err(if profile.run.compiled_out {
            "nothing was recorded: this program was built with the profiler's `off` feature, \
             which compiles every annotation out; build without it to profile"
                .to_owned()
        } else if profile.run.started_at_unix_ns == 0 && bricks == 0 {
            "nothing was recorded: the profiler was never enabled; call profiler::enable() \
             (or profiler::Config::new().enable()) before the training loop"
                .to_owned()
        } else if steps.skipped > 0 {
            let schedule = steps
                .schedule
                .map(|s| format!(" ({})", describe_schedule(&s)))
                .unwrap_or_default();
            format!(
                "no steps recorded: all {} steps were skipped by the schedule{schedule}; run \
                 more steps than it skips, or shorten its wait and warm-up",
                steps.skipped
            )
        } else if bricks > 0 {
            let what = if bricks == 1 { "brick" } else { "bricks" };
            format!(
                "no steps recorded, though {bricks} {what} ran: mark each training step with \
                 `let _step = profiler::step(tokens);` while the profiler is enabled"
            )
        } else {
            "no steps recorded: the profiler was enabled, but no profiler::step(tokens) ran \
             while it was; mark each training step with `let _step = profiler::step(tokens);`"
                .to_owned()
        });
    }
    if steps.tokens == 0 {
        Err(
            "steps carry no token counts: pass each step's tokens to profiler::step(tokens)"
                .to_owned(),
        )
    } else if steps.total_ns == 0 {
        Err("steps have no recorded wall time".to_owned())
    } else {
        Ok(steps.tokens_per_s())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_steps_are_told_apart() {
        let mut p = Profile::empty();
        p.run.compiled_out = true;
        assert!(
            measured_throughput(&p)
                .unwrap_err()
                .contains("`off` feature")
        );
        p.run.compiled_out = false;
        assert!(
            measured_throughput(&p)
                .unwrap_err()
                .contains("never enabled")
        );
        p.run.started_at_unix_ns = 1;
        p.steps.skipped = 4;
        p.steps.schedule = Some(Schedule::skip_warmup(10));
        assert!(measured_throughput(&p).unwrap_err().contains(
            "all 4 steps were skipped by the schedule (wait 0, warm-up 10, active all, \
                 repeated once)"
        ));
        p.steps.skipped = 0;
        assert!(
            measured_throughput(&p)
                .unwrap_err()
                .contains("no profiler::step(tokens) ran")
        );
        p.steps.count = 2;
        assert!(
            measured_throughput(&p)
                .unwrap_err()
                .contains("no token counts")
        );
        p.steps.tokens = 100;
        p.steps.total_ns = 1_000_000_000;
        assert_eq!(measured_throughput(&p), Ok(100.0));
    }
}
