//! [`Endpoint`]: `/metrics` served from a background thread. Each request
//! takes a snapshot and writes it; nothing runs between scrapes, so the
//! recording path pays nothing for the endpoint.

use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::sync::Arc;
use std::thread::JoinHandle;

use tiny_http::{Header, Request, Response, Server};

use crate::encode::{Format, scrape};
use crate::error::MetricsError;

/// A running `/metrics` endpoint; dropping it (or [`Endpoint::stop`]) stops
/// serving.
pub struct Endpoint {
    addr: SocketAddr,
    server: Arc<Server>,
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
        // Accepted connections inherit it: without it a response's last
        // segment waits for the scraper's delayed ACK (about 40 ms on Linux).
        socket2::SockRef::from(&listener)
            .set_tcp_nodelay(true)
            .map_err(|e| bind_error(format!("cannot turn off Nagle's algorithm: {e}")))?;
        let server =
            Arc::new(Server::from_listener(listener, None).map_err(|e| bind_error(e.to_string()))?);
        let serving = Arc::clone(&server);
        let thread = std::thread::Builder::new()
            .name("profiler-metrics".to_owned())
            .spawn(move || {
                // `recv` fails once `unblock` is called: the endpoint stopped.
                while let Ok(request) = serving.recv() {
                    answer(request);
                }
            })
            .map_err(|e| bind_error(format!("cannot start the serving thread: {e}")))?;
        eprintln!("profiler-metrics: serving http://{bound}/metrics");
        Ok(Self {
            addr: bound,
            server,
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

    /// Stops serving and waits for the serving thread.
    pub fn stop(mut self) {
        self.shut_down();
    }

    fn shut_down(&mut self) {
        self.server.unblock();
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

/// Answers one request: the metrics on `/metrics` (and `/`), 404 elsewhere.
fn answer(request: Request) {
    let path = request.url().split('?').next().unwrap_or_default();
    let response = if path == "/metrics" || path == "/" {
        match scrape(Format::OpenMetrics) {
            Ok(body) => with_type(
                Response::from_string(body),
                Format::OpenMetrics.content_type(),
            ),
            Err(e) => Response::from_string(e.to_string()).with_status_code(500),
        }
    } else {
        Response::from_string("not found: the metrics are at /metrics\n").with_status_code(404)
    };
    // A client that hung up mid-answer is its own problem, not training's.
    let _ = request.respond(response);
}

fn with_type<R: std::io::Read>(response: Response<R>, content_type: &str) -> Response<R> {
    match Header::from_bytes("Content-Type", content_type) {
        Ok(header) => response.with_header(header),
        Err(()) => response,
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
