//! The recording hot path: what an annotated call runs.
//!
//! `recording()` is one relaxed load. While enabled, `enter` reads the clock
//! and returns a [`BrickGuard`]; its `Drop` reads the clock again and adds
//! the sample to the calling thread's slab with plain loads and stores: no
//! lock, no string work, and no allocation except the first time a thread
//! touches a group of 16 bricks or a new (layer, brick) pair grows its layer
//! table (amortised, once per key). Sync hooks and device events take a
//! separate cold path.

use super::amounts::{Amounts, NO_LAYER};
use super::device::{self, DeviceEvent, DeviceTimer};
use super::events::RawEvent;
use super::layers::{CHILDREN_CTX, pack, unpack};
use super::ledger;
use super::nodes;
use super::pending::{self, Pending};
use super::registry::BrickSite;
use super::slab::ThreadSlab;
use super::state::{self, DEVICE_EVENTS, GRAPH, MEMORY, RAW_CLOCK, SYNC_EACH, TIMELINE};
use super::thread::{current_layer, enter_brick, exit_brick, with_slab};
use crate::counter::bump;
use crate::profile::{Direction, MAX_LAYER_INDEX};

/// Proof that the profiler was recording when a call started.
#[derive(Debug, Clone, Copy)]
pub struct Recording(u64);

/// `Some` while the profiler is enabled and not paused: one relaxed load.
#[inline(always)]
#[must_use]
pub fn recording() -> Option<Recording> {
    let state = state::load();
    if state::is_recording(state) {
        Some(Recording(state))
    } else {
        None
    }
}

/// Marks an inert guard (recording was off when the call started).
const INERT_SLOT: u32 = u32::MAX;

impl Recording {
    /// The state word read when recording was checked.
    #[inline(always)]
    pub(crate) const fn state(self) -> u64 {
        self.0
    }

    /// Records under an explicit state word (overhead calibration).
    pub(crate) const fn from_state(state: u64) -> Self {
        Self(state)
    }

    /// Starts timing a call of the brick at `site`, nested in the brick
    /// already open on this thread, if any (its time is that brick's child
    /// time).
    #[inline(always)]
    pub fn enter(self, site: &'static BrickSite, amounts: Amounts) -> BrickGuard {
        let slot = site.slot();
        let parent = enter_brick(slot);
        self.start(slot, parent, amounts)
    }

    /// Starts timing a call that may move between threads (an `async fn`):
    /// it takes no part in nesting, so bricks that run on this thread while
    /// it is suspended are not counted as its children.
    #[inline(always)]
    pub fn enter_detached(self, site: &'static BrickSite, amounts: Amounts) -> BrickGuard {
        self.start(site.slot(), DETACHED, amounts)
    }

    /// Starts timing a call of the brick in `slot`, outside any nesting.
    #[inline(always)]
    pub(crate) fn enter_slot(self, slot: u32, amounts: Amounts) -> BrickGuard {
        self.start(slot, DETACHED, amounts)
    }

    #[inline(always)]
    fn start(self, slot: u32, parent: u32, amounts: Amounts) -> BrickGuard {
        let state = self.0;
        // With a device timer, `start` holds the deferred time base (exact ns
        // since the epoch) instead of ticks: the record is resolved in ns.
        let (device, start) = if state & (DEVICE_EVENTS | MEMORY) != 0 {
            slow_start(state, slot, parent)
        } else {
            (None, crate::clock::now(state & RAW_CLOCK != 0))
        };
        BrickGuard {
            start,
            state,
            slot,
            parent,
            amounts,
            device,
        }
    }
}

/// A guard's `parent` when the call takes no part in nesting.
const DETACHED: u32 = u32::MAX - 1;

/// The start of a call that takes a memory mark (nested calls only) or
/// device events (see [`device_start`]).
#[cold]
#[inline(never)]
fn slow_start(state: u64, slot: u32, parent: u32) -> (Option<DeviceEvent>, u64) {
    if state & MEMORY != 0 && parent != DETACHED {
        ledger::enter(slot);
    }
    if state & DEVICE_EVENTS != 0 {
        device_start(state, slot)
    } else {
        (None, crate::clock::now(state & RAW_CLOCK != 0))
    }
}

/// A device start event and the start in the deferred time base, or no
/// event and a tick start when the timer was removed meanwhile or panicked.
fn device_start(state: u64, slot: u32) -> (Option<DeviceEvent>, u64) {
    let Some(timer) = state::device_timer() else {
        return (None, crate::clock::now(state & RAW_CLOCK != 0));
    };
    match device::guarded(|| timer.record_event()) {
        Some(event) => {
            announce_start(timer, slot);
            (Some(event), crate::clock::since_epoch_ns())
        }
        None => (None, crate::clock::now(state & RAW_CLOCK != 0)),
    }
}

/// Tells a timer that names bricks (NVTX ranges) which brick started; the
/// name lookup takes the slot table's lock, so only such timers pay for it.
fn announce_start(timer: &dyn DeviceTimer, slot: u32) {
    if device::guarded(|| timer.names_bricks()) == Some(true)
        && let Some(name) = super::site::name_of(slot)
    {
        device::guarded(|| timer.brick_started(&name));
    }
}

/// Closes what [`announce_start`] opened.
fn announce_end(timer: &dyn DeviceTimer) {
    if device::guarded(|| timer.names_bricks()) == Some(true) {
        device::guarded(|| timer.brick_ended());
    }
}

/// Times one brick call; the sample is recorded when the guard drops,
/// including during unwinding.
#[must_use = "the brick call is timed until the guard is dropped"]
#[derive(Debug)]
pub struct BrickGuard {
    start: u64,
    state: u64,
    slot: u32,
    /// The brick this call is nested in: a slot, `NO_BRICK` or `DETACHED`.
    parent: u32,
    amounts: Amounts,
    device: Option<DeviceEvent>,
}

impl BrickGuard {
    /// A guard that records nothing (recording was off).
    pub const INERT: BrickGuard = BrickGuard {
        start: 0,
        state: 0,
        slot: INERT_SLOT,
        parent: DETACHED,
        amounts: Amounts::NONE,
        device: None,
    };

    /// Closes the call's place in the thread's nesting; returns the brick
    /// it was nested in (`NO_BRICK` or `DETACHED` when none).
    #[inline(always)]
    fn leave(&self) -> u32 {
        if self.parent != DETACHED {
            exit_brick(self.slot, self.parent);
        }
        self.parent
    }

    #[cold]
    #[inline(never)]
    fn finish_slow(&mut self) {
        if self.state & SYNC_EACH != 0 {
            state::run_sync_hook();
        }
        if self.state & MEMORY != 0 && self.parent != DETACHED {
            ledger::exit(self.slot);
        }
        if let Some(start_event) = self.device {
            // Deferred calls keep their nesting but do not attribute child
            // time: their durations are resolved by `finalize`.
            self.leave();
            return self.defer(start_event);
        }
        let end = crate::clock::now(self.state & RAW_CLOCK != 0);
        let parent = self.leave();
        with_slab(self.state, |slab, ctx| self.add_to(slab, ctx, end, parent));
        if self.state & GRAPH != 0 {
            let ticks = end.saturating_sub(self.start);
            let ns = crate::clock::to_ns(ticks, crate::clock::ns_per_tick());
            let top_level = parent >= DETACHED;
            nodes::brick(self.state, self.slot, ns, self.amounts.elements, top_level);
        }
    }

    /// Queues the call for `finalize`: with its device events, or as a
    /// launch-to-sync record when the end event could not be taken.
    fn defer(&self, start_event: DeviceEvent) {
        let timer = state::device_timer();
        let end_event = timer.and_then(|t| device::guarded(|| t.record_event()));
        if let Some(timer) = timer {
            announce_end(timer);
        }
        if end_event.is_none()
            && let Some(timer) = timer
        {
            device::guarded(|| timer.release(start_event));
        }
        let pending = Pending {
            slot: self.slot,
            start_ns: self.start,
            amounts: self.amounts,
            layer: current_layer(),
            device: end_event.map(|end| (start_event, end)),
        };
        push_pending(self.state, pending);
    }

    #[inline(never)]
    fn finish(&mut self) {
        if self.state & (SYNC_EACH | DEVICE_EVENTS | GRAPH | MEMORY) != 0 {
            return self.finish_slow();
        }
        let end = crate::clock::now(self.state & RAW_CLOCK != 0);
        let parent = self.leave();
        with_slab(self.state, |slab, ctx| self.add_to(slab, ctx, end, parent));
    }

    /// Adds the sample ending at `end` to the thread's slab: its cell, its
    /// parent's child time, its layer and, in trace mode, the timeline.
    ///
    /// `finish` and `finish_slow` each pass their own closure calling this:
    /// a closure body called from two places is not inlined, and the call,
    /// with a dozen captures spilled to the stack, cost ~2 ns per brick.
    #[inline(always)]
    fn add_to(&self, slab: &ThreadSlab, layer_ctx: u32, end: u64, parent: u32) {
        // Saturating: a call resumed on a core whose counter lags reads as 0.
        let ticks = end.saturating_sub(self.start);
        let amounts = self.amounts;
        slab.cell(self.slot)
            .add(ticks, amounts.elements, amounts.bytes, amounts.flops);
        if parent < DETACHED {
            slab.layers.add(CHILDREN_CTX, parent, ticks);
        }
        let ctx = layer_context(amounts.layer, layer_ctx);
        let span = (self.start, end);
        attribute(slab, self.state, self.slot, amounts, ctx, span, ticks);
    }
}

impl Drop for BrickGuard {
    /// Only the inert check is inlined into the caller, so a disabled brick
    /// costs its load and this branch; recording is one out-of-line call.
    #[inline(always)]
    fn drop(&mut self) {
        if self.slot != INERT_SLOT {
            self.finish();
        }
    }
}

/// Attributes a sample `ticks` long, spanning `span` (ticks), to its layer
/// context and, in trace mode, to the thread's timeline.
#[inline(always)]
fn attribute(
    slab: &ThreadSlab,
    state: u64,
    slot: u32,
    amounts: Amounts,
    ctx: u32,
    span: (u64, u64),
    ticks: u64,
) {
    if ctx != NO_LAYER {
        slab.layers.add(ctx, slot, ticks);
    }
    if state & TIMELINE != 0 {
        slab.events.push(RawEvent::brick(
            slot,
            ctx,
            span,
            [amounts.elements, amounts.bytes, amounts.flops],
        ));
    }
}

/// The layer context a sample is attributed to: an explicit index takes the
/// direction of the enclosing scope (forward outside any).
#[inline(always)]
fn layer_context(explicit: u32, scope_ctx: u32) -> u32 {
    if explicit == NO_LAYER {
        return scope_ctx;
    }
    let direction = if scope_ctx == NO_LAYER {
        Direction::Forward
    } else {
        unpack(scope_ctx).1
    };
    pack(explicit.min(MAX_LAYER_INDEX), direction)
}

/// Records a finished sample measured elsewhere (the string API): `ticks`
/// long, starting at `start` (ticks).
pub(crate) fn record_finished(
    state: u64,
    slot: u32,
    start: u64,
    ticks: u64,
    amounts: Amounts,
    layer_ctx: u32,
) {
    with_slab(state, |slab, _| {
        slab.cell(slot)
            .add(ticks, amounts.elements, amounts.bytes, amounts.flops);
        let ctx = layer_context(amounts.layer, layer_ctx);
        let span = (start, start.saturating_add(ticks));
        attribute(slab, state, slot, amounts, ctx, span, ticks);
    });
}

/// Records a sample measured elsewhere, `ns` long, ending at `end_ticks`:
/// exact ns into the thread's measured table; layers and the timeline get
/// its tick equivalent. `device_start` (ticks), when the device said when
/// the work began, goes beside the timeline event.
pub(crate) fn record_measured(
    state: u64,
    slot: u32,
    end_ticks: u64,
    ns: u64,
    amounts: Amounts,
    layer_ctx: u32,
    device_start: Option<u64>,
) {
    with_slab(state, |slab, _| {
        slab.measured
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .entry(slot)
            .or_default()
            .add(ns, amounts);
        let ticks = crate::clock::to_ticks(ns, crate::clock::ns_per_tick());
        let ctx = layer_context(amounts.layer, layer_ctx);
        let span = (end_ticks.saturating_sub(ticks), end_ticks);
        let position = slab.events.published();
        attribute(slab, state, slot, amounts, ctx, span, ticks);
        // Only an event the buffer kept gets a mark (a full one drops it).
        if let Some(start) = device_start
            && slab.events.published() > position
        {
            slab.device_starts.push(position, start);
        }
    });
}

/// Queues a deferred record on the calling thread; a full queue counts the
/// record as overflow and releases its device events.
pub(crate) fn push_pending(state: u64, record: Pending) {
    with_slab(state, |slab, _| match pending::try_push(record) {
        Some(len) => slab
            .pending
            .store(len as u64, std::sync::atomic::Ordering::Relaxed),
        None => {
            bump(&slab.pending_overflow, 1);
            if let (Some(timer), Some((a, b))) = (state::device_timer(), record.device) {
                device::guarded(|| {
                    timer.release(a);
                    timer.release(b);
                });
            }
        }
    });
}
