//! Names that look like folded-stack syntax (trailing numbers, `;`, line
//! breaks, control characters, nothing at all) and absurd weights: every
//! folded line reads back with the frames written, and the flamegraph SVG
//! stays valid XML without overflowing.

use std::time::Duration;

use profiler_core::trace::{ThreadTimeline, TimelineEvent};
use profiler_core::{
    Profile,
    trace::{EventKind, RecordedExecutionTrace, RecordedTraceEntry, Timeline},
};
use profiler_report::{ExportError, flamegraph_svg, folded_stacks, trace};

/// A step holding one phase per name, each phase holding a brick of the
/// same name.
fn nested(names: &[&str]) -> Profile {
    let mut p = Profile::empty();
    let mut events = vec![TimelineEvent {
        kind: EventKind::Step,
        name: 0,
        start_ns: 0,
        dur_ns: 100_000 * names.len() as u64,
        layer: None,
        direction: None,
        elements: 0,
        bytes: 0,
        flops: 0,
    }];
    for i in 0..names.len() as u32 {
        let start = 100_000 * u64::from(i);
        events.push(TimelineEvent {
            kind: EventKind::Phase,
            name: i + 1,
            start_ns: start,
            dur_ns: 90_000,
            layer: None,
            direction: None,
            elements: 0,
            bytes: 0,
            flops: 0,
        });
        events.push(TimelineEvent {
            kind: EventKind::Brick,
            name: i + 1,
            start_ns: start + 10_000,
            dur_ns: 40_000,
            layer: None,
            direction: None,
            elements: 0,
            bytes: 0,
            flops: 0,
        });
    }
    let mut all = vec!["step 0".to_owned()];
    all.extend(names.iter().map(|n| (*n).to_owned()));
    p.timeline = Timeline {
        names: all,
        threads: vec![ThreadTimeline {
            thread: 1,
            name: None,
            events,
        }],
        dropped: 0,
        device_starts: Vec::new(),
    };
    p
}

fn xml(svg: &str) -> roxmltree::Document<'_> {
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    roxmltree::Document::parse_with_options(svg, options)
        .unwrap_or_else(|e| panic!("the SVG is not XML: {e}"))
}

/// Frame tooltips (`name (N µs, P%)`) of a flamegraph SVG.
fn titles(svg: &str) -> Vec<String> {
    xml(svg)
        .descendants()
        .filter(|n| n.has_tag_name("title"))
        .filter_map(|n| n.text().map(str::to_owned))
        .collect()
}

fn stacks(folded: &str) -> Vec<&str> {
    folded
        .lines()
        .map(|l| l.rsplit_once(' ').expect("`stack count`").0)
        .collect()
}

#[test]
fn names_ending_in_numbers_stay_their_own_frames() {
    let p = nested(&["microbatch 1", "microbatch 2", "x 123"]);
    let folded = folded_stacks(&p);
    assert_eq!(
        stacks(&folded),
        [
            "step",
            "step;microbatch\u{a0}1",
            "step;microbatch\u{a0}1;microbatch\u{a0}1",
            "step;microbatch\u{a0}2",
            "step;microbatch\u{a0}2;microbatch\u{a0}2",
            "step;x\u{a0}123",
            "step;x\u{a0}123;x\u{a0}123",
        ]
    );
    let svg = flamegraph_svg(&folded, "microbatches").expect("svg");
    let seen = titles(&svg);
    for name in ["microbatch\u{a0}1 (", "microbatch\u{a0}2 (", "x\u{a0}123 ("] {
        assert_eq!(
            seen.iter().filter(|t| t.starts_with(name)).count(),
            2,
            "{name:?} as a phase and a brick: {seen:#?}"
        );
    }
    assert!(
        seen.iter().all(|t| !t.contains("%;")),
        "no differential frames: {seen:#?}"
    );

    let mut trace = RecordedExecutionTrace::new();
    for op in ["x 123", "x 124"] {
        let e = RecordedTraceEntry::new(0, op).with_device_id("gpu 0");
        trace.add_entry(e.with_duration(Duration::from_micros(5)));
    }
    let collapsed = trace::flamegraph_collapsed(&trace);
    assert_eq!(
        collapsed,
        "trace;gpu\u{a0}0;x\u{a0}123 5\ntrace;gpu\u{a0}0;x\u{a0}124 5"
    );
    let seen = titles(&flamegraph_svg(&collapsed, "ops").expect("svg"));
    assert!(seen.iter().any(|t| t.starts_with("x\u{a0}123 (5 µs")));
    assert!(seen.iter().any(|t| t.starts_with("x\u{a0}124 (5 µs")));
}

#[test]
fn collapsed_names_cannot_add_frames_or_lines() {
    let mut trace = RecordedExecutionTrace::new();
    let evil = RecordedTraceEntry::new(0, "evil\nfake_root 999999").with_device_id("gpu;0");
    trace.add_entry(evil.with_duration(Duration::from_micros(7)));
    let collapsed = trace::flamegraph_collapsed(&trace);
    assert_eq!(collapsed, "trace;gpu_0;evil\\nfake_root\u{a0}999999 7");
    let seen = titles(&flamegraph_svg(&collapsed, "evil").expect("svg"));
    assert!(
        seen.iter().all(|t| !t.starts_with("fake_root")),
        "{seen:#?}"
    );
    assert_eq!(seen.len(), 4, "all, trace, device, op: {seen:#?}");
}

#[test]
fn control_characters_keep_the_svg_valid_xml() {
    let p = nested(&["nul\0byte", "\x1b[31mred", "bell\u{7}", "c1\u{9b}"]);
    let svg = flamegraph_svg(&folded_stacks(&p), "title\0\x1b").expect("svg");
    let seen = titles(&svg);
    assert!(seen.iter().any(|t| t.starts_with("nul\\0byte (")));
    assert!(seen.iter().any(|t| t.starts_with("\\x1b[31mred (")));
    // Text that skipped our sanitiser (hand-written folded lines) too.
    let svg = flamegraph_svg("a;nul\0 3\nb\u{1} 2\n", "raw").expect("svg");
    assert!(titles(&svg).iter().any(|t| t.starts_with("nul\\0 (")));
}

#[test]
fn empty_names_are_a_visible_frame() {
    let p = nested(&["", "  "]);
    let folded = folded_stacks(&p);
    assert!(!folded.contains(";;") && !folded.contains("; "), "{folded}");
    assert_eq!(
        stacks(&folded),
        ["step", "step;(unnamed)", "step;(unnamed);(unnamed)"]
    );
    let mut trace = RecordedExecutionTrace::new();
    trace.add_entry(RecordedTraceEntry::new(0, "").with_device_id(""));
    assert_eq!(
        trace::flamegraph_collapsed(&trace),
        "trace;(unnamed);(unnamed) 1"
    );
}

#[test]
fn huge_weights_saturate_instead_of_overflowing() {
    let mut trace = RecordedExecutionTrace::new();
    for (op, us) in [
        ("a", 1e19),
        ("a", 1e19),
        ("b", 1e19),
        ("c", f64::MAX),
        ("d", 1.0),
    ] {
        let mut e = RecordedTraceEntry::new(0, op).with_device_id("gpu:0");
        e.duration_us = us;
        trace.add_entry(e);
    }
    let collapsed = trace::flamegraph_collapsed(&trace);
    assert!(
        collapsed.contains(&format!("trace;gpu:0;a {}", u64::MAX)),
        "two 1e19 entries saturate: {collapsed}"
    );
    let svg = flamegraph_svg(&collapsed, "huge").expect("no overflow");
    assert!(
        svg.contains("counts shown in units of 8192 µs"),
        "the scale is stated"
    );
    let seen = titles(&svg);
    // 2 x u64::MAX + 1e19 + 1 µs in units of 2^13 µs, rounded down.
    let expected = (2 * u128::from(u64::MAX) + 10u128.pow(19) + 1) / 8192;
    let all = seen.iter().find(|t| t.starts_with("all (")).expect("all");
    let shown: u128 = all["all (".len()..]
        .split(' ')
        .next()
        .expect("count")
        .replace(',', "")
        .parse()
        .expect("number");
    assert!(shown.abs_diff(expected) <= 4, "{all} vs {expected}");
    assert!(all.contains("× 8192 µs"), "{all}");
    let svg = flamegraph_svg(
        "x 99999999999999999999999\ny 18446744073709551615\n",
        "huge",
    )
    .expect("counts beyond u64 saturate");
    xml(&svg);
    let err = flamegraph_svg("x 12\ny twelve\n", "bad").unwrap_err();
    assert!(
        matches!(err, ExportError::FoldedLine { line: 2, .. }),
        "{err}"
    );
}
