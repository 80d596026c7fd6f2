//! Execution traces: one [`RecordedTraceEntry`] per traced operation, the
//! [`RecordedExecutionTrace`] that collects them, a manual [`TraceRecorder`],
//! and the runtime behind `#[trace_op]`.
//!
//! Field names, builders and accessors follow the reference format so saved
//! traces stay readable by existing tools.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// Element size assumed when none is given (the reference assumed `f64`).
pub const DEFAULT_ELEMENT_SIZE: usize = 8;

/// One traced operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedTraceEntry {
    /// Step number (the profiler's step index for `#[trace_op]`).
    pub step: usize,
    /// Operation name.
    pub operation: String,
    /// Device the operation ran on, if known.
    #[serde(default)]
    pub device_id: Option<String>,
    /// Shapes of the inputs.
    #[serde(default)]
    pub input_shapes: Vec<Vec<usize>>,
    /// Shape of the output.
    #[serde(default)]
    pub output_shape: Vec<usize>,
    /// Duration, µs.
    #[serde(default)]
    pub duration_us: f64,
    /// Elements of the output (product of its shape).
    #[serde(default)]
    pub output_elements: usize,
    /// Bytes of the output (elements x element size).
    #[serde(default)]
    pub memory_bytes: usize,
    /// Start, µs since the profile's start (absent in reference files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_us: Option<f64>,
    /// Recording thread (absent in reference files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<u32>,
}

impl RecordedTraceEntry {
    /// An entry with no device, shapes or duration.
    pub fn new(step: usize, operation: impl Into<String>) -> Self {
        Self {
            step,
            operation: operation.into(),
            device_id: None,
            input_shapes: Vec::new(),
            output_shape: Vec::new(),
            duration_us: 0.0,
            output_elements: 0,
            memory_bytes: 0,
            start_us: None,
            thread: None,
        }
    }

    /// Sets the device.
    #[must_use]
    pub fn with_device_id(mut self, device_id: impl Into<String>) -> Self {
        self.device_id = Some(device_id.into());
        self
    }

    /// Sets the input shapes.
    #[must_use]
    pub fn with_input_shapes(mut self, shapes: Vec<Vec<usize>>) -> Self {
        self.input_shapes = shapes;
        self
    }

    /// Sets the output shape; elements become its product and memory
    /// elements x 8 bytes (see [`with_output_shape_sized`](Self::with_output_shape_sized)).
    #[must_use]
    pub fn with_output_shape(self, shape: Vec<usize>) -> Self {
        self.with_output_shape_sized(shape, DEFAULT_ELEMENT_SIZE)
    }

    /// Sets the output shape with an explicit element size in bytes.
    /// Products and byte counts saturate instead of overflowing.
    #[must_use]
    pub fn with_output_shape_sized(mut self, shape: Vec<usize>, element_size: usize) -> Self {
        self.output_elements = shape.iter().fold(1usize, |acc, &d| acc.saturating_mul(d));
        self.memory_bytes = self.output_elements.saturating_mul(element_size);
        self.output_shape = shape;
        self
    }

    /// Sets the duration.
    #[must_use]
    pub fn with_duration(mut self, duration: Duration) -> Self {
        self.duration_us = duration.as_secs_f64() * 1e6;
        self
    }

    /// Output elements per µs (0 when the duration is below 1e-9 µs).
    #[must_use]
    pub fn throughput_elements_per_us(&self) -> f64 {
        if self.duration_us < 1e-9 {
            0.0
        } else {
            self.output_elements as f64 / self.duration_us
        }
    }
}

/// A sequence of trace entries with their total duration and metadata.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RecordedExecutionTrace {
    /// The entries, in recording order.
    #[serde(default)]
    pub entries: Vec<RecordedTraceEntry>,
    /// Sum of entry durations, µs.
    #[serde(default)]
    pub total_duration_us: f64,
    /// Free-form metadata (rank, model, ...).
    #[serde(default)]
    pub metadata: HashMap<String, String>,
}

impl RecordedExecutionTrace {
    /// An empty trace.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends an entry and adds its duration to the total.
    pub fn add_entry(&mut self, entry: RecordedTraceEntry) {
        self.total_duration_us += entry.duration_us;
        self.entries.push(entry);
    }

    /// Adds a metadata pair.
    #[must_use]
    pub fn with_metadata(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.metadata.insert(key.into(), value.into());
        self
    }

    /// Number of entries.
    #[must_use]
    pub fn step_count(&self) -> usize {
        self.entries.len()
    }

    /// Sum of entries' output bytes.
    #[must_use]
    pub fn total_memory_bytes(&self) -> usize {
        self.entries
            .iter()
            .fold(0usize, |acc, e| acc.saturating_add(e.memory_bytes))
    }

    /// Largest single entry's output bytes.
    #[must_use]
    pub fn peak_memory_bytes(&self) -> usize {
        self.entries
            .iter()
            .map(|e| e.memory_bytes)
            .max()
            .unwrap_or(0)
    }

    /// The `n` slowest entries, slowest first.
    #[must_use]
    pub fn slowest_ops(&self, n: usize) -> Vec<&RecordedTraceEntry> {
        let mut sorted: Vec<&RecordedTraceEntry> = self.entries.iter().collect();
        sorted.sort_by(|a, b| b.duration_us.total_cmp(&a.duration_us));
        sorted.truncate(n);
        sorted
    }

    /// Pretty JSON.
    ///
    /// # Errors
    /// Only if serialisation fails (never for finite durations).
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string_pretty(self)
    }
}

/// Records operations by hand: `begin_op`, then `end_op` or `end_op_with_shapes`.
#[derive(Debug, Default)]
pub struct TraceRecorder {
    trace: RecordedExecutionTrace,
    current_step: usize,
    current: Option<(String, Instant)>,
}

impl TraceRecorder {
    /// A recorder with an empty trace.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts an operation, ending any open one first.
    pub fn begin_op(&mut self, operation: impl Into<String>) {
        self.end_op();
        self.current = Some((operation.into(), Instant::now()));
    }

    /// Ends the open operation with its shapes; steps number 0, 1, 2, ...
    pub fn end_op_with_shapes(&mut self, input_shapes: Vec<Vec<usize>>, output_shape: Vec<usize>) {
        if let Some((operation, start)) = self.current.take() {
            let entry = RecordedTraceEntry::new(self.current_step, operation)
                .with_input_shapes(input_shapes)
                .with_output_shape(output_shape)
                .with_duration(start.elapsed());
            self.trace.add_entry(entry);
            self.current_step += 1;
        }
    }

    /// Ends the open operation without shapes.
    pub fn end_op(&mut self) {
        if self.current.is_some() {
            self.end_op_with_shapes(Vec::new(), Vec::new());
        }
    }

    /// Closes any open operation and returns the trace.
    #[must_use]
    pub fn finish(mut self) -> RecordedExecutionTrace {
        self.end_op();
        self.trace
    }

    /// The trace so far.
    #[must_use]
    pub fn current_trace(&self) -> &RecordedExecutionTrace {
        &self.trace
    }
}

/// A value with a tensor shape, for `#[trace_op(shapes(...))]` and output shapes.
///
/// Implemented for slices, arrays, `Vec`s and references to them; implement
/// it for your tensor type:
///
/// ```
/// # use profiler_core as profiler;
/// struct Tensor { dims: Vec<usize>, data: Vec<f32> }
/// impl profiler::TensorShape for Tensor {
///     fn shape(&self) -> Vec<usize> { self.dims.clone() }
///     fn element_size(&self) -> usize { 4 }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no tensor shape",
    label = "`shapes(...)` arguments must implement `profiler::TensorShape`",
    note = "implement `profiler::TensorShape` for your tensor type, or leave this argument out of `shapes(...)`"
)]
pub trait TensorShape {
    /// Dimensions, outermost first.
    fn shape(&self) -> Vec<usize>;
    /// Bytes per element (default 8).
    fn element_size(&self) -> usize {
        DEFAULT_ELEMENT_SIZE
    }
}

impl<T> TensorShape for [T] {
    fn shape(&self) -> Vec<usize> {
        vec![self.len()]
    }
    fn element_size(&self) -> usize {
        size_of::<T>()
    }
}

impl<T, const N: usize> TensorShape for [T; N] {
    fn shape(&self) -> Vec<usize> {
        vec![N]
    }
    fn element_size(&self) -> usize {
        size_of::<T>()
    }
}

impl<T> TensorShape for Vec<T> {
    fn shape(&self) -> Vec<usize> {
        vec![self.len()]
    }
    fn element_size(&self) -> usize {
        size_of::<T>()
    }
}

impl<T: TensorShape + ?Sized> TensorShape for &T {
    fn shape(&self) -> Vec<usize> {
        (**self).shape()
    }
    fn element_size(&self) -> usize {
        (**self).element_size()
    }
}

impl<T: TensorShape + ?Sized> TensorShape for &mut T {
    fn shape(&self) -> Vec<usize> {
        (**self).shape()
    }
    fn element_size(&self) -> usize {
        (**self).element_size()
    }
}

impl<T: TensorShape + ?Sized> TensorShape for Box<T> {
    fn shape(&self) -> Vec<usize> {
        (**self).shape()
    }
    fn element_size(&self) -> usize {
        (**self).element_size()
    }
}

/// Default bound of a thread's `#[trace_op]` entries.
pub const DEFAULT_TRACE_ENTRY_CAPACITY: usize = 100_000;
static ENTRY_CAPACITY: AtomicUsize = AtomicUsize::new(DEFAULT_TRACE_ENTRY_CAPACITY);

/// Sets how many `#[trace_op]` entries each thread keeps; later entries are
/// dropped and counted.
pub fn set_trace_entry_capacity(entries: usize) {
    ENTRY_CAPACITY.store(entries, Relaxed);
}

/// One thread's `#[trace_op]` entries. The lock is only ever contended by a
/// snapshot; `#[trace_op]` allocates shapes anyway, so this is not the
/// zero-cost path that `#[brick]` is.
#[derive(Default)]
pub(crate) struct EntryStore {
    pub(crate) entries: Mutex<Vec<RecordedTraceEntry>>,
    pub(crate) dropped: AtomicU64,
}

impl EntryStore {
    fn push(&self, entry: RecordedTraceEntry) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.len() < ENTRY_CAPACITY.load(Relaxed) {
            entries.push(entry);
        } else {
            drop(entries);
            crate::slab::bump(&self.dropped, 1);
        }
    }

    pub(crate) fn clear(&self) {
        self.entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        self.dropped.store(0, Relaxed);
    }
}

/// Times one `#[trace_op]` call; the entry is recorded when it drops.
///
/// Timing uses the same counter as bricks and the timeline, so entries line
/// up with timeline events.
#[must_use = "the traced call is timed until the guard is dropped"]
#[derive(Debug)]
pub struct TraceOpGuard {
    entry: Option<(RecordedTraceEntry, u64)>,
}

impl TraceOpGuard {
    /// A guard that records nothing.
    pub const INERT: TraceOpGuard = TraceOpGuard { entry: None };

    /// Starts timing `operation` with its device and input shapes.
    pub fn start(operation: &str, device: Option<String>, input_shapes: Vec<Vec<usize>>) -> Self {
        let step = crate::session::current_step();
        let mut entry = RecordedTraceEntry::new(step, operation).with_input_shapes(input_shapes);
        entry.device_id = device;
        Self {
            entry: Some((entry, crate::clock::now(crate::clock::init()))),
        }
    }

    /// Whether the call is being traced (recording was on when it started).
    #[must_use]
    pub fn is_active(&self) -> bool {
        self.entry.is_some()
    }

    /// Sets the output shape and element size (when the call returned normally).
    pub fn set_output(&mut self, output: Option<(Vec<usize>, usize)>) {
        if let (Some((entry, _)), Some((shape, size))) = (&mut self.entry, output) {
            let taken = std::mem::replace(entry, RecordedTraceEntry::new(0, ""));
            *entry = taken.with_output_shape_sized(shape, size);
        }
    }
}

impl Drop for TraceOpGuard {
    fn drop(&mut self) {
        let Some((mut entry, start)) = self.entry.take() else {
            return;
        };
        let end = crate::clock::now(crate::clock::init());
        let ns_per_tick = crate::clock::ns_per_tick_cached();
        let micros = |ticks: u64| ticks as f64 * ns_per_tick / 1e3;
        entry.duration_us = micros(end.saturating_sub(start));
        entry.start_us = Some(micros(start.saturating_sub(crate::control::origin_ticks())));
        let state = crate::state::load();
        crate::slab::with_slab(state, |slab, _| {
            entry.thread = Some(slab.thread);
            slab.trace_entries.push(entry);
        });
    }
}

/// The shape of a `shapes(...)` argument.
pub fn input_shape<T: TensorShape + ?Sized>(value: &T) -> Vec<usize> {
    value.shape()
}

/// Wraps a return value so `#[trace_op]` can ask for its shape when it has one.
pub struct ShapeOf<'a, T: ?Sized>(pub &'a T);

/// Output shape of values that implement [`TensorShape`] (picked first by
/// method resolution on `(&ShapeOf(&v)).output_shape()`).
pub trait OutputShapeKnown {
    /// The shape and element size.
    fn output_shape(&self) -> Option<(Vec<usize>, usize)>;
}

impl<T: TensorShape + ?Sized> OutputShapeKnown for ShapeOf<'_, T> {
    fn output_shape(&self) -> Option<(Vec<usize>, usize)> {
        Some((self.0.shape(), self.0.element_size()))
    }
}

/// Fallback for values without a shape: `None`.
pub trait OutputShapeUnknown {
    /// Always `None`.
    fn output_shape(&self) -> Option<(Vec<usize>, usize)>;
}

impl<T: ?Sized> OutputShapeUnknown for &ShapeOf<'_, T> {
    fn output_shape(&self) -> Option<(Vec<usize>, usize)> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builders_follow_the_reference() {
        let entry = RecordedTraceEntry::new(1, "conv2d")
            .with_device_id("gpu:0")
            .with_input_shapes(vec![vec![1, 3, 32, 32], vec![16, 3, 3, 3]])
            .with_output_shape(vec![1, 16, 30, 30])
            .with_duration(Duration::from_micros(500));
        assert_eq!(entry.device_id.as_deref(), Some("gpu:0"));
        assert_eq!(entry.output_elements, 16 * 30 * 30);
        assert_eq!(entry.memory_bytes, 16 * 30 * 30 * 8);
        assert!((entry.duration_us - 500.0).abs() < 1e-9);
        assert_eq!(entry.with_output_shape_sized(vec![10], 4).memory_bytes, 40);
        assert_eq!(
            RecordedTraceEntry::new(0, "noop").throughput_elements_per_us(),
            0.0
        );
        let e = RecordedTraceEntry::new(0, "add")
            .with_output_shape(vec![1000])
            .with_duration(Duration::from_micros(100));
        assert!((e.throughput_elements_per_us() - 10.0).abs() < 1e-9);
    }

    #[test]
    fn huge_shapes_saturate() {
        let e = RecordedTraceEntry::new(0, "x").with_output_shape(vec![usize::MAX, 4]);
        assert_eq!(
            (e.output_elements, e.memory_bytes),
            (usize::MAX, usize::MAX)
        );
    }

    #[test]
    fn trace_accessors() {
        let mut t = RecordedExecutionTrace::new().with_metadata("rank", "0");
        assert_eq!((t.step_count(), t.peak_memory_bytes()), (0, 0));
        for (i, us) in [100u64, 300, 200].into_iter().enumerate() {
            t.add_entry(
                RecordedTraceEntry::new(i, format!("op{i}"))
                    .with_output_shape(vec![i + 1])
                    .with_duration(Duration::from_micros(us)),
            );
        }
        assert_eq!(t.step_count(), 3);
        assert!((t.total_duration_us - 600.0).abs() < 1e-9);
        assert_eq!(t.total_memory_bytes(), (1 + 2 + 3) * 8);
        assert_eq!(t.peak_memory_bytes(), 24);
        let slow: Vec<&str> = t
            .slowest_ops(2)
            .iter()
            .map(|e| e.operation.as_str())
            .collect();
        assert_eq!(slow, ["op1", "op2"]);
        let back: RecordedExecutionTrace = serde_json::from_str(&t.to_json().unwrap()).unwrap();
        assert_eq!(back, t);
    }

    #[test]
    fn recorder_numbers_steps_and_closes_open_ops() {
        let mut r = TraceRecorder::new();
        r.begin_op("a");
        r.begin_op("b"); // ends "a"
        r.end_op_with_shapes(vec![vec![2]], vec![2, 3]);
        r.end_op(); // nothing open: no entry
        r.begin_op("c");
        let t = r.finish(); // closes "c"
        let steps: Vec<(usize, &str)> = t
            .entries
            .iter()
            .map(|e| (e.step, e.operation.as_str()))
            .collect();
        assert_eq!(steps, [(0, "a"), (1, "b"), (2, "c")]);
        assert_eq!(t.entries[1].output_elements, 6);
    }

    #[test]
    #[allow(
        clippy::needless_borrow,
        reason = "the borrow is the autoref-specialisation under test"
    )]
    fn shapes_of_std_types() {
        let v = vec![0f32; 5];
        assert_eq!(input_shape(&v), [5]);
        assert_eq!(input_shape(&v[..2]), [2]);
        assert_eq!(input_shape(&[0u8; 3]), [3]);
        assert_eq!((&ShapeOf(&v)).output_shape(), Some((vec![5], 4)));
        assert_eq!((&ShapeOf(&3u32)).output_shape(), None);
    }
}
