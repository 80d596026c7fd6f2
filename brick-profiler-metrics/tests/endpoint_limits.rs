//! Clients that would hang the training job or grow it without bound, each
//! against a child process that serves the endpoint (this test binary, run
//! as its ignored `child_serves_until_told_to_stop` test): a scraper that
//! stops reading must not hold `stop`, a gigabyte request line must not
//! grow the process, and thousands of idle connections must not make
//! threads and must be closed. The child's memory and threads are read
//! from its `/proc/<pid>/status`; the deadlines are generous and only
//! detect a hang.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use profiler_metrics::Endpoint;

/// Set in the child's environment: it serves instead of testing.
const CHILD: &str = "PROFILER_METRICS_LIMITS_CHILD";

/// The child: serves the endpoint with some bricks recorded, prints its
/// address, stops when a line arrives on stdin and says so.
#[test]
#[ignore = "the child process of the other tests in this file"]
fn child_serves_until_told_to_stop() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    profiler_core::enable();
    // About 40 KiB per scrape: enough that pipelined answers fill any
    // socket buffer.
    for b in 0..100 {
        profiler_core::compat::record_elapsed(
            &format!("brick_{b:03}"),
            Duration::from_micros(7),
            1,
        );
    }
    let endpoint = Endpoint::serve("127.0.0.1:0").expect("loopback can listen");
    println!("serving {}", endpoint.addr());
    let mut line = String::new();
    let _ = std::io::stdin().read_line(&mut line);
    endpoint.stop();
    println!("stopped");
    std::process::exit(0);
}

/// A child process serving the endpoint; killed when dropped.
struct Served {
    child: Child,
    stdin: Option<ChildStdin>,
    addr: SocketAddr,
}

impl Served {
    fn start() -> Self {
        let exe = std::env::current_exe().expect("the test binary");
        let mut child = Command::new(exe)
            .args([
                "--ignored",
                "--exact",
                "child_serves_until_told_to_stop",
                "--nocapture",
            ])
            .env(CHILD, "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the child starts");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let addr = loop {
            let line = rx
                .recv_timeout(Duration::from_secs(60))
                .expect("the child says where it serves");
            if let Some(addr) = line.strip_prefix("serving ") {
                break addr.parse().expect("an address");
            }
        };
        Self { child, stdin, addr }
    }

    /// A number field of the child's `/proc/<pid>/status` (kB for sizes).
    fn status(&self, field: &str) -> u64 {
        let text = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("the child's status");
        text.lines()
            .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| panic!("no {field} in the child's status"))
    }

    /// Tells the child to stop; how long it took to exit, or `None` when it
    /// had not exited within `deadline`.
    fn stop_within(&mut self, deadline: Duration) -> Option<Duration> {
        let asked = Instant::now();
        if let Some(mut stdin) = self.stdin.take() {
            stdin
                .write_all(b"stop\n")
                .expect("the child reads its stdin");
        }
        while asked.elapsed() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                assert!(status.success(), "the child failed: {status}");
                return Some(asked.elapsed());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    fn scrape(&self) -> Result<u16, String> {
        let config = ureq::config::Config::builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(20)))
            .build();
        ureq::Agent::new_with_config(config)
            .get(&format!("http://{}/metrics", self.addr))
            .call()
            .map(|r| r.status().as_u16())
            .map_err(|e| e.to_string())
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_scraper_that_stops_reading_holds_neither_scrapes_nor_stop() {
    let mut served = Served::start();
    let socket =
        socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).expect("a socket");
    socket.set_recv_buffer_size(1024).expect("a small buffer");
    socket
        .connect(&served.addr.into())
        .expect("loopback connects");
    let mut stuck: TcpStream = socket.into();
    // Held open to the end: the client stays, it only stops reading.
    let _client = stuck.try_clone().expect("a second handle");
    // Never read; the writes block once the server stops reading too, so
    // they run on their own thread, which ends when the child is gone.
    let sent = Arc::new(AtomicUsize::new(0));
    let sending = Arc::clone(&sent);
    std::thread::spawn(move || {
        for _ in 0..5_000 {
            if stuck
                .write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
                .is_err()
            {
                break;
            }
            sending.fetch_add(1, Ordering::Relaxed);
        }
    });
    // The server is stuck once it takes no more requests: its answers
    // filled every buffer between it and the client.
    let mut last = usize::MAX;
    while sent.load(Ordering::Relaxed) != last {
        last = sent.load(Ordering::Relaxed);
        std::thread::sleep(Duration::from_secs(1));
    }
    eprintln!("the client sent {last} of 5000 requests");
    assert_eq!(
        served.scrape(),
        Ok(200),
        "a stuck client blocks other scrapes"
    );
    let took = served.stop_within(Duration::from_secs(20));
    assert!(
        took.is_some(),
        "stop waited on a client that does not read (20 s and counting)"
    );
    eprintln!("stop with a stuck client took {took:?}");
}

#[test]
fn a_gigabyte_request_line_is_refused_with_431_in_bounded_memory() {
    const LIMIT_KB: u64 = 64 * 1024;
    let served = Served::start();
    let start_kb = served.status("VmRSS");
    let mut stream = TcpStream::connect(served.addr).expect("loopback connects");
    let mut reader = stream.try_clone().expect("a second handle");
    let (answered, answer) = mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = reader.read_to_end(&mut bytes);
        let _ = answered.send(bytes);
    });
    stream.write_all(b"GET /").expect("the request starts");
    let chunk = vec![b'a'; 64 * 1024];
    let mut sent: u64 = 0;
    let mut grew_kb = 0;
    while sent < 1 << 30 {
        if stream.write_all(&chunk).is_err() {
            break; // the server closed: it answered
        }
        sent += chunk.len() as u64;
        if sent.is_multiple_of(16 << 20) {
            grew_kb = served.status("VmRSS").saturating_sub(start_kb);
            if grew_kb > LIMIT_KB {
                break; // growing with what is sent: stop before it is big
            }
        }
    }
    let peak_kb = served.status("VmHWM").saturating_sub(start_kb);
    eprintln!(
        "sent {} MiB; RSS grew {grew_kb} kB, peak {peak_kb} kB above the start",
        sent >> 20
    );
    assert!(
        peak_kb <= LIMIT_KB,
        "the server grew {peak_kb} kB on a request line of {} MiB",
        sent >> 20
    );
    // Ends the reader too, if the server never answered.
    let _ = stream.shutdown(std::net::Shutdown::Both);
    let answer = answer
        .recv_timeout(Duration::from_secs(20))
        .expect("the connection ends");
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        answer.starts_with("HTTP/1.1 431 "),
        "after {} MiB: {answer:?}",
        sent >> 20
    );
}

/// Raises this process's open-file limit (its child inherits it) towards
/// `want`; returns the soft limit now in force.
fn raise_open_files(want: u64) -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid, writable rlimit for the call.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return 1024;
    }
    let raised = libc::rlimit {
        rlim_cur: limit.rlim_max.min(want),
        rlim_max: limit.rlim_max,
    };
    // SAFETY: `raised` is a valid rlimit that keeps the hard limit.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
        raised.rlim_cur
    } else {
        limit.rlim_cur
    }
}

#[test]
fn thousands_of_idle_connections_make_no_threads_and_are_closed() {
    // Enough to show a thread per connection plainly, few enough to open
    // quickly; the endpoint holds at most `MAX_CONNECTIONS` of them.
    let connections = (raise_open_files(2_300).saturating_sub(300)).min(2_000);
    assert!(connections >= 500, "only {connections} open files allowed");
    let served = Served::start();
    let threads_before = served.status("Threads");
    let started = Instant::now();
    let mut idle = Vec::new();
    let mut refused = None;
    for _ in 0..connections {
        match TcpStream::connect(served.addr) {
            Ok(stream) => idle.push(stream),
            Err(e) => {
                refused = Some(e);
                break;
            }
        }
    }
    // Accepted connections that made a thread would have made it by now.
    std::thread::sleep(Duration::from_secs(1));
    let threads_after = served.status("Threads");
    eprintln!(
        "{} idle connections (opened in {:?}): threads {threads_before} -> {threads_after}",
        idle.len(),
        started.elapsed()
    );
    assert!(
        threads_after <= threads_before + 2,
        "{} idle connections made threads: {threads_before} -> {threads_after}",
        idle.len()
    );
    assert!(
        refused.is_none(),
        "connection {} of {connections} refused: {refused:?}",
        idle.len()
    );
    // Every idle connection is closed: at once past the bound, after the
    // stall timeout within it.
    let deadline = Instant::now() + Duration::from_secs(60);
    for (i, mut stream) in idle.into_iter().enumerate() {
        let left = deadline.saturating_duration_since(Instant::now());
        stream
            .set_read_timeout(Some(left.max(Duration::from_millis(1))))
            .expect("a timeout");
        let mut byte = [0u8; 1];
        match stream.read(&mut byte) {
            Ok(0) => {}
            Err(e)
                if e.kind() != std::io::ErrorKind::WouldBlock
                    && e.kind() != std::io::ErrorKind::TimedOut => {}
            other => panic!("idle connection {i} still open after 60 s: {other:?}"),
        }
    }
    eprintln!(
        "all closed {:?} after the first was opened",
        started.elapsed()
    );
    assert_eq!(served.scrape(), Ok(200), "scrapes work again");
}
