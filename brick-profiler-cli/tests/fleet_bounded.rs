//! `fleet` on hostile run directories, each run as its own process under an
//! address-space limit (`prlimit --as`) and a generous deadline that only
//! detects a hang: a world size of 2^32 - 1 or a directory `rank-50000000`
//! costs no memory per absent rank, a FIFO named `profile.json` is refused
//! unopened, and ranks whose step indices never overlap make a heat map of
//! bounded size.

#![cfg(target_os = "linux")]

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Address space the binary may map: far above what these runs need, far
/// below what one entry per absent rank or a dense heat map would take.
const ADDRESS_SPACE: u64 = 1 << 30;

/// What a bounded run returned.
struct Bounded {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `brick-profiler ARGS` under [`ADDRESS_SPACE`]; kills it (and
/// fails) past two minutes.
fn run_bounded(args: &[&str]) -> Bounded {
    let mut child = Command::new("prlimit")
        .arg(format!("--as={ADDRESS_SPACE}"))
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_brick-profiler"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("prlimit (util-linux) runs the binary");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > Duration::from_secs(120) {
            child.kill().ok();
            child.wait().ok();
            panic!(
                "`brick-profiler {}` still runs after two minutes",
                args.join(" ")
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().expect("output");
    Bounded {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Writes `rank-NNNNN/profile.json`: `steps` steps of 10 ms from index
/// `first_step`, one brick, and `world` as the world size when given.
fn write_rank(dir: &Path, rank: u32, world: Option<u64>, first_step: u64, steps: u64) {
    let mut ns = String::new();
    let mut index = String::new();
    for i in 0..steps {
        let sep = if i == 0 { "" } else { "," };
        let _ = write!(ns, "{sep}{}", 10_000_000 + u64::from(rank) * 1_000);
        let _ = write!(index, "{sep}{}", first_step + i);
    }
    let world = world.map_or("null".to_owned(), |w| w.to_string());
    let text = format!(
        r#"{{"schema_version":"1.3","run":{{"rank":{rank},"world_size":{world},"run_id":"job"}},
"steps":{{"count":{steps},"samples_ns":[{ns}],"samples_index":[{index}]}},
"bricks":[{{"name":"MatMul","count":{steps},"total_ns":{},"min_ns":null,"max_ns":0}}]}}"#,
        steps * 5_000_000
    );
    let rank_dir = dir.join(format!("rank-{rank:05}"));
    std::fs::create_dir_all(&rank_dir).expect("rank dir");
    std::fs::write(rank_dir.join("profile.json"), text).expect("profile");
}

fn path(dir: &tempfile::TempDir) -> &str {
    dir.path().to_str().expect("utf-8 temp dir")
}

#[test]
fn a_huge_claimed_world_or_a_far_rank_costs_no_memory_per_absent_rank() {
    let dir = tempfile::tempdir().expect("temp dir");
    for rank in 0..4 {
        let world = (rank == 1).then_some(u64::from(u32::MAX));
        write_rank(dir.path(), rank, world, 0, 10);
    }
    let out = run_bounded(&["fleet", path(&dir)]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(
        out.stdout.contains("4 of 4294967295 ranks analysed")
            && out.stdout.contains("absent ranks: 4-4294967294"),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr
            .contains("left out: ranks 4-4294967294: no `rank-NNNNN` directory"),
        "{}",
        out.stderr
    );

    let far = tempfile::tempdir().expect("temp dir");
    for rank in 0..4 {
        write_rank(far.path(), rank, Some(4), 0, 10);
    }
    std::fs::create_dir(far.path().join("rank-50000000")).expect("empty rank dir");
    let out = run_bounded(&["fleet", path(&far)]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(
        out.stdout.contains("absent ranks: 4-50000000"),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr
            .contains("left out: ranks 4-49999999: no `rank-NNNNN` directory")
            && out
                .stderr
                .contains("left out: rank 50000000: cannot read `"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_fifo_named_profile_json_is_refused_unopened() {
    let dir = tempfile::tempdir().expect("temp dir");
    for rank in 0..3 {
        write_rank(dir.path(), rank, Some(3), 0, 10);
    }
    let fifo = dir.path().join("rank-00001/profile.json");
    std::fs::remove_file(&fifo).expect("removed");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success(), "mkfifo {}", fifo.display());
    let out = run_bounded(&["fleet", path(&dir)]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(
        out.stderr.contains("left out: rank 1: `")
            && out
                .stderr
                .contains("rank-00001/profile.json` is a FIFO, not a regular file"),
        "{}",
        out.stderr
    );
    assert!(
        out.stdout.contains("2 of 3 ranks analysed"),
        "{}",
        out.stdout
    );
}

/// 1,000 ranks of 1,000 steps whose indices never overlap: a dense map
/// would hold 10^9 cells (16 GB), the pooled one at most 128 x 200.
#[test]
fn a_heat_map_of_far_apart_steps_stays_bounded() {
    let dir = tempfile::tempdir().expect("temp dir");
    for rank in 0..1_000u32 {
        write_rank(
            dir.path(),
            rank,
            Some(1_000),
            u64::from(rank) * 1_000,
            1_000,
        );
    }
    let html = dir.path().join("fleet.html");
    let out = run_bounded(&["fleet", path(&dir), "--html", html.to_str().expect("utf-8")]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(
        out.stdout.contains("1000 of 1000 ranks analysed"),
        "{}",
        out.stdout
    );
    let page = std::fs::read_to_string(&html).expect("page written");
    let marker = "id=\"fleet-heat-data\">";
    let start = page.find(marker).expect("heat data") + marker.len();
    let end = start + page[start..].find("</script>").expect("end of data");
    let heat: serde_json::Value = serde_json::from_str(&page[start..end]).expect("JSON");
    let rows = heat["rows"].as_array().expect("rows");
    // 125 rows of 8 ranks; a row's 8,000 steps fall in 2 or 3 columns of
    // 5,000 steps (1,000,000 steps in 200 columns).
    assert_eq!(rows.len(), 125);
    assert_eq!(heat["per"], 5_000);
    for row in rows {
        let filled = row[2]
            .as_array()
            .expect("cells")
            .iter()
            .filter(|c| !c.is_null())
            .count();
        assert!(
            (2..=3).contains(&filled),
            "{filled} cells: 2 or 3 per row of 8 ranks"
        );
    }
    assert!(page.contains("(5,000 steps a column)"), "the axis says so");
}
