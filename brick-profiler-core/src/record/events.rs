//! Trace mode's storage: a bounded per-thread buffer of timeline events
//! (bricks, phases, layers, steps), each `start..end` in ticks with its
//! arguments (a brick's elements, bytes, FLOPs and layer; a step's tokens),
//! 48 bytes. Counter samples (`profiler::counter`) share the buffer and its
//! bounds, in or out of trace mode.
//!
//! A buffer grows in chunks of [`CHUNK_EVENTS`], up to a per-thread
//! capacity; every chunk is reserved from one process-wide budget, which
//! also holds the events of threads that have exited, so memory stays
//! bounded whatever the thread churn. Events beyond either bound are dropped
//! and counted, never silently lost. Only the owner appends; a snapshot
//! reads the published prefix.

use std::sync::OnceLock;
use std::sync::atomic::{
    AtomicPtr, AtomicU64, AtomicUsize, Ordering::Acquire, Ordering::Relaxed, Ordering::Release,
};

use super::starts::Mark;
use crate::counter::bump;
use crate::profile::EventKind;

/// Events per allocation unit (48 KiB).
pub(crate) const CHUNK_EVENTS: usize = 1024;
/// Default per-thread capacity (48 MiB of events at most per thread).
pub(crate) const DEFAULT_CAPACITY: usize = 1 << 20;
/// Default process-wide capacity (192 MiB of events at most).
pub(crate) const DEFAULT_PROCESS_CAPACITY: usize = 1 << 22;
/// Largest per-thread capacity.
pub(crate) const MAX_CAPACITY: usize = 1 << 24;

static CAPACITY: AtomicUsize = AtomicUsize::new(DEFAULT_CAPACITY);
static PROCESS_CAPACITY: AtomicUsize = AtomicUsize::new(DEFAULT_PROCESS_CAPACITY);
/// Events the process holds or has reserved: allocated chunks of live
/// buffers plus the kept events of exited threads.
static RESERVED: AtomicUsize = AtomicUsize::new(0);

/// Sets the per-thread capacity (events), clamped to `[CHUNK, MAX]`. A
/// buffer sizes its chunk directory when it first records, so raising the
/// capacity later applies to threads that start recording afterwards.
pub(crate) fn set_capacity(events: usize) {
    CAPACITY.store(events.clamp(CHUNK_EVENTS, MAX_CAPACITY), Relaxed);
}

/// Sets the process-wide capacity (events), at least one chunk.
pub(crate) fn set_process_capacity(events: usize) {
    PROCESS_CAPACITY.store(events.max(CHUNK_EVENTS), Relaxed);
}

/// Reserves `n` events of the process budget; `false` when it is spent.
fn reserve(n: usize) -> bool {
    let cap = PROCESS_CAPACITY.load(Relaxed);
    RESERVED
        .fetch_update(Relaxed, Relaxed, |held| {
            held.checked_add(n).filter(|&total| total <= cap)
        })
        .is_ok()
}

/// Returns `n` events to the process budget.
pub(crate) fn release(n: usize) {
    let _ = RESERVED.fetch_update(Relaxed, Relaxed, |held| Some(held.saturating_sub(n)));
}

/// Charges `n` kept events (of an exited thread) to the budget, whatever
/// its state: they are already in memory, within the chunks being released.
pub(crate) fn charge(n: usize) {
    RESERVED.fetch_add(n, Relaxed);
}

/// One event: its span in ticks, a tag (kind in the top byte, then the id;
/// a brick packs its layer context above its slot) and three arguments.
struct Event {
    start: AtomicU64,
    end: AtomicU64,
    tag: AtomicU64,
    args: [AtomicU64; 3],
}

// Documented as 48 bytes: the memory bound of a capacity depends on it.
const _: () = assert!(size_of::<Event>() == 48);

type Chunk = [Event; CHUNK_EVENTS];

/// Tag kind of a counter sample (timeline kinds are 0..=3).
const COUNTER_KIND: u64 = 0xC;

/// Bits of a brick tag's id holding the slot (the layer context is above).
const SLOT_BITS: u32 = 24;
/// The 56 bits below the kind.
const ID_MASK: u64 = (1 << 56) - 1;

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
    /// Slot (bricks), phase id, layer context (layers) or step index.
    pub(crate) id: u64,
    /// A brick's layer context (`NO_LAYER` outside layers).
    pub(crate) ctx: u32,
    pub(crate) start: u64,
    pub(crate) end: u64,
    /// Elements, bytes, FLOPs (bricks); tokens (steps).
    pub(crate) args: [u64; 3],
}

/// A counter sample as copied out of a buffer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RawSample {
    /// The counter's id (see `record::series`).
    pub(crate) series: u32,
    pub(crate) ticks: u64,
    pub(crate) value: f64,
}

impl RawEvent {
    /// A brick event of `slot` in layer context `ctx`.
    pub(crate) const fn brick(slot: u32, ctx: u32, span: (u64, u64), args: [u64; 3]) -> Self {
        Self {
            kind: EventKind::Brick,
            id: slot as u64,
            ctx,
            start: span.0,
            end: span.1,
            args,
        }
    }

    /// A step, phase or layer event.
    pub(crate) const fn scope(kind: EventKind, id: u64, span: (u64, u64), args: [u64; 3]) -> Self {
        Self {
            kind,
            id,
            ctx: u32::MAX,
            start: span.0,
            end: span.1,
            args,
        }
    }

    fn tag(&self) -> u64 {
        let id = if self.kind == EventKind::Brick {
            (u64::from(self.ctx) << SLOT_BITS) | (self.id & ((1 << SLOT_BITS) - 1))
        } else {
            self.id
        };
        ((self.kind as u64) << 56) | (id & ID_MASK)
    }

    fn from_parts(tag: u64, start: u64, end: u64, args: [u64; 3]) -> Self {
        let kind = EventKind::from_tag(tag);
        let id = tag & ID_MASK;
        if kind == EventKind::Brick {
            Self::brick(
                (id & ((1 << SLOT_BITS) - 1)) as u32,
                (id >> SLOT_BITS) as u32,
                (start, end),
                args,
            )
        } else {
            Self::scope(kind, id, (start, end), args)
        }
    }
}

impl EventBuffer {
    pub(crate) const fn new() -> Self {
        Self {
            directory: OnceLock::new(),
            len: AtomicUsize::new(0),
            dropped: AtomicU64::new(0),
        }
    }

    /// Appends an event, or counts it as dropped when the buffer or the
    /// process budget is full. Owner only.
    #[inline]
    pub(crate) fn push(&self, event: RawEvent) {
        self.append(event.tag(), event.start, event.end, event.args);
    }

    /// Appends a sample of counter `series`, taken at `ticks`. Owner only.
    #[inline]
    pub(crate) fn push_counter(&self, series: u32, ticks: u64, value: f64) {
        let tag = (COUNTER_KIND << 56) | u64::from(series);
        self.append(tag, ticks, ticks, [value.to_bits(), 0, 0]);
    }

    #[inline]
    fn append(&self, tag: u64, start: u64, end: u64, args: [u64; 3]) {
        let len = self.len.load(Relaxed);
        let directory = self.directory.get_or_init(|| {
            let chunks = CAPACITY.load(Relaxed).div_ceil(CHUNK_EVENTS);
            (0..chunks)
                .map(|_| AtomicPtr::new(std::ptr::null_mut()))
                .collect()
        });
        let Some(slot) = directory.get(len / CHUNK_EVENTS) else {
            bump(&self.dropped, 1);
            return;
        };
        let mut chunk = slot.load(Relaxed);
        if chunk.is_null() {
            if !reserve(CHUNK_EVENTS) {
                bump(&self.dropped, 1);
                return;
            }
            chunk = super::uncharged::uncharged(alloc_chunk);
            slot.store(chunk, Release);
        }
        // SAFETY: `chunk` is a live allocation from `alloc_chunk`, freed only
        // when the buffer is dropped.
        let e = unsafe { &(*chunk)[len % CHUNK_EVENTS] };
        e.start.store(start, Relaxed);
        e.end.store(end, Relaxed);
        e.tag.store(tag, Relaxed);
        for (to, from) in e.args.iter().zip(args) {
            to.store(from, Relaxed);
        }
        self.len.store(len + 1, Release);
    }

    /// Events appended so far (kept ones only): the position the next
    /// kept event gets. Owner only.
    pub(crate) fn published(&self) -> usize {
        self.len.load(Relaxed)
    }

    /// Copies the published events and counter samples out. Any thread.
    #[cfg(test)]
    pub(crate) fn read(&self) -> (Vec<RawEvent>, Vec<RawSample>) {
        let (events, samples, _) = self.read_marked(&[]);
        (events, samples)
    }

    /// [`EventBuffer::read`], with `marks` (buffer positions, ascending,
    /// each with a value) turned into indices of the returned events:
    /// counter samples share the buffer but not the events' numbering.
    /// Marks past the published events are left out.
    pub(crate) fn read_marked(&self, marks: &[Mark]) -> (Vec<RawEvent>, Vec<RawSample>, Vec<Mark>) {
        let len = self.len.load(Acquire);
        let Some(directory) = self.directory.get() else {
            return (Vec::new(), Vec::new(), Vec::new());
        };
        let mut out = Vec::with_capacity(len);
        let mut samples = Vec::new();
        let mut marks = marks.iter().peekable();
        let mut marked = Vec::new();
        for i in 0..len {
            let chunk = directory[i / CHUNK_EVENTS].load(Acquire);
            // SAFETY: every chunk below the published length was allocated
            // and stored (Release) before `len` was published.
            let Some(chunk) = (unsafe { chunk.as_ref() }) else {
                break;
            };
            let e = &chunk[i % CHUNK_EVENTS];
            let args = [0, 1, 2].map(|k| e.args[k].load(Relaxed));
            let tag = e.tag.load(Relaxed);
            if tag >> 56 == COUNTER_KIND {
                samples.push(RawSample {
                    series: (tag & ID_MASK) as u32,
                    ticks: e.start.load(Relaxed),
                    value: f64::from_bits(args[0]),
                });
            } else {
                while let Some(&&(at, value)) = marks.peek()
                    && at <= i
                {
                    if at == i {
                        marked.push((out.len(), value));
                    }
                    marks.next();
                }
                out.push(RawEvent::from_parts(
                    tag,
                    e.start.load(Relaxed),
                    e.end.load(Relaxed),
                    args,
                ));
            }
        }
        (out, samples, marked)
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
                    release(CHUNK_EVENTS);
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
        let capacity = CAPACITY.load(Relaxed).min(3 * CHUNK_EVENTS);
        let directory_capacity = CAPACITY.load(Relaxed).div_ceil(CHUNK_EVENTS) * CHUNK_EVENTS;
        for i in 0..capacity as u64 {
            buffer.push(RawEvent::scope(
                EventKind::Step,
                i,
                (i * 10, i * 10 + 5),
                [i, 0, 0],
            ));
        }
        let (events, _) = buffer.read();
        assert_eq!(events.len(), capacity);
        assert_eq!(
            events[1025],
            RawEvent::scope(EventKind::Step, 1025, (10250, 10255), [1025, 0, 0])
        );
        buffer.clear();
        assert!(buffer.read().0.is_empty());
        assert!(directory_capacity >= capacity);
    }

    #[test]
    fn marks_follow_their_events_past_counter_samples() {
        let buffer = EventBuffer::new();
        buffer.push_counter(1, 5, 1.0);
        buffer.push(RawEvent::brick(1, 0, (10, 20), [0; 3]));
        buffer.push_counter(1, 25, 2.0);
        let position = buffer.published();
        buffer.push(RawEvent::brick(2, 0, (30, 40), [0; 3]));
        let (events, samples, marks) = buffer.read_marked(&[(position, 33), (99, 1)]);
        assert_eq!((events.len(), samples.len()), (2, 2));
        assert_eq!(marks, [(1, 33)], "the second event, not the fourth entry");
        assert_eq!(events[1].id, 2);
    }

    #[test]
    fn kinds_contexts_and_arguments_survive_the_tag() {
        let buffer = EventBuffer::new();
        let brick = RawEvent::brick(16_383, 0xFFFF_FFFE, (1, 2), [3, 4, 5]);
        buffer.push(brick);
        for kind in [EventKind::Step, EventKind::Phase, EventKind::Layer] {
            buffer.push(RawEvent::scope(kind, 42, (1, 2), [7, 0, 0]));
        }
        buffer.push_counter(7, 9, -0.5);
        let (events, samples) = buffer.read();
        assert_eq!(events[0], brick);
        assert_eq!(
            samples,
            [RawSample {
                series: 7,
                ticks: 9,
                value: -0.5
            }]
        );
        assert_eq!(events[3].kind, EventKind::Layer);
        assert_eq!((events[3].id, events[3].args[0]), (42, 7));
    }
}
