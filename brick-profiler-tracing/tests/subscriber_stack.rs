//! A real subscriber stack (registry + `BrickLayer` + a `fmt` layer writing
//! to a buffer) fed nested, cross-thread and async spans: exact brick
//! counts, self versus total time, layers, rules, and the `fmt` output
//! untouched.

use std::future::Future;
use std::io::Write;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use profiler_core::{BrickCategory, BrickId, Direction, Profile};
use profiler_tracing::{BrickLayer, SpanRule};
use tracing::{Dispatch, Instrument};
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::prelude::*;

/// The profiler is global: one test at a time.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What the `fmt` layer wrote.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Buffer {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

impl Write for Buffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for Buffer {
    type Writer = Buffer;
    fn make_writer(&'a self) -> Buffer {
        self.clone()
    }
}

/// The stack under test, with the `fmt` layer's buffer.
fn stack(layer: BrickLayer) -> (Dispatch, Buffer) {
    let buffer = Buffer::default();
    let fmt = tracing_subscriber::fmt::layer()
        .with_writer(buffer.clone())
        .with_ansi(false)
        .without_time();
    let subscriber = tracing_subscriber::registry().with(layer).with(fmt);
    (Dispatch::new(subscriber), buffer)
}

/// Runs `body` under a fresh profiler with `dispatch` as the default.
fn profile(dispatch: &Dispatch, body: impl FnOnce()) -> Profile {
    profiler_core::reset();
    profiler_core::enable();
    tracing::dispatcher::with_default(dispatch, body);
    profiler_core::disable();
    profiler_core::snapshot()
}

const NAP: Duration = Duration::from_millis(2);

#[test]
fn nested_spans_are_nested_bricks_in_their_layers() {
    let _serial = serial();
    let (dispatch, buffer) = stack(BrickLayer::new());
    let profile = profile(&dispatch, || {
        for _pass in 0..3 {
            for layer in 0..2u32 {
                let _block = tracing::info_span!("block", layer).entered();
                {
                    let _attn = tracing::info_span!("attn").entered();
                    let _norm = tracing::info_span!("rms-norm").entered();
                    std::thread::sleep(NAP);
                }
                let _mlp = tracing::info_span!("mlp").entered();
                tracing::info!("inside the mlp");
            }
        }
    });

    let block = profile.brick("block").expect("block");
    let attn = profile.brick("attn").expect("attn");
    let norm = profile
        .brick("RmsNorm")
        .expect("rms-norm is the built-in RmsNorm");
    let mlp = profile.brick("mlp").expect("mlp");
    assert_eq!(
        (block.count, attn.count, norm.count, mlp.count),
        (6, 6, 6, 6)
    );
    assert_eq!(attn.category, BrickCategory::Attention);
    assert_eq!(mlp.category, BrickCategory::Ffn);
    assert_eq!(norm.category, BrickCategory::Norm);
    assert_eq!(block.category, BrickCategory::Other);
    assert!(
        profile.brick("rms-norm").is_none(),
        "no custom brick beside the built-in"
    );

    // Self vs total: the norm is a leaf inside attn, attn and mlp are the
    // block's children.
    assert_eq!(norm.child_ns, 0);
    assert!(norm.total_ns >= 6 * 2_000_000, "six 2 ms naps");
    assert!(attn.child_ns >= norm.total_ns * 99 / 100 && attn.child_ns <= attn.total_ns);
    assert!(
        attn.self_ns() < attn.total_ns / 2,
        "attn's time is its norm's"
    );
    assert!(block.child_ns >= attn.total_ns && block.child_ns <= block.total_ns);
    assert_eq!(block.self_ns() + block.child_ns, block.total_ns);

    // The `layer` field opened each block's layer scope.
    for index in 0..2 {
        let layer = profile
            .layer(index, Direction::Forward)
            .unwrap_or_else(|| panic!("layer {index}"));
        assert_eq!(layer.scope_count, 3, "layer {index}: one scope per pass");
        let count = |name: &str| layer.ops.iter().find(|o| o.name == name).map(|o| o.count);
        assert_eq!(count("block"), Some(3));
        assert_eq!(count("attn"), Some(3));
        assert_eq!(count("RmsNorm"), Some(3));
        assert_eq!(count("mlp"), Some(3));
    }
    assert!(profile.layer(2, Direction::Forward).is_none());

    // The fmt layer still sees every event with its span context.
    let text = buffer.text();
    assert_eq!(text.matches("inside the mlp").count(), 6, "{text}");
    assert!(text.contains("block{layer=1}:mlp"), "{text}");
}

#[test]
fn a_span_moved_to_another_thread_is_timed_there() {
    let _serial = serial();
    let (dispatch, _buffer) = stack(BrickLayer::new());
    let profile = profile(&dispatch, || {
        let outer = tracing::info_span!("outer");
        let moved = tracing::info_span!(parent: &outer, "moved", layer = 3u32);
        let inner_dispatch = tracing::dispatcher::get_default(Clone::clone);
        let _outer = outer.enter();
        std::thread::spawn(move || {
            tracing::dispatcher::with_default(&inner_dispatch, || {
                for _ in 0..2 {
                    let _moved = moved.enter();
                    let _leaf = tracing::info_span!("leaf").entered();
                    std::thread::sleep(NAP);
                }
            });
        })
        .join()
        .unwrap();
    });
    let outer = profile.brick("outer").expect("outer");
    let moved = profile.brick("moved").expect("moved");
    let leaf = profile.brick("leaf").expect("leaf");
    assert_eq!((outer.count, moved.count, leaf.count), (1, 2, 2));
    // Nesting is per thread: the moved span's calls nest their leaf on the
    // spawned thread, and are no children of `outer` on the main thread.
    assert!(moved.child_ns >= 2 * 2_000_000);
    assert_eq!(outer.child_ns, 0);
    let layer = profile.layer(3, Direction::Forward).expect("layer 3");
    assert_eq!(layer.scope_count, 2);
}

/// Pending once, after a nap, so an instrumented future is polled twice.
struct PendingOnce(bool);

impl Future for PendingOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        std::thread::sleep(NAP);
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

struct NoopWake;
impl Wake for NoopWake {
    fn wake(self: Arc<Self>) {}
}

/// Polls `future` once on this thread, then to completion on another.
fn poll_on_two_threads<F: Future<Output = ()> + Send + 'static>(future: F) {
    let waker = Waker::from(Arc::new(NoopWake));
    let mut future = Box::pin(future);
    let first = future.as_mut().poll(&mut Context::from_waker(&waker));
    assert!(first.is_pending());
    // Events on the other thread go to the same subscriber, as on a
    // runtime's worker threads.
    let dispatch = tracing::dispatcher::get_default(Clone::clone);
    std::thread::spawn(move || {
        tracing::dispatcher::with_default(&dispatch, || {
            let waker = Waker::from(Arc::new(NoopWake));
            while future
                .as_mut()
                .poll(&mut Context::from_waker(&waker))
                .is_pending()
            {}
            // Dropped here: the span closes on this thread.
            drop(future);
        });
    })
    .join()
    .unwrap();
}

#[test]
fn async_spans_are_one_detached_call_with_lifetime_timing() {
    let _serial = serial();
    let layer = BrickLayer::builder()
        .rule(SpanRule::named("request").lifetime())
        .build();
    let (dispatch, buffer) = stack(layer);
    let profile = profile(&dispatch, || {
        let _caller = tracing::info_span!("caller").entered();
        for i in 0..3u64 {
            let task = async {
                PendingOnce(false).await;
                tracing::info!("request done");
            };
            poll_on_two_threads(task.instrument(tracing::info_span!("request", flops = i + 1)));
            // Timed per enter: one call per poll.
            poll_on_two_threads(PendingOnce(false).instrument(tracing::info_span!("polled")));
        }
    });
    let request = profile.brick("request").expect("request");
    assert_eq!(request.count, 3, "one call per request, whatever its polls");
    assert!(request.total_ns >= 3 * 2 * 2_000_000, "both polls of each");
    assert_eq!(request.total_flops, 1 + 2 + 3, "the flops field of each");
    let polled = profile.brick("polled").expect("polled");
    // `Instrumented` also enters its span to drop the inner future.
    assert_eq!(polled.count, 9, "two polls and the drop each");
    // Detached, as an `async fn` brick: no child of the caller. The per-poll
    // span's first poll ran on the caller's thread, nested in it.
    let caller = profile.brick("caller").expect("caller");
    assert_eq!(caller.count, 1);
    assert!(
        caller.child_ns >= 3 * 2_000_000,
        "the first polls of `polled`"
    );
    assert!(caller.child_ns < request.total_ns);
    assert_eq!(buffer.text().matches("request done").count(), 3);
}

#[test]
fn rules_override_aliases_and_are_resolved_per_callsite() {
    let _serial = serial();
    let layer = BrickLayer::builder()
        .rule(SpanRule::named("attn").builtin(BrickId::AttentionScore))
        .rule(SpanRule::named("mlp").in_target("elsewhere").skip())
        .rule(SpanRule::named("rms-norm").skip())
        .rule(
            SpanRule::named("block")
                .custom("decoder", BrickCategory::Other)
                .layer_per_instance()
                .work(10, 200, 3000),
        )
        .build();
    let (dispatch, _buffer) = stack(layer);
    let profile = profile(&dispatch, || {
        // One callsite, three spans made up front as candle's models do:
        // layers 0, 1, 2 in creation order.
        let blocks: Vec<_> = (0..3).map(|_| tracing::trace_span!("block")).collect();
        for _pass in 0..2 {
            for block in &blocks {
                let _block = block.enter();
                let _attn = tracing::trace_span!("attn").entered();
                let _norm = tracing::trace_span!("rms-norm").entered();
                let _mlp = tracing::trace_span!("mlp").entered();
            }
        }
    });
    assert!(profile.brick("attn").is_none());
    assert_eq!(profile.brick("AttentionScore").map(|b| b.count), Some(6));
    assert!(profile.brick("RmsNorm").is_none(), "skipped");
    assert_eq!(
        profile.brick("mlp").map(|b| b.count),
        Some(6),
        "the skip rule is for another target"
    );
    let decoder = profile.brick("decoder").expect("decoder");
    assert_eq!(decoder.count, 6);
    assert_eq!(
        (
            decoder.total_elements,
            decoder.total_bytes,
            decoder.total_flops
        ),
        (60, 1200, 18_000)
    );
    for index in 0..3 {
        let layer = profile.layer(index, Direction::Forward).expect("layer");
        assert_eq!(layer.scope_count, 2, "layer {index}");
    }
}

#[test]
fn nothing_is_recorded_while_the_profiler_is_off() {
    let _serial = serial();
    let (dispatch, buffer) = stack(BrickLayer::new());
    profiler_core::reset();
    profiler_core::disable();
    tracing::dispatcher::with_default(&dispatch, || {
        let quiet = tracing::info_span!("quiet").entered();
        tracing::info!("still logged");
        // Switched on while `quiet` is entered: its exit finds no open call.
        profiler_core::enable();
        drop(quiet);
        let _on = tracing::info_span!("on").entered();
    });
    profiler_core::disable();
    let profile = profiler_core::snapshot();
    assert!(profile.brick("quiet").is_none());
    assert_eq!(profile.brick("on").map(|b| b.count), Some(1));
    assert!(buffer.text().contains("still logged"));
}

#[test]
fn two_layers_in_one_stack_each_record_every_enter() {
    let _serial = serial();
    let rule = SpanRule::named("step").custom("step-too", BrickCategory::Other);
    let subscriber = tracing_subscriber::registry()
        .with(BrickLayer::new())
        .with(BrickLayer::builder().rule(rule).build());
    let dispatch = Dispatch::new(subscriber);
    let profile = profile(&dispatch, || {
        // Made and entered at once, made and entered after another span
        // was made, and entered again after another was closed.
        for _ in 0..3 {
            let _step = tracing::info_span!("step").entered();
        }
        let first = tracing::info_span!("step");
        let second = tracing::info_span!("step");
        first.in_scope(|| {});
        second.in_scope(|| {});
        drop(second);
        first.in_scope(|| {});
    });
    let count = |name: &str| profile.brick(name).map(|b| b.count);
    assert_eq!(count("step"), Some(6), "the plain layer's brick");
    assert_eq!(count("step-too"), Some(6), "the ruled layer's brick");
}
