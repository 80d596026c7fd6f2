//! The global profiler state: one word every annotated call reads with a
//! single relaxed load, and the settings it is derived from.
//!
//! Bits of [`STATE`]: on/off switch, schedule pause, which clock, whether the
//! stop side needs the slow path (sync hook, device timer, execution graph),
//! whether trace mode and tile profiling are on, and in
//! the high half the reset generation. Writers hold [`SETTINGS`] and publish
//! a whole new word, so the hot path never sees a half-applied change.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{
    AtomicBool, AtomicPtr, AtomicU8, AtomicU64, Ordering::Acquire, Ordering::Relaxed,
    Ordering::Release,
};
use std::sync::{Mutex, MutexGuard, PoisonError};

use super::device::DeviceTimer;
use crate::profile::SyncMode;

/// Recording switched on by the user.
pub(crate) const ENABLED: u64 = 1 << 0;
/// Recording paused by the step schedule (wait/warm-up steps).
pub(crate) const PAUSED: u64 = 1 << 1;
/// Timestamps come from the raw counter, not `Instant`.
pub(crate) const RAW_CLOCK: u64 = 1 << 2;
/// Immediate mode with a sync hook: run it before every stop timestamp.
pub(crate) const SYNC_EACH: u64 = 1 << 3;
/// Deferred mode with a device timer: bricks record device events.
pub(crate) const DEVICE_EVENTS: u64 = 1 << 4;
/// Timeline (trace mode) on: bricks also append an event.
pub(crate) const TIMELINE: u64 = 1 << 5;
/// Tile profiling on: `start_tile` reads the clock.
pub(crate) const TILES: u64 = 1 << 6;
/// The execution graph on: bricks, layers and steps add nodes.
pub(crate) const GRAPH: u64 = 1 << 7;
/// A tracking allocator has charged memory: bricks and steps take memory
/// marks (their slow paths).
pub(crate) const MEMORY: u64 = 1 << 8;
/// The reset generation lives in the high 32 bits.
pub(crate) const GENERATION_SHIFT: u32 = 32;

/// The word read by every annotated call.
pub(crate) static STATE: AtomicU64 = AtomicU64::new(0);

/// Reads the state word (one relaxed load).
#[inline(always)]
pub(crate) fn load() -> u64 {
    STATE.load(Relaxed)
}

/// Whether a state word allows recording.
#[inline(always)]
pub(crate) const fn is_recording(state: u64) -> bool {
    cfg!(not(feature = "off")) && state & (ENABLED | PAUSED) == ENABLED
}

/// The reset generation of a state word.
#[inline(always)]
pub(crate) const fn generation(state: u64) -> u32 {
    (state >> GENERATION_SHIFT) as u32
}

/// Set once a tracking allocator (or a device allocator) has charged memory.
pub(crate) static MEMORY_TRACKED: AtomicBool = AtomicBool::new(false);

/// Sets the [`MEMORY`] bit: called by the first charge while recording. A
/// concurrent `publish` may drop the bit again; the next charge restores it,
/// since `publish` reads [`MEMORY_TRACKED`] afterwards.
#[cold]
#[inline(never)]
pub(crate) fn announce_memory() {
    MEMORY_TRACKED.store(true, Relaxed);
    STATE.fetch_or(MEMORY, Release);
}

/// A user callback that waits for the device (e.g. a stream synchronize).
pub(crate) type SyncHook = dyn Fn() + Send + Sync;

/// What the user configured; [`STATE`] is derived from it.
pub(crate) struct Settings {
    pub(crate) enabled: bool,
    pub(crate) paused: bool,
    pub(crate) timeline: bool,
    pub(crate) tiles: bool,
    pub(crate) graph: bool,
    pub(crate) sync_mode: SyncMode,
    /// Leaked on purpose: in-flight guards may still call a replaced hook.
    pub(crate) sync_hook: Option<&'static SyncHook>,
    /// Leaked on purpose, for the same reason as `sync_hook`.
    pub(crate) device_timer: Option<&'static dyn DeviceTimer>,
    pub(crate) generation: u32,
}

pub(crate) static SETTINGS: Mutex<Settings> = Mutex::new(Settings {
    enabled: false,
    paused: false,
    timeline: false,
    tiles: false,
    graph: false,
    sync_mode: SyncMode::Deferred,
    sync_hook: None,
    device_timer: None,
    generation: 0,
});

/// Locks the settings. A panic while they were held cannot leave them
/// inconsistent (every writer publishes at the end), so poisoning is ignored.
pub(crate) fn settings() -> MutexGuard<'static, Settings> {
    SETTINGS.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Settings {
    /// Recomputes and publishes the state word.
    pub(crate) fn publish(&self) {
        let raw = crate::clock::init();
        MODE.store(self.sync_mode as u8, Relaxed);
        let mut word = u64::from(self.generation) << GENERATION_SHIFT;
        let flags = [
            (self.enabled && cfg!(not(feature = "off")), ENABLED),
            (self.paused, PAUSED),
            (raw, RAW_CLOCK),
            (
                self.sync_mode == SyncMode::Immediate && self.sync_hook.is_some(),
                SYNC_EACH,
            ),
            (
                self.sync_mode == SyncMode::Deferred && self.device_timer.is_some(),
                DEVICE_EVENTS,
            ),
            (self.timeline, TIMELINE),
            (self.tiles, TILES),
            (self.graph, GRAPH),
            (MEMORY_TRACKED.load(Relaxed), MEMORY),
        ];
        for (on, bit) in flags {
            if on {
                word |= bit;
            }
        }
        STATE.store(word, Release);
    }
}

// Lock-free copies of the hook and timer for the recording side. Each points
// at a leaked `&'static` (a thin pointer to a fat one); null when unset.
static HOOK: AtomicPtr<&'static SyncHook> = AtomicPtr::new(std::ptr::null_mut());
static TIMER: AtomicPtr<&'static dyn DeviceTimer> = AtomicPtr::new(std::ptr::null_mut());

fn leak_ptr<T: ?Sized>(value: Option<&'static T>) -> *mut &'static T {
    value.map_or(std::ptr::null_mut(), |v| Box::into_raw(Box::new(v)))
}

/// Installs (or clears) the sync hook and device timer for the recording
/// side; called only when one of them changes (each call leaks two words).
pub(crate) fn publish_callbacks(settings: &Settings) {
    HOOK.store(leak_ptr(settings.sync_hook), Release);
    TIMER.store(leak_ptr(settings.device_timer), Release);
}

/// The installed sync hook, if any (one acquire load, no lock).
#[inline]
pub(crate) fn sync_hook() -> Option<&'static SyncHook> {
    // SAFETY: non-null values come from `Box::into_raw` in `publish_callbacks`
    // and are never freed, so the pointee lives for the rest of the program.
    unsafe { HOOK.load(Acquire).as_ref().copied() }
}

/// The installed device timer, if any (one acquire load, no lock).
#[inline]
pub(crate) fn device_timer() -> Option<&'static dyn DeviceTimer> {
    // SAFETY: as for `sync_hook`: leaked boxes, never freed.
    unsafe { TIMER.load(Acquire).as_ref().copied() }
}

/// The sync mode, readable without the settings lock.
static MODE: AtomicU8 = AtomicU8::new(SyncMode::Deferred as u8);

/// The current sync mode (one relaxed load).
pub(crate) fn sync_mode() -> SyncMode {
    match MODE.load(Relaxed) {
        0 => SyncMode::Immediate,
        1 => SyncMode::PerLayer,
        2 => SyncMode::Deferred,
        _ => SyncMode::None,
    }
}

/// Sync hook calls that panicked.
pub(crate) static HOOK_PANICS: AtomicU64 = AtomicU64::new(0);

/// Runs the sync hook, if any, containing a panic.
#[cold]
pub(crate) fn run_sync_hook() {
    if let Some(hook) = sync_hook()
        && catch_unwind(AssertUnwindSafe(hook)).is_err()
    {
        HOOK_PANICS.fetch_add(1, Relaxed);
    }
}
