//! Analysis and rendering for the brick profiler: the training scorecard,
//! trace analysis, exports for external viewers and one HTML report.
//!
//! Every report is a pure function of a [`Profile`](profiler_core::Profile)
//! (a live snapshot or one read back from disk) and explicit settings. The
//! single exception is the convenience [`scorecard()`](fn@scorecard), which
//! reads the live profiler and the `PROFILER_*` environment.
//!
//! ```no_run
//! // At the end of training:
//! println!("{}", profiler_report::scorecard());
//! let profile = profiler::snapshot();
//! profiler_report::write_chrome_trace(&profile, "trace.json")?;
//! let svg = profiler_report::flamegraph_svg(&profiler_report::folded_stacks(&profile), "run")?;
//! let html = profiler_report::HtmlReport::new(&profile).flamegraph_svg(svg).render();
//! profiler_report::write_html_report(&html, "report.html")?;
//! # Ok::<(), profiler_report::ExportError>(())
//! ```
//!
//! The root holds what that needs: [`scorecard()`](fn@scorecard), the
//! exports of a profile ([`write_chrome_trace`], [`chrome_trace_json`],
//! [`folded_stacks`], [`flamegraph_svg`], [`speedscope_json`]), the page
//! ([`HtmlReport`], [`write_html_report`]), a profile's summaries
//! ([`summary_text`], [`summary_json`]) and their error ([`ExportError`]).
//! Every other item has one home, the module users call the report by:
//! - [`scorecard`](mod@scorecard): the training scorecard
//!   ([`scorecard::ScorecardBuilder`], [`scorecard::TrainingScorecard`]) and
//!   its parts: thresholds, model shape for MFU, regressions, per-layer
//!   types and the trainer's step-profiler line.
//! - [`roofline`]: the analytical roofline, a kernel placed on the roof of
//!   one precision and memory level of a `Hardware`
//!   ([`roofline::classify`]), and every annotated brick of a profile on
//!   one roof (Markdown, JSON, terminal, SVG, report section);
//!   Nsight Compute launches placed on a device's roof
//!   ([`roofline::FullProfileOptions`]).
//! - [`parity`]: per-op comparison against baseline runtimes (saved
//!   profiles, PyTorch profiler traces), with a bar chart.
//! - [`fleet`]: a distributed run's directory analysed across ranks:
//!   step-time distributions, stragglers, load imbalance, absent ranks.
//! - [`diff`]: a run against one or more baselines, brick by brick, with an
//!   interval for each change, flagging only changes that stand out of
//!   run-to-run noise; Markdown, Bencher Metric Format, github-action-benchmark
//!   and JUnit outputs for CI.
//! - [`contracts`]: checking a profile against YAML contracts
//!   ([`contracts::verify_contract`], [`contracts::Verifier`] for your own
//!   contracts and analyses).
//! - [`trace`]: analyses of an execution trace and their result types, the
//!   load balance of distributed runs ([`trace::RankReport`]).
//! - [`straggler`]: the one rule that names a rank as a straggler, for the
//!   merged trace's rank report and [`fleet`].
//! - [`run`]: the one summary of a run ([`run::RunSummary`]: per name the
//!   calls, total time and distribution, the steps, the clock) that diff,
//!   parity and fleet read, built once per source.
//! - [`export`]: merging rank profiles into one Chrome trace
//!   ([`export::merge_ranks`]), Nsight launches as text, Markdown and JSON,
//!   and (feature `parquet`) a profile's aggregates as Parquet tables.
//! - [`html`]: extension [`html::Section`]s for the report.
//! - [`graph`]: an execution graph drawn as Graphviz DOT or an ASCII tree.
//! - [`input`]: every input format, told from a file's first bytes and read
//!   by [`input::open`]; the Nsight importers ([`input::nsight`]: Nsight
//!   Compute CSVs and Nsight Systems kernel summaries as reports and
//!   profiles, and running `ncu`/`nsys`), the step-profiler line parser and
//!   execution-trace reading.
//! - [`kernel`]: the tile table, checksum divergence and critical path of
//!   kernel-level runs.
//! - [`hardware`]: building the one hardware model
//!   ([`profiler_core::hardware::Hardware`]: ceilings per precision and
//!   memory level, each with its source) from the preset table
//!   ([`hardware::DEVICES`], [`hardware::preset`]), TOML/JSON files, a name
//!   or a file as `--hardware` takes it ([`hardware::resolve`]), settings,
//!   a profile's recorded hardware, and this machine's probes
//!   ([`hardware::probe`]).
//!
//! Every output stays well-formed for any name: each format has one name
//! sanitiser that all its writers use.

// The crate stands on five floors, bottom first, each a folder: `base`
// (formatting, escaping and chart primitives), `model` (the plain data
// readers produce and analyses take, and the hardware model), `input` (every
// file format read), `analysis` (each report's computation) and `output`
// (exports and the HTML page). Modules import one way, down the floors, in
// the layers `docs/LAYERS.md` lists for this crate (checked by the
// workspace's `tests/layering.rs`). Each public item has one path: the
// report modules below, or the root for the few items above, which their
// modules then do not export.

mod analysis;
mod base;
pub mod input;
mod model;
mod output;

pub use analysis::{contracts, diff, fleet, kernel, parity, roofline, scorecard, straggler, trace};
pub use model::{hardware, run};
pub use output::{export, graph, html};

pub use analysis::scorecard::builder::scorecard;
pub use output::error::ExportError;
pub use output::export::chrome::{chrome_trace_json, write_chrome_trace};
pub use output::export::flamegraph::flamegraph_svg;
pub use output::export::folded::folded_stacks;
pub use output::export::perfetto::write_perfetto_trace;
pub use output::export::speedscope::speedscope_json;
pub use output::html::report::{HtmlReport, write_html_report};
pub use output::summary::{summary_json, summary_text};
