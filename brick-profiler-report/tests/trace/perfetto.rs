//! What Perfetto's details pane and counter tracks read from the Chrome
//! trace: `args` on slices (bricks, layers, steps, ops) and counter events
//! in the Trace Event Format (`ph: "C"`, `name`, `pid`, `tid`, `ts`, `args`
//! of numbers).

use profiler_report::chrome_trace_json;
use serde_json::Value;

use super::exports::{assert_valid_chrome, find};
use super::golden_profile;

fn trace() -> Value {
    serde_json::from_str(&chrome_trace_json(&golden_profile())).expect("valid JSON")
}

#[test]
fn brick_slices_carry_layer_direction_and_amounts() {
    let json = trace();
    let events = assert_valid_chrome(&json);
    let rms = find(&events, "X", "RmsNorm");
    assert_eq!(rms.len(), 2);
    let args = &rms[0]["args"];
    assert_eq!(args["layer"], 0);
    assert_eq!(args["direction"], "forward");
    assert_eq!(
        (
            args["elements"].as_u64(),
            args["bytes"].as_u64(),
            args["flops"].as_u64()
        ),
        (Some(4_096), Some(32_768), Some(65_536))
    );
    // Rates of this call: 65 536 FLOPs and 32 768 bytes over 10.25 µs.
    let rate = |key: &str| args[key].as_f64().expect(key);
    assert!((rate("gflop_per_s") - 65_536.0 / 10_250.0).abs() < 1e-9);
    assert!((rate("gb_per_s") - 32_768.0 / 10_250.0).abs() < 1e-9);
    assert!((rate("flop_per_byte") - 2.0).abs() < 1e-12);

    // A brick in a layer without amounts: its layer, no made-up zeros.
    let attention = &find(&events, "X", "Attention")[0]["args"];
    assert_eq!(
        (attention["layer"].as_u64(), attention["direction"].as_str()),
        (Some(0), Some("forward"))
    );
    for key in ["elements", "bytes", "flops", "gflop_per_s"] {
        assert!(attention.get(key).is_none(), "{key}: {attention}");
    }
    // A bare brick (no layer, no amounts) and a phase carry no args.
    let softmax = find(&events, "X", "Softmax");
    assert!(
        softmax.iter().all(|e| e.get("args").is_none()),
        "{softmax:?}"
    );
    assert!(
        find(&events, "X", "forward")
            .iter()
            .all(|e| e.get("args").is_none())
    );
    let layer = &find(&events, "X", "layer 0 fwd")[0]["args"];
    assert_eq!(
        (layer["layer"].as_u64(), layer["direction"].as_str()),
        (Some(0), Some("forward"))
    );
}

#[test]
fn steps_carry_their_index_and_tokens() {
    let json = trace();
    let events = assert_valid_chrome(&json);
    for (name, index, us) in [("step 0", 0, 100.0), ("step 1", 1, 50.0)] {
        let step = find(&events, "X", name);
        assert_eq!(step.len(), 1, "{name}");
        let args = &step[0]["args"];
        assert_eq!(args["step"].as_u64(), Some(index), "{name}");
        assert_eq!(args["tokens"].as_u64(), Some(512), "{name}");
        let tok_s = args["tokens_per_s"].as_f64().expect("tokens_per_s");
        assert!(
            (tok_s - 512.0 / (us * 1e-6)).abs() < 1e-6,
            "{name}: {tok_s}"
        );
    }
    // `#[trace_op]` entries keep their shapes and device.
    let matmul = &find(&events, "X", "matmul")[0]["args"];
    assert_eq!(matmul["output_shape"], serde_json::json!([2, 4]));
    assert_eq!(matmul["device"], "cuda:0");
}

#[test]
fn counters_are_counter_events_per_sample() {
    let json = trace();
    let events = assert_valid_chrome(&json);
    let loss = find(&events, "C", "loss");
    assert_eq!(loss.len(), 2);
    let values: Vec<(f64, f64, u64)> = loss
        .iter()
        .map(|e| {
            (
                e["ts"].as_f64().expect("ts"),
                e["args"]["value"].as_f64().expect("args.value"),
                e["tid"].as_u64().expect("tid"),
            )
        })
        .collect();
    assert_eq!(values, [(101.0, 2.5, 1), (151.0, 2.25, 1)]);
    // The Trace Event Format's counter: name, ph, ts, pid and args holding
    // numbers only (Perfetto makes one series per arg).
    for e in events.iter().filter(|e| e["ph"] == "C") {
        assert!(
            e["pid"].is_u64() && e["tid"].is_u64() && e["ts"].is_f64(),
            "{e}"
        );
        let args = e["args"].as_object().expect("args object");
        assert!(
            !args.is_empty() && args.values().all(Value::is_number),
            "{e}"
        );
    }
    // Names are JSON-escaped, not mangled; each counter sample is its own event.
    let queue = find(&events, "C", "queue <depth>");
    assert_eq!(queue.len(), 1);
    assert_eq!(
        (queue[0]["tid"].as_u64(), queue[0]["cat"].as_str()),
        (Some(2), Some("counter"))
    );
}

#[test]
fn counters_without_a_timeline_still_export() {
    let mut p = golden_profile();
    p.timeline = Default::default();
    let json: Value = serde_json::from_str(&chrome_trace_json(&p)).expect("valid JSON");
    let events = assert_valid_chrome(&json);
    assert_eq!(find(&events, "C", "loss").len(), 2);
    assert!(!events.iter().any(|e| e["cat"] == "brick"));
    // A value that is not finite (built in memory; files refuse it) is left out.
    p.counter_tracks[0].samples[0].value = f64::NAN;
    let json: Value = serde_json::from_str(&chrome_trace_json(&p)).expect("valid JSON");
    let events = assert_valid_chrome(&json);
    assert_eq!(find(&events, "C", "loss").len(), 1);
}
