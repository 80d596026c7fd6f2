//! Any text as a `torch.profiler` Chrome trace: reading never panics; an
//! accepted trace imports as a parity baseline whose every number is
//! finite and non-negative, and its draft mapping reads back as a mapping.

#![no_main]

#[path = "../common/mod.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use profiler_report::parity::{
    ChromeTrace, OpMapping, import_chrome_trace, ms_per_step, suggest_mapping,
};

fuzz_target!(|data: &[u8]| {
    let Some(text) = common::text(data) else {
        return;
    };
    let Ok(trace) = ChromeTrace::from_json(text, "fuzz.json") else {
        return;
    };
    let mapping = OpMapping::defaults();
    let import = import_chrome_trace(&trace, &mapping).expect("an accepted trace imports");
    let p = &import.summary;
    for (what, v) in [
        ("step time", p.step_ns.unwrap_or(0.0)),
        ("throughput", p.tokens_per_s.unwrap_or(0.0)),
        ("basis", import.basis_ms),
        ("mapped fraction", import.mapped_fraction),
    ] {
        assert!(v.is_finite() && v >= 0.0, "{what}: {v}");
    }
    for (op, ms) in &ms_per_step(p) {
        assert!(ms.is_finite() && *ms >= 0.0, "{op}: {ms} ms");
    }
    for u in &import.unmapped {
        assert!(u.ms.is_finite() && u.ms >= 0.0, "unmapped {}: {} ms", u.name, u.ms);
    }
    assert!(import.linked_device_events <= import.device_events);
    let draft = suggest_mapping(&trace, &mapping, "fuzz.json").expect("an accepted trace drafts");
    if let Err(e) = OpMapping::from_toml_str(&draft, "draft.toml") {
        panic!("the draft mapping does not read back: {e}\n{draft}");
    }
});
