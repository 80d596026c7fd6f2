//! Execution traces and the trace-mode timeline.
//!
//! - `#[trace_op]` records one [`RecordedTraceEntry`] per call (operation,
//!   device, input and output shapes, duration) into per-thread stores;
//!   implement [`TensorShape`] for your tensor type to record its shape.
//! - Trace mode (`profiler::Config::new().trace_mode(true)`) also records a
//!   [`Timeline`]: every step, phase, layer and brick as a timed event per
//!   thread, which the Chrome-trace and flamegraph exports draw. Without
//!   it, those exports have only what the aggregate statistics give.
//! - [`TraceRecorder`] builds a [`RecordedExecutionTrace`] by hand.

pub(crate) mod op;
pub(crate) mod shape;

pub use crate::profile::timeline::{
    CounterSample, CounterTrack, DeviceStart, EventKind, ThreadTimeline, Timeline, TimelineEvent,
};
pub use crate::profile::trace::{
    DEFAULT_ELEMENT_SIZE, RecordedExecutionTrace, RecordedTraceEntry, TraceRecorder,
};
pub use crate::record::entries::{DEFAULT_PROCESS_ENTRY_CAPACITY, DEFAULT_TRACE_ENTRY_CAPACITY};
use crate::record::state;
pub use shape::TensorShape;

/// Whether trace mode is on (timeline events are being recorded).
#[must_use]
pub fn is_trace_mode() -> bool {
    state::load() & state::TIMELINE != 0
}
