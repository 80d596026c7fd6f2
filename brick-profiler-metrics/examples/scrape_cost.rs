//! What one scrape costs on a big run: 1,000 bricks recorded on each of 16
//! live threads, then the time of a snapshot alone, of a snapshot written as
//! OpenMetrics, and of a whole scrape over HTTP from the endpoint.
//!
//! ```text
//! cargo run --release -p brick-profiler-metrics --example scrape_cost
//! ```

use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use profiler_metrics::{Endpoint, Format, scrape};

const BRICKS: usize = 1_000;
const THREADS: usize = 16;
const SCRAPES: usize = 50;

fn main() {
    profiler_core::enable();
    // Threads stay alive while the scrapes run, as in training: their
    // per-thread storage is what a snapshot merges.
    let recorded = Arc::new(Barrier::new(THREADS + 1));
    let done = Arc::new(Barrier::new(THREADS + 1));
    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            let (recorded, done) = (Arc::clone(&recorded), Arc::clone(&done));
            std::thread::spawn(move || {
                for b in 0..BRICKS {
                    let name = format!("brick_{b:04}");
                    for call in 0..4u64 {
                        let ns = 1_000 + (b as u64 * 7 + t as u64 * 13 + call) % 5_000;
                        profiler_core::compat::record_elapsed(&name, Duration::from_nanos(ns), 64);
                    }
                }
                recorded.wait();
                done.wait();
            })
        })
        .collect();
    recorded.wait();

    let text = scrape(Format::OpenMetrics).expect("encodes");
    let series = text
        .lines()
        .filter(|l| l.starts_with("profiler_brick_seconds_total"))
        .count();
    println!(
        "{THREADS} threads x {BRICKS} bricks: {series} brick series, {} bytes per scrape",
        text.len()
    );

    let snapshot = time(|| {
        let _ = profiler_core::snapshot();
    });
    report("snapshot alone", &snapshot);
    let encode = time(|| {
        let _ = scrape(Format::OpenMetrics).expect("encodes");
    });
    report("snapshot + OpenMetrics encode", &encode);

    let endpoint = Endpoint::serve("127.0.0.1:0").expect("loopback can listen");
    let agent = ureq::Agent::new_with_config(ureq::config::Config::builder().build());
    let url = endpoint.url();
    let http = time(|| {
        let body = agent
            .get(&url)
            .call()
            .expect("scrape")
            .into_body()
            .read_to_string();
        assert!(body.is_ok_and(|b| b.ends_with("# EOF\n")));
    });
    report("whole HTTP scrape of /metrics", &http);

    done.wait();
    for w in workers {
        let _ = w.join();
    }
}

/// Wall times of `SCRAPES` calls, sorted, ms; and the mean CPU time of
/// this thread per call, ms (where Linux tells it), which a busy machine
/// does not inflate the way it inflates wall time.
fn time(mut f: impl FnMut()) -> (Vec<f64>, Option<f64>) {
    f(); // warm
    let cpu_before = thread_cpu_ns();
    let mut ms: Vec<f64> = (0..SCRAPES)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    let cpu = thread_cpu_ns()
        .zip(cpu_before)
        .map(|(after, before)| (after - before) as f64 / 1e6 / SCRAPES as f64);
    ms.sort_by(f64::total_cmp);
    (ms, cpu)
}

/// Time this thread has run on a CPU, ns (Linux's schedstat).
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn report(what: &str, (ms, cpu): &(Vec<f64>, Option<f64>)) {
    let at = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
    let cpu = cpu.map_or("-".to_owned(), |c| format!("{c:.2} ms"));
    println!(
        "{what}: wall median {:.2} ms, p90 {:.2} ms, max {:.2} ms; CPU of this thread {cpu} per scrape ({} scrapes)",
        at(0.5),
        at(0.9),
        at(1.0),
        ms.len()
    );
}
