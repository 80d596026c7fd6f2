//! Requests as bytes on a socket, as any client may send them: methods
//! other than `GET` and `HEAD` are refused (405), what does not parse gets
//! 400, a request gets one answer and never two, and `HEAD` gets the
//! headers alone.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::Duration;

use profiler_metrics::Endpoint;

/// Sends `request` on a fresh connection and reads what comes back until
/// the server closes, or until nothing came for `quiet` (a generous wait
/// that only detects a missing close, never a speed).
fn exchange(endpoint: &Endpoint, request: &[u8], quiet: Duration) -> String {
    let mut stream = TcpStream::connect(endpoint.addr()).expect("loopback connects");
    stream.set_read_timeout(Some(quiet)).expect("a timeout");
    stream.write_all(request).expect("the request is sent");
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => answer.extend_from_slice(&buf[..n]),
        }
    }
    let _ = stream.shutdown(Shutdown::Both);
    String::from_utf8_lossy(&answer).into_owned()
}

/// The status codes of every response in `answer`, in order.
fn statuses(answer: &str) -> Vec<u16> {
    answer
        .match_indices("HTTP/1.1 ")
        .filter_map(|(at, _)| answer.get(at + 9..at + 12)?.parse().ok())
        .collect()
}

const CLOSE: Duration = Duration::from_secs(20);

#[test]
fn post_and_delete_are_refused_with_405_and_the_allowed_methods() {
    let endpoint = Endpoint::serve("127.0.0.1:0").expect("loopback can listen");
    for method in ["POST", "DELETE", "PUT"] {
        let request = format!(
            "{method} /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        );
        let answer = exchange(&endpoint, request.as_bytes(), CLOSE);
        assert_eq!(statuses(&answer), [405], "{method}: {answer}");
        assert!(
            answer
                .to_ascii_lowercase()
                .contains("\r\nallow: get, head\r\n"),
            "{method}: {answer}"
        );
    }
}

#[test]
fn head_gets_the_headers_of_get_and_no_body() {
    let endpoint = Endpoint::serve("127.0.0.1:0").expect("loopback can listen");
    let get = exchange(
        &endpoint,
        b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        CLOSE,
    );
    let head = exchange(
        &endpoint,
        b"HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        CLOSE,
    );
    assert_eq!(statuses(&get), [200], "{get}");
    assert_eq!(statuses(&head), [200], "{head}");
    let (head_head, head_body) = head.split_once("\r\n\r\n").expect("a complete head");
    assert_eq!(head_body, "", "HEAD sent a body");
    assert!(
        head_head
            .to_ascii_lowercase()
            .contains("content-type: application/openmetrics-text"),
        "{head}"
    );
    let (_, get_body) = get.split_once("\r\n\r\n").expect("a complete head");
    assert!(get_body.ends_with("# EOF\n"), "{get}");
}

#[test]
fn what_does_not_parse_is_answered_400() {
    let endpoint = Endpoint::serve("127.0.0.1:0").expect("loopback can listen");
    for garbage in [
        &b"NOT AN HTTP REQUEST\r\n\r\n"[..],
        b"GET /metrics HTTP/9.9\r\n\r\n",
        b"GET /metrics HTTP/1.1\r\nHost x\r\n\r\n",
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 tls hello\r\n\r\n",
    ] {
        let answer = exchange(&endpoint, garbage, CLOSE);
        assert_eq!(
            statuses(&answer),
            [400],
            "{}: {answer}",
            String::from_utf8_lossy(garbage)
        );
    }
}

#[test]
fn bare_line_feeds_get_an_answer() {
    let endpoint = Endpoint::serve("127.0.0.1:0").expect("loopback can listen");
    let answer = exchange(
        &endpoint,
        b"GET /metrics HTTP/1.1\nHost: x\nConnection: close\n\n",
        CLOSE,
    );
    let statuses = statuses(&answer);
    assert!(
        statuses == [200] || statuses == [400],
        "no single answer: {answer:?}"
    );
}

#[test]
fn content_length_with_transfer_encoding_gets_one_answer() {
    let endpoint = Endpoint::serve("127.0.0.1:0").expect("loopback can listen");
    // A body that reads as one request's end under one framing and as a
    // second request's start under the other.
    let request = b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\
Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n";
    // The server may keep the connection open: what matters is that one
    // answer comes, then silence, for a while after the first.
    let answer = exchange(&endpoint, request, Duration::from_secs(3));
    let statuses = statuses(&answer);
    assert_eq!(statuses.len(), 1, "{answer:?}");
    assert!(matches!(statuses[0], 200 | 400), "{answer:?}");
}
