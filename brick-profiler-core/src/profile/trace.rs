//! Execution traces: one [`RecordedTraceEntry`] per traced operation, the
//! [`RecordedExecutionTrace`] that collects them, and a manual
//! [`TraceRecorder`]. Field names, builders and accessors follow a format
//! existing tools read, so saved traces stay compatible.

use std::collections::HashMap;
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

    /// Appends an entry and adds its duration to the total (saturating at
    /// the largest finite double, so a total never becomes infinite).
    pub fn add_entry(&mut self, entry: RecordedTraceEntry) {
        self.total_duration_us = (self.total_duration_us + entry.duration_us).min(f64::MAX);
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
}
