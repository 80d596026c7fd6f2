//! The real Prometheus server scrapes the main job's `/metrics` every
//! second: step time, tokens/s and brick seconds arrive with the rank
//! labels, and the last scraped brick seconds agree with the run's final
//! profile.json within one scrape interval.

mod live_metrics;

use std::time::Duration;

use live_metrics::{MainJob, Prometheus, brick_seconds};

/// Long enough (about 15 s in a debug build on a quiet 2-core machine) for
/// several scrapes while the job trains; Prometheus is up before it starts.
const STEPS: u64 = 600;
const SCRAPE_INTERVAL_S: f64 = 1.0;

#[test]
fn prometheus_scrapes_step_time_tokens_and_bricks_with_rank_labels() {
    let out = tempfile::tempdir().expect("a temporary directory");
    // Prometheus first, scraping the port the job will serve on, so that
    // scrapes arrive while the job trains however fast the machine is; the
    // job lingers a few seconds so the last scrape sees its final values.
    let port = profiler_integration::free_port().expect("a free port");
    let addr = format!("127.0.0.1:{port}");
    let prometheus = Prometheus::start("train_tiny", std::slice::from_ref(&addr), false);
    let mut job = MainJob::start(
        STEPS,
        out.path(),
        &["--metrics", &addr, "--metrics-linger", "3"],
        &[],
    );
    let line = job
        .line_with("serving http://", Duration::from_secs(60))
        .expect("the main job reports the endpoint's address");
    assert!(line.contains(&addr), "{line}");
    // Scrapes arrive while the job trains.
    let scraped = profiler_integration::wait_for(Duration::from_secs(60), || {
        let rows = prometheus.query("profiler_steps_total");
        rows.first().filter(|(_, v)| *v > 0.0).cloned()
    });
    assert!(scraped.is_some(), "no scrape with recorded steps arrived");

    let (status, stderr) = job.wait(Duration::from_secs(300));
    assert!(status.success(), "the main job failed:\n{stderr}");
    let profile = MainJob::profile(out.path());
    let run_id = profile["run"]["run_id"]
        .as_str()
        .expect("run id")
        .to_owned();

    // The target is gone now: read each series' last scraped value.
    let last = |metric: &str| prometheus.query(&format!("last_over_time({metric}[10m])"));
    let steps = last("profiler_step_seconds_count");
    assert_eq!(steps.len(), 1, "{steps:?}");
    let (labels, count) = &steps[0];
    assert!(*count > 0.0, "{count}");
    for (name, want) in [("rank", "0"), ("world_size", "1"), ("run", run_id.as_str())] {
        assert_eq!(
            labels.get(name).map(String::as_str),
            Some(want),
            "{labels:?}"
        );
    }
    assert!(labels.contains_key("host"), "{labels:?}");
    let tok_s = last("profiler_tokens_per_second");
    assert!(tok_s.len() == 1 && tok_s[0].1 > 0.0, "{tok_s:?}");
    let scrapes = prometheus.query("count_over_time(profiler_steps_total[10m])");
    assert!(
        scrapes.first().is_some_and(|(_, n)| *n >= 2.0),
        "{scrapes:?}"
    );

    // The README's question "which rank is slowest" answers here.
    let slowest = prometheus.query(
        "topk(1, sum by (run, rank) (rate(profiler_step_seconds_sum[10m])) \
         / sum by (run, rank) (rate(profiler_step_seconds_count[10m])))",
    );
    assert!(
        slowest.len() == 1 && slowest[0].0["rank"] == "0" && slowest[0].1 > 0.0,
        "{slowest:?}"
    );

    // Brick seconds: the last scrape came at most one interval before the
    // end of training, so each brick may lack at most what it gathers in
    // one interval (at its average rate, with half again for jitter), and
    // never exceeds the final value.
    let final_seconds = brick_seconds(&profile);
    let step_seconds = profile["steps"]["total_ns"].as_u64().expect("steps") as f64 / 1e9;
    let scraped = last("profiler_brick_seconds_total");
    assert_eq!(scraped.len(), final_seconds.len(), "{scraped:?}");
    for (labels, value) in &scraped {
        assert_eq!(
            labels.get("rank").map(String::as_str),
            Some("0"),
            "{labels:?}"
        );
        let brick = &labels["brick"];
        let want = final_seconds[brick];
        let slack = want * 1.5 * SCRAPE_INTERVAL_S / step_seconds + 1e-3;
        assert!(
            *value <= want + 1e-9 && want - value <= slack,
            "{brick}: scraped {value} s, profile.json {want} s (slack {slack} s)"
        );
    }
}
