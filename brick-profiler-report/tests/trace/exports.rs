//! Exports of the golden and a live profile: Chrome trace JSON, folded
//! stacks, flamegraph SVG and speedscope JSON.

use std::collections::BTreeMap;

use profiler_core::{BrickCategory, BrickStats, Profile};
use profiler_report::{
    ExportError, chrome_trace_json, flamegraph_svg, folded_stacks, speedscope_json,
    write_chrome_trace,
};
use serde_json::Value;

use super::{golden, golden_profile};

/// Tid offset of a thread's `#[trace_op]` track, as documented on
/// `chrome_trace_json`.
const OPS_TID_BASE: u64 = 1_000_000;

// ---------------------------------------------------------------- chrome

/// `(start ns, end ns, name)` of an `X` event.
type Span<'a> = (i64, i64, &'a str);

fn ns(v: &Value) -> i64 {
    (v.as_f64().expect("a number") * 1000.0).round() as i64
}

/// Checks required fields, global ts order and, per (pid, tid), that `X`
/// events nest: sorted by ts (longer first), each one either ends before
/// the next begins or contains it.
pub(crate) fn assert_valid_chrome(json: &Value) -> Vec<&Value> {
    assert_eq!(json["displayTimeUnit"], "ns");
    let events = json["traceEvents"].as_array().expect("traceEvents array");
    let mut tracks: BTreeMap<(i64, i64), Vec<Span<'_>>> = BTreeMap::new();
    let mut last_ts = i64::MIN;
    for e in events {
        let ph = e["ph"].as_str().expect("ph");
        assert!(
            e["name"].is_string() && e["pid"].is_i64() && e["tid"].is_i64(),
            "{e}"
        );
        match ph {
            "M" => assert!(e["args"]["name"].is_string() || e["args"]["sort_index"].is_u64()),
            "i" => assert_eq!((ns(&e["ts"]), e["s"].as_str()), (0, Some("p"))),
            "X" | "C" => {
                let ts = ns(&e["ts"]);
                assert!(ts >= last_ts, "events sorted by ts: {e}");
                last_ts = ts;
                if ph == "X" {
                    let dur = ns(&e["dur"]);
                    assert!(dur >= 0 && e["cat"].is_string(), "{e}");
                    let key = (
                        e["pid"].as_i64().unwrap_or(-1),
                        e["tid"].as_i64().unwrap_or(-1),
                    );
                    let name = e["name"].as_str().unwrap_or_default();
                    tracks.entry(key).or_default().push((ts, ts + dur, name));
                }
            }
            other => panic!("unexpected ph {other}"),
        }
    }
    for (track, mut spans) in tracks {
        spans.sort_by_key(|&(s, e, _)| (s, std::cmp::Reverse(e)));
        for pair in spans.windows(2) {
            let ((s0, e0, n0), (s1, e1, n1)) = (pair[0], pair[1]);
            assert!(
                e0 <= s1 || (s0 <= s1 && e1 <= e0),
                "{track:?}: {n0} and {n1} overlap"
            );
        }
        let mut open: Vec<(i64, &str)> = Vec::new();
        for (start, end, name) in spans {
            while open
                .last()
                .is_some_and(|&(parent_end, _)| parent_end <= start)
            {
                open.pop();
            }
            if let Some(&(parent_end, parent)) = open.last() {
                assert!(end <= parent_end, "{track:?}: {name} outlives {parent}");
            }
            open.push((end, name));
        }
    }
    events.iter().collect()
}

pub(crate) fn find<'a>(events: &[&'a Value], ph: &str, name: &str) -> Vec<&'a Value> {
    events
        .iter()
        .copied()
        .filter(|e| e["ph"] == ph && e["name"] == name)
        .collect()
}

#[test]
fn chrome_trace_of_the_golden_profile() {
    let text = chrome_trace_json(&golden_profile());
    golden("chrome_trace.json", &text);
    let json: Value = serde_json::from_str(&text).expect("valid JSON");
    let events = assert_valid_chrome(&json);
    let other = &json["otherData"];
    assert_eq!(
        (other["run"].as_str(), other["pid"].as_u64()),
        (Some("golden"), Some(4242))
    );
    assert_eq!(
        (
            other["timeline_dropped"].as_u64(),
            other["trace_entries_dropped"].as_u64()
        ),
        (Some(3), Some(0))
    );
    let warnings = find(
        &events,
        "i",
        "warning: 3 timeline events dropped: trace buffer or process budget full (raise Config::trace_capacity / trace_process_capacity)",
    );
    assert_eq!(warnings.len(), 1);
    assert_eq!(
        find(&events, "M", "process_name")[0]["args"]["name"],
        "golden"
    );
    let thread_names: Vec<(u64, &str)> = find(&events, "M", "thread_name")
        .iter()
        .map(|e| {
            (
                e["tid"].as_u64().unwrap_or(0),
                e["args"]["name"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        thread_names,
        [
            (1, "main (thread 1)"),
            (2, "thread 2"),
            (OPS_TID_BASE + 1, "main (thread 1) ops"),
            (OPS_TID_BASE + 2, "thread 2 ops"),
        ]
    );
    // The overshooting brick is clamped to its layer's end (52 µs).
    let attention = find(&events, "X", "Attention");
    assert_eq!(
        (ns(&attention[0]["ts"]), ns(&attention[0]["dur"])),
        (13_000, 39_000)
    );
    assert_eq!(attention[0]["cat"], "brick");
    let rms = find(&events, "X", "RmsNorm");
    assert_eq!(
        (rms[0]["ts"].as_f64(), rms[0]["dur"].as_f64()),
        (Some(2.5), Some(10.25)),
        "ns precision"
    );
    let cats: std::collections::BTreeSet<&str> =
        events.iter().filter_map(|e| e["cat"].as_str()).collect();
    assert_eq!(
        cats.into_iter().collect::<Vec<_>>(),
        [
            "brick", "counter", "layer", "memory", "op", "phase", "step", "warning"
        ]
    );
    let matmul = find(&events, "X", "matmul");
    assert_eq!(
        (matmul.len(), matmul[0]["tid"].as_u64()),
        (2, Some(OPS_TID_BASE + 1))
    );
    assert_eq!(
        matmul[0]["args"]["input_shapes"],
        serde_json::json!([[2, 3], [3, 4]])
    );
    assert_eq!(
        (
            matmul[0]["args"]["device"].as_str(),
            matmul[0]["args"]["memory_bytes"].as_u64()
        ),
        (Some("cuda:0"), Some(64))
    );
    let mut output = find(&events, "C", "output bytes, thread 1");
    assert_eq!(output.len(), 3);
    output.extend(find(&events, "C", "output bytes, thread 2"));
    assert_eq!(output.len(), 4, "one series per thread");
    assert_eq!(
        (ns(&output[0]["ts"]), output[0]["args"]["bytes"].as_u64()),
        (15_500, Some(64))
    );
}

#[test]
fn chrome_trace_without_drops_has_no_warning_and_files_write_atomically() {
    let mut p = golden_profile();
    p.counters.timeline_dropped = 0;
    p.timeline.dropped = 0;
    let json: Value = serde_json::from_str(&chrome_trace_json(&p)).expect("valid JSON");
    assert!(assert_valid_chrome(&json).iter().all(|e| e["ph"] != "i"));
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("trace.json");
    write_chrome_trace(&p, &path).expect("written");
    assert_eq!(
        std::fs::read_to_string(&path).ok(),
        Some(chrome_trace_json(&p))
    );
    let err = write_chrome_trace(&p, dir.path().join("missing/trace.json")).expect_err("no dir");
    assert!(
        matches!(err, ExportError::Write { .. }) && err.to_string().contains("missing"),
        "{err}"
    );
}

#[test]
fn a_trace_without_a_timeline_says_trace_mode_was_off() {
    // Bricks were recorded, but without trace mode: no timeline events.
    let mut p = Profile::empty();
    p.bricks = vec![BrickStats {
        count: 3,
        total_ns: 9_000,
        ..BrickStats::new("RmsNorm", BrickCategory::Norm)
    }];
    let json: Value = serde_json::from_str(&chrome_trace_json(&p)).expect("valid JSON");
    let events = assert_valid_chrome(&json);
    let warning = events
        .iter()
        .find(|e| e["ph"] == "i" && e["cat"] == "warning")
        .unwrap_or_else(|| panic!("no warning event: {json}"));
    let name = warning["name"].as_str().expect("name");
    assert!(
        name.starts_with(
            "warning: no timeline events: trace mode was off, so this trace has no events"
        ) && name.contains("profiler::Config::new().trace_mode(true)"),
        "{name}"
    );
    assert_eq!(json["otherData"]["warnings"][0], name["warning: ".len()..]);

    let dir = tempfile::tempdir().expect("temp dir");
    let written = write_chrome_trace(&p, dir.path().join("trace.json")).expect("written");
    assert_eq!(written.events, 0);
    assert_eq!(written.warnings, [&name["warning: ".len()..]]);

    // With a timeline there is nothing to warn about.
    let golden = golden_profile();
    let written = write_chrome_trace(&golden, dir.path().join("golden.json")).expect("written");
    assert!(
        written.warnings.is_empty() && written.events > 0,
        "{written:?}"
    );
    let text = chrome_trace_json(&golden);
    // The file is streamed event by event: the same bytes as the text.
    let file = std::fs::read_to_string(dir.path().join("golden.json")).expect("read back");
    assert_eq!(file, text);
    let json: Value = serde_json::from_str(&text).expect("valid JSON");
    assert!(json["otherData"].get("warnings").is_none());
}

#[test]
fn a_flat_flamegraph_says_it_is_flat() {
    let flat = flamegraph_svg("RmsNorm 30\nMatMul 60\n", "flat").expect("svg");
    assert!(
        flat.contains("flat: every stack is one frame, so there is no nesting to show"),
        "subtitle"
    );
    let nested = flamegraph_svg(&folded_stacks(&golden_profile()), "nested").expect("svg");
    assert!(!nested.contains("flat: every stack"));
}

/// The only test that drives the global profiler: real scopes on two threads.
#[test]
fn live_trace_mode_profile_exports_nest() {
    use profiler_core::{
        BrickId, Direction,
        compat::{start_brick, stop_brick},
    };
    profiler_core::reset();
    profiler_core::Config::new().trace_mode(true).apply();
    profiler_core::enable();
    let work = || {
        for _ in 0..3 {
            let _step = profiler_core::step(16);
            let _phase = profiler_core::phase("forward");
            for layer in 0..2 {
                let _layer = profiler_core::layer(layer, Direction::Forward);
                let outer = start_brick(BrickId::QkvProjection);
                let inner = start_brick(BrickId::RmsNorm);
                std::hint::black_box((0..200).sum::<u64>());
                stop_brick(inner, 1);
                stop_brick(outer, 1);
            }
        }
    };
    std::thread::spawn(work).join().expect("worker");
    work();
    profiler_core::Config::new().trace_mode(false).apply();
    let profile = profiler_core::snapshot();
    profiler_core::disable();
    assert!(profile.timeline.threads.len() >= 2);
    let json: Value = serde_json::from_str(&chrome_trace_json(&profile)).expect("valid JSON");
    let events = assert_valid_chrome(&json);
    assert_eq!(
        events
            .iter()
            .filter(|e| e["ph"] == "X" && e["cat"] == "step")
            .count(),
        6
    );
    let folded = folded_stacks(&profile);
    assert!(
        folded.contains("step;forward;layer 1 fwd;QkvProjection;RmsNorm "),
        "{folded}"
    );
    let speedscope: Value = serde_json::from_str(&speedscope_json(&profile)).expect("valid JSON");
    assert!(
        speedscope["profiles"]
            .as_array()
            .is_some_and(|p| p.len() >= 2)
    );
}

// ---------------------------------------------------------------- folded, flamegraph, speedscope

#[test]
fn folded_stacks_follow_the_real_nesting_with_self_time() {
    let folded = folded_stacks(&golden_profile());
    golden("folded_stacks.txt", &folded);
    let lines: Vec<&str> = folded.lines().collect();
    assert_eq!(
        lines,
        [
            "Matmul <&> 4",
            "Softmax 3",
            "step 20",
            "step;forward 20",
            "step;forward;layer 0 fwd 21",
            "step;forward;layer 0 fwd;Attention 34",
            "step;forward;layer 0 fwd;Attention;Softmax 5",
            "step;forward;layer 0 fwd;RmsNorm 20",
            "step;opt 30",
        ]
    );
    assert!(folded.ends_with('\n'));
}

#[test]
fn folded_stacks_fall_back_to_brick_totals_without_a_timeline() {
    let mut p = Profile::empty();
    assert_eq!(folded_stacks(&p), "");
    let brick = |name: &str, total_ns| BrickStats {
        total_ns,
        ..BrickStats::new(name, BrickCategory::Norm)
    };
    p.bricks = vec![
        brick("RmsNorm", 2_600),
        brick("Idle", 400),
        brick("a;b", 1_000),
    ];
    assert_eq!(
        folded_stacks(&p),
        "RmsNorm 3\na_b 1\n",
        "0 µs dropped, `;` replaced"
    );
}

#[test]
fn flamegraph_svg_draws_and_escapes_frames() {
    let svg = flamegraph_svg(&folded_stacks(&golden_profile()), "Run <golden> & co").expect("svg");
    assert!(svg.starts_with("<?xml") && svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains("layer 0 fwd") && svg.contains("RmsNorm") && svg.contains("µs"));
    assert!(svg.contains("Matmul &lt;&amp;&gt;"), "frame name escaped");
    assert!(!svg.contains("Matmul <&>") && !svg.contains("Run <golden>"));
    // Labels cut to fit keep their start when the viewer's script redraws
    // them ("layer 0 f.."), never their end ("..fwd").
    assert!(
        svg.contains("var truncate_text_right = true;"),
        "truncation direction"
    );
    assert_eq!(
        flamegraph_svg(&folded_stacks(&golden_profile()), "Run <golden> & co").ok(),
        Some(svg),
        "deterministic"
    );
    assert!(matches!(
        flamegraph_svg("", "empty"),
        Err(ExportError::EmptyFlamegraph)
    ));
}

#[test]
fn speedscope_profiles_are_evented_and_balanced() {
    let text = speedscope_json(&golden_profile());
    golden("speedscope.json", &text);
    let json: Value = serde_json::from_str(&text).expect("valid JSON");
    assert_eq!(
        json["$schema"],
        "https://www.speedscope.app/file-format-schema.json"
    );
    let frames: Vec<&str> = json["shared"]["frames"]
        .as_array()
        .expect("frames")
        .iter()
        .filter_map(|f| f["name"].as_str())
        .collect();
    assert_eq!(
        frames,
        [
            "step",
            "forward",
            "layer 0 fwd",
            "RmsNorm",
            "Attention",
            "Softmax",
            "opt",
            "Matmul <&>"
        ]
    );
    let profiles = json["profiles"].as_array().expect("profiles");
    assert_eq!(
        profiles
            .iter()
            .map(|p| p["name"].as_str())
            .collect::<Vec<_>>(),
        [Some("main"), Some("thread 2")]
    );
    for p in profiles {
        assert_eq!(
            (p["type"].as_str(), p["unit"].as_str()),
            (Some("evented"), Some("nanoseconds"))
        );
        let mut open = Vec::new();
        let mut at = p["startValue"].as_u64().expect("start");
        for e in p["events"].as_array().expect("events") {
            let t = e["at"].as_u64().expect("at");
            assert!(t >= at, "events in time order");
            at = t;
            match e["type"].as_str() {
                Some("O") => open.push(e["frame"].clone()),
                Some("C") => assert_eq!(open.pop().as_ref(), Some(&e["frame"]), "closed LIFO"),
                other => panic!("event type {other:?}"),
            }
        }
        assert!(open.is_empty() && at <= p["endValue"].as_u64().expect("end"));
    }
    // Attention closes at its clamped end, 52 µs.
    let events = profiles[0]["events"].as_array().expect("events");
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "C" && e["frame"] == 4 && e["at"] == 52_000)
    );
}

#[test]
fn tracked_memory_becomes_counter_tracks_summed_over_threads() {
    use profiler_core::alloc::{MemoryKind, MemoryProfile, MemorySample};
    let sample = |t_ns, thread, kind, live_bytes| MemorySample {
        t_ns,
        thread,
        kind,
        live_bytes,
    };
    let mut p = Profile::empty();
    p.memory = Some(MemoryProfile {
        track: vec![
            sample(1_000, 1, MemoryKind::Host, 4096),
            sample(2_000, 2, MemoryKind::Host, 1024),
            sample(3_000, 1, MemoryKind::Host, 0),
            sample(2_500, 1, MemoryKind::Device, 1 << 20),
        ],
        ..MemoryProfile::default()
    });
    let json: Value = serde_json::from_str(&chrome_trace_json(&p)).expect("valid JSON");
    let events = assert_valid_chrome(&json);
    let counter = |name: &str| -> Vec<(i64, f64)> {
        events
            .iter()
            .filter(|e| e["ph"] == "C" && e["name"] == name)
            .map(|e| (ns(&e["ts"]), e["args"]["value"].as_f64().expect("value")))
            .collect()
    };
    assert_eq!(
        counter("live host bytes"),
        [(1_000, 4096.0), (2_000, 5120.0), (3_000, 1024.0)]
    );
    assert_eq!(counter("live device bytes"), [(2_500, 1_048_576.0)]);
    assert!(
        events
            .iter()
            .filter(|e| e["ph"] == "C")
            .all(|e| e["cat"] == "memory")
    );
}
