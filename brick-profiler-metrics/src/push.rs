//! [`Pusher`]: pushes the metrics to a Prometheus Pushgateway from a
//! background thread every interval, and once more when it finishes. A
//! failed push is counted, reported on stderr and retried with backoff;
//! training never waits for it.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::encode::{Format, scrape};
use crate::error::{MetricsError, count_failed_push, failures};
use crate::labels::RankLabels;

/// First delay after a failed push; it doubles with every further failure.
const FIRST_BACKOFF: Duration = Duration::from_millis(250);
/// Longest delay between retries.
const MAX_BACKOFF: Duration = Duration::from_secs(60);
/// Longest one push may take, connection included: a hung gateway must not
/// hold the final push at exit for long.
const PUSH_TIMEOUT: Duration = Duration::from_secs(5);
/// Tries of the final push, within the time `finish` waits.
const FINAL_TRIES: u32 = 3;
/// How long `finish` waits for the final push.
const FINAL_WAIT: Duration = Duration::from_secs(15);

/// A running pusher; [`Pusher::finish`] (or dropping it) makes the final push.
#[derive(Debug)]
pub struct Pusher {
    url: String,
    stop: Option<mpsc::Sender<()>>,
    done: mpsc::Receiver<Option<MetricsError>>,
    thread: Option<JoinHandle<()>>,
}

impl Pusher {
    /// Starts pushing to the Pushgateway at `gateway` (`http://host:port`)
    /// every `interval`, grouped by `job` = run and `instance` = rank.
    ///
    /// # Errors
    /// [`MetricsError::BadUrl`] when `gateway` is not an `http://` URL. An
    /// unreachable gateway is not an error here: pushes are retried.
    pub fn start(gateway: &str, interval: Duration) -> Result<Self, MetricsError> {
        let base = gateway.trim().trim_end_matches('/');
        let host = base
            .strip_prefix("http://")
            .ok_or_else(|| MetricsError::BadUrl {
                url: gateway.to_owned(),
                reason: "only http:// is supported".to_owned(),
            })?;
        if host.is_empty() || host.contains('/') {
            return Err(MetricsError::BadUrl {
                url: gateway.to_owned(),
                reason: "expected http://host:port with no path".to_owned(),
            });
        }
        let url = format!("{base}/metrics/{}", RankLabels::current().grouping_path());
        let (stop_tx, stop_rx) = mpsc::channel();
        let (done_tx, done) = mpsc::channel();
        let target = url.clone();
        let thread = std::thread::Builder::new()
            .name("profiler-push".to_owned())
            .spawn(move || {
                let last = push_loop(&target, interval.max(Duration::from_millis(100)), &stop_rx);
                // `finish` may have stopped waiting; nobody to tell then.
                let _ = done_tx.send(last);
            })
            .map_err(|e| MetricsError::BadUrl {
                url: gateway.to_owned(),
                reason: format!("cannot start the pushing thread: {e}"),
            })?;
        eprintln!("brick-profiler-metrics: pushing to {url} every {interval:?}");
        Ok(Self {
            url,
            stop: Some(stop_tx),
            done,
            thread: Some(thread),
        })
    }

    /// The URL pushed to, grouping key included.
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Makes the final push and stops. Waits at most 15 s.
    ///
    /// # Errors
    /// The final push's failure (reported on stderr as well), or
    /// [`MetricsError::FinalPushTimedOut`] when it did not end in time.
    pub fn finish(mut self) -> Result<(), MetricsError> {
        self.shut_down()
    }

    fn shut_down(&mut self) -> Result<(), MetricsError> {
        let Some(stop) = self.stop.take() else {
            return Ok(());
        };
        // The loop may already have ended; then `done` holds its answer.
        let _ = stop.send(());
        match self.done.recv_timeout(FINAL_WAIT) {
            Ok(result) => {
                if let Some(thread) = self.thread.take() {
                    let _ = thread.join();
                }
                result.map_or(Ok(()), Err)
            }
            Err(_) => {
                let err = MetricsError::FinalPushTimedOut {
                    url: self.url.clone(),
                    waited: FINAL_WAIT,
                };
                eprintln!("brick-profiler-metrics: {err}");
                Err(err)
            }
        }
    }
}

impl Drop for Pusher {
    fn drop(&mut self) {
        // Already reported on stderr; a drop has nobody else to tell.
        let _ = self.shut_down();
    }
}

/// Pushes every `interval` until told to stop, then pushes once more;
/// returns the final push's error, if any.
fn push_loop(url: &str, interval: Duration, stop: &mpsc::Receiver<()>) -> Option<MetricsError> {
    let agent = agent();
    let mut failed_in_a_row = 0u32;
    let mut next = interval;
    // Anything but a timeout means told to stop, or the pusher is gone:
    // then the final push follows the loop.
    while let Err(RecvTimeoutError::Timeout) = stop.recv_timeout(next) {
        next = match push_once(&agent, url) {
            Ok(()) => {
                if failed_in_a_row > 0 {
                    eprintln!("brick-profiler-metrics: push to {url} works again");
                }
                failed_in_a_row = 0;
                interval
            }
            Err(e) => {
                failed_in_a_row += 1;
                let delay = backoff(failed_in_a_row);
                // One line per streak and then every tenth, not one per try.
                if failed_in_a_row == 1 || failed_in_a_row.is_multiple_of(10) {
                    eprintln!(
                        "brick-profiler-metrics: {e} (failure {}, retrying in {delay:?}; training goes on)",
                        failures()
                    );
                }
                delay
            }
        };
    }
    let deadline = Instant::now() + FINAL_WAIT - PUSH_TIMEOUT;
    let mut last = None;
    for attempt in 1..=FINAL_TRIES {
        match push_once(&agent, url) {
            Ok(()) => return None,
            Err(e) => {
                eprintln!("brick-profiler-metrics: final {e} (try {attempt} of {FINAL_TRIES})");
                last = Some(e);
            }
        }
        let delay = backoff(attempt);
        if Instant::now() + delay >= deadline {
            break;
        }
        std::thread::sleep(delay);
    }
    last
}

/// Delay before the next try after `failed_in_a_row` failures.
pub(crate) fn backoff(failed_in_a_row: u32) -> Duration {
    let doublings = failed_in_a_row.saturating_sub(1).min(16);
    FIRST_BACKOFF
        .saturating_mul(1 << doublings)
        .min(MAX_BACKOFF)
}

fn agent() -> ureq::Agent {
    let config = ureq::config::Config::builder()
        .timeout_global(Some(PUSH_TIMEOUT))
        .http_status_as_error(false)
        .build();
    ureq::Agent::new_with_config(config)
}

/// One push of a fresh snapshot, replacing this group's metrics (PUT).
fn push_once(agent: &ureq::Agent, url: &str) -> Result<(), MetricsError> {
    let result = push_body(agent, url);
    if result.is_err() {
        count_failed_push();
    }
    result
}

fn push_body(agent: &ureq::Agent, url: &str) -> Result<(), MetricsError> {
    let body = scrape(Format::PrometheusText)?;
    let response = agent
        .put(url)
        .header("Content-Type", Format::PrometheusText.content_type())
        .send(body.as_str())
        .map_err(|e| MetricsError::Unreachable {
            url: url.to_owned(),
            reason: e.to_string(),
        })?;
    let status = response.status().as_u16();
    if (200..300).contains(&status) {
        return Ok(());
    }
    let text = response
        .into_body()
        .with_config()
        .limit(4096)
        .read_to_string()
        .unwrap_or_default();
    Err(MetricsError::Status {
        url: url.to_owned(),
        status,
        body: shown_body(&text),
    })
}

/// The start of a gateway's answer as one visible line: whatever it sent
/// (escape sequences, line breaks, bidi controls) cannot drive the
/// terminal it is printed on.
fn shown_body(text: &str) -> String {
    let start: String = text.trim().chars().take(300).collect();
    if start.is_empty() {
        return "(empty answer)".to_owned();
    }
    profiler_visible::visible(&start).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gateway_answer_is_shown_as_one_visible_line() {
        assert_eq!(shown_body("disk full\n"), "disk full");
        assert_eq!(
            shown_body("\x1b]0;owned\x07bad\nline \u{202e}gnp"),
            "\\x1b]0;owned\\x07bad\\nline \\u{202e}gnp"
        );
        assert_eq!(shown_body("  "), "(empty answer)");
        assert_eq!(shown_body(&"x".repeat(1000)).len(), 300);
    }

    #[test]
    fn backoff_doubles_up_to_a_minute() {
        assert_eq!(backoff(1), Duration::from_millis(250));
        assert_eq!(backoff(2), Duration::from_millis(500));
        assert_eq!(backoff(4), Duration::from_secs(2));
        assert_eq!(backoff(40), MAX_BACKOFF);
    }

    #[test]
    fn only_http_urls_are_taken() {
        for bad in ["https://gw:9091", "gw:9091", "http://", "http://gw:9091/x"] {
            let err = Pusher::start(bad, Duration::from_secs(1)).unwrap_err();
            assert!(matches!(err, MetricsError::BadUrl { .. }), "{bad}: {err:?}");
            assert!(err.to_string().contains(bad.trim_end_matches('/')), "{err}");
        }
    }
}
