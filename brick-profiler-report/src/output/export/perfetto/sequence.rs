//! [`Sequence`]: one packet sequence of a Perfetto trace, written packet by
//! packet to a writer. Event names, categories and annotation keys are
//! interned as Perfetto's SDK does: each string gets an id the first time
//! a packet uses it, sent in that packet's `interned_data`; the first packet
//! clears the sequence's incremental state and later ones depend on it.
//! Memory: the interning tables and one reused packet buffer.

use std::collections::HashMap;
use std::io::{self, Write};

use prost::Message as _;

use super::proto::{
    DebugAnnotation, Interned, InternedData, SEQ_INCREMENTAL_STATE_CLEARED,
    SEQ_NEEDS_INCREMENTAL_STATE, Trace, TracePacket, TrackDescriptor, TrackEvent,
};

/// The sequence id of the packets (any non-zero id; one writer, one id).
pub(super) const SEQUENCE_ID: u32 = 1;

/// Strings given ids on the sequence, per kind (ids start at 1).
#[derive(Default)]
struct Table(HashMap<Box<str>, u64>);

impl Table {
    /// The id of `name`, adding it to `new` when first seen.
    fn id(&mut self, name: &str, new: &mut Vec<Interned>) -> u64 {
        if let Some(&id) = self.0.get(name) {
            return id;
        }
        let id = self.0.len() as u64 + 1;
        self.0.insert(name.into(), id);
        new.push(Interned {
            iid: Some(id),
            name: Some(name.to_owned()),
        });
        id
    }
}

/// Strings interned by the packet being built.
#[derive(Default)]
pub(super) struct Interner {
    names: Table,
    categories: Table,
    keys: Table,
    new: InternedData,
}

impl Interner {
    /// The id of an event name.
    pub(super) fn name(&mut self, name: &str) -> u64 {
        self.names.id(name, &mut self.new.event_names)
    }

    /// The id of a category.
    pub(super) fn category(&mut self, category: &str) -> u64 {
        self.categories.id(category, &mut self.new.event_categories)
    }

    /// The id of a debug annotation key.
    pub(super) fn key(&mut self, key: &str) -> u64 {
        self.keys.id(key, &mut self.new.debug_annotation_names)
    }

    /// An arg named `key` (interned) with the value of `annotation`.
    pub(super) fn arg(&mut self, key: &str, mut annotation: DebugAnnotation) -> DebugAnnotation {
        annotation.name_iid = Some(self.key(key));
        annotation
    }
}

/// A packet sequence being written to `out`.
pub(super) struct Sequence<W: Write> {
    out: W,
    interner: Interner,
    /// One packet at a time, encoded into `buf` (reused).
    trace: Trace,
    buf: Vec<u8>,
    packets: usize,
    events: usize,
}

impl<W: Write> Sequence<W> {
    /// A sequence that writes to `out` (wrap files in a `BufWriter`).
    pub(super) fn new(out: W) -> Self {
        Self {
            out,
            interner: Interner::default(),
            trace: Trace { packet: Vec::new() },
            buf: Vec::new(),
            packets: 0,
            events: 0,
        }
    }

    /// Writes a track's descriptor.
    pub(super) fn track(&mut self, track: TrackDescriptor) -> io::Result<()> {
        self.write(TracePacket {
            track_descriptor: Some(track),
            ..packet()
        })
    }

    /// Writes an event at `ts` ns, built by `event` with the interner.
    pub(super) fn event(
        &mut self,
        ts: u64,
        event: impl FnOnce(&mut Interner) -> TrackEvent,
    ) -> io::Result<()> {
        let event = event(&mut self.interner);
        let new = std::mem::take(&mut self.interner.new);
        self.events += 1;
        self.write(TracePacket {
            timestamp: Some(ts),
            track_event: Some(event),
            interned_data: (!new.is_empty()).then_some(new),
            sequence_flags: Some(SEQ_NEEDS_INCREMENTAL_STATE),
            ..packet()
        })
    }

    /// Encodes `packet` as field 1 of `Trace` and writes it. The first
    /// packet clears the incremental state (nothing is interned before it).
    fn write(&mut self, mut packet: TracePacket) -> io::Result<()> {
        if self.packets == 0 {
            let flags = packet.sequence_flags.unwrap_or(0) | SEQ_INCREMENTAL_STATE_CLEARED;
            packet.sequence_flags = Some(flags);
            packet.first_packet_on_sequence = Some(true);
        }
        self.packets += 1;
        self.trace.packet.push(packet);
        self.buf.clear();
        // Encoding into a Vec cannot run out of room.
        let encoded = self.trace.encode(&mut self.buf);
        self.trace.packet.clear();
        encoded.map_err(io::Error::other)?;
        self.out.write_all(&self.buf)
    }

    /// Packets and track events written so far.
    pub(super) fn counts(&self) -> (usize, usize) {
        (self.packets, self.events)
    }

    /// Flushes the writer and returns it.
    pub(super) fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// A packet on this writer's sequence with nothing else set.
fn packet() -> TracePacket {
    TracePacket {
        trusted_packet_sequence_id: Some(SEQUENCE_ID),
        ..TracePacket::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::export::perfetto::proto::{TYPE_INSTANT, TrackEvent};

    #[test]
    fn a_name_is_interned_once_and_the_first_packet_clears_state() {
        let mut seq = Sequence::new(Vec::new());
        for ts in [5, 6] {
            seq.event(ts, |i| TrackEvent {
                r#type: Some(TYPE_INSTANT),
                name_iid: Some(i.name("MatMul")),
                category_iids: vec![i.category("brick")],
                ..TrackEvent::default()
            })
            .expect("in memory");
        }
        let bytes = seq.finish().expect("in memory");
        let trace = Trace::decode(bytes.as_slice()).expect("decodes");
        let [first, second] = trace.packet.as_slice() else {
            panic!("two packets: {trace:?}");
        };
        let interned = first.interned_data.as_ref().expect("first interns");
        assert_eq!(interned.event_names[0].name.as_deref(), Some("MatMul"));
        assert!(second.interned_data.is_none(), "interned once: {second:?}");
        assert_eq!(
            (first.sequence_flags, second.sequence_flags),
            (
                Some(SEQ_INCREMENTAL_STATE_CLEARED | SEQ_NEEDS_INCREMENTAL_STATE),
                Some(SEQ_NEEDS_INCREMENTAL_STATE)
            )
        );
        let ids = |p: &TracePacket| p.track_event.as_ref().and_then(|e| e.name_iid);
        assert_eq!(ids(first), ids(second));
    }
}
