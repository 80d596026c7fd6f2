//! A [`ParityProfile`] from a brick profiler [`Profile`]: ops are bricks,
//! in ms per recorded step; launches are brick calls per step.

use profiler_core::Profile;

use crate::model::parity::{Clock, ParityProfile};

impl ParityProfile {
    /// The parity view of `profile` under the name `runtime`.
    ///
    /// With recorded steps, every brick's time and the brick calls are
    /// divided by the step count, the step time is the mean step, and
    /// throughput is tokens over step time. Without steps, ops are totals
    /// over the whole run, throughput and step time are 0 (unknown), and a
    /// note says so: compare such profiles only against runs of the same
    /// length. Times are on the device clock when the run had a device
    /// timer, else on the host clock.
    #[must_use]
    pub fn from_profile(profile: &Profile, runtime: impl Into<String>) -> Self {
        let steps = profile.steps.count;
        let per_step = steps.max(1) as f64;
        let mut notes = vec![
            "kernel launches are brick calls (each annotated kernel call counts once)".to_owned(),
        ];
        if steps == 0 {
            notes.push(
                "no steps recorded: op times are totals over the whole run, not per step, and \
                 throughput is unknown; mark steps with profiler::step(tokens)"
                    .to_owned(),
            );
        } else if profile.steps.tokens == 0 {
            notes.push("steps carry no token counts: throughput is unknown".to_owned());
        }
        let mut ops = std::collections::BTreeMap::new();
        let mut calls = 0u64;
        for b in &profile.bricks {
            calls = calls.saturating_add(b.count);
            if b.total_ns > 0 {
                *ops.entry(b.name.clone()).or_insert(0.0) += b.total_ns as f64 / 1e6 / per_step;
            }
        }
        // Only records that would have become brick samples matter here.
        let c = &profile.counters;
        let lost = [
            c.pending,
            c.pending_overflow,
            c.pending_abandoned,
            c.lost_at_thread_exit,
        ]
        .into_iter()
        .fold(0u64, u64::saturating_add);
        if lost > 0 {
            notes.push(format!(
                "{lost} brick records are pending, dropped or lost: op times may be low"
            ));
        }
        // A device timer gives device time; without one, bricks are timed
        // on the host.
        let clock = if profile.run.device_timer {
            Clock::Device
        } else {
            Clock::Host
        };
        Self {
            runtime: runtime.into(),
            throughput_tok_s: profile.steps.tokens_per_s(),
            step_time_ms: profile.steps.avg_step_ms(),
            kernel_launches_per_step: (calls as f64 / per_step).round() as u64,
            ops,
            notes,
            clock,
            device_time_ms: None,
            device: profile
                .run
                .hardware
                .as_ref()
                .map(|h| h.name.clone())
                .filter(|n| !n.is_empty()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use profiler_core::{BrickCategory, BrickStats};

    fn profile(steps: u64) -> Profile {
        let mut p = Profile::empty();
        let mut b = BrickStats::new("RmsNorm", BrickCategory::Norm);
        b.count = 20;
        b.total_ns = 4_000_000;
        let mut idle = BrickStats::new("Idle", BrickCategory::Other);
        idle.count = 4;
        p.bricks = vec![b, idle];
        p.steps.count = steps;
        p.steps.tokens = 256 * steps;
        p.steps.total_ns = 10_000_000 * steps;
        p
    }

    #[test]
    fn bricks_become_ms_per_step() {
        let pp = ParityProfile::from_profile(&profile(4), "ours");
        assert_eq!(pp.runtime, "ours");
        assert_eq!(pp.ops.get("RmsNorm"), Some(&1.0));
        assert!(!pp.ops.contains_key("Idle"), "no time, no op");
        assert_eq!(pp.kernel_launches_per_step, 6);
        assert!((pp.step_time_ms - 10.0).abs() < 1e-12);
        assert!((pp.throughput_tok_s - 25_600.0).abs() < 1e-6);
        assert_eq!(pp.notes.len(), 1);
    }

    #[test]
    fn without_steps_ops_are_run_totals_and_the_note_says_so() {
        let mut p = profile(0);
        p.steps.total_ns = 0;
        let pp = ParityProfile::from_profile(&p, "ours");
        assert_eq!(pp.ops.get("RmsNorm"), Some(&4.0));
        assert_eq!((pp.throughput_tok_s, pp.step_time_ms), (0.0, 0.0));
        assert_eq!(pp.kernel_launches_per_step, 24);
        assert!(pp.notes.iter().any(|n| n.contains("no steps recorded")));
    }
}
