//! A benchmark variant: a named way of making N calls, with what it recorded.
//!
//! Variants run in interleaved rounds (A B C ... A B C ...), so slow drifts
//! of the machine (frequency, other load) hit every variant alike.

use crate::measure::{Summary, Timing, process_cpu_ns};

/// What a variant's profiler kept of one batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recorded {
    /// Nothing to record (unannotated code, bare clock reads).
    NotApplicable,
    /// The profiler kept this many calls; must equal the calls made.
    Count(u64),
    /// Recording is off on purpose; this many calls were kept anyway (must be 0).
    Unexpected(u64),
    /// Counted once at the end of the run (the profiler reports only then).
    AtEnd,
}

/// One batch: time per call and what was recorded.
#[derive(Debug, Clone, Copy)]
pub struct Batch {
    /// Time per call (per thread, averaged over threads).
    pub timing: Timing,
    /// What the profiler kept.
    pub recorded: Recorded,
}

/// How a variant's results are expected to check out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// No recording involved.
    Nothing,
    /// Every call recorded.
    Every,
    /// No call recorded (runtime-disabled).
    None,
}

/// A named variant and its samples.
pub struct Variant {
    /// Stable identifier (JSON, target lookups).
    pub key: &'static str,
    /// Name shown in the table.
    pub name: String,
    /// Threads calling at once.
    pub threads: u32,
    /// Part of the "two fast clock reads" floor.
    pub clock_floor: bool,
    /// What recording should look like.
    pub expect: Expect,
    /// Wall ns per call, one sample per timed batch.
    pub ns: Vec<f64>,
    /// The calling threads' own CPU ns per call, one sample per timed batch.
    pub on_cpu: Vec<f64>,
    /// All-in process CPU ns per call, one sample per timed batch.
    pub cpu: Vec<f64>,
    /// Calls made, warm-up included.
    pub made: u64,
    /// Calls the profiler kept, warm-up included (`None`: not applicable
    /// or not known yet).
    pub recorded: Option<u64>,
    run: Box<dyn FnMut(u64) -> Batch>,
}

impl Variant {
    /// A variant whose `run(calls)` makes `calls` calls on each of `threads`
    /// threads, including whatever flush or report its profiler needs.
    pub fn new(
        key: &'static str,
        name: impl Into<String>,
        threads: u32,
        expect: Expect,
        run: impl FnMut(u64) -> Batch + 'static,
    ) -> Self {
        Self {
            key,
            name: name.into(),
            threads,
            clock_floor: false,
            expect,
            ns: Vec::new(),
            on_cpu: Vec::new(),
            cpu: Vec::new(),
            made: 0,
            recorded: None,
            run: Box::new(run),
        }
    }

    /// Marks the variant as one of the fast clock pairs the floor is taken from.
    #[must_use]
    pub fn floor(mut self) -> Self {
        self.clock_floor = true;
        self
    }

    /// Runs one batch of `calls` per thread; keeps the samples when `timed`.
    pub fn run_batch(&mut self, calls: u64, timed: bool) {
        let cpu_before = process_cpu_ns();
        let batch = (self.run)(calls);
        let cpu_after = process_cpu_ns();
        let total_calls = calls * u64::from(self.threads);
        self.made += total_calls;
        match batch.recorded {
            Recorded::Count(n) | Recorded::Unexpected(n) => {
                *self.recorded.get_or_insert(0) += n;
            }
            Recorded::NotApplicable | Recorded::AtEnd => {}
        }
        if timed {
            self.ns.push(batch.timing.wall);
            self.on_cpu.extend(batch.timing.on_cpu);
            if let (Some(a), Some(b)) = (cpu_before, cpu_after) {
                self.cpu
                    .push(b.saturating_sub(a) as f64 / total_calls as f64);
            }
        }
    }

    /// Adds a one-off cost (e.g. a final report), already divided per call,
    /// to every CPU sample.
    pub fn charge_cpu(&mut self, ns_per_call: f64) {
        for sample in &mut self.cpu {
            *sample += ns_per_call;
        }
    }

    /// Wall ns per call over the timed batches.
    #[must_use]
    pub fn wall(&self) -> Option<Summary> {
        Summary::of(&self.ns)
    }

    /// The calling threads' own CPU ns per call (median over the timed batches).
    #[must_use]
    pub fn on_cpu_median(&self) -> Option<f64> {
        Summary::of(&self.on_cpu).map(|s| s.median)
    }

    /// All-in CPU ns per call (median over the timed batches).
    #[must_use]
    pub fn cpu_median(&self) -> Option<f64> {
        Summary::of(&self.cpu).map(|s| s.median)
    }

    /// Whether the recorded count is what this variant promises.
    #[must_use]
    pub fn recording_ok(&self) -> bool {
        match self.expect {
            Expect::Nothing => true,
            Expect::Every => self.recorded.is_some_and(|r| r >= self.made),
            Expect::None => self.recorded.unwrap_or(0) == 0,
        }
    }

    /// "recorded N of M" for the table.
    #[must_use]
    pub fn recorded_text(&self) -> String {
        match (self.expect, self.recorded) {
            (Expect::Nothing, _) => "n/a".to_owned(),
            (Expect::None, r) => format!("{} of {} (off: expects 0)", r.unwrap_or(0), self.made),
            (Expect::Every, Some(r)) => format!("recorded {r} of {}", self.made),
            (Expect::Every, None) => format!("recorded ? of {}", self.made),
        }
    }
}

/// Runs one round: every variant once, in order.
pub fn run_round(variants: &mut [Variant], calls: u64, timed: bool) {
    for variant in variants {
        variant.run_batch(calls, timed);
    }
}
