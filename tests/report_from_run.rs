//! The HTML report and the Chrome trace of a real run: nested `#[brick]`
//! calls show their self time and their callees' time adding up to the
//! total in the bricks table, and `profiler::counter` samples become a
//! chart and counter events.

mod common;

use std::time::Duration;

use profiler::brick;
use profiler_report::{HtmlReport, chrome_trace_json};

#[brick("ReportOuter", elements = 8u64, bytes = 64u64, flops = 128u64)]
fn outer() {
    inner();
    std::thread::sleep(Duration::from_millis(1));
    inner();
}

#[brick("ReportInner")]
fn inner() {
    std::thread::sleep(Duration::from_millis(1));
}

/// `data-v` of the cells of the bricks-table row of `name`, in order.
fn row_values(html: &str, name: &str) -> (Vec<f64>, String) {
    let start = html
        .find(&format!(">{name}</th>"))
        .unwrap_or_else(|| panic!("no row {name}"));
    let row = &html[start..start + html[start..].find("</tr>").expect("row ends")];
    let values = row
        .split("data-v=\"")
        .skip(1)
        .map(|v| v[..v.find('"').expect("quoted")].parse().expect("number"))
        .collect();
    (values, row.to_owned())
}

/// The position of `header` among the bricks table's headers.
fn column(html: &str, header: &str) -> usize {
    let bricks = &html[html
        .find("<table class=\"data sortable bricks\">")
        .expect("table")..];
    let head = &bricks[bricks.find("<thead><tr>").expect("head") + "<thead><tr>".len()
        ..bricks.find("</thead>").expect("head ends")];
    let names: Vec<&str> = head
        .split("<th")
        .skip(1)
        .map(|h| {
            let h = &h[h.find('>').expect("tag") + 1..];
            &h[..h.find("</th>").expect("closed")]
        })
        .collect();
    names
        .iter()
        .position(|n| *n == header)
        .unwrap_or_else(|| panic!("no {header} in {names:?}"))
}

#[test]
fn nested_bricks_and_counters_reach_the_report_and_the_trace() {
    let _lock = common::exclusive();
    profiler::sync::set_sync_mode(profiler::sync::SyncMode::None);
    profiler::Config::new().trace_mode(true).apply();
    for step in 0..3u32 {
        let _step = profiler::step(16);
        outer();
        profiler::counter("loss", 1.0 / f64::from(step + 1));
    }
    inner(); // once on its own
    profiler::Config::new().trace_mode(false).apply();
    let profile = profiler::snapshot();
    profiler::disable();

    let html = HtmlReport::new(&profile).trace_file("trace.json").render();
    // Numeric cells only: the name and category cells carry no `data-v`,
    // so value `i` is column `i + 2`.
    let (total, own) = (column(&html, "Total ms") - 2, column(&html, "Self ms") - 2);
    let (outer_row, outer_html) = row_values(&html, "ReportOuter");
    let (inner_row, _) = row_values(&html, "ReportInner");
    let outer_stats = profile.brick("ReportOuter").expect("outer");
    // Shown: self + time in the bricks it called = total.
    let children = outer_stats.child_ns as f64 / 1e6;
    assert!(
        (outer_row[own] + children - outer_row[total]).abs() < 1e-6,
        "{outer_row:?} with {children} ms nested"
    );
    assert!(outer_row[own] >= 3.0, "three 1 ms sleeps of its own");
    assert!(children >= 6.0, "six 1 ms inner calls nested");
    assert!(
        children <= inner_row[total] + 1e-9,
        "nested time is the inner brick's"
    );
    assert_eq!(
        inner_row[own], inner_row[total],
        "a leaf's self time is its total"
    );
    assert!(
        outer_html.contains("ms in bricks it called\""),
        "{outer_html}"
    );

    assert!(html.contains(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart line-chart counter-chart\""
    ));
    assert!(html.contains("<strong>loss</strong>: 3 samples, first 1.000, last 0.333"));

    let trace: serde_json::Value =
        serde_json::from_str(&chrome_trace_json(&profile)).expect("valid JSON");
    let events = trace["traceEvents"].as_array().expect("events");
    let loss: Vec<f64> = events
        .iter()
        .filter(|e| e["ph"] == "C" && e["name"] == "loss")
        .map(|e| e["args"]["value"].as_f64().expect("value"))
        .collect();
    assert_eq!(loss.len(), 3);
    assert!((loss[2] - 1.0 / 3.0).abs() < 1e-12);
    let outer_slice = events
        .iter()
        .find(|e| e["ph"] == "X" && e["name"] == "ReportOuter")
        .expect("outer slice");
    let args = &outer_slice["args"];
    assert_eq!(
        (
            args["elements"].as_u64(),
            args["bytes"].as_u64(),
            args["flops"].as_u64()
        ),
        (Some(8), Some(64), Some(128))
    );
    assert_eq!(args["category"], "Other");
    let steps: Vec<u64> = events
        .iter()
        .filter(|e| e["ph"] == "X" && e["cat"] == "step")
        .map(|e| e["args"]["step"].as_u64().expect("step index"))
        .collect();
    assert_eq!(steps, [0, 1, 2]);
}
