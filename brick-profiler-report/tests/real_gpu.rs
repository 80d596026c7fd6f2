//! Captures from a real NVIDIA H100 and H200 (`tests/fixtures/real/gpu/`,
//! how each was made in its PROVENANCE.md): Nsight Compute exports of the
//! `cuda_bricks` example and of a cuBLAS bf16 GEMM, and the profiles the
//! CUDA event timer recorded. Each check compares with numbers known
//! independently of the reader: the FLOPs of the kernels' own arithmetic,
//! the kernel times ncu measured against those the events measured, and
//! the order one stream runs its kernels in.

use std::collections::BTreeMap;
use std::path::PathBuf;

use profiler_core::Profile;
use profiler_core::hardware::MemoryLevel;
use profiler_report::hardware::{Bound, preset};
use profiler_report::input::nsight::{
    FullProfile, NcuLayout, full_profiles_to_profile, read_ncu_csv,
};
use profiler_report::roofline::{BrickRoofline, FullProfileOptions};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/real/gpu")
        .join(name)
}

fn full(name: &str) -> Vec<FullProfile> {
    let report = read_ncu_csv(fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    report
        .full_profiles(&FullProfileOptions::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn flops(p: &FullProfile) -> f64 {
    p.compute.flops.as_ref().expect("FLOPs counted").value
}

fn duration_ns(p: &FullProfile) -> f64 {
    p.timing.duration_ns.as_ref().expect("a duration").value
}

/// The roofline sections' FP32 instruction rates, times the SM clock and
/// the duration, give the FLOPs the kernels' source says they do.
#[test]
fn roofline_rates_count_the_fp32_flops_of_known_kernels() {
    let kernels = full("ncu_h100_cuda_bricks_roofline_raw.csv");
    let names: Vec<&str> = kernels.iter().map(|k| k.kernel.name.as_str()).collect();
    assert_eq!(names, ["saxpy", "saxpy", "matmul", "saxpy"]);
    for k in &kernels {
        assert_eq!(
            k.hardware.ceilings.as_ref().map(|h| h.name.as_str()),
            Some("H100 SXM"),
            "{k:?}"
        );
        let expected = match k.kernel.name.as_str() {
            // One FFMA per element: threads = grid × 1024.
            "saxpy" => 2.0 * k.kernel.grid.unwrap()[0] as f64 * 1024.0,
            // A naive 1024³ product: one FFMA per multiply-add.
            _ => 2.0 * 1024f64.powi(3),
        };
        let counted = flops(k);
        assert!(
            (counted / expected - 1.0).abs() < 1e-3,
            "{}: {counted} FLOPs counted, {expected} in the source",
            k.kernel.name
        );
        let source = &k.compute.flops.as_ref().unwrap().source;
        assert!(
            source.contains("per cycle x SM clock x duration"),
            "{source}"
        );
        assert_eq!(k.roofline.precision.as_deref(), Some("fp32"));
        let bound = k.roofline.bound.expect("placed on the roofline");
        let want = if k.kernel.name == "matmul" {
            Bound::Compute
        } else {
            Bound::Memory
        };
        assert_eq!(bound, want, "{}", k.kernel.name);
    }
}

/// The hierarchical roofline section's per-level bytes and peaks: the
/// naive matmul looks compute-bound on DRAM (256 FLOP/B) but rereads its
/// operands from L1 at 0.25 FLOP/B, whose roof is lowest; saxpy is bound
/// by DRAM. Roofs computed by hand from the file's rates, peaks and clocks.
#[test]
fn each_kernel_is_bound_by_the_level_with_the_lowest_roof() {
    let kernels = full("ncu_h100_cuda_bricks_roofline_raw.csv");
    let matmul = &kernels[2].roofline;
    let roofs: Vec<(&str, f64)> = matmul
        .levels
        .iter()
        .map(|l| (l.level.as_str(), l.attainable_tflops))
        .collect();
    let by_hand = [("l1", 8.311), ("l2", 40.41), ("dram", 67.0)];
    for ((level, roof), (want_level, want)) in roofs.iter().zip(by_hand) {
        assert_eq!(*level, want_level);
        assert!(
            (roof / want - 1.0).abs() < 1e-3,
            "{level}: {roof} vs {want}"
        );
    }
    assert_eq!(matmul.binding_level.as_deref(), Some("l1"));
    for saxpy in [&kernels[0], &kernels[1], &kernels[3]] {
        assert_eq!(saxpy.roofline.binding_level.as_deref(), Some("dram"));
    }
    let gemm = full("ncu_h100_torch_bf16_gemm_raw.csv");
    assert_eq!(gemm[0].roofline.levels.len(), 3);
    assert_eq!(
        gemm[0].roofline.binding_level, None,
        "compute-bound at every level"
    );
    // Without the section's metrics there are no levels, and nothing says otherwise.
    assert!(
        full("ncu_h100_cuda_bricks_times_raw.csv")
            .iter()
            .all(|k| k.roofline.levels.is_empty())
    );
}

/// The plot of the H100 export draws each kernel once per level ncu
/// measured (saxpy's three launches summed into one kernel, as its brick
/// is), each in its level's class and named in its tooltip, with each
/// level's roof and a legend naming the levels; the document is well-formed
/// XML.
#[test]
fn the_svg_draws_every_kernel_at_every_level_ncu_measured() {
    let launches = full("ncu_h100_cuda_bricks_roofline_raw.csv");
    let profile = full_profiles_to_profile(&launches, "h100.csv");
    let roof = preset("h100").unwrap();
    let r = BrickRoofline::from_profile(&profile, &roof, None, None)
        .unwrap()
        .with_levels_of(&launches);
    let kernels: Vec<(&str, Vec<MemoryLevel>)> = r
        .hierarchy
        .kernels
        .iter()
        .map(|k| (k.name.as_str(), k.marks.iter().map(|m| m.level).collect()))
        .collect();
    let all = vec![
        MemoryLevel::L1Cache,
        MemoryLevel::L2Cache,
        MemoryLevel::Dram,
    ];
    assert_eq!(kernels, [("matmul", all.clone()), ("saxpy", all)]);
    // matmul rereads its operands from L1 at 0.25 FLOP/B (see above).
    let matmul = &r.hierarchy.kernels[0];
    assert!((matmul.marks[0].arithmetic_intensity - 0.25).abs() < 0.01);

    let svg = r.to_svg();
    let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{e}\n{svg}"));
    let marks: Vec<(String, String)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("circle"))
        .filter_map(|n| {
            let class = n.attribute("class")?;
            let level = class.strip_prefix("level-mark level-")?;
            let title = n.children().find(|c| c.has_tag_name("title"))?.text()?;
            Some((level.to_owned(), title.to_owned()))
        })
        .collect();
    assert_eq!(marks.len(), 6, "{marks:?}");
    for kernel in ["matmul", "saxpy"] {
        for (class, name) in [("l1", "L1"), ("l2", "L2"), ("dram", "DRAM")] {
            let at = format!("{kernel} at {name}: ");
            assert_eq!(
                marks
                    .iter()
                    .filter(|(c, t)| c == class && t.starts_with(&at))
                    .count(),
                1,
                "{at} {marks:?}"
            );
        }
    }
    let roofs = doc
        .descendants()
        .filter(|n| {
            n.attribute("class")
                .is_some_and(|c| c.starts_with("level-roof level-"))
        })
        .count();
    assert_eq!(roofs, 3);
    let legend: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .collect();
    assert!(legend.contains(&"ncu levels:"), "{legend:?}");
    assert!(legend.contains(&"L2"), "{legend:?}");
    assert_eq!(
        doc.descendants()
            .filter(|n| n.attribute("class") == Some("level-path"))
            .count(),
        2,
        "one line per kernel"
    );
}

/// cuBLAS's bf16 GEMM runs on the tensor cores, which the SASS FP counters
/// miss; the tensor pipe's operation rate gives its 2·4096³ FLOPs.
#[test]
fn tensor_pipe_rates_count_a_bf16_gemm_and_place_it() {
    let kernels = full("ncu_h100_torch_bf16_gemm_raw.csv");
    assert_eq!(kernels.len(), 2);
    for k in &kernels {
        assert!(k.kernel.name.starts_with("nvjet_sm90"), "{}", k.kernel.name);
        let expected = 2.0 * 4096f64.powi(3);
        assert!(
            (flops(k) / expected - 1.0).abs() < 1e-3,
            "{} FLOPs counted, {expected} in a 4096³ GEMM",
            flops(k)
        );
        assert_eq!(
            k.compute.flops_by_precision.keys().collect::<Vec<_>>(),
            ["bf16 (tensor)"]
        );
        assert_eq!(k.roofline.precision.as_deref(), Some("bf16"));
        assert_eq!(k.roofline.bound, Some(Bound::Compute));
        let efficiency = k.roofline.efficiency_pct.expect("placed");
        // 2·4096³ FLOPs in 208 µs against the H100 SXM's 989 TFLOP/s.
        let by_hand = expected / (duration_ns(k) * 1e-9) / 989e12 * 100.0;
        assert!(
            (efficiency - by_hand).abs() < 0.5,
            "{efficiency} vs {by_hand}"
        );
    }
}

/// ncu 2025 leaves the rule columns off its details page's metric rows.
#[test]
fn details_pages_of_ncu_2025_read_with_their_rule_columns_left_off() {
    let report = read_ncu_csv(fixture("ncu_h100_cuda_bricks_sol_details.csv")).unwrap();
    assert_eq!(report.layout, NcuLayout::Details);
    let names: Vec<&str> = report.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["saxpy", "saxpy", "matmul"]);
    let sm = report.kernels[0]
        .metric("SM Frequency")
        .expect("a metric row");
    assert_eq!(sm.value, Some(1_585_819_128.79));

    let gemm = read_ncu_csv(fixture("ncu_h100_torch_bf16_gemm_details.csv")).unwrap();
    assert_eq!(gemm.kernels.len(), 1);
    assert_eq!(
        gemm.kernels[0].metric("Duration").and_then(|m| m.value),
        Some(209_856.0)
    );
}

/// Kernel times ncu measured (clocks left free, `--clock-control none`) per
/// saxpy size, against the CUDA events' times for the same kernels in the
/// example's deferred run: 10,000 back-to-back launches of the 1 Mi saxpy.
#[test]
fn cuda_event_times_agree_with_ncu_for_the_same_kernel() {
    let kernels = full("ncu_h100_cuda_bricks_times_raw.csv");
    assert_eq!(kernels.len(), 25);
    let mut by_launch: BTreeMap<(String, u64), Vec<f64>> = BTreeMap::new();
    for k in &kernels {
        let grid = k.kernel.grid.map_or(0, |g| g[0] * g[1] * g[2]);
        by_launch
            .entry((k.kernel.name.clone(), grid))
            .or_default()
            .push(duration_ns(k));
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let ncu_1m = mean(&by_launch[&("saxpy".to_owned(), 1024)]);
    let ncu_16m = mean(&by_launch[&("saxpy".to_owned(), 16_384)]);
    let ncu_spin = mean(&by_launch[&("spin".to_owned(), 1)]);
    assert!(ncu_1m < ncu_16m, "{ncu_1m} {ncu_16m}");
    // 2,000,000 cycles at no more than the 1980 MHz highest clock.
    assert!(ncu_spin >= 2e6 / 1.98, "{ncu_spin}");

    let text = std::fs::read_to_string(fixture("cuda_bricks_h100_deferred.profile.json")).unwrap();
    let profile = Profile::from_json(&text).unwrap();
    assert!(profile.run.device_timer);
    let saxpy = profile.brick("saxpy_1m").expect("the deferred brick");
    assert_eq!(saxpy.count, 10_000);
    let events = saxpy.total_ns as f64 / saxpy.count as f64;
    // Back to back, the events time the kernel alone: within 15% of ncu's
    // time, which flushes the caches before each launch.
    assert!(
        (events / ncu_1m - 1.0).abs() < 0.15,
        "events {events} ns vs ncu {ncu_1m} ns"
    );
}

#[test]
fn kernels_queued_behind_a_long_one_are_drawn_where_the_device_ran_them() {
    // A 1 ms spin, then four saxpy kernels launched within 30 µs of it, on
    // one stream: the device runs each after the one before it ends.
    let text = std::fs::read_to_string(fixture("cuda_bricks_h200_queued.profile.json")).unwrap();
    let profile = Profile::from_json(&text).unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&profiler_report::chrome_trace_json(&profile)).unwrap();
    let all = json["traceEvents"].as_array().unwrap();
    let slices = |cat: &str| -> Vec<(String, f64, f64)> {
        let mut v: Vec<_> = all
            .iter()
            .filter(|e| e["cat"] == cat)
            .map(|e| {
                let at = |k: &str| e[k].as_f64().unwrap();
                (e["name"].as_str().unwrap().to_owned(), at("ts"), at("dur"))
            })
            .collect();
        v.sort_by(|a, b| a.1.total_cmp(&b.1));
        v
    };
    let (kernels, launches) = (slices("kernel"), slices("brick"));
    let names: Vec<&str> = kernels.iter().map(|k| k.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "spin_2m_cycles",
            "saxpy_1m",
            "saxpy_1m",
            "saxpy_1m",
            "saxpy_1m"
        ]
    );
    for pair in kernels.windows(2) {
        let ended = pair[0].1 + pair[0].2;
        // Within 2 µs of the one before it ending, and not before.
        assert!((0.0..2.0).contains(&(pair[1].1 - ended)), "{pair:?}");
    }
    // Each kernel starts after its launch; the first saxpy waited about the
    // spin's millisecond.
    for (kernel, launch) in kernels.iter().zip(&launches) {
        assert!(kernel.1 >= launch.1, "{kernel:?} before {launch:?}");
    }
    assert!(
        kernels[1].1 - launches[1].1 > 900.0,
        "{kernels:?} {launches:?}"
    );
    let gap = profile.run.launch_gap.expect("launch gaps measured");
    assert_eq!(gap.bricks, 5);
    assert!(gap.max_ns > 1_000_000, "{gap:?}");
}
