//! Contract verification: checks a [`Profile`](profiler_core::Profile)
//! against the falsification tests of YAML contracts (the shipped ones, and
//! any file or folder) and reports, per test id, pass or fail with the
//! measured value and the bound.
//!
//! ```
//! # let profile = profiler::Profile::empty();
//! let report = profiler_report::contracts::verify_contract("brick-profiler-v1", &profile).unwrap();
//! assert!(report.passed(), "{report}");
//! ```
//!
//! # Metrics rules can read
//!
//! A test is an expression of the rule language (see
//! [`profiler_contracts::rule`]) over these names:
//!
//! - run totals: `wall_ns` (step time, run wall time without steps),
//!   `brick_ns`, `wall_coverage` (`brick_ns / wall_ns`, not clamped),
//!   `phase_coverage`, `tokens`, `decoded_tokens` (tokens counted by
//!   `step`), `steps`, `layers` (distinct forward layer indices), `threads`,
//!   `sync_mode` (`"immediate"`, `"per_layer"`, `"deferred"`, `"none"`),
//!   `device_timer`, `run.wall_ns`, `steps.count|tokens|total_ns`;
//! - loss counters: `counters.pending`, `counters.pending_overflow`,
//!   `counters.pending_abandoned`, `counters.device_timer_fallbacks`,
//!   `counters.timeline_dropped`, `counters.lost_at_thread_exit`,
//!   `counters.slot_overflow_samples`, `counters.sync_hook_panics`,
//!   `counters.trace_entries_dropped`, `counters.lost`;
//! - `brick(Name).f` (aliases resolve) and `all b in bricks: ...` with
//!   fields `name`, `count`, `total_ns`, `min_ns`, `max_ns`, `avg_ns`,
//!   `p50_ns`, `p90_ns`, `p99_ns`, `histogram_count`, `total_elements`,
//!   `total_bytes`, `total_flops`, `throughput`. A brick without samples has
//!   count and totals 0; its per-call values are unmeasurable;
//! - `category(Attention).f` and `all c in categories: ...` with `name`,
//!   `count`, `total_ns`, `total_elements`, `bricks_total_ns`, `bricks_count`;
//! - `min(a, b)`, `max(a, b)`, `abs(x)`;
//! - `<namespace>.<metric>` from a registered [`Computation`]: `scorecard.*`
//!   by default ([`ScorecardMetrics`]); `roofline.*` with
//!   [`RooflineMetrics`] (a model on a device), `parity.*` with
//!   [`ParityMetrics`] (a baseline runtime), registered with
//!   [`Verifier::computation`];
//! - any name given with [`Verifier::metric`].
//!
//! The shipped roofline and parity contracts read these metrics (which a
//! computation of your own under the same namespace must provide):
//!
//! - `roofline`: `total_params`, `bits_per_weight`, `bandwidth_gb_s`,
//!   `compute_gflops`, `ops_per_token`, `model_bytes`, `bw_ceiling_tok_s`,
//!   `compute_ceiling_tok_s`, `ceiling_tok_s`, `bottleneck` (`"bandwidth"`
//!   or `"compute"`), `contract_id`, `measured_tok_s` (none when not
//!   measured);
//! - `parity`: `ours_tok_s`, `baseline_tok_s`, `throughput_ratio`,
//!   `ours_launches`, `baseline_launches`, `launch_ratio`,
//!   `parity_achieved`, `max_gap_ratio` (over all gaps; none without gaps),
//!   `gap_count`, `top_gap_count`, `top_gaps_sorted`.
//!
//! A verdict is [`Verdict::Pass`], [`Verdict::Fail`], [`Verdict::Skipped`]
//! (an `if` guard does not hold), [`Verdict::NotApplicable`] (the rule reads
//! a value the run does not have: a metric that is none, such as a withheld
//! grade or the wall coverage of a run without steps, compared with a
//! value), [`Verdict::Unmeasurable`] (the profile lacks the data) or
//! [`Verdict::Invalid`] (an unknown name). Unmeasurable and invalid keep
//! [`ContractReport::passed`] from holding, and so does a report in which
//! no rule was checked (every rule skipped, not applicable or prose).

mod analyses;
mod compare;
mod computation;
mod eval;
mod html;
mod markdown;
mod metrics;
mod report;
mod resolve;
mod value;
mod verify;

pub use analyses::{ParityMetrics, RooflineMetrics};
pub use computation::{Computation, Metrics, ScorecardMetrics};
pub use html::contracts_section;
pub use profiler_contracts::{
    Contract, ContractError, ContractSet, FalsificationTest, load_contract, parse_contract,
};
pub use report::{ContractReport, Measurement, RuleResult, Verdict};
pub use value::Value;
pub use verify::{UnknownContract, Verifier, verify_contract};
