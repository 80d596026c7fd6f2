//! Two ranks of the main job push to the real Pushgateway, which the real
//! Prometheus scrapes: both ranks' series arrive, grouped by run and rank,
//! and their final push equals each rank's profile.json. A gateway that is
//! unreachable or answers 500 is reported, and training goes on.

mod live_metrics;

use std::time::Duration;

use live_metrics::{MainJob, Prometheus, Pushgateway, brick_seconds};
use profiler_integration::{free_port, wait_for};

const STEPS: u64 = 30;

#[test]
fn two_ranks_push_their_series_through_the_pushgateway() {
    let gateway = Pushgateway::start();
    let prometheus = Prometheus::start(
        "pushgateway",
        &[format!("127.0.0.1:{}", gateway.port)],
        true,
    );
    let run = format!("push-test-{}", std::process::id());
    let url = gateway.url();
    let dirs =
        [tempfile::tempdir(), tempfile::tempdir()].map(|d| d.expect("a temporary directory"));
    let jobs: Vec<MainJob> = (0..2)
        .map(|rank| {
            let rank_text = rank.to_string();
            MainJob::start(
                STEPS,
                dirs[rank].path(),
                &["--pushgateway", &url, "--push-interval", "1"],
                &[
                    ("RANK", &rank_text),
                    ("WORLD_SIZE", "2"),
                    ("PROFILER_RUN_ID", &run),
                ],
            )
        })
        .collect();
    let mut finals = Vec::new();
    for (rank, job) in jobs.into_iter().enumerate() {
        let (status, stderr) = job.wait(Duration::from_secs(300));
        assert!(status.success(), "rank {rank} failed:\n{stderr}");
        assert!(
            !stderr.contains("failed"),
            "rank {rank}: a push failed:\n{stderr}"
        );
        finals.push(brick_seconds(&MainJob::profile(dirs[rank].path())));
    }

    // The gateway keeps each rank's final push; Prometheus scrapes it.
    for (rank, want) in finals.iter().enumerate() {
        let query = format!(r#"profiler_brick_seconds_total{{run="{run}",rank="{rank}"}}"#);
        let rows = wait_for(Duration::from_secs(30), || {
            let rows = prometheus.query(&query);
            (rows.len() == want.len()).then_some(rows)
        })
        .unwrap_or_else(|| panic!("rank {rank}: {query} did not arrive for every brick"));
        for (labels, value) in rows {
            assert_eq!(labels["world_size"], "2", "{labels:?}");
            assert_eq!(labels["job"], run, "{labels:?}");
            assert_eq!(labels["instance"], format!("rank-{rank}"), "{labels:?}");
            let brick = &labels["brick"];
            // The final push came after the profile was written: equal.
            assert!(
                (value - want[brick]).abs() <= 1e-9 * want[brick].max(1.0),
                "rank {rank} {brick}: pushed {value}, profile.json {}",
                want[brick]
            );
        }
        let steps = prometheus.query(&format!(
            r#"profiler_step_seconds_count{{run="{run}",rank="{rank}"}}"#
        ));
        assert!(
            steps.len() == 1 && steps[0].1 > 0.0,
            "rank {rank}: {steps:?}"
        );
        let failures = prometheus.query(&format!(
            r#"profiler_metrics_push_failures_total{{run="{run}",rank="{rank}"}}"#
        ));
        assert!(
            failures.len() == 1 && failures[0].1 == 0.0,
            "rank {rank}: {failures:?}"
        );
    }
}

#[test]
fn an_unreachable_pushgateway_is_reported_and_training_goes_on() {
    // A port that was free a moment ago: nothing listens there.
    let port = free_port().expect("a free port");
    let out = tempfile::tempdir().expect("a temporary directory");
    let url = format!("http://127.0.0.1:{port}");
    let job = MainJob::start(
        12,
        out.path(),
        &["--pushgateway", &url, "--push-interval", "0.2"],
        &[],
    );
    let (status, stderr) = job.wait(Duration::from_secs(300));
    assert!(status.success(), "training stopped:\n{stderr}");
    assert!(out.path().join("profile.json").is_file(), "{stderr}");
    assert!(
        stderr.contains(&format!("push to {url}/metrics/job/")) && stderr.contains("failed"),
        "no clear message:\n{stderr}"
    );
}

#[test]
fn a_pushgateway_answering_500_is_reported_and_training_goes_on() {
    let server = tiny_http::Server::http("127.0.0.1:0").expect("loopback can listen");
    let addr = server.server_addr().to_ip().expect("an IP address");
    let answering = std::thread::spawn(move || {
        let mut answered = 0u32;
        while let Ok(Some(request)) = server.recv_timeout(Duration::from_secs(5)) {
            let response =
                tiny_http::Response::from_string("broken on purpose").with_status_code(500);
            let _ = request.respond(response);
            answered += 1;
        }
        answered
    });
    let out = tempfile::tempdir().expect("a temporary directory");
    let url = format!("http://{addr}");
    let job = MainJob::start(
        12,
        out.path(),
        &["--pushgateway", &url, "--push-interval", "0.2"],
        &[],
    );
    let (status, stderr) = job.wait(Duration::from_secs(300));
    assert!(status.success(), "training stopped:\n{stderr}");
    assert!(out.path().join("profile.json").is_file(), "{stderr}");
    assert!(
        stderr.contains("answered HTTP 500: broken on purpose"),
        "no clear message:\n{stderr}"
    );
    // The server stops 5 s after the last push it answered.
    let answered = answering.join().expect("the 500 server ran");
    assert!(answered >= 1, "nothing was pushed");
}
