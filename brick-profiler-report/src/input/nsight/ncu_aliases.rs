//! The one table of Nsight Compute counter names: what each name means and
//! the architectures (or versions) it applies to, so a value the export has
//! under one name is never asked for under another.

use super::number::Quantity;

/// What a counter measures, whatever the export calls it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Meaning {
    /// GPU duration of the launch.
    Duration,
    /// SM throughput, % of peak.
    SmPct,
    /// DRAM throughput, % of peak.
    DramPct,
    /// DRAM bytes read and written.
    DramBytes,
    /// DRAM bytes read.
    DramReadBytes,
    /// DRAM bytes written.
    DramWriteBytes,
    /// DRAM bytes per second.
    DramBytesPerSecond,
    /// Registers per thread.
    Registers,
    /// Blocks in the grid.
    GridBlocks,
    /// Threads per block.
    BlockThreads,
}

/// One name of a counter: the raw metric or the details-page label, its
/// quantity, and where it applies.
#[derive(Debug)]
pub(crate) struct Alias {
    /// Name as the export prints it.
    pub(crate) name: &'static str,
    /// What it measures.
    pub(crate) meaning: Meaning,
    /// Its quantity (how its unit scales).
    pub(crate) quantity: Quantity,
    /// Architectures or tool versions that report it.
    pub(crate) applies_to: &'static str,
}

const fn alias(
    name: &'static str,
    meaning: Meaning,
    quantity: Quantity,
    applies_to: &'static str,
) -> Alias {
    Alias {
        name,
        meaning,
        quantity,
        applies_to,
    }
}

/// Every name, in the order they are tried (the first present wins).
pub(crate) const ALIASES: [Alias; 22] = {
    use Meaning::*;
    use Quantity::{Bytes, BytesPerSecond, Count, Percent, Time};
    [
        alias(
            "gpu__time_duration.sum",
            Duration,
            Time,
            "all (sm_70 and later)",
        ),
        alias("Duration", Duration, Time, "details page, all"),
        alias(
            "sm__throughput.avg.pct_of_peak_sustained_elapsed",
            SmPct,
            Percent,
            "all",
        ),
        alias(
            "Compute (SM) Throughput",
            SmPct,
            Percent,
            "details page, ncu 2022.2 and later",
        ),
        alias("SM [%]", SmPct, Percent, "details page, ncu before 2022.2"),
        alias(
            "dram__throughput.avg.pct_of_peak_sustained_elapsed",
            DramPct,
            Percent,
            "sm_70 to sm_90, sm_100",
        ),
        alias(
            "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
            DramPct,
            Percent,
            "sm_80 and later (the Speed Of Light section's DRAM row), sm_120",
        ),
        alias("DRAM Throughput", DramPct, Percent, "details page, all"),
        alias(
            "dram__bytes.sum",
            DramBytes,
            Bytes,
            "sm_70 to sm_90, sm_100 (n/a on sm_120)",
        ),
        alias(
            "dram__bytes_read.sum",
            DramReadBytes,
            Bytes,
            "sm_70 to sm_90, sm_100",
        ),
        alias(
            "dram__bytes_op_read.sum",
            DramReadBytes,
            Bytes,
            "sm_120 (consumer Blackwell)",
        ),
        alias(
            "dram__bytes_write.sum",
            DramWriteBytes,
            Bytes,
            "sm_70 to sm_90, sm_100",
        ),
        alias(
            "dram__bytes_op_write.sum",
            DramWriteBytes,
            Bytes,
            "sm_120 (consumer Blackwell)",
        ),
        alias(
            "dram__bytes.sum.per_second",
            DramBytesPerSecond,
            BytesPerSecond,
            "sm_70 to sm_90, sm_100",
        ),
        alias(
            "Memory Throughput",
            DramBytesPerSecond,
            BytesPerSecond,
            "details page (the GB/s row), all",
        ),
        alias("launch__registers_per_thread", Registers, Count, "all"),
        alias(
            "Registers Per Thread",
            Registers,
            Count,
            "details page (Launch Statistics), all",
        ),
        alias(
            "launch__grid_size",
            GridBlocks,
            Count,
            "all (a metric when the Grid Size column is absent)",
        ),
        alias(
            "Grid Size",
            GridBlocks,
            Count,
            "details page (Launch Statistics), all",
        ),
        alias(
            "launch__block_size",
            BlockThreads,
            Count,
            "all (a metric when the Block Size column is absent)",
        ),
        alias(
            "Block Size",
            BlockThreads,
            Count,
            "details page (Launch Statistics), all",
        ),
        alias(
            "launch__thread_count",
            BlockThreads,
            Count,
            "never: the grid's threads, listed so it is not taken for a block size",
        ),
    ]
};

/// The names to try for `meaning` with their quantities, in table order.
pub(crate) fn candidates(meaning: Meaning) -> impl Iterator<Item = (&'static str, Quantity)> {
    ALIASES
        .iter()
        .filter(move |a| a.meaning == meaning && !a.applies_to.starts_with("never"))
        .map(|a| (a.name, a.quantity))
}

/// `a`, `b` or `c`: the names of `meaning`, for "collect ..." advice.
pub(crate) fn names(meaning: Meaning) -> String {
    let all: Vec<String> = ALIASES
        .iter()
        .filter(|a| a.meaning == meaning && a.name.contains("__"))
        .map(|a| format!("`{}` ({})", a.name, a.applies_to))
        .collect();
    all.join(" or ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_appears_once_and_every_meaning_has_a_raw_name() {
        let mut seen = std::collections::BTreeSet::new();
        for a in &ALIASES {
            assert!(seen.insert(a.name), "`{}` listed twice", a.name);
        }
        for m in [
            Meaning::Duration,
            Meaning::DramPct,
            Meaning::DramReadBytes,
            Meaning::DramWriteBytes,
            Meaning::GridBlocks,
            Meaning::BlockThreads,
        ] {
            assert!(candidates(m).any(|(name, _)| name.contains("__")), "{m:?}");
        }
        assert!(names(Meaning::DramReadBytes).contains("dram__bytes_op_read.sum` (sm_120"));
    }
}
