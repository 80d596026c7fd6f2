//! [`ChromeTrace`]: a Chrome trace (as `torch.profiler` or this crate's
//! export writes it) held as complete events with their nesting, the data
//! the PyTorch import of parity and the trace formats share.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The top-level key that names this profiler's version in a Kineto-style
/// trace, so readers tell it from a `torch.profiler` trace.
pub(crate) const PRODUCER_KEY: &str = "brickProfilerVersion";

/// Kind of a trace event, from its `cat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cat {
    /// `cpu_op` (or `operator` in older traces): an aten op or autograd node.
    CpuOp,
    /// `user_annotation`: a `record_function` range or a `ProfilerStep#N`.
    Annotation,
    /// `kernel`: a device kernel.
    Kernel,
    /// `gpu_memcpy` / `gpu_memset`: device time that is not a kernel.
    Copy,
    /// `cuda_runtime` / `cuda_driver` (ROCm traces use the same names, HIP
    /// calls inside): a launch, linked to its kernel by `correlation`.
    Runtime,
    /// A `python_function` range named `nn.Module: Class_N`
    /// (`with_stack=True`): where module paths come from.
    Module,
    /// Anything else (runtime syncs, this crate's own spans, ...).
    Other,
}

impl Cat {
    /// The kind of `cat`, or `None` for the Python frames of `with_stack`
    /// (the bulk of such a trace, and of no use to the import).
    pub(crate) fn of(cat: Option<&str>, name: &str) -> Option<Self> {
        if name.starts_with("ProfilerStep#")
            && matches!(cat, Some("cpu_op" | "operator" | "Operator"))
        {
            // Older traces write the step marker as an operator.
            return Some(Cat::Annotation);
        }
        Some(match cat.unwrap_or_default() {
            "cpu_op" | "operator" | "Operator" => Cat::CpuOp,
            "user_annotation" => Cat::Annotation,
            "kernel" | "Kernel" => Cat::Kernel,
            "gpu_memcpy" | "gpu_memset" | "Memcpy" | "Memset" => Cat::Copy,
            "cuda_runtime" | "cuda_driver" | "hip_runtime" | "hip_driver" | "Runtime" => {
                Cat::Runtime
            }
            "python_function" if name.starts_with(MODULE_PREFIX) => Cat::Module,
            "python_function" => return None,
            _ => Cat::Other,
        })
    }

    /// Device activity: runs on a stream, never nests.
    pub(crate) fn on_device(self) -> bool {
        matches!(self, Cat::Kernel | Cat::Copy)
    }
}

/// Prefix of the Python tracer's range around a module's `forward`.
pub(crate) const MODULE_PREFIX: &str = "nn.Module: ";

/// A complete (`ph: "X"`) event, 96 bytes: names, threads and shapes are
/// shared (`Arc<str>`), so a trace of millions of events holds each text
/// once; ids are kept without an `Option` around each (an id of `i64::MIN`
/// reads as absent) and the parent as a 32-bit index.
#[derive(Debug, Clone)]
pub(crate) struct Event {
    pub(crate) name: Arc<str>,
    /// `pid/tid` as written.
    pub(crate) thread: Arc<str>,
    /// `args["Input Dims"]` as `[4, 64] x [64, 192]`.
    pub(crate) dims: Option<Arc<str>>,
    /// Start, µs.
    pub(crate) ts: f64,
    /// Duration, µs.
    pub(crate) dur: f64,
    /// `args["Sequence number"]`: links an op to its autograd node.
    seq: i64,
    /// `args["External id"]`: in older traces, links a kernel to its op.
    external_id: i64,
    /// `args["correlation"]`: links a launch to its kernel.
    correlation: i64,
    /// Index of the enclosing event on the same thread.
    parent: u32,
    pub(crate) cat: Cat,
}

/// An id not given.
const NO_ID: i64 = i64::MIN;
/// No enclosing event.
const NO_PARENT: u32 = u32::MAX;

/// The ids of an event's `args`: (`Sequence number`, `External id`,
/// `correlation`).
pub(crate) type EventIds = (Option<i64>, Option<i64>, Option<i64>);

impl Event {
    /// An event without a parent yet.
    pub(crate) fn new(
        (name, thread, dims): (Arc<str>, Arc<str>, Option<Arc<str>>),
        cat: Cat,
        (ts, dur): (f64, f64),
        (seq, external_id, correlation): EventIds,
    ) -> Self {
        Self {
            name,
            thread,
            dims,
            ts,
            dur,
            seq: seq.unwrap_or(NO_ID),
            external_id: external_id.unwrap_or(NO_ID),
            correlation: correlation.unwrap_or(NO_ID),
            parent: NO_PARENT,
            cat,
        }
    }

    /// `args["Sequence number"]`: links an op to its autograd node.
    pub(crate) fn seq(&self) -> Option<i64> {
        (self.seq != NO_ID).then_some(self.seq)
    }

    /// `args["External id"]`: in older traces, links a kernel to its op.
    pub(crate) fn external_id(&self) -> Option<i64> {
        (self.external_id != NO_ID).then_some(self.external_id)
    }

    /// `args["correlation"]`: links a launch to its kernel.
    pub(crate) fn correlation(&self) -> Option<i64> {
        (self.correlation != NO_ID).then_some(self.correlation)
    }

    /// Index of the enclosing event on the same thread.
    pub(crate) fn parent(&self) -> Option<usize> {
        (self.parent != NO_PARENT).then_some(self.parent as usize)
    }

    /// Sets the enclosing event; an index past 32 bits (more events than a
    /// 4 GiB input can hold) leaves none.
    pub(crate) fn set_parent(&mut self, parent: usize) {
        self.parent = u32::try_from(parent).unwrap_or(NO_PARENT);
    }
}

/// The start of an `ac2g` flow (`ph: "s"`): where on the host a launch
/// with this correlation id happened.
#[derive(Debug, Clone)]
pub(crate) struct FlowStart {
    pub(crate) thread: Arc<str>,
    pub(crate) ts: f64,
}

impl Event {
    pub(crate) fn end(&self) -> f64 {
        self.ts + self.dur
    }
}

/// A Chrome trace read into complete events with their nesting, as
/// `torch.profiler` (Kineto) or this crate's export writes it. Read it with
/// [`ChromeTrace::from_reader`]; turn it into a parity baseline with
/// `parity::import_chrome_trace`.
///
/// Memory: the file is never held (it is read in 1 MiB chunks), but every
/// complete event is, at 96 bytes, plus each distinct name, thread and
/// shape once, and each `ac2g` flow start; sorting adds up to half that
/// for a moment. Events are kept rather than folded as they come because
/// Kineto files are not in time order per thread (device events follow
/// the host's, ranges are written as they end), and nesting and linking a
/// kernel to the op around its launch need each thread's events in order.
#[derive(Debug, Clone, Default)]
pub struct ChromeTrace {
    /// Complete events, sorted per thread by start (longer first on ties),
    /// parents set.
    pub(crate) events: Vec<Event>,
    /// Top-level `tokens_per_step` (number or numeric string).
    pub(crate) tokens_per_step: Option<f64>,
    /// Complete events left out for a negative or non-finite start or
    /// duration: (index in `traceEvents`, name).
    pub(crate) dropped: Vec<(usize, String)>,
    /// `ac2g` flow starts by id (the correlation id).
    pub(crate) flows: HashMap<i64, FlowStart>,
    /// Each distinct text once, while reading.
    pub(crate) texts: HashSet<Arc<str>>,
    /// Room to name a thread in while reading, kept to spare an allocation
    /// per event.
    pub(crate) scratch: String,
    /// The last thread named from whole-number ids, while reading.
    pub(crate) last_thread: Option<((i128, i128), Arc<str>)>,
}

impl ChromeTrace {
    /// Complete events read.
    #[must_use]
    pub fn event_count(&self) -> usize {
        self.events.len()
    }

    /// Complete events left out for a negative or non-finite start or
    /// duration: (index in `traceEvents`, name).
    #[must_use]
    pub fn dropped(&self) -> &[(usize, String)] {
        &self.dropped
    }
}
