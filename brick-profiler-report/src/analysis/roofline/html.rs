//! The Roofline section of the HTML report: the plot inline, the bricks
//! table, the bricks left out, and how the ceilings were obtained.

use std::fmt::Write as _;

use profiler_core::hardware::{Hardware, MemoryLevel};

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

/// MiB, for the sizes of buffers and caches.
fn mib(bytes: u64) -> String {
    num(bytes as f64 / (1u64 << 20) as f64)
}

/// How each measured ceiling of `hw` was obtained, one `<li>` each: DRAM
/// and the caches, the peaks, the cache sizes, what else ran on the
/// machine and the probes' caveats. Empty when nothing was measured.
fn measured_items(hw: &Hardware) -> Vec<String> {
    let mut items = Vec::new();
    let dram_first = hw
        .memory_ceilings()
        .filter(|(l, _)| *l == MemoryLevel::Dram)
        .chain(hw.memory_ceilings().filter(|(l, _)| *l < MemoryLevel::Dram));
    for (level, f) in dram_first {
        let Some(how) = f.source.measurement() else {
            continue;
        };
        let cache = match how.cache_bytes {
            Some(b) => format!(
                ", sized against a {} MiB cache ({})",
                mib(b),
                escape::html(&how.cache_bytes_source)
            ),
            None => String::new(),
        };
        items.push(format!(
            "{level} bandwidth {} GB/s (median {}{}): {}; {} threads, {} MiB per array{cache}, best of {} in {} ms",
            num(f.value),
            num(how.median),
            best_three(how.best_spread_pct),
            escape::html(&how.method),
            how.threads,
            mib(how.buffer_bytes.unwrap_or(0)),
            how.repetitions,
            num(how.duration_ns as f64 / 1e6)
        ));
    }
    for (precision, f) in hw.compute_ceilings() {
        let Some(how) = f.source.measurement() else {
            continue;
        };
        let count = |n: Option<u32>| n.map_or_else(|| "?".to_owned(), |n| n.to_string());
        items.push(format!(
            "{precision} peak {} G{}/s (median {}{}): {}; {}, {} threads x {} chains x {} lanes, best of {} in {} ms",
            num(f.value * 1e3),
            precision.operation(),
            num(how.median * 1e3),
            best_three(how.best_spread_pct),
            escape::html(&how.method),
            escape::html(how.isa.as_deref().unwrap_or("?")),
            how.threads,
            count(how.chains),
            count(how.lanes),
            how.repetitions,
            num(how.duration_ns as f64 / 1e6)
        ));
    }
    let Some(probe) = &hw.probe else {
        return items;
    };
    for (level, f) in hw.cache_sizes() {
        let instances = probe
            .cache_instances
            .get(&level)
            .map_or_else(String::new, |n| format!(" ({n} instances)"));
        items.push(format!(
            "{level} cache {} KiB each{instances}, from {}",
            num(f.value / 1024.0),
            escape::html(&f.source.to_string())
        ));
    }
    // Files of earlier releases may not say what else ran: then nothing is
    // said of it.
    let watched = probe.other_runnable.is_some()
        || probe.steal_pct.is_some()
        || probe.best_cpu_pct.is_some()
        || probe.best_spread_pct.is_some()
        || probe.spread_pct > 0.0;
    match &hw.busy {
        Some(why) => items.push(format!(
            "<strong>measured on a busy machine</strong>: {}",
            escape::html(why)
        )),
        None if watched => items.push(format!(
            "machine quiet while probing: {} other runnable task(s), {} stolen, each best \
             repetition with {} of its CPU, best three within {}, median up to {}% below the best",
            probe
                .other_runnable
                .map_or("–".to_owned(), |n| n.to_string()),
            probe
                .steal_pct
                .map_or("–".to_owned(), |s| format!("{}%", num(s))),
            probe
                .best_cpu_pct
                .map_or("–".to_owned(), |s| format!("at least {}%", num(s))),
            probe
                .best_spread_pct
                .map_or("–".to_owned(), |s| format!("{}%", num(s))),
            num(probe.spread_pct)
        )),
        None => {}
    }
    items.extend(probe.notes.iter().map(|n| escape::html(n)));
    items
}

/// The report section (id `roofline`) for `roofline`, with how its
/// ceilings were measured when they were.
#[must_use]
pub fn roofline_section(roofline: &BrickRoofline) -> Section {
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
    let measured = measured_items(&roofline.hardware);
    if !measured.is_empty() {
        s.push_str("<p class=\"note\">Measured on this machine:</p>\n<ul class=\"note\">\n");
        for item in measured {
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
    device_table(&mut s, roofline);
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

/// The bricks on device time: each one kernel, or the brick as a whole.
fn device_table(s: &mut String, roofline: &BrickRoofline) {
    if roofline.device.is_empty() {
        return;
    }
    let op = roofline.precision.operation();
    let _ = write!(
        s,
        "<h3>On device time</h3>\n<div class=\"scroll\">\n<table class=\"data sortable\">\n<thead><tr><th>Brick</th>\
         <th>Placed</th><th class=\"num\">Calls</th><th class=\"num\">Device ms</th>\
         <th class=\"num\">{op}/byte</th><th class=\"num\">G{op}/s</th><th class=\"num\">Roof G{op}/s</th>\
         <th class=\"num\">% of roof</th><th>Bound</th></tr></thead>\n<tbody>\n",
    );
    for d in &roofline.device {
        let above = if d.above_roof {
            " (above the roof)"
        } else {
            ""
        };
        let calls = d.calls;
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td>{}</td><td class=\"num\" data-v=\"{calls}\">{calls}</td>{}{}{}{}{}<td>{}, {}{above}</td></tr>",
            escape::html(&d.brick),
            escape::html(&d.placed()),
            num_cell(d.device_ns as f64 / 1e6),
            num_cell(d.arithmetic_intensity),
            num_cell(d.achieved_gflops),
            num_cell(d.attainable_gflops),
            num_cell(d.roof_pct),
            d.bound,
            d.level
        );
    }
    s.push_str("</tbody>\n</table>\n</div>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_measured_ceiling_says_how_it_was_measured() {
        let mut hw = crate::model::hardware::sample_measured();
        let items = measured_items(&hw);
        let sysfs = "sysfs /sys/devices/system/cpu/cpu0/cache/index*/{level,type,size}";
        assert_eq!(
            items,
            [
                "DRAM bandwidth 20.00 GB/s (median 10.00): triad; 4 threads, 0 MiB per array, \
                 best of 3 in 0 ms"
                    .to_owned(),
                "L2 bandwidth 150.0 GB/s (median 75.00): triad in L2; 4 threads, 0 MiB per \
                 array, best of 3 in 0 ms"
                    .to_owned(),
                "FP32 peak 400.0 GFLOP/s (median 200.0): fma; ?, 4 threads x ? chains x ? \
                 lanes, best of 3 in 0 ms"
                    .to_owned(),
                format!("L2 cache 1024.0 KiB each (4 instances), from {sysfs}"),
                "machine quiet while probing: 0 other runnable task(s), – stolen, each best \
                 repetition with – of its CPU, best three within –, median up to 0% below the best"
                    .to_owned(),
                "a caveat".to_owned(),
            ]
        );
        hw.busy = Some("2 <other> tasks".to_owned());
        assert!(measured_items(&hw).contains(
            &"<strong>measured on a busy machine</strong>: 2 &lt;other&gt; tasks".to_owned()
        ));
        // A preset holds no measurement: nothing to say.
        let preset = crate::model::hardware::preset("h100").unwrap();
        assert!(measured_items(&preset).is_empty());
    }
}
