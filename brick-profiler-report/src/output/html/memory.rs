//! The memory section: live bytes over the run (host and device) as line
//! charts, the step with the highest peak and the brick that reached it,
//! the bricks that allocated most with their allocations per call, and the
//! phases with what ran outside every brick, layer and phase.

use std::fmt::Write as _;

use super::counters::counter_charts;
use super::parts::{note, num_cell, th};
use crate::base::escape;
use crate::base::glossary::Metric;
use crate::base::textfmt::{self, DASH, int, num};
use profiler_core::Profile;
use profiler_core::alloc::{MemoryKind, MemoryProfile};
use profiler_core::trace::{CounterSample, CounterTrack};

/// Bricks listed in the table, by allocated bytes.
const TOP: usize = 15;

/// The section's body, or a note saying how to turn memory tracking on.
pub(crate) fn memory(profile: &Profile) -> String {
    let Some(memory) = profile.memory.as_ref().filter(|m| !m.is_empty()) else {
        return note(
            "No memory was tracked. Install the tracking allocator \
             (<code>#[global_allocator] static ALLOC: profiler::alloc::Tracking&lt;std::alloc::System&gt; \
             = profiler::alloc::Tracking::new(std::alloc::System);</code>) to see bytes per brick.",
        );
    };
    let mut s = String::new();
    let tracks: Vec<CounterTrack> = MemoryKind::ALL
        .iter()
        .filter_map(|&kind| live_track(memory, kind))
        .collect();
    if tracks.is_empty() {
        s.push_str(&note("No live-bytes samples were taken."));
    } else {
        // Drawn like counters, but classed apart: these are not user counters.
        s.push_str(&counter_charts(&tracks).replace("counter-chart", "memory-chart"));
    }
    for kind in MemoryKind::ALL {
        if let Some(step) = memory.peak_step(kind) {
            let by = step.peak_brick.as_deref().map_or_else(
                || "outside any brick".to_owned(),
                |b| format!("in <strong>{}</strong>", escape::html(b)),
            );
            let _ = writeln!(
                s,
                "<p>Highest {} peak: {} in step {}, reached {by}; {} allocated in {} allocations \
                 during that step.</p>",
                kind.name(),
                textfmt::bytes(step.peak_bytes as f64),
                step.index,
                textfmt::bytes(step.allocated_bytes as f64),
                int(step.allocations)
            );
        }
    }
    s.push_str(&top_table(memory));
    s.push_str(&phase_table(memory));
    s
}

/// The phases' memory and, last, what had no brick, layer or phase open.
fn phase_table(memory: &MemoryProfile) -> String {
    let outside = [
        (MemoryKind::Host, &memory.outside_host),
        (MemoryKind::Device, &memory.outside_device),
    ];
    let outside: Vec<_> = outside
        .into_iter()
        .filter(|(_, o)| o.allocations != 0 || o.freed_bytes != 0)
        .collect();
    if memory.phases.is_empty() && outside.is_empty() {
        return String::new();
    }
    let headers = [
        th("Phase", "name", None),
        th("Memory", "", None),
        th("Allocated", "num", Some(Metric::Allocated)),
        th("Self allocated", "num", Some(Metric::Allocated)),
        th("Allocations", "num", None),
        th("Freed", "num", None),
        th("Peak", "num", Some(Metric::PeakMemory)),
        th("Retained", "num", None),
    ];
    let mut s = format!(
        "<div class=\"scroll\">\n<table class=\"data sortable memory phases\">\n<thead><tr>{}</tr></thead>\n<tbody>\n",
        headers.concat()
    );
    let bytes = |v: f64| num_cell(v, &textfmt::bytes(v), "");
    for p in &memory.phases {
        let m = &p.memory;
        let cells = [
            format!(
                "<th scope=\"row\" class=\"name\">{}</th>",
                escape::html(&p.name)
            ),
            format!("<td>{}</td>", m.kind.name()),
            bytes(m.allocated_bytes as f64),
            bytes(m.self_allocated_bytes as f64),
            num_cell(m.allocations as f64, &int(m.allocations), ""),
            bytes(m.freed_bytes as f64),
            bytes(m.peak_bytes as f64),
            bytes(m.retained_bytes as f64),
        ];
        let _ = writeln!(s, "<tr>{}</tr>", cells.concat());
    }
    for (kind, o) in outside {
        let allocated = bytes(o.allocated_bytes as f64);
        let _ = writeln!(
            s,
            "<tr class=\"outside\"><th scope=\"row\" class=\"name\">outside</th><td>{}</td>{allocated}{allocated}{}{}{}{}</tr>",
            kind.name(),
            num_cell(o.allocations as f64, &int(o.allocations), ""),
            bytes(o.freed_bytes as f64),
            num_cell(0.0, DASH, ""),
            num_cell(0.0, DASH, ""),
        );
    }
    s.push_str("</tbody>\n</table>\n</div>\n");
    s.push_str(&note(
        "Phase totals include the bricks and layers inside; self is what ran with no brick open. \
         <em>outside</em> is what ran with no brick, layer or phase open.",
    ));
    s
}

/// Live bytes of `kind` summed over threads, as a counter track.
fn live_track(memory: &MemoryProfile, kind: MemoryKind) -> Option<CounterTrack> {
    let live = memory.live_over_run(kind);
    (!live.is_empty()).then(|| CounterTrack {
        name: format!("live {} bytes", kind.name()),
        samples: live
            .into_iter()
            .map(|(t_ns, bytes)| CounterSample {
                t_ns,
                value: bytes as f64,
                thread: 0,
            })
            .collect(),
    })
}

/// The bricks that allocated most, both kinds.
fn top_table(memory: &MemoryProfile) -> String {
    if memory.bricks.is_empty() {
        return note("No brick allocated while it ran.");
    }
    let headers = [
        th("Brick", "name", None),
        th("Memory", "", None),
        th("Calls", "num", None),
        th("Allocated", "num", Some(Metric::Allocated)),
        th("Self allocated", "num", Some(Metric::Allocated)),
        th("Allocations", "num", None),
        th("Allocs/call", "num", Some(Metric::Allocations)),
        th("Freed", "num", None),
        th("Peak", "num", Some(Metric::PeakMemory)),
        th("Retained", "num", None),
    ];
    let mut s = format!(
        "<div class=\"scroll\">\n<table class=\"data sortable memory\">\n<thead><tr>{}</tr></thead>\n<tbody>\n",
        headers.concat()
    );
    for b in memory.bricks.iter().take(TOP) {
        let bytes = |v: f64| num_cell(v, &textfmt::bytes(v), "");
        let cells = [
            format!(
                "<th scope=\"row\" class=\"name\">{}</th>",
                escape::html(&b.name)
            ),
            format!("<td>{}</td>", b.kind.name()),
            num_cell(b.calls as f64, &int(b.calls), ""),
            bytes(b.allocated_bytes as f64),
            bytes(b.self_allocated_bytes as f64),
            num_cell(b.allocations as f64, &int(b.allocations), ""),
            num_cell(b.allocations_per_call(), &num(b.allocations_per_call()), ""),
            bytes(b.freed_bytes as f64),
            bytes(b.peak_bytes as f64),
            bytes(b.retained_bytes as f64),
        ];
        let _ = writeln!(s, "<tr>{}</tr>", cells.concat());
    }
    s.push_str("</tbody>\n</table>\n</div>\n");
    if memory.bricks.len() > TOP {
        s.push_str(&note(&format!(
            "{} more bricks allocated less.",
            memory.bricks.len() - TOP
        )));
    }
    s
}

#[cfg(test)]
mod tests {
    use profiler_core::alloc::{BrickMemory, OutsideMemory, PhaseMemory, ScopeMemory, StepMemory};

    use super::*;

    fn brick(name: &str, allocated: u64) -> BrickMemory {
        BrickMemory {
            name: name.to_owned(),
            kind: MemoryKind::Host,
            calls: 4,
            allocated_bytes: allocated,
            allocations: 8,
            freed_bytes: allocated,
            peak_bytes: allocated / 2,
            retained_bytes: 0,
            self_allocated_bytes: allocated,
            self_allocations: 8,
            self_freed_bytes: allocated,
        }
    }

    #[test]
    fn the_section_names_the_peak_step_brick_and_top_allocators() {
        let mut profile = Profile::empty();
        profile.memory = Some(MemoryProfile {
            bricks: vec![brick("Matmul <f32>", 4_000_000), brick("Softmax", 1000)],
            steps: vec![StepMemory {
                index: 3,
                kind: MemoryKind::Host,
                allocated_bytes: 5_000_000,
                allocations: 10,
                freed_bytes: 5_000_000,
                peak_bytes: 2_000_000,
                peak_brick: Some("Matmul <f32>".to_owned()),
            }],
            ..MemoryProfile::default()
        });
        let html = memory(&profile);
        assert!(
            html.contains(
                "Highest host peak: 2 MB in step 3, reached in <strong>Matmul &lt;f32&gt;</strong>"
            ),
            "{html}"
        );
        assert!(html.contains("<th scope=\"row\" class=\"name\">Softmax</th>"));
        assert!(html.contains(">2.000</td>"), "allocations per call: {html}");
        assert!(html.contains("No live-bytes samples"));
        assert!(
            !html.contains("phases"),
            "no phase table without phases or outside"
        );
    }

    #[test]
    fn phases_and_outside_get_their_own_table() {
        let mut profile = Profile::empty();
        let used = ScopeMemory {
            kind: MemoryKind::Host,
            calls: 2,
            allocated_bytes: 3_000_000,
            allocations: 6,
            freed_bytes: 1_000_000,
            peak_bytes: 2_000_000,
            retained_bytes: 2_000_000,
            self_allocated_bytes: 1_000_000,
            self_allocations: 2,
            self_freed_bytes: 0,
        };
        profile.memory = Some(MemoryProfile {
            phases: vec![PhaseMemory {
                name: "fwd <1>".to_owned(),
                memory: used,
            }],
            outside_host: OutsideMemory {
                allocated_bytes: 4096,
                allocations: 1,
                freed_bytes: 0,
            },
            ..MemoryProfile::default()
        });
        let html = memory(&profile);
        assert!(
            html.contains("<th scope=\"row\" class=\"name\">fwd &lt;1&gt;</th>"),
            "{html}"
        );
        for shown in [3e6, 1e6, 2e6] {
            let cell = format!(">{}</td>", textfmt::bytes(shown));
            assert!(html.contains(&cell), "{cell}: {html}");
        }
        assert!(html.contains("<tr class=\"outside\">"), "{html}");
        let outside = format!(">{}</td>", textfmt::bytes(4096.0));
        assert_eq!(
            html.matches(&outside).count(),
            2,
            "allocated and self: {html}"
        );
    }

    #[test]
    fn without_the_allocator_the_section_says_how_to_install_it() {
        assert!(memory(&Profile::empty()).contains("Tracking&lt;std::alloc::System&gt;"));
    }
}
