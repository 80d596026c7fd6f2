//! `#[brick]` and `#[trace_op]` on every function shape they support, under
//! the strictest lints a user may turn on, with the profiler recording:
//! the generated code must compile warning-free and record exactly.
//!
//! Tests share the global profiler and run in parallel, so each one uses
//! its own brick and operation names and nobody disables or resets it.
#![deny(warnings, clippy::pedantic)]
// With `off` nothing records; `tests/compiled_out.rs` covers that build.
#![cfg(not(feature = "off"))]

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::task::{Context, Poll, Waker};

use profiler::{
    brick,
    trace::{RecordedTraceEntry, TensorShape},
    trace_op,
};

fn count(name: &str) -> u64 {
    profiler::snapshot().brick(name).map_or(0, |b| b.count)
}

fn entries(operation: &str) -> Vec<RecordedTraceEntry> {
    profiler::snapshot()
        .trace
        .entries
        .into_iter()
        .filter(|e| e.operation == operation)
        .collect()
}

/// Polls a future to completion on this thread (no executor needed).
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut cx) {
            return value;
        }
    }
}

/// Returns `Pending` once, so an `.await` really suspends.
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

fn assert_send<T: Send>(value: T) -> T {
    value
}

// ---------------------------------------------------------------- free fns

/// Doc comments and attributes stay where they are.
#[brick(RmsNorm, elements = x.len(), bytes = 4 * x.len())]
#[inline]
pub(crate) fn rms_norm(x: &mut [f32]) {
    let sum: f32 = x.iter().map(|v| v * v).sum();
    let scale = 1.0 / (sum + 1e-6).sqrt();
    for v in x.iter_mut() {
        *v *= scale;
    }
}

#[brick("pedantic.custom", category = Solver, flops = rows * cols, layer = layer, level = L2)]
#[must_use]
fn custom(rows: u64, cols: u64, layer: u32) -> u64 {
    rows * cols
}

#[brick(Softmax, elements = 0.5 * scale)]
fn float_amounts(scale: f64) -> f64 {
    #![allow(clippy::float_cmp)]
    if scale == 0.0 { 1.0 } else { scale }
}

#[brick("pedantic.generic", elements = items.len())]
fn generic_sum<T, I>(items: &[T]) -> I
where
    T: Copy + Into<I>,
    I: std::iter::Sum<I>,
{
    items.iter().map(|&x| x.into()).sum()
}

#[brick("pedantic.unsafe")]
unsafe fn read_first(ptr: *const u8) -> u8 {
    // SAFETY: callers pass a pointer to a live byte.
    unsafe { *ptr }
}

#[brick("pedantic.extern")]
extern "C" fn extern_double(x: i32) -> i32 {
    x * 2
}

#[brick("pedantic.impl_trait")]
fn evens(limit: u32) -> impl Iterator<Item = u32> {
    (0..limit).filter(|x| x % 2 == 0)
}

#[brick("pedantic.early_return")]
fn early_return(x: i32) -> i32 {
    if x < 0 {
        return 0;
    }
    x + 1
}

#[brick("pedantic.question_mark")]
fn parse_sum(a: &str, b: &str) -> Result<u32, std::num::ParseIntError> {
    Ok(a.parse::<u32>()? + b.parse::<u32>()?)
}

#[brick("pedantic.recursion")]
fn factorial(n: u64) -> u64 {
    if n <= 1 { 1 } else { n * factorial(n - 1) }
}

#[brick("pedantic.panics")]
fn panics(really: bool) -> u8 {
    assert!(!really, "asked to panic");
    1
}

#[brick("pedantic.diverges")]
fn diverges() -> ! {
    panic!("never returns")
}

#[brick("pedantic.async", elements = n)]
async fn async_brick(n: u64) -> u64 {
    YieldOnce(false).await;
    n + 1
}

#[brick("pedantic.impl_future", elements = n)]
#[trace_op(name = "pedantic.impl_future")]
fn impl_future(n: u64) -> impl Future<Output = Vec<u64>> + Send {
    async move {
        YieldOnce(false).await;
        vec![n; 2]
    }
}

#[brick("pedantic.pinned_future")]
#[trace_op(name = "pedantic.pinned_future", shapes(data))]
fn pinned_future(data: &[u8]) -> std::pin::Pin<Box<dyn Future<Output = usize> + Send + '_>> {
    Box::pin(async move {
        YieldOnce(false).await;
        data.len()
    })
}

#[async_trait::async_trait]
trait AsyncKernel {
    async fn launch(&self, n: u32) -> u32;
}

struct Launcher;

#[async_trait::async_trait]
impl AsyncKernel for Launcher {
    #[brick("pedantic.async_trait", elements = n)]
    #[trace_op(name = "pedantic.async_trait")]
    async fn launch(&self, n: u32) -> u32 {
        YieldOnce(false).await;
        n * 2
    }
}

// ----------------------------------------------------------------- methods

struct Tensor {
    dims: Vec<usize>,
    device: String,
}

impl TensorShape for Tensor {
    fn shape(&self) -> Vec<usize> {
        self.dims.clone()
    }
    fn element_size(&self) -> usize {
        2
    }
}

impl Tensor {
    #[brick("pedantic.by_ref", elements = self.dims.len())]
    fn rank(&self) -> usize {
        self.dims.len()
    }

    #[brick("pedantic.by_mut")]
    fn push_dim(&mut self, dim: usize) {
        self.dims.push(dim);
    }

    #[brick("pedantic.by_value")]
    fn into_dims(self) -> Vec<usize> {
        self.dims
    }

    #[brick("pedantic.boxed")]
    #[allow(clippy::boxed_local)] // the receiver shape is what is tested
    fn boxed_rank(self: Box<Self>) -> usize {
        self.dims.len()
    }

    #[trace_op(name = "pedantic.transpose", device = self.device, shapes(self))]
    fn transposed(&self) -> Tensor {
        Tensor {
            dims: self.dims.iter().rev().copied().collect(),
            device: self.device.clone(),
        }
    }
}

trait Kernel {
    #[brick("pedantic.trait_default")]
    fn run(&self) -> u32 {
        self.id() * 10
    }

    fn id(&self) -> u32;
}

struct Gelu;

impl Kernel for Gelu {
    #[brick(GELU)]
    fn id(&self) -> u32 {
        3
    }
}

// ---------------------------------------------------------------- trace_op

#[trace_op(shapes(a, b))]
fn pedantic_matmul(a: &[f32], b: &[f32]) -> Vec<f32> {
    a.iter().zip(b).map(|(x, y)| x * y).collect()
}

#[trace_op(name = "pedantic.unit", device = "cpu:0")]
fn unit_op(out: &mut Vec<u8>) {
    out.push(1);
}

#[trace_op(name = "pedantic.inferred")]
fn inferred(text: &str) -> u32 {
    text.parse().unwrap_or_default()
}

#[trace_op(name = "pedantic.trace_early")]
fn trace_early(x: &[u8]) -> Vec<u8> {
    if x.is_empty() {
        return Vec::new();
    }
    x.to_vec()
}

#[trace_op(name = "pedantic.trace_impl")]
fn trace_impl(n: usize) -> impl Iterator<Item = usize> {
    0..n
}

#[trace_op(name = "pedantic.trace_result")]
fn trace_result(text: &str) -> Result<Vec<u8>, std::num::ParseIntError> {
    Ok(vec![text.parse()?; 3])
}

#[trace_op(name = "pedantic.trace_generic", shapes(items))]
#[must_use]
fn trace_generic<T>(items: &[T]) -> Vec<T>
where
    T: Clone + Send,
{
    items.to_vec()
}

#[trace_op(name = "pedantic.trace_async", shapes(data))]
async fn trace_async(data: Vec<u16>) -> Vec<u16> {
    YieldOnce(false).await;
    data
}

static CALLS: AtomicU32 = AtomicU32::new(0);

#[trace_op(name = "pedantic.trace_unsafe")]
unsafe extern "C" fn trace_unsafe_extern() -> u32 {
    CALLS.fetch_add(1, Ordering::Relaxed)
}

#[brick("pedantic.unfinished")]
#[trace_op(name = "pedantic.unfinished")]
fn unfinished(_n: usize) -> Vec<u8> {
    todo!("diverging bodies compile without unreachable-code warnings")
}

#[trace_op(name = "pedantic.loops")]
fn loops_until(limit: u32) -> u32 {
    let mut i = 0;
    loop {
        i += 1;
        if i >= limit {
            return i;
        }
    }
}

#[brick("pedantic.both", elements = n)]
#[trace_op(name = "pedantic.both")]
fn both(n: usize) -> Vec<u8> {
    vec![0; n]
}

#[trace_op(name = "pedantic.both_reversed")]
#[brick("pedantic.both_reversed")]
fn both_reversed() -> u8 {
    7
}

// ------------------------------------------------------------------- tests

#[test]
fn free_functions_record_amounts() {
    profiler::enable();
    let mut x = vec![1.0_f32; 16];
    for _ in 0..3 {
        rms_norm(&mut x);
    }
    assert_eq!(custom(4, 8, 2), 32);
    assert!((float_amounts(10.0) - 10.0).abs() < f64::EPSILON);
    let profile = profiler::snapshot();
    let norm = profile.brick("RmsNorm").expect("recorded");
    assert_eq!(
        (norm.count, norm.total_elements, norm.total_bytes),
        (3, 48, 192)
    );
    let custom = profile.brick("pedantic.custom").expect("recorded");
    assert_eq!((custom.count, custom.total_flops), (1, 32));
    assert_eq!(custom.category, profiler::BrickCategory::Solver);
    let site = profile.sites.iter().find(|s| s.name == "pedantic.custom");
    assert_eq!(
        site.and_then(|s| s.level),
        Some(profiler::profile::BrickLevel::L2)
    );
    assert!(
        profile
            .layers
            .iter()
            .any(|l| l.index == 2 && l.ops.iter().any(|op| op.name == "pedantic.custom"))
    );
    let softmax = profile.brick("AttentionSoftmax").expect("alias resolves");
    assert_eq!(softmax.total_elements, 5);
}

#[test]
fn every_signature_shape_records_one_sample_per_call() {
    profiler::enable();
    assert_eq!(generic_sum::<u8, u32>(&[1, 2, 3]), 6);
    let byte = 9_u8;
    // SAFETY: `byte` is alive for the call.
    assert_eq!(unsafe { read_first(&raw const byte) }, 9);
    assert_eq!(extern_double(21), 42);
    assert_eq!(evens(10).count(), 5);
    assert_eq!(early_return(-5), 0);
    assert_eq!(early_return(5), 6);
    assert_eq!(parse_sum("1", "2"), Ok(3));
    assert!(parse_sum("1", "x").is_err());
    for (name, calls) in [
        ("pedantic.generic", 1),
        ("pedantic.unsafe", 1),
        ("pedantic.extern", 1),
        ("pedantic.impl_trait", 1),
        ("pedantic.early_return", 2),
        ("pedantic.question_mark", 2),
    ] {
        assert_eq!(count(name), calls, "{name}");
    }
    let generic = profiler::snapshot();
    assert_eq!(
        generic.brick("pedantic.generic").map(|b| b.total_elements),
        Some(3)
    );
}

#[test]
fn recursion_counts_every_level() {
    profiler::enable();
    assert_eq!(factorial(5), 120);
    assert_eq!(count("pedantic.recursion"), 5);
}

#[test]
fn panics_and_diverging_calls_still_record() {
    profiler::enable();
    assert!(std::panic::catch_unwind(|| panics(true)).is_err());
    assert_eq!(panics(false), 1);
    assert!(std::panic::catch_unwind(|| diverges()).is_err());
    assert!(std::panic::catch_unwind(|| unfinished(1)).is_err());
    assert_eq!(loops_until(3), 3);
    assert_eq!(count("pedantic.panics"), 2);
    assert_eq!(count("pedantic.unfinished"), 1);
    let unfinished = entries("pedantic.unfinished");
    assert_eq!(
        unfinished.len(),
        1,
        "a panicking call still records its entry"
    );
    assert!(unfinished[0].output_shape.is_empty());
    assert_eq!(entries("pedantic.loops").len(), 1);
    assert_eq!(count("pedantic.diverges"), 1);
}

#[test]
fn async_functions_time_the_whole_call_and_stay_send() {
    profiler::enable();
    let future = assert_send(async_brick(41));
    assert_eq!(
        count("pedantic.async"),
        0,
        "nothing runs before the first poll"
    );
    assert_eq!(block_on(future), 42);
    let profile = profiler::snapshot();
    let stats = profile.brick("pedantic.async").expect("recorded");
    assert_eq!((stats.count, stats.total_elements), (1, 41));

    let future = assert_send(trace_async(vec![1, 2, 3]));
    assert_eq!(block_on(future), [1, 2, 3]);
    let entry = &entries("pedantic.trace_async")[0];
    assert_eq!(
        (&entry.input_shapes[..], &entry.output_shape[..]),
        (&[vec![3]][..], &[3][..])
    );
    assert_eq!(entry.memory_bytes, 6);
}

#[test]
fn futures_built_in_the_body_record_once_per_call() {
    profiler::enable();
    assert_eq!(block_on(assert_send(impl_future(3))), [3, 3]);
    assert_eq!(block_on(assert_send(pinned_future(&[1, 2]))), 2);
    assert_eq!(block_on(assert_send(Launcher.launch(4))), 8);
    let profile = profiler::snapshot();
    for (name, elements) in [
        ("pedantic.impl_future", 3),
        ("pedantic.pinned_future", 0),
        ("pedantic.async_trait", 4),
    ] {
        let stats = profile.brick(name).expect("recorded");
        assert_eq!((stats.count, stats.total_elements), (1, elements), "{name}");
        assert_eq!(entries(name).len(), 1, "{name}");
    }
    assert_eq!(entries("pedantic.impl_future")[0].output_shape, [2]);
    assert_eq!(entries("pedantic.pinned_future")[0].input_shapes, [[2]]);
}

#[test]
fn methods_and_trait_methods() {
    profiler::enable();
    let mut t = Tensor {
        dims: vec![2, 3],
        device: "cuda:1".to_owned(),
    };
    assert_eq!(t.rank(), 2);
    t.push_dim(4);
    let transposed = t.transposed();
    assert_eq!(transposed.dims, [4, 3, 2]);
    assert_eq!(Box::new(transposed).boxed_rank(), 3);
    assert_eq!(t.into_dims(), [2, 3, 4]);
    assert_eq!(Gelu.run(), 30);
    for name in [
        "pedantic.by_ref",
        "pedantic.by_mut",
        "pedantic.by_value",
        "pedantic.boxed",
        "pedantic.trait_default",
        "Activation",
    ] {
        assert_eq!(count(name), 1, "{name}");
    }
    let entry = &entries("pedantic.transpose")[0];
    assert_eq!(entry.device_id.as_deref(), Some("cuda:1"));
    assert_eq!(entry.input_shapes, [[2, 3, 4]]);
    assert_eq!(entry.output_shape, [4, 3, 2]);
    assert_eq!(entry.memory_bytes, 24 * 2);
}

#[test]
fn trace_op_records_names_devices_and_shapes() {
    profiler::enable();
    assert_eq!(pedantic_matmul(&[1.0; 4], &[2.0; 4]), [2.0; 4]);
    let mut out = Vec::new();
    unit_op(&mut out);
    assert_eq!(inferred("17"), 17);
    assert_eq!(trace_early(&[]), Vec::<u8>::new());
    assert_eq!(trace_early(&[1, 2]), [1, 2]);
    assert_eq!(trace_impl(4).sum::<usize>(), 6);
    assert_eq!(trace_result("5"), Ok(vec![5; 3]));
    assert!(trace_result("x").is_err());
    assert_eq!(trace_generic(&["a", "b"]), ["a", "b"]);
    // SAFETY: the function has no preconditions.
    unsafe { trace_unsafe_extern() };

    let matmul = &entries("pedantic_matmul")[0];
    assert_eq!(matmul.input_shapes, [[4], [4]]);
    assert_eq!(
        (&matmul.output_shape[..], matmul.memory_bytes),
        (&[4][..], 16)
    );
    let unit = &entries("pedantic.unit")[0];
    assert_eq!(unit.device_id.as_deref(), Some("cpu:0"));
    assert!(unit.output_shape.is_empty());
    assert!(entries("pedantic.inferred")[0].output_shape.is_empty());
    let early: Vec<Vec<usize>> = entries("pedantic.trace_early")
        .into_iter()
        .map(|e| e.output_shape)
        .collect();
    assert_eq!(early.len(), 2);
    assert!(
        early.contains(&vec![]),
        "an early return has no output shape"
    );
    assert!(early.contains(&vec![2]));
    assert_eq!(entries("pedantic.trace_impl").len(), 1);
    assert_eq!(entries("pedantic.trace_result").len(), 2);
    let generic = &entries("pedantic.trace_generic")[0];
    assert_eq!(
        (&generic.input_shapes[..], &generic.output_shape[..]),
        (&[vec![2]][..], &[2][..])
    );
    assert_eq!(entries("pedantic.trace_unsafe").len(), 1);
}

#[test]
fn both_macros_combine_in_either_order() {
    profiler::enable();
    assert_eq!(both(3), [0; 3]);
    assert_eq!(both_reversed(), 7);
    let profile = profiler::snapshot();
    assert_eq!(
        profile.brick("pedantic.both").map(|b| b.total_elements),
        Some(3)
    );
    assert_eq!(
        profile.brick("pedantic.both_reversed").map(|b| b.count),
        Some(1)
    );
    assert_eq!(entries("pedantic.both")[0].output_shape, [3]);
    assert_eq!(entries("pedantic.both_reversed").len(), 1);
}
