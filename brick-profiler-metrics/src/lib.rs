//! Live metrics of the brick profiler for fleets: a Prometheus `/metrics`
//! endpoint and a Pushgateway push, both read from `snapshot()` when they
//! run, so the recording path pays nothing for them.
//!
//! `brick-profiler-core` knows nothing of HTTP, so the settings come as an
//! extension of its `Config`: with [`MetricsConfig`] in scope,
//! `Config::new().metrics_endpoint("127.0.0.1:9464")` and
//! `.pushgateway(url, interval)` read as the profiler's own settings and
//! return a [`WithMetrics`], whose `enable()` applies the profiler settings
//! and starts the endpoint and the pusher. The [`Metrics`] it returns keeps
//! them running; dropping it makes the final push. Neither can fail the
//! run: an address in use or an unreachable gateway is printed on stderr and
//! kept in [`Metrics::problems`]. The `profiler` facade re-exports this crate
//! as `profiler::metrics` (and the trait at its root) with its `metrics`
//! feature.
//!
//! The endpoint is made to sit in a training job exposed to any client:
//! one thread whatever the clients do (connections are tasks of one
//! current-thread runtime, at most 32 at once), request heads of at most
//! 16 KiB (431 past it), 10 s to send a head, connections closed after
//! 10 s without a byte moving either way, `GET` and `HEAD` only (405
//! otherwise), 400 for what does not parse, and a stop that waits for no
//! client.
//!
//! Every series is named `profiler_*` in base units and carries `rank`,
//! `world_size`, `run` and `host` labels (rank 0 of 1 without a launcher):
//!
//! | series | type | labels |
//! |---|---|---|
//! | `profiler_step_seconds` | histogram | |
//! | `profiler_steps_total`, `profiler_tokens_total` | counter | |
//! | `profiler_tokens_per_second` | gauge (last 16 steps) | |
//! | `profiler_efficiency_ratio`, `profiler_mfu_ratio` | gauge, when the hardware is known | |
//! | `profiler_brick_calls_total`, `profiler_brick_seconds_total` | counter | `brick`, `category` |
//! | `profiler_layer_seconds_total` | counter | `layer`, `direction` |
//! | `profiler_dropped_records_total` | counter | `kind` |
//! | `profiler_run_info` | info | `name`, `pid`, `local_rank`, `schema_version`, `sync_mode`, `hardware` |
//! | `profiler_metrics_push_failures_total` | counter | |

mod config;
mod encode;
mod endpoint;
mod error;
mod families;
mod labels;
mod push;

pub use config::{Metrics, MetricsConfig, WithMetrics};
pub use encode::{Format, encode, scrape};
pub use endpoint::Endpoint;
pub use error::{MetricsError, failures as push_failures};
pub use labels::RankLabels;
pub use push::Pusher;

/// Not public API: the endpoint's handling of one connection over any byte
/// stream, for the `http_request` fuzz target.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod __fuzzing {
    pub use crate::endpoint::{MAX_HEAD, serve_connection};
}
