//! A rank's Chrome trace in Kineto's conventions: `distributedInfo` and
//! `schemaVersion` before `traceEvents`, `ProfilerStep#N` slices, and with a
//! device timer each brick's kernel on a stream track linked by
//! `correlation` and an `ac2g` flow.

use profiler_report::chrome_trace_json;
use serde_json::Value;

use super::golden_profile;

fn events<'v>(json: &'v Value, pred: impl Fn(&Value) -> bool + 'v) -> Vec<&'v Value> {
    json["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| pred(e))
        .collect()
}

#[test]
fn a_rank_trace_carries_distributed_info_first_and_profiler_steps() {
    let mut p = golden_profile();
    p.run.rank = Some(2);
    p.run.world_size = Some(4);
    p.run.run_id = "job-7".into();
    let text = chrome_trace_json(&p);
    // Holistic Trace Analysis finds the rank by scanning lines for
    // `"rank": N` (with a space) and reads the keys before `traceEvents`.
    let first = text.lines().next().unwrap();
    assert!(
        first.starts_with("{\"distributedInfo\": {\"rank\": 2, \"world_size\": 4"),
        "{first}"
    );
    assert!(text.find("\"schemaVersion\"").unwrap() < text.find("\"traceEvents\"").unwrap());
    let json: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["distributedInfo"]["world_size"], 4);
    assert_eq!(json["otherData"]["run_id"], "job-7");
    assert_eq!(json["otherData"]["rank"], 2);
    assert!(json.get("deviceProperties").is_none(), "no device known");
    let steps = events(&json, |e| e["cat"] == "user_annotation");
    let names: Vec<&str> = steps.iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["ProfilerStep#0", "ProfilerStep#1"]);
    // Each encloses its step: same span, written first.
    let step0 = events(&json, |e| e["name"] == "step 0")[0];
    assert_eq!(
        (steps[0]["ts"].clone(), steps[0]["dur"].clone()),
        (step0["ts"].clone(), step0["dur"].clone())
    );
    assert!(text.find("ProfilerStep#0").unwrap() < text.find("\"step 0\"").unwrap());
    assert!(
        events(&json, |e| e["cat"] == "kernel").is_empty(),
        "no device timer"
    );
}

#[test]
fn device_timed_bricks_get_kernels_linked_by_correlation_and_flows() {
    let mut p = golden_profile();
    p.run.device_timer = true;
    let json: Value = serde_json::from_str(&chrome_trace_json(&p)).unwrap();
    assert_eq!(json["deviceProperties"][0]["id"], 0);
    let bricks = events(&json, |e| e["cat"] == "brick");
    let kernels = events(&json, |e| e["cat"] == "kernel");
    assert_eq!(kernels.len(), bricks.len());
    assert!(!kernels.is_empty());
    for brick in &bricks {
        let id = &brick["args"]["correlation"];
        assert!(id.as_u64().is_some(), "{brick}");
        let kernel = kernels
            .iter()
            .find(|k| &k["args"]["correlation"] == id)
            .unwrap();
        assert_eq!(
            (&kernel["name"], &kernel["ts"], &kernel["dur"]),
            (&brick["name"], &brick["ts"], &brick["dur"])
        );
        assert_eq!(kernel["args"]["stream"], 7);
        assert!(
            kernel["args"]["start"]
                .as_str()
                .is_some_and(|s| s.contains("launch on the host")),
            "{kernel}"
        );
        assert_eq!(kernel["tid"], 2_000_007);
        let flows = events(&json, |e| e["cat"] == "ac2g" && &e["id"] == id);
        let phases: Vec<&str> = flows.iter().map(|f| f["ph"].as_str().unwrap()).collect();
        assert_eq!(phases, ["s", "f"]);
        assert_eq!(
            (&flows[0]["tid"], &flows[1]["tid"]),
            (&brick["tid"], &kernel["tid"])
        );
        assert_eq!(flows[1]["bp"], "e");
    }
    let stream_named = events(&json, |e| {
        e["name"] == "thread_name" && e["tid"] == 2_000_007
    });
    assert_eq!(stream_named[0]["args"]["name"], "stream 7 (device 0)");
}

/// A captured kernel launched from inside the profile's first brick, on
/// device 0, and a copy on device 1 whose launch was not captured.
fn with_captured_kernels() -> profiler_core::Profile {
    use profiler_core::profile::{ActivityKind, DeviceKernels, KernelEvent};
    let mut p = golden_profile();
    p.run.device_timer = true;
    let thread = &p.timeline.threads[0];
    let brick = thread.events[0];
    let kernel = KernelEvent {
        name: "void gemm<float>(float*)".into(),
        kind: ActivityKind::Kernel,
        device: 0,
        stream: 13,
        correlation: 41,
        start_ns: brick.start_ns + 5_000,
        dur_ns: 2_000,
        brick: Some("launching brick".into()),
        thread: Some(thread.thread),
        launch_ns: Some(brick.start_ns + 1),
        grid: [64, 2, 1],
        block: [256, 1, 1],
    };
    let copy = KernelEvent {
        name: "Memcpy HtoD (Pageable -> Device)".into(),
        kind: ActivityKind::Memcpy,
        device: 1,
        stream: 7,
        correlation: 42,
        start_ns: brick.start_ns + 9_000,
        dur_ns: 500,
        brick: None,
        thread: None,
        launch_ns: None,
        grid: [0; 3],
        block: [0; 3],
    };
    p.device_kernels = Some(DeviceKernels {
        source: "cupti".into(),
        events: vec![kernel, copy],
        ..DeviceKernels::default()
    });
    p
}

#[test]
fn captured_kernels_sit_on_their_stream_tracks_with_flows_from_the_launch() {
    let p = with_captured_kernels();
    let json: Value = serde_json::from_str(&chrome_trace_json(&p)).unwrap();
    let kernels = events(&json, |e| e["cat"] == "kernel");
    assert_eq!(
        kernels.len(),
        1,
        "captured kernels replace one slice per brick"
    );
    let kernel = kernels[0];
    assert_eq!(kernel["name"], "void gemm<float>(float*)");
    assert_eq!(kernel["tid"], 2_000_013);
    assert_eq!(kernel["dur"], 2.0, "µs");
    assert_eq!(kernel["args"]["grid"], serde_json::json!([64, 2, 1]));
    assert_eq!(kernel["args"]["stream"], 13);
    let id = &kernel["args"]["correlation"];
    let flows = events(&json, |e| e["cat"] == "ac2g" && &e["id"] == id);
    let phases: Vec<&str> = flows.iter().map(|f| f["ph"].as_str().unwrap()).collect();
    assert_eq!(phases, ["s", "f"]);
    let thread = u64::from(p.timeline.threads[0].thread);
    assert_eq!(flows[0]["tid"], thread, "from the launching thread");
    assert_eq!(
        (&flows[1]["tid"], &flows[1]["ts"]),
        (&kernel["tid"], &kernel["ts"])
    );
    let copies = events(&json, |e| e["cat"] == "gpu_memcpy");
    assert_eq!(copies.len(), 1);
    assert!(
        copies[0]["args"].get("grid").is_none(),
        "copies have no grid"
    );
    let copy_id = &copies[0]["args"]["correlation"];
    assert!(
        events(&json, |e| e["cat"] == "ac2g" && &e["id"] == copy_id).is_empty(),
        "no flow without a captured launch"
    );
    let named = |tid: u64| {
        events(&json, move |e| {
            e["name"] == "thread_name" && e["tid"] == tid
        })[0]["args"]["name"]
            .clone()
    };
    assert_eq!(named(2_000_013), "stream 13 (device 0)");
    assert_eq!(named(2_000_000 + (1 << 20) + 7), "stream 7 (device 1)");
}
