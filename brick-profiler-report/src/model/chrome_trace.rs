//! [`ChromeTrace`]: a Chrome trace (as `torch.profiler` or this crate's
//! export writes it) held as compact records in time order, spilled to
//! temporary files past a bound, the data the PyTorch import of parity
//! and the mapping draft share.

use std::cmp::Ordering;
use std::sync::Arc;

use super::trace_meta::{TraceDevice, TraceRank};
use crate::base::spill::{Sorted, Spill};

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

    /// Every kind, as declared (a kind's place is its byte on disk).
    const ALL: [Cat; 7] = [
        Cat::CpuOp,
        Cat::Annotation,
        Cat::Kernel,
        Cat::Copy,
        Cat::Runtime,
        Cat::Module,
        Cat::Other,
    ];

    /// Its byte on disk: its place in [`Cat::ALL`], which lists the kinds
    /// as declared.
    fn code(self) -> u8 {
        self as u8
    }

    /// The kind of byte `code`; an unknown byte reads as [`Cat::Other`].
    fn from_code(code: u8) -> Self {
        Self::ALL
            .get(usize::from(code))
            .copied()
            .unwrap_or(Cat::Other)
    }
}

/// Prefix of the Python tracer's range around a module's `forward`.
pub(crate) const MODULE_PREFIX: &str = "nn.Module: ";

/// Timestamps carry ns precision in µs; allow one ns of rounding when
/// deciding whether one event encloses another.
pub(crate) const EPS_US: f64 = 1e-3;

/// An id not given.
const NO_ID: i64 = i64::MIN;
/// No text.
const NO_TEXT: u32 = u32::MAX;

/// One event of a trace, 64 bytes on disk: a complete (`ph: "X"`) event,
/// or the start of an `ac2g` flow (where on the host a launch happened).
/// Texts are ids into [`ChromeTrace::texts`]; ids are kept without an
/// `Option` around each (`i64::MIN` reads as absent).
///
/// Records order by start, longer first, complete events before flow
/// starts, then by thread and by place in the file: each thread's events
/// come parents first, and a flow start after the launch it is in.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Record {
    /// Start, µs.
    pub(crate) ts: f64,
    /// Duration, µs (0 for a flow start).
    pub(crate) dur: f64,
    /// `pid/tid` as written, a text id.
    pub(crate) thread: u32,
    /// The event's name, a text id.
    pub(crate) name: u32,
    /// `args["Input Dims"]` as `[4, 64] x [64, 192]`, a text id.
    dims: u32,
    pub(crate) cat: Cat,
    /// A flow start: `correlation` is the flow's id.
    pub(crate) flow: bool,
    /// `args["Sequence number"]`: links an op to its autograd node.
    seq: i64,
    /// `args["External id"]`: in older traces, links a kernel to its op.
    external_id: i64,
    /// `args["correlation"]`: links a launch to its kernel.
    correlation: i64,
    /// Place in `traceEvents`.
    pub(crate) index: u64,
}

/// The ids of an event's `args`: (`Sequence number`, `External id`,
/// `correlation`).
pub(crate) type EventIds = (Option<i64>, Option<i64>, Option<i64>);

impl Record {
    /// A complete event.
    pub(crate) fn event(
        (name, thread, dims): (u32, u32, Option<u32>),
        cat: Cat,
        (ts, dur): (f64, f64),
        (seq, external_id, correlation): EventIds,
        index: u64,
    ) -> Self {
        Self {
            ts,
            dur,
            thread,
            name,
            dims: dims.unwrap_or(NO_TEXT),
            cat,
            flow: false,
            seq: seq.unwrap_or(NO_ID),
            external_id: external_id.unwrap_or(NO_ID),
            correlation: correlation.unwrap_or(NO_ID),
            index,
        }
    }

    /// The start of a launch flow with id `correlation`.
    pub(crate) fn flow_start(thread: u32, ts: f64, correlation: i64, index: u64) -> Self {
        Self {
            flow: true,
            ..Self::event(
                (NO_TEXT, thread, None),
                Cat::Other,
                (ts, 0.0),
                (None, None, Some(correlation)),
                index,
            )
        }
    }

    /// `args["Input Dims"]`, a text id.
    pub(crate) fn dims(&self) -> Option<u32> {
        (self.dims != NO_TEXT).then_some(self.dims)
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

    /// End, µs.
    pub(crate) fn end(&self) -> f64 {
        self.ts + self.dur
    }
}

impl Ord for Record {
    fn cmp(&self, other: &Self) -> Ordering {
        self.ts
            .total_cmp(&other.ts)
            .then(other.dur.total_cmp(&self.dur))
            .then(self.flow.cmp(&other.flow))
            .then(self.thread.cmp(&other.thread))
            .then(self.index.cmp(&other.index))
    }
}

impl PartialOrd for Record {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Record {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Record {}

impl Spill for Record {
    const SIZE: usize = 64;

    fn encode(&self, out: &mut [u8]) {
        let words = [
            self.ts.to_bits(),
            self.dur.to_bits(),
            self.seq as u64,
            self.external_id as u64,
            self.correlation as u64,
            self.index,
        ];
        for (k, w) in words.iter().enumerate() {
            out[k * 8..k * 8 + 8].copy_from_slice(&w.to_le_bytes());
        }
        for (k, t) in [self.thread, self.name, self.dims].iter().enumerate() {
            out[48 + k * 4..52 + k * 4].copy_from_slice(&t.to_le_bytes());
        }
        out[60] = self.cat.code();
        out[61] = u8::from(self.flow);
        out[62..64].fill(0);
    }

    fn decode(bytes: &[u8]) -> Self {
        let word = |k: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&bytes[k * 8..k * 8 + 8]);
            u64::from_le_bytes(b)
        };
        let text = |k: usize| {
            let mut b = [0u8; 4];
            b.copy_from_slice(&bytes[48 + k * 4..52 + k * 4]);
            u32::from_le_bytes(b)
        };
        Self {
            ts: f64::from_bits(word(0)),
            dur: f64::from_bits(word(1)),
            seq: word(2) as i64,
            external_id: word(3) as i64,
            correlation: word(4) as i64,
            index: word(5),
            thread: text(0),
            name: text(1),
            dims: text(2),
            cat: Cat::from_code(bytes[60]),
            flow: bytes[61] != 0,
        }
    }
}

/// A Chrome trace read into records in time order, as `torch.profiler`
/// (Kineto) or this crate's export writes it. Read it with
/// [`ChromeTrace::from_reader`]; turn it into a parity baseline with
/// `parity::import_chrome_trace`.
///
/// Memory: the file is read in 1 MiB chunks and never held; each event
/// becomes a 64-byte record, and past 262,144 records (16 MiB) they are
/// sorted and spilled to temporary files, merged again on each read. What
/// stays in memory is each distinct name, thread and shape once, so a
/// trace of many steps costs what one step's distinct ops cost; those are
/// held up to 64 MiB, past which a new name is read as `(other names)` and
/// a new shape as absent, both counted ([`ChromeTrace::lumped_names`],
/// [`ChromeTrace::dropped_shapes`]), and at most 65,536 threads (a trace
/// with more is refused). Kineto
/// files are not in time order (device events follow the host's, ranges
/// are written as they end), hence the sort.
#[derive(Debug)]
pub struct ChromeTrace {
    /// The file, or a name for text given directly (for errors).
    pub(crate) origin: String,
    /// Names, threads and shapes, by id.
    pub(crate) texts: Vec<Arc<str>>,
    /// Complete events and flow starts, in order.
    pub(crate) records: Sorted<Record>,
    /// Complete events read.
    pub(crate) events: u64,
    /// Top-level `tokens_per_step` (number or numeric string).
    pub(crate) tokens_per_step: Option<f64>,
    /// The first complete events left out for a negative or non-finite
    /// start or duration: (index in `traceEvents`, name).
    pub(crate) dropped: Vec<(usize, String)>,
    /// How many were left out in all.
    pub(crate) dropped_count: usize,
    /// Events whose name came once the texts held reached their bound,
    /// read as `(other names)`.
    pub(crate) lumped_names: u64,
    /// Shapes (`Input Dims`) left out once the texts held reached their bound.
    pub(crate) dropped_shapes: u64,
    /// `deviceProperties`: the devices the trace names.
    pub(crate) devices: Vec<TraceDevice>,
    /// `distributedInfo`: the rank and world size, when given.
    pub(crate) rank: Option<TraceRank>,
}

impl ChromeTrace {
    /// Complete events read.
    #[must_use]
    pub fn event_count(&self) -> usize {
        usize::try_from(self.events).unwrap_or(usize::MAX)
    }

    /// The first complete events left out for a negative or non-finite
    /// start or duration (at most 16): (index in `traceEvents`, name).
    #[must_use]
    pub fn dropped(&self) -> &[(usize, String)] {
        &self.dropped
    }

    /// How many complete events were left out for a negative or non-finite
    /// start or duration.
    #[must_use]
    pub fn dropped_count(&self) -> usize {
        self.dropped_count
    }

    /// Events whose name came after the distinct names and shapes held
    /// reached their bound (64 MiB): they are read under one name,
    /// `(other names)` (the input layer's `OTHER_NAMES`), and their time is theirs
    /// but no longer told apart by name. 0 for any realistic trace.
    #[must_use]
    pub fn lumped_names(&self) -> u64 {
        self.lumped_names
    }

    /// Events whose `Input Dims` were left out once the distinct names and
    /// shapes held reached their bound (64 MiB).
    #[must_use]
    pub fn dropped_shapes(&self) -> u64 {
        self.dropped_shapes
    }

    /// The devices of the trace's `deviceProperties` (Kineto writes every
    /// device of the host, used or not), in the order written; empty when
    /// the trace names none.
    #[must_use]
    pub fn devices(&self) -> &[TraceDevice] {
        &self.devices
    }

    /// The trace's `distributedInfo` (rank, world size, backend), when given.
    #[must_use]
    pub fn rank(&self) -> Option<&TraceRank> {
        self.rank.as_ref()
    }

    /// Runs of records spilled to temporary files (0: all in memory).
    #[must_use]
    pub fn spilled_runs(&self) -> usize {
        self.records.runs()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_as_written_and_orders_parents_first() {
        let a = Record::event(
            (1, 2, Some(3)),
            Cat::Runtime,
            (10.5, 4.0),
            (Some(-7), None, Some(99)),
            5,
        );
        let mut bytes = [0u8; Record::SIZE];
        a.encode(&mut bytes);
        let b = Record::decode(&bytes);
        assert_eq!((b.ts, b.dur, b.thread, b.name), (10.5, 4.0, 2, 1));
        assert_eq!(
            (b.dims(), b.seq(), b.external_id(), b.correlation()),
            (Some(3), Some(-7), None, Some(99))
        );
        assert_eq!((b.cat, b.flow, b.index), (Cat::Runtime, false, 5));
        for cat in Cat::ALL {
            assert_eq!(Cat::from_code(cat.code()), cat);
        }
        let child = Record::event((1, 2, None), Cat::CpuOp, (10.5, 1.0), (None, None, None), 4);
        let flow = Record::flow_start(2, 10.5, 99, 3);
        let mut v = [flow, child, a];
        v.sort();
        assert_eq!(v.iter().map(|r| r.index).collect::<Vec<_>>(), [5, 4, 3]);
    }
}
