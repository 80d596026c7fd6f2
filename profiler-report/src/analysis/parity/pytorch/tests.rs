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
        assert!(!a.profile.ops.is_empty(), "{name}");
        assert_eq!(
            suggest_mapping(&whole, &mapping, name).unwrap(),
            suggest_mapping(&spilled, &mapping, name).unwrap()
        );
    }
}
