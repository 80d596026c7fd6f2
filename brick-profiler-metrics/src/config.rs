//! [`MetricsConfig`]: `Config::metrics_endpoint` and `Config::pushgateway`
//! as an extension of the profiler's `Config`, and [`Metrics`], the handle
//! that keeps the endpoint and the pusher running.

use std::net::SocketAddr;
use std::time::Duration;

use profiler_core::Config;

use crate::endpoint::Endpoint;
use crate::error::MetricsError;
use crate::push::Pusher;

/// Adds live metrics to the profiler's `Config`: bring the trait into scope
/// and name the metrics last, after the profiler's own settings.
///
/// ```no_run
/// use std::time::Duration;
/// use profiler_core::Config;
/// use profiler_metrics::MetricsConfig;
///
/// let metrics = Config::new()
///     .run_name("train")
///     .metrics_endpoint("127.0.0.1:9464")
///     .pushgateway("http://127.0.0.1:9091", Duration::from_secs(15))
///     .enable();
/// // ... train; problems (a port in use) were printed and are in `metrics.problems()`
/// drop(metrics); // the final push
/// ```
pub trait MetricsConfig {
    /// Serves `/metrics` on `addr` (`host:port`; port 0 picks a free one).
    fn metrics_endpoint(self, addr: impl Into<String>) -> WithMetrics;
    /// Pushes to the Pushgateway at `url` every `interval`, and at exit.
    fn pushgateway(self, url: impl Into<String>, interval: Duration) -> WithMetrics;
}

impl MetricsConfig for Config {
    fn metrics_endpoint(self, addr: impl Into<String>) -> WithMetrics {
        WithMetrics::from(self).metrics_endpoint(addr)
    }

    fn pushgateway(self, url: impl Into<String>, interval: Duration) -> WithMetrics {
        WithMetrics::from(self).pushgateway(url, interval)
    }
}

/// A profiler `Config` with live metrics named; `apply` or `enable` starts them.
#[must_use = "nothing is served until `apply()` or `enable()`"]
#[derive(Debug)]
pub struct WithMetrics {
    config: Config,
    endpoint: Option<String>,
    push: Option<(String, Duration)>,
}

impl From<Config> for WithMetrics {
    fn from(config: Config) -> Self {
        Self {
            config,
            endpoint: None,
            push: None,
        }
    }
}

impl WithMetrics {
    /// Serves `/metrics` on `addr` (`host:port`; port 0 picks a free one).
    pub fn metrics_endpoint(mut self, addr: impl Into<String>) -> Self {
        self.endpoint = Some(addr.into());
        self
    }

    /// Pushes to the Pushgateway at `url` every `interval`, and at exit.
    pub fn pushgateway(mut self, url: impl Into<String>, interval: Duration) -> Self {
        self.push = Some((url.into(), interval));
        self
    }

    /// Applies the profiler settings, then starts the endpoint and the
    /// pusher. Neither can fail the run: what could not start is printed
    /// on stderr and kept in [`Metrics::problems`].
    pub fn apply(self) -> Metrics {
        self.config.apply();
        start(self.endpoint, self.push)
    }

    /// Like [`WithMetrics::apply`], then turns recording on.
    pub fn enable(self) -> Metrics {
        let metrics = self.apply();
        profiler_core::enable();
        metrics
    }
}

fn start(endpoint: Option<String>, push: Option<(String, Duration)>) -> Metrics {
    let mut problems = Vec::new();
    let endpoint = endpoint.and_then(|addr| report(Endpoint::serve(&addr), &mut problems));
    let pusher =
        push.and_then(|(url, interval)| report(Pusher::start(&url, interval), &mut problems));
    Metrics {
        endpoint,
        pusher,
        problems,
    }
}

/// Keeps what started; prints and keeps the error of what did not.
fn report<T>(result: Result<T, MetricsError>, problems: &mut Vec<MetricsError>) -> Option<T> {
    match result {
        Ok(started) => Some(started),
        Err(e) => {
            eprintln!("brick-profiler-metrics: {e}; training goes on without it");
            problems.push(e);
            None
        }
    }
}

/// The running endpoint and pusher. Keep it for the whole run: dropping it
/// stops the endpoint and makes the final push.
#[derive(Debug, Default)]
pub struct Metrics {
    endpoint: Option<Endpoint>,
    pusher: Option<Pusher>,
    problems: Vec<MetricsError>,
}

impl Metrics {
    /// The endpoint's bound address, when it serves.
    #[must_use]
    pub fn endpoint_addr(&self) -> Option<SocketAddr> {
        self.endpoint.as_ref().map(Endpoint::addr)
    }

    /// The URL pushed to, when a pusher runs.
    #[must_use]
    pub fn push_url(&self) -> Option<&str> {
        self.pusher.as_ref().map(Pusher::url)
    }

    /// What could not start (each was printed on stderr).
    #[must_use]
    pub fn problems(&self) -> &[MetricsError] {
        &self.problems
    }

    /// Makes the final push and stops the endpoint; returns the final
    /// push's error (already printed), if any.
    ///
    /// # Errors
    /// The final push failed or did not end within its wait.
    pub fn finish(mut self) -> Result<(), MetricsError> {
        let pushed = self.pusher.take().map_or(Ok(()), Pusher::finish);
        if let Some(endpoint) = self.endpoint.take() {
            endpoint.stop();
        }
        pushed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_in_use_is_a_problem_not_a_failure() {
        let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("loopback can listen");
        let addr = taken.local_addr().expect("bound").to_string();
        let metrics = Config::new().metrics_endpoint(addr.clone()).apply();
        assert_eq!(metrics.endpoint_addr(), None);
        assert_eq!(metrics.problems().len(), 1);
        let text = metrics.problems()[0].to_string();
        assert!(text.contains(&addr) && text.contains("in use"), "{text}");
    }

    #[test]
    fn both_named_both_start() {
        let metrics = Config::new()
            .metrics_endpoint("127.0.0.1:0")
            .pushgateway("http://127.0.0.1:9", Duration::from_secs(3600))
            .apply();
        assert!(metrics.problems().is_empty(), "{:?}", metrics.problems());
        assert!(metrics.endpoint_addr().is_some());
        assert!(
            metrics
                .push_url()
                .is_some_and(|u| u.contains("/metrics/job/"))
        );
    }
}
