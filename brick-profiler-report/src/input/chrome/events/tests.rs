//! The streamed reader's records, skipped events, errors and bounds.

use super::*;

#[test]
fn complete_events_and_launch_flows_are_kept_and_the_rest_skipped() {
    let text = r#"{"traceEvents": [
        {"ph": "X", "cat": "user_annotation", "name": "Outer", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
        {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 4},
        {"ph": "i", "name": "instant", "pid": 1, "tid": 1, "ts": 3},
        {"ph": "X", "name": "no duration", "pid": 1, "tid": 1, "ts": 3},
        {"ph": "X", "cat": "python_function", "name": "f", "pid": 1, "tid": 1, "ts": 3, "dur": 1},
        {"ph": "s", "cat": "ac2g", "name": "launch", "id": 7, "pid": 1, "tid": 1, "ts": 2},
        {"ph": "X", "cat": "cpu_op", "name": "bad", "pid": 1, "tid": 1, "ts": -1, "dur": 1}
    ], "tokens_per_step": "256"}"#;
    // One record per run: every record is spilled and merged back.
    let trace = ChromeTrace::from_reader_with(text.as_bytes(), "t.json", 1).unwrap();
    assert_eq!(trace.tokens_per_step, Some(256.0));
    assert_eq!((trace.event_count(), trace.dropped_count()), (2, 1));
    assert_eq!(trace.dropped(), [(6, "bad".to_owned())]);
    let records: Vec<Record> = trace.records.iter().unwrap().map(Result::unwrap).collect();
    let order: Vec<(u64, bool)> = records.iter().map(|r| (r.index, r.flow)).collect();
    assert_eq!(order, [(0, false), (1, false), (5, true)], "by start");
    assert_eq!(trace.spilled_runs(), 2);
}

/// A trace of `names` events, each with a name of its own, on `threads`
/// threads in turn; event `i` lasts `i` µs.
fn distinct_names(names: usize, threads: usize) -> String {
    let events: Vec<String> = (0..names)
        .map(|i| {
            format!(
                r#"{{"ph": "X", "cat": "kernel", "name": "kernel_{i:06}_{}", "pid": 0, "tid": {}, "ts": {i}, "dur": {i}, "args": {{"Input Dims": [[{i}]]}}}}"#,
                "x".repeat(100),
                i % threads
            )
        })
        .collect();
    format!("{{\"traceEvents\": [{}]}}", events.join(","))
}

#[test]
fn distinct_names_past_the_bound_are_lumped_and_counted() {
    use crate::input::chrome::texts::TEXT_OVERHEAD;
    let text = distinct_names(5000, 4);
    let limits = TextLimits {
        bytes: 64 << 10,
        threads: 16,
    };
    let trace =
        ChromeTrace::from_reader_within(text.as_bytes(), "t.json", 1 << 10, limits).unwrap();
    // The table holds what the bound allows, whatever the trace's names.
    let held = trace.texts.len();
    assert!(held <= (64 << 10) / TEXT_OVERHEAD + 4 + 1, "{held} texts");
    let names_held = trace
        .texts
        .iter()
        .filter(|t| t.starts_with("kernel_"))
        .count();
    assert!(names_held > 100, "{names_held}");
    assert_eq!(trace.event_count(), 5000, "every event is kept");
    assert_eq!(trace.lumped_names(), 5000 - names_held as u64);
    assert!(trace.dropped_shapes() > 0);
    // Their time is kept, under one name.
    let other = trace
        .texts
        .iter()
        .position(|t| &**t == crate::input::chrome::texts::OTHER_NAMES)
        .unwrap();
    let (mut lumped, mut all) = (0.0, 0.0);
    for r in trace.records.iter().unwrap() {
        let r = r.unwrap();
        all += r.dur;
        if r.name as usize == other {
            lumped += r.dur;
        }
    }
    assert_eq!(all, (0..5000).sum::<usize>() as f64);
    let expected: usize = (names_held..5000).sum();
    assert_eq!(
        lumped, expected as f64,
        "the names past the bound are the last ones"
    );
    // Unbounded, every name is its own.
    let all = ChromeTrace::from_json(&text, "t.json").unwrap();
    assert_eq!((all.lumped_names(), all.texts.len()), (0, 5000 + 5000 + 4));
}

#[test]
fn a_trace_on_more_threads_than_the_limit_is_refused() {
    let text = distinct_names(50, 20);
    let limits = TextLimits {
        bytes: 1 << 20,
        threads: 16,
    };
    let e =
        ChromeTrace::from_reader_within(text.as_bytes(), "t.json", 1 << 10, limits).unwrap_err();
    assert!(matches!(e, ParityError::NotATrace { .. }), "{e}");
    assert!(e.to_string().contains("distinct threads"), "{e}");
}

#[test]
fn not_a_trace_and_truncated_text_are_errors_naming_the_origin() {
    let e = ChromeTrace::from_json("{\"traceEvents\": [{\"ph\": \"X\"", "cut.json").unwrap_err();
    assert!(
        matches!(&e, ParityError::Malformed { origin, .. } if origin == "cut.json"),
        "{e}"
    );
    let e = ChromeTrace::from_json("{\"events\": []}", "x.json").unwrap_err();
    assert!(e.to_string().contains("traceEvents"), "{e}");
    let e = ChromeTrace::from_json("[]", "x.json").unwrap_err();
    assert!(matches!(e, ParityError::NotATrace { .. }), "{e}");
    let e = ChromeTrace::from_json(
        "{\"traceEvents\": [], \"tokens_per_step\": \"many\"}",
        "x.json",
    )
    .unwrap_err();
    assert!(e.to_string().contains("tokens_per_step"), "{e}");
}
