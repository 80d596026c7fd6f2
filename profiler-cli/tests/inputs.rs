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
