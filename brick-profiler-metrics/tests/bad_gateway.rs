//! A Pushgateway that is unreachable or answers 500: the pusher says which
//! URL and what went wrong, counts the failures, and never fails its caller.

use std::time::Duration;

use profiler_metrics::{MetricsError, Pusher, push_failures};

#[test]
fn an_unreachable_gateway_is_counted_and_named() {
    // Bound and released: nothing listens there now.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("loopback can listen")
        .port();
    let before = push_failures();
    let pusher = Pusher::start(
        &format!("http://127.0.0.1:{port}"),
        Duration::from_millis(100),
    )
    .expect("an unreachable gateway is not an error at start");
    std::thread::sleep(Duration::from_millis(400));
    let err = pusher.finish().unwrap_err();
    assert!(matches!(err, MetricsError::Unreachable { .. }), "{err:?}");
    assert!(
        err.to_string()
            .contains(&format!("127.0.0.1:{port}/metrics/job/")),
        "{err}"
    );
    // At least one periodic try and the final tries.
    assert!(
        push_failures() >= before + 2,
        "{} -> {}",
        before,
        push_failures()
    );
}

#[test]
fn a_gateway_answering_500_is_reported_with_its_answer() {
    let server = tiny_http::Server::http("127.0.0.1:0").expect("loopback can listen");
    let addr = server.server_addr().to_ip().expect("an IP address");
    let answering = std::thread::spawn(move || {
        let mut answered = 0u32;
        while let Ok(Some(request)) = server.recv_timeout(Duration::from_secs(3)) {
            let response = tiny_http::Response::from_string("disk full").with_status_code(500);
            let _ = request.respond(response);
            answered += 1;
        }
        answered
    });
    let pusher = Pusher::start(&format!("http://{addr}"), Duration::from_millis(100))
        .expect("the pusher starts");
    std::thread::sleep(Duration::from_millis(300));
    let err = pusher.finish().unwrap_err();
    match &err {
        MetricsError::Status { status, body, .. } => {
            assert_eq!((*status, body.as_str()), (500, "disk full"));
        }
        other => panic!("{other:?}"),
    }
    assert!(
        err.to_string().contains("answered HTTP 500: disk full"),
        "{err}"
    );
    assert!(answering.join().expect("the server ran") >= 2);
}

#[test]
fn a_gateway_answer_with_escape_sequences_is_printed_as_visible_text() {
    let server = tiny_http::Server::http("127.0.0.1:0").expect("loopback can listen");
    let addr = server.server_addr().to_ip().expect("an IP address");
    let hostile = "\x1b]0;owned\x07\x1b[2J\r\nfake line \u{202e}txt.exe";
    let answering = std::thread::spawn(move || {
        while let Ok(Some(request)) = server.recv_timeout(Duration::from_secs(3)) {
            let _ =
                request.respond(tiny_http::Response::from_string(hostile).with_status_code(502));
        }
    });
    let pusher = Pusher::start(&format!("http://{addr}"), Duration::from_secs(3600))
        .expect("the pusher starts");
    let err = pusher.finish().unwrap_err();
    let shown = err.to_string();
    assert!(
        !shown.chars().any(|c| c.is_control() || c == '\u{202e}'),
        "{shown:?}"
    );
    assert!(
        shown.ends_with(r"answered HTTP 502: \x1b]0;owned\x07\x1b[2J\r\nfake line \u{202e}txt.exe"),
        "{shown}"
    );
    let _ = answering.join();
}
