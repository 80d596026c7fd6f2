//! A bounded pool of reusable device events behind a small [`EventSource`]
//! trait: reuse, stream-order draining, drops at capacity and anchor events
//! (device time to host time), written once and tested without a GPU (the
//! CUDA timer is this pool over CUDA events).

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard, PoisonError};

use profiler_core::sync::DeviceEvent;

use crate::anchor::{self, EventAnchors};
use crate::error::DeviceError;
pub use crate::pool_stats::PoolStats;

/// What a pool needs from a device: events that time, recorded in the order
/// of one stream, queried without blocking.
pub trait EventSource: Send + Sync + 'static {
    /// One device event (a `CUevent` for CUDA).
    type Event: Send;
    /// Creates an event able to time (for CUDA: the default flags, since
    /// cudarc's own default disables timing).
    fn create(&self) -> Result<Self::Event, DeviceError>;
    /// Records `event` at the current point of the stream.
    fn record(&self, event: &Self::Event) -> Result<(), DeviceError>;
    /// Whether the work recorded before `event` has completed. Never blocks.
    fn is_complete(&self, event: &Self::Event) -> bool;
    /// Milliseconds between two completed events (negative when `end` ran
    /// first).
    fn elapsed_ms(&self, start: &Self::Event, end: &Self::Event) -> Result<f32, DeviceError>;
    /// Whether the stream has no work left, so an event recorded now runs
    /// at once (for CUDA: `cuStreamQuery` succeeds). Never blocks. The
    /// default, `false`, never anchors: events then have no host time.
    fn is_idle(&self) -> bool {
        false
    }
    /// Now on the profiler's host clock (`profiler_core::sync::host_now_ns`).
    fn host_now_ns(&self) -> u64 {
        profiler_core::sync::host_now_ns()
    }
}

/// The handle of an event the pool could not give (at capacity, or the
/// record failed): it never resolves, so the brick falls back to
/// launch-to-sync time and the profile counts the fallback.
pub const DROPPED: DeviceEvent = DeviceEvent(u64::MAX);

/// Default number of events a pool creates at most.
pub const DEFAULT_EVENT_CAPACITY: usize = 8192;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Free,
    Recorded,
    Complete,
}

struct Slot<E> {
    event: E,
    generation: u32,
    state: State,
    /// The anchor event this event is timed against, if any.
    anchor: Option<u64>,
    /// The host time just before the event was recorded: the device cannot
    /// reach it earlier.
    recorded_ns: u64,
}

struct Inner<E> {
    slots: Vec<Slot<E>>,
    free: Vec<u32>,
    /// Handles in record order not yet seen complete (stale ones included:
    /// they are skipped when reached).
    recorded: VecDeque<u64>,
    stats: PoolStats,
    anchors: EventAnchors,
}

/// A bounded pool of device events implementing the bookkeeping of a
/// device timer over any [`EventSource`].
pub struct EventPool<S: EventSource> {
    source: S,
    capacity: usize,
    inner: Mutex<Inner<S::Event>>,
}

impl<S: EventSource> std::fmt::Debug for EventPool<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventPool")
            .field("capacity", &self.capacity)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

fn handle(index: u32, generation: u32) -> u64 {
    (u64::from(generation) << 32) | u64::from(index)
}

fn split(id: u64) -> (usize, u32) {
    ((id & u64::from(u32::MAX)) as usize, (id >> 32) as u32)
}

impl<S: EventSource> EventPool<S> {
    /// A pool creating at most `capacity` events (at least one) from `source`.
    pub fn new(source: S, capacity: usize) -> Self {
        let capacity = capacity.clamp(1, u32::MAX as usize);
        Self {
            source,
            capacity,
            inner: Mutex::new(Inner {
                slots: Vec::new(),
                free: Vec::new(),
                recorded: VecDeque::new(),
                stats: PoolStats::default(),
                anchors: EventAnchors::default(),
            }),
        }
    }

    /// The event source.
    pub fn source(&self) -> &S {
        &self.source
    }

    /// The most events the pool creates.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// What the pool did so far.
    pub fn stats(&self) -> PoolStats {
        self.lock().stats
    }

    // A panic inside a source call cannot leave the state half-updated
    // (each update is one assignment after the call), so a poisoned lock is
    // still consistent.
    fn lock(&self) -> MutexGuard<'_, Inner<S::Event>> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records an event on the stream: a pooled one, a new one below
    /// capacity, or [`DROPPED`] (counted) when every event is in flight.
    /// First, when an anchor is due and the stream is idle, records an
    /// anchor event (see [`EventPool::host_time_ns`]).
    pub fn record(&self) -> DeviceEvent {
        let mut inner = self.lock();
        self.anchor_if_due(&mut inner);
        let Some(index) = self.take(&mut inner) else {
            return DROPPED;
        };
        let recorded_ns = self.source.host_now_ns();
        let id = self.record_slot(&mut inner, index);
        if id == DROPPED.0 {
            return DROPPED;
        }
        let anchor = inner.anchors.attach();
        let slot = &mut inner.slots[index as usize];
        slot.anchor = anchor;
        slot.recorded_ns = recorded_ns;
        inner.stats.recorded += 1;
        inner.stats.in_flight += 1;
        DeviceEvent(id)
    }

    /// Takes an anchor when one is due and the stream is idle: an event
    /// recorded on an idle stream runs as soon as it arrives, so the host
    /// time read right after the record is its time, to within the
    /// record's latency (microseconds). Without room or on a busy stream,
    /// asks again later.
    fn anchor_if_due(&self, inner: &mut Inner<S::Event>) {
        let now = self.source.host_now_ns();
        if !inner.anchors.schedule.wants(now) {
            return;
        }
        // Room for the anchor and the brick's own event, so an anchor never
        // costs a brick its event.
        let room = inner.free.len() + (self.capacity - inner.slots.len()) >= 2;
        if !room || !self.source.is_idle() {
            inner.anchors.schedule.busy(now);
            return;
        }
        let Some(index) = self.take(inner) else {
            inner.anchors.schedule.busy(now);
            return;
        };
        let id = self.record_slot(inner, index);
        if id == DROPPED.0 {
            inner.anchors.schedule.busy(now);
            return;
        }
        let host_ns = self.source.host_now_ns();
        inner.slots[index as usize].anchor = None;
        inner.stats.anchors += 1;
        if let Some(old) = inner.anchors.install(id, host_ns) {
            Self::free(inner, old);
        }
    }

    /// A free slot: a pooled one or a new one below capacity; `None`
    /// (counted) when none can be had.
    fn take(&self, inner: &mut Inner<S::Event>) -> Option<u32> {
        Some(match inner.free.pop() {
            Some(index) => index,
            None if inner.slots.len() < self.capacity => match self.source.create() {
                Ok(event) => {
                    inner.slots.push(Slot {
                        event,
                        generation: 0,
                        state: State::Free,
                        anchor: None,
                        recorded_ns: 0,
                    });
                    inner.stats.created += 1;
                    (inner.slots.len() - 1) as u32
                }
                Err(_) => {
                    inner.stats.failed += 1;
                    return None;
                }
            },
            None => {
                inner.stats.dropped += 1;
                return None;
            }
        })
    }

    /// Records the slot's event on the stream; its handle, or
    /// `DROPPED.0` (counted, the slot freed) when the record failed.
    fn record_slot(&self, inner: &mut Inner<S::Event>, index: u32) -> u64 {
        let slot = &inner.slots[index as usize];
        if self.source.record(&slot.event).is_err() {
            inner.free.push(index);
            inner.stats.failed += 1;
            return DROPPED.0;
        }
        let id = handle(index, slot.generation);
        inner.slots[index as usize].state = State::Recorded;
        inner.recorded.push_back(id);
        id
    }

    /// Marks completed events, oldest first, without blocking: stops at the
    /// first recorded event still running (later ones on the same stream
    /// cannot have finished before it). Returns how many completed.
    pub fn drain(&self) -> usize {
        let mut inner = self.lock();
        Self::drain_locked(&self.source, &mut inner)
    }

    fn drain_locked(source: &S, inner: &mut Inner<S::Event>) -> usize {
        let mut done = 0;
        while let Some(&id) = inner.recorded.front() {
            let (index, generation) = split(id);
            let slot = &mut inner.slots[index];
            if slot.generation == generation && slot.state == State::Recorded {
                if !source.is_complete(&slot.event) {
                    break;
                }
                slot.state = State::Complete;
                done += 1;
            }
            inner.recorded.pop_front();
        }
        done
    }

    /// Device time between two events of this pool, once the end event has
    /// completed; `None` for a dropped, released or unfinished event.
    pub fn elapsed_ns(&self, start: DeviceEvent, end: DeviceEvent) -> Option<u64> {
        if start == DROPPED || end == DROPPED {
            return None;
        }
        let mut inner = self.lock();
        Self::drain_locked(&self.source, &mut inner);
        let (Some(a), Some(b)) = (inner.live(start.0), inner.live(end.0)) else {
            return None;
        };
        if inner.slots[a].state != State::Complete || inner.slots[b].state != State::Complete {
            inner.stats.incomplete += 1;
            return None;
        }
        let ms = self
            .source
            .elapsed_ms(&inner.slots[a].event, &inner.slots[b].event)
            .ok()?;
        inner.stats.resolved += 1;
        // Events on one stream never run backwards; a negative or NaN value
        // is a driver oddity, read as zero rather than refused.
        Some((f64::from(ms.max(0.0)) * 1e6).round() as u64)
    }

    /// When the stream reached `event`, on the profiler's host clock: its
    /// anchor's host time plus the device time from the anchor to it. `None`
    /// for a dropped, released or unfinished event, or one recorded before
    /// any anchor could be taken (the stream was never idle).
    ///
    /// The anchor's host time is read just after its record call returns,
    /// and the device may reach it a few microseconds later, so it can read
    /// early. No event is reached before its own record call, so an event
    /// that would be placed before it moves its anchor later by the
    /// difference: the anchor keeps the tightest such bound, usually set by
    /// the event recorded right after it.
    pub fn host_time_ns(&self, event: DeviceEvent) -> Option<u64> {
        if event == DROPPED {
            return None;
        }
        let mut inner = self.lock();
        Self::drain_locked(&self.source, &mut inner);
        let index = inner.live(event.0)?;
        let anchor_id = inner.slots[index].anchor?;
        let host_ns = inner.anchors.host_ns(anchor_id)?;
        let anchor = inner.live(anchor_id)?;
        let (a, e) = (&inner.slots[anchor], &inner.slots[index]);
        if a.state != State::Complete || e.state != State::Complete {
            return None;
        }
        let ms = self.source.elapsed_ms(&a.event, &e.event).ok()?;
        let recorded_ns = e.recorded_ns;
        let at = anchor::shift(host_ns, anchor::ms_to_ns(ms));
        if at < recorded_ns {
            inner.anchors.raise(anchor_id, host_ns + (recorded_ns - at));
            return Some(recorded_ns);
        }
        Some(at)
    }

    /// Returns an event to the pool; stale and dropped handles are ignored.
    pub fn release(&self, event: DeviceEvent) {
        if event == DROPPED {
            return;
        }
        let mut inner = self.lock();
        if let Some(index) = inner.live(event.0) {
            let anchor = inner.slots[index].anchor.take();
            Self::free(&mut inner, event.0);
            inner.stats.in_flight -= 1;
            if let Some(done) = anchor.and_then(|a| inner.anchors.detach(a)) {
                Self::free(&mut inner, done);
            }
        }
        // Stale handles at the front would otherwise wait for the next drain.
        while let Some(&id) = inner.recorded.front() {
            if inner.live(id).is_some() {
                break;
            }
            inner.recorded.pop_front();
        }
    }
}

impl<S: EventSource> EventPool<S> {
    /// Returns the live event `id` to the free list (a stale id is ignored).
    fn free(inner: &mut Inner<S::Event>, id: u64) {
        if let Some(index) = inner.live(id) {
            let slot = &mut inner.slots[index];
            slot.state = State::Free;
            slot.generation = slot.generation.wrapping_add(1);
            inner.free.push(index as u32);
        }
    }
}

impl<E> Inner<E> {
    /// The slot of `id` when it is still the event that handle names.
    fn live(&self, id: u64) -> Option<usize> {
        let (index, generation) = split(id);
        let slot = self.slots.get(index)?;
        (slot.generation == generation && slot.state != State::Free).then_some(index)
    }
}

#[cfg(test)]
#[path = "pool_tests.rs"]
mod tests;
