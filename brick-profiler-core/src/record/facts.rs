//! Run facts: what the user set (name, rank, hardware, labels) or the
//! profiler measured once (its own cost, the run's start), kept beside the
//! per-thread counters and reported in every profile.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{LazyLock, Mutex, MutexGuard, PoisonError};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use crate::catalogue::BrickBottleneck;
use crate::hardware::Hardware;
use crate::profile::{Overhead, TraceFormat};

/// Facts set by the user or measured once.
#[derive(Default)]
pub(crate) struct RunFacts {
    pub(crate) name: Option<String>,
    pub(crate) hardware: Option<Hardware>,
    pub(crate) l2_cache_hit_rate: Option<f32>,
    pub(crate) zero_copy: bool,
    /// When recording (re)started: Unix ns, counter ticks, `Instant`.
    pub(crate) started: Option<Started>,
    /// Bottleneck labels by slot (string API).
    pub(crate) bottlenecks: HashMap<u32, BrickBottleneck>,
    /// Compressed bytes by slot (`record_elapsed_with_bytes`): that API
    /// takes a lock per call anyway, and keeping them here keeps the cell
    /// header in one cache line.
    pub(crate) compressed: HashMap<u32, u64>,
    pub(crate) overhead: Option<Measured>,
    pub(crate) subtract_overhead: bool,
    pub(crate) rank: Option<u32>,
    pub(crate) world_size: Option<u32>,
    pub(crate) run_id: Option<String>,
    pub(crate) trace_format: TraceFormat,
}

/// The moment recording (re)started, on every clock a profile needs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Started {
    pub(crate) unix_ns: u64,
    pub(crate) ticks: u64,
    pub(crate) instant: Instant,
}

/// A calibration of the profiler's own cost, in the units a snapshot needs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Measured {
    pub(crate) per_call_ns: f64,
    pub(crate) floor_ticks: u64,
    pub(crate) floor_ns: f64,
}

impl Measured {
    /// The calibration as a profile reports it.
    pub(crate) fn report(self, subtracted: bool) -> Overhead {
        Overhead {
            per_call_ns: self.per_call_ns,
            floor_ns: self.floor_ns,
            subtracted,
        }
    }
}

static RUN: LazyLock<Mutex<RunFacts>> = LazyLock::new(Mutex::default);

/// Locks the run facts. Writers replace whole fields, so a poisoned lock
/// still guards consistent data.
pub(crate) fn run_facts() -> MutexGuard<'static, RunFacts> {
    RUN.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Counter value when recording (re)started: time zero of timelines and
/// trace entries, readable without a lock.
static ORIGIN_TICKS: AtomicU64 = AtomicU64::new(0);

/// Counter value of the run's start.
pub(crate) fn origin_ticks() -> u64 {
    ORIGIN_TICKS.load(Relaxed)
}

impl RunFacts {
    /// Makes "now" the run's start.
    pub(crate) fn mark_start(&mut self) {
        let unix_ns = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
        let ticks = crate::clock::now(crate::clock::init());
        ORIGIN_TICKS.store(ticks, Relaxed);
        self.started = Some(Started {
            unix_ns,
            ticks,
            instant: Instant::now(),
        });
    }
}
