//! Packet sequences of a Perfetto trace, as Perfetto's SDK writes them.
//! [`Packets`] encodes each packet into one reused buffer and writes it out;
//! a [`Sequence`] holds what its packets share: interned strings (event
//! names, categories, annotation keys and string values, each sent once in
//! the `interned_data` of the packet that first uses it) and, for a
//! thread's sequence, a default track and an incremental clock (each
//! timestamp the delta from the previous one). The first packet of a
//! sequence clears its incremental state; later ones depend on it.
//! Memory: the interning tables and one chunk of packets.

use std::collections::HashMap;
use std::io::{self, Write};

use flate2::Compression;
use flate2::write::ZlibEncoder;
use prost::Message as _;

use super::proto::{
    CLOCK_BOOTTIME, CLOCK_INCREMENTAL, Clock, ClockSnapshot, DebugAnnotation, Interned,
    InternedData, InternedString, SEQ_INCREMENTAL_STATE_CLEARED, SEQ_NEEDS_INCREMENTAL_STATE,
    Trace, TracePacket, TracePacketDefaults, TrackDescriptor, TrackEvent, TrackEventDefaults,
};

/// Strings given ids on a sequence, per kind (ids start at 1).
#[derive(Default)]
struct Table(HashMap<Box<str>, u64>);

impl Table {
    /// The id of `name`, and whether it is new.
    fn id(&mut self, name: &str) -> (u64, bool) {
        if let Some(&id) = self.0.get(name) {
            return (id, false);
        }
        let id = self.0.len() as u64 + 1;
        self.0.insert(name.into(), id);
        (id, true)
    }

    fn interned(&mut self, name: &str, new: &mut Vec<Interned>) -> u64 {
        let (id, fresh) = self.id(name);
        if fresh {
            new.push(Interned {
                iid: Some(id),
                name: Some(name.to_owned()),
            });
        }
        id
    }
}

/// A sequence's interned strings, and those the packet being built adds.
#[derive(Default)]
pub(super) struct Interner {
    names: Table,
    categories: Table,
    keys: Table,
    values: Table,
    new: InternedData,
}

impl Interner {
    /// The id of an event name.
    pub(super) fn name(&mut self, name: &str) -> u64 {
        self.names.interned(name, &mut self.new.event_names)
    }

    /// The id of a category.
    pub(super) fn category(&mut self, category: &str) -> u64 {
        self.categories
            .interned(category, &mut self.new.event_categories)
    }

    /// The id of a debug annotation key.
    pub(super) fn key(&mut self, key: &str) -> u64 {
        self.keys
            .interned(key, &mut self.new.debug_annotation_names)
    }

    /// The id of a debug annotation string value.
    pub(super) fn value(&mut self, value: &str) -> u64 {
        let (id, fresh) = self.values.id(value);
        if fresh {
            let str = Some(value.as_bytes().to_vec());
            let entry = InternedString { iid: Some(id), str };
            self.new.debug_annotation_string_values.push(entry);
        }
        id
    }

    /// An arg named `key` (interned) with the value of `annotation`.
    pub(super) fn arg(&mut self, key: &str, mut annotation: DebugAnnotation) -> DebugAnnotation {
        annotation.name_iid = Some(self.key(key));
        annotation
    }
}

/// Uncompressed bytes of packets gathered before they are compressed into
/// one `compressed_packets` packet.
const CHUNK: usize = 512 * 1024;

/// Where packets go: each encoded as field 1 of `Trace` into a chunk; a
/// full chunk is compressed with zlib into one packet's
/// `compressed_packets` and written, as Perfetto's tracing service writes
/// a trace with `compression_type: COMPRESSION_TYPE_DEFLATE` (readers
/// inflate it back into packets). Memory: one chunk and its compressed
/// copy.
pub(super) struct Packets<W: Write> {
    out: W,
    trace: Trace,
    chunk: Vec<u8>,
    packets: usize,
    events: usize,
}

impl<W: Write> Packets<W> {
    /// Packets written to `out` (wrap files in a `BufWriter`).
    pub(super) fn new(out: W) -> Self {
        Self {
            out,
            trace: Trace { packet: Vec::new() },
            chunk: Vec::with_capacity(CHUNK + 4096),
            packets: 0,
            events: 0,
        }
    }

    fn write(&mut self, packet: TracePacket) -> io::Result<()> {
        self.packets += 1;
        self.events += usize::from(packet.track_event.is_some());
        self.encode(packet);
        if self.chunk.len() >= CHUNK {
            self.flush_chunk()?;
        }
        Ok(())
    }

    /// Appends `packet` to the chunk, as field 1 of `Trace`.
    fn encode(&mut self, packet: TracePacket) {
        self.trace.packet.push(packet);
        // A Vec grows as needed: encoding into one cannot fail.
        let _ = self.trace.encode(&mut self.chunk);
        self.trace.packet.clear();
    }

    /// Compresses the chunk into one packet and writes it.
    fn flush_chunk(&mut self) -> io::Result<()> {
        if self.chunk.is_empty() {
            return Ok(());
        }
        let mut zlib = ZlibEncoder::new(Vec::new(), Compression::default());
        zlib.write_all(&self.chunk)?;
        let packet = TracePacket {
            compressed_packets: Some(zlib.finish()?),
            ..TracePacket::default()
        };
        self.chunk.clear();
        self.encode(packet);
        self.out.write_all(&self.chunk)?;
        self.chunk.clear();
        Ok(())
    }

    /// Packets and track events written so far.
    pub(super) fn counts(&self) -> (usize, usize) {
        (self.packets, self.events)
    }

    /// Writes the last chunk and flushes the writer.
    pub(super) fn finish(mut self) -> io::Result<()> {
        self.flush_chunk()?;
        self.out.flush()
    }
}

/// One packet sequence: its id, interned strings and clock.
pub(super) struct Sequence {
    id: u32,
    interner: Interner,
    started: bool,
    /// A thread's sequence: its track, the default of its events.
    track: Option<u64>,
    /// The incremental clock's last value (thread sequences).
    last_ts: Option<u64>,
}

impl Sequence {
    /// A sequence of absolute timestamps whose events name their tracks.
    pub(super) fn new(id: u32) -> Self {
        Self {
            id,
            interner: Interner::default(),
            started: false,
            track: None,
            last_ts: None,
        }
    }

    /// The sequence's id.
    pub(super) fn id(&self) -> u32 {
        self.id
    }

    /// A thread's sequence: events default to `track` and carry the delta
    /// from the previous timestamp (Perfetto's incremental clock), so they
    /// must come in time order; one that does not is written with its
    /// absolute time instead.
    pub(super) fn thread(id: u32, track: u64) -> Self {
        Self {
            track: Some(track),
            ..Self::new(id)
        }
    }

    /// A packet on this sequence. Before the first one, a packet that
    /// clears the incremental state and, on a thread's sequence, sets the
    /// defaults and starts the clock at `ts` (its own packet, as the SDK
    /// writes it: readers take a clock snapshot alone).
    fn packet<W: Write>(&mut self, out: &mut Packets<W>, ts: u64) -> io::Result<TracePacket> {
        let packet = TracePacket {
            trusted_packet_sequence_id: Some(self.id),
            ..TracePacket::default()
        };
        if self.started {
            return Ok(packet);
        }
        self.started = true;
        let mut start = TracePacket {
            first_packet_on_sequence: Some(true),
            sequence_flags: Some(SEQ_INCREMENTAL_STATE_CLEARED),
            ..packet.clone()
        };
        if let Some(track) = self.track {
            start.trace_packet_defaults = Some(TracePacketDefaults {
                timestamp_clock_id: Some(CLOCK_INCREMENTAL),
                track_event_defaults: Some(TrackEventDefaults {
                    track_uuid: Some(track),
                }),
            });
            let clock = |clock_id, is_incremental| Clock {
                clock_id: Some(clock_id),
                timestamp: Some(ts),
                is_incremental,
            };
            start.clock_snapshot = Some(ClockSnapshot {
                clocks: vec![
                    clock(CLOCK_INCREMENTAL, Some(true)),
                    clock(CLOCK_BOOTTIME, None),
                ],
            });
            start.timestamp = Some(ts);
            start.timestamp_clock_id = Some(CLOCK_BOOTTIME);
            self.last_ts = Some(ts);
        }
        out.write(start)?;
        Ok(packet)
    }

    /// Writes a track's descriptor.
    pub(super) fn track<W: Write>(
        &mut self,
        out: &mut Packets<W>,
        track: TrackDescriptor,
    ) -> io::Result<()> {
        let packet = TracePacket {
            track_descriptor: Some(track),
            ..self.packet(out, 0)?
        };
        out.write(packet)
    }

    /// Writes an event at `ts` ns on `track`, built by `event` with the
    /// sequence's interner.
    pub(super) fn event<W: Write>(
        &mut self,
        out: &mut Packets<W>,
        (ts, track): (u64, u64),
        event: impl FnOnce(&mut Interner) -> TrackEvent,
    ) -> io::Result<()> {
        let mut packet = self.packet(out, ts)?;
        let mut event = event(&mut self.interner);
        if self.track != Some(track) {
            event.track_uuid = Some(track);
        }
        let new = std::mem::take(&mut self.interner.new);
        packet.interned_data = (!new.is_empty()).then_some(new);
        packet.track_event = Some(event);
        packet.sequence_flags = Some(SEQ_NEEDS_INCREMENTAL_STATE);
        match self.last_ts {
            Some(last) if ts >= last => {
                packet.timestamp = Some(ts - last);
                self.last_ts = Some(ts);
            }
            Some(_) => {
                packet.timestamp = Some(ts);
                packet.timestamp_clock_id = Some(CLOCK_BOOTTIME);
            }
            None => packet.timestamp = Some(ts),
        }
        out.write(packet)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use std::io::Read as _;

    use super::*;
    use crate::output::export::perfetto::proto::TYPE_INSTANT;

    /// The packets `out` wrote, inflated.
    pub(crate) fn inflate(bytes: &[u8]) -> Vec<TracePacket> {
        let outer = Trace::decode(bytes).expect("decodes");
        let mut packets = Vec::new();
        for p in outer.packet {
            let compressed = p.compressed_packets.expect("only compressed packets");
            let mut raw = Vec::new();
            flate2::read::ZlibDecoder::new(compressed.as_slice())
                .read_to_end(&mut raw)
                .expect("zlib");
            packets.extend(Trace::decode(raw.as_slice()).expect("decodes").packet);
        }
        packets
    }

    fn written(mut out: Packets<Vec<u8>>) -> Vec<TracePacket> {
        out.flush_chunk().expect("in memory");
        inflate(&out.out)
    }

    fn instant(i: &mut Interner) -> TrackEvent {
        TrackEvent {
            r#type: Some(TYPE_INSTANT),
            name_iid: Some(i.name("MatMul")),
            category_iids: vec![i.category("brick")],
            ..TrackEvent::default()
        }
    }

    #[test]
    fn a_name_is_interned_once_and_the_first_packet_clears_state() {
        let mut out = Packets::new(Vec::new());
        let mut seq = Sequence::new(3);
        for ts in [5, 6] {
            seq.event(&mut out, (ts, 9), instant).expect("in memory");
        }
        let trace = Trace {
            packet: written(out),
        };
        let [start, first, second] = trace.packet.as_slice() else {
            panic!("a start and two events: {trace:?}");
        };
        assert_eq!(start.sequence_flags, Some(SEQ_INCREMENTAL_STATE_CLEARED));
        assert!(start.track_event.is_none() && start.first_packet_on_sequence == Some(true));
        let interned = first.interned_data.as_ref().expect("first interns");
        assert_eq!(interned.event_names[0].name.as_deref(), Some("MatMul"));
        assert!(second.interned_data.is_none(), "interned once: {second:?}");
        for p in [first, second] {
            assert_eq!(p.sequence_flags, Some(SEQ_NEEDS_INCREMENTAL_STATE));
        }
        let ids = |p: &TracePacket| p.track_event.as_ref().and_then(|e| e.name_iid);
        assert_eq!(ids(first), ids(second));
        assert_eq!((first.timestamp, second.timestamp), (Some(5), Some(6)));
    }

    #[test]
    fn a_thread_sequence_writes_deltas_on_its_default_track() {
        let mut out = Packets::new(Vec::new());
        let mut seq = Sequence::thread(2, 7);
        for (ts, track) in [(1_000, 7), (1_250, 7), (900, 7), (1_300, 8)] {
            seq.event(&mut out, (ts, track), instant)
                .expect("in memory");
        }
        let trace = Trace {
            packet: written(out),
        };
        let (start, p) = trace.packet.split_first().expect("packets");
        let defaults = start.trace_packet_defaults.as_ref().expect("defaults");
        assert_eq!(defaults.timestamp_clock_id, Some(CLOCK_INCREMENTAL));
        let clocks = &start.clock_snapshot.as_ref().expect("snapshot").clocks;
        assert!(clocks.iter().all(|c| c.timestamp == Some(1_000)));
        let ts: Vec<_> = p
            .iter()
            .map(|p| (p.timestamp, p.timestamp_clock_id))
            .collect();
        // Back in time: absolute, and the clock keeps its last value.
        assert_eq!(
            ts,
            [
                (Some(0), None),
                (Some(250), None),
                (Some(900), Some(CLOCK_BOOTTIME)),
                (Some(50), None)
            ]
        );
        let tracks: Vec<_> = p
            .iter()
            .map(|p| p.track_event.as_ref().and_then(|e| e.track_uuid))
            .collect();
        assert_eq!(tracks, [None, None, None, Some(8)]);
    }
}
