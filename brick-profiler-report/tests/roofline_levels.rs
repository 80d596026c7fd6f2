//! Bricks judged against the roof of the memory level their working set
//! fits in: bricks whose bytes per call fit in L1, in L2 and in neither land
//! on those levels (with this machine's cache sizes from sysfs too), a pin
//! overrides the choice, a brick above its own roof is named with the
//! annotation to check, and a busy probe is said next to the roofs.

use std::time::Duration;

use profiler_core::hardware::{Figure, Hardware, MemoryLevel, Precision, Source};
use profiler_core::profile::BrickLevel;
use profiler_core::profile::SiteInfo;
use profiler_core::{BrickCategory, BrickStats, Profile};
use profiler_report::hardware::measure;
use profiler_report::hardware::probe::ProbeOptions;
use profiler_report::roofline::{Annotation, BrickRoofline, LevelChoice, RooflineOptions};

/// A brick of `calls` calls, each moving `bytes` and doing `flops` in `ns`.
fn brick(name: &str, calls: u64, bytes: u64, flops: u64, ns: u64) -> BrickStats {
    let mut b = BrickStats::new(name, BrickCategory::Other);
    b.count = calls;
    b.total_bytes = bytes * calls;
    b.total_flops = flops * calls;
    b.total_ns = ns * calls;
    b
}

/// A 32 KiB L1 at 1000 GB/s, a 512 KiB L2 at 400 GB/s, DRAM at 30 GB/s,
/// 0.5 TFLOP/s FP32, as the probes give them.
fn machine(busy: bool) -> Hardware {
    let measured = |v| Figure::new(v, Source::Measured { how: None });
    let mut hw = Hardware::new("test cpu");
    for (level, gb_s) in [
        (MemoryLevel::Dram, 30.0),
        (MemoryLevel::L1Cache, 1000.0),
        (MemoryLevel::L2Cache, 400.0),
    ] {
        hw.set_memory(level, measured(gb_s)).unwrap();
    }
    hw.set_compute(Precision::Fp32, measured(0.5)).unwrap();
    for (level, bytes) in [
        (MemoryLevel::L1Cache, 32 << 10),
        (MemoryLevel::L2Cache, 512 << 10),
    ] {
        let sysfs = Source::System {
            path: "sysfs".into(),
        };
        hw.set_cache_bytes(level, Figure::new(f64::from(bytes), sysfs))
            .unwrap();
    }
    hw.busy = busy.then(|| "3 other task(s) were runnable".to_owned());
    hw
}

fn profile() -> Profile {
    let mut p = Profile::empty();
    p.bricks = vec![
        // 16 KiB per call: L1. 1 FLOP per 4 bytes at 200 GB/s.
        brick("SmallAdd", 100, 16 << 10, 4 << 10, 82),
        // 256 KiB per call: L2; 100 GB/s.
        brick("MidAdd", 100, 256 << 10, 64 << 10, 2621),
        // 8 MiB per call: DRAM; 20 GB/s.
        brick("BigAdd", 10, 8 << 20, 2 << 20, 419_430),
        // 8 MiB per call at 200 GB/s: above the DRAM roof it is judged
        // against, so its bytes are wrong (or its level is).
        brick("Liar", 10, 8 << 20, 2 << 20, 41_943),
    ];
    p
}

#[test]
fn bricks_land_on_the_level_their_working_set_fits_in() {
    let roof = machine(false);
    let r = BrickRoofline::from_profile(&profile(), &roof, None, None).unwrap();
    assert!(r.by_working_set);
    let level = |name: &str| {
        let p = r.points.iter().find(|p| p.name == name).unwrap();
        (p.level, p.level_choice, p.above_roof, p.check)
    };
    assert_eq!(
        level("SmallAdd"),
        (MemoryLevel::L1Cache, LevelChoice::WorkingSet, false, None)
    );
    assert_eq!(
        level("MidAdd"),
        (MemoryLevel::L2Cache, LevelChoice::WorkingSet, false, None)
    );
    assert_eq!(
        level("BigAdd"),
        (MemoryLevel::Dram, LevelChoice::WorkingSet, false, None)
    );
    assert_eq!(
        level("Liar"),
        (
            MemoryLevel::Dram,
            LevelChoice::WorkingSet,
            true,
            Some(Annotation::Bytes)
        )
    );
    // Against DRAM for all, the L1 and L2 bricks would be above the roof.
    let all_dram =
        BrickRoofline::from_profile(&profile(), &roof, None, Some(MemoryLevel::Dram)).unwrap();
    assert_eq!(all_dram.points.iter().filter(|p| p.above_roof).count(), 3);
    // The finding names the brick and the annotation to check.
    let finding = r
        .notes
        .iter()
        .find(|n| n.contains("Liar"))
        .expect("a finding");
    assert!(
        finding.contains("check its `bytes` annotation"),
        "{finding}"
    );
    assert!(!finding.contains("SmallAdd"), "{finding}");
    let text = r.to_string();
    assert!(
        text.contains("memory-bound, fits in L1") && text.contains("memory-bound, DRAM: "),
        "{text}"
    );
    let svg = r.to_svg();
    assert!(svg.contains(">SmallAdd (L1)</text>"), "{svg}");
    assert!(svg.contains("roofs used: FP32 / each brick"), "{svg}");
}

#[test]
fn a_pin_overrides_the_working_set_and_must_name_a_roof() {
    let roof = machine(false);
    let options = RooflineOptions::default().pin("Liar", MemoryLevel::L2Cache);
    let r = BrickRoofline::from_profile_with(&profile(), &roof, &options).unwrap();
    let liar = r.points.iter().find(|p| p.name == "Liar").unwrap();
    assert_eq!(
        (liar.level, liar.level_choice),
        (MemoryLevel::L2Cache, LevelChoice::Pinned)
    );
    assert!(!liar.above_roof);
    let bad = RooflineOptions::default().pin("Liar", MemoryLevel::Pcie);
    let e = BrickRoofline::from_profile_with(&profile(), &roof, &bad).unwrap_err();
    assert!(e.to_string().contains("PCIe"), "{e}");
}

fn site(name: &str, level: BrickLevel) -> SiteInfo {
    SiteInfo {
        name: name.into(),
        category: BrickCategory::Other,
        module_path: "kernels".into(),
        file: "kernels.rs".into(),
        line: 7,
        level: Some(level),
    }
}

/// `#[brick("Liar", level = L2)]`: its 8 MiB per call would put it on
/// DRAM; the annotation says its data comes from L2, and the text says
/// so. `--pin` wins over the annotation.
#[test]
fn an_annotated_level_wins_over_the_working_set_and_a_pin_over_both() {
    let roof = machine(false);
    let mut p = profile();
    p.sites = vec![
        site("Liar", BrickLevel::L2),
        // The device has no L3 roof: noted, and judged by its working set.
        site("SmallAdd", BrickLevel::L3),
    ];
    let r = BrickRoofline::from_profile(&p, &roof, None, None).unwrap();
    let point = |r: &BrickRoofline, name: &str| {
        let p = r.points.iter().find(|p| p.name == name).unwrap().clone();
        (p.level, p.level_choice, p.above_roof)
    };
    assert_eq!(
        point(&r, "Liar"),
        (MemoryLevel::L2Cache, LevelChoice::Annotated, false)
    );
    assert_eq!(
        point(&r, "SmallAdd"),
        (MemoryLevel::L1Cache, LevelChoice::WorkingSet, false)
    );
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("SmallAdd is annotated `level = L3`")),
        "{:?}",
        r.notes
    );
    let text = r.to_string();
    assert!(
        text.contains("memory-bound, L2: pinned by annotation"),
        "{text}"
    );
    assert!(text.contains("memory-bound, fits in L1 (sysfs)"), "{text}");
    assert!(text.contains("DRAM: past every cache (sysfs)"), "{text}");
    // An L3 with a size but no bandwidth roof: its bricks go to DRAM, saying why.
    let mut with_l3 = roof.clone();
    let sysfs = Source::System {
        path: "sysfs".into(),
    };
    with_l3
        .set_cache_bytes(
            MemoryLevel::L3Cache,
            Figure::new((32u64 << 20) as f64, sysfs),
        )
        .unwrap();
    let r3 = BrickRoofline::from_profile(&p, &with_l3, None, None).unwrap();
    assert!(
        r3.to_string()
            .contains("DRAM: fits in L3 (sysfs), which has no roof"),
        "{r3}"
    );
    assert!(r.to_svg().contains("pinned by annotation"));

    let pinned = RooflineOptions::default().pin("Liar", MemoryLevel::Dram);
    let r = BrickRoofline::from_profile_with(&p, &roof, &pinned).unwrap();
    assert_eq!(
        point(&r, "Liar"),
        (MemoryLevel::Dram, LevelChoice::Pinned, true)
    );
    assert!(r.to_markdown().contains("DRAM: pinned by --pin"));
    // One level for every brick, as asked, over the annotation too.
    let all = BrickRoofline::from_profile(&p, &roof, None, Some(MemoryLevel::L1Cache)).unwrap();
    assert_eq!(point(&all, "Liar").1, LevelChoice::All);
}

#[test]
fn a_busy_probe_is_said_next_to_the_roofs() {
    let roof = machine(true);
    let r = BrickRoofline::from_profile(&profile(), &roof, None, None).unwrap();
    assert!(r.notes[0].contains("busy machine") && r.notes[0].contains("3 other task"));
    assert!(r.summary().contains("busy machine"));
    let quiet = machine(false);
    assert!(quiet.busy.is_none());
}

#[test]
fn this_machines_caches_place_l1_l2_and_dram_working_sets() {
    let roof = measure(&ProbeOptions {
        threads: Some(1),
        array_bytes: Some(8 << 20),
        min_repetitions: 2,
        budget: Duration::from_millis(100),
        ..ProbeOptions::default()
    })
    .unwrap();
    let size = |level| roof.cache_bytes(level).map(|f| f.value as u64);
    let (Some(l1), Some(l2)) = (size(MemoryLevel::L1Cache), size(MemoryLevel::L2Cache)) else {
        // No sysfs cache sizes: nothing to place by (the model's own
        // tests above cover the choice).
        assert_eq!(roof.cache_sizes().count(), 0);
        return;
    };
    let from = roof
        .cache_bytes(MemoryLevel::L1Cache)
        .unwrap()
        .source
        .to_string();
    assert!(from.contains("/sys/devices/system/cpu"), "{from}");
    assert!(roof.memory(MemoryLevel::L1Cache).is_some());
    let fp64 = roof.compute(Precision::Fp64).expect("an FP64 peak");
    assert!(fp64.value > 0.0 && fp64.source.measurement().is_some());
    let largest = roof
        .cache_sizes()
        .map(|(_, f)| f.value as u64)
        .max()
        .unwrap_or(0);
    let mut p = Profile::empty();
    // Slow enough (a few MB/s) to sit under any roof an unoptimised
    // build measures: only the level is under test.
    p.bricks = vec![
        brick("InL1", 10, l1 / 2, 1, 10_000_000),
        brick("InL2", 10, (l1 + l2) / 2, 1, 100_000_000),
        brick("InDram", 10, 4 * largest, 1, 50_000_000_000),
    ];
    let r = BrickRoofline::from_profile(&p, &roof, None, None).unwrap();
    let level = |name: &str| r.points.iter().find(|p| p.name == name).map(|p| p.level);
    assert_eq!(level("InL1"), Some(MemoryLevel::L1Cache));
    assert_eq!(level("InL2"), Some(MemoryLevel::L2Cache));
    assert_eq!(level("InDram"), Some(MemoryLevel::Dram));
}
