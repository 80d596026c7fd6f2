//! The Roofline section of the HTML report: the plot inline, the bricks
//! table, the bricks left out, and how the ceilings were obtained.

use std::fmt::Write as _;

use profiler_core::profile::MeasuredCeilings;

use super::bricks::BrickRoofline;
use super::render::ceiling_lines;
use super::svg::roofline_svg;
use crate::base::escape;
use crate::base::section::Section;
use crate::base::textfmt::num;

/// A numeric table cell that sorts by its value.
fn num_cell(v: f64) -> String {
    let key = if v.is_finite() { v } else { 0.0 };
    format!("<td class=\"num\" data-v=\"{key}\">{}</td>", num(v))
}

/// `; best three within 1.2%`, or nothing where the spread was not kept.
fn best_three(spread_pct: Option<f64>) -> String {
    spread_pct.map_or_else(String::new, |s| format!("; best three within {}%", num(s)))
}

/// How each measured ceiling was obtained, one `<li>` each.
fn measured_items(m: &MeasuredCeilings) -> Vec<String> {
    let mut items = Vec::new();
    // Earlier profiles keep one cache level, in `cache_bandwidth`.
    let caches = if m.cache_levels.is_empty() {
        m.cache_bandwidth.iter().collect::<Vec<_>>()
    } else {
        m.cache_levels.iter().collect()
    };
    for bw in m.memory_bandwidth.iter().chain(caches) {
        let cache = match bw.cache_bytes {
            Some(b) => format!(
                ", sized against a {} MiB cache ({})",
                num(b as f64 / (1u64 << 20) as f64),
                escape::html(&bw.cache_bytes_source)
            ),
            None => String::new(),
        };
        items.push(format!(
            "{} bandwidth {} GB/s (median {}{}): {}; {} threads, {} MiB per array{cache}, best of {} in {} ms",
            escape::html(&bw.level),
            num(bw.gb_s),
            num(bw.median_gb_s),
            best_three(bw.best_spread_pct),
            escape::html(&bw.method),
            bw.threads,
            num(bw.buffer_bytes as f64 / (1u64 << 20) as f64),
            bw.repetitions,
            num(bw.duration_ns as f64 / 1e6)
        ));
    }
    for f in m.peak_flops.iter().chain(&m.other_peaks) {
        items.push(format!(
            "{} peak {} {} (median {}{}): {}; {}, {} threads x {} chains x {} lanes, best of {} in {} ms",
            escape::html(&f.precision.to_uppercase()),
            num(f.gflops),
            f.unit(),
            num(f.median_gflops),
            best_three(f.best_spread_pct),
            escape::html(&f.method),
            escape::html(&f.isa),
            f.threads,
            f.chains,
            f.lanes,
            f.repetitions,
            num(f.duration_ns as f64 / 1e6)
        ));
    }
    for c in &m.caches {
        items.push(format!(
            "L{} cache {} KiB each ({} instances), from {}",
            c.level,
            num(c.bytes as f64 / 1024.0),
            c.instances,
            escape::html(&c.source)
        ));
    }
    if let Some(c) = &m.contention {
        items.push(if c.busy {
            format!(
                "<strong>measured on a busy machine</strong>: {}",
                escape::html(&c.reasons.join("; "))
            )
        } else {
            format!(
                "machine quiet while probing: {} other runnable task(s), {} stolen, each best \
                 repetition with {} of its CPU, best three within {}, median up to {}% below the best",
                c.other_runnable.map_or("–".to_owned(), |n| n.to_string()),
                c.steal_pct.map_or("–".to_owned(), |s| format!("{}%", num(s))),
                c.best_cpu_pct.map_or("–".to_owned(), |s| format!("at least {}%", num(s))),
                c.best_spread_pct.map_or("–".to_owned(), |s| format!("{}%", num(s))),
                num(c.spread_pct)
            )
        });
    }
    items.extend(m.notes.iter().map(|n| escape::html(n)));
    items
}

/// The report section (id `roofline`) for `roofline`; `measured` says how
/// the ceilings were measured when they were.
#[must_use]
pub fn roofline_section(roofline: &BrickRoofline, measured: Option<&MeasuredCeilings>) -> Section {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<p class=\"note\">{}</p>",
        escape::html(&roofline.summary())
    );
    let _ = writeln!(
        s,
        "<p class=\"note\">Ceilings: {}.</p>",
        escape::html(&ceiling_lines(&roofline.hardware).join(", "))
    );
    if let Some(m) = measured {
        s.push_str("<p class=\"note\">Measured on this machine:</p>\n<ul class=\"note\">\n");
        for item in measured_items(m) {
            let _ = writeln!(s, "<li>{item}</li>");
        }
        s.push_str("</ul>\n");
    }
    let _ = writeln!(
        s,
        "<figure class=\"scroll\">\n{}</figure>",
        roofline_svg(roofline)
    );
    if !roofline.points.is_empty() {
        let op = roofline.precision.operation();
        let _ = write!(
            s,
            "<div class=\"scroll\">\n<table class=\"data sortable\">\n<thead><tr><th>Brick</th><th class=\"num\">Calls</th>\
             <th class=\"num\">Time ms</th><th class=\"num\">{op}/byte</th><th class=\"num\">G{op}/s</th>\
             <th class=\"num\">Roof G{op}/s</th><th class=\"num\">% of roof</th><th>Bound</th></tr></thead>\n<tbody>\n",
        );
        for p in &roofline.points {
            let bound = match (p.above_roof, p.check) {
                (true, Some(check)) => format!(
                    "{} (above the roof: check its `{check}` annotation)",
                    roofline.bound_text(p)
                ),
                (true, None) => format!("{} (above the roof)", roofline.bound_text(p)),
                (false, _) => roofline.bound_text(p),
            };
            let calls = p.calls;
            let _ = writeln!(
                s,
                // The calls are a count: whole, not `788.0`.
                "<tr><td>{}</td><td class=\"num\" data-v=\"{calls}\">{calls}</td>{}{}{}{}{}<td>{bound}</td></tr>",
                escape::html(&p.name),
                num_cell(p.total_ns as f64 / 1e6),
                num_cell(p.arithmetic_intensity),
                num_cell(p.achieved_gflops),
                num_cell(p.attainable_gflops),
                num_cell(p.roof_pct)
            );
        }
        s.push_str("</tbody>\n</table>\n</div>\n");
    }
    if !roofline.not_annotated.is_empty() {
        let names: Vec<String> = roofline
            .not_annotated
            .iter()
            .map(|n| {
                format!(
                    "{} (no {})",
                    escape::html(&n.name),
                    escape::html(&n.missing)
                )
            })
            .collect();
        let _ = writeln!(
            s,
            "<p class=\"note\">Not annotated, not plotted: {}.</p>",
            names.join(", ")
        );
    }
    for n in &roofline.notes {
        let _ = writeln!(s, "<p class=\"note\">{}</p>", escape::html(n));
    }
    Section::new("roofline", "Roofline", s)
}
