//! One client connection: HTTP/1.1 through hyper, with a bounded request
//! head (431 past it, 400 for what does not parse), a time limit on the
//! head and on every stall, and the answer to each request: the metrics
//! for `GET` and `HEAD` of `/metrics` (or `/`), 404 elsewhere, 405 for
//! other methods.

use std::convert::Infallible;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{ALLOW, CONTENT_TYPE, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite};

use super::deadline::Stalling;
use crate::encode::{Format, scrape};

/// Largest request head (request line and headers): past it the answer is
/// 431 and the connection closes. A scraper's head is a few hundred bytes.
// `pub` for the fuzz target (the `fuzzing` feature re-exports it).
#[cfg_attr(not(feature = "fuzzing"), allow(unreachable_pub))]
pub const MAX_HEAD: usize = 16 * 1024;
/// Longest a request head may take to arrive once it has begun.
pub(crate) const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest a connection may go without moving a byte, reading (an idle
/// keep-alive connection) or writing (a client that stopped reading).
pub(crate) const STALL_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves HTTP/1.1 on `io` until the client closes, a limit ends it or the
/// endpoint stops (which drops this future). Errors end the connection
/// only: hyper has already answered what deserved an answer (400, 431).
// `pub` for the fuzz target (the `fuzzing` feature re-exports it).
#[cfg_attr(not(feature = "fuzzing"), allow(unreachable_pub))]
pub async fn serve<S>(io: S)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let io = TokioIo::new(Stalling::new(io, STALL_TIMEOUT));
    let service =
        hyper::service::service_fn(|request| async move { Ok::<_, Infallible>(answer(&request)) });
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEAD_TIMEOUT)
        .max_buf_size(MAX_HEAD)
        .serve_connection(io, service);
    // A client that hung up, sent garbage or stalled is its own problem,
    // not training's.
    let _ = connection.await;
}

/// The answer to one request.
fn answer<B>(request: &Request<B>) -> Response<Full<Bytes>> {
    let method = request.method();
    if method != Method::GET && method != Method::HEAD {
        let mut response = text(
            StatusCode::METHOD_NOT_ALLOWED,
            "method not allowed: the metrics are read with GET\n".to_owned(),
        );
        response
            .headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    let path = request.uri().path();
    if path != "/metrics" && path != "/" {
        return text(
            StatusCode::NOT_FOUND,
            "not found: the metrics are at /metrics\n".to_owned(),
        );
    }
    // HEAD gets the same headers, Content-Length included; hyper leaves
    // the body out.
    match scrape(Format::OpenMetrics) {
        Ok(body) => {
            let mut response = Response::new(Full::new(Bytes::from(body)));
            response.headers_mut().insert(
                CONTENT_TYPE,
                HeaderValue::from_static(Format::OpenMetrics.content_type()),
            );
            response
        }
        Err(e) => text(StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")),
    }
}

/// A plain-text answer with `status`.
fn text(status: StatusCode, body: String) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: Method, path: &str) -> Request<()> {
        Request::builder()
            .method(method)
            .uri(path)
            .body(())
            .expect("a request")
    }

    #[test]
    fn only_get_and_head_read_the_metrics() {
        for method in [Method::POST, Method::DELETE, Method::PUT, Method::OPTIONS] {
            let response = answer(&request(method.clone(), "/metrics"));
            assert_eq!(
                response.status(),
                StatusCode::METHOD_NOT_ALLOWED,
                "{method}"
            );
            assert_eq!(response.headers()[ALLOW], "GET, HEAD");
        }
        for method in [Method::GET, Method::HEAD] {
            let response = answer(&request(method.clone(), "/metrics?x=1"));
            assert_eq!(response.status(), StatusCode::OK, "{method}");
        }
        let response = answer(&request(Method::GET, "/other"));
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
    }
}
