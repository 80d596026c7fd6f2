//! Generated PyTorch traces for what no public trace shows: correlation ids
//! that collide, op names that are hostile to a mapping file, and ops
//! inside a `torch.compile` region (no public trace of one was found; the
//! region's event names are those torch 2.x writes).

use profiler_report::parity::{
    ChromeTrace, OpMapping, import_chrome_trace, import_pytorch_trace_str, ms_per_step,
    suggest_mapping,
};
use proptest::prelude::*;

/// A complete event as JSON.
fn event(name: &str, cat: &str, ts: f64, dur: f64, args: &str) -> String {
    let name = serde_json::to_string(name).unwrap();
    format!(
        r#"{{"ph":"X","cat":"{cat}","name":{name},"pid":1,"tid":1,"ts":{ts},"dur":{dur},"args":{{{args}}}}}"#
    )
}

/// A kernel on the device's stream.
fn kernel(ts: f64, dur: f64, correlation: i64) -> String {
    format!(
        r#"{{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":{ts},"dur":{dur},"args":{{"correlation":{correlation}}}}}"#
    )
}

fn trace(events: &[String]) -> String {
    format!("{{\"traceEvents\":[{}]}}", events.join(","))
}

#[test]
fn colliding_correlation_ids_are_counted_and_named_not_reported_as_linked() {
    // Three ops each launch one kernel; every launch and kernel shares
    // correlation id 7, and the kernels run after the last launch.
    let mut events = Vec::new();
    for (k, op) in ["aten::mm", "aten::relu", "aten::softmax"]
        .iter()
        .enumerate()
    {
        let t = k as f64 * 10.0;
        events.push(event(op, "cpu_op", t, 5.0, ""));
        events.push(event(
            "cudaLaunchKernel",
            "cuda_runtime",
            t + 1.0,
            2.0,
            r#""correlation":7"#,
        ));
        events.push(kernel(100.0 + k as f64 * 10.0, 4.0, 7));
    }
    let i = import_pytorch_trace_str(&trace(&events), "ids.json", &OpMapping::defaults()).unwrap();
    assert_eq!(i.device_events, 3);
    assert_eq!(
        i.colliding_device_events, 3,
        "every kernel came after the id was reused"
    );
    assert_eq!(i.linked_device_events, 0);
    let note = i
        .summary
        .notes
        .iter()
        .find(|n| n.contains("collide"))
        .unwrap_or_else(|| panic!("{:?}", i.summary.notes));
    assert!(
        note.contains("ids 7") && note.contains("2 launch calls reuse"),
        "{note}"
    );
    assert!(note.starts_with("0 of 3 device events linked"), "{note}");
    // Distinct ids: linked, no collision.
    let distinct: Vec<String> = events
        .iter()
        .enumerate()
        .map(|(n, e)| e.replace("\"correlation\":7", &format!("\"correlation\":{}", n / 3)))
        .collect();
    let i =
        import_pytorch_trace_str(&trace(&distinct), "ids.json", &OpMapping::defaults()).unwrap();
    assert_eq!((i.linked_device_events, i.colliding_device_events), (3, 0));
}

#[test]
fn ops_inside_a_compiled_region_are_drafted_and_mapped_not_the_region() {
    // torch.compile: `Torch-Compiled Region: 0/0` > `CompiledFunction` >
    // `## Call CompiledFxGraph ... ##` > aten::mm and a flash attention op.
    let events = vec![
        event("Torch-Compiled Region: 0/0", "cpu_op", 0.0, 100.0, ""),
        event("CompiledFunction", "cpu_op", 1.0, 98.0, ""),
        event("## Call CompiledFxGraph fabc ##", "cpu_op", 2.0, 96.0, ""),
        event("aten::mm", "cpu_op", 3.0, 20.0, ""),
        event(
            "cudaLaunchKernel",
            "cuda_runtime",
            4.0,
            2.0,
            r#""correlation":1"#,
        ),
        event(
            "aten::_scaled_dot_product_flash_attention",
            "cpu_op",
            30.0,
            20.0,
            "",
        ),
        event(
            "cudaLaunchKernel",
            "cuda_runtime",
            31.0,
            2.0,
            r#""correlation":2"#,
        ),
        event(
            "cuLaunchKernel",
            "cuda_driver",
            60.0,
            2.0,
            r#""correlation":3"#,
        ),
        kernel(10.0, 8030.0, 1),
        kernel(8100.0, 3680.0, 2),
        kernel(11800.0, 50.0, 3),
    ];
    let text = trace(&events);
    let t = ChromeTrace::from_json(&text, "compiled.json").unwrap();
    let draft = suggest_mapping(&t, &OpMapping::defaults(), "compiled.json").unwrap();
    assert!(
        draft.contains("op = \"aten::mm\", brick = \"MatMul\""),
        "{draft}"
    );
    assert!(
        draft.contains("op = \"aten::_scaled_dot_product_flash_attention\", brick = \"Attention\""),
        "{draft}"
    );
    // The Triton kernel launched outside any op stays with the region.
    let region_rules = draft.matches("Torch-Compiled Region").count();
    assert_eq!(region_rules, 1, "{draft}");
    let i = import_chrome_trace(&t, &OpMapping::defaults()).unwrap();
    assert!(
        (ms_per_step(&i.summary)["MatMul"] - 8.03).abs() < 1e-9,
        "{:?}",
        ms_per_step(&i.summary)
    );
    assert!(
        (ms_per_step(&i.summary)["Attention"] - 3.68).abs() < 1e-9,
        "{:?}",
        ms_per_step(&i.summary)
    );
    assert_eq!(i.launch_calls, 3);
    assert!(
        i.unmapped.iter().all(|u| u.name != "CompiledFunction"),
        "{:?}",
        i.unmapped
    );
}

#[test]
fn a_draft_of_an_op_named_dashes_or_a_star_re_applies_and_finds_the_op() {
    let events = vec![
        event("---", "cpu_op", 0.0, 10.0, ""),
        event("aten::mul*", "cpu_op", 20.0, 10.0, ""),
        event("aten::mulX", "cpu_op", 40.0, 5.0, ""),
    ];
    let t = ChromeTrace::from_json(&trace(&events), "hostile.json").unwrap();
    let draft = suggest_mapping(&t, &OpMapping::defaults(), "hostile.json").unwrap();
    assert!(!draft.contains("brick = \"\""), "{draft}");
    assert!(draft.contains(r#"op = "aten::mul\\*""#), "{draft}");
    let mapping =
        OpMapping::from_toml_str(&draft, "draft.toml").unwrap_or_else(|e| panic!("{e}\n{draft}"));
    let i = import_chrome_trace(&t, &mapping).unwrap();
    // `aten::mul*` maps only itself: 10 µs, not the 5 µs of `aten::mulX`
    // (which its own rule maps).
    let total: f64 = ms_per_step(&i.summary).values().sum();
    assert!(
        (total - 0.025).abs() < 1e-12,
        "{:?}",
        ms_per_step(&i.summary)
    );
    assert!(i.unmapped.is_empty(), "{:?}", i.unmapped);
}

#[test]
fn a_bad_rule_is_refused_in_the_words_of_the_file() {
    let e = OpMapping::from_toml_str("rules = [{ op = \"---\", brick = \"\" }]\n", "m.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains(r#"{ op = "---", brick = "" }"#), "{e}");
    assert!(!e.contains("Some("), "{e}");
}

/// Op names with what a mapping file or a glob treats specially.
fn hostile_name() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("*".to_owned()),
            Just("\\".to_owned()),
            Just("\"".to_owned()),
            Just("-".to_owned()),
            Just(" ".to_owned()),
            Just("\n".to_owned()),
            Just("\u{1b}".to_owned()),
            Just("#".to_owned()),
            Just("[".to_owned()),
            Just("::".to_owned()),
            Just("é".to_owned()),
            "[a-z]{1,3}",
        ],
        1..6,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every draft re-applies as it stands and maps the same ops, with the
    /// time its comments give.
    #[test]
    fn drafts_of_hostile_op_names_re_apply_and_find_the_same_ops(
        names in proptest::collection::btree_set(hostile_name(), 1..8)
    ) {
        let events: Vec<String> = names
            .iter()
            .enumerate()
            .map(|(k, n)| event(n, "cpu_op", k as f64 * 100.0, 10.0 + k as f64, ""))
            .collect();
        let t = ChromeTrace::from_json(&trace(&events), "hostile.json").unwrap();
        let draft = suggest_mapping(&t, &OpMapping::defaults(), "hostile.json").unwrap();
        let mapping = OpMapping::from_toml_str(&draft, "draft.toml");
        prop_assert!(mapping.is_ok(), "{:?}\n{draft}", mapping.err());
        let i = import_chrome_trace(&t, &mapping.unwrap()).unwrap();
        // Every op is mapped by a rule, so nothing is left unmapped and the
        // mapped time is every op's time.
        prop_assert!(i.unmapped.is_empty(), "{:?}\n{draft}", i.unmapped);
        let expected: f64 = (0..names.len()).map(|k| (10.0 + k as f64) / 1e3).sum();
        let total: f64 = ms_per_step(&i.summary).values().sum();
        prop_assert!((total - expected).abs() < 1e-9, "{total} vs {expected}\n{draft}");
        prop_assert!(!draft.contains("brick = \"\""), "{draft}");
    }
}
