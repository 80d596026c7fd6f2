//! `fleet` end to end: the slow rank of a run directory is named in every
//! format, `--fail-above` turns it into exit 1, `--html` writes the heat
//! map, and a bad directory is an input error naming it.

mod common;

use common::run;
use profiler_core::{BrickCategory, BrickStats, Profile};

/// A run of `world` ranks whose rank `slow` takes twice as long per step.
fn run_dir(world: u32, slow: u32) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for rank in 0..world {
        let step_ns = if rank == slow {
            20_000_000
        } else {
            10_000_000 + u64::from(rank) * 10_000
        };
        let mut p = Profile::empty();
        p.run.rank = Some(rank);
        p.run.world_size = Some(world);
        p.run.run_id = "job".into();
        p.steps.samples_ns = vec![step_ns; 10];
        p.steps.samples_index = (0..10).collect();
        let mut b = BrickStats::new("MatMul", BrickCategory::Ffn);
        b.total_ns = step_ns * 5;
        b.count = 10;
        p.bricks.push(b);
        let rank_dir = dir.path().join(format!("rank-{rank:05}"));
        std::fs::create_dir_all(&rank_dir).expect("rank dir");
        p.write(rank_dir.join("profile.json"))
            .expect("profile written");
    }
    dir
}

#[test]
fn the_slow_rank_is_named_and_fails_the_check() {
    let dir = run_dir(6, 4);
    let path = dir.path().to_str().expect("utf-8 temp dir");
    let out = run(&["fleet", path]).expect(0);
    assert!(out.stdout.contains("straggler: rank 4;"), "{}", out.stdout);
    let out = run(&["fleet", path, "--fail-above", "0.5"]).expect(1);
    assert!(
        out.stdout.contains("rank 4 stands out in median step"),
        "{}",
        out.stdout
    );
    // 100% over the median: not above a 150% limit.
    run(&["fleet", path, "--fail-above", "1.5"]).expect(0);
    let out = run(&["fleet", path, "--format", "json"]).expect(0);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(json["stragglers"][0]["rank"], 4);
    let out = run(&["fleet", path, "--format", "markdown"]).expect(0);
    assert!(out.stdout.contains("| 4 | median step |"), "{}", out.stdout);
    let html = dir.path().join("fleet.html");
    run(&["fleet", path, "--html", html.to_str().expect("utf-8")]).expect(0);
    let page = std::fs::read_to_string(&html).expect("page written");
    let heat = heat_data(&page);
    let rows = heat["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 6, "6 ranks");
    assert!(
        rows.iter()
            .all(|r| r[2].as_array().map(Vec::len) == Some(10)),
        "10 steps"
    );
    // The page sits in the run directory: links start at the rank's folder.
    assert!(page.contains("href=\"rank-00004/profile.json\""));
    // Written elsewhere, its links lead back to the run directory.
    let out_dir = tempfile::tempdir().expect("temp dir");
    let elsewhere = out_dir.path().join("fleet.html");
    run(&["fleet", path, "--html", elsewhere.to_str().expect("utf-8")]).expect(0);
    let page = std::fs::read_to_string(&elsewhere).expect("page written");
    let at = page
        .find("/rank-00004/profile.json\"")
        .expect("rank 4 linked");
    let href = &page[page[..at].rfind("href=\"").expect("href") + 6..at];
    let target = out_dir
        .path()
        .join(format!("{href}/rank-00004/profile.json"));
    assert!(target.is_file(), "{href} leads to the run directory");
}

/// The fleet page's heat map values (its tooltip's JSON).
fn heat_data(page: &str) -> serde_json::Value {
    let marker = "id=\"fleet-heat-data\">";
    let start = page.find(marker).expect("heat data") + marker.len();
    let end = start + page[start..].find("</script>").expect("end of data");
    serde_json::from_str(&page[start..end]).expect("heat data is JSON")
}

#[test]
fn a_missing_rank_is_listed_and_a_bad_directory_is_an_input_error() {
    let dir = run_dir(4, 9);
    std::fs::remove_dir_all(dir.path().join("rank-00002")).expect("removed");
    std::fs::create_dir_all(dir.path().join("rank-00003/x")).expect("dir");
    std::fs::write(dir.path().join("rank-00003/profile.json"), "{\"run\": {").expect("truncated");
    let out = run(&["fleet", dir.path().to_str().expect("utf-8")]).expect(0);
    assert!(out.stdout.contains("absent ranks: 2-3"), "{}", out.stdout);
    assert!(
        out.stderr.contains("left out: rank 3: malformed profile")
            && out
                .stderr
                .contains("rank-00003/profile.json`: EOF while parsing"),
        "{}",
        out.stderr
    );
    let out = run(&["fleet", "no/such/run"]).expect(2);
    assert!(out.stderr.contains("no/such/run"), "{}", out.stderr);
}

#[test]
fn rank_profiles_are_read_through_the_one_reader() {
    use std::io::Write as _;
    let plain = run_dir(6, 4);
    let dir = run_dir(6, 4);
    let rank = |r: u32| dir.path().join(format!("rank-{r:05}/profile.json"));
    // The slow rank's profile gzipped in place: read as it was.
    let bytes = std::fs::read(rank(4)).expect("profile");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(&bytes).expect("gzip");
    std::fs::write(rank(4), e.finish().expect("gzip")).expect("gzipped profile");
    let json = |d: &std::path::Path| {
        let out = run(&["fleet", d.to_str().expect("utf-8"), "--format", "json"]).expect(0);
        serde_json::from_str::<serde_json::Value>(&out.stdout).expect("JSON")
    };
    let (a, b) = (json(plain.path()), json(dir.path()));
    assert_eq!(b["stragglers"], a["stragglers"]);
    assert_eq!(b["stragglers"][0]["rank"], 4);
    // A folder where a profile should be is named for what it is, not
    // called malformed; the other ranks are still analysed.
    std::fs::remove_file(rank(2)).expect("removed");
    std::fs::create_dir(rank(2)).expect("a folder in its place");
    let out = run(&["fleet", dir.path().to_str().expect("utf-8")]).expect(0);
    assert!(
        out.stderr
            .contains("rank-00002/profile.json` is a directory, not a regular file"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("malformed"), "{}", out.stderr);
    assert!(out.stdout.contains("straggler: rank 4;"), "{}", out.stdout);
}

#[cfg(unix)]
#[test]
fn a_fifo_for_a_rank_profile_is_left_out_without_waiting_for_a_writer() {
    let dir = run_dir(4, 3);
    let fifo = dir.path().join("rank-00001/profile.json");
    std::fs::remove_file(&fifo).expect("removed");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(
        made.is_ok_and(|s| s.success()),
        "mkfifo (coreutils) made no FIFO"
    );
    let out = common::run_bounded(dir.path(), &["fleet", "."]).expect("fleet waited on the FIFO");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("rank 1: `./rank-00001/profile.json` is a FIFO, not a regular file"),
        "{}",
        out.stderr
    );
}

/// A run id is text from a file: its terminal escapes, bell and bidi
/// controls are shown escaped on stderr, never sent to the terminal.
#[test]
fn a_hostile_run_id_is_escaped_on_stderr() {
    let dir = run_dir(4, 9);
    let file = dir.path().join("rank-00001/profile.json");
    let mut p = Profile::read(&file).expect("written above");
    p.run.run_id = "\u{1b}]0;pwned\u{7}\u{202e}job".into();
    p.write(&file).expect("rewritten");
    let out = run(&["fleet", dir.path().to_str().expect("utf-8")]).expect(0);
    assert!(
        out.stderr.contains("left out: rank 1: `rank-00001/profile.json` has run id `\\x1b]0;pwned\\x07\\u{202e}job`"),
        "{}",
        out.stderr
    );
    assert!(
        !out.stderr.contains('\u{1b}')
            && !out.stderr.contains('\u{7}')
            && !out.stderr.contains('\u{202e}'),
        "{:?}",
        out.stderr
    );
}
