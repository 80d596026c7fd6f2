//! The main job with a CPU hog beside it: the grade is never taken against
//! ceilings the hog lowered. Probing while the hog runs withholds the grade
//! and says the machine was busy; with ceilings saved on a quiet machine,
//! the run grades against them and says where they came from.

// The example's own `main` is not called here.
#[allow(dead_code)]
#[path = "../examples/train_tiny.rs"]
mod train_tiny;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::Parser;
use profiler::hardware::{Figure, Hardware, Measurement, MemoryLevel, Precision, Source};
use profiler_report::hardware::save_measured;
use profiler_report::scorecard::{TrainingScorecard, Withheld};

/// A busy loop on its own thread until dropped.
struct Hog(Arc<AtomicBool>, Option<std::thread::JoinHandle<()>>);

impl Hog {
    fn start() -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let handle = std::thread::spawn(move || {
            let mut x = 0u64;
            while !flag.load(Ordering::Relaxed) {
                x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1));
            }
        });
        Self(stop, Some(handle))
    }
}

impl Drop for Hog {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
        if let Some(h) = self.1.take() {
            h.join().ok();
        }
    }
}

fn run(out: &std::path::Path, saved: &std::path::Path) -> TrainingScorecard {
    let args = train_tiny::Args::parse_from([
        "train_tiny",
        "--steps",
        "12",
        "--warmup",
        "2",
        "--layers",
        "1",
        "--width",
        "16",
        "--heads",
        "2",
        "--seq",
        "8",
        "--batch",
        "2",
        "--log-every",
        "12",
        "--probe-array-mib",
        "8",
        "--saved-ceilings",
        saved.to_str().expect("utf-8 temp dir"),
        "--out",
        out.to_str().expect("utf-8 temp dir"),
    ]);
    train_tiny::run(&args).expect("the run succeeds");
    TrainingScorecard::load_baseline(out.join("scorecard.json")).expect("scorecard.json")
}

#[test]
#[cfg(target_os = "linux")]
fn a_cpu_hog_withholds_the_grade_or_saved_ceilings_grade_the_run() {
    let dir = std::env::temp_dir().join(format!("train-tiny-busy-{}", std::process::id()));
    let saved = dir.join("ceilings.toml");
    let hog = Hog::start();

    // Probing beside the hog: the probe sees another runnable task at every
    // sample, so the grade is withheld with that reason.
    let busy = run(&dir.join("busy"), &saved);
    assert_eq!(busy.grade, None);
    match &busy.grade_withheld {
        Some(Withheld::BusyMachine { why }) => assert!(why.contains("runnable"), "{why}"),
        other => panic!("grade withheld for {other:?}, not a busy machine"),
    }
    assert!(busy.to_string().contains("machine was busy"), "{busy}");
    let profile = profiler::Profile::read(dir.join("busy/profile.json")).expect("profile.json");
    let hw = profile.run.hardware.expect("ceilings kept");
    assert!(hw.busy.is_some_and(|why| why.contains("runnable")));
    assert!(hw.probe.is_some(), "how the probes ran is kept");
    let roofline = std::fs::read_to_string(dir.join("busy/roofline.json")).expect("roofline.json");
    assert!(
        roofline.contains("busy machine"),
        "the roofline says so too"
    );

    // Ceilings saved on a quiet machine: the hog changes nothing they say.
    let measured = || Source::Measured {
        how: Some(Box::new(Measurement::default())),
    };
    let mut quiet = Hardware::new("quiet box");
    quiet
        .set_memory(MemoryLevel::Dram, Figure::new(29.4, measured()))
        .expect("a DRAM bandwidth");
    quiet
        .set_compute(Precision::Fp32, Figure::new(0.475, measured()))
        .expect("an FP32 peak");
    save_measured(&quiet, &saved).expect("saved");
    profiler::reset();
    let graded = run(&dir.join("saved"), &saved);
    assert!(graded.grade.is_some(), "{graded}");
    assert_eq!(graded.grade_withheld, None);
    assert_eq!(graded.peak_bw_gb_s, Some(29.4));
    assert!(
        graded
            .hardware
            .as_deref()
            .is_some_and(|h| h.contains("(saved)")),
        "{:?}",
        graded.hardware
    );
    drop(hog);
    std::fs::remove_dir_all(&dir).ok();
}
