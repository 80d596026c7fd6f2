//! The bricks table: every brick with its calls, total and self time (and
//! their shares), per-call percentiles and declared-work rates. Sortable by
//! any column; the name column stays put while the table scrolls sideways,
//! and narrow screens drop the secondary columns.

use std::fmt::Write as _;

use super::parts::{note, num_cell, num_cell_if, sorted_bricks, th};
use crate::base::escape;
use crate::base::glossary::Metric;
use crate::base::textfmt::{self, DASH, int, ms, num, pct, si};
use profiler_core::alloc::{BrickMemory, MemoryKind};
use profiler_core::{BrickStats, Profile};

/// Every brick with its statistics.
pub(crate) fn bricks(profile: &Profile) -> String {
    if profile.bricks.is_empty() {
        return note("No bricks recorded.");
    }
    let mut s = note(
        "Total time includes the bricks a brick called; self time does not. Hover a header for \
         its definition, a self time for its split; click a header to sort.",
    );
    let memory = profile.memory.as_ref().filter(|m| !m.bricks.is_empty());
    let _ = write!(
        s,
        "<div class=\"scroll\">\n<table class=\"data sortable bricks\">\n<thead><tr>{}</tr></thead>\n<tbody>\n",
        headers(memory.is_some())
    );
    let total = profile.total_ns();
    let self_total = profile
        .bricks
        .iter()
        .fold(0u64, |acc, b| acc.saturating_add(b.self_ns()));
    for b in sorted_bricks(profile) {
        let mut row = cells(b, total, self_total);
        if let Some(memory) = memory {
            row.push_str(&memory_cells(memory.brick(&b.name, MemoryKind::Host)));
        }
        let _ = writeln!(s, "<tr>{row}</tr>");
    }
    s.push_str("</tbody>\n</table>\n</div>\n");
    s
}

/// The table's header cells, the memory columns when `memory` is tracked.
fn headers(memory: bool) -> String {
    let headers = [
        th("Brick", "name", None),
        th("Category", "opt", None),
        th("Calls", "num", None),
        th("Total ms", "num", Some(Metric::TotalTime)),
        th("Share", "num", Some(Metric::Share)),
        th("Self ms", "num", Some(Metric::SelfTime)),
        th("Self share", "num", Some(Metric::Share)),
        th("p50 µs", "num", Some(Metric::Percentiles)),
        th("p90 µs", "num opt", Some(Metric::Percentiles)),
        th("p99 µs", "num", Some(Metric::Percentiles)),
        th("GFLOP/s", "num", Some(Metric::Gflops)),
        th("GB/s", "num", Some(Metric::Gbps)),
        th("FLOP/B", "num opt", Some(Metric::Intensity)),
        th("Elements/s", "num opt", Some(Metric::Elements)),
    ];
    let memory_headers = [
        th("Allocated", "num", Some(Metric::Allocated)),
        th("Allocs/call", "num", Some(Metric::Allocations)),
        th("Peak", "num", Some(Metric::PeakMemory)),
    ];
    if memory {
        [headers.concat(), memory_headers.concat()].concat()
    } else {
        headers.concat()
    }
}

/// One brick's cells but memory; `total` is the profile's total time and
/// `self_total` the sum of every brick's self time, ns.
fn cells(b: &BrickStats, total: u64, self_total: u64) -> String {
    let sampled = b.count > 0;
    let timed = b.total_ns > 0;
    let self_share = if self_total > 0 {
        100.0 * b.self_ns() as f64 / self_total as f64
    } else {
        0.0
    };
    // The split behind the self time, in the cell's tooltip.
    let split = format!(
        " title=\"total {} ms = self {} ms + {} ms in bricks it called\"",
        num(ms(b.total_ns)),
        num(ms(b.self_ns())),
        num(ms(b.total_ns.saturating_sub(b.self_ns())))
    );
    let self_cell = num_cell(ms(b.self_ns()), &num(ms(b.self_ns())), "").replacen(
        "<td",
        &format!("<td{split}"),
        1,
    );
    [
        format!(
            "<th scope=\"row\" class=\"name\">{}</th>",
            escape::html(&b.name)
        ),
        format!("<td class=\"opt\">{}</td>", b.category),
        num_cell(b.count as f64, &int(b.count), ""),
        num_cell(ms(b.total_ns), &num(ms(b.total_ns)), ""),
        num_cell(b.percentage(total), &pct(b.percentage(total)), ""),
        self_cell,
        num_cell(self_share, &pct(self_share), ""),
        num_cell_if(sampled, b.p50_us(), num, ""),
        num_cell_if(sampled, b.p90_us(), num, "opt"),
        num_cell_if(sampled, b.p99_us(), num, ""),
        num_cell_if(b.total_flops > 0 && timed, b.gflops(), num, ""),
        num_cell_if(b.total_bytes > 0 && timed, b.throughput_gbps(), num, ""),
        num_cell_if(
            b.total_flops > 0 && b.total_bytes > 0,
            b.arithmetic_intensity(),
            num,
            "opt",
        ),
        num_cell_if(b.total_elements > 0 && timed, b.throughput(), si, "opt"),
    ]
    .concat()
}

/// The allocated, allocations-per-call and peak cells of a brick's host
/// memory (dashes when nothing was charged to it).
fn memory_cells(m: Option<&BrickMemory>) -> String {
    let Some(m) = m else {
        return [
            num_cell(0.0, DASH, ""),
            num_cell(0.0, DASH, ""),
            num_cell(0.0, DASH, ""),
        ]
        .concat();
    };
    let allocated = m.allocated_bytes as f64;
    let peak = m.peak_bytes as f64;
    [
        num_cell(allocated, &textfmt::bytes(allocated), ""),
        num_cell(m.allocations_per_call(), &num(m.allocations_per_call()), ""),
        num_cell(peak, &textfmt::bytes(peak), ""),
    ]
    .concat()
}
