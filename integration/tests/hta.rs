//! Holistic Trace Analysis (PyPI `HolisticTraceAnalysis`) loads the traces
//! of a 4-rank run of the main job: four ranks with their own ids, their
//! `ProfilerStep#N` steps, and no "rank not found" or "ProfilerStep not
//! found" warning in its log.

use std::process::Command;

use profiler_integration::{RUN_STEPS, RUN_WARMUP, python, run_ranks};

const EXE: &str = env!("CARGO_BIN_EXE_train_tiny");

/// Loads every `rank-*/trace.json` of the run directory (HTA lists only
/// the files of one folder, so the ranks' traces are passed by rank) and
/// prints what HTA found as JSON; HTA's log goes to stderr.
const SCRIPT: &str = r##"
import glob, json, logging, os, sys
logging.basicConfig(stream=sys.stderr, level=logging.INFO)
from hta.trace_analysis import TraceAnalysis
run = sys.argv[1]
files = {}
for path in sorted(glob.glob(os.path.join(run, "rank-*", "trace.json"))):
    files[int(os.path.basename(os.path.dirname(path))[5:])] = path
ta = TraceAnalysis(trace_files=files, trace_dir=run)
ranks = sorted(ta.t.traces.keys())
names = ta.t.symbol_table.get_sym_table()
print(json.dumps({
    "ranks": ranks,
    "distributed": {str(r): ta.t.meta_data[r]["distributedInfo"] for r in ranks},
    "steps": sorted(int(n.split("#")[1]) for n in names if n.startswith("ProfilerStep#")),
    "kinds": sorted(set(ta.t.get_trace(ranks[0])["cat"].map(lambda i: names[i]))),
}))
"##;

#[test]
fn hta_loads_four_ranks_with_their_ids_and_steps() {
    let python = python().unwrap_or_else(|e| panic!("{e}"));
    let out = tempfile::tempdir().expect("temp dir");
    run_ranks(EXE.as_ref(), out.path(), 4, None).expect("the 4-rank run succeeds");
    let done = Command::new(&python)
        .args(["-c", SCRIPT])
        .arg(out.path())
        .output()
        .expect("python starts");
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(done.status.success(), "HTA failed: {stderr}");
    for warning in [
        "rank not found",
        "ProfilerStep not found",
        "does not have the rank",
    ] {
        assert!(
            !stderr.contains(warning),
            "HTA warned `{warning}`: {stderr}"
        );
    }
    let found: serde_json::Value = serde_json::from_slice(&done.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&done.stdout)));
    assert_eq!(found["ranks"], serde_json::json!([0, 1, 2, 3]), "{found}");
    for rank in 0..4 {
        let info = &found["distributed"][rank.to_string()];
        assert_eq!(
            (info["rank"].as_u64(), info["world_size"].as_u64()),
            (Some(rank), Some(4)),
            "{found}"
        );
    }
    // The warm-up steps are not recorded; every other step is.
    let steps: Vec<u64> = serde_json::from_value(found["steps"].clone()).expect("step list");
    assert_eq!(
        steps,
        (RUN_WARMUP..RUN_STEPS).collect::<Vec<u64>>(),
        "{found}"
    );
    let kinds = found["kinds"].to_string();
    assert!(
        kinds.contains("user_annotation") && kinds.contains("brick"),
        "{kinds}"
    );
}
