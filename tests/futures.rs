//! Functions that return a future built in their body (`#[async_trait]`
//! methods, `Box::pin(async move { .. })`, `-> impl Future` with an
//! `async move` tail, `.boxed()`): `#[brick]` and `#[trace_op]` time the
//! future, from its first poll to its completion across every `.await`,
//! once per call, and the future stays `Send`. Functions that merely
//! mention futures are timed as ordinary calls.

mod common;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use async_trait::async_trait;
use profiler::{brick, trace_op};

/// Each `SleepOnce` sleeps this long before its one `Pending`.
const NAP: Duration = Duration::from_millis(3);
/// Two naps, in ns: the least a timed future can take.
const TWO_NAPS_NS: u64 = 6_000_000;

/// Pending once, after sleeping `NAP`, so an `.await` really suspends and
/// the time between polls is known from below.
struct SleepOnce(bool);

impl Future for SleepOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        std::thread::sleep(NAP);
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

async fn two_naps() {
    SleepOnce(false).await;
    SleepOnce(false).await;
}

/// Polls a future to completion on this thread.
fn block_on<F: Future>(future: F) -> F::Output {
    struct Noop;
    impl Wake for Noop {
        fn wake(self: Arc<Self>) {}
    }
    let waker = Waker::from(Arc::new(Noop));
    let mut cx = Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut cx) {
            return value;
        }
    }
}

fn assert_send<T: Send>(value: T) -> T {
    value
}

/// Count and total time of `name` in a fresh snapshot.
fn recorded(name: &str) -> (u64, u64) {
    profiler::snapshot()
        .brick(name)
        .map_or((0, 0), |b| (b.count, b.total_ns))
}

/// Runs `make` (which builds a future) twice: nothing may be recorded
/// before the first poll, then one sample per call covering both naps.
fn assert_timed_as_future<F: Future<Output = u32>>(name: &str, mut make: impl FnMut() -> F) {
    let future = make();
    assert_eq!(recorded(name).0, 0, "{name}: nothing before the first poll");
    assert_eq!(block_on(future), 42);
    let (count, total_ns) = recorded(name);
    assert_eq!(count, 1, "{name}: one sample per call");
    assert!(
        total_ns >= TWO_NAPS_NS,
        "{name}: the sample covers both awaits: {total_ns} ns"
    );
    assert_eq!(block_on(make()), 42);
    let (count, total_ns) = recorded(name);
    assert_eq!(count, 2, "{name}: one sample per call");
    assert!(total_ns >= 2 * TWO_NAPS_NS, "{name}: {total_ns} ns");
}

// ------------------------------------------------------------ the forms

struct Model {
    bias: u32,
}

impl Model {
    /// The shape `#[async_trait]` generates, written by hand.
    #[brick("futures.pinned_box", elements = inputs.len())]
    #[allow(clippy::type_complexity)]
    fn pinned_box(&self, inputs: Vec<u32>) -> Pin<Box<dyn Future<Output = u32> + Send + '_>> {
        let bias = self.bias;
        Box::pin(async move {
            two_naps().await;
            inputs.iter().sum::<u32>() + bias
        })
    }
}

#[brick("futures.impl_future", elements = n)]
fn impl_future(n: u32) -> impl Future<Output = u32> + Send {
    async move {
        two_naps().await;
        n + 40
    }
}

/// `futures::FutureExt::boxed`, without the dependency.
trait Boxed: Future + Send + Sized + 'static {
    fn boxed(self) -> Pin<Box<dyn Future<Output = Self::Output> + Send>> {
        Box::pin(self)
    }
}

impl<F: Future + Send + 'static> Boxed for F {}

#[brick("futures.dot_boxed")]
fn dot_boxed(n: u32) -> Pin<Box<dyn Future<Output = u32> + Send>> {
    async move {
        two_naps().await;
        n
    }
    .boxed()
}

#[brick("futures.async_fn")]
async fn plain_async(n: u32) -> u32 {
    two_naps().await;
    n
}

#[async_trait]
trait Layer {
    async fn forward(&self, n: u32) -> u32;

    #[brick("futures.async_trait_default")]
    async fn default_forward(&self, n: u32) -> u32 {
        two_naps().await;
        n
    }
}

#[async_trait]
impl Layer for Model {
    #[brick("futures.async_trait_impl", elements = n)]
    async fn forward(&self, n: u32) -> u32 {
        two_naps().await;
        n + self.bias
    }
}

// -------------------------------------------------------------- tests

#[test]
fn pinned_boxed_async_blocks_are_timed_as_futures() {
    let _lock = common::exclusive();
    let model = Model { bias: 39 };
    assert_timed_as_future("futures.pinned_box", || {
        assert_send(model.pinned_box(vec![1, 2]))
    });
    let stats = profiler::snapshot();
    let stats = stats.brick("futures.pinned_box").expect("recorded");
    assert_eq!(stats.total_elements, 4, "amounts are taken at the call");
}

#[test]
fn impl_future_with_an_async_tail_is_timed_as_a_future() {
    let _lock = common::exclusive();
    assert_timed_as_future("futures.impl_future", || assert_send(impl_future(2)));
    assert_timed_as_future("futures.dot_boxed", || assert_send(dot_boxed(42)));
}

#[test]
fn async_trait_methods_are_timed_as_futures() {
    let _lock = common::exclusive();
    let model = Model { bias: 40 };
    assert_timed_as_future("futures.async_trait_impl", || assert_send(model.forward(2)));
    assert_timed_as_future("futures.async_trait_default", || {
        assert_send(model.default_forward(42))
    });
    let profile = profiler::snapshot();
    let stats = profile.brick("futures.async_trait_impl").expect("recorded");
    assert_eq!(stats.total_elements, 4);
}

#[test]
fn async_fns_are_still_timed_as_futures() {
    let _lock = common::exclusive();
    assert_timed_as_future("futures.async_fn", || assert_send(plain_async(42)));
}

#[test]
fn a_future_made_while_disabled_records_nothing() {
    let _lock = common::exclusive();
    profiler::disable();
    let future = impl_future(2);
    profiler::enable();
    assert_eq!(block_on(future), 42);
    assert_eq!(
        recorded("futures.impl_future").0,
        0,
        "its amounts were never taken, so it is not a sample"
    );
}

// ------------------------------------------- trace_op on the same forms

#[trace_op(name = "futures.trace_boxed", shapes(data))]
#[allow(clippy::type_complexity)]
fn trace_boxed(data: Vec<f32>) -> Pin<Box<dyn Future<Output = Vec<f32>> + Send>> {
    Box::pin(async move {
        two_naps().await;
        data
    })
}

#[trace_op(name = "futures.trace_impl", device = "cpu:1")]
fn trace_impl(n: usize) -> impl Future<Output = Vec<u16>> + Send {
    async move {
        two_naps().await;
        vec![0; n]
    }
}

#[async_trait]
trait Op {
    async fn apply(&self, data: Vec<u8>) -> Vec<u8>;
}

#[async_trait]
impl Op for Model {
    #[trace_op(name = "futures.trace_async_trait", shapes(data))]
    async fn apply(&self, data: Vec<u8>) -> Vec<u8> {
        two_naps().await;
        data
    }
}

#[test]
fn trace_op_times_futures_and_records_their_output() {
    let _lock = common::exclusive();
    let model = Model { bias: 0 };
    let future = assert_send(trace_boxed(vec![1.0; 5]));
    let entries = || profiler::snapshot().trace.entries;
    assert!(entries().is_empty(), "nothing before the first poll");
    assert_eq!(block_on(future).len(), 5);
    assert_eq!(block_on(assert_send(trace_impl(3))).len(), 3);
    assert_eq!(block_on(assert_send(model.apply(vec![7; 2]))), [7, 7]);
    let entries = entries();
    let entry = |name: &str| {
        let found: Vec<_> = entries.iter().filter(|e| e.operation == name).collect();
        assert_eq!(found.len(), 1, "{name}: one entry per call");
        assert!(
            found[0].duration_us >= TWO_NAPS_NS as f64 / 1e3,
            "{name}: the entry covers both awaits: {} us",
            found[0].duration_us
        );
        found[0].clone()
    };
    let boxed = entry("futures.trace_boxed");
    assert_eq!(
        (boxed.input_shapes, boxed.output_shape, boxed.memory_bytes),
        (vec![vec![5]], vec![5], 20)
    );
    let opaque = entry("futures.trace_impl");
    assert_eq!(opaque.device_id.as_deref(), Some("cpu:1"));
    assert_eq!(opaque.output_shape, [3]);
    let traited = entry("futures.trace_async_trait");
    assert_eq!(
        (traited.input_shapes, traited.output_shape),
        (vec![vec![2]], vec![2])
    );
}

// ------------------------------------------ functions that are not futures

#[brick("futures.not.pinned_value")]
fn pinned_value() -> Pin<Box<u32>> {
    Box::pin(42)
}

#[brick("futures.not.runs_a_future")]
fn runs_a_future() -> u32 {
    block_on(async {
        two_naps().await;
        42
    })
}

#[brick("futures.not.closure")]
fn closure() -> impl Fn() -> u32 {
    || 42
}

#[brick("futures.not.statement")]
fn async_block_statement() -> u32 {
    let future = async { 40 };
    drop(future);
    42
}

#[test]
fn functions_that_are_not_futures_are_timed_as_calls() {
    let _lock = common::exclusive();
    assert_eq!(*pinned_value(), 42);
    assert_eq!(closure()(), 42);
    assert_eq!(async_block_statement(), 42);
    for name in [
        "futures.not.pinned_value",
        "futures.not.closure",
        "futures.not.statement",
    ] {
        assert_eq!(recorded(name).0, 1, "{name}: timed when called");
    }
    assert_eq!(runs_a_future(), 42);
    let (count, total_ns) = recorded("futures.not.runs_a_future");
    assert_eq!(count, 1);
    assert!(
        total_ns >= TWO_NAPS_NS,
        "the call includes its blocking wait"
    );
}
