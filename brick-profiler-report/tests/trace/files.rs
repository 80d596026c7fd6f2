//! Merging ranks (load balance, stragglers) and reading trace files.

use profiler_core::{
    Profile,
    trace::{EventKind, RecordedExecutionTrace},
};
use profiler_report::export::{merge_rank_files, merge_ranks};
use profiler_report::input::native::{parse_execution_trace, read_execution_trace};
use profiler_report::trace::TraceError;
use serde_json::Value;

use super::exports::{assert_valid_chrome, find};
use super::{ev, golden, golden_profile};

// ---------------------------------------------------------------- ranks

fn rank_profile(median_step_ns: u64, busy_ns: u64) -> Profile {
    let mut p = golden_profile();
    p.steps.samples_ns = (0..9).map(|i| median_step_ns + i * 10 - 40).collect();
    p.timeline.threads.truncate(1);
    p.timeline.threads[0].events = vec![ev(EventKind::Brick, 4, 0, busy_ns)];
    p.trace = RecordedExecutionTrace::new();
    p
}

#[test]
fn merging_three_ranks_finds_a_thirty_percent_straggler() {
    let merged = merge_ranks(&[
        rank_profile(100_000, 300),
        rank_profile(130_000, 100),
        rank_profile(100_000, 200),
    ]);
    let r = &merged.report;
    assert_eq!(
        r.ranks
            .iter()
            .map(|s| (s.rank, s.busy_ns))
            .collect::<Vec<_>>(),
        [(0, 300), (1, 100), (2, 200)]
    );
    assert_eq!(r.ranks[1].median_step_ns, Some(130_000.0));
    assert!(
        (r.busy_imbalance_ratio - 0.5).abs() < 1e-12,
        "same formula as devices"
    );
    assert_eq!(r.stragglers.len(), 1);
    assert_eq!(r.stragglers[0].rank, 1);
    assert!((r.stragglers[0].excess - 0.3).abs() < 1e-9);
    // The fleet report's rule: median + max(5 x 1.4826 x MAD, 20%).
    assert_eq!(r.step_threshold.median_ns, 100_000.0);
    assert_eq!(r.step_threshold.threshold_ns, 120_000.0);
    let json: Value = serde_json::from_str(&merged.chrome_json).expect("valid JSON");
    let events = assert_valid_chrome(&json);
    let processes: Vec<(u64, &str)> = find(&events, "M", "process_name")
        .iter()
        .map(|e| {
            (
                e["pid"].as_u64().unwrap_or(9),
                e["args"]["name"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(processes, [(0, "rank 0"), (1, "rank 1"), (2, "rank 2")]);
    assert_eq!(find(&events, "X", "RmsNorm").len(), 3);
    assert_eq!(json["otherData"]["rank_report"]["stragglers"][0]["rank"], 1);
    golden("chrome_merged.json", &merged.chrome_json);
}

#[test]
fn merged_ranks_are_aligned_on_their_wall_clock_starts() {
    let early = rank_profile(100_000, 300);
    let mut late = rank_profile(100_000, 300);
    late.run.started_at_unix_ns = early.run.started_at_unix_ns + 2_000_000; // 2 ms later
    let merged = merge_ranks(&[early, late]);
    let json: Value = serde_json::from_str(&merged.chrome_json).expect("valid JSON");
    let events = assert_valid_chrome(&json);
    let starts: Vec<(u64, f64)> = find(&events, "X", "RmsNorm")
        .iter()
        .map(|e| {
            (
                e["pid"].as_u64().unwrap_or(9),
                e["ts"].as_f64().unwrap_or(-1.0),
            )
        })
        .collect();
    assert_eq!(
        starts,
        [(0, 0.0), (1, 2000.0)],
        "rank 1 is shifted by its later start"
    );
}

#[test]
fn ranks_within_noise_have_no_straggler() {
    let ranks = [100_000, 103_000, 98_000, 101_000].map(|m| rank_profile(m, 100));
    let merged = merge_ranks(&ranks);
    assert!(
        merged.report.stragglers.is_empty(),
        "{:?}",
        merged.report.stragglers
    );
    assert!(merged.report.step_imbalance_ratio < 0.03);
    let mut ranks = ranks.to_vec();
    ranks.push(rank_profile(125_000, 100));
    let found: Vec<u32> = merge_ranks(&ranks)
        .report
        .stragglers
        .iter()
        .map(|s| s.rank)
        .collect();
    assert_eq!(found, [4]);
}

#[test]
fn rank_files_are_read_by_rank_with_errors_naming_the_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let r0 = dir.path().join("profile.rank0.json");
    let r1 = dir.path().join("profile.rank1.json");
    rank_profile(100_000, 10).write(&r0).expect("write");
    rank_profile(100_000, 20).write(&r1).expect("write");
    let merged = merge_rank_files(&[&r1, &r0]).expect("merged");
    assert_eq!(
        merged
            .report
            .ranks
            .iter()
            .map(|r| (r.rank, r.busy_ns))
            .collect::<Vec<_>>(),
        [(0, 10), (1, 20)]
    );
    let err = merge_rank_files(&[&r0, &r0]).expect_err("duplicate");
    assert!(
        matches!(err, TraceError::DuplicateRank { rank: 0, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("both claim rank 0"), "{err}");
    // A file with no rank of its own takes a free rank, not a taken one.
    let mut ranked = rank_profile(100_000, 30);
    ranked.run.rank = Some(0);
    let explicit = dir.path().join("a.json");
    let unranked = dir.path().join("b.json");
    ranked.write(&explicit).expect("write");
    rank_profile(100_000, 40).write(&unranked).expect("write");
    let merged = merge_rank_files(&[&unranked, &explicit]).expect("no collision");
    let ranks: Vec<(u32, u64)> = merged
        .report
        .ranks
        .iter()
        .map(|r| (r.rank, r.busy_ns))
        .collect();
    assert_eq!(ranks, [(0, 30), (1, 40)]);
    let bad = dir.path().join("profile.rank2.json");
    std::fs::write(
        &bad,
        "{\"schema_version\": \"1.0\",\n \"steps\": {\"count\": \"two\"}}",
    )
    .expect("write");
    let err = merge_rank_files(&[&r0, &bad]).expect_err("malformed");
    let msg = err.to_string();
    assert!(
        msg.contains("profile.rank2.json") && msg.contains("line 2"),
        "{msg}"
    );
}

// ---------------------------------------------------------------- trace files

#[test]
fn trace_files_round_trip_and_profiles_are_accepted() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("trace.json");
    let trace = golden_profile().trace;
    std::fs::write(&path, trace.to_json().expect("json")).expect("write");
    assert_eq!(read_execution_trace(&path).expect("read"), trace);
    let profile_path = dir.path().join("profile.json");
    golden_profile().write(&profile_path).expect("write");
    assert_eq!(
        read_execution_trace(&profile_path)
            .expect("read")
            .entries
            .len(),
        4
    );
    let reference = r#"{"entries":[{"step":0,"operation":"matmul","device_id":null,"input_shapes":[],
        "output_shape":[4],"duration_us":1.5,"output_elements":4,"memory_bytes":32}],
        "total_duration_us":1.5,"metadata":{}}"#;
    assert_eq!(
        parse_execution_trace(reference)
            .expect("reference format")
            .entries[0]
            .memory_bytes,
        32
    );
}

#[test]
fn malformed_trace_files_name_file_line_column_and_field() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bad.json");
    let read = |text: &str| {
        std::fs::write(&path, text).expect("write");
        read_execution_trace(&path).expect_err("must fail")
    };
    match read("{\"entries\": [\n  {\"step\": 0, \"operation\": \"a\"},\n  {\"step\": 1,, }\n]}") {
        TraceError::Malformed {
            path: Some(p),
            line: 3,
            column,
            ..
        } => {
            assert!(p.ends_with("bad.json") && column > 0);
        }
        other => panic!("{other:?}"),
    }
    let err = read(
        "{\"entries\": [\n {\"step\": 0, \"operation\": \"a\"},\n {\"step\": 1, \"operation\": \"b\", \"duration_us\": \"fast\"}\n]}",
    );
    let msg = err.to_string();
    assert!(
        msg.contains("bad.json")
            && msg.contains("entries[1].duration_us")
            && msg.contains("line 3"),
        "{msg}"
    );
    let msg = read("{\"entries\": [{\"step\": 0}]}").to_string();
    assert!(
        msg.contains("entries[0]") && msg.contains("missing field `operation`"),
        "{msg}"
    );
    let msg = read("{\"total_duration_us\": [], \"entries\": []}").to_string();
    assert!(
        msg.starts_with("malformed trace") && msg.contains("total_duration_us:"),
        "{msg}"
    );
    match read(
        "{\"entries\": [{\"step\": 0, \"operation\": \"a\"}, {\"step\": 1, \"operation\": \"b\", \"duration_us\": -2.5}]}",
    ) {
        TraceError::Invalid { source, .. } => {
            assert_eq!(source.field, "entries[1].duration_us");
            assert!(source.problem.contains("-2.5"), "{source}");
        }
        other => panic!("{other:?}"),
    }
    let err = read("{\"entries\": [{\"step\": 0, \"operation\": \"a\", \"start_us\": -1}]}");
    assert!(
        err.to_string().contains("`entries[0].start_us`: -1"),
        "{err}"
    );
    // JSON has no NaN; an overflowing number is refused by the parser.
    let text = r#"{"entries": [{"step": 0, "operation": "a", "duration_us": 1e400}]}"#;
    let err = parse_execution_trace(text).expect_err("infinite");
    assert!(
        matches!(
            err,
            TraceError::Malformed {
                path: None,
                line: 1,
                column: 63,
                ..
            }
        ) && err.to_string().contains("out of range"),
        "{err}"
    );
    let missing = read_execution_trace(dir.path().join("nope.json")).expect_err("missing");
    assert!(
        matches!(missing, TraceError::Read { .. }) && missing.to_string().contains("nope.json")
    );
}
