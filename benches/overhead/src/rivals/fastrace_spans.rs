//! fastrace `#[trace]` (feature `enable`) under root spans, with a reporter
//! that counts the spans it receives.
//!
//! fastrace keeps at most 10 240 local spans per local parent, so calls run
//! under one root span per [`CALLS_PER_ROOT`] calls (one "request"), which
//! is how fastrace is meant to be used. Every batch ends with
//! `fastrace::flush()`, which turns the spans into `SpanRecord`s and hands
//! them to the reporter: that post-processing is part of the all-in CPU.

use std::hint::black_box;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Barrier};

use fastrace::collector::{Config, Reporter, SpanContext, SpanRecord};
use fastrace::{Span, trace};

use crate::measure::{Timing, call_n, in_chunks, ns_per_call};
use crate::team::Team;
use crate::variant::{Batch, Expect, Recorded, Variant};

/// Calls under one root span (below fastrace's 10 240 local-span limit).
pub const CALLS_PER_ROOT: u64 = 10_000;

/// Span name of the measured function (`short_name`: the bare fn name).
const SPAN_NAME: &str = "traced";

/// The measured function.
#[trace(short_name = true)]
#[inline(never)]
fn traced(x: u64) -> u64 {
    black_box(x)
}

/// Counts the measured spans that reach the reporter.
struct CountingReporter(Arc<AtomicU64>);

impl Reporter for CountingReporter {
    fn report(&mut self, spans: Vec<SpanRecord>) {
        let ours = spans.iter().filter(|s| s.name == SPAN_NAME).count();
        self.0.fetch_add(ours as u64, Relaxed);
    }
}

/// Makes `calls` traced calls, one root span per [`CALLS_PER_ROOT`].
#[inline(always)]
fn traced_calls(calls: u64) {
    in_chunks(calls, CALLS_PER_ROOT, |n| {
        let root = Span::root("request", SpanContext::random());
        let _parent = root.set_local_parent();
        call_n(n, traced);
    });
}

fn job(calls: u64, start: &Barrier) -> Timing {
    start.wait();
    ns_per_call(calls, traced_calls)
}

/// Flushes and returns how many measured spans arrived since `before`.
fn flushed_since(counter: &AtomicU64, before: u64) -> Recorded {
    fastrace::flush();
    Recorded::Count(counter.load(Relaxed) - before)
}

/// Installs the counting reporter; returns the single- and multi-thread variants.
#[must_use]
pub fn variants(team: Rc<Team>) -> (Variant, Variant) {
    let received = Arc::new(AtomicU64::new(0));
    fastrace::set_reporter(CountingReporter(Arc::clone(&received)), Config::default());

    let counter = Arc::clone(&received);
    let single = Variant::new(
        "fastrace",
        "fastrace #[trace] (root span / 10k calls)",
        1,
        Expect::Every,
        move |calls| {
            let before = counter.load(Relaxed);
            let timing = ns_per_call(calls, traced_calls);
            Batch {
                timing,
                recorded: flushed_since(&counter, before),
            }
        },
    );
    let threads = team.size() as u32;
    let multi = Variant::new(
        "fastrace-threads",
        "fastrace #[trace] (root span / 10k calls)",
        threads,
        Expect::Every,
        move |calls| {
            let before = received.load(Relaxed);
            let timing = team.run(job, calls);
            Batch {
                timing,
                recorded: flushed_since(&received, before),
            }
        },
    );
    (single, multi)
}
