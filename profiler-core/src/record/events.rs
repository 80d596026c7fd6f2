//! Trace mode's storage: a bounded per-thread buffer of timeline events (bricks,
//! phases, layers, steps), each `start..end` in ticks, 24 bytes.
//!
//! The buffer grows in fixed chunks up to a capacity; events beyond it are
//! dropped and counted, never silently lost. Only the owner appends; a
//! snapshot reads the published prefix.

use std::sync::OnceLock;
use std::sync::atomic::{
    AtomicPtr, AtomicU64, AtomicUsize, Ordering::Acquire, Ordering::Relaxed, Ordering::Release,
};

use crate::counter::bump;
use crate::profile::EventKind;

const CHUNK_EVENTS: usize = 4096;
/// Default per-thread capacity (24 MiB of events at most per thread).
pub(crate) const DEFAULT_CAPACITY: usize = 1 << 20;
/// Largest capacity a buffer's chunk directory can address.
pub(crate) const MAX_CAPACITY: usize = CHUNK_EVENTS * 4096;

static CAPACITY: AtomicUsize = AtomicUsize::new(DEFAULT_CAPACITY);

/// Sets the per-thread timeline capacity (events), clamped to `[CHUNK, MAX]`.
pub(crate) fn set_capacity(events: usize) {
    CAPACITY.store(events.clamp(CHUNK_EVENTS, MAX_CAPACITY), Relaxed);
}

/// The per-thread timeline capacity.
pub(crate) fn capacity() -> usize {
    CAPACITY.load(Relaxed)
}

struct Event {
    start: AtomicU64,
    end: AtomicU64,
    /// Kind in the top byte, id below.
    tag: AtomicU64,
}

type Chunk = [Event; CHUNK_EVENTS];

/// One thread's event buffer.
pub(crate) struct EventBuffer {
    directory: OnceLock<Box<[AtomicPtr<Chunk>]>>,
    /// Published length; events below it are fully written.
    len: AtomicUsize,
    pub(crate) dropped: AtomicU64,
}

/// A raw event as copied out of a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RawEvent {
    pub(crate) kind: EventKind,
    pub(crate) id: u64,
    pub(crate) start: u64,
    pub(crate) end: u64,
}

impl EventBuffer {
    pub(crate) const fn new() -> Self {
        Self {
            directory: OnceLock::new(),
            len: AtomicUsize::new(0),
            dropped: AtomicU64::new(0),
        }
    }

    /// Appends an event, or counts it as dropped when the buffer is full. Owner only.
    #[inline]
    pub(crate) fn push(&self, kind: EventKind, id: u64, start: u64, end: u64) {
        let len = self.len.load(Relaxed);
        if len >= capacity() {
            bump(&self.dropped, 1);
            return;
        }
        let directory = self.directory.get_or_init(|| {
            (0..MAX_CAPACITY / CHUNK_EVENTS)
                .map(|_| AtomicPtr::new(std::ptr::null_mut()))
                .collect()
        });
        let slot = &directory[len / CHUNK_EVENTS];
        let mut chunk = slot.load(Relaxed);
        if chunk.is_null() {
            chunk = alloc_chunk();
            slot.store(chunk, Release);
        }
        // SAFETY: `chunk` is a live allocation from `alloc_chunk`, freed only
        // when the buffer is dropped.
        let event = unsafe { &(*chunk)[len % CHUNK_EVENTS] };
        event.start.store(start, Relaxed);
        event.end.store(end, Relaxed);
        event
            .tag
            .store(((kind as u64) << 56) | (id & ((1 << 56) - 1)), Relaxed);
        self.len.store(len + 1, Release);
    }

    /// Copies the published events out. Any thread.
    pub(crate) fn read(&self) -> Vec<RawEvent> {
        let len = self.len.load(Acquire);
        let Some(directory) = self.directory.get() else {
            return Vec::new();
        };
        let mut out = Vec::with_capacity(len);
        for i in 0..len {
            let chunk = directory[i / CHUNK_EVENTS].load(Acquire);
            // SAFETY: every chunk below the published length was allocated
            // and stored (Release) before `len` was published.
            let Some(chunk) = (unsafe { chunk.as_ref() }) else {
                break;
            };
            let e = &chunk[i % CHUNK_EVENTS];
            let tag = e.tag.load(Relaxed);
            out.push(RawEvent {
                kind: EventKind::from_tag(tag),
                id: tag & ((1 << 56) - 1),
                start: e.start.load(Relaxed),
                end: e.end.load(Relaxed),
            });
        }
        out
    }

    /// Forgets all events (chunks are kept for reuse). Owner only.
    pub(crate) fn clear(&self) {
        self.len.store(0, Release);
        self.dropped.store(0, Relaxed);
    }
}

fn alloc_chunk() -> *mut Chunk {
    // SAFETY: all-zero bytes are valid atomics.
    let chunk: Box<Chunk> = unsafe { Box::<Chunk>::new_zeroed().assume_init() };
    Box::into_raw(chunk)
}

impl Drop for EventBuffer {
    fn drop(&mut self) {
        if let Some(directory) = self.directory.get() {
            for slot in directory.iter() {
                let ptr = slot.load(Relaxed);
                if !ptr.is_null() {
                    // SAFETY: allocated by `alloc_chunk`, exclusively owned now.
                    drop(unsafe { Box::from_raw(ptr) });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_keeps_events_in_order_and_counts_drops() {
        let buffer = EventBuffer::new();
        let capacity = capacity();
        for i in 0..(capacity as u64 + 10) {
            buffer.push(EventKind::Brick, i, i * 10, i * 10 + 5);
        }
        let events = buffer.read();
        assert_eq!(events.len(), capacity);
        assert_eq!(buffer.dropped.load(Relaxed), 10);
        assert_eq!(
            events[4097],
            RawEvent {
                kind: EventKind::Brick,
                id: 4097,
                start: 40970,
                end: 40975
            }
        );
        buffer.clear();
        assert!(buffer.read().is_empty());
    }

    #[test]
    fn kinds_survive_the_tag() {
        for kind in [
            EventKind::Step,
            EventKind::Phase,
            EventKind::Layer,
            EventKind::Brick,
        ] {
            let buffer = EventBuffer::new();
            buffer.push(kind, 42, 1, 2);
            assert_eq!(buffer.read()[0].kind, kind);
            assert_eq!(buffer.read()[0].id, 42);
        }
    }
}
