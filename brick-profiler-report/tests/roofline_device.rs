//! The roofline on device time: a brick that launches one kernel per call
//! places that kernel on its device time with the brick's FLOPs and bytes;
//! a brick that launches several is placed whole, its kernels listed, with
//! why; text, JSON and HTML show both. Numbers checked by hand.

use profiler_core::hardware::{Figure, Hardware, MemoryLevel, Precision, Source};
use profiler_core::profile::{ActivityKind, BrickKernels, DeviceKernels, KernelRow};
use profiler_core::{BrickCategory, BrickStats, Profile};
use profiler_report::hardware::Bound;
use profiler_report::roofline::{BrickRoofline, roofline_section};

const MS: u64 = 1_000_000;

/// 100 GB/s and 1 TFLOP/s: the ridge at 10 FLOP/byte.
fn hw() -> Hardware {
    let mut hw = Hardware::new("reference");
    hw.set_compute(Precision::Fp32, Figure::new(1.0, Source::Given))
        .expect("compute");
    hw.set_memory(MemoryLevel::Dram, Figure::new(100.0, Source::Given))
        .expect("memory");
    hw
}

fn brick(name: &str, flops: u64, bytes: u64) -> BrickStats {
    let mut b = BrickStats::new(name, BrickCategory::Other);
    b.count = 10;
    b.total_ns = 50 * MS;
    b.total_flops = flops;
    b.total_bytes = bytes;
    b
}

fn kernels(name: &str, rows: &[(&str, u64, u64)]) -> BrickKernels {
    let rows: Vec<KernelRow> = rows
        .iter()
        .map(|&(kernel, calls, total_ns)| KernelRow {
            name: kernel.to_owned(),
            kind: ActivityKind::Kernel,
            calls,
            total_ns,
            min_ns: total_ns / calls,
            max_ns: total_ns / calls,
            grid: None,
            block: None,
            registers: None,
            shared_bytes: None,
        })
        .collect();
    let ns = rows.iter().map(|r| r.total_ns).sum();
    BrickKernels {
        brick: name.to_owned(),
        self_ns: ns,
        total_ns: ns,
        activities: rows.iter().map(|r| r.calls).sum(),
        kernels: rows,
        ..BrickKernels::default()
    }
}

fn profile() -> Profile {
    let mut p = Profile::empty();
    p.bricks = vec![
        brick("Gemm", 20_000_000_000, 1_000_000_000),
        brick("Attention", 1_000_000_000, 1_000_000_000),
        brick("Norm", 100_000_000, 400_000_000),
        brick("HostOnly", 1_000_000, 1_000_000),
    ];
    p.device_kernels = Some(DeviceKernels {
        source: "cupti".into(),
        bricks: vec![
            kernels("Gemm", &[("sgemm_128x64", 10, 25 * MS)]),
            kernels("Attention", &[("softmax", 10, 12 * MS), ("qk", 10, 8 * MS)]),
            kernels("Norm", &[("rms_norm", 20, 8 * MS)]),
        ],
        ..DeviceKernels::default()
    });
    p
}

fn roofline(p: &Profile) -> BrickRoofline {
    BrickRoofline::from_profile(p, &hw(), None, Some(MemoryLevel::Dram)).expect("roofline")
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9 * b.abs().max(1.0)
}

#[test]
fn a_brick_with_one_kernel_per_call_places_that_kernel_on_its_device_time() {
    let r = roofline(&profile());
    let gemm = r.device.iter().find(|d| d.brick == "Gemm").expect("placed");
    assert_eq!(gemm.kernel.as_deref(), Some("sgemm_128x64"));
    assert!(gemm.kernels.is_empty() && gemm.why_whole.is_none());
    assert_eq!((gemm.calls, gemm.device_ns), (10, 25 * MS));
    assert!(close(gemm.arithmetic_intensity, 20.0));
    // 2e10 FLOP over 25 ms = 800 GFLOP/s under a 1000 GFLOP/s roof.
    assert!(
        close(gemm.achieved_gflops, 800.0),
        "{}",
        gemm.achieved_gflops
    );
    assert!(close(gemm.attainable_gflops, 1000.0));
    assert!(close(gemm.roof_pct, 80.0), "{}", gemm.roof_pct);
    assert_eq!(gemm.bound, Bound::Compute);
    // The host point keeps its host time: 2e10 over 50 ms.
    let host = r
        .points
        .iter()
        .find(|p| p.name == "Gemm")
        .expect("host point");
    assert!(close(host.achieved_gflops, 400.0));
}

#[test]
fn a_brick_with_several_kernels_is_placed_whole_with_its_kernels_listed() {
    let r = roofline(&profile());
    let attention = r
        .device
        .iter()
        .find(|d| d.brick == "Attention")
        .expect("placed");
    assert_eq!(attention.kernel, None);
    assert_eq!(attention.kernels, ["softmax", "qk"]);
    assert!(
        attention
            .why_whole
            .as_deref()
            .is_some_and(|w| w.contains("not split"))
    );
    assert_eq!(attention.device_ns, 20 * MS);
    // 1e9 FLOP over 20 ms = 50 GFLOP/s; at 1 FLOP/byte the roof is 100.
    assert!(close(attention.achieved_gflops, 50.0));
    assert!(close(attention.roof_pct, 50.0));
    assert_eq!(attention.bound, Bound::Memory);
    let norm = r.device.iter().find(|d| d.brick == "Norm").expect("placed");
    assert_eq!(norm.kernel, None, "two launches per call");
    assert!(
        norm.why_whole
            .as_deref()
            .is_some_and(|w| w.contains("20 launches"))
    );
    assert!(
        r.device.iter().all(|d| d.brick != "HostOnly"),
        "no kernel, no device point"
    );
    let order: Vec<&str> = r.device.iter().map(|d| d.brick.as_str()).collect();
    assert_eq!(
        order,
        ["Gemm", "Attention", "Norm"],
        "most device time first"
    );
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("1 brick(s) placed by their one kernel"))
    );
}

#[test]
fn text_json_and_html_show_the_device_points() {
    let r = roofline(&profile());
    let json: serde_json::Value = serde_json::from_str(&r.to_json()).expect("json");
    assert_eq!(json["device"][0]["kernel"], "sgemm_128x64");
    assert_eq!(json["device"][1]["kernels"][1], "qk");
    let text = r.to_string();
    assert!(
        text.contains("device: Gemm") && text.contains("sgemm_128x64"),
        "{text}"
    );
    let md = r.to_markdown();
    assert!(md.contains("### On device time"), "{md}");
    assert!(md.contains("whole brick (softmax, qk)"), "{md}");
    let html = profiler_report::HtmlReport::new(&profile())
        .section(roofline_section(&r))
        .render();
    assert!(html.contains("<h3>On device time</h3>"), "{html}");
    assert!(html.contains("<td>sgemm_128x64</td>"), "{html}");
}

#[test]
fn without_captured_kernels_there_are_no_device_points() {
    let mut p = profile();
    p.device_kernels = None;
    let r = roofline(&p);
    assert!(r.device.is_empty());
    assert!(!r.to_json().contains("\"device\""));
    assert!(!r.to_markdown().contains("On device time"));
}

#[test]
fn hostile_kernel_names_stay_escaped() {
    let hostile = "void k<\"a\"&b>(|)";
    let mut p = profile();
    if let Some(d) = p.device_kernels.as_mut() {
        d.bricks[0].kernels[0].name = hostile.to_owned();
    }
    let r = roofline(&p);
    assert_eq!(r.device[0].kernel.as_deref(), Some(hostile));
    let html = profiler_report::HtmlReport::new(&p)
        .section(roofline_section(&r))
        .render();
    assert!(
        html.contains("<td>void k&lt;&quot;a&quot;&amp;b&gt;(|)</td>"),
        "{html}"
    );
    assert!(
        !r.to_markdown().contains("(|)"),
        "the pipe is escaped in Markdown"
    );
}
