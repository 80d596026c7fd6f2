//! Analysis and rendering for the brick profiler.
//!
//! - Training scorecard: [`scorecard()`] grades the live profiler's run;
//!   [`ScorecardBuilder`] and [`compute_training_scorecard`] take explicit
//!   inputs. Renderers: `Display` (terminal),
//!   [`format_training_scorecard_markdown`], [`format_training_scorecard_html`]
//!   and JSON ([`TrainingScorecard::to_json`]).
//! - Hardware ceilings: [`HardwareSpec`], the [`DEVICES`] table and
//!   [`HardwareConfig`] (environment and config file).
//! - Execution traces: [`TraceAnalyzer`] (per-op, per-device, load balance,
//!   communication, collapsed stacks), [`read_execution_trace`], and
//!   [`merge_ranks`] for distributed runs ([`RankReport`], stragglers).
//! - Exports: [`chrome_trace_json`] / [`write_chrome_trace`] (Perfetto,
//!   chrome://tracing), [`folded_stacks`], [`flamegraph_svg`],
//!   [`speedscope_json`].
//! - HTML report: [`HtmlReport`] builds one self-contained page (extensible
//!   with [`Section`]s); [`write_html_report`] writes it atomically.
//! - Rooflines: [`compute_roofline`] (contract `roofline-model-v1`),
//!   [`KernelRoofline`] (ceilings per precision and memory level,
//!   [`KernelRoofline::classify`], device presets) and [`BrickRoofline`]
//!   (every brick of a profile on one roof), rendered as Markdown, JSON,
//!   terminal text, SVG and a report [`Section`] ([`roofline_section`]).
//! - Measured ceilings: [`measure_ceilings`] probes this machine's memory
//!   bandwidth and peak FP32 FLOP/s.
//! - Parity: [`ParityProfile`] per runtime (from a profile, a file or a
//!   PyTorch trace via [`import_pytorch_trace`] and an [`OpMapping`]),
//!   [`compute_parity_comparison`] and [`compute_parity_multi`].

mod export;
mod hardware;
mod html;
mod json;
mod parity;
mod plot;
mod probe;
mod roofline;
mod scorecard;
mod textfmt;
mod trace;

pub use export::{
    OPS_TID_BASE, chrome_trace_json, flamegraph_svg, folded_stacks, speedscope_json,
    write_chrome_trace,
};
pub use hardware::{
    DEFAULT_BYTES_PER_TOKEN, DEVICES, DeviceSpec, ENV_BYTES_PER_TOKEN, ENV_HARDWARE,
    ENV_HARDWARE_FILE, ENV_PEAK_BW, ENV_PEAK_TFLOPS, HardwareConfig, HardwareError, HardwareSpec,
};
pub use html::{HtmlReport, Section, write_html_report};
pub use parity::{
    MultiParityComparison, OpGap, OpMapping, PARITY_THRESHOLD, ParityComparison, ParityError,
    ParityProfile, PytorchImport, TOP_GAPS, Totals, UnmappedOp, compute_parity_comparison,
    compute_parity_multi, import_pytorch_trace, import_pytorch_trace_str, parity_multi_section,
    parity_section,
};
pub use probe::{
    ASSUMED_LLC_BYTES, MAX_ARRAY_BYTES, ProbeOptions, measure_ceilings, measure_ceilings_with,
};
pub use roofline::{
    Bound, BrickPoint, BrickRoofline, CeilingSource, ComputeCeiling, HardwareProfile,
    KernelClassification, KernelRoofline, MemoryCeiling, MemoryLevel, NotAnnotated, Precision,
    ROOFLINE_CONTRACT_ID, RooflineBottleneck, RooflineError, RooflineResult, compute_roofline,
    roofline_section,
};
pub use scorecard::{
    Bottleneck, ENV_BASELINE, Grade, LaunchRule, LayerSummary, ModelShape, PerLayerData, PhaseData,
    Regression, STEP_PROFILER_TAGS, ScorecardBuilder, ScorecardError, ScorecardOptions, Severity,
    StepProfilerInput, Thresholds, TrainingScorecard, compute_training_scorecard,
    compute_training_scorecard_with, escape_html, find_last_step_profiler_line,
    format_training_scorecard_html, format_training_scorecard_markdown, load_baseline,
    parse_last_step_profiler_line, parse_step_profiler_line, save_baseline, scorecard,
};
pub use trace::{
    CommunicationBottleneck, DEFAULT_STRAGGLER_THRESHOLD, DeviceSummary, LoadBalanceMetrics,
    MergedTrace, OpSummary, RankReport, RankStats, Straggler, TraceAnalyzer, TraceError,
    merge_rank_files, merge_ranked, merge_ranks, parse_execution_trace, read_execution_trace,
    read_rank_profiles,
};
