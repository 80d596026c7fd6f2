//! The public surface the issues promise, importable from the crate roots:
//! this file fails to compile if a name is dropped or moved.

#![allow(unused_imports)]

// The facade's root: the macros, the switch, scopes, configuration and the
// profile with its statistics.
use profiler::{
    BrickCategory, BrickId, BrickStats, CategoryStats, Config, Direction, LayerGuard, PhaseGuard,
    Profile, Schedule, StepGuard, brick, disable, enable, in_layer, in_phase, in_step, is_enabled,
    layer, phase, reset, snapshot, step, trace_op,
};
// Specialised parts, in named modules.
use profiler::alloc::{
    BrickMemory, DeviceMemory, LayerMemory, MemoryKind, MemoryProfile, MemorySample, OutsideMemory,
    PhaseMemory, ScopeMemory, StepMemory, Tracking, record_device_alloc, record_device_free,
};
use profiler::compat::{
    BrickIdTimer, BrickTimer, all_brick_stats, brick_names, record_elapsed,
    record_elapsed_with_bytes, set_brick_bottleneck, start, start_brick, stats, stop, stop_brick,
};
use profiler::kernel::{
    DivergenceInfo, ExecutionGraph, KernelChecksum, KernelNode, TileLevel, TileStats, TileTimer,
    TransferNode, compare_checksums, find_divergence, fnv1a_f32_checksum, record_checksum,
    record_kernel_launch, record_transfer, register_ptx, start_tile, stop_tile,
};
use profiler::profile::{
    ClockSource, Counters, LaunchGap, LayerStats, PhaseStats, ProfileError, RunInfo,
    SCHEMA_VERSION, StepSummary, TRAINING_PHASES,
};
use profiler::stats::{
    BrickBottleneck, CycleDiagnosis, HistBucket, LatencyHistogram, UnknownBrick,
};
use profiler::sync::{
    CpuEventTimer, DeviceEvent, DeviceTimer, SyncMode, elapsed_ns, finalize, has_pending,
    host_now_ns, pending_count, record_deferred, record_deferred_dynamic, reset_epoch,
    set_sync_mode, sync_mode,
};
use profiler::trace::{
    DeviceStart, EventKind, RecordedExecutionTrace, RecordedTraceEntry, TensorShape, Timeline,
    TraceRecorder,
};
// Reports: the root holds what a README user needs; the rest lives in
// named modules.
use profiler::hardware::{Figure, Hardware, MemoryLevel, Precision, Source};
// Budgets a test checks against a run.
use profiler::budget::{Breach, Budget, BudgetError};
use profiler_report::diff::MemoryDiff;
use profiler_report::export::{MergedTrace, merge_ranks};
use profiler_report::hardware::{DEVICES, measure, preset, probe::ProbeOptions};
use profiler_report::html::{FleetPage, Section};
use profiler_report::input::native::read_execution_trace;
use profiler_report::scorecard::{
    LayerSummary, MemoryPeak, PerLayerData, PhaseData, Regression, Severity, Thresholds,
};
use profiler_report::trace::{
    CommunicationBottleneck, DeviceSummary, LoadBalanceMetrics, OperationStats,
};
use profiler_report::{
    ExportError, HtmlReport, chrome_trace_json, flamegraph_svg, folded_stacks, scorecard,
    scorecard::{
        Bottleneck, Grade, ScorecardBuilder, StepProfilerInput, TrainingScorecard,
        compute_training_scorecard,
    },
    speedscope_json, trace, write_chrome_trace, write_html_report,
};
// Measured ceilings, parity and rooflines.
use profiler::fs::{write_atomic, write_atomic_with};
use profiler::hardware::{Measurement, ProbeRun};
use profiler_report::{
    parity::{
        MultiParityComparison, OpMapping, ParityComparison, compute_parity_comparison,
        compute_parity_multi, import_pytorch_trace, parity_section,
    },
    roofline::{BrickRoofline, RooflineResult, classify, compute_roofline, roofline_section},
};
// Nsight imports, diffs of a run against baselines, trace summaries.
use profiler_report::{
    diff::{Change, Criteria, CriteriaError, Metric, ProfileDiff, RowDiff, compute_diff},
    input::nsight::{
        FullProfile, NcuReport, NsightTool, NsysReport, read_ncu_csv, read_nsys_stats,
    },
    roofline::FullProfileOptions,
    run::RunSummary,
    trace::TraceSummary,
};
// Perfetto's protobuf trace, streamed, and the choice of trace format.
use profiler::fs::write_atomic_streamed;
use profiler::profile::{TraceFormat, UnknownTraceFormat};
use profiler_report::export::{
    PerfettoTraceSummary, TimelineFile, write_perfetto_trace_to, write_timeline,
};
use profiler_report::write_perfetto_trace;
// Token generation: prefill and decode occurrences, the inference rows.
use profiler::profile::{GenerationLog, GenerationPhase, MAX_GENERATION_EVENTS, TokenEvent};
use profiler_report::scorecard::{
    CeilingUse, InferenceRows, MAX_LATENCY_SAMPLES, Percentiles, RunKind,
};

#[test]
fn brick_id_and_category_constants_match_the_catalogue() {
    assert_eq!(BrickId::COUNT, 23);
    assert_eq!(BrickId::ALL.len(), BrickId::COUNT);
    assert_eq!(BrickCategory::COUNT, 7);
    assert_eq!(BrickCategory::ALL.len(), BrickCategory::COUNT);
    assert_eq!(SyncMode::default(), SyncMode::Deferred);
    assert_eq!(
        preset("rtx_4060l")
            .unwrap()
            .memory(MemoryLevel::Dram)
            .map(|f| f.value),
        Some(256.0)
    );
}

/// Public items a `pub use` line or block brings into a root, `#[doc(hidden)]`
/// ones excluded (`pub mod`, `pub use a::{b, c}`, `pub use a::b`).
fn root_items(lib_rs: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut hidden = false;
    let code: String = lib_rs
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join(" ");
    let text = without_inline_module_bodies(&code);
    for stmt in text.split(';') {
        let stmt = stmt.trim();
        let was_hidden = std::mem::replace(&mut hidden, false);
        let (attrs, decl) = match stmt.rfind(']') {
            Some(end) if stmt.starts_with('#') => stmt.split_at(end + 1),
            _ => ("", stmt),
        };
        let decl = decl.trim();
        if attrs.contains("doc(hidden)") || was_hidden {
            continue;
        }
        if let Some(name) = decl.strip_prefix("pub mod ") {
            items.push(name.trim().to_owned());
        } else if let Some(path) = decl.strip_prefix("pub use ") {
            if let Some(open) = path.find('{') {
                let inner = &path[open + 1..path.rfind('}').unwrap_or(path.len())];
                items.extend(
                    inner
                        .split(',')
                        .map(|s| s.trim().to_owned())
                        .filter(|s| !s.is_empty()),
                );
            } else if !path.ends_with('*') {
                items.push(path.rsplit("::").next().unwrap_or(path).trim().to_owned());
            }
        }
        if decl.ends_with("#[doc(hidden)]") {
            hidden = true;
        }
    }
    items
}

/// `pub mod x { .. }` becomes `pub mod x;`: its items are not the root's.
fn without_inline_module_bodies(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("pub mod ") {
        let after = &rest[at..];
        let header_end = after.find(['{', ';']).unwrap_or(after.len());
        out.push_str(&rest[..at + header_end]);
        if after[header_end..].starts_with('{') {
            let mut depth = 0;
            let mut end = after.len();
            for (i, c) in after[header_end..].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = header_end + i + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            out.push(';');
            rest = &after[end..];
        } else {
            rest = &after[header_end..];
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn the_facade_root_stays_small() {
    let core = root_items(include_str!("../brick-profiler-core/src/lib.rs"));
    let facade = root_items(include_str!("../src/lib.rs"));
    assert!(
        facade.iter().any(|i| i == "Config") && facade.iter().any(|i| i == "brick"),
        "the parser sees the root: {facade:?}"
    );
    // The facade lists its items: every item of the runtime's root, once.
    for item in &core {
        let listed = facade.iter().filter(|i| *i == item).count();
        assert_eq!(
            listed, 1,
            "`{item}` of the runtime's root listed {listed} times"
        );
    }
    // 41: the recording API, plus `alloc` (memory), `dynamic` (bricks
    // made at run time), `rank_identity`, `hardware` (the one model of a
    // machine a profile records and reports judge against), `budget`
    // (limits a test checks a run against), the three
    // macros, and the three feature-gated modules (`metrics`, `tracing`,
    // `device`), each of which keeps its items to itself.
    assert!(
        facade.len() <= 41,
        "the `profiler` root holds {} items, more than 41: {facade:?}",
        facade.len()
    );
}
