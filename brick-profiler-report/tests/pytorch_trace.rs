//! PyTorch traces read as their producers meant: duplicate keys refused by
//! name, impossible times left out and counted, deep nesting and many steps
//! read in one pass over the events.

use std::fmt::Write as _;

use profiler_report::parity::{
    ChromeTrace, OpMapping, ParityError, import_pytorch_trace_str, ms_per_step,
};

fn event(name: &str, cat: &str, ts: f64, dur: f64) -> String {
    format!(r#"{{"ph":"X","cat":"{cat}","name":"{name}","pid":1,"tid":1,"ts":{ts},"dur":{dur}}}"#)
}

fn trace(events: &[String]) -> String {
    format!("{{\"traceEvents\":[{}]}}", events.join(",\n"))
}

#[test]
fn a_key_given_twice_in_an_event_names_the_key_and_the_event() {
    let mut events = vec![event("aten::mm", "cpu_op", 0.0, 5.0); 3];
    events[2] = r#"{"ph":"X","cat":"cpu_op","name":"aten::mm","ts":1,"dur":2,"ts":3}"#.to_owned();
    let e = ChromeTrace::from_json(&trace(&events), "dup.json").unwrap_err();
    assert!(matches!(e, ParityError::Malformed { .. }), "{e}");
    let text = e.to_string();
    assert!(
        text.contains("traceEvents[2]") && text.contains("duplicate field `ts`"),
        "{text}"
    );
    assert!(text.contains("dup.json"), "{text}");
}

#[test]
fn negative_and_non_finite_times_are_left_out_and_named() {
    let events = [
        event("ProfilerStep#1", "user_annotation", 0.0, 100.0),
        event("aten::mm", "cpu_op", 10.0, 20.0),
        r#"{"ph":"X","cat":"cpu_op","name":"aten::nan","ts":"NaN","dur":1}"#.to_owned(),
        r#"{"ph":"X","cat":"cpu_op","name":"aten::inf","ts":5,"dur":"inf"}"#.to_owned(),
        event("aten::neg", "cpu_op", 5.0, -3.0),
        event("aten::before", "cpu_op", -7.0, 1.0),
    ];
    let text = trace(&events);
    let t = ChromeTrace::from_json(&text, "t.json").unwrap();
    assert_eq!(t.event_count(), 2);
    let dropped: Vec<&str> = t.dropped().iter().map(|(_, n)| n.as_str()).collect();
    assert_eq!(
        dropped,
        ["aten::nan", "aten::inf", "aten::neg", "aten::before"]
    );
    assert_eq!(t.dropped()[0].0, 2, "index in traceEvents");
    let import = import_pytorch_trace_str(&text, "t.json", &OpMapping::defaults()).unwrap();
    let note = import
        .summary
        .notes
        .iter()
        .find(|n| n.contains("left out"))
        .expect("a note on the dropped events");
    assert!(
        note.starts_with("4 events") && note.contains("`aten::nan` (traceEvents[2])"),
        "{note}"
    );
    assert!(note.contains("and 1 more"), "{note}");
    assert_eq!(ms_per_step(&import.summary)["MatMul"], 0.02);
}

#[test]
fn no_mapped_op_covers_zero_not_negative_zero() {
    let text = trace(&[
        event("ProfilerStep#1", "user_annotation", 0.0, 100.0),
        event("aten::add", "cpu_op", 10.0, 20.0),
    ]);
    let import = import_pytorch_trace_str(&text, "t.json", &OpMapping::defaults()).unwrap();
    assert!(import.mapped_fraction.is_sign_positive());
    let cover = import
        .summary
        .notes
        .iter()
        .find(|n| n.contains("cover"))
        .unwrap();
    assert!(cover.contains("cover 0.0%"), "{cover}");
    assert!(!import.summary.notes.iter().any(|n| n.contains("-0")));
}

/// 100k CPU ops with sequence numbers, each enclosing the next, under a
/// backward node: every event's ancestry is read once, not walked per
/// event.
#[test]
fn one_hundred_thousand_nested_events() {
    const DEPTH: usize = 100_000;
    let mut text = String::from("{\"traceEvents\":[");
    text.push_str(&event("ProfilerStep#1", "user_annotation", 0.0, 1e7));
    text.push(',');
    text.push_str(&event(
        "autograd::engine::evaluate_function: FooBackward0",
        "cpu_op",
        1.0,
        1e6,
    ));
    for i in 0..DEPTH {
        let name = if i + 1 == DEPTH {
            "aten::mm"
        } else {
            "aten::wrap"
        };
        let ts = 2.0 + i as f64 * 1e-2;
        let dur = 5e5 - i as f64 * 2e-2;
        // A sequence number makes the import ask whether the op runs in a
        // backward node: once per event, up its whole chain of parents.
        let e = event(name, "cpu_op", ts, dur)
            .replace('}', &format!(",\"args\":{{\"Sequence number\":{i}}}}}"));
        write!(text, ",{e}").unwrap();
    }
    text.push_str("]}");
    let import = import_pytorch_trace_str(&text, "deep.json", &OpMapping::defaults()).unwrap();
    let mm = 5e5 - (DEPTH - 1) as f64 * 2e-2;
    assert!((ms_per_step(&import.summary)["MatMul"] - mm / 1e3).abs() < 1e-9);
    assert_eq!(ms_per_step(&import.summary).len(), 1);
    assert_eq!(
        import.summary.launches_per_step.unwrap_or(0),
        1,
        "one leaf op"
    );
    // Every wrapper sits under the backward node, so none is a top-level op.
    assert!(import.unmapped.is_empty(), "{:?}", import.unmapped);
}

/// 50k steps of one matmul each: each op finds its step by a search, not a
/// scan of every step.
#[test]
fn fifty_thousand_steps_and_ops() {
    const STEPS: usize = 50_000;
    let mut events = Vec::with_capacity(2 * STEPS + 1);
    for s in 0..STEPS {
        let start = s as f64 * 100.0;
        events.push(event(
            &format!("ProfilerStep#{s}"),
            "user_annotation",
            start,
            90.0,
        ));
        events.push(event("aten::mm", "cpu_op", start + 10.0, 30.0));
    }
    // Between steps: not counted.
    events.push(event("aten::mm", "cpu_op", 95.0, 2.0));
    let import =
        import_pytorch_trace_str(&trace(&events), "steps.json", &OpMapping::defaults()).unwrap();
    assert_eq!(import.steps, STEPS as u64);
    assert!((ms_per_step(&import.summary)["MatMul"] - 0.03).abs() < 1e-12);
    assert!(((import.summary.step_ns.unwrap_or(0.0) / 1e6) - 0.09).abs() < 1e-12);
    assert_eq!(import.summary.launches_per_step.unwrap_or(0), 1);
}
