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
// SPEC 5-6 scorecard names, SPEC 9 analyzer and the exports from profiler_report's root.
use profiler_report::{
    Bottleneck, CommunicationBottleneck, DeviceSummary, Grade, HardwareSpec, HtmlReport,
    LayerSummary, LoadBalanceMetrics, OpSummary, PerLayerData, PhaseData, Regression,
    StepProfilerInput, TraceAnalyzer, TrainingScorecard, chrome_trace_json,
    compute_training_scorecard, flamegraph_svg, folded_stacks, format_training_scorecard_markdown,
    scorecard, speedscope_json,
};
// SPEC 5, 7 and 8: measured ceilings, parity and rooflines.
use profiler::{BandwidthCeiling, FlopsCeiling, MeasuredCeilings, set_measured_ceilings};
use profiler_report::{
    BrickRoofline, HardwareProfile, KernelRoofline, MemoryLevel, MultiParityComparison, OpMapping,
    ParityComparison, ParityProfile, Precision, RooflineResult, compute_parity_comparison,
    compute_parity_multi, compute_roofline, import_pytorch_trace, measure_ceilings, parity_section,
    roofline_section,
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
