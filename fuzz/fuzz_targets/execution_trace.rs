//! Any text through the execution-trace reader: reading never panics, and
//! every trace it accepts goes through each analysis, the collapsed stacks
//! and their flamegraph, and its own JSON reads back.

#![no_main]

#[path = "../common/mod.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use profiler_report::input::native::parse_execution_trace;
use profiler_report::trace;

fuzz_target!(|data: &[u8]| {
    let Some(text) = common::text(data) else {
        return;
    };
    let Ok(trace) = parse_execution_trace(text) else {
        return;
    };
    for (op, summary) in trace::operation_summary(&trace) {
        let total = summary.total_duration_us;
        assert!(total.is_finite() && total >= 0.0, "{op}: total {total}");
    }
    for (op, avg) in trace::avg_duration_by_op(&trace) {
        assert!(avg.is_finite() && avg >= 0.0, "{op}: average {avg}");
    }
    let _ = trace::per_device_summary(&trace);
    let _ = trace::memory_hotspots(&trace, 10);
    let _ = trace::communication_bottlenecks(&trace, 0.1);
    if let Some(balance) = trace::load_balance_metrics(&trace) {
        let total = balance.total_duration_us;
        assert!(total.is_finite() && total >= 0.0, "load balance total {total}");
    }
    let collapsed = trace::flamegraph_collapsed(&trace);
    common::assert_folded(&collapsed);
    common::assert_flamegraph(&collapsed, "trace");
    let json = serde_json::to_string(&trace).expect("a valid trace serialises");
    if let Err(e) = parse_execution_trace(&json) {
        panic!("a trace's own JSON does not read back: {e}");
    }
});
