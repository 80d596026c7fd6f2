//! Rooflines: the analytical contract's reference numbers, kernel
//! classification on both sides of the ridge, presets, the per-brick
//! roofline of a profile, typed errors for bad inputs, and golden files for
//! the Markdown and the SVG plot (checked as XML too). Rewrite the golden
//! files with `UPDATE_GOLDEN=1 cargo test -p brick-profiler-report --test roofline`
//! and review the diff (open the SVG in a browser too).

use profiler_core::hardware::{Figure, Hardware, MemoryLevel, Precision, Source};
use profiler_core::{BrickCategory, BrickStats, Profile};
use profiler_report::hardware::{Bound, HardwareError, preset};
use profiler_report::roofline::{
    BrickRoofline, RooflineBottleneck, RooflineError, classify, compute_roofline, ridge_point,
    roofline_section,
};

fn golden(name: &str, actual: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).expect("write golden file");
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_GOLDEN=1)", path.display()));
    assert!(
        expected == actual,
        "{name} differs from the golden file; actual:\n{actual}"
    );
}

/// Hardware with these ceilings, each marked `source`.
fn given(
    name: &str,
    source: &Source,
    compute: &[(Precision, f64)],
    memory: &[(MemoryLevel, f64)],
) -> Hardware {
    let mut hw = Hardware::new(name);
    for (p, v) in compute {
        hw.set_compute(*p, Figure::new(*v, source.clone())).unwrap();
    }
    for (l, v) in memory {
        hw.set_memory(*l, Figure::new(*v, source.clone())).unwrap();
    }
    hw
}

fn hw(bw: f64, gflops: f64) -> Hardware {
    given(
        "reference",
        &Source::Given,
        &[(Precision::Fp32, gflops / 1e3)],
        &[(MemoryLevel::Dram, bw)],
    )
}

#[test]
fn seven_billion_at_four_bits_is_bandwidth_bound() {
    let r = compute_roofline(7_000_000_000, 4.0, &hw(200.0, 5000.0)).unwrap();
    assert_eq!(r.model_bytes, 3.5e9);
    // 200 GB/s / 3.5 GB = 57.1 tok/s; 5000 GFLOPS / 14 GFLOP = 357 tok/s.
    assert!((r.bw_ceiling - 200.0 / 3.5).abs() < 1e-9);
    assert!((r.compute_ceiling - 5e12 / 1.4e10).abs() < 1e-9);
    assert_eq!(r.throughput_ceiling, r.bw_ceiling);
    assert_eq!(r.bottleneck, RooflineBottleneck::Bandwidth);
    assert_eq!(r.contract_id, "roofline-model-v1");
}

#[test]
fn a_tiny_model_on_slow_compute_is_compute_bound() {
    let r = compute_roofline(100_000, 32.0, &hw(100.0, 0.5)).unwrap();
    assert!(r.compute_ceiling < r.bw_ceiling);
    assert_eq!(r.bottleneck, RooflineBottleneck::Compute);
    assert_eq!(r.throughput_ceiling, r.compute_ceiling);
}

#[test]
fn analytical_renderers_never_print_non_finite_numbers() {
    let r = compute_roofline(0, 4.0, &preset("apple_m_series").unwrap()).unwrap();
    let text = format!("{}\n{}\n{}", r.to_markdown(), r, r.to_json());
    for bad in ["NaN", "inf"] {
        assert!(!text.contains(bad), "{bad} in:\n{text}");
    }
    assert!(
        r.to_markdown()
            .contains("| Throughput ceiling | **unbounded** |")
    );
    let json: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    assert!(json["bw_ceiling"].is_null() && json["bottleneck"] == "Compute");
    let r = compute_roofline(7_000_000_000, 4.0, &preset("nvidia_a100").unwrap()).unwrap();
    golden("roofline_analytical.md", &r.to_markdown());
}

#[test]
fn missing_hardware_and_unknown_presets_are_typed_errors_naming_what() {
    let e = compute_roofline(1, 4.0, &Hardware::new("bare")).unwrap_err();
    assert!(
        matches!(&e, RooflineError::MissingCeiling { what, .. } if what == "DRAM"),
        "{e}"
    );
    let e = preset("nvidia_b9000").unwrap_err();
    assert!(
        matches!(&e, HardwareError::UnknownDevice { name, .. } if name == "nvidia_b9000"),
        "{e}"
    );
    let e = Hardware::new("gpu")
        .set_compute(Precision::Fp32, Figure::new(f64::NAN, Source::Given))
        .unwrap_err();
    assert!(e.to_string().contains("gpu FP32 peak"), "{e}");
}

#[test]
fn rtx_4090_classifies_on_both_sides_of_the_ridge() {
    let rtx = preset("4090").unwrap();
    let ridge = ridge_point(&rtx, Precision::Fp32, MemoryLevel::Dram).unwrap();
    assert!((ridge - 82.6e12 / 1008e9).abs() < 1e-9);
    let below = classify(&rtx, ridge / 2.0, 10e12, Precision::Fp32, MemoryLevel::Dram).unwrap();
    assert_eq!(below.bound, Bound::Memory);
    assert!((below.attainable_flops - 41.3e12).abs() < 1e3);
    assert!(below.distance_to_ridge > 0.0);
    let above = classify(
        &rtx,
        ridge * 2.0,
        41.3e12,
        Precision::Fp32,
        MemoryLevel::Dram,
    )
    .unwrap();
    assert_eq!(above.bound, Bound::Compute);
    assert!((above.efficiency_pct - 50.0).abs() < 1e-9);
    assert!(above.distance_to_ridge < 0.0);
    // The same kernel moves to the memory side of a faster peak's ridge.
    let int8 = classify(
        &rtx,
        ridge * 2.0,
        41.3e12,
        Precision::Int8,
        MemoryLevel::Dram,
    )
    .unwrap();
    assert_eq!(int8.bound, Bound::Memory);
    // Against L1 bandwidth the ridge moves left: compute-bound.
    let l1 = classify(&rtx, 10.0, 1e12, Precision::Fp32, MemoryLevel::L1Cache).unwrap();
    assert_eq!(l1.bound, Bound::Compute);
}

fn brick(name: &str, count: u64, flops: u64, bytes: u64, ns: u64) -> BrickStats {
    let mut b = BrickStats::new(name, BrickCategory::Other);
    b.count = count;
    b.total_flops = flops;
    b.total_bytes = bytes;
    b.total_ns = ns;
    b
}

/// A CPU-like device: 200 GFLOP/s FP32, 20 GB/s DRAM, 100 GB/s L2.
fn cpu() -> Hardware {
    given(
        "test CPU",
        &Source::Measured { how: None },
        &[(Precision::Fp32, 0.2)],
        &[(MemoryLevel::Dram, 20.0), (MemoryLevel::L2Cache, 100.0)],
    )
}

fn profile() -> Profile {
    let mut p = Profile::empty();
    p.bricks = vec![
        // AI 16, 50 GFLOP/s: roof 200 (compute side of the 10 FLOP/byte ridge).
        brick("MatMul", 10, 5_000_000_000, 312_500_000, 100_000_000),
        // AI 0.25, 2 GFLOP/s against a 5 GFLOP/s roof.
        brick("RmsNorm", 40, 20_000_000, 80_000_000, 10_000_000),
        // AI 0.125, 10 GFLOP/s: above the DRAM roof of 2.5.
        brick("Residual", 40, 10_000_000, 80_000_000, 1_000_000),
        // A name that needs escaping everywhere.
        brick(
            "<Fused & \"odd\" 'op'>\u{1}",
            5,
            1_000_000,
            1_000_000,
            1_000_000,
        ),
        brick("Embedding", 10, 0, 4_000_000, 500_000),
        brick("Sampling", 10, 0, 0, 100_000),
    ];
    p
}

#[test]
fn bricks_are_placed_and_unannotated_ones_listed() {
    let r = BrickRoofline::from_profile(&profile(), &cpu(), None, None).unwrap();
    assert_eq!((r.precision, r.level), (Precision::Fp32, MemoryLevel::Dram));
    let names: Vec<&str> = r.points.iter().map(|p| p.name.as_str()).collect();
    // By total time, ties by name.
    assert_eq!(
        names,
        [
            "MatMul",
            "RmsNorm",
            "<Fused & \"odd\" 'op'>\u{1}",
            "Residual"
        ]
    );
    let mm = &r.points[0];
    assert_eq!(mm.bound, Bound::Compute);
    assert!((mm.roof_pct - 25.0).abs() < 1e-9);
    let norm = &r.points[1];
    assert_eq!(norm.bound, Bound::Memory);
    assert!((norm.attainable_gflops - 5.0).abs() < 1e-9 && (norm.roof_pct - 40.0).abs() < 1e-9);
    assert!(r.points[3].above_roof && !norm.above_roof);
    let left_out: Vec<(&str, &str)> = r
        .not_annotated
        .iter()
        .map(|n| (n.name.as_str(), n.missing.as_str()))
        .collect();
    assert_eq!(
        left_out,
        [("Embedding", "flops"), ("Sampling", "flops and bytes")]
    );
    assert!(r.notes.iter().any(|n| n.contains("Residual")));
    // Against L2, nothing is above the roof any more.
    let l2 =
        BrickRoofline::from_profile(&profile(), &cpu(), None, Some(MemoryLevel::L2Cache)).unwrap();
    assert!(l2.points.iter().all(|p| !p.above_roof));
    let e =
        BrickRoofline::from_profile(&profile(), &cpu(), Some(Precision::Bf16), None).unwrap_err();
    assert!(matches!(e, RooflineError::MissingCeiling { .. }), "{e}");
}

#[test]
fn brick_roofline_markdown_and_json_match_and_stay_finite() {
    let r = BrickRoofline::from_profile(&profile(), &cpu(), None, None).unwrap();
    golden("roofline_bricks.md", &r.to_markdown());
    let json: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    assert_eq!(json["points"].as_array().map(Vec::len), Some(4));
    assert_eq!(json["precision"], "fp32");
    let all = format!("{}{}{}", r.to_markdown(), r.to_json(), r);
    assert!(!all.contains("NaN") && !all.contains("inf"));
    // A name with a pipe and a newline stays in its table cell.
    let mut p = Profile::empty();
    p.bricks = vec![brick("a|b\nc", 1, 10, 10, 10)];
    let md = BrickRoofline::from_profile(&p, &cpu(), None, None)
        .unwrap()
        .to_markdown();
    assert!(md.contains("| a\\|b\\\\nc |"), "{md}");
}

#[test]
fn integer_work_is_counted_in_operations_not_flops_in_every_rendering() {
    let r = BrickRoofline::from_profile(
        &profile(),
        &preset("4090").unwrap(),
        Some(Precision::Int8),
        None,
    )
    .unwrap();
    let (md, text, svg) = (r.to_markdown(), r.to_string(), r.to_svg());
    assert!(md.contains("| OP/byte | GOP/s | Roof (GOP/s) |"), "{md}");
    assert!(text.contains("OP/B") && text.contains("GOP/s"), "{text}");
    assert!(!format!("{md}{text}{svg}").contains("GFLOP/s"));
    assert!(svg.contains("Performance (GOP/s)") && svg.contains("(OP/byte)"));
}

/// Every attribute of the SVG that should be a number is a finite one.
fn assert_finite_numbers(doc: &roxmltree::Document<'_>) {
    for node in doc.descendants().filter(|n| n.is_element()) {
        for attr in node.attributes() {
            if [
                "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "width", "height",
            ]
            .contains(&attr.name())
            {
                let v: f64 = attr
                    .value()
                    .parse()
                    .unwrap_or_else(|_| panic!("{}={}", attr.name(), attr.value()));
                assert!(v.is_finite(), "{}={}", attr.name(), attr.value());
            }
        }
    }
}

fn texts<'a>(doc: &'a roxmltree::Document<'a>, class: &str) -> Vec<&'a str> {
    doc.descendants()
        .filter(|n| {
            n.has_tag_name("text")
                && n.attribute("class")
                    .is_some_and(|c| c.split(' ').any(|c| c == class))
        })
        .filter_map(|n| n.text())
        .collect()
}

#[test]
fn roofline_svg_is_well_formed_with_axes_ticks_and_one_point_per_brick() {
    let r = BrickRoofline::from_profile(&profile(), &cpu(), None, None).unwrap();
    let svg = r.to_svg();
    golden("roofline.svg", &svg);
    let doc = roxmltree::Document::parse(&svg).expect("the SVG is well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(
        root.tag_name().namespace(),
        Some("http://www.w3.org/2000/svg")
    );
    let axis_labels = texts(&doc, "axis-label");
    assert!(
        axis_labels.contains(&"Arithmetic intensity (FLOP/byte)"),
        "{axis_labels:?}"
    );
    assert!(
        axis_labels.contains(&"Performance (GFLOP/s)"),
        "{axis_labels:?}"
    );
    assert_eq!(
        doc.descendants()
            .filter(|n| n.attribute("class") == Some("axis"))
            .count(),
        2
    );
    let ticks = texts(&doc, "tick");
    for decade in ["0.1", "1", "10", "100", "1k"] {
        assert!(ticks.contains(&decade), "tick {decade} in {ticks:?}");
    }
    // One point per annotated brick, labelled with its (escaped) name.
    let points: Vec<_> = doc
        .descendants()
        .filter(|n| {
            n.has_tag_name("g") && n.attribute("class").is_some_and(|c| c.starts_with("point"))
        })
        .collect();
    assert_eq!(points.len(), r.points.len());
    let labels = texts(&doc, "label");
    assert!(
        labels.contains(&"MatMul") && labels.contains(&"<Fused & \"odd\" 'op'>\\x01"),
        "{labels:?}"
    );
    assert!(!labels.contains(&"Embedding") && !labels.contains(&"Sampling"));
    assert!(
        points
            .iter()
            .all(|g| g.descendants().any(|n| n.has_tag_name("circle")))
    );
    let above = points
        .iter()
        .filter(|g| g.attribute("class") == Some("point above"))
        .count();
    assert_eq!(above, 1);
    // Ceilings: both bandwidths and the FP32 peak are labelled with units.
    let ceilings = texts(&doc, "ceiling-label");
    assert!(
        ceilings.iter().any(|t| t.starts_with("DRAM 20 GB/s")),
        "{ceilings:?}"
    );
    assert!(
        ceilings.iter().any(|t| t.starts_with("L2 100 GB/s")),
        "{ceilings:?}"
    );
    assert!(
        ceilings.iter().any(|t| t.starts_with("FP32 200 GFLOP/s")),
        "{ceilings:?}"
    );
    assert_finite_numbers(&doc);
    assert!(!svg.contains("NaN") && !svg.contains("inf"));
}

#[test]
fn a_profile_without_annotations_still_draws_the_ceilings() {
    let r = BrickRoofline::from_profile(&Profile::empty(), &preset("4090").unwrap(), None, None)
        .unwrap();
    let svg = r.to_svg();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    assert!(texts(&doc, "caption").contains(&"no brick carries FLOPs, bytes and time"));
    // Equal peaks share a line and a label.
    let ceilings = texts(&doc, "ceiling-label");
    assert!(
        ceilings
            .iter()
            .any(|t| t.starts_with("TF32 / BF16 165 TFLOP/s")),
        "{ceilings:?}"
    );
    assert!(
        ceilings.iter().any(|t| t.starts_with("PCIe 32 GB/s")),
        "{ceilings:?}"
    );
    assert_finite_numbers(&doc);
}

#[test]
fn estimated_ceilings_are_marked_in_every_rendering() {
    let laptop = preset("rtx_4060l").unwrap();
    let r = BrickRoofline::from_profile(&profile(), &laptop, Some(Precision::Bf16), None).unwrap();
    assert!(r.estimate);
    assert!(r.to_markdown().contains("(estimate)"));
    assert!(r.to_string().contains("(estimate)"));
    assert!(r.to_svg().contains("(est.)"));
    assert!(r.to_json().contains("\"estimate\": true"));
    let html = roofline_section(&r);
    assert_eq!(html.id(), "roofline");
}

#[test]
fn the_html_section_escapes_names_and_embeds_the_plot() {
    let r = BrickRoofline::from_profile(&profile(), &cpu(), None, None).unwrap();
    let html = profiler_report::HtmlReport::new(&profile())
        .section(roofline_section(&r))
        .render();
    assert!(html.contains("<section id=\"roofline\">"));
    assert!(html.contains("&lt;Fused &amp; &quot;odd&quot; &#39;op&#39;&gt;"));
    assert!(!html.contains("<Fused"));
    assert!(html.contains("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"pr-roofline\""));
}

#[test]
fn twenty_thousand_bricks_are_all_drawn_and_the_unlabelled_counted() {
    // Label placement compared every spot with every placed box: 20k bricks
    // took seconds. Every point must still be drawn, with its tooltip. The
    // bricks stay below the device's peaks (up to 100 GFLOP/s, 10 GB/s), so
    // none is left off the plot as impossible.
    let mut p = Profile::empty();
    p.bricks = (0..20_000u64)
        .map(|i| {
            brick(
                &format!("brick_{i}"),
                1 + i % 7,
                1_000_000 + (i * 7919 % 100_000) * 10_000,
                1_000_000 + (i * 104_729 % 100_000) * 1_000,
                10_000_000 + (i * 31 % 1000) * 10_000,
            )
        })
        .collect();
    let r = BrickRoofline::from_profile(&p, &cpu(), None, None).unwrap();
    assert_eq!(r.points.len(), 20_000);
    let svg = r.to_svg();
    let doc = roxmltree::Document::parse(&svg).expect("the SVG is well-formed XML");
    let points: Vec<_> = doc
        .descendants()
        .filter(|n| {
            n.has_tag_name("g") && n.attribute("class").is_some_and(|c| c.starts_with("point"))
        })
        .collect();
    assert_eq!(points.len(), 20_000);
    for g in &points {
        assert!(g.children().any(|n| n.has_tag_name("circle")));
        assert!(g.children().any(|n| n.has_tag_name("title")));
    }
    let labelled = texts(&doc, "label").len();
    assert!(labelled > 0 && labelled < 20_000, "{labelled}");
    let caption = format!(
        "{} of 20000 points unlabelled: hover a point for its name",
        20_000 - labelled
    );
    assert!(texts(&doc, "caption").contains(&caption.as_str()));
    assert_finite_numbers(&doc);
}
