//! What each metric the reports show means, in one sentence or two: the
//! HTML report's tooltips and its glossary read the same words, so a
//! number and its definition never disagree.

/// One defined term.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Term {
    /// Anchor id, without the `glossary-` prefix.
    pub(crate) id: &'static str,
    /// The name as shown.
    pub(crate) name: &'static str,
    /// The definition (plain text).
    pub(crate) text: &'static str,
    /// Meaningful only when a device (GPU) was timed.
    pub(crate) device_only: bool,
}

const fn term(id: &'static str, name: &'static str, text: &'static str) -> Term {
    Term {
        id,
        name,
        text,
        device_only: false,
    }
}

/// A metric the reports define.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Metric {
    StepTime,
    Throughput,
    Percentiles,
    WallCoverage,
    Transfer,
    Launch,
    Efficiency,
    Mfu,
    BwdFwd,
    TotalTime,
    SelfTime,
    Share,
    Gflops,
    Gbps,
    Intensity,
    Elements,
    Counter,
    Allocated,
    Allocations,
    PeakMemory,
    Straggler,
    StepSplit,
    StepSpread,
    HeatCell,
    Imbalance,
}

impl Metric {
    /// Every metric, in the glossary's order.
    pub(crate) const ALL: [Metric; 20] = [
        Self::StepTime,
        Self::Throughput,
        Self::Percentiles,
        Self::WallCoverage,
        Self::Transfer,
        Self::Launch,
        Self::Efficiency,
        Self::Mfu,
        Self::BwdFwd,
        Self::TotalTime,
        Self::SelfTime,
        Self::Share,
        Self::Gflops,
        Self::Gbps,
        Self::Intensity,
        Self::Elements,
        Self::Counter,
        Self::Allocated,
        Self::Allocations,
        Self::PeakMemory,
    ];

    /// The metrics of the fleet page (a run directory across ranks), in
    /// its glossary's order.
    pub(crate) const FLEET: [Metric; 8] = [
        Self::StepTime,
        Self::Percentiles,
        Self::WallCoverage,
        Self::Straggler,
        Self::StepSplit,
        Self::StepSpread,
        Self::HeatCell,
        Self::Imbalance,
    ];

    /// Its name and definition.
    pub(crate) const fn term(self) -> Term {
        TERMS[self as usize]
    }
}

/// Every metric's term, in the order of [`Metric`]'s variants (and of
/// [`Metric::ALL`], then the fleet's own): a metric's term is
/// `TERMS[metric as usize]`.
const TERMS: [Term; 25] = [
    // StepTime
    term(
        "step-time",
        "Step time",
        "Wall time of one recorded step (profiler::step), from its start to its end, on the \
         thread that ran it.",
    ),
    // Throughput
    term(
        "throughput",
        "Throughput (tok/s)",
        "Tokens of the recorded steps over their wall time. Per step: that step's tokens over \
         its time.",
    ),
    // Percentiles
    term(
        "percentiles",
        "p50 / p90 / p99",
        "Percentiles of the per-call (or per-step) times: half of the calls took at most the \
         p50 (the median), 90% at most the p90, 99% at most the p99. Brick percentiles come from \
         a log-linear histogram and are within 3.1% of the exact value; step percentiles are \
         exact.",
    ),
    // WallCoverage
    term(
        "wall-coverage",
        "Wall coverage",
        "Share of step wall time spent inside the stepping thread's top-level phases \
         (profiler::phase). The rest is time no phase accounts for: host work between phases, \
         waits, gaps. Low coverage means the breakdown misses part of the step.",
    ),
    // Transfer
    Term {
        id: "transfer",
        name: "Transfer share",
        text: "Share of step time in host-device copy phases (h2d, d2h). GPU runs only: a CPU \
               run has no copies to a device, so the reports do not show it.",
        device_only: true,
    },
    // Launch
    Term {
        id: "launch",
        name: "Launch overhead",
        text: "On a GPU run, the share of step time outside every phase, taken as kernel launches \
               and host gaps. A CPU run launches no kernels, so the reports do not show it there \
               (its time outside phases is the complement of wall coverage).",
        device_only: true,
    },
    // Efficiency
    term(
        "efficiency",
        "Efficiency",
        "Measured throughput over the hardware ceiling, where the ceiling is the peak memory \
         bandwidth divided by the bytes each token moves: how close the run comes to the \
         throughput memory bandwidth allows. The grade is read from it.",
    ),
    // Mfu
    term(
        "mfu",
        "MFU",
        "Model FLOP utilisation: the model's FLOPs per second (from its shape and the \
         measured tokens per second) over the hardware's dense peak FLOP/s.",
    ),
    // BwdFwd
    term(
        "bwd-fwd",
        "Bwd/Fwd ratio",
        "Backward time over forward time; about 2 is usual for a transformer, since the \
         backward pass computes two gradients per matrix multiply.",
    ),
    // TotalTime
    term(
        "total-time",
        "Total time",
        "All time inside a brick, summed over its calls, including the bricks it called.",
    ),
    // SelfTime
    term(
        "self-time",
        "Self time",
        "A brick's total time minus the time of the bricks it called on the same thread: the \
         time spent in its own code. Self times add up without counting nested calls twice.",
    ),
    // Share
    term(
        "share",
        "Share",
        "A brick's total time over the sum of all bricks' total times. Nested bricks count in \
         their caller's total too, so shares can add up to more than 100%; self share divides \
         self time by the sum of self times and adds up to 100%.",
    ),
    // Gflops
    term(
        "gflops",
        "GFLOP/s",
        "Floating-point operations the brick declares (flops = ...) per second of its total \
         time, in billions.",
    ),
    // Gbps
    term(
        "gbps",
        "GB/s",
        "Bytes the brick declares it moves (bytes = ...) per second of its total time, in \
         billions.",
    ),
    // Intensity
    term(
        "intensity",
        "Arithmetic intensity (FLOP/byte)",
        "Floating-point operations per byte moved. Below the hardware's ridge point (peak \
         FLOP/s over peak GB/s) a kernel is bound by memory bandwidth, above it by compute.",
    ),
    // Elements
    term(
        "elements",
        "Elements/s",
        "Elements (tokens, rows, values: whatever the brick declares) processed per second of \
         its total time.",
    ),
    // Counter
    term(
        "counter",
        "Counter",
        "A value the program recorded with profiler::counter (a loss, a queue depth), with the \
         time it was taken.",
    ),
    // Allocated
    term(
        "allocated",
        "Allocated",
        "Heap bytes allocated while the brick ran (with the tracking allocator installed), \
         the bricks it called included; a reallocation counts its new size.",
    ),
    // Allocations
    term(
        "allocations",
        "Allocations per call",
        "Heap allocations while the brick ran, the bricks it called included, divided by its \
         calls. Allocations in a hot kernel usually mean a buffer that could be reused.",
    ),
    // PeakMemory
    term(
        "peak-memory",
        "Peak memory",
        "Highest heap bytes live at once while the brick (or step) ran, counted from its \
         entry: the memory it needs on top of what was already live.",
    ),
    // Straggler
    term(
        "straggler",
        "Straggler",
        "A rank whose median step is above the median over ranks by more than MAD k robust \
         deviations (1.4826 x the median absolute deviation) and by at least the minimum \
         excess; or whose median call of a brick takes a larger part of its step than the \
         other ranks' by at least 200% and holds its step back. The others wait for it at \
         every collective.",
    ),
    // StepSplit
    term(
        "step-split",
        "Median step by phase",
        "A rank's median step split by phase: each phase's mean time per recorded step (its \
         top-level occurrences inside steps), and the rest of the median step outside any \
         phase. A profile keeps phase totals, not per-step phase times, so the segments are \
         means; when they add up to more than the median step (phases on several threads at \
         once) they are scaled down to fit and the bar says so. A rank's extra time shows as \
         the segment that grew.",
    ),
    // StepSpread
    term(
        "step-spread",
        "Step-time box",
        "The box spans a rank's middle half of step times (p25 to p75) with the median \
         marked; the whiskers reach the slowest and fastest steps within 1.5 box heights of \
         the box, and dots are the slowest steps beyond them. Past the limit of boxes, \
         neighbouring ranks share a box of their pooled steps.",
    ),
    // HeatCell
    term(
        "heat-cell",
        "Heat map cell",
        "The step time of one rank at one step, coloured by its ratio to the fleet's median \
         step. Past what fits, a cell holds several ranks or steps and shows the slowest of \
         them (the bin's max), so a slow step is never averaged away.",
    ),
    // Imbalance
    term(
        "imbalance",
        "Max/mean",
        "The slowest rank's time per step in a brick or phase over the mean of every rank \
         analysed (a rank that never ran it counts 0): 1 is balanced.",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_definitions_end_with_a_period() {
        let terms = Metric::ALL.map(Metric::term);
        for (i, t) in terms.iter().enumerate() {
            assert!(terms[..i].iter().all(|o| o.id != t.id), "{}", t.id);
            assert!(t.text.ends_with('.'), "{}", t.id);
            assert!(!t.text.contains("  "), "{}", t.id);
        }
        assert_eq!(Metric::SelfTime.term().name, "Self time");
        assert!(Metric::Launch.term().device_only && !Metric::Mfu.term().device_only);
    }

    #[test]
    fn the_table_follows_the_variants() {
        for (i, m) in Metric::ALL.into_iter().enumerate() {
            assert_eq!(m as usize, i, "{m:?}");
        }
        let ids = Metric::ALL.map(|m| m.term().id);
        assert_eq!(ids[0], "step-time");
        assert_eq!(ids[1], "throughput");
        assert_eq!(Metric::PeakMemory.term().id, "peak-memory");
        assert_eq!(Metric::Counter.term().id, "counter");
        assert_eq!(Metric::Elements.term().id, "elements");
        assert_eq!(Metric::Imbalance.term().id, "imbalance");
        assert_eq!(TERMS.len(), Metric::Imbalance as usize + 1);
        let fleet = Metric::FLEET.map(|m| m.term());
        assert!(
            fleet
                .iter()
                .all(|t| t.text.ends_with('.') && !t.device_only)
        );
    }
}
