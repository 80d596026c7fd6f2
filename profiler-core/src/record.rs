//! The recording hot path: what an annotated call runs.
//!
//! `recording()` is one relaxed load. While enabled, `enter` reads the clock
//! and returns a [`BrickGuard`]; its `Drop` reads the clock again and adds
//! the sample to the calling thread's slab with plain loads and stores: no
//! lock, no string work, and no allocation except the first time a thread
//! touches a group of 16 bricks or a new (layer, brick) pair grows its layer
//! table (amortised, once per key). Sync hooks and device events take a
//! separate cold path.

use crate::layers::{self, NO_LAYER};
use crate::site::BrickSite;
use crate::slab::{ThreadSlab, with_slab};
use crate::state::{self, DEVICE_EVENTS, RAW_CLOCK, SYNC_EACH, TIMELINE};
use crate::sync::{DeviceEvent, Pending};
use crate::timeline::EventKind;

/// Per-call amounts given to `#[brick(..., elements = e, bytes = b, flops = f, layer = l)]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Amounts {
    /// Elements (tokens, rows, ...) processed.
    pub elements: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// Floating-point operations performed.
    pub flops: u64,
    /// Explicit layer index, or `u32::MAX` for "the enclosing layer scope".
    pub layer: u32,
}

impl Amounts {
    /// No amounts, no explicit layer.
    pub const NONE: Amounts = Amounts {
        elements: 0,
        bytes: 0,
        flops: 0,
        layer: NO_LAYER,
    };
}

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
    /// Records under an explicit state word (overhead calibration).
    pub(crate) const fn from_state(state: u64) -> Self {
        Self(state)
    }

    /// Starts timing a call of the brick at `site`.
    #[inline(always)]
    pub fn enter(self, site: &'static BrickSite, amounts: Amounts) -> BrickGuard {
        self.enter_slot(site.slot(), amounts)
    }

    #[inline(always)]
    pub(crate) fn enter_slot(self, slot: u32, amounts: Amounts) -> BrickGuard {
        let state = self.0;
        // With a device timer, `start` holds the deferred time base (exact ns
        // since the epoch) instead of ticks: the record is resolved in ns.
        let (device, start) = if state & DEVICE_EVENTS != 0 {
            device_start(state)
        } else {
            (None, crate::clock::now(state & RAW_CLOCK != 0))
        };
        BrickGuard {
            start,
            state,
            slot,
            amounts,
            device,
        }
    }
}

/// A device start event and the start in the deferred time base, or no
/// event and a tick start when the timer was removed meanwhile.
#[cold]
#[inline(never)]
fn device_start(state: u64) -> (Option<DeviceEvent>, u64) {
    match state::device_timer() {
        Some(timer) => (Some(timer.record_event()), crate::sync::elapsed_ns()),
        None => (None, crate::clock::now(state & RAW_CLOCK != 0)),
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
    amounts: Amounts,
    device: Option<DeviceEvent>,
}

impl BrickGuard {
    /// A guard that records nothing (recording was off).
    pub const INERT: BrickGuard = BrickGuard {
        start: 0,
        state: 0,
        slot: INERT_SLOT,
        amounts: Amounts::NONE,
        device: None,
    };

    #[cold]
    #[inline(never)]
    fn finish_slow(&mut self) {
        if self.state & SYNC_EACH != 0 {
            crate::sync::run_sync_hook();
        }
        let end = crate::clock::now(self.state & RAW_CLOCK != 0);
        if let (Some(start_event), Some(timer)) = (self.device, state::device_timer()) {
            let end_event = timer.record_event();
            let pending = Pending {
                slot: self.slot,
                start_ns: self.start,
                amounts: self.amounts,
                layer: crate::slab::current_layer(),
                device: Some((start_event, end_event)),
            };
            crate::sync::push_pending(self.state, pending);
            return;
        }
        let layer = crate::slab::current_layer();
        record_finished(
            state::load(),
            self.slot,
            self.start,
            end.saturating_sub(self.start),
            self.amounts,
            layer,
        );
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

impl BrickGuard {
    #[inline(never)]
    fn finish(&mut self) {
        if self.state & (SYNC_EACH | DEVICE_EVENTS) != 0 {
            return self.finish_slow();
        }
        let end = crate::clock::now(self.state & RAW_CLOCK != 0);
        // Saturating: a call resumed on a core whose counter lags reads as 0.
        let ticks = end.saturating_sub(self.start);
        let (slot, start, amounts, state) = (self.slot, self.start, self.amounts, self.state);
        with_slab(state, |slab, layer_ctx| {
            slab.cell(slot)
                .add(ticks, amounts.elements, amounts.bytes, amounts.flops);
            let ctx = layer_context(amounts.layer, layer_ctx);
            attribute(slab, state, slot, ctx, (start, end), ticks);
        });
    }
}

/// Attributes a sample `ticks` long, spanning `span` (ticks), to its layer
/// context and, in trace mode, to the thread's timeline.
#[inline(always)]
fn attribute(slab: &ThreadSlab, state: u64, slot: u32, ctx: u32, span: (u64, u64), ticks: u64) {
    if ctx != NO_LAYER {
        slab.layers.add(ctx, slot, ticks);
    }
    if state & TIMELINE != 0 {
        slab.events
            .push(EventKind::Brick, u64::from(slot), span.0, span.1);
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
        layers::Direction::Forward
    } else {
        layers::unpack(scope_ctx).1
    };
    layers::pack(explicit.min(layers::MAX_LAYER_INDEX), direction)
}

/// Records a finished sample measured elsewhere (deferred records, the
/// string API): `ticks` long, starting at `start` (ticks).
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
        attribute(slab, state, slot, ctx, span, ticks);
    });
}

/// Records a sample measured elsewhere, `ns` long, ending at `end_ticks`:
/// exact ns into the thread's measured table; layers and the timeline get
/// its tick equivalent.
pub(crate) fn record_measured(
    state: u64,
    slot: u32,
    end_ticks: u64,
    ns: u64,
    amounts: Amounts,
    layer_ctx: u32,
) {
    with_slab(state, |slab, _| {
        let mut measured = slab
            .measured
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        measured.entry(slot).or_default().add(ns, amounts);
        drop(measured);
        let ticks = crate::clock::to_ticks(ns, crate::clock::ns_per_tick_cached());
        let ctx = layer_context(amounts.layer, layer_ctx);
        let span = (end_ticks.saturating_sub(ticks), end_ticks);
        attribute(slab, state, slot, ctx, span, ticks);
    });
}

/// Adds compressed bytes to a slot (string API `record_elapsed_with_bytes`).
pub(crate) fn add_compressed(slot: u32, bytes: u64) {
    let mut table = crate::slab::COMPRESSED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let total = table.entry(slot).or_default();
    *total = total.saturating_add(bytes);
}

/// A per-call amount (`elements`, `bytes`, `flops`): an integer or a float.
/// Negative values and NaN count as 0; huge values saturate.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a count: `elements`, `bytes` and `flops` take an integer or a float",
    label = "expected an integer or a float"
)]
pub trait IntoCount {
    /// The amount as `u64`.
    fn into_count(self) -> u64;
}

macro_rules! integer_counts {
    ($($t:ty),*) => {$(
        impl IntoCount for $t {
            #[inline(always)]
            fn into_count(self) -> u64 {
                // `max(0)` is a no-op for unsigned types, clamps signed ones.
                u64::try_from(self.max(0)).unwrap_or(u64::MAX)
            }
        }
    )*};
}
// Signed types too, so that a literal (`elements = 4`, an `i32` by default) works.
integer_counts!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize
);

impl IntoCount for f64 {
    #[inline(always)]
    fn into_count(self) -> u64 {
        // `as` maps NaN to 0 and saturates out-of-range values.
        self as u64
    }
}

impl IntoCount for f32 {
    #[inline(always)]
    fn into_count(self) -> u64 {
        self as u64
    }
}

/// A layer index (for `#[brick(..., layer = i)]` and [`layer`](crate::layer)):
/// an integer. Indices saturate at [`MAX_LAYER_INDEX`](crate::MAX_LAYER_INDEX);
/// a negative index, always a bug, is recorded under that largest index so it
/// stands out in reports instead of merging into layer 0.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a layer index: `layer` takes an integer",
    label = "expected an integer"
)]
pub trait IntoLayerIndex {
    /// The index as `u32`, saturating at the largest layer index.
    fn into_layer_index(self) -> u32;
}

macro_rules! layer_indices {
    ($($t:ty),*) => {$(
        impl IntoLayerIndex for $t {
            #[inline(always)]
            fn into_layer_index(self) -> u32 {
                // A negative index fails the conversion and lands on the largest.
                u32::try_from(self).unwrap_or(u32::MAX).min(layers::MAX_LAYER_INDEX)
            }
        }
    )*};
}
// Signed types too, so that a literal (`layer(2, ..)`, an `i32` by default) works.
layer_indices!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_saturate_and_clamp_negatives() {
        assert_eq!(7usize.into_count(), 7);
        assert_eq!((-3i32).into_count(), 0);
        assert_eq!(u128::MAX.into_count(), u64::MAX);
        assert_eq!(f64::NAN.into_count(), 0);
        assert_eq!((-1.5f32).into_count(), 0);
        assert_eq!(2.9f64.into_count(), 2);
    }

    #[test]
    fn layer_indices_saturate_and_negatives_stand_out() {
        assert_eq!(5i32.into_layer_index(), 5);
        assert_eq!(5usize.into_layer_index(), 5);
        assert_eq!((-1i64).into_layer_index(), layers::MAX_LAYER_INDEX);
        assert_eq!(u64::MAX.into_layer_index(), layers::MAX_LAYER_INDEX);
    }
}
