//! Shared by the live-metrics tests: the Prometheus server and the
//! Pushgateway started on free loopback ports (killed on drop), the main
//! job run as a process, and queries of Prometheus's HTTP API.

#![allow(dead_code)] // each test file uses its own part

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use profiler_integration::{free_port, program, wait_for};
use serde_json::Value;

/// How long a server may take to answer its readiness probe.
pub(crate) const READY: Duration = Duration::from_secs(30);

/// A child process killed when the test ends, passing or not.
pub(crate) struct Running {
    child: Child,
    name: &'static str,
}

impl Running {
    fn start(name: &'static str, command: &mut Command) -> Self {
        let child = command
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
        Self { child, name }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // Already gone is fine; a server left running is not.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP GET's body, or `None` when nothing answered 200.
pub(crate) fn get(url: &str) -> Option<String> {
    let config = ureq::config::Config::builder()
        .timeout_global(Some(Duration::from_secs(5)))
        .build();
    let agent = ureq::Agent::new_with_config(config);
    agent
        .get(url)
        .call()
        .ok()?
        .into_body()
        .read_to_string()
        .ok()
}

/// The real Prometheus server, scraping `targets` every second.
pub(crate) struct Prometheus {
    pub(crate) port: u16,
    _server: Running,
    _data: tempfile::TempDir,
}

impl Prometheus {
    /// Starts Prometheus with a generated config; `honor_labels` keeps the
    /// labels a target sets (the Pushgateway's `job` and `instance`).
    pub(crate) fn start(job: &str, targets: &[String], honor_labels: bool) -> Self {
        let binary = program(
            "prometheus",
            "sudo apt-get install prometheus (Debian/Ubuntu; .ci/run does this)",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let data = tempfile::tempdir().expect("a temporary directory");
        let config = data.path().join("prometheus.yml");
        let target_list = targets
            .iter()
            .map(|t| format!("'{t}'"))
            .collect::<Vec<_>>()
            .join(", ");
        std::fs::write(
            &config,
            format!(
                "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n\
                 scrape_configs:\n  - job_name: '{job}'\n    honor_labels: {honor_labels}\n    \
                 static_configs:\n      - targets: [{target_list}]\n"
            ),
        )
        .expect("the config can be written");
        let port = free_port().expect("a free port");
        let server = Running::start(
            "prometheus",
            Command::new(binary)
                .arg(format!("--config.file={}", config.display()))
                .arg(format!(
                    "--storage.tsdb.path={}",
                    data.path().join("tsdb").display()
                ))
                .arg(format!("--web.listen-address=127.0.0.1:{port}")),
        );
        let ready = wait_for(READY, || get(&format!("http://127.0.0.1:{port}/-/ready")));
        assert!(
            ready.is_some(),
            "prometheus did not get ready on port {port} within {READY:?}"
        );
        Self {
            port,
            _server: server,
            _data: data,
        }
    }

    /// An instant PromQL query: each series' labels and value.
    pub(crate) fn query(&self, promql: &str) -> Vec<(BTreeMap<String, String>, f64)> {
        let url = format!(
            "http://127.0.0.1:{}/api/v1/query?query={}",
            self.port,
            encode_query(promql)
        );
        let Some(body) = get(&url) else {
            return Vec::new();
        };
        let json: Value = serde_json::from_str(&body).expect("prometheus answers JSON");
        assert_eq!(json["status"], "success", "{promql}: {body}");
        json["data"]["result"]
            .as_array()
            .map(|rows| rows.iter().map(series).collect())
            .unwrap_or_default()
    }
}

fn series(row: &Value) -> (BTreeMap<String, String>, f64) {
    let labels = row["metric"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                .collect()
        })
        .unwrap_or_default();
    let value = row["value"][1]
        .as_str()
        .and_then(|v| v.parse().ok())
        .unwrap_or(f64::NAN);
    (labels, value)
}

/// Percent-encodes a query string value.
fn encode_query(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// The real Pushgateway on a free loopback port.
pub(crate) struct Pushgateway {
    pub(crate) port: u16,
    _server: Running,
}

impl Pushgateway {
    /// Starts it and waits until it is ready.
    pub(crate) fn start() -> Self {
        let binary = program(
            "prometheus-pushgateway",
            "sudo apt-get install prometheus-pushgateway (Debian/Ubuntu; .ci/run does this)",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let port = free_port().expect("a free port");
        let server = Running::start(
            "prometheus-pushgateway",
            Command::new(binary).arg(format!("--web.listen-address=127.0.0.1:{port}")),
        );
        let ready = wait_for(READY, || get(&format!("http://127.0.0.1:{port}/-/ready")));
        assert!(
            ready.is_some(),
            "the pushgateway did not get ready on port {port} within {READY:?}"
        );
        Self {
            port,
            _server: server,
        }
    }

    /// Its base URL.
    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

/// The main job running as a process at a small size, its stderr read line
/// by line as it comes.
pub(crate) struct MainJob {
    child: Child,
    lines: mpsc::Receiver<String>,
    stderr: Vec<String>,
    pub(crate) out: PathBuf,
}

impl MainJob {
    /// Starts `train_tiny` with `steps` steps writing into `out`, plus `args`
    /// and `env`.
    pub(crate) fn start(steps: u64, out: &Path, args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_train_tiny"));
        command
            .args(["--steps", &steps.to_string()])
            .args([
                "--warmup", "2", "--layers", "2", "--width", "16", "--heads", "2",
            ])
            .args([
                "--seq",
                "16",
                "--batch",
                "2",
                "--no-ceilings",
                "--log-every",
                "1000",
            ])
            .arg("--out")
            .arg(out)
            .args(args)
            // Rank variables of the test's own environment must not leak in.
            .env_remove("RANK")
            .env_remove("WORLD_SIZE")
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("the main job starts");
        let stderr = child.stderr.take().expect("stderr is piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            lines,
            stderr: Vec::new(),
            out: out.to_owned(),
        }
    }

    /// Waits (bounded) for a stderr line containing `needle`.
    pub(crate) fn line_with(&mut self, needle: &str, limit: Duration) -> Option<String> {
        let deadline = Instant::now() + limit;
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.stderr.push(line.clone());
                    if line.contains(needle) {
                        return Some(line);
                    }
                }
                Err(_) => return None,
            }
        }
        None
    }

    /// Waits (bounded) for the job to end; its status and whole stderr.
    pub(crate) fn wait(mut self, limit: Duration) -> (ExitStatus, String) {
        let status = wait_for(limit, || self.child.try_wait().ok().flatten());
        let Some(status) = status else {
            let _ = self.child.kill();
            panic!(
                "the main job did not end within {limit:?}:\n{}",
                self.stderr.join("\n")
            );
        };
        self.stderr.extend(self.lines.try_iter());
        (status, self.stderr.join("\n"))
    }

    /// The profile the job wrote.
    pub(crate) fn profile(out: &Path) -> Value {
        let text = std::fs::read_to_string(out.join("profile.json")).expect("profile.json");
        serde_json::from_str(&text).expect("profile.json is JSON")
    }
}

impl Drop for MainJob {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Each brick's total seconds in a saved profile.
pub(crate) fn brick_seconds(profile: &Value) -> BTreeMap<String, f64> {
    profile["bricks"]
        .as_array()
        .expect("bricks")
        .iter()
        .map(|b| {
            let ns = b["total_ns"].as_u64().expect("total_ns");
            (
                b["name"].as_str().expect("name").to_owned(),
                ns as f64 / 1e9,
            )
        })
        .collect()
}
