//! Renderers of imported kernels: the terminal report and Markdown (a
//! summary table, then every launch with its sections) and JSON. Derived,
//! estimated and assumed numbers say so next to the value.

use std::fmt::Write as _;

use crate::base::escape;
use crate::base::textfmt::{DASH, bytes, cut, duration, num, pct, pretty_json, si};
use crate::input::nsight::{FullProfile, HardwareSection, RooflineSection, Sourced};

/// `value` followed by its source when that is not simply a metric read.
fn tagged(v: &Sourced, text: String) -> String {
    if v.source.contains(':') {
        format!("{text} ({})", v.source)
    } else {
        text
    }
}

fn opt(v: Option<&Sourced>, show: impl Fn(f64) -> String) -> String {
    v.map_or_else(|| DASH.to_owned(), |v| tagged(v, show(v.value)))
}

fn dims(d: Option<[u64; 3]>) -> String {
    d.map_or_else(|| DASH.to_owned(), |[x, y, z]| format!("({x}, {y}, {z})"))
}

/// `memory-bound, 41.2% of the roof`, or why it is not placed.
fn placement(p: &FullProfile) -> String {
    let r = &p.roofline;
    match (r.bound, r.efficiency_pct, &r.unavailable) {
        (Some(bound), Some(eff), _) => {
            let est = if r.estimate { " (estimate)" } else { "" };
            format!("{bound}, {} of the roof{est}", pct(eff))
        }
        (_, _, Some(why)) => format!("not placed: {why}"),
        _ => DASH.to_owned(),
    }
}

/// The device line: the ceilings' name and how they were chosen, the
/// device and its compute capability.
fn hardware(h: &HardwareSection) -> String {
    let mut line = match &h.ceilings {
        Some(hw) => format!(
            "{} ({})",
            escape::visible(&hw.name),
            escape::visible(&h.origin)
        ),
        None => "unknown".to_owned(),
    };
    if let Some(d) = &h.device {
        let _ = write!(line, " · device {}", escape::visible(d));
    }
    if let Some(cc) = &h.compute_capability {
        let _ = write!(line, " · CC {}", escape::visible(cc));
    }
    line
}

/// One line per field of a launch: (label, value).
fn rows(p: &FullProfile) -> Vec<(&'static str, String)> {
    vec![
        ("hardware", hardware(&p.hardware)),
        ("launch", launch_row(p)),
        ("duration", opt(p.timing.duration_ns.as_ref(), duration)),
        ("throughput", throughput_row(p)),
        ("compute", compute_row(p)),
        ("memory", memory_row(p)),
        ("roofline", roofline_row(p)),
    ]
    .into_iter()
    .chain(levels(&p.roofline).map(|l| ("levels", l)))
    .collect()
}

/// Grid, block and registers per thread.
fn launch_row(p: &FullProfile) -> String {
    let k = &p.kernel;
    format!(
        "grid {} · block {} · {} registers/thread",
        dims(k.grid),
        dims(k.block),
        opt(k.registers_per_thread.as_ref(), |v| format!("{v:.0}"))
    )
}

/// SM, DRAM and tensor-pipe throughput.
fn throughput_row(p: &FullProfile) -> String {
    let t = &p.throughput;
    format!(
        "SM {} · DRAM {} · {} · tensor pipe {}",
        opt(t.sm_pct.as_ref(), pct),
        opt(t.dram_pct.as_ref(), pct),
        opt(t.dram_gb_s.as_ref(), |v| format!("{} GB/s", num(v))),
        opt(t.tensor_pipe_pct.as_ref(), pct)
    )
}

/// FLOPs, achieved rate, warps active and threads per instruction.
fn compute_row(p: &FullProfile) -> String {
    let c = &p.compute;
    format!(
        "{} · {} · warps active {} · threads per instruction {}",
        opt(c.flops.as_ref(), |v| format!("{}FLOP", si(v))),
        opt(c.achieved_tflops.as_ref(), |v| format!(
            "{} TFLOP/s",
            num(v)
        )),
        opt(c.warps_active_pct.as_ref(), pct),
        opt(c.thread_inst_per_inst_pct.as_ref(), pct)
    )
}

/// DRAM bytes, L2 hits, load efficiency and shared memory.
fn memory_row(p: &FullProfile) -> String {
    let m = &p.memory;
    format!(
        "DRAM {} · L2 hit {} · load bytes/sector {} · {} sectors/request · shared {}",
        opt(m.dram_bytes.as_ref(), bytes),
        opt(m.l2_hit_rate_pct.as_ref(), pct),
        opt(m.global_load_bytes_per_sector_pct.as_ref(), pct),
        opt(m.sectors_per_request.as_ref(), num),
        opt(m.shared_mem_driver_bytes.as_ref(), |v| format!(
            "{}/block (driver)",
            bytes(v)
        )),
    )
}

/// The launch against the DRAM ridge, and where it sits.
fn roofline_row(p: &FullProfile) -> String {
    let r = &p.roofline;
    match (r.arithmetic_intensity, r.ridge_point, r.achieved_tflops) {
        (Some(ai), Some(ridge), Some(tf)) => format!(
            "{}/DRAM: AI {} FLOP/B vs ridge {} · {} TFLOP/s achieved of {} attainable · {}",
            r.precision.as_deref().unwrap_or("").to_ascii_uppercase(),
            num(ai),
            num(ridge),
            num(tf),
            r.attainable_tflops.map_or_else(|| DASH.to_owned(), num),
            placement(p)
        ),
        _ => placement(p),
    }
}

/// The hierarchical roofline on one line: each level's intensity and roof,
/// then the level that bounds the kernel (or compute, when none does).
fn levels(r: &RooflineSection) -> Option<String> {
    if r.levels.is_empty() {
        return None;
    }
    let mut line: Vec<String> = r
        .levels
        .iter()
        .map(|l| {
            format!(
                "{} {} FLOP/B, roof {} TFLOP/s ({})",
                l.level.to_ascii_uppercase(),
                num(l.arithmetic_intensity),
                num(l.attainable_tflops),
                pct(l.efficiency_pct)
            )
        })
        .collect();
    line.push(match &r.binding_level {
        Some(level) => format!("bound by {}", level.to_ascii_uppercase()),
        None => "compute-bound at every level".to_owned(),
    });
    Some(line.join(" · "))
}

/// The terminal report: a summary line per launch, then each launch.
#[must_use]
pub fn full_profiles_text(profiles: &[FullProfile]) -> String {
    let mut s = String::new();
    if let Some(first) = profiles.first() {
        let _ = writeln!(
            s,
            "Nsight Compute import: {} ({} page), {} kernel launch(es)",
            escape::visible(&first.source.file),
            first.source.layout,
            profiles.len()
        );
    }
    for p in profiles {
        let _ = writeln!(
            s,
            "  [{}] {:<48} {:>10}  {}",
            escape::visible(&p.kernel.id),
            cut(&p.kernel.name, 48),
            opt(p.timing.duration_ns.as_ref(), duration),
            placement(p)
        );
    }
    for p in profiles {
        let _ = writeln!(
            s,
            "\n[{}] {}",
            escape::visible(&p.kernel.id),
            escape::visible(&p.kernel.name)
        );
        for (label, value) in rows(p) {
            let _ = writeln!(s, "  {label:<11}{value}");
        }
        if !p.missing.is_empty() {
            let _ = writeln!(s, "  {:<11}{}", "missing", p.missing.join(", "));
        }
        for note in &p.notes {
            let _ = writeln!(s, "  {:<11}{}", "note", escape::visible(note));
        }
    }
    s
}

/// Markdown: a summary table, then a section per launch.
#[must_use]
pub fn full_profiles_markdown(profiles: &[FullProfile]) -> String {
    let mut s = String::from("## Nsight Compute import\n\n");
    if let Some(first) = profiles.first() {
        let _ = writeln!(
            s,
            "Source: {} ({} page), {} kernel launch(es).\n",
            escape::markdown(&first.source.file),
            first.source.layout,
            profiles.len()
        );
    }
    s.push_str("| ID | Kernel | Duration | Roofline |\n|---|---|---|---|\n");
    for p in profiles {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} |",
            escape::markdown(&p.kernel.id),
            escape::markdown(&p.kernel.name),
            opt(p.timing.duration_ns.as_ref(), duration),
            escape::markdown(&placement(p))
        );
    }
    for p in profiles {
        let _ = writeln!(
            s,
            "\n### [{}] {}\n\n| Field | Value |\n|---|---|",
            escape::markdown(&p.kernel.id),
            escape::markdown(&p.kernel.name)
        );
        for (label, value) in rows(p) {
            let _ = writeln!(s, "| {label} | {} |", escape::markdown(&value));
        }
        if !p.missing.is_empty() {
            let _ = writeln!(
                s,
                "\nMissing metrics: {}.",
                p.missing
                    .iter()
                    .map(|m| format!("`{m}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        if !p.notes.is_empty() {
            s.push('\n');
            for note in &p.notes {
                let _ = writeln!(s, "- {}", escape::markdown(note));
            }
        }
    }
    s
}

/// Pretty JSON: an array of [`FullProfile`]s.
#[must_use]
pub fn full_profiles_json(profiles: &[FullProfile]) -> String {
    pretty_json(&profiles)
}
