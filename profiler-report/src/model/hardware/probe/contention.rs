//! Whether the machine was busy while the probes ran: other runnable tasks
//! (`procs_running` in `/proc/stat`), CPU time stolen by a hypervisor, and
//! the spread between repetitions of one probe. Any of them lowers the
//! ceilings, so a busy probe is said next to every figure built on it.

use std::path::Path;

use profiler_core::profile::Contention;

/// Fewest other runnable tasks, seen at every sample, that mark the
/// machine as busy: one task competing for the whole probe is enough to
/// halve a core's share.
pub const BUSY_OTHER_RUNNABLE: u32 = 1;
/// Stolen CPU time above which the machine counts as busy, %.
pub const BUSY_STEAL_PCT: f64 = 2.0;
/// Spread between the best and the median repetition of one probe above
/// which the machine counts as busy, %.
pub const BUSY_SPREAD_PCT: f64 = 5.0;

/// The counters of `/proc/stat` the probe reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ProcStat {
    /// Tasks running or runnable, this thread included.
    pub(crate) procs_running: Option<u32>,
    /// Stolen jiffies over all CPUs, since boot.
    pub(crate) steal: Option<u64>,
    /// All jiffies over all CPUs, since boot.
    pub(crate) total: Option<u64>,
}

impl ProcStat {
    /// Parses the text of `/proc/stat`; absent fields stay `None`.
    pub(crate) fn parse(text: &str) -> Self {
        let mut stat = Self::default();
        for line in text.lines() {
            let mut words = line.split_whitespace();
            match words.next() {
                Some("cpu") => {
                    let jiffies: Vec<u64> = words.filter_map(|w| w.parse().ok()).collect();
                    // user nice system idle iowait irq softirq steal guest guest_nice:
                    // guest time is already counted in user and nice.
                    stat.total = Some(jiffies.iter().take(8).sum());
                    stat.steal = jiffies.get(7).copied();
                }
                Some("procs_running") => {
                    stat.procs_running = words.next().and_then(|w| w.parse().ok());
                }
                _ => {}
            }
        }
        stat
    }

    fn read() -> Self {
        std::fs::read_to_string(Path::new("/proc/stat"))
            .map_or_else(|_| Self::default(), |t| Self::parse(&t))
    }
}

/// Samples taken over one probe run, turned into a [`Contention`] at the end.
#[derive(Debug, Clone, Default)]
pub(crate) struct Watch {
    first: ProcStat,
    fewest_others: Option<u32>,
    spread_pct: f64,
    spread_of: String,
}

impl Watch {
    /// Starts watching: the first sample.
    pub(crate) fn start() -> Self {
        let mut w = Self {
            first: ProcStat::read(),
            ..Self::default()
        };
        w.note_runnable(w.first);
        w
    }

    /// Samples the runnable tasks between two probes (when no probe thread runs).
    pub(crate) fn sample(&mut self) {
        self.note_runnable(ProcStat::read());
    }

    fn note_runnable(&mut self, stat: ProcStat) {
        if let Some(running) = stat.procs_running {
            let others = running.saturating_sub(1);
            self.fewest_others = Some(self.fewest_others.map_or(others, |f| f.min(others)));
        }
    }

    /// Notes one probe's best and median rates.
    pub(crate) fn spread(&mut self, what: &str, best: f64, median: f64) {
        if best > 0.0 && median.is_finite() {
            let pct = (1.0 - median / best) * 100.0;
            if pct > self.spread_pct {
                self.spread_pct = pct;
                what.clone_into(&mut self.spread_of);
            }
        }
    }

    /// The verdict, with a last sample of stolen time.
    pub(crate) fn finish(self) -> Contention {
        self.judge(ProcStat::read())
    }

    fn judge(self, last: ProcStat) -> Contention {
        let steal_pct = match (self.first.steal, last.steal, self.first.total, last.total) {
            (Some(s0), Some(s1), Some(t0), Some(t1)) if t1 > t0 => {
                Some(s1.saturating_sub(s0) as f64 / (t1 - t0) as f64 * 100.0)
            }
            _ => None,
        };
        let mut reasons = Vec::new();
        if let Some(n) = self.fewest_others.filter(|n| *n >= BUSY_OTHER_RUNNABLE) {
            reasons.push(format!(
                "{n} other task(s) were runnable at every sample (procs_running in /proc/stat)"
            ));
        }
        if let Some(s) = steal_pct.filter(|s| *s > BUSY_STEAL_PCT) {
            reasons.push(format!(
                "the hypervisor stole {s:.1}% of CPU time (steal in /proc/stat; above {BUSY_STEAL_PCT}%)"
            ));
        }
        if self.spread_pct > BUSY_SPREAD_PCT {
            reasons.push(format!(
                "{} repetitions spread {:.1}% between best and median (above {BUSY_SPREAD_PCT}%)",
                self.spread_of, self.spread_pct
            ));
        }
        Contention {
            busy: !reasons.is_empty(),
            other_runnable: self.fewest_others,
            steal_pct,
            spread_pct: self.spread_pct,
            reasons,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT: &str = "cpu  100 0 50 800 10 0 0 40 5 0\ncpu0 50 0 25 400 5 0 0 20 0 0\n\
                        intr 1 2 3\nprocs_running 3\nprocs_blocked 0\n";

    #[test]
    fn proc_stat_gives_runnable_steal_and_total() {
        let s = ProcStat::parse(STAT);
        assert_eq!(s.procs_running, Some(3));
        assert_eq!(s.steal, Some(40));
        assert_eq!(s.total, Some(1000));
        assert_eq!(ProcStat::parse("nothing here"), ProcStat::default());
    }

    #[test]
    fn each_sign_of_a_busy_machine_is_named() {
        let quiet = |running| ProcStat {
            procs_running: Some(running),
            steal: Some(0),
            total: Some(1000),
        };
        let mut w = Watch {
            first: quiet(1),
            ..Watch::default()
        };
        w.note_runnable(quiet(1));
        w.spread("DRAM", 10.0, 9.9);
        let c = w.clone().judge(ProcStat {
            steal: Some(1),
            total: Some(2000),
            ..quiet(1)
        });
        assert!(!c.busy, "{c:?}");
        assert_eq!(c.other_runnable, Some(0));
        assert!((c.steal_pct.unwrap() - 0.1).abs() < 1e-9);

        // A second runnable task at every sample, steal and a wide spread.
        w.note_runnable(quiet(3));
        let mut busy = w.clone();
        busy.fewest_others = Some(2);
        busy.spread("FP32 peak", 10.0, 8.0);
        let c = busy.judge(ProcStat {
            steal: Some(100),
            total: Some(2000),
            ..quiet(3)
        });
        assert!(c.busy);
        assert_eq!(c.reasons.len(), 3, "{:?}", c.reasons);
        assert!(c.reasons[0].contains("2 other task"));
        assert!(c.reasons[1].contains("stole 10.0%"));
        assert!(c.reasons[2].contains("FP32 peak") && c.reasons[2].contains("20.0%"));
    }
}
