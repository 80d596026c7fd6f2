//! The main job at a tiny size: the example really trains, and every file it
//! writes holds what the README promises.

// The example's own `main` is not called here.
#[allow(dead_code)]
#[path = "../examples/train_tiny.rs"]
mod train_tiny;

use clap::Parser;
use profiler::{Direction, Profile};

const STEPS: u64 = 24;
const WARMUP: u64 = 2;
const LAYERS: usize = 2;

fn fixture(name: &str) -> String {
    format!(
        "{}/tests/fixtures/pytorch/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn the_main_job_trains_and_writes_every_report() {
    let out = std::env::temp_dir().join(format!("train-tiny-{}", std::process::id()));
    let steps = STEPS.to_string();
    let warmup = WARMUP.to_string();
    let layers = LAYERS.to_string();
    let args = train_tiny::Args::parse_from([
        "train_tiny",
        "--steps",
        &steps,
        "--warmup",
        &warmup,
        "--layers",
        &layers,
        "--width",
        "16",
        "--heads",
        "2",
        "--seq",
        "8",
        "--batch",
        "4",
        "--lr",
        "0.01",
        "--log-every",
        "8",
        "--out",
        out.to_str().expect("utf-8 temp dir"),
        // Small probe arrays keep the test quick; the probe itself is
        // tested in brick-profiler-report.
        "--probe-array-mib",
        "8",
        // Probe, whatever this machine has saved.
        "--saved-ceilings",
        out.join("no-saved-ceilings.toml")
            .to_str()
            .expect("utf-8 temp dir"),
        "--baseline-pytorch",
        &fixture("tiny_transformer_cpu.trace.json"),
        "--mapping",
        &fixture("tiny_transformer.mapping.toml"),
    ]);
    let outcome = train_tiny::run(&args).expect("the run succeeds");

    // It learns.
    assert_eq!(outcome.losses.len(), STEPS as usize);
    assert!(
        outcome.eval_after < 0.8 * outcome.eval_before,
        "held-out loss {} -> {}",
        outcome.eval_before,
        outcome.eval_after
    );

    // profile.json holds every brick of the model with exact counts.
    let profile = Profile::read(out.join("profile.json")).expect("profile.json parses");
    let recorded = STEPS - WARMUP;
    assert_eq!(profile.steps.count, recorded);
    assert_eq!(profile.steps.skipped, WARMUP);
    let layers = LAYERS as u64;
    let per_layer = [
        "QkvProjection",
        "RopeEmbedding",
        "AttentionScore",
        "AttentionSoftmax",
        "AttentionOutput",
        "OutputProjection",
        "GateProjection",
        "UpProjection",
        "Activation",
        "DownProjection",
        "QkvProjectionBackward",
        "RopeBackward",
        "AttentionScoreBackward",
        "AttentionSoftmaxBackward",
        "AttentionOutputBackward",
        "OutputProjectionBackward",
        "GateProjectionBackward",
        "UpProjectionBackward",
        "ActivationBackward",
        "DownProjectionBackward",
    ];
    let per_step = [
        "Embedding",
        "EmbeddingBackward",
        "LmHead",
        "LmHeadBackward",
        "CrossEntropy",
        "CrossEntropyBackward",
    ];
    let count = |name: &str| profile.brick(name).map_or(0, |b| b.count);
    for name in per_layer {
        assert_eq!(count(name), recorded * layers, "{name}");
    }
    for name in per_step {
        assert_eq!(count(name), recorded, "{name}");
    }
    // Two norms per layer plus the final one; two residual adds per layer.
    assert_eq!(count("RmsNorm"), recorded * (2 * layers + 1));
    assert_eq!(count("RmsNormBackward"), recorded * (2 * layers + 1));
    assert_eq!(count("Residual"), recorded * 2 * layers);
    let expected_bricks = per_layer.len() + per_step.len() + 5; // + norms, residuals, Adam
    assert_eq!(
        profile.bricks.len(),
        expected_bricks,
        "{:?}",
        profile.bricks.iter().map(|b| &b.name).collect::<Vec<_>>()
    );
    assert!(
        profile
            .brick("QkvProjection")
            .is_some_and(|b| b.total_flops > 0 && b.total_bytes > 0)
    );
    for layer in 0..LAYERS {
        for direction in [Direction::Forward, Direction::Backward] {
            let l = profile
                .layer(layer as u32, direction)
                .expect("layer recorded");
            assert_eq!(l.scope_count, recorded);
            assert!(l.ops.iter().any(|op| op.name.starts_with("QkvProjection")));
        }
    }
    let phases: Vec<&str> = profile.phases.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        phases,
        profiler::profile::TRAINING_PHASES
            .iter()
            .filter(|p| !p.contains("h2d"))
            .copied()
            .collect::<Vec<_>>()
    );
    assert!(
        profile.wall_coverage().is_some_and(|c| c > 0.9),
        "{:?}",
        profile.wall_coverage()
    );
    assert_eq!(profile.counters.lost(), 0);

    // trace.json is a Chrome trace with the model's bricks, phases and layers.
    let trace: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("trace.json")).expect("trace.json"))
            .expect("valid JSON");
    let events = trace["traceEvents"].as_array().expect("traceEvents");
    let named = |name: &str| {
        events
            .iter()
            .filter(|e| e["ph"] == "X" && e["name"] == name)
            .count() as u64
    };
    assert_eq!(named("QkvProjection"), recorded * layers);
    assert_eq!(named("forward"), recorded);
    assert_eq!(named("layer 1 bwd"), recorded);
    assert!(
        events
            .iter()
            .all(|e| e["ph"] != "X" || (e["ts"].is_number() && e["dur"].is_number()))
    );
    // Perfetto's details pane: each brick slice carries its layer,
    // direction and amounts, each step its index and tokens.
    let qkv = events
        .iter()
        .find(|e| e["ph"] == "X" && e["name"] == "QkvProjectionBackward")
        .expect("a backward projection");
    let args = &qkv["args"];
    assert_eq!(args["direction"], "backward");
    assert!(args["layer"].as_u64().is_some_and(|l| l < layers));
    for amount in ["elements", "bytes", "flops", "gflop_per_s"] {
        assert!(
            args[amount].as_f64().is_some_and(|v| v > 0.0),
            "{amount}: {args}"
        );
    }
    let steps: Vec<u64> = events
        .iter()
        .filter(|e| e["ph"] == "X" && e["cat"] == "step")
        .map(|e| e["args"]["step"].as_u64().expect("step index"))
        .collect();
    assert_eq!(
        steps,
        (WARMUP..STEPS).collect::<Vec<_>>(),
        "warm-up steps left out"
    );
    // The loss and tok/s of every recorded step, as counter tracks too.
    for counter in ["loss", "tok/s"] {
        let samples = events
            .iter()
            .filter(|e| e["ph"] == "C" && e["name"] == counter)
            .filter(|e| e["args"]["value"].as_f64().is_some_and(f64::is_finite))
            .count() as u64;
        assert_eq!(samples, recorded, "{counter}");
        let track = profile
            .counter_tracks
            .iter()
            .find(|t| t.name == counter)
            .expect("counter track");
        assert_eq!(track.samples.len() as u64, recorded);
    }

    // The flamegraph and the HTML report.
    let svg = std::fs::read_to_string(out.join("flamegraph.svg")).expect("flamegraph.svg");
    assert!(svg.contains("<svg") && svg.contains("QkvProjection"));
    let html = std::fs::read_to_string(out.join("report.html")).expect("report.html");
    for section in [
        "scorecard",
        "steps",
        "layers",
        "hotspots",
        "latency",
        "flamegraph",
        "bricks",
        "counters",
        "memory",
        "roofline",
        "parity",
        "glossary",
    ] {
        assert!(
            html.contains(&format!("<section id=\"{section}\"")),
            "section {section}"
        );
    }
    assert!(html.contains("DownProjectionBackward"));
    assert!(
        html.contains("class=\"chart line-chart memory-chart\"")
            && html.contains("Highest host peak"),
        "the tracking allocator's live bytes and peak step are shown"
    );
    assert!(html.contains("<a href=\"trace.json\"><code>trace.json</code></a>"));
    assert_eq!(
        html.matches("class=\"chart line-chart counter-chart\"")
            .count(),
        2
    );
    assert!(
        html.contains(">warm-up</text>"),
        "the warm-up steps are named"
    );
    let baseline =
        profiler_report::scorecard::TrainingScorecard::load_baseline(out.join("scorecard.json"))
            .expect("scorecard.json is a baseline");
    assert_eq!(baseline.steps, recorded as usize);

    // The ceilings were measured and kept; the roofline and parity reports
    // place the model's bricks against them and against PyTorch.
    let ceilings = profile
        .run
        .hardware
        .as_ref()
        .expect("ceilings in the profile");
    let measured = |f: Option<&profiler::hardware::Figure>| {
        f.is_some_and(|f| f.value > 0.0 && f.source.measurement().is_some())
    };
    assert!(measured(
        ceilings.memory(profiler::hardware::MemoryLevel::Dram)
    ));
    assert!(measured(
        ceilings.compute(profiler::hardware::Precision::Fp32)
    ));
    let roofline = std::fs::read_to_string(out.join("roofline.svg")).expect("roofline.svg");
    // Labelled with the level of its roof when this machine's caches are known.
    assert!(
        roofline.contains(">QkvProjectionBackward</text>")
            || roofline.contains(">QkvProjectionBackward (")
    );
    // No brick is above the roof it is judged against unless a finding
    // names it with the annotation to check.
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("roofline.json")).expect("roofline.json"),
    )
    .expect("valid JSON");
    let notes = json["notes"].to_string();
    for point in json["points"].as_array().expect("points") {
        if point["above_roof"] == true {
            let name = point["name"].as_str().expect("name");
            assert!(
                notes.contains(name),
                "{name} above its roof, unnamed: {notes}"
            );
            assert!(
                point["check"].is_string() || json["by_working_set"] == false,
                "{point}"
            );
        }
    }
    let parity: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("parity.json")).expect("parity.json"),
    )
    .expect("valid JSON");
    assert_eq!(parity["baseline"], "pytorch");
    assert!(
        parity["all_gaps"].as_array().is_some_and(|g| g.len() > 20),
        "{parity}"
    );
    let markdown = std::fs::read_to_string(out.join("parity.md")).expect("parity.md");
    assert!(markdown.starts_with("## Parity: train_tiny vs pytorch\n"));
    // Eleven reports and four Parquet tables (bricks, steps, layers, counters).
    assert_eq!(outcome.files.len(), 15, "{:?}", outcome.files);
    for table in ["bricks", "steps", "layers", "counters"] {
        let name = format!("{table}.parquet");
        assert!(
            outcome.files.iter().any(|f| f.ends_with(&name)),
            "{name} in {:?}",
            outcome.files
        );
    }
    let dot = std::fs::read_to_string(out.join("graph.dot")).expect("graph.dot");
    assert!(dot.contains("digraph execution_graph {") && dot.contains("critical path:"));

    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn bad_sizes_are_errors_not_panics() {
    let args = train_tiny::Args::parse_from(["train_tiny", "--width", "30", "--heads", "4"]);
    let err = train_tiny::run(&args).expect_err("30 is not a multiple of 4");
    assert!(
        err.to_string()
            .contains("n_heads (4) must divide d_model (30)"),
        "{err}"
    );
    let args = train_tiny::Args::parse_from(["train_tiny", "--steps", "3", "--warmup", "3"]);
    assert!(train_tiny::run(&args).is_err());
    // A baseline that cannot be read is an error naming the file (read
    // before training, so it comes at once).
    let args =
        train_tiny::Args::parse_from(["train_tiny", "--baseline-pytorch", "no/such/trace.json"]);
    let err = train_tiny::run(&args).expect_err("missing baseline");
    assert!(err.to_string().contains("no/such/trace.json"), "{err}");
}
