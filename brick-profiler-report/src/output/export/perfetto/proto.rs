//! The subset of Perfetto's trace schema the writer uses, as `prost`
//! messages: names, field numbers and types copied from the `.proto` files
//! of `google/perfetto` at commit `ec5d16b14b743ba6063d720956d6d6af6610fd72`
//! (`protos/perfetto/trace/trace.proto`, `trace_packet.proto`,
//! `track_event/{track_event,track_descriptor,debug_annotation,
//! counter_descriptor,process_descriptor,thread_descriptor}.proto`,
//! `interned_data/interned_data.proto`, `clock_snapshot.proto`,
//! `trace_packet_defaults.proto`), so no `protoc` is needed to build.
//!
//! The schema is proto2: repeated scalars are written unpacked, as
//! Perfetto's own writer (protozero) does and its readers expect. Fields of
//! a `oneof` are plain optional fields here; the writer sets one of them.

/// `perfetto.protos.Trace`: the file, a sequence of packets (field 1).
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct Trace {
    /// The packets; the writer encodes one at a time.
    #[prost(message, repeated, tag = "1")]
    pub(crate) packet: Vec<TracePacket>,
}

/// `perfetto.protos.TracePacket`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct TracePacket {
    /// Time of the packet's event, ns (the default clock of track events).
    #[prost(uint64, optional, tag = "8")]
    pub(crate) timestamp: Option<u64>,
    /// The writer's sequence: interned ids are valid within it.
    #[prost(uint32, optional, tag = "10")]
    pub(crate) trusted_packet_sequence_id: Option<u32>,
    /// A slice begin or end, an instant or a counter value.
    #[prost(message, optional, tag = "11")]
    pub(crate) track_event: Option<TrackEvent>,
    /// Names first used by this packet, with their ids.
    #[prost(message, optional, tag = "12")]
    pub(crate) interned_data: Option<InternedData>,
    /// `SequenceFlags` bits.
    #[prost(uint32, optional, tag = "13")]
    pub(crate) sequence_flags: Option<u32>,
    /// A process, thread, stream or counter track.
    #[prost(message, optional, tag = "60")]
    pub(crate) track_descriptor: Option<TrackDescriptor>,
    /// Set on the first packet the sequence writes.
    #[prost(bool, optional, tag = "87")]
    pub(crate) first_packet_on_sequence: Option<bool>,
    /// The clocks' values at one instant (here: the incremental clock's
    /// base).
    #[prost(message, optional, tag = "6")]
    pub(crate) clock_snapshot: Option<ClockSnapshot>,
    /// The clock of this packet's `timestamp`, when not the default.
    #[prost(uint32, optional, tag = "58")]
    pub(crate) timestamp_clock_id: Option<u32>,
    /// Defaults for the sequence's later packets.
    #[prost(message, optional, tag = "59")]
    pub(crate) trace_packet_defaults: Option<TracePacketDefaults>,
    /// Packets (a `Trace`, field 1 each), compressed with zlib.
    #[prost(bytes = "vec", optional, tag = "50")]
    pub(crate) compressed_packets: Option<Vec<u8>>,
}

/// `perfetto.protos.TracePacketDefaults`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct TracePacketDefaults {
    /// The clock of packets that name none.
    #[prost(uint32, optional, tag = "58")]
    pub(crate) timestamp_clock_id: Option<u32>,
    /// Defaults of track events.
    #[prost(message, optional, tag = "11")]
    pub(crate) track_event_defaults: Option<TrackEventDefaults>,
}

/// `perfetto.protos.TrackEventDefaults`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct TrackEventDefaults {
    /// The track of events that name none.
    #[prost(uint64, optional, tag = "11")]
    pub(crate) track_uuid: Option<u64>,
}

/// `perfetto.protos.ClockSnapshot`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct ClockSnapshot {
    /// The clocks.
    #[prost(message, repeated, tag = "1")]
    pub(crate) clocks: Vec<Clock>,
}

/// `perfetto.protos.ClockSnapshot.Clock`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct Clock {
    /// `BuiltinClocks` id, or 64-127 for a clock of the sequence.
    #[prost(uint32, optional, tag = "1")]
    pub(crate) clock_id: Option<u32>,
    /// Its value, ns.
    #[prost(uint64, optional, tag = "2")]
    pub(crate) timestamp: Option<u64>,
    /// Timestamps in this clock are deltas from the previous one.
    #[prost(bool, optional, tag = "3")]
    pub(crate) is_incremental: Option<bool>,
}

/// `ClockSnapshot.Clock.BuiltinClocks.BOOTTIME`: the default clock of
/// track events.
pub(crate) const CLOCK_BOOTTIME: u32 = 6;
/// The sequence's incremental clock (ids 64-127 belong to the sequence),
/// as Perfetto's SDK defines it.
pub(crate) const CLOCK_INCREMENTAL: u32 = 64;

/// `TracePacket.SequenceFlags.SEQ_INCREMENTAL_STATE_CLEARED`.
pub(crate) const SEQ_INCREMENTAL_STATE_CLEARED: u32 = 1;
/// `TracePacket.SequenceFlags.SEQ_NEEDS_INCREMENTAL_STATE`.
pub(crate) const SEQ_NEEDS_INCREMENTAL_STATE: u32 = 2;

/// `perfetto.protos.TrackEvent`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct TrackEvent {
    /// Interned categories (`EventCategory` ids).
    #[prost(uint64, repeated, packed = "false", tag = "3")]
    pub(crate) category_iids: Vec<u64>,
    /// The args.
    #[prost(message, repeated, tag = "4")]
    pub(crate) debug_annotations: Vec<DebugAnnotation>,
    /// `TrackEvent.Type`.
    #[prost(int32, optional, tag = "9")]
    pub(crate) r#type: Option<i32>,
    /// Interned name (`EventName` id).
    #[prost(uint64, optional, tag = "10")]
    pub(crate) name_iid: Option<u64>,
    /// The track the event is on.
    #[prost(uint64, optional, tag = "11")]
    pub(crate) track_uuid: Option<u64>,
    /// A counter's value (`TYPE_COUNTER`).
    #[prost(double, optional, tag = "44")]
    pub(crate) double_counter_value: Option<f64>,
    /// Flows leaving this slice.
    #[prost(fixed64, repeated, packed = "false", tag = "47")]
    pub(crate) flow_ids: Vec<u64>,
    /// Flows ending at this slice.
    #[prost(fixed64, repeated, packed = "false", tag = "48")]
    pub(crate) terminating_flow_ids: Vec<u64>,
}

/// `TrackEvent.Type.TYPE_SLICE_BEGIN`.
pub(crate) const TYPE_SLICE_BEGIN: i32 = 1;
/// `TrackEvent.Type.TYPE_SLICE_END`.
pub(crate) const TYPE_SLICE_END: i32 = 2;
/// `TrackEvent.Type.TYPE_INSTANT`.
pub(crate) const TYPE_INSTANT: i32 = 3;
/// `TrackEvent.Type.TYPE_COUNTER`.
pub(crate) const TYPE_COUNTER: i32 = 4;

/// `perfetto.protos.DebugAnnotation`: one arg of a slice.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct DebugAnnotation {
    /// Interned key (`DebugAnnotationName` id); absent inside arrays.
    #[prost(uint64, optional, tag = "1")]
    pub(crate) name_iid: Option<u64>,
    /// A boolean value.
    #[prost(bool, optional, tag = "2")]
    pub(crate) bool_value: Option<bool>,
    /// An unsigned value.
    #[prost(uint64, optional, tag = "3")]
    pub(crate) uint_value: Option<u64>,
    /// A signed value.
    #[prost(int64, optional, tag = "4")]
    pub(crate) int_value: Option<i64>,
    /// A floating-point value.
    #[prost(double, optional, tag = "5")]
    pub(crate) double_value: Option<f64>,
    /// A string value.
    #[prost(string, optional, tag = "6")]
    pub(crate) string_value: Option<String>,
    /// An interned string value (`debug_annotation_string_values` id).
    #[prost(uint64, optional, tag = "17")]
    pub(crate) string_value_iid: Option<u64>,
    /// A value as JSON text: the writer's empty arrays and objects, which
    /// `array_values` and `dict_entries` cannot tell from a missing value.
    #[prost(string, optional, tag = "9")]
    pub(crate) legacy_json_value: Option<String>,
    /// A key inside a dictionary value (not interned there).
    #[prost(string, optional, tag = "10")]
    pub(crate) name: Option<String>,
    /// An array value's items.
    #[prost(message, repeated, tag = "12")]
    pub(crate) array_values: Vec<DebugAnnotation>,
    /// A dictionary value's entries (each with `name`).
    #[prost(message, repeated, tag = "11")]
    pub(crate) dict_entries: Vec<DebugAnnotation>,
}

/// `perfetto.protos.TrackDescriptor`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct TrackDescriptor {
    /// The track's id, unique in the trace.
    #[prost(uint64, optional, tag = "1")]
    pub(crate) uuid: Option<u64>,
    /// A track without a process or thread: its name.
    #[prost(string, optional, tag = "2")]
    pub(crate) name: Option<String>,
    /// A process track.
    #[prost(message, optional, tag = "3")]
    pub(crate) process: Option<ProcessDescriptor>,
    /// A thread track.
    #[prost(message, optional, tag = "4")]
    pub(crate) thread: Option<ThreadDescriptor>,
    /// The enclosing track.
    #[prost(uint64, optional, tag = "5")]
    pub(crate) parent_uuid: Option<u64>,
    /// A counter track.
    #[prost(message, optional, tag = "8")]
    pub(crate) counter: Option<CounterDescriptor>,
    /// `ChildTracksOrdering` of the track's children.
    #[prost(int32, optional, tag = "11")]
    pub(crate) child_ordering: Option<i32>,
    /// Place among its siblings under `EXPLICIT` ordering.
    #[prost(int32, optional, tag = "12")]
    pub(crate) sibling_order_rank: Option<i32>,
}

/// `TrackDescriptor.ChildTracksOrdering.EXPLICIT`.
pub(crate) const ORDER_EXPLICIT: i32 = 3;

/// `perfetto.protos.ProcessDescriptor`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct ProcessDescriptor {
    /// Process id.
    #[prost(int32, optional, tag = "1")]
    pub(crate) pid: Option<i32>,
    /// Process name.
    #[prost(string, optional, tag = "6")]
    pub(crate) process_name: Option<String>,
}

/// `perfetto.protos.ThreadDescriptor`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct ThreadDescriptor {
    /// The owning process's id.
    #[prost(int32, optional, tag = "1")]
    pub(crate) pid: Option<i32>,
    /// Thread id.
    #[prost(int64, optional, tag = "2")]
    pub(crate) tid: Option<i64>,
    /// Thread name.
    #[prost(string, optional, tag = "5")]
    pub(crate) thread_name: Option<String>,
}

/// `perfetto.protos.CounterDescriptor`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct CounterDescriptor {
    /// `CounterDescriptor.Unit`.
    #[prost(int32, optional, tag = "3")]
    pub(crate) unit: Option<i32>,
}

/// `CounterDescriptor.Unit.UNIT_SIZE_BYTES`.
pub(crate) const UNIT_SIZE_BYTES: i32 = 3;

/// `perfetto.protos.InternedData`: names given ids on this sequence.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct InternedData {
    /// Categories.
    #[prost(message, repeated, tag = "1")]
    pub(crate) event_categories: Vec<Interned>,
    /// Event names.
    #[prost(message, repeated, tag = "2")]
    pub(crate) event_names: Vec<Interned>,
    /// Debug annotation keys.
    #[prost(message, repeated, tag = "3")]
    pub(crate) debug_annotation_names: Vec<Interned>,
    /// Debug annotation string values.
    #[prost(message, repeated, tag = "29")]
    pub(crate) debug_annotation_string_values: Vec<InternedString>,
}

impl InternedData {
    /// True when nothing was interned.
    pub(crate) fn is_empty(&self) -> bool {
        self.event_categories.is_empty()
            && self.event_names.is_empty()
            && self.debug_annotation_names.is_empty()
            && self.debug_annotation_string_values.is_empty()
    }
}

/// `EventCategory`, `EventName` and `DebugAnnotationName` share this shape.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct Interned {
    /// The id.
    #[prost(uint64, optional, tag = "1")]
    pub(crate) iid: Option<u64>,
    /// The string.
    #[prost(string, optional, tag = "2")]
    pub(crate) name: Option<String>,
}

/// `perfetto.protos.InternedString`: a string value with its id (bytes on
/// the wire; the writer's are UTF-8).
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct InternedString {
    /// The id.
    #[prost(uint64, optional, tag = "1")]
    pub(crate) iid: Option<u64>,
    /// The string.
    #[prost(bytes = "vec", optional, tag = "2")]
    pub(crate) str: Option<Vec<u8>>,
}
