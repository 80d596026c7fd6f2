//! [`WgpuTimer`]: brick times from GPU timestamp queries written at the
//! beginning and end of compute passes, resolved and read back
//! asynchronously, scaled by the queue's timestamp period, and placed on
//! the host clock through anchors.

mod anchors;
mod chunks;
mod ledger;
mod open;
mod stats;

use std::cell::Cell;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use profiler_core::sync::{DeviceEvent, DeviceTimer};
use wgpu::{CommandEncoder, ComputePassTimestampWrites, Device, Features, PollType, Queue};

use self::anchors::ClockAnchors;
use self::chunks::{Chunks, PAIRS_PER_CHUNK, Pair};
use self::ledger::{Ledger, Span, Time};
pub use self::open::{INSTALL_HINT, TimedDevice};
pub use self::stats::WgpuStats;
use self::stats::wgpu_notes;
use crate::error::DeviceError;

/// Default number of timestamp pairs (passes) kept before `finalize`.
pub const DEFAULT_PAIR_CAPACITY: usize = 32 * PAIRS_PER_CHUNK as usize;

/// The longest `finalize` waits for a read-back before giving up on it
/// (those bricks then fall back to launch-to-sync time, counted).
pub const READBACK_TIMEOUT: Duration = Duration::from_secs(10);

struct Inner {
    ledger: Ledger,
    chunks: Chunks,
    stats: WgpuStats,
    anchors: ClockAnchors,
}

/// A [`DeviceTimer`] over wgpu timestamp queries. A brick's device time is
/// the sum of the compute passes its thread timed between the brick's start
/// and end: pass [`WgpuTimer::pass_writes`] as a compute pass's
/// `timestamp_writes`, or wrap encoder commands in [`WgpuTimer::time_encoder`].
///
/// Read-backs are queued behind the user's work and mapped asynchronously;
/// [`WgpuTimer::collect`] starts them without waiting, and `finalize`
/// (called after the user's sync) reads what arrived, waiting at most
/// [`READBACK_TIMEOUT`] for the rest. Every pass handed timestamp writes
/// must be submitted before `collect` or `finalize`: resolving a query
/// that is never written waits on the device.
///
/// Device starts: a brick starts where its thread's first timed pass
/// began. The GPU's timestamps are placed on the host clock by an anchor:
/// no pass begins before its submit (announced with
/// [`WgpuTimer::submitting`], else the time its writes were handed out), so
/// the anchor is set by the pass that began soonest after its submit (a
/// pass submitted to an idle queue, whenever there is one), and a new one
/// starts about once a second (`REANCHOR_NS`). Device starts may
/// thus read early by that pass's submit-to-start latency (plus its
/// encoding, without `submitted`), never late: a brick's device start is
/// never before its own pass was handed out.
///
/// ```no_run
/// # fn demo(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<(), profiler_device::DeviceError> {
/// use profiler_device::wgpu::WgpuTimer;
/// let timer = WgpuTimer::new(device, queue)?;
/// let mut encoder = device.create_command_encoder(&Default::default());
/// {
///     let stamps = timer.pass_writes();
///     let pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
///         label: Some("matmul"),
///         timestamp_writes: stamps.as_ref().map(|s| s.writes()),
///     });
///     // ... set the pipeline, dispatch ...
/// }
/// queue.submit([encoder.finish()]);
/// # Ok(()) }
/// ```
///
/// Clones share one timer: install one with `Config::device_timer` and
/// keep another to hand out timestamp writes.
#[derive(Clone)]
pub struct WgpuTimer {
    device: Device,
    queue: Queue,
    ns_per_tick: f64,
    inside_encoders: bool,
    inner: Arc<Mutex<Inner>>,
}

impl std::fmt::Debug for WgpuTimer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WgpuTimer")
            .field("ns_per_tick", &self.ns_per_tick)
            .field("inside_encoders", &self.inside_encoders)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

/// The timestamp writes of one compute pass, from [`WgpuTimer::pass_writes`].
#[derive(Debug, Clone)]
pub struct PassStamps {
    pair: Pair,
}

impl PassStamps {
    /// The writes to pass as `ComputePassDescriptor::timestamp_writes`.
    pub fn writes(&self) -> ComputePassTimestampWrites<'_> {
        ComputePassTimestampWrites {
            query_set: &self.pair.set,
            beginning_of_pass_write_index: Some(self.pair.index),
            end_of_pass_write_index: Some(self.pair.index + 1),
        }
    }
}

/// A small per-thread key, so a brick counts only its own thread's passes.
fn thread_key() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    thread_local! {
        static KEY: Cell<u32> = const { Cell::new(0) };
    }
    KEY.with(|k| {
        if k.get() == 0 {
            k.set(NEXT.fetch_add(1, Relaxed) & 0x00FF_FFFF);
        }
        k.get()
    })
}

impl WgpuTimer {
    /// A timer for `device`, which must have been created with
    /// `Features::TIMESTAMP_QUERY` (and, for [`WgpuTimer::time_encoder`],
    /// `TIMESTAMP_QUERY_INSIDE_ENCODERS`).
    pub fn new(device: &Device, queue: &Queue) -> Result<Self, DeviceError> {
        Self::with_capacity(device, queue, DEFAULT_PAIR_CAPACITY)
    }

    /// [`WgpuTimer::new`] keeping at most `pairs` timestamp pairs before
    /// `finalize` (rounded up to whole query sets of 2048 pairs).
    pub fn with_capacity(
        device: &Device,
        queue: &Queue,
        pairs: usize,
    ) -> Result<Self, DeviceError> {
        if !device.features().contains(Features::TIMESTAMP_QUERY) {
            return Err(DeviceError::MissingFeature {
                feature: "TIMESTAMP_QUERY",
            });
        }
        let per_chunk = PAIRS_PER_CHUNK as usize;
        let chunks = pairs.max(1).div_ceil(per_chunk);
        Ok(Self {
            device: device.clone(),
            queue: queue.clone(),
            ns_per_tick: f64::from(queue.get_timestamp_period()),
            inside_encoders: device
                .features()
                .contains(Features::TIMESTAMP_QUERY_INSIDE_ENCODERS),
            inner: Arc::new(Mutex::new(Inner {
                ledger: Ledger::new(chunks * per_chunk),
                // One chunk more than the pairs need: a chunk being read
                // back must not stop new pairs.
                chunks: Chunks::new(chunks + 1),
                stats: WgpuStats::default(),
                anchors: ClockAnchors::default(),
            })),
        })
    }

    /// Nanoseconds per timestamp tick, from the queue.
    pub fn ns_per_tick(&self) -> f64 {
        self.ns_per_tick
    }

    /// What the timer did so far.
    pub fn stats(&self) -> WgpuStats {
        let inner = self.lock();
        WgpuStats {
            expired: inner.ledger.expired,
            query_sets: inner.chunks.created() as u64,
            anchors: inner.anchors.taken,
            ..inner.stats
        }
    }

    // Every update of the state is one step after the wgpu call it
    // follows, so a poisoned lock still holds consistent state.
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn take_pair(&self) -> Option<Pair> {
        let mut inner = self.lock();
        let inner = &mut *inner;
        let pair = inner
            .ledger
            .make_room()
            .then(|| inner.chunks.take(&self.device, inner.ledger.next()))
            .flatten();
        match pair {
            Some(pair) => {
                let seq = inner.ledger.push(thread_key());
                let now = profiler_core::sync::host_now_ns();
                inner.anchors.handed(seq, now);
                inner.stats.pairs += 1;
                Some(pair)
            }
            None => {
                inner.stats.dropped += 1;
                None
            }
        }
    }

    /// Timestamp writes for the next compute pass on this thread, or `None`
    /// (counted) when every query set waits for `finalize`.
    pub fn pass_writes(&self) -> Option<PassStamps> {
        self.take_pair().map(|pair| PassStamps { pair })
    }

    /// Runs `f` with timestamps written into `encoder` before and after the
    /// commands it records, where the device has
    /// `TIMESTAMP_QUERY_INSIDE_ENCODERS`; elsewhere runs it untimed (counted).
    pub fn time_encoder<R>(
        &self,
        encoder: &mut CommandEncoder,
        f: impl FnOnce(&mut CommandEncoder) -> R,
    ) -> R {
        let pair = if self.inside_encoders {
            self.take_pair()
        } else {
            self.lock().stats.untimed_spans += 1;
            None
        };
        if let Some(pair) = &pair {
            encoder.write_timestamp(&pair.set, pair.index);
        }
        let result = f(encoder);
        if let Some(pair) = &pair {
            encoder.write_timestamp(&pair.set, pair.index + 1);
        }
        result
    }

    /// Announces a submit of the timed passes handed out so far: call it
    /// right before `queue.submit` (not after: a submit may run the work
    /// before it returns). None of them begins before now, a tighter bound
    /// for the anchor than their hand-out (see the type's docs). Optional;
    /// cheap (a lock).
    pub fn submitting(&self) {
        let now = profiler_core::sync::host_now_ns();
        self.lock().anchors.submitted(now);
    }

    /// Queues the read-back of every pair handed out so far and reads what
    /// has already arrived, without waiting. Call after submitting the
    /// passes; `finalize` does the rest.
    pub fn collect(&self) {
        self.read_back(PollType::Poll);
    }

    /// Submits the read-back of the pairs handed out, polls the device and
    /// reads what arrived. wgpu runs other callbacks (the user's) while
    /// submitting and polling, so the lock is not held then.
    fn read_back(&self, poll: PollType) {
        let sealed = self.lock().chunks.seal(&self.device);
        if let Some(sealed) = sealed {
            let submitted = sealed.submit(&self.queue);
            self.lock().chunks.accept(submitted);
        }
        // A failed poll (a lost device, a timeout) leaves pairs unread;
        // their bricks then fall back to launch-to-sync time, counted.
        let failed = self.device.poll(poll).is_err();
        let mut inner = self.lock();
        inner.stats.timeouts += u64::from(failed);
        let Inner {
            ledger,
            chunks,
            stats,
            anchors,
        } = &mut *inner;
        chunks.harvest(self.ns_per_tick, |seq, time, begin| {
            stats.read += 1;
            if time == Time::Unusable {
                stats.unusable += 1;
            }
            anchors.read(seq, begin, self.ns_per_tick);
            ledger.set(seq, time, begin);
        });
        anchors.prune(ledger.first());
    }

    /// Waits at most [`READBACK_TIMEOUT`] for the pairs handed out so far.
    fn wait_for_pairs(&self) {
        self.read_back(PollType::Poll);
        let Some(index) = self.lock().chunks.last_submission() else {
            return;
        };
        self.read_back(PollType::Wait {
            submission_index: Some(index),
            timeout: Some(READBACK_TIMEOUT),
        });
    }
}

impl DeviceTimer for WgpuTimer {
    fn record_event(&self) -> DeviceEvent {
        self.lock().ledger.open(thread_key())
    }

    fn elapsed_ns(&self, start: DeviceEvent, end: DeviceEvent) -> Option<u64> {
        let mut span = self.lock().ledger.span(start, end);
        if span == Span::Unread {
            self.wait_for_pairs();
            span = self.lock().ledger.span(start, end);
        }
        let mut inner = self.lock();
        match span {
            Span::Read { ns, passes } if passes > 0 => Some(ns),
            Span::Read { .. } => {
                inner.stats.no_pass += 1;
                None
            }
            Span::Unread | Span::Gone => None,
        }
    }

    fn host_time_ns(&self, event: DeviceEvent) -> Option<u64> {
        let inner = self.lock();
        let (seq, ticks) = inner.ledger.first_begin(event)?;
        inner.anchors.host_ns(seq, ticks, self.ns_per_tick)
    }

    fn release(&self, event: DeviceEvent) {
        self.lock().ledger.close(event);
    }

    fn notes(&self) -> Vec<String> {
        wgpu_notes(&self.stats())
    }
}
