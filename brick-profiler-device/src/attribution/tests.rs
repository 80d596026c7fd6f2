//! Attribution driven by synthetic CUPTI records: out of order, late,
//! from several threads, nested, outside every brick, with a dropped buffer.

use profiler_core::kernel::{BrickPath, LaunchContext, MAX_PATH};
use profiler_core::profile::{ActivityKind, BrickKernels, DeviceKernels, KernelRow};

use super::*;

const BLOCK: u32 = 1;
const ATTENTION: u32 = 2;
const MLP: u32 = 3;

fn launch(correlation: u32, thread: u32, api_ns: u64, bricks: &[u32], step: u64) -> Launch {
    Launch {
        correlation,
        api_ns,
        context: LaunchContext {
            bricks: BrickPath::innermost_first(bricks),
            layer: None,
            phase: None,
            step: Some(step),
            thread: Some(thread),
        },
    }
}

fn record(correlation: u32, name: &str, start_ns: u64, end_ns: u64, stream: u32) -> Activity {
    Activity {
        kind: ActivityKind::Kernel,
        name: name.into(),
        start_ns,
        end_ns,
        device: 0,
        stream,
        correlation,
        runtime_correlation: None,
        grid: [4, 1, 1],
        block: [128, 1, 1],
        registers: 32,
        shared_bytes: 1024,
        bytes: 0,
    }
}

/// Launches of two threads: attention (nested in the block) twice, the MLP
/// on another thread on two streams, a copy in the block itself, a kernel
/// outside every brick, then step 1.
fn launches() -> Vec<Launch> {
    vec![
        launch(1, 10, 100, &[ATTENTION, BLOCK], 0),
        launch(2, 10, 110, &[ATTENTION, BLOCK], 0),
        launch(3, 11, 130, &[MLP, BLOCK], 0),
        launch(7, 11, 150, &[MLP, BLOCK], 0),
        launch(4, 10, 140, &[BLOCK], 0),
        launch(5, 10, 400, &[], 0),
        launch(6, 10, 500, &[ATTENTION, BLOCK], 1),
    ]
}

fn activities() -> Vec<Activity> {
    let mut copy = record(4, "Memcpy DtoH (Device -> Pageable)", 350, 360, 7);
    copy.kind = ActivityKind::Memcpy;
    copy.grid = [0; 3];
    copy.block = [0; 3];
    let mut wide = record(6, "attn_qk", 520, 560, 7);
    wide.grid = [8, 1, 1];
    vec![
        record(1, "attn_qk", 120, 170, 7),
        record(2, "attn_qk", 180, 230, 7),
        record(3, "mlp_up", 230, 330, 7),
        record(7, "mlp_down", 300, 340, 8),
        copy,
        record(5, "init_weights", 420, 440, 7),
        wide,
        record(99, "mystery", 600, 605, 7),
        record(8, "broken", 700, 690, 7),
    ]
}

fn name(slot: u32) -> String {
    match slot {
        BLOCK => "Block".into(),
        ATTENTION => "Attention".into(),
        MLP => "Mlp".into(),
        other => format!("b{other}"),
    }
}

fn summarize(a: &Attributor) -> DeviceKernels {
    a.summarize_with(name)
}

fn brick(s: &DeviceKernels, slot: u32) -> &BrickKernels {
    s.brick(&name(slot)).expect("the brick launched something")
}

fn kernel<'a>(rows: &'a [KernelRow], kind: ActivityKind, wanted: &str) -> Option<&'a KernelRow> {
    rows.iter().find(|k| k.kind == kind && k.name == wanted)
}

fn in_order() -> DeviceKernels {
    let mut a = Attributor::new();
    launches().into_iter().for_each(|l| a.launch(l));
    activities().into_iter().for_each(|x| a.activity(x));
    a.dropped(1, 12);
    summarize(&a)
}

#[test]
fn self_and_total_device_time_per_nested_brick() {
    let s = in_order();
    let attention = &brick(&s, ATTENTION);
    assert_eq!((attention.self_ns, attention.total_ns), (50 + 50 + 40, 140));
    assert_eq!(attention.activities, 3);
    let mlp = &brick(&s, MLP);
    assert_eq!((mlp.self_ns, mlp.total_ns), (100 + 40, 140));
    let block = &brick(&s, BLOCK);
    assert_eq!(block.self_ns, 10, "its own copy only");
    assert_eq!(block.total_ns, 10 + 140 + 140, "its own and its children's");
    assert_eq!(s.threads, 2);
}

#[test]
fn kernels_per_brick_keep_name_calls_times_and_shape() {
    let s = in_order();
    let attention = &brick(&s, ATTENTION).kernels;
    assert_eq!(attention.len(), 1);
    let qk = kernel(attention, ActivityKind::Kernel, "attn_qk").expect("attn_qk");
    assert_eq!(
        (qk.calls, qk.total_ns, qk.min_ns, qk.max_ns),
        (3, 140, 40, 50)
    );
    assert_eq!(qk.mean_ns(), 46);
    assert_eq!(qk.grid, None, "grids differed between calls");
    assert_eq!(qk.block, Some([128, 1, 1]));
    assert_eq!((qk.registers, qk.shared_bytes), (Some(32), Some(1024)));
    let mlp: Vec<_> = brick(&s, MLP)
        .kernels
        .iter()
        .map(|k| (k.name.as_str(), k.total_ns))
        .collect();
    assert_eq!(mlp, [("mlp_up", 100), ("mlp_down", 40)]);
    let copy = kernel(
        &brick(&s, BLOCK).kernels,
        ActivityKind::Memcpy,
        "Memcpy DtoH (Device -> Pageable)",
    )
    .expect("the copy");
    assert_eq!((copy.calls, copy.total_ns), (1, 10));
}

#[test]
fn launch_to_start_gaps_per_brick_and_step() {
    let s = in_order();
    let gap = brick(&s, ATTENTION).launch_gap;
    assert_eq!((gap.count, gap.total_ns, gap.max_ns), (3, 20 + 70 + 20, 70));
    let gap = brick(&s, MLP).launch_gap;
    assert_eq!((gap.count, gap.total_ns, gap.max_ns), (2, 100 + 150, 150));
    let gap = s.step(0).expect("the step").launch_gap;
    assert_eq!(gap.count, 6);
    assert_eq!(gap.total_ns, 20 + 70 + 100 + 150 + 210 + 20);
    assert_eq!(gap.max_ns, 210);
    assert_eq!(s.step(1).expect("the step").launch_gap.total_ns, 20);
}

#[test]
fn idle_between_kernels_per_brick_and_step() {
    let s = in_order();
    // attn_qk 120..170 then 180..230: the device waited 10 ns inside attention.
    assert_eq!(
        (brick(&s, ATTENTION).idle_ns, brick(&s, ATTENTION).idle_gaps),
        (10, 1)
    );
    // mlp_up and mlp_down overlap on two streams: no idle inside the MLP;
    // the gaps between bricks belong to no brick.
    assert_eq!(brick(&s, MLP).idle_ns, 0);
    assert_eq!(brick(&s, BLOCK).idle_ns, 0);
    let step = s.step(0).expect("the step");
    assert_eq!(step.activities, 6);
    assert_eq!(step.span_ns, 440 - 120);
    // Busy: 120..170, 180..230, 230..340 (two streams, counted once), 350..360, 420..440.
    assert_eq!(step.busy_ns, 50 + 50 + 110 + 10 + 20);
    assert_eq!(step.idle_ns, 10 + 10 + 60);
    assert_eq!(step.idle_share(), Some(80.0 / 320.0));
    let step = s.step(1).expect("the step");
    assert_eq!((step.span_ns, step.busy_ns, step.idle_ns), (40, 40, 0));
}

#[test]
fn kernels_outside_bricks_and_unknown_launches_are_counted_apart_and_named() {
    let s = in_order();
    assert_eq!(
        (s.outside_bricks.activities, s.outside_bricks.device_ns),
        (1, 20)
    );
    assert!(
        kernel(
            &s.outside_bricks.kernels,
            ActivityKind::Kernel,
            "init_weights"
        )
        .is_some()
    );
    assert_eq!(
        (s.unknown_launch.activities, s.unknown_launch.device_ns),
        (1, 5)
    );
    assert!(kernel(&s.unknown_launch.kernels, ActivityKind::Kernel, "mystery").is_some());
    assert_eq!(s.invalid, 1, "the record ending before its start");
    let self_sum: u64 = s.bricks.iter().map(|b| b.self_ns).sum();
    assert_eq!(
        s.device_ns,
        self_sum + 20 + 5,
        "every valid ns is somewhere"
    );
}

#[test]
fn a_dropped_buffer_is_counted_and_noted() {
    let s = in_order();
    assert_eq!((s.dropped_buffers, s.dropped_records), (1, 12));
    assert!(s.is_partial());
    let notes = s.notes().join("\n");
    assert!(
        notes.contains("lost 1 activity buffer(s) and 12 record(s)"),
        "{notes}"
    );
    assert!(notes.contains("outside every brick"), "{notes}");
}

#[test]
fn records_out_of_order_give_the_same_numbers() {
    let mut a = Attributor::new();
    // Activities first, newest first; launches after, in reverse.
    activities().into_iter().rev().for_each(|x| a.activity(x));
    launches().into_iter().rev().for_each(|l| a.launch(l));
    a.dropped(1, 12);
    assert_eq!(summarize(&a), in_order());
}

#[test]
fn a_late_buffer_joins_the_next_summary() {
    let mut a = Attributor::new();
    launches().into_iter().for_each(|l| a.launch(l));
    let all = activities();
    let (early, late) = (all[..3].to_vec(), all[3..].to_vec());
    early.into_iter().for_each(|x| a.activity(x));
    let first = summarize(&a);
    assert_eq!(brick(&first, ATTENTION).self_ns, 100);
    assert_eq!(brick(&first, BLOCK).total_ns, 200);
    late.into_iter().for_each(|x| a.activity(x));
    a.dropped(1, 12);
    assert_eq!(summarize(&a), in_order());
}

#[test]
fn a_launch_record_arriving_after_its_kernel_is_still_matched() {
    let mut a = Attributor::new();
    a.activity(record(1, "attn_qk", 120, 170, 7));
    assert_eq!(summarize(&a).unknown_launch.activities, 1);
    a.launch(launch(1, 10, 100, &[ATTENTION, BLOCK], 0));
    let s = summarize(&a);
    assert_eq!(s.unknown_launch.activities, 0);
    assert_eq!(brick(&s, ATTENTION).self_ns, 50);
}

#[test]
fn a_recursive_brick_counts_a_kernel_once_in_its_total() {
    let mut a = Attributor::new();
    a.launch(launch(1, 0, 0, &[5, 5, 4], 0));
    a.activity(record(1, "k", 10, 30, 0));
    let s = summarize(&a);
    assert_eq!((brick(&s, 5).self_ns, brick(&s, 5).total_ns), (20, 20));
    assert_eq!(brick(&s, 4).total_ns, 20);
    assert_eq!(brick(&s, 4).self_ns, 0);
}

#[test]
fn a_path_deeper_than_the_limit_is_cut_and_counted() {
    let ids: Vec<u32> = (0..(MAX_PATH as u32 + 2)).collect();
    let path = BrickPath::innermost_first(&ids);
    assert!(path.is_truncated());
    assert_eq!(path.as_slice().len(), MAX_PATH);
    let mut a = Attributor::new();
    a.launch(Launch {
        correlation: 1,
        api_ns: 0,
        context: LaunchContext {
            bricks: path,
            ..LaunchContext::default()
        },
    });
    a.activity(record(1, "k", 1, 2, 0));
    let s = summarize(&a);
    assert_eq!(s.truncated_paths, 1);
    assert!(s.brick(&name(MAX_PATH as u32)).is_none(), "cut off");
    assert_eq!(brick(&s, MAX_PATH as u32 - 1).total_ns, 1);
}

#[test]
fn idle_is_per_device_and_a_start_before_the_launch_is_not_summed() {
    let mut a = Attributor::new();
    a.launch(launch(1, 0, 50, &[ATTENTION], 0));
    a.launch(launch(2, 0, 50, &[ATTENTION], 0));
    a.launch(launch(3, 0, 200, &[ATTENTION], 0));
    a.activity(record(1, "k", 100, 200, 0));
    let mut other = record(2, "k", 150, 250, 0);
    other.device = 1;
    a.activity(other);
    a.activity(record(3, "k", 190, 300, 0));
    let s = summarize(&a);
    // Device 0: 100..200 overlaps 190..300, device 1 alone: no idle anywhere.
    assert_eq!(brick(&s, ATTENTION).idle_ns, 0);
    assert_eq!(
        s.step(0).expect("the step").span_ns,
        200 + 100,
        "summed over devices"
    );
    assert_eq!(s.step(0).expect("the step").idle_ns, 0);
    let gap = brick(&s, ATTENTION).launch_gap;
    assert_eq!(
        (gap.count, gap.before_launch, gap.total_ns),
        (2, 1, 50 + 100)
    );
}

#[test]
fn a_copy_made_through_the_runtime_is_found_by_its_runtime_correlation() {
    let mut a = Attributor::new();
    a.launch(launch(40, 0, 0, &[MLP], 0));
    let mut copy = record(41, "Memcpy HtoD (Pageable -> Device)", 10, 30, 0);
    copy.kind = ActivityKind::Memcpy;
    copy.runtime_correlation = Some(40);
    a.activity(copy);
    let s = summarize(&a);
    assert_eq!(brick(&s, MLP).self_ns, 20);
    assert_eq!(s.unknown_launch.activities, 0);
}

#[test]
fn clear_forgets_records_and_counts() {
    let mut a = Attributor::new();
    launches().into_iter().for_each(|l| a.launch(l));
    activities().into_iter().for_each(|x| a.activity(x));
    a.dropped(1, 2);
    a.clear();
    a.activity(record(1, "attn_qk", 120, 170, 7));
    let s = summarize(&a);
    assert_eq!(s.bricks.len(), 0, "the launch was forgotten too");
    assert_eq!((s.unknown_launch.activities, s.dropped_buffers), (1, 0));
}

#[test]
fn events_come_in_start_order_on_the_host_clock_with_their_launch() {
    let mut a = Attributor::new();
    launches().into_iter().for_each(|l| a.launch(l));
    activities().into_iter().rev().for_each(|x| a.activity(x));
    // The records' clock reads 1000 when the host clock reads 50_000.
    a.anchor(1_000, 50_000);
    let s = summarize(&a);
    assert_eq!(s.events.len(), 8, "every valid activity");
    assert_eq!(s.events_omitted, 0);
    let first = &s.events[0];
    assert_eq!((first.name.as_str(), first.correlation), ("attn_qk", 1));
    assert_eq!(first.start_ns, 50_000 - 1_000 + 120);
    assert_eq!(first.dur_ns, 50);
    assert_eq!(first.launch_ns, Some(50_000 - 1_000 + 100));
    assert_eq!(first.thread, Some(10));
    assert_eq!(first.brick.as_deref(), Some("Attention"));
    assert_eq!(first.grid, [4, 1, 1]);
    let starts: Vec<u64> = s.events.iter().map(|e| e.start_ns).collect();
    assert!(starts.is_sorted(), "{starts:?}");
    let mystery = s.events.iter().find(|e| e.name == "mystery").expect("kept");
    assert_eq!((mystery.brick.as_ref(), mystery.launch_ns), (None, None));
    let outside = s
        .events
        .iter()
        .find(|e| e.name == "init_weights")
        .expect("kept");
    assert_eq!((outside.brick.as_ref(), outside.thread), (None, Some(10)));
}

#[test]
fn device_time_per_layer_and_direction_with_its_bricks_self_time() {
    use profiler_core::Direction::{Backward, Forward};
    let mut a = Attributor::new();
    let in_layer = |correlation, bricks: &[u32], layer| {
        let mut l = launch(correlation, 10, 0, bricks, 0);
        l.context.layer = layer;
        l
    };
    a.launch(in_layer(1, &[ATTENTION, BLOCK], Some((0, Forward))));
    a.launch(in_layer(2, &[MLP, BLOCK], Some((0, Forward))));
    a.launch(in_layer(3, &[], Some((0, Forward))));
    a.launch(in_layer(4, &[MLP, BLOCK], Some((0, Backward))));
    a.launch(in_layer(5, &[ATTENTION], Some((1, Forward))));
    a.launch(in_layer(6, &[ATTENTION], None));
    for (correlation, start, end) in [(1, 10, 40), (2, 40, 100), (3, 100, 105), (4, 200, 290)] {
        a.activity(record(correlation, "k", start, end, 7));
    }
    a.activity(record(5, "k", 300, 307, 7));
    a.activity(record(6, "k", 400, 1400, 7));
    let s = summarize(&a);
    let fwd0 = s.layer(0, Forward).expect("layer 0 forward");
    assert_eq!((fwd0.activities, fwd0.device_ns), (3, 30 + 60 + 5));
    assert_eq!(
        fwd0.bricks,
        vec![(name(MLP), 60), (name(ATTENTION), 30)],
        "self time per innermost brick; the kernel outside bricks is only in the layer's total"
    );
    let bwd0 = s.layer(0, Backward).expect("layer 0 backward");
    assert_eq!(
        (bwd0.device_ns, bwd0.bricks.clone()),
        (90, vec![(name(MLP), 90)])
    );
    assert_eq!(s.layer(1, Forward).map(|l| l.device_ns), Some(7));
    assert_eq!(
        s.layers.len(),
        3,
        "a launch outside every layer makes no row"
    );
}

fn without_events(mut s: DeviceKernels) -> DeviceKernels {
    s.events.clear();
    s.events_omitted = 0;
    s
}

#[test]
fn aggregate_retention_holds_no_record_and_gives_the_same_numbers() {
    let mut a = Attributor::with_retention(Retention::Aggregate);
    launches().into_iter().for_each(|l| a.launch(l));
    activities().into_iter().for_each(|x| a.activity(x));
    a.dropped(1, 12);
    assert_eq!(a.records_held().0, 0, "every activity folded and dropped");
    let s = summarize(&a);
    assert!(s.events.is_empty());
    assert_eq!(
        s.events_omitted, 8,
        "every valid activity counted, none drawn"
    );
    assert_eq!(s.invalid, 1);
    assert_eq!(without_events(s), without_events(in_order()));
}

#[test]
fn aggregate_retention_stays_bounded_over_a_long_run() {
    let mut a = Attributor::with_retention(Retention::Aggregate);
    let names = ["gemm", "softmax", "norm"];
    for i in 0..30_000u32 {
        a.launch(launch(
            i,
            10,
            u64::from(i) * 10,
            &[ATTENTION],
            u64::from(i / 1000),
        ));
        a.activities(vec![record(
            i,
            names[i as usize % 3],
            u64::from(i) * 10 + 2,
            u64::from(i) * 10 + 7,
            7,
        )]);
    }
    assert_eq!(a.records_held().0, 0);
    let s = summarize(&a);
    let attention = brick(&s, ATTENTION);
    assert_eq!(attention.kernels.len(), 3, "one aggregate per kernel name");
    for row in &attention.kernels {
        assert_eq!(
            (row.calls, row.total_ns, row.min_ns, row.max_ns),
            (10_000, 50_000, 5, 5)
        );
        assert_eq!(row.grid, Some([4, 1, 1]));
    }
    assert_eq!((attention.self_ns, s.device_ns), (150_000, 150_000));
    // 5 ns idle between each pair of consecutive kernels, all Attention's.
    assert_eq!(
        (attention.idle_ns, attention.idle_gaps),
        (5 * 29_999, 29_999)
    );
    assert_eq!(s.steps.len(), 30);
    assert_eq!(
        s.step(0).map(|st| (st.span_ns, st.busy_ns)),
        Some((9_995, 5_000))
    );
}

#[test]
fn trace_retention_keeps_records_up_to_its_bound_and_counts_the_rest() {
    let mut a = Attributor::with_retention(Retention::Trace { max_records: 3 });
    launches().into_iter().for_each(|l| a.launch(l));
    activities().into_iter().for_each(|x| a.activity(x));
    a.dropped(1, 12);
    assert_eq!(a.records_held().0, 3);
    let s = summarize(&a);
    let drawn: Vec<&str> = s.events.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(drawn, ["attn_qk", "attn_qk", "mlp_up"]);
    assert_eq!(s.events_omitted, 5, "the valid records past the bound");
    assert!(s.notes().iter().any(|n| n.contains("5 more are counted")));
    let full = in_order();
    assert_eq!(s.bricks.len(), full.bricks.len());
    for b in &full.bricks {
        let got = s.brick(&b.brick).expect("same bricks");
        assert_eq!(
            (got.self_ns, got.total_ns, got.activities, &got.kernels),
            (b.self_ns, b.total_ns, b.activities, &b.kernels),
            "{}",
            b.brick
        );
    }
    assert_eq!(
        (s.device_ns, s.invalid, &s.outside_bricks, &s.unknown_launch),
        (
            full.device_ns,
            full.invalid,
            &full.outside_bricks,
            &full.unknown_launch
        )
    );
}

#[test]
fn launches_past_the_bound_let_the_oldest_go_and_count_them() {
    let mut a = Attributor::new();
    let extra = 2u32;
    for i in 0..Attributor::MAX_LAUNCHES as u32 + extra {
        a.launch(launch(i, 10, 0, &[ATTENTION], 0));
    }
    assert_eq!(a.records_held().1, Attributor::MAX_LAUNCHES);
    a.activity(record(0, "evicted", 10, 20, 7));
    a.activity(record(extra, "kept", 30, 40, 7));
    let s = summarize(&a);
    assert_eq!(s.dropped_launches, u64::from(extra));
    assert_eq!(
        s.unknown_launch.activities, 1,
        "the evicted launch's kernel"
    );
    assert_eq!(brick(&s, ATTENTION).self_ns, 10);
}
