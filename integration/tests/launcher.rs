//! The main job's launcher as a user runs it: `--ranks 2` with
//! `--no-ceilings` and `--metrics HOST:PORT` starts both ranks, each
//! serving on its own port (the port plus its rank); a port that would
//! pass 65535 for some rank is refused before any rank starts.

use std::net::TcpListener;
use std::process::Command;

const EXE: &str = env!("CARGO_BIN_EXE_train_tiny");

/// A loopback port that, with the next one, was free a moment ago.
fn two_free_ports() -> u16 {
    (0..50)
        .find_map(|_| {
            let first = TcpListener::bind("127.0.0.1:0").ok()?;
            let port = first.local_addr().ok()?.port();
            let next = port.checked_add(1)?;
            TcpListener::bind(("127.0.0.1", next)).ok().map(|_| port)
        })
        .expect("two adjacent free loopback ports")
}

fn tiny_run(out: &std::path::Path) -> Command {
    let mut cmd = Command::new(EXE);
    cmd.arg("--out").arg(out).args([
        "--steps",
        "4",
        "--warmup",
        "1",
        "--layers",
        "1",
        "--width",
        "16",
        "--heads",
        "2",
        "--seq",
        "8",
        "--batch",
        "2",
        "--log-every",
        "100",
    ]);
    cmd
}

#[test]
fn two_ranks_take_no_ceilings_and_serve_on_adjacent_ports() {
    let out = tempfile::tempdir().expect("temp dir");
    let port = two_free_ports();
    let done = tiny_run(out.path())
        .args(["--ranks", "2", "--no-ceilings", "--metrics"])
        .arg(format!("127.0.0.1:{port}"))
        .output()
        .expect("the launcher starts");
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(done.status.success(), "{}: {stderr}", done.status);
    for rank_port in [port, port + 1] {
        assert!(
            stderr.contains(&format!("serving http://127.0.0.1:{rank_port}/metrics")),
            "no rank served on {rank_port}: {stderr}"
        );
    }
    assert!(!stderr.contains("in use"), "{stderr}");
    for rank in ["rank-00000", "rank-00001"] {
        assert!(
            out.path().join(rank).join("profile.json").is_file(),
            "{rank}"
        );
    }
}

#[test]
fn a_port_past_65535_for_a_rank_is_refused_before_any_rank_starts() {
    let out = tempfile::tempdir().expect("temp dir");
    let done = tiny_run(&out.path().join("run"))
        .args(["--ranks", "2", "--metrics", "127.0.0.1:65535"])
        .output()
        .expect("the launcher starts");
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(!done.status.success(), "{stderr}");
    assert!(
        stderr.contains("rank 1 would serve on port 65536"),
        "{stderr}"
    );
    assert!(!out.path().join("run").exists(), "a rank started");
}
