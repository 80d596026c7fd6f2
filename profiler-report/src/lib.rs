//! Analysis and rendering for the brick profiler: the training scorecard,
//! trace analysis, exports for external viewers and one HTML report.
//!
//! Every report is a pure function of a [`Profile`](profiler_core::Profile)
//! (a live snapshot or one read back from disk) and explicit settings. The
//! single exception is the convenience [`scorecard()`], which reads the live
//! profiler and the `PROFILER_*` environment.
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
//! The root holds what that needs; specialised items live in the public
//! modules:
//! - [`training`]: the training scorecard's parts: thresholds, model shape
//!   for MFU, regressions and per-layer types (the scorecard itself is
//!   [`scorecard()`] or [`ScorecardBuilder`]).
//! - [`hardware`]: building the one hardware model
//!   ([`profiler_core::hardware::Hardware`]: ceilings per precision and
//!   memory level, each with its source) from the preset table
//!   ([`hardware::DEVICES`], [`hardware::preset`]), TOML/JSON files, a name
//!   or a file as `--hardware` takes it ([`hardware::resolve`]), settings,
//!   a profile's recorded hardware, and this machine's probes
//!   ([`hardware::probe`]).
//! - [`trace`]: [`TraceAnalyzer`]'s result types, the
//!   load balance of distributed runs ([`trace::RankReport`]).
//! - [`export`]: merging rank profiles into one Chrome trace
//!   ([`export::merge_ranks`]).
//! - [`fleet`]: a distributed run's directory analysed across ranks:
//!   step-time distributions, stragglers, load imbalance, absent ranks.
//! - [`html`]: extension [`html::Section`]s for the report.
//! - [`roofline`]: the analytical roofline, a kernel placed on the roof of
//!   one precision and memory level of a `Hardware`
//!   ([`roofline::classify`]), and every annotated brick of a profile on
//!   one roof (Markdown, JSON, terminal, SVG, report section);
//!   Nsight Compute launches placed on a device's roof
//!   ([`roofline::FullProfileOptions`]).
//! - [`parity`]: per-op comparison against baseline runtimes (saved
//!   profiles, PyTorch profiler traces), with a bar chart.
//! - [`contract`]: checking a profile against YAML contracts
//!   ([`verify_contract`], [`contract::Verifier`] for your own contracts
//!   and analyses).
//! - [`diff`]: two runs compared brick by brick, flagging only changes that
//!   stand out of run-to-run noise.
//! - [`model`]: the plain data readers produce and analyses take (step
//!   profiler lines, saved scorecards, parity profiles, Chrome traces as
//!   nested events, diff inputs, the hardware model), each also at its
//!   earlier path ([`StepProfilerInput`], [`parity::ParityProfile`],
//!   [`hardware`], ...).
//! - [`input`]: every input format, told from a file's first bytes and read
//!   by [`input::open`]; the Nsight importers ([`input::nsight`]: Nsight
//!   Compute CSVs and Nsight Systems kernel summaries as reports and
//!   profiles, and running `ncu`/`nsys`; [`import`] adds the roofline's
//!   options that turn launches into [`import::FullProfile`]s), the
//!   step-profiler line parser and execution-trace reading.
//!
//! Every output stays well-formed for any name: each format has one name
//! sanitiser that all its writers use.

// The crate stands on five floors, bottom first, each a folder: `base`
// (formatting, escaping and chart primitives), `model` (the plain data
// readers produce and analyses take, and the hardware model), `input` (every
// file format read), `analysis` (each report's computation) and `output`
// (exports and the HTML page). Modules import one way, down the floors, in
// the layers `docs/ARCHITECTURE.md` lists for this crate (checked by the
// workspace's `tests/layering.rs`); the modules below keep their paths at
// the root.

mod analysis;
mod base;
pub mod input;
pub mod model;
mod output;

pub use analysis::{contract, diff, fleet, kernel, parity, roofline, trace, training};
pub use model::hardware;
pub use output::{export, html};

pub use contract::verify_contract;
pub use export::{
    chrome_trace_json, flamegraph_svg, folded_stacks, speedscope_json, write_chrome_trace,
};
pub use html::{FullReport, HtmlReport, write_html_report};
/// The Nsight importers, kept at their earlier path: the readers of
/// [`input::nsight`] with the roofline placement's options
/// ([`roofline::FullProfileOptions`]).
pub mod import {
    pub use crate::input::nsight::*;
    pub use crate::output::nsight::{
        full_profiles_json, full_profiles_markdown, full_profiles_text,
    };
    pub use crate::roofline::FullProfileOptions;
}
pub use output::error::ExportError;
pub use trace::TraceAnalyzer;
pub use training::{
    Bottleneck, Grade, ScorecardBuilder, ScorecardError, StepProfilerInput, TrainingScorecard,
    compute_training_scorecard, scorecard,
};
