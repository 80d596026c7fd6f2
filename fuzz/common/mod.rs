//! Checks every fuzz target shares: each output of a profile, a trace or a
//! scorecard is produced without a panic and reads back with its format's
//! own parser.

#![allow(dead_code)]

use profiler_core::Profile;
use profiler_report::{
    ExportError, HtmlReport, chrome_trace_json, flamegraph_svg, folded_stacks,
    scorecard::{ScorecardBuilder, TrainingScorecard},
    speedscope_json,
};

/// Text of the fuzz input, or `None` for invalid UTF-8 (readers take `&str`).
pub fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// The document parses as XML (what browsers require of an SVG); inferno's
/// flamegraphs carry a DOCTYPE.
pub fn assert_xml(doc: &str, what: &str) {
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    if let Err(e) = roxmltree::Document::parse_with_options(doc, options) {
        panic!("{what} is not valid XML: {e}");
    }
}

/// The text parses as JSON (which has no token for NaN or infinity).
pub fn assert_json(doc: &str, what: &str) -> serde_json::Value {
    match serde_json::from_str(doc) {
        Ok(v) => v,
        Err(e) => panic!("{what} is not valid JSON: {e}"),
    }
}

/// The text parses as JSON and every number token in it is finite. A
/// parser, not a text search: a name such as `cutlass:: infhalf_t` holds
/// `": inf"` without any number being infinite, and `1e999` holds no `inf`
/// yet is one.
pub fn assert_finite_json(doc: &str, what: &str) -> serde_json::Value {
    let value = assert_json(doc, what);
    let mut stack = vec![&value];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::Number(n) => assert!(
                n.as_f64().is_some_and(f64::is_finite),
                "{what} holds the non-finite number {n}"
            ),
            serde_json::Value::Array(items) => stack.extend(items),
            serde_json::Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    value
}

/// Folded stacks read back line by line: each line is `stack count`, the
/// count is a number, and the stack's last frame does not itself end in a
/// number (readers would take the line for a differential profile).
pub fn assert_folded(folded: &str) {
    for (i, line) in folded.lines().enumerate() {
        let (stack, count) = line
            .rsplit_once(' ')
            .unwrap_or_else(|| panic!("folded line {i} has no count: {line:?}"));
        assert!(
            count.parse::<u64>().is_ok(),
            "folded line {i}: count {count:?}"
        );
        if let Some((_, last)) = stack.rsplit_once(' ') {
            assert!(
                last.parse::<f64>().is_err(),
                "folded line {i} ends in two numbers: {line:?}"
            );
        }
        assert!(
            !stack.split(';').any(str::is_empty),
            "folded line {i} has an empty frame: {line:?}"
        );
    }
}

/// Renders folded stacks as a flamegraph: either a typed "nothing to draw"
/// or a valid SVG.
pub fn assert_flamegraph(folded: &str, title: &str) {
    match flamegraph_svg(folded, title) {
        Ok(svg) => assert_xml(&svg, "flamegraph SVG"),
        Err(ExportError::EmptyFlamegraph) => {}
        Err(e) => panic!("flamegraph of our own folded stacks failed: {e}"),
    }
}

/// Every rendering of a scorecard, and its JSON reads back.
pub fn check_scorecard(sc: &TrainingScorecard) {
    let _ = sc.to_string();
    let _ = sc.to_markdown();
    let _ = sc.to_html();
    let json = sc.to_json();
    assert_json(&json, "scorecard JSON");
    if let Err(e) = TrainingScorecard::from_json(&json) {
        panic!("a scorecard's own JSON does not read back: {e}");
    }
}

/// Every output of a valid profile: the JSON round trip, folded stacks and
/// the flamegraph, Chrome and speedscope traces, the scorecard (when one
/// can be built) and the HTML report.
pub fn check_profile(profile: &Profile) {
    let json = profile.to_json();
    if let Err(e) = Profile::from_json(&json) {
        panic!("a profile's own JSON does not read back: {e}");
    }
    let folded = folded_stacks(profile);
    assert_folded(&folded);
    assert_flamegraph(&folded, &profile.run.name);
    assert_json(&chrome_trace_json(profile), "Chrome trace");
    assert_json(&speedscope_json(profile), "speedscope JSON");
    let scorecard = ScorecardBuilder::from_profile(profile).build().ok();
    if let Some(sc) = &scorecard {
        check_scorecard(sc);
    }
    let mut report = HtmlReport::new(profile);
    if let Some(sc) = &scorecard {
        report = report.scorecard(sc);
    }
    let _ = report.render();
}
