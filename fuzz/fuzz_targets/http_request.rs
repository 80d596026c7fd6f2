//! Any bytes as one client connection to the metrics endpoint, over an
//! in-memory stream: serving never panics and always ends, every answer
//! starts with a valid status line, no request gets two answers, and a
//! request head past the limit is answered 431.

#![no_main]

use libfuzzer_sys::fuzz_target;
use profiler_metrics::__fuzzing::{MAX_HEAD, serve_connection};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    // Odd first byte: the rest, as letters, repeated into a valid request
    // head (in its path, or in a header when bit 1 is set too) that never
    // ends before the limit.
    let oversized = mode & 1 == 1;
    let input = if oversized {
        endless_head(rest, mode & 2 == 2)
    } else {
        rest.to_vec()
    };
    let answer = answer(&input);
    let starts: Vec<usize> = find_all(&answer, b"HTTP/1.");
    assert!(
        answer.is_empty() || starts.first() == Some(&0),
        "an answer that is not HTTP: {:?}",
        String::from_utf8_lossy(&answer)
    );
    for &at in &starts {
        let line = &answer[at..answer.len().min(at + 13)];
        let valid = line.len() == 13
            && line[7].is_ascii_digit()
            && line[8] == b' '
            && line[9..12].iter().all(u8::is_ascii_digit)
            && (b'1'..=b'5').contains(&line[9])
            && line[12] == b' ';
        assert!(valid, "a bad status line: {:?}", String::from_utf8_lossy(line));
    }
    // Every request head ends in an empty line; one answer more is the
    // refusal of what came after the last complete head.
    let heads = find_all(&input, b"\n\n").len() + find_all(&input, b"\n\r\n").len();
    assert!(
        starts.len() <= heads + 1,
        "{} answers to at most {heads} requests",
        starts.len()
    );
    if oversized {
        assert!(
            answer.starts_with(b"HTTP/1.1 431 "),
            "an oversized head got {:?}",
            String::from_utf8_lossy(&answer[..answer.len().min(40)])
        );
    }
});

/// A valid request head that never ends before the limit: `bytes`, made
/// into letters, as a path that goes on (`in_header` false) or as the
/// value of a header that goes on.
fn endless_head(bytes: &[u8], in_header: bool) -> Vec<u8> {
    let mut piece: Vec<u8> = bytes.iter().map(|b| b'a' + b % 26).collect();
    if piece.is_empty() {
        piece.push(b'a');
    }
    let mut head = if in_header {
        b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Long: ".to_vec()
    } else {
        b"GET /".to_vec()
    };
    while head.len() <= MAX_HEAD + 1 {
        head.extend_from_slice(&piece);
    }
    head
}

/// What the endpoint writes back to a client that sends `input` and then
/// closes its side. Time is paused: timeouts fire as soon as nothing else
/// can happen, so a connection that waits for more bytes ends at once.
fn answer(input: &[u8]) -> Vec<u8> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let (client, server) = tokio::io::duplex(64 * 1024);
        let served = tokio::spawn(serve_connection(server));
        let (mut from_server, mut to_server) = tokio::io::split(client);
        let send = async {
            // The server may close before it has read everything.
            let _ = to_server.write_all(input).await;
            let _ = to_server.shutdown().await;
        };
        let receive = async {
            let mut answer = Vec::new();
            let _ = from_server.read_to_end(&mut answer).await;
            answer
        };
        let ((), answer) = tokio::join!(send, receive);
        served.await.expect("serving never panics");
        answer
    })
}

fn find_all(haystack: &[u8], needle: &[u8]) -> Vec<usize> {
    haystack
        .windows(needle.len())
        .enumerate()
        .filter(|(_, w)| *w == needle)
        .map(|(i, _)| i)
        .collect()
}
