//! Any text through the parity-profile reader: reading never panics, and an
//! accepted profile compares with itself and with a reference run into
//! reports whose JSON parses and whose SVG is valid XML.

#![no_main]

#[path = "../common/mod.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use profiler_report::run::RunSummary;
use profiler_report::parity::compute_parity_comparison;

fuzz_target!(|data: &[u8]| {
    let Some(text) = common::text(data) else {
        return;
    };
    let Ok(profile) = RunSummary::from_parity_json(text, "fuzz.json") else {
        return;
    };
    let reference = RunSummary::from_parity_json(
        r#"{"runtime":"reference","throughput_tok_s":100.0,"step_time_ms":10.0,
            "kernel_launches_per_step":12,"ops":{"matmul":4.0,"softmax":1.0}}"#,
        "reference.json",
    )
    .expect("the reference profile reads");
    for (ours, baseline) in [(&profile, &profile), (&profile, &reference), (&reference, &profile)] {
        let c = compute_parity_comparison(ours, baseline);
        let _ = c.to_markdown();
        common::assert_json(&c.to_json(), "parity JSON");
        common::assert_xml(&c.to_svg(), "parity SVG");
    }
});
