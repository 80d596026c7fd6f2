//! The device kernels section, present when the profile holds a kernel
//! capture (CUPTI): device time per brick, each brick's kernels (calls,
//! device time, mean, grid), what ran outside every brick, and how idle the
//! device sat in each step.

use std::fmt::Write as _;

use profiler_core::Profile;
use profiler_core::profile::{DeviceKernels, KernelRow};

use super::parts::note;
use crate::base::escape;
use crate::base::section::Section;
use crate::base::textfmt::{DASH, duration, int, pct};

/// The section, or `None` when no kernels were captured.
pub(super) fn section(profile: &Profile) -> Option<Section> {
    let device = profile.device_kernels.as_ref()?;
    Some(Section::new(
        "device-kernels",
        "Device kernels",
        body(device),
    ))
}

fn body(device: &DeviceKernels) -> String {
    let mut s = note(&format!(
        "Captured by {} on the device: {} in {} brick(s). A brick's self time is the device \
         time of what it launched itself; its total adds its children's.",
        escape::html(&device.source),
        duration(device.device_ns as f64),
        int(device.bricks.len() as u64),
    ));
    for line in device.notes() {
        s.push_str(&note(&escape::html(&line)));
    }
    bricks_table(&mut s, device);
    kernels_table(&mut s, device);
    if device.outside_bricks.activities > 0 {
        s.push_str("<h3>Outside every brick</h3>\n");
        rows_table(&mut s, &device.outside_bricks.kernels);
    }
    if device.unknown_launch.activities > 0 {
        s.push_str("<h3>Launch not captured</h3>\n");
        rows_table(&mut s, &device.unknown_launch.kernels);
    }
    steps_table(&mut s, device);
    s
}

fn bricks_table(s: &mut String, device: &DeviceKernels) {
    s.push_str(
        "<table class=\"data\">\n<thead><tr><th>Brick</th><th class=\"num\">Self</th>\
         <th class=\"num\">Total</th><th class=\"num\">Activities</th>\
         <th class=\"num\">Mean launch gap</th><th class=\"num\">Idle inside</th></tr></thead>\n\
         <tbody>\n",
    );
    for b in &device.bricks {
        let gap = b
            .launch_gap
            .mean_ns()
            .map_or_else(|| DASH.to_owned(), |ns| duration(ns as f64));
        let _ = writeln!(
            s,
            "<tr><th scope=\"row\" class=\"name\">{}</th><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td></tr>",
            escape::html(&b.brick),
            duration(b.self_ns as f64),
            duration(b.total_ns as f64),
            int(b.activities),
            gap,
            duration(b.idle_ns as f64),
        );
    }
    s.push_str("</tbody>\n</table>\n");
}

/// Every brick's kernels, the brick named on its first row.
fn kernels_table(s: &mut String, device: &DeviceKernels) {
    s.push_str("<h3>Kernels per brick</h3>\n");
    s.push_str(&kernel_head(true));
    for b in &device.bricks {
        for (at, k) in b.kernels.iter().enumerate() {
            let brick = if at == 0 {
                escape::html(&b.brick)
            } else {
                String::new()
            };
            kernel_row(s, Some(&brick), k);
        }
    }
    s.push_str("</tbody>\n</table>\n");
}

fn rows_table(s: &mut String, rows: &[KernelRow]) {
    s.push_str(&kernel_head(false));
    for k in rows {
        kernel_row(s, None, k);
    }
    s.push_str("</tbody>\n</table>\n");
}

fn kernel_head(with_brick: bool) -> String {
    format!(
        "<table class=\"data\">\n<thead><tr>{}<th>Kernel</th><th class=\"num\">Calls</th>\
         <th class=\"num\">Device time</th><th class=\"num\">Mean</th><th>Grid</th>\
         <th>Block</th></tr></thead>\n<tbody>\n",
        if with_brick { "<th>Brick</th>" } else { "" }
    )
}

/// `brick` is already HTML.
fn kernel_row(s: &mut String, brick: Option<&str>, k: &KernelRow) {
    let cell = brick.map_or_else(String::new, |b| format!("<td>{b}</td>"));
    let _ = writeln!(
        s,
        "<tr>{cell}<td><code>{}</code></td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
         <td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>",
        escape::html(&k.name),
        int(k.calls),
        duration(k.total_ns as f64),
        duration(k.mean_ns() as f64),
        dims(k.grid),
        dims(k.block),
    );
}

/// `64×2×1`, "varies" when calls differed, a dash for copies and sets.
fn dims(d: Option<[u32; 3]>) -> String {
    match d {
        Some([0, 0, 0]) => DASH.to_owned(),
        Some([x, y, z]) => format!("{x}×{y}×{z}"),
        None => "varies".to_owned(),
    }
}

fn steps_table(s: &mut String, device: &DeviceKernels) {
    if device.steps.is_empty() {
        return;
    }
    s.push_str(
        "<h3>Device idle per step</h3>\n<table class=\"data\">\n<thead><tr><th>Step</th>\
         <th class=\"num\">Activities</th><th class=\"num\">Span</th><th class=\"num\">Busy</th>\
         <th class=\"num\">Idle</th><th class=\"num\">Idle share</th></tr></thead>\n<tbody>\n",
    );
    for step in &device.steps {
        let share = step
            .idle_share()
            .map_or_else(|| DASH.to_owned(), |v| pct(v * 100.0));
        let _ = writeln!(
            s,
            "<tr><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{share}</td></tr>",
            step.step,
            int(step.activities),
            duration(step.span_ns as f64),
            duration(step.busy_ns as f64),
            duration(step.idle_ns as f64),
        );
    }
    s.push_str("</tbody>\n</table>\n");
}

#[cfg(test)]
mod tests {
    use profiler_core::profile::{ActivityKind, BrickKernels, KernelGroup, StepDevice};

    use super::*;

    fn row(name: &str, calls: u64, total_ns: u64, grid: Option<[u32; 3]>) -> KernelRow {
        KernelRow {
            name: name.to_owned(),
            kind: ActivityKind::Kernel,
            calls,
            total_ns,
            min_ns: total_ns / calls,
            max_ns: total_ns / calls,
            grid,
            block: Some([256, 1, 1]),
            registers: Some(32),
            shared_bytes: Some(0),
        }
    }

    fn captured() -> Profile {
        let mut profile = Profile::empty();
        profile.device_kernels = Some(DeviceKernels {
            source: "cupti".into(),
            bricks: vec![BrickKernels {
                brick: "Attention <f16>".into(),
                self_ns: 3_000,
                total_ns: 5_000,
                activities: 3,
                kernels: vec![
                    row("void gemm<half>(half*)", 2, 2_000, Some([64, 2, 1])),
                    row("softmax", 1, 1_000, None),
                ],
                ..BrickKernels::default()
            }],
            steps: vec![StepDevice {
                step: 4,
                activities: 3,
                span_ns: 4_000,
                busy_ns: 3_000,
                idle_ns: 1_000,
                ..StepDevice::default()
            }],
            outside_bricks: KernelGroup {
                activities: 1,
                device_ns: 500,
                kernels: vec![row("init<script>", 1, 500, Some([1, 1, 1]))],
            },
            device_ns: 3_500,
            dropped_buffers: 1,
            ..DeviceKernels::default()
        });
        profile
    }

    #[test]
    fn each_brick_lists_its_kernels_with_calls_time_mean_and_grid() {
        let html = section(&captured()).expect("a capture").body;
        assert!(
            html.contains("<th scope=\"row\" class=\"name\">Attention &lt;f16&gt;</th>"),
            "{html}"
        );
        assert!(
            html.contains(
                "<td>Attention &lt;f16&gt;</td><td><code>void gemm&lt;half&gt;(half*)</code></td>\
                 <td class=\"num\">2</td><td class=\"num\">2 µs</td>\
                 <td class=\"num\">1 µs</td><td>64×2×1</td>"
            ),
            "{html}"
        );
        assert!(html.contains("<td>varies</td>"), "softmax's grids differed");
        assert!(
            html.contains("<td class=\"num\">25.0%</td>"),
            "idle share of step 4"
        );
    }

    #[test]
    fn kernels_outside_bricks_and_losses_are_shown_apart_and_escaped() {
        let html = section(&captured()).expect("a capture").body;
        assert!(html.contains("<h3>Outside every brick</h3>"));
        assert!(html.contains("init&lt;script&gt;"));
        assert!(!html.contains("<script>"));
        assert!(html.contains("lower bounds"), "the dropped buffer is said");
    }

    #[test]
    fn no_capture_no_section() {
        assert!(section(&Profile::empty()).is_none());
    }
}
