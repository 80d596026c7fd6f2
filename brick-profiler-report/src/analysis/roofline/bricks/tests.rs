//! Bricks placed on the roofline: levels, roofs and what is left out.

use super::*;
use crate::model::hardware::{given, preset};
use profiler_core::BrickCategory;

fn brick(name: &str, flops: u64, bytes: u64, ns: u64) -> BrickStats {
    let mut b = BrickStats::new(name, BrickCategory::Other);
    b.count = 2;
    b.total_flops = flops;
    b.total_bytes = bytes;
    b.total_ns = ns;
    b
}

fn cpu() -> Hardware {
    // 100 GFLOP/s over 10 GB/s: ridge 10.
    given(
        "cpu",
        &[(Precision::Fp32, 0.1)],
        &[(MemoryLevel::Dram, 10.0)],
    )
}

#[test]
fn bricks_get_intensity_roof_and_bound() {
    let mut p = Profile::empty();
    p.bricks = vec![
        // 1e9 flops over 1e8 bytes in 0.1 s: AI 10, 10 GFLOP/s of a 100 roof.
        brick("MatMul", 1_000_000_000, 100_000_000, 100_000_000),
        // AI 0.25, 1 GFLOP/s; roof 2.5 GFLOP/s.
        brick("Add", 1_000_000, 4_000_000, 1_000_000),
        brick("Copy", 0, 4_000, 10),
        brick("Nothing", 0, 0, 10),
        brick("Idle", 10, 10, 0),
    ];
    let r = BrickRoofline::from_profile(&p, &cpu(), None, None).unwrap();
    assert_eq!((r.precision, r.level), (Precision::Fp32, MemoryLevel::Dram));
    assert_eq!(r.points.len(), 2);
    let mm = &r.points[0];
    assert_eq!(mm.name, "MatMul");
    assert!((mm.arithmetic_intensity - 10.0).abs() < 1e-12);
    assert!((mm.achieved_gflops - 10.0).abs() < 1e-9);
    assert!((mm.attainable_gflops - 100.0).abs() < 1e-9);
    assert!((mm.roof_pct - 10.0).abs() < 1e-9);
    assert_eq!(mm.bound, Bound::Compute);
    let add = &r.points[1];
    assert_eq!(add.bound, Bound::Memory);
    assert!((add.roof_pct - 40.0).abs() < 1e-9);
    let missing: Vec<(&str, &str)> = r
        .not_annotated
        .iter()
        .map(|n| (n.name.as_str(), n.missing.as_str()))
        .collect();
    assert_eq!(
        missing,
        [
            ("Copy", "flops"),
            ("Nothing", "flops and bytes"),
            ("Idle", "time")
        ]
    );
    assert!(r.notes.is_empty(), "{:?}", r.notes);
}

#[test]
fn defaults_fall_back_with_a_note_and_explicit_roofs_must_exist() {
    let gb10 = preset("gb10").unwrap();
    let r = BrickRoofline::from_profile(&Profile::empty(), &gb10, None, None).unwrap();
    assert_eq!(r.precision, Precision::Fp32);
    assert!(r.estimate && r.notes.iter().any(|n| n.contains("estimated")));
    let bf16_only = given(
        "x",
        &[(Precision::Bf16, 1.0)],
        &[(MemoryLevel::L2Cache, 1.0)],
    );
    let r = BrickRoofline::from_profile(&Profile::empty(), &bf16_only, None, None).unwrap();
    assert_eq!(
        (r.precision, r.level),
        (Precision::Bf16, MemoryLevel::L2Cache)
    );
    assert_eq!(r.notes.len(), 2);
    assert!(
        BrickRoofline::from_profile(&Profile::empty(), &cpu(), Some(Precision::Int8), None)
            .is_err()
    );
    let empty = Hardware::new("none");
    assert!(BrickRoofline::from_profile(&Profile::empty(), &empty, None, None).is_err());
}

#[test]
fn above_the_roof_is_flagged_and_explained() {
    let mut p = Profile::empty();
    // AI 0.25 with a 2.5 GFLOP/s roof, achieving 25 GFLOP/s.
    p.bricks = vec![brick("Cached", 25_000_000, 100_000_000, 1_000_000)];
    let r = BrickRoofline::from_profile(&p, &cpu(), None, None).unwrap();
    assert!(r.points[0].above_roof);
    assert!(r.notes[0].contains("Cached") && r.notes[0].contains("does not bound"));
}
