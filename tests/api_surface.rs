//! The public surface the issues promise, importable from the crate roots:
//! this file fails to compile if a name is dropped or moved.

#![allow(unused_imports)]

// SPEC 2-3 (catalogue, recording, statistics, sync, steps, snapshot) and the
// macros, from the facade's root.
use profiler::{
    BrickBottleneck, BrickCategory, BrickId, BrickStats, CategoryStats, CpuEventTimer, DeviceEvent,
    DeviceTimer, Direction, LatencyHistogram, Profile, ProfileError, Schedule, SyncMode,
    all_brick_stats, brick, brick_names, disable, elapsed_ns, enable, finalize, has_pending,
    in_layer, in_phase, in_step, is_enabled, layer, pending_count, phase, record_deferred,
    record_deferred_dynamic, record_elapsed, record_elapsed_with_bytes, reset, reset_epoch,
    set_brick_bottleneck, set_device_timer, set_l2_cache_hit_rate, set_sync_hook, set_sync_mode,
    set_zero_copy, snapshot, start, start_brick, stats, step, stop, stop_brick, trace_op,
};
// SPEC 9 trace types from the facade's root.
use profiler::{RecordedExecutionTrace, RecordedTraceEntry, TensorShape, TraceRecorder};
// What a README user needs, from profiler_report's root: the scorecard,
// the analyzer, the exports and the HTML report.
use profiler_report::{
    Bottleneck, ExportError, Grade, HardwareSpec, HtmlReport, ScorecardBuilder, ScorecardError,
    StepProfilerInput, TraceAnalyzer, TrainingScorecard, chrome_trace_json,
    compute_training_scorecard, flamegraph_svg, folded_stacks, scorecard, speedscope_json,
    write_chrome_trace, write_html_report,
};
// Specialised items, from profiler_report's public modules.
use profiler_report::export::{MergedTrace, merge_rank_files, merge_ranked, merge_ranks};
use profiler_report::hardware::{DEVICES, DeviceSpec, HardwareConfig, HardwareError};
use profiler_report::html::Section;
use profiler_report::scorecard::{
    LayerSummary, ModelShape, PerLayerData, PhaseData, Regression, Severity, Thresholds,
    parse_last_step_profiler_line, parse_step_profiler_line,
};
use profiler_report::trace::{
    CommunicationBottleneck, DeviceSummary, LoadBalanceMetrics, OpSummary, RankReport, TraceError,
    read_execution_trace, read_rank_profiles,
};

#[test]
fn brick_id_and_category_constants_match_the_catalogue() {
    assert_eq!(BrickId::COUNT, 23);
    assert_eq!(BrickId::ALL.len(), BrickId::COUNT);
    assert_eq!(BrickCategory::COUNT, 7);
    assert_eq!(BrickCategory::ALL.len(), BrickCategory::COUNT);
    assert_eq!(SyncMode::default(), SyncMode::Deferred);
    assert_eq!(HardwareSpec::rtx_4060l().peak_bw_gb_s, 256.0);
}
