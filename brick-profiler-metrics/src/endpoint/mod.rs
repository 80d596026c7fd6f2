//! [`Endpoint`]: `/metrics` served from one background thread. Each request
//! takes a snapshot and writes it; nothing runs between scrapes, so the
//! recording path pays nothing for the endpoint.
//!
//! The thread runs one current-thread tokio runtime: connections are tasks,
//! not threads, at most 32 at once (more are closed on arrival), each
//! served by hyper under the limits of `connection.rs`. Stopping drops the
//! runtime and with it every connection, so no client, however slow or
//! stuck, can hold the training job.

mod connection;
mod deadline;

use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use tokio::sync::{Semaphore, oneshot};

use crate::error::MetricsError;

#[cfg(feature = "fuzzing")]
pub use connection::{MAX_HEAD, serve as serve_connection};

/// Most connections served at once; one more is closed as it arrives. A
/// Prometheus server keeps one per target (two for a redundant pair).
const MAX_CONNECTIONS: usize = 32;

/// A running `/metrics` endpoint; dropping it (or [`Endpoint::stop`]) stops
/// serving.
pub struct Endpoint {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Endpoint {
    /// Listens on `addr` (`host:port`; port 0 picks a free port) and serves
    /// `/metrics` in the OpenMetrics text format from a background thread.
    /// The bound address is in [`Endpoint::addr`] and in a line on stderr.
    ///
    /// # Errors
    /// [`MetricsError::BadAddress`] when `addr` does not resolve,
    /// [`MetricsError::Bind`] when nothing can listen there (in use, no
    /// permission).
    pub fn serve(addr: &str) -> Result<Self, MetricsError> {
        let resolved: Vec<SocketAddr> = addr
            .to_socket_addrs()
            .map_err(|e| MetricsError::BadAddress {
                addr: addr.to_owned(),
                reason: e.to_string(),
            })?
            .collect();
        if resolved.is_empty() {
            return Err(MetricsError::BadAddress {
                addr: addr.to_owned(),
                reason: "it resolves to no address".to_owned(),
            });
        }
        let bind_error = |reason: String| MetricsError::Bind {
            addr: addr.to_owned(),
            reason,
        };
        let listener = TcpListener::bind(&resolved[..]).map_err(|e| bind_error(e.to_string()))?;
        let bound = listener
            .local_addr()
            .map_err(|e| bind_error(e.to_string()))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| bind_error(format!("cannot make the socket non-blocking: {e}")))?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .map_err(|e| bind_error(format!("cannot start the serving runtime: {e}")))?;
        let listener = {
            let _inside = runtime.enter();
            tokio::net::TcpListener::from_std(listener).map_err(|e| bind_error(e.to_string()))?
        };
        let (stop, stopped) = oneshot::channel();
        let thread = std::thread::Builder::new()
            .name("brick-profiler-metrics".to_owned())
            .spawn(move || {
                runtime.block_on(async {
                    tokio::select! {
                        _ = stopped => {}
                        () = accept(listener) => {}
                    }
                });
                // Dropping the runtime drops every connection still open,
                // mid-answer or not, without waiting for its client.
                drop(runtime);
            })
            .map_err(|e| bind_error(format!("cannot start the serving thread: {e}")))?;
        eprintln!("brick-profiler-metrics: serving http://{bound}/metrics");
        Ok(Self {
            addr: bound,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// The address the endpoint listens on (the chosen port when 0 was asked).
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The full URL of the metrics page.
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://{}/metrics", self.addr)
    }

    /// Stops serving: closes the listener and every open connection, and
    /// waits for the serving thread, which waits for no client.
    pub fn stop(mut self) {
        self.shut_down();
    }

    fn shut_down(&mut self) {
        if let Some(stop) = self.stop.take() {
            // The thread may be gone already (it panicked); then so is all.
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            // A panic in the serving thread already printed itself; the
            // endpoint is gone either way.
            let _ = thread.join();
        }
    }
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("addr", &self.addr)
            .finish()
    }
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        self.shut_down();
    }
}

/// Accepts connections for ever, serving each as a task while fewer than
/// [`MAX_CONNECTIONS`] are open, closing it at once otherwise.
async fn accept(listener: tokio::net::TcpListener) {
    let open = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(_) => {
                // Out of file descriptors or a connection reset before it
                // was accepted: wait a little rather than spin on it.
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(permit) = Arc::clone(&open).try_acquire_owned() else {
            drop(stream);
            continue;
        };
        // Without it an answer's last segment waits for the scraper's
        // delayed ACK (about 40 ms on Linux); a socket that refuses it
        // still serves.
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            connection::serve(stream).await;
            drop(permit);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_zero_picks_a_port_and_reports_it() {
        let endpoint = Endpoint::serve("127.0.0.1:0").expect("loopback can listen");
        assert_ne!(endpoint.addr().port(), 0);
        assert!(endpoint.url().ends_with("/metrics"), "{}", endpoint.url());
    }

    #[test]
    fn an_address_in_use_says_so() {
        let first = Endpoint::serve("127.0.0.1:0").expect("loopback can listen");
        let err = Endpoint::serve(&first.addr().to_string()).unwrap_err();
        assert!(matches!(err, MetricsError::Bind { .. }), "{err:?}");
        let text = err.to_string();
        assert!(text.contains(&first.addr().to_string()), "{text}");
        assert!(text.contains("in use"), "{text}");
    }

    #[test]
    fn a_bad_address_names_itself() {
        let err = Endpoint::serve("not an address").unwrap_err();
        assert!(matches!(err, MetricsError::BadAddress { .. }), "{err:?}");
        assert!(err.to_string().contains("`not an address`"), "{err}");
    }
}
