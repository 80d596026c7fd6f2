//! [`MetricsError`]: what went wrong starting the endpoint or pushing, with
//! the address or URL it concerned; and the count of failed pushes, which
//! every scrape exports.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Failed pushes of this process, over every pusher.
static PUSH_FAILURES: AtomicU64 = AtomicU64::new(0);

/// Pushes that failed in this process so far (also exported as
/// `profiler_metrics_push_failures_total`).
#[must_use]
pub fn failures() -> u64 {
    PUSH_FAILURES.load(Ordering::Relaxed)
}

/// Counts one failed push.
pub(crate) fn count_failed_push() {
    PUSH_FAILURES.fetch_add(1, Ordering::Relaxed);
}

/// An endpoint that could not start, or a push that failed.
#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    /// The endpoint's address does not parse or resolve.
    #[error(
        "metrics endpoint: `{addr}` is not a socket address (host:port, e.g. 127.0.0.1:9464): {reason}"
    )]
    BadAddress {
        /// The address as given.
        addr: String,
        /// Why it was refused.
        reason: String,
    },
    /// The endpoint could not listen (address in use, no permission).
    #[error(
        "metrics endpoint: cannot listen on {addr}: {reason} (is another process using this port? port 0 picks a free one)"
    )]
    Bind {
        /// The address as given.
        addr: String,
        /// What the system said.
        reason: String,
    },
    /// The Pushgateway URL is not an `http://host:port` URL.
    #[error("pushgateway: `{url}` is not an http:// URL (e.g. http://127.0.0.1:9091): {reason}")]
    BadUrl {
        /// The URL as given.
        url: String,
        /// Why it was refused.
        reason: String,
    },
    /// A push did not reach the Pushgateway (refused, timed out, no route).
    #[error("pushgateway: push to {url} failed: {reason}")]
    Unreachable {
        /// The URL pushed to.
        url: String,
        /// What the client said.
        reason: String,
    },
    /// The Pushgateway answered with an error status.
    #[error("pushgateway: push to {url} answered HTTP {status}: {body}")]
    Status {
        /// The URL pushed to.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The start of the answer's body (300 characters), as one
        /// visible line: control characters, line breaks and bidi controls
        /// escaped (`\x1b`, `\n`, `\u{202e}`).
        body: String,
    },
    /// The pusher's final push did not finish in time at exit.
    #[error(
        "pushgateway: the final push to {url} did not finish within {waited:?}; training was not held up"
    )]
    FinalPushTimedOut {
        /// The URL pushed to.
        url: String,
        /// How long exit waited.
        waited: Duration,
    },
    /// The metrics could not be written (a label value the format refuses).
    #[error("metrics: cannot encode the exposition: {0}")]
    Encode(#[from] std::fmt::Error),
}
