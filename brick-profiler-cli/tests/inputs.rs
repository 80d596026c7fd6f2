//! Odd but valid inputs read as meant, and files that are no inputs at all
//! refused by name, through the binary.

mod common;

use common::run;

#[test]
fn a_log_that_starts_with_a_json_step_record_reads_line_by_line() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("train.log");
    let line = |steps: u32, avg: f64| {
        format!(
            r#"{{"_profiler":"step_profiler_v2","steps":{steps},"avg_step_ms":{avg},"wall_coverage":0.9,"phases":{{"forward":{{"total_ms":40.0,"pct":40.0,"avg_ms":10.0}}}}}}"#
        )
    };
    std::fs::write(&log, format!("{}\n{}\n", line(4, 50.0), line(12, 100.0))).unwrap();
    let out = run(&[
        "scorecard",
        log.to_str().unwrap(),
        "--throughput",
        "1000",
        "--format",
        "json",
    ])
    .expect(0);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["step_time_ms"], 100.0, "the last line: {}", out.stdout);
}

#[cfg(unix)]
#[test]
fn a_fifo_is_refused_without_waiting_for_a_writer() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.json");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    let out = run(&["scorecard", fifo.to_str().unwrap()]).expect(2);
    assert!(
        out.stderr.contains("pipe.json") && out.stderr.contains("a FIFO"),
        "{}",
        out.stderr
    );
}

/// A real `.json.gz` Kineto trace, as Holistic Trace Analysis ships it.
const GZ_TRACE: &str = "tests/fixtures/real/kineto/hta_nccl_a100_rank0.json.gz";

#[test]
fn a_gzipped_trace_drafts_the_mapping_its_json_drafts() {
    let gz = common::root().join(GZ_TRACE);
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("hta_nccl_a100_rank0.json");
    let mut text = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::MultiGzDecoder::new(std::fs::File::open(&gz).unwrap()),
        &mut text,
    )
    .unwrap();
    std::fs::write(&plain, &text).unwrap();
    let draft = |path: &std::path::Path| {
        run(&["parity", "--suggest-mapping", path.to_str().unwrap()])
            .expect(0)
            .stdout
    };
    let (from_gz, from_json) = (draft(&gz), draft(&plain));
    // The first line names the file; the rest is the draft.
    let body = |s: &str| s.split_once('\n').map(|(_, b)| b.to_owned()).unwrap();
    assert!(from_gz.lines().count() > 3, "{from_gz}");
    assert_eq!(body(&from_gz), body(&from_json));
    assert!(from_gz.contains("hta_nccl_a100_rank0.json.gz"), "{from_gz}");
}

#[test]
fn compressed_and_binary_files_are_named_for_what_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let zst = dir.path().join("trace.json.zst");
    std::fs::write(&zst, [0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x00, 0x51]).unwrap();
    let e = run(&["parity", "--suggest-mapping", zst.to_str().unwrap()]).expect(2);
    assert!(
        e.stderr.contains("trace.json.zst") && e.stderr.contains("zstd-compressed"),
        "{}",
        e.stderr
    );
    let db = dir.path().join("report.db");
    std::fs::write(&db, b"SQLite format 3\0\x10\x00\x01\x01\x00\x40\x20\x20").unwrap();
    let e = run(&["scorecard", db.to_str().unwrap()]).expect(2);
    assert!(
        e.stderr.contains("SQLite") && e.stderr.contains("nsys export --type json"),
        "{}",
        e.stderr
    );
}
