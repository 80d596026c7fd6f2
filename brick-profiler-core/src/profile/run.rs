//! Facts about the run a `Profile` came from: the run's
//! identity, its clock, the profiler's own cost, hardware, threads, and the
//! sync mode bricks were timed under.

use serde::{Deserialize, Deserializer, Serialize};

use super::trace_format::TraceFormat;

use crate::clock::ClockSource;
use crate::hardware::{EarlierCeilings, Hardware};

/// When the profiler waits for the device before taking a stop timestamp.
///
/// GPU kernels return before they finish, so a CPU timestamp after a launch
/// measures the launch, not the kernel. The default, `Deferred`, costs
/// nothing on a CPU-only run: without a device timer, `#[brick]` records
/// its CPU time directly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SyncMode {
    /// Run the sync hook before every brick's stop timestamp. Accurate, slow.
    Immediate,
    /// Run the sync hook when a layer scope ends.
    PerLayer,
    /// Bricks push pending records; `finalize` after the one sync per
    /// forward pass turns them into samples. With a device timer the
    /// samples are true device time; without one, `#[brick]` calls record
    /// their CPU time directly (there is nothing to wait for), and explicit
    /// `record_deferred` calls measure launch-to-sync time.
    #[default]
    Deferred,
    /// CPU timestamps only.
    None,
}

/// Facts about the run a profile came from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// Run name (program name unless set).
    #[serde(default)]
    pub name: String,
    /// When recording started, ns since the Unix epoch (aligns the timelines
    /// of several processes or ranks); 0 when `enable()` was never called.
    #[serde(default)]
    pub started_at_unix_ns: u64,
    /// This process's rank in a distributed run (`Config::rank`, or the
    /// launcher's variables); `None` in a single-process run.
    #[serde(default)]
    pub rank: Option<u32>,
    /// Number of ranks in the run; `None` in a single-process run.
    #[serde(default)]
    pub world_size: Option<u32>,
    /// This process's rank on its host, when the launcher says.
    #[serde(default)]
    pub local_rank: Option<u32>,
    /// Id shared by every rank of the run (see `profiler::rank_identity`).
    #[serde(default)]
    pub run_id: String,
    /// Wall time from the first `enable()` to the snapshot, ns.
    #[serde(default)]
    pub wall_ns: u64,
    /// Host name, if known.
    #[serde(default)]
    pub host: String,
    /// Process id.
    #[serde(default)]
    pub pid: u32,
    /// Threads that recorded since the last reset.
    #[serde(default)]
    pub threads_seen: u32,
    /// Sync mode at snapshot time.
    #[serde(default)]
    pub sync_mode: SyncMode,
    /// Whether a device timer was installed.
    #[serde(default)]
    pub device_timer: bool,
    /// The timeline file(s) the run's reports write (`Config::trace_format`);
    /// left out of the file when it is the default, JSON.
    #[serde(default, skip_serializing_if = "TraceFormat::is_default")]
    pub trace_format: TraceFormat,
    /// How long device-timed bricks waited between their host launch and
    /// their device start; `None` when the timer gave no device starts
    /// (and in files written before this was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch_gap: Option<LaunchGap>,
    /// Clock behind the timestamps.
    #[serde(default)]
    pub clock: ClockInfo,
    /// Measured cost of the profiler itself, when calibrated.
    #[serde(default)]
    pub overhead: Option<Overhead>,
    /// Hardware the run used, when known (`Config::hardware`): the one
    /// model reports judge against, measured figures with how the probes
    /// measured them. Profiles written before it held a [`Hardware`]
    /// recorded a name, a bandwidth, a dense peak and the bytes a token
    /// moves; those read as a [`Hardware`] whose figures are marked
    /// [`Source::Profile`](crate::hardware::Source::Profile). Profiles
    /// written before schema 1.4 kept the probes' ceilings beside it, in
    /// `measured_ceilings`: those are read into it too.
    #[serde(default, deserialize_with = "crate::hardware::recorded_hardware")]
    pub hardware: Option<Hardware>,
    /// L2 cache hit rate in `[0, 1]`, when measured.
    #[serde(default)]
    pub l2_cache_hit_rate: Option<f32>,
    /// Whether zero-copy transfers were used.
    #[serde(default)]
    pub zero_copy: bool,
    /// Caveats a reader must know (e.g. overhead subtracted).
    #[serde(default)]
    pub notes: Vec<String>,
    /// Whether the program was built with instrumentation compiled out (the
    /// `off` feature): then nothing is ever recorded.
    #[serde(default)]
    pub compiled_out: bool,
}

/// Reads a profile's `run`, with the ceilings a profile of a schema
/// before 1.4 kept in `run.measured_ceilings` moved into `run.hardware`
/// (the figures `run.hardware` recorded stand where both have one).
pub(super) fn read_run<'de, D: Deserializer<'de>>(d: D) -> Result<RunInfo, D::Error> {
    #[derive(Deserialize)]
    struct Stored {
        #[serde(flatten)]
        run: RunInfo,
        #[serde(default)]
        measured_ceilings: Option<EarlierCeilings>,
    }
    let Stored {
        mut run,
        measured_ceilings,
    } = Stored::deserialize(d)?;
    if let Some(earlier) = measured_ceilings {
        run.hardware = Some(earlier.into_hardware(run.hardware.take()));
    }
    Ok(run)
}

/// Queueing delay of device-timed bricks: device start minus host launch,
/// both on the host clock (a device start a little before the launch
/// timestamp counts as 0). Large gaps mean the host runs ahead of the
/// device; gaps near 0 with idle time on the device mean it waits for
/// launches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct LaunchGap {
    /// Bricks whose device start was known.
    pub bricks: u64,
    /// Sum of their gaps, ns.
    pub total_ns: u64,
    /// Mean gap, ns.
    pub mean_ns: f64,
    /// Longest gap, ns.
    pub max_ns: u64,
}

/// The clock behind a profile's timestamps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ClockInfo {
    /// Counter used.
    pub source: ClockSource,
    /// Calibrated nanoseconds per tick.
    pub ns_per_tick: f64,
}

/// The profiler's own per-call cost, measured at run time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Overhead {
    /// Time an enabled `#[brick]` adds to its caller, ns per call.
    pub per_call_ns: f64,
    /// Time an empty brick records as its own duration, ns: the bias in every
    /// sample, and what subtraction removes.
    pub floor_ns: f64,
    /// Whether `floor_ns` was subtracted from every sample in this profile.
    pub subtracted: bool,
}

/// A thread that recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadInfo {
    /// Dense thread number, 1-based in registration order.
    pub thread: u32,
    /// Thread name, if it had one.
    #[serde(default)]
    pub name: Option<String>,
    /// Whether the thread had exited by the snapshot.
    #[serde(default)]
    pub exited: bool,
}
