//! The import and the draft give the same results whether a trace's
//! records stayed in memory or were spilled to temporary files.

use std::path::PathBuf;

use super::*;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/real/kineto")
        .join(name)
}

#[test]
fn spilled_records_give_what_records_in_memory_give() {
    // A device trace (3 steps on an H100) and a CPU trace with module paths.
    for name in [
        "kineto_h100_transformer_bf16.json",
        "stock_tiny_transformer_cpu.json",
    ] {
        let read = |run: usize| {
            let file = std::fs::File::open(fixture(name)).unwrap();
            ChromeTrace::from_reader_with(file, name, run).unwrap()
        };
        let (whole, spilled) = (read(usize::MAX), read(500));
        assert_eq!(whole.spilled_runs(), 0);
        assert!(
            spilled.spilled_runs() > 5,
            "{name}: {}",
            spilled.spilled_runs()
        );
        let mapping = OpMapping::defaults();
        let (a, b) = (
            import_chrome_trace(&whole, &mapping).unwrap(),
            import_chrome_trace(&spilled, &mapping).unwrap(),
        );
        assert_eq!(a, b, "{name}");
        assert!(!a.summary.ops.is_empty(), "{name}");
        assert_eq!(
            suggest_mapping(&whole, &mapping, name).unwrap(),
            suggest_mapping(&spilled, &mapping, name).unwrap()
        );
    }
}

#[test]
fn names_past_the_bound_get_a_note_and_no_rule() {
    // One step of CPU ops, each with its own 100-character name: far more
    // than a 16 KiB names table holds.
    let events: Vec<String> = (0..2000)
        .map(|i| {
            format!(
                r#"{{"ph": "X", "cat": "cpu_op", "name": "aten::op_{i:05}_{}", "pid": 0, "tid": 1, "ts": {}, "dur": 1}}"#,
                "x".repeat(100),
                10 + 2 * i
            )
        })
        .collect();
    let text = format!(
        r#"{{"traceEvents": [{{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 0, "tid": 1, "ts": 0, "dur": 5000}}, {}]}}"#,
        events.join(",")
    );
    let limits = crate::input::TextLimits {
        bytes: 16 << 10,
        threads: 16,
    };
    let trace = ChromeTrace::from_reader_within(text.as_bytes(), "t.json", 1 << 10, limits)
        .expect("a trace");
    let lumped = trace.lumped_names();
    assert!(lumped > 1000, "{lumped}");
    let mapping = OpMapping::defaults();
    let draft = suggest_mapping(&trace, &mapping, "t.json").expect("a draft");
    assert!(
        !draft.contains("op = \"(other names)\""),
        "no rule for the lumped names:\n{draft}"
    );
    assert!(
        draft.contains(&format!(
            "# {lumped} events came after the distinct names held"
        )),
        "{draft}"
    );
    // The draft still re-applies as written.
    OpMapping::from_toml_str(&draft, "draft").expect("the draft reads back");
    let import = import_chrome_trace(&trace, &mapping).expect("an import");
    assert!(
        import
            .summary
            .notes
            .iter()
            .any(|n| n.starts_with(&format!("{lumped} events came after"))),
        "{:?}",
        import.summary.notes
    );
}
