//! The Chrome trace's event records and their `args`: what Perfetto's
//! details pane shows for a slice (a brick's layer, direction and amounts
//! with the rates they give, a step's index and tokens, an op's shapes and
//! device) and the value of a counter sample.

use std::borrow::Cow;

use profiler_core::trace::{EventKind, RecordedTraceEntry, TimelineEvent};
use serde::Serialize;

/// One event of the `traceEvents` array.
#[derive(Serialize, Default)]
pub(super) struct Event<'a> {
    pub(super) name: Cow<'a, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) cat: Option<&'static str>,
    pub(super) ph: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) ts: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) dur: Option<f64>,
    pub(super) pid: u32,
    pub(super) tid: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) s: Option<&'static str>,
    /// A flow event's id (Kineto's `ac2g` arrows: the correlation id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) id: Option<u64>,
    /// A flow end's binding point (`e`: the enclosing slice).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) bp: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) args: Option<Args<'a>>,
}

/// An event's `args` object.
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum Args<'a> {
    Name {
        name: Cow<'a, str>,
    },
    SortIndex {
        sort_index: u64,
    },
    Bytes {
        bytes: usize,
    },
    Count {
        count: u64,
    },
    /// A counter sample: Perfetto draws `args.value` on the counter's track.
    Value {
        value: f64,
    },
    Op(OpArgs<'a>),
    Span(SpanArgs),
    /// The device side of a brick, as Kineto writes a kernel.
    Kernel {
        device: u32,
        stream: u32,
        correlation: u64,
        #[serde(rename = "External id")]
        external_id: u64,
        /// Where the slice's start came from: the device's start anchored
        /// to the host clock, or, when the timer gave only a duration, the
        /// brick's launch on the host.
        start: &'static str,
        /// A captured kernel's grid, as Kineto writes it.
        #[serde(skip_serializing_if = "Option::is_none")]
        grid: Option<[u32; 3]>,
        /// A captured kernel's block, as Kineto writes it.
        #[serde(skip_serializing_if = "Option::is_none")]
        block: Option<[u32; 3]>,
        /// A captured kernel's registers per thread, when every call of its
        /// name had the same (CUPTI's per-name rows), under Kineto's key.
        #[serde(
            rename = "registers per thread",
            skip_serializing_if = "Option::is_none"
        )]
        registers: Option<u16>,
        /// A captured kernel's shared memory per block (bytes), when every
        /// call of its name had the same, under Kineto's key.
        #[serde(rename = "shared memory", skip_serializing_if = "Option::is_none")]
        shared_memory: Option<u32>,
    },
    /// `distributedInfo`-style facts on a `ProfilerStep#N` slice.
    Step {
        step: u64,
    },
}

/// A `#[trace_op]` entry's step, device and shapes.
#[derive(Serialize)]
pub(crate) struct OpArgs<'a> {
    step: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    device: Option<&'a str>,
    input_shapes: &'a [Vec<usize>],
    output_shape: &'a [usize],
    output_elements: usize,
    memory_bytes: usize,
}

impl<'a> OpArgs<'a> {
    /// The args of entry `e`.
    pub(crate) fn of(e: &'a RecordedTraceEntry) -> Self {
        Self {
            step: e.step,
            device: e.device_id.as_deref(),
            input_shapes: &e.input_shapes,
            output_shape: &e.output_shape,
            output_elements: e.output_elements,
            memory_bytes: e.memory_bytes,
        }
    }
}

/// What a timeline slice knows about itself. Fields that were not recorded
/// are left out rather than written as 0, so an absent annotation never
/// reads as a measured zero.
#[derive(Serialize, Default)]
pub(crate) struct SpanArgs {
    /// A step's index (from its name, `step N`).
    #[serde(skip_serializing_if = "Option::is_none")]
    step: Option<u64>,
    /// A step's tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    tokens: Option<u64>,
    /// Tokens per second of this step.
    #[serde(skip_serializing_if = "Option::is_none")]
    tokens_per_s: Option<f64>,
    /// A brick's category.
    #[serde(skip_serializing_if = "Option::is_none")]
    category: Option<&'static str>,
    /// The layer a brick ran in, or a layer scope's own index.
    #[serde(skip_serializing_if = "Option::is_none")]
    layer: Option<u32>,
    /// `forward` or `backward`.
    #[serde(skip_serializing_if = "Option::is_none")]
    direction: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    elements: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    flops: Option<u64>,
    /// This call's FLOPs over its duration.
    #[serde(skip_serializing_if = "Option::is_none")]
    gflop_per_s: Option<f64>,
    /// This call's bytes over its duration.
    #[serde(skip_serializing_if = "Option::is_none")]
    gb_per_s: Option<f64>,
    /// FLOPs per byte.
    #[serde(skip_serializing_if = "Option::is_none")]
    flop_per_byte: Option<f64>,
    /// The id linking a brick to its device-side kernel (Kineto's
    /// `correlation`), when a device timer timed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    correlation: Option<u64>,
    /// The same id under Kineto's name for a CPU op's link.
    #[serde(rename = "External id", skip_serializing_if = "Option::is_none")]
    external_id: Option<u64>,
}

impl SpanArgs {
    /// `args` (or none) linked to device-side kernel `correlation`.
    pub(crate) fn correlated(args: Option<Self>, correlation: u64) -> Self {
        Self {
            correlation: Some(correlation),
            external_id: Some(correlation),
            ..args.unwrap_or_default()
        }
    }

    /// The args of a timeline event named `name`; `category` is a brick's
    /// category name. `None` when there is nothing to say (a phase).
    pub(crate) fn of(
        event: &TimelineEvent,
        name: &str,
        category: Option<&'static str>,
    ) -> Option<Self> {
        let nonzero = |v: u64| (v > 0).then_some(v);
        // Rates only over a measured duration: never a division by zero.
        let per_ns = |v: u64| (v > 0 && event.dur_ns > 0).then(|| v as f64 / event.dur_ns as f64);
        let direction = event.direction.map(|d| match d {
            profiler_core::Direction::Forward => "forward",
            profiler_core::Direction::Backward => "backward",
        });
        let args = match event.kind {
            EventKind::Step => Self {
                step: name.strip_prefix("step ").and_then(|n| n.parse().ok()),
                tokens: nonzero(event.elements),
                tokens_per_s: per_ns(event.elements).map(|t| t * 1e9),
                ..Self::default()
            },
            EventKind::Layer => Self {
                layer: event.layer,
                direction,
                ..Self::default()
            },
            EventKind::Brick => Self {
                category,
                layer: event.layer,
                direction,
                elements: nonzero(event.elements),
                bytes: nonzero(event.bytes),
                flops: nonzero(event.flops),
                gflop_per_s: per_ns(event.flops),
                gb_per_s: per_ns(event.bytes),
                flop_per_byte: (event.flops > 0 && event.bytes > 0)
                    .then(|| event.flops as f64 / event.bytes as f64),
                ..Self::default()
            },
            EventKind::Phase => return None,
        };
        let empty = args.step.is_none()
            && args.tokens.is_none()
            && args.category.is_none()
            && args.layer.is_none()
            && args.direction.is_none()
            && args.elements.is_none()
            && args.bytes.is_none()
            && args.flops.is_none();
        (!empty).then_some(args)
    }
}

/// Serialises our own event types: only strings, integers, floats (NaN
/// prints as `null`) and string-keyed structs, which cannot fail.
pub(crate) fn to_json<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// ns as µs (Chrome trace times).
pub(super) fn us(ns: u64) -> f64 {
    ns as f64 / 1e3
}

/// µs to ns; negative, NaN and infinite times become 0.
pub(crate) fn ns_of_us(us: f64) -> u64 {
    if us.is_finite() && us > 0.0 {
        (us * 1e3).round() as u64
    } else {
        0
    }
}

/// The `cat` of a timeline event.
pub(crate) fn kind_cat(kind: EventKind) -> &'static str {
    match kind {
        EventKind::Step => "step",
        EventKind::Phase => "phase",
        EventKind::Layer => "layer",
        EventKind::Brick => "brick",
    }
}

/// The counter of an op track's output sizes. Counters are per process:
/// one series per thread.
pub(crate) fn output_bytes_name(thread: u32) -> String {
    format!("output bytes, thread {thread}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(kind: EventKind, dur_ns: u64) -> TimelineEvent {
        TimelineEvent::span(kind, 0, 0, dur_ns)
    }

    #[test]
    fn brick_rates_come_from_the_call_and_need_a_duration() {
        let mut e = event(EventKind::Brick, 2_000);
        e.flops = 8_000;
        e.bytes = 4_000;
        e.layer = Some(3);
        e.direction = Some(profiler_core::Direction::Backward);
        let json = serde_json::to_value(SpanArgs::of(&e, "MatMul", Some("ffn"))).unwrap();
        assert_eq!(json["gflop_per_s"], 4.0);
        assert_eq!(json["gb_per_s"], 2.0);
        assert_eq!(json["flop_per_byte"], 2.0);
        assert_eq!(json["direction"], "backward");
        assert!(json.get("elements").is_none(), "0 is not written: {json}");
        e.dur_ns = 0;
        let json = serde_json::to_value(SpanArgs::of(&e, "MatMul", None)).unwrap();
        assert!(json.get("gflop_per_s").is_none() && json["flops"] == 8_000);
    }

    #[test]
    fn steps_carry_their_index_and_phases_nothing() {
        let mut e = event(EventKind::Step, 500_000_000);
        e.elements = 1_000;
        let json = serde_json::to_value(SpanArgs::of(&e, "step 17", None)).unwrap();
        assert_eq!(
            (json["step"].as_u64(), json["tokens"].as_u64()),
            (Some(17), Some(1_000))
        );
        assert_eq!(json["tokens_per_s"], 2_000.0);
        assert!(SpanArgs::of(&event(EventKind::Phase, 5), "forward", None).is_none());
        assert!(SpanArgs::of(&event(EventKind::Brick, 5), "Bare", None).is_none());
        assert!(SpanArgs::of(&event(EventKind::Step, 5), "warm", None).is_none());
    }
}
