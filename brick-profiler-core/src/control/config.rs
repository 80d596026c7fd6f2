//! [`Config`]: every setting of the global profiler in one builder. Only
//! the settings a `Config` names change when it is applied; the others keep
//! their current value.

use std::fmt;

use super::switch;
use crate::context::step;
use crate::hardware::Hardware;
use crate::profile::{Schedule, SyncMode, TraceFormat};
use crate::record::device::DeviceTimer;
use crate::record::facts::run_facts;
use crate::record::state::{self, SyncHook};
use crate::record::{entries, events};

/// Settings of the global profiler, applied together.
///
/// ```
/// # use profiler_core as profiler;
/// use profiler::Schedule;
/// profiler::Config::new()
///     .run_name("train")
///     .trace_mode(true)
///     .schedule(Schedule::skip_warmup(3))
///     .enable();
/// # profiler::Config::new().trace_mode(false).schedule(None).apply();
/// # profiler::disable();
/// ```
#[must_use = "a Config changes nothing until `apply()` or `enable()`"]
#[derive(Default)]
pub struct Config {
    run_name: Option<String>,
    rank: Option<(u32, u32)>,
    run_id: Option<String>,
    trace_mode: Option<bool>,
    tile_profiling: Option<bool>,
    execution_graph: Option<bool>,
    trace_capacity: Option<usize>,
    trace_process_capacity: Option<usize>,
    trace_entry_capacity: Option<usize>,
    trace_entry_process_capacity: Option<usize>,
    schedule: Option<Option<Schedule>>,
    sync_mode: Option<SyncMode>,
    sync_hook: Option<Option<Box<SyncHook>>>,
    device_timer: Option<Option<Box<dyn DeviceTimer>>>,
    pending_capacity: Option<usize>,
    hardware: Option<Option<Hardware>>,
    l2_cache_hit_rate: Option<f32>,
    zero_copy: Option<bool>,
    subtract_overhead: Option<bool>,
    trace_format: Option<TraceFormat>,
}

impl Config {
    /// A configuration that changes nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Names the run in profiles (default: the program name).
    pub fn run_name(mut self, name: impl Into<String>) -> Self {
        self.run_name = Some(name.into());
        self
    }

    /// This process's rank and the number of ranks of a distributed run
    /// (default: what the launcher set: `RANK`/`WORLD_SIZE` for torchrun,
    /// `SLURM_PROCID`/`SLURM_NTASKS`, `OMPI_COMM_WORLD_RANK`/`..._SIZE`,
    /// `PMI_RANK`/`PMI_SIZE`; else rank 0 of 1). A rank at or above the
    /// world size is ignored.
    pub fn rank(mut self, rank: u32, world_size: u32) -> Self {
        self.rank = (rank < world_size).then_some((rank, world_size));
        self
    }

    /// The id every rank of this run shares (default: `PROFILER_RUN_ID`,
    /// `TORCHELASTIC_RUN_ID` or `SLURM_JOB_ID`, else one made from the
    /// process's start time and pid).
    pub fn run_id(mut self, id: impl Into<String>) -> Self {
        self.run_id = Some(id.into());
        self
    }

    /// Trace mode (default off): bricks, phases, layers and steps also
    /// append timeline events to bounded per-thread buffers, which the
    /// Chrome-trace and flamegraph exports draw.
    pub fn trace_mode(mut self, on: bool) -> Self {
        self.trace_mode = Some(on);
        self
    }

    /// Tile profiling (default off): `kernel::start_tile` reads the clock
    /// and `kernel::stop_tile` records; off, both cost one relaxed load.
    pub fn tile_profiling(mut self, on: bool) -> Self {
        self.tile_profiling = Some(on);
        self
    }

    /// The execution graph (default off): every brick call, step, phase and
    /// layer becomes a node (at most 100 000 per thread's graph; more are
    /// counted as dropped), with kernel launches and transfers from
    /// `kernel::record_kernel_launch` and `kernel::record_transfer`. While
    /// it is on, every brick takes the profiler's slower path (a lock and
    /// an allocation per call).
    pub fn execution_graph(mut self, on: bool) -> Self {
        self.execution_graph = Some(on);
        self
    }

    /// How many timeline events each thread keeps (default 1 048 576, 48
    /// bytes each; clamped to [1024, 16 777 216]). Further events are
    /// dropped and counted. A thread sizes its buffer when it first records.
    pub fn trace_capacity(mut self, events_per_thread: usize) -> Self {
        self.trace_capacity = Some(events_per_thread);
        self
    }

    /// How many timeline events the whole process keeps, live and exited
    /// threads together (default 4 194 304, so at most 192 MiB of events;
    /// threads reserve 1024 at a time). Further events are dropped and
    /// counted.
    pub fn trace_process_capacity(mut self, events: usize) -> Self {
        self.trace_process_capacity = Some(events);
        self
    }

    /// How many `#[trace_op]` entries each thread keeps (default 100 000);
    /// further entries are dropped and counted.
    pub fn trace_entry_capacity(mut self, entries_per_thread: usize) -> Self {
        self.trace_entry_capacity = Some(entries_per_thread);
        self
    }

    /// How many `#[trace_op]` entries the whole process keeps, live and
    /// exited threads together (default 1 000 000); further entries are
    /// dropped and counted.
    pub fn trace_entry_process_capacity(mut self, entries: usize) -> Self {
        self.trace_entry_process_capacity = Some(entries);
        self
    }

    /// Which steps are recorded (`None`: every step, the default). The next
    /// `step()` is the schedule's step 0.
    pub fn schedule(mut self, schedule: impl Into<Option<Schedule>>) -> Self {
        self.schedule = Some(schedule.into());
        self
    }

    /// When to wait for the device (default [`SyncMode::Deferred`]).
    pub fn sync_mode(mut self, mode: SyncMode) -> Self {
        self.sync_mode = Some(mode);
        self
    }

    /// The hook that waits for the device (e.g. a CUDA stream synchronize):
    /// it runs before every brick's stop timestamp in
    /// [`SyncMode::Immediate`] and when a layer scope ends in
    /// [`SyncMode::PerLayer`]. A panicking hook is caught and counted.
    /// Hooks are meant to be installed once: a replaced one stays allocated
    /// (calls in flight may still run it).
    pub fn sync_hook(mut self, hook: impl Fn() + Send + Sync + 'static) -> Self {
        self.sync_hook = Some(Some(Box::new(hook)));
        self
    }

    /// Removes the sync hook.
    pub fn clear_sync_hook(mut self) -> Self {
        self.sync_hook = Some(None);
        self
    }

    /// A device timer (e.g. CUDA events): in [`SyncMode::Deferred`] every
    /// brick records a device event at start and end, and `finalize`
    /// attributes true device time to each brick. Like hooks, timers are
    /// meant to be installed once.
    pub fn device_timer(mut self, timer: impl DeviceTimer) -> Self {
        self.device_timer = Some(Some(Box::new(timer)));
        self
    }

    /// Removes the device timer.
    pub fn clear_device_timer(mut self) -> Self {
        self.device_timer = Some(None);
        self
    }

    /// The most deferred records a thread may hold before `finalize`
    /// (default 65 536); further records are refused and counted.
    pub fn pending_capacity(mut self, records: usize) -> Self {
        self.pending_capacity = Some(records);
        self
    }

    /// The hardware the run uses, for reports that compare against it:
    /// a preset, a hardware file, or this machine as the probes measured it
    /// (`profiler_report::hardware::measure`), carried by every later
    /// profile in `RunInfo::hardware`; `None` clears it.
    pub fn hardware(mut self, hardware: impl Into<Option<Hardware>>) -> Self {
        self.hardware = Some(hardware.into());
        self
    }

    /// The measured L2 cache hit rate, clamped to `[0, 1]`; NaN clears it.
    pub fn l2_cache_hit_rate(mut self, rate: f32) -> Self {
        self.l2_cache_hit_rate = Some(rate);
        self
    }

    /// Whether zero-copy transfers are in use.
    pub fn zero_copy(mut self, on: bool) -> Self {
        self.zero_copy = Some(on);
        self
    }

    /// Subtracts the profiler's measured per-sample floor from every brick
    /// sample in later snapshots (default off); profiles say so in their
    /// notes.
    pub fn subtract_overhead(mut self, on: bool) -> Self {
        self.subtract_overhead = Some(on);
        self
    }

    /// The timeline file(s) the run's reports write (default JSON only):
    /// recorded in profiles as `run.trace_format`, which the report crate's
    /// `write_timeline` honours. The runtime itself writes no files.
    pub fn trace_format(mut self, format: TraceFormat) -> Self {
        self.trace_format = Some(format);
        self
    }

    /// Applies the settings this configuration names.
    pub fn apply(self) {
        if let Some(capacity) = self.trace_capacity {
            events::set_capacity(capacity);
        }
        if let Some(capacity) = self.trace_process_capacity {
            events::set_process_capacity(capacity);
        }
        if let Some(capacity) = self.trace_entry_capacity {
            entries::set_capacity(capacity);
        }
        if let Some(capacity) = self.trace_entry_process_capacity {
            entries::set_process_capacity(capacity);
        }
        if let Some(capacity) = self.pending_capacity {
            crate::sync::set_pending_capacity(capacity);
        }
        if let Some(schedule) = self.schedule {
            step::set_schedule(schedule);
        }
        if let Some(hook) = self.sync_hook {
            let hook: Option<&'static SyncHook> = hook.map(|h| &*Box::leak(h));
            crate::sync::set_sync_hook(hook);
        }
        if let Some(timer) = self.device_timer {
            let timer: Option<&'static dyn DeviceTimer> = timer.map(|t| &*Box::leak(t));
            crate::sync::set_device_timer(timer);
        }
        if let Some(mode) = self.sync_mode {
            crate::sync::set_sync_mode(mode);
        }
        if self.trace_mode.is_some()
            || self.tile_profiling.is_some()
            || self.execution_graph.is_some()
        {
            let mut settings = state::settings();
            settings.timeline = self.trace_mode.unwrap_or(settings.timeline);
            settings.tiles = self.tile_profiling.unwrap_or(settings.tiles);
            settings.graph = self.execution_graph.unwrap_or(settings.graph);
            settings.publish();
        }
        if self.subtract_overhead == Some(true) && run_facts().overhead.is_none() {
            crate::overhead::calibrate();
        }
        let mut facts = run_facts();
        if let Some(name) = self.run_name {
            facts.name = Some(name);
        }
        if let Some((rank, world_size)) = self.rank {
            facts.rank = Some(rank);
            facts.world_size = Some(world_size);
        }
        if let Some(run_id) = self.run_id {
            facts.run_id = Some(run_id);
        }
        if let Some(hardware) = self.hardware {
            facts.hardware = hardware;
        }
        if let Some(rate) = self.l2_cache_hit_rate {
            facts.l2_cache_hit_rate = (!rate.is_nan()).then(|| rate.clamp(0.0, 1.0));
        }
        if let Some(on) = self.zero_copy {
            facts.zero_copy = on;
        }
        if let Some(on) = self.subtract_overhead {
            facts.subtract_overhead = on;
        }
        if let Some(format) = self.trace_format {
            facts.trace_format = format;
        }
    }

    /// Applies the settings, then turns recording on (see `enable()`).
    pub fn enable(self) {
        self.apply();
        switch::enable();
    }
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let set = |hook: bool| if hook { "set" } else { "cleared" };
        f.debug_struct("Config")
            .field("run_name", &self.run_name)
            .field("rank", &self.rank)
            .field("run_id", &self.run_id)
            .field("trace_mode", &self.trace_mode)
            .field("tile_profiling", &self.tile_profiling)
            .field("execution_graph", &self.execution_graph)
            .field("trace_capacity", &self.trace_capacity)
            .field("trace_process_capacity", &self.trace_process_capacity)
            .field("trace_entry_capacity", &self.trace_entry_capacity)
            .field(
                "trace_entry_process_capacity",
                &self.trace_entry_process_capacity,
            )
            .field("schedule", &self.schedule)
            .field("sync_mode", &self.sync_mode)
            .field(
                "sync_hook",
                &self.sync_hook.as_ref().map(|h| set(h.is_some())),
            )
            .field(
                "device_timer",
                &self.device_timer.as_ref().map(|t| set(t.is_some())),
            )
            .field("pending_capacity", &self.pending_capacity)
            .field("hardware", &self.hardware)
            .field("l2_cache_hit_rate", &self.l2_cache_hit_rate)
            .field("zero_copy", &self.zero_copy)
            .field("subtract_overhead", &self.subtract_overhead)
            .field("trace_format", &self.trace_format)
            .finish()
    }
}
