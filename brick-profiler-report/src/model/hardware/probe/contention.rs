//! Whether the machine was busy while the probes ran, judged on what the
//! probes recorded: other runnable tasks (`procs_running` in `/proc/stat`)
//! at every sample, a best repetition that ran without the whole of its
//! CPU (other work or the hypervisor took some: steal that moved the best),
//! and a best that never converged. Noise that only lowers the median
//! leaves the best, and so the ceiling, alone: it is reported, not held
//! against the machine.

use std::path::Path;

use super::converge::{CONVERGED_PCT, FULL_CPU_PCT, Series};

/// Fewest other runnable tasks, seen at every sample, that mark the
/// machine as busy: one task competing for the whole probe is enough to
/// halve a core's share.
pub const BUSY_OTHER_RUNNABLE: u32 = 1;

/// The probe the scorecard's grade rests on (its memory-bandwidth
/// ceiling): only its own convergence and CPU share, or other work seen at
/// every sample, call the machine busy.
pub(crate) const GRADE_PROBE: &str = "DRAM bandwidth";

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

/// What the probes recorded about the machine, judged by [`judge`].
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Samples {
    /// Other runnable tasks at each sample, taken between probes, when
    /// only the probe's own thread runs (`procs_running` less one).
    pub(crate) others: Vec<u32>,
    /// CPU time stolen by the hypervisor over the whole run, %, when readable.
    pub(crate) steal_pct: Option<f64>,
    /// Every probe's repetitions.
    pub(crate) series: Vec<Series>,
}

/// Signs that other work shared the CPU while the probes ran, which
/// lowers every ceiling; the probes keep them on the hardware they
/// return (`Hardware::busy`, `ProbeRun`).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Contention {
    /// Whether any sign passed its threshold.
    pub(crate) busy: bool,
    /// Fewest other runnable tasks seen, when readable.
    pub(crate) other_runnable: Option<u32>,
    /// CPU time stolen by the hypervisor, %, when readable.
    pub(crate) steal_pct: Option<f64>,
    /// Largest median-below-best spread of one probe, %.
    pub(crate) spread_pct: f64,
    /// Largest best-three spread of one probe, %.
    pub(crate) best_spread_pct: Option<f64>,
    /// Lowest share of its CPU a probe's best repetition ran with, %.
    pub(crate) best_cpu_pct: Option<f64>,
    /// Each sign that passed its threshold, in words.
    pub(crate) reasons: Vec<String>,
    /// Probes whose best did not settle, in words.
    pub(crate) unsettled: Vec<String>,
}

/// Samples taken over one probe run, turned into a [`Contention`] at the end.
#[derive(Debug, Clone, Default)]
pub(crate) struct Watch {
    first: ProcStat,
    samples: Samples,
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
            self.samples.others.push(running.saturating_sub(1));
        }
    }

    /// Keeps one probe's repetitions.
    pub(crate) fn probed(&mut self, series: Series) {
        self.samples.series.push(series);
    }

    /// The verdict, with a last sample of runnable tasks and stolen time.
    pub(crate) fn finish(mut self) -> Contention {
        let last = ProcStat::read();
        self.note_runnable(last);
        self.samples.steal_pct = steal_pct(self.first, last);
        judge(&self.samples)
    }
}

/// Stolen time between two samples, % of all CPU time.
fn steal_pct(first: ProcStat, last: ProcStat) -> Option<f64> {
    match (first.steal, last.steal, first.total, last.total) {
        (Some(s0), Some(s1), Some(t0), Some(t1)) if t1 > t0 => {
            Some(s1.saturating_sub(s0) as f64 / (t1 - t0) as f64 * 100.0)
        }
        _ => None,
    }
}

/// The probe that did worst by `key` among those `bad` picks, with how
/// many others did badly too.
fn worst(
    series: &[Series],
    bad: impl Fn(&Series) -> bool,
    key: impl Fn(&Series) -> f64,
) -> Option<(&Series, usize)> {
    let bad: Vec<&Series> = series.iter().filter(|s| bad(s)).collect();
    let worst = bad
        .iter()
        .copied()
        .max_by(|a, b| key(a).total_cmp(&key(b)))?;
    Some((worst, bad.len() - 1))
}

fn and_more(n: usize) -> String {
    match n {
        0 => String::new(),
        1 => " (and 1 other probe)".to_owned(),
        n => format!(" (and {n} other probes)"),
    }
}

/// The verdict on what the probes recorded: busy when other tasks were
/// runnable at every sample, when a probe's best repetition ran with less
/// than [`FULL_CPU_PCT`] of its CPU, or when a probe's best three never
/// came within [`CONVERGED_PCT`]; each reason with its number.
pub(crate) fn judge(samples: &Samples) -> Contention {
    let fewest_others = samples.others.iter().copied().min();
    let mut reasons = Vec::new();
    if let Some(n) = fewest_others.filter(|n| *n >= BUSY_OTHER_RUNNABLE) {
        reasons.push(format!(
            "{n} other task(s) were runnable at every one of {} samples (procs_running in \
             /proc/stat, beside the probe's own thread)",
            samples.others.len()
        ));
    }
    // A probe that did not settle says so of the grade's own ceiling, or
    // only of its own: the machine was not busy for the others to be low.
    let (graded, other): (Vec<Series>, Vec<Series>) = samples
        .series
        .iter()
        .cloned()
        .partition(|s| s.what == GRADE_PROBE);
    let mut unsettled = Vec::new();
    for (series, into) in [(&graded, &mut reasons), (&other, &mut unsettled)] {
        into.extend(settling(series, samples.steal_pct));
    }
    let largest =
        |f: fn(&Series) -> Option<f64>| samples.series.iter().filter_map(f).max_by(f64::total_cmp);
    Contention {
        busy: !reasons.is_empty(),
        other_runnable: fewest_others,
        steal_pct: samples.steal_pct,
        spread_pct: largest(|s| Some(s.median_spread_pct())).unwrap_or(0.0),
        best_spread_pct: largest(Series::best_spread_pct),
        best_cpu_pct: samples
            .series
            .iter()
            .filter_map(Series::best_cpu_pct)
            .min_by(f64::total_cmp),
        reasons,
        unsettled,
    }
}

/// Why the bests of `series` did not settle: a best repetition that lost
/// CPU time, a best three that never converged (the worst of each, with
/// how many more).
fn settling(series: &[Series], steal_pct: Option<f64>) -> Vec<String> {
    let mut reasons = Vec::new();
    let lost = |s: &Series| 100.0 - s.best_cpu_pct().unwrap_or(100.0);
    if let Some((s, more)) = worst(series, |s| !s.best_ran_alone(), lost) {
        let steal =
            steal_pct.map_or_else(String::new, |p| format!("; {p:.1}% stolen over the run"));
        reasons.push(format!(
            "the best {} repetition ran with {:.0}% of its CPU time{}, below {FULL_CPU_PCT}%: \
             other work or the hypervisor took the rest{steal}",
            s.what,
            100.0 - lost(s),
            and_more(more)
        ));
    }
    let spread = |s: &Series| s.best_spread_pct().unwrap_or(f64::INFINITY);
    if let Some((s, more)) = worst(series, |s| !s.converged(), spread) {
        let why = match s.best_spread_pct() {
            Some(p) => format!(
                "its best three repetitions were {p:.1}% apart after {} (within {CONVERGED_PCT}% \
                 needed)",
                s.repetitions()
            ),
            None => format!(
                "only {} repetition(s) ran, three are needed",
                s.repetitions()
            ),
        };
        reasons.push(format!(
            "{} did not converge{}: {why}",
            s.what,
            and_more(more)
        ));
    }
    reasons
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::converge::Round;
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

    /// A probe's repetitions at these rates (1 unit of work each), every
    /// one with `cpu` % of its CPU.
    fn probe(what: &str, rates: &[f64], cpu: f64) -> Series {
        let rounds = rates
            .iter()
            .map(|r| Round {
                wall: Duration::from_secs_f64(1.0 / r),
                cpu_pct: Some(cpu),
            })
            .collect();
        Series::new(what, 1.0, rounds)
    }

    fn idle(series: Vec<Series>) -> Samples {
        Samples {
            others: vec![0, 1, 0, 0, 2, 0],
            steal_pct: Some(0.4),
            series,
        }
    }

    #[test]
    fn noisy_but_idle_is_quiet() {
        // Medians far below the best (a shared VM), the best three within
        // 3%, each best with its whole CPU, steal of a few %: quiet.
        let s = Samples {
            steal_pct: Some(5.8),
            ..idle(vec![
                probe(
                    "FP32 peak",
                    &[100.0, 62.0, 99.0, 70.0, 98.2, 55.0, 75.0],
                    99.6,
                ),
                probe("L1 bandwidth", &[300.0, 240.0, 297.0, 200.0, 295.0], 99.9),
            ])
        };
        let c = judge(&s);
        assert!(!c.busy, "{:?}", c.reasons);
        assert!(c.reasons.is_empty());
        assert!(
            (c.spread_pct - 25.0).abs() < 1e-4,
            "median spread reported: {c:?}"
        );
        assert!((c.best_spread_pct.unwrap() - 1.8).abs() < 1e-4);
        assert_eq!(c.best_cpu_pct, Some(99.6));
        assert_eq!((c.other_runnable, c.steal_pct), (Some(0), Some(5.8)));
    }

    #[test]
    fn steal_that_moved_the_best_is_busy() {
        // Converged, but every repetition ran with 88% of its CPU: the best
        // is 12% low however stable.
        let s = Samples {
            steal_pct: Some(12.0),
            ..idle(vec![
                probe("DRAM bandwidth", &[20.0, 19.9, 19.8, 19.9, 20.0], 88.0),
                probe("FP32 peak", &[100.0, 99.0, 99.5], 99.0),
            ])
        };
        let c = judge(&s);
        assert!(c.busy);
        assert_eq!(c.reasons.len(), 1, "{:?}", c.reasons);
        let why = &c.reasons[0];
        assert!(
            why.contains("DRAM bandwidth") && why.contains("88%"),
            "{why}"
        );
        assert!(why.contains("12.0% stolen"), "{why}");
        assert_eq!(c.best_cpu_pct, Some(88.0));
    }

    #[test]
    fn other_runnable_tasks_at_every_sample_are_busy() {
        // A busy loop beside the probe: one other task at every sample, and
        // each probe's threads shared their cores with it.
        let s = Samples {
            others: vec![1, 1, 2, 1, 1],
            steal_pct: Some(0.0),
            series: vec![
                probe("FP32 peak", &[66.0, 65.0, 50.0, 64.5], 67.0),
                probe("L2 bandwidth", &[150.0, 149.0, 148.0], 70.0),
            ],
        };
        let c = judge(&s);
        assert!(c.busy);
        assert_eq!(c.reasons.len(), 1, "{:?}", c.reasons);
        assert!(c.reasons[0].contains("1 other task(s) were runnable at every one of 5"));
        // Each probe's lost CPU is said beside its own ceiling.
        assert!(c.unsettled[0].contains("FP32 peak") && c.unsettled[0].contains("67%"));
        assert!(
            c.unsettled[0].contains("and 1 other probe"),
            "{}",
            c.unsettled[0]
        );
        assert_eq!(c.other_runnable, Some(1));
    }

    #[test]
    fn a_grade_ceiling_that_never_converged_is_busy_and_other_ceilings_say_so_alone() {
        // Full CPU every time, yet the best three stay 10% and 20% apart
        // when the budget ran out: those two ceilings say so, the machine
        // is not called busy for them.
        let c = judge(&idle(vec![
            probe("L1 bandwidth", &[300.0, 270.0, 240.0, 200.0], 99.9),
            probe("FP64 peak", &[50.0, 47.5, 45.0, 40.0, 30.0], 99.9),
            probe("FP32 peak", &[100.0, 100.0, 100.0], 99.9),
            probe(GRADE_PROBE, &[20.0, 19.9, 19.95], 99.9),
        ]));
        assert!(!c.busy, "{:?}", c.reasons);
        assert_eq!(c.unsettled.len(), 1, "{:?}", c.unsettled);
        let why = &c.unsettled[0];
        assert!(
            why.contains("L1 bandwidth did not converge (and 1 other probe)"),
            "{why}"
        );
        assert!(why.contains("20.0% apart after 4"), "{why}");
        assert!((c.best_spread_pct.unwrap() - 20.0).abs() < 1e-4);
        // The probe the grade rests on, unconverged: busy, with the number.
        let c = judge(&idle(vec![probe(
            GRADE_PROBE,
            &[20.0, 18.0, 17.0, 16.0],
            99.9,
        )]));
        assert!(c.busy);
        assert!(
            c.reasons[0].contains("DRAM bandwidth did not converge: its best three repetitions were 15.0% apart after 4"),
            "{:?}",
            c.reasons
        );
        // Too few repetitions to judge is no convergence either.
        let c = judge(&idle(vec![probe(GRADE_PROBE, &[20.0, 19.0], 99.9)]));
        assert!(
            c.reasons[0].contains("only 2 repetition(s) ran"),
            "{:?}",
            c.reasons
        );
        // Nothing measured at all: nothing to hold against the machine.
        assert!(!judge(&Samples::default()).busy);
    }

    #[test]
    fn steal_over_the_run_is_the_counters_difference() {
        let at = |steal, total| ProcStat {
            procs_running: Some(1),
            steal: Some(steal),
            total: Some(total),
        };
        assert_eq!(steal_pct(at(10, 1000), at(30, 2000)), Some(2.0));
        assert_eq!(steal_pct(at(10, 1000), at(10, 1000)), None);
        assert_eq!(steal_pct(ProcStat::default(), at(1, 1)), None);
    }
}
