//! Steps, the warm-up schedule, and phases.
//!
//! A step is one training or inference iteration; [`step`] opens it and
//! counts its tokens. A [`Schedule`] (like `torch.profiler.schedule`) pauses
//! recording during wait and warm-up steps. Phases name parts of a step;
//! the time of top-level phases inside steps gives the wall coverage.

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{LazyLock, Mutex, MutexGuard, PoisonError};

use serde::{Deserialize, Serialize};

use crate::scope::ScopeStart;
use crate::timeline::EventKind;

/// Canonical training phase names, in step order.
pub const TRAINING_PHASES: [&str; 11] = [
    "embed",
    "h2d",
    "forward",
    "norm_lm",
    "loss",
    "grad_h2d",
    "lm_bwd",
    "norm_bwd",
    "blk_bwd",
    "embed_bwd",
    "opt",
];

/// Which steps are recorded: skip `wait` steps, run `warmup` steps without
/// recording, record `active` steps, and repeat the cycle `repeat` times
/// (0 = forever). After the last cycle recording stays paused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Schedule {
    /// Steps skipped at the start of each cycle.
    pub wait: u64,
    /// Warm-up steps (not recorded) after the wait.
    pub warmup: u64,
    /// Recorded steps per cycle.
    pub active: u64,
    /// Number of cycles; 0 repeats forever.
    pub repeat: u64,
}

/// Where a step falls in the schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StepRole {
    Wait,
    Warmup,
    Active,
    Done,
}

impl Schedule {
    /// Skips `warmup` steps, then records every step.
    #[must_use]
    pub const fn skip_warmup(warmup: u64) -> Self {
        Self {
            wait: 0,
            warmup,
            active: u64::MAX,
            repeat: 1,
        }
    }

    fn role(&self, index: u64) -> StepRole {
        let cycle_len = self
            .wait
            .saturating_add(self.warmup)
            .saturating_add(self.active);
        if cycle_len == 0 || self.active == 0 {
            return StepRole::Done;
        }
        if self.repeat > 0 && index / cycle_len >= self.repeat {
            return StepRole::Done;
        }
        let pos = index % cycle_len;
        if pos < self.wait {
            StepRole::Wait
        } else if pos < self.wait + self.warmup {
            StepRole::Warmup
        } else {
            StepRole::Active
        }
    }
}

/// Most step durations kept for noise-aware statistics; later steps still
/// count in the totals, and the overflow is reported.
pub(crate) const MAX_STEP_SAMPLES: usize = 100_000;

#[derive(Debug, Default)]
pub(crate) struct Steps {
    pub(crate) schedule: Option<Schedule>,
    /// Steps begun since the schedule was set (drives the schedule).
    pub(crate) begun: u64,
    pub(crate) recorded: u64,
    pub(crate) skipped: u64,
    pub(crate) tokens: u64,
    pub(crate) ticks: u64,
    pub(crate) samples: Vec<u64>,
    pub(crate) samples_dropped: u64,
}

static STEPS: LazyLock<Mutex<Steps>> = LazyLock::new(Mutex::default);

/// Index of the latest step begun (the step of `#[trace_op]` entries).
static CURRENT_STEP: AtomicU64 = AtomicU64::new(0);

/// Index of the latest step begun (0 before any).
pub(crate) fn current_step() -> usize {
    usize::try_from(CURRENT_STEP.load(Relaxed)).unwrap_or(usize::MAX)
}

pub(crate) fn steps() -> MutexGuard<'static, Steps> {
    STEPS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Sets (or clears) the step schedule; the next [`step`] is its step 0.
pub fn set_schedule(schedule: Option<Schedule>) {
    let mut steps = steps();
    steps.schedule = schedule;
    steps.begun = 0;
    drop(steps);
    set_paused(false);
}

fn set_paused(paused: bool) {
    let mut settings = crate::state::settings();
    if settings.paused != paused {
        settings.paused = paused;
        settings.publish();
    }
}

/// An open step; dropping it ends the step. Tied to the thread that opened
/// it (`!Send`): wall coverage counts that thread's phases.
#[must_use = "the step ends when the guard is dropped"]
#[derive(Debug)]
pub struct StepGuard {
    index: u64,
    tokens: u64,
    start: Option<ScopeStart>,
    _thread_bound: PhantomData<*const ()>,
}

/// Begins a step that processes `tokens` tokens; it ends when the guard drops.
///
/// With a [`Schedule`], wait and warm-up steps pause recording (bricks cost
/// one load) and are counted as skipped.
///
/// ```
/// # use profiler_core as profiler;
/// for _ in 0..3 {
///     let _step = profiler::step(4096);
///     // forward, backward, optimizer
/// }
/// ```
pub fn step(tokens: u64) -> StepGuard {
    let mut steps = steps();
    let index = steps.begun;
    steps.begun += 1;
    CURRENT_STEP.store(index, Relaxed);
    let role = steps.schedule.map_or(StepRole::Active, |s| s.role(index));
    let recorded = role == StepRole::Active;
    if !recorded && crate::state::is_recording(crate::state::load() & !crate::state::PAUSED) {
        steps.skipped += 1;
    }
    drop(steps);
    set_paused(!recorded);
    let start = ScopeStart::now();
    if start.is_some() {
        OPEN_STEPS.with(|n| n.set(n.get() + 1));
    }
    StepGuard {
        index,
        tokens,
        start,
        _thread_bound: PhantomData,
    }
}

/// Runs `f` as one step of `tokens` tokens.
pub fn in_step<R>(tokens: u64, f: impl FnOnce() -> R) -> R {
    let _step = step(tokens);
    f()
}

impl StepGuard {
    /// This step's index since the schedule was set (or since start).
    #[must_use]
    pub fn index(&self) -> u64 {
        self.index
    }

    /// Whether this step is being recorded.
    #[must_use]
    pub fn is_recorded(&self) -> bool {
        self.start.is_some()
    }

    /// Sets the token count when it is only known at the end of the step.
    pub fn set_tokens(&mut self, tokens: u64) {
        self.tokens = tokens;
    }
}

impl Drop for StepGuard {
    fn drop(&mut self) {
        let Some(start) = self.start.take() else {
            return;
        };
        OPEN_STEPS.with(|n| n.set(n.get().saturating_sub(1)));
        let ticks = start.finish(EventKind::Step, self.index, |_, _| {});
        let mut steps = steps();
        steps.recorded += 1;
        steps.tokens = steps.tokens.saturating_add(self.tokens);
        steps.ticks = steps.ticks.saturating_add(ticks);
        if steps.samples.len() < MAX_STEP_SAMPLES {
            steps.samples.push(ticks);
        } else {
            steps.samples_dropped += 1;
        }
    }
}

/// Accumulated time of one phase.
#[derive(Debug, Clone)]
pub(crate) struct PhaseAgg {
    pub(crate) name: Cow<'static, str>,
    pub(crate) count: u64,
    pub(crate) ticks: u64,
    pub(crate) min: u64,
    pub(crate) max: u64,
    /// Ticks of top-level occurrences inside recorded steps.
    pub(crate) in_steps: u64,
}

#[derive(Debug, Default)]
pub(crate) struct Phases {
    ids: HashMap<Cow<'static, str>, u32>,
    pub(crate) stats: Vec<PhaseAgg>,
}

impl Phases {
    fn intern(&mut self, name: Cow<'static, str>) -> u32 {
        if let Some(&id) = self.ids.get(&name) {
            return id;
        }
        let id = self.stats.len() as u32;
        self.stats.push(PhaseAgg {
            name: name.clone(),
            count: 0,
            ticks: 0,
            min: u64::MAX,
            max: 0,
            in_steps: 0,
        });
        self.ids.insert(name, id);
        id
    }

    /// Clears the measurements but keeps the interned names (timeline ids).
    pub(crate) fn clear(&mut self) {
        for p in &mut self.stats {
            *p = PhaseAgg {
                name: p.name.clone(),
                count: 0,
                ticks: 0,
                min: u64::MAX,
                max: 0,
                in_steps: 0,
            };
        }
    }
}

static PHASES: LazyLock<Mutex<Phases>> = LazyLock::new(Mutex::default);

pub(crate) fn phases() -> MutexGuard<'static, Phases> {
    PHASES.lock().unwrap_or_else(PoisonError::into_inner)
}

thread_local! {
    static PHASE_DEPTH: Cell<u32> = const { Cell::new(0) };
    /// Recorded steps open on this thread: its top-level phases are inside
    /// a step (wall coverage). Phases on other threads never count.
    static OPEN_STEPS: Cell<u32> = const { Cell::new(0) };
}

/// An open phase; dropping it ends the phase. Tied to the thread that
/// opened it (`!Send`).
#[must_use = "the phase ends when the guard is dropped"]
#[derive(Debug)]
pub struct PhaseGuard {
    id: u32,
    top_level: bool,
    start: Option<ScopeStart>,
    _thread_bound: PhantomData<*const ()>,
}

/// Opens a phase named `name` (one of [`TRAINING_PHASES`] or any name).
///
/// ```
/// # use profiler_core as profiler;
/// {
///     let _fwd = profiler::phase("forward");
///     // ...
/// }
/// ```
pub fn phase(name: impl Into<Cow<'static, str>>) -> PhaseGuard {
    let Some(start) = ScopeStart::now() else {
        return PhaseGuard {
            id: 0,
            top_level: false,
            start: None,
            _thread_bound: PhantomData,
        };
    };
    let id = phases().intern(name.into());
    let top_level = PHASE_DEPTH.with(|d| d.replace(d.get() + 1)) == 0;
    PhaseGuard {
        id,
        top_level,
        start: Some(start),
        _thread_bound: PhantomData,
    }
}

/// Runs `f` inside the phase `name`.
pub fn in_phase<R>(name: impl Into<Cow<'static, str>>, f: impl FnOnce() -> R) -> R {
    let _phase = phase(name);
    f()
}

impl Drop for PhaseGuard {
    fn drop(&mut self) {
        let Some(start) = self.start.take() else {
            return;
        };
        PHASE_DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
        let ticks = start.finish(EventKind::Phase, u64::from(self.id), |_, _| {});
        let in_step = OPEN_STEPS.with(Cell::get) > 0;
        let mut phases = phases();
        if let Some(p) = phases.stats.get_mut(self.id as usize) {
            p.count += 1;
            p.ticks = p.ticks.saturating_add(ticks);
            p.min = p.min.min(ticks);
            p.max = p.max.max(ticks);
            if self.top_level && in_step {
                p.in_steps = p.in_steps.saturating_add(ticks);
            }
        }
    }
}

/// Name of phase `id` (for timeline events).
pub(crate) fn phase_name(id: u32) -> Option<String> {
    phases().stats.get(id as usize).map(|p| p.name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_roles_follow_wait_warmup_active_repeat() {
        let s = Schedule {
            wait: 1,
            warmup: 2,
            active: 3,
            repeat: 2,
        };
        let roles: Vec<StepRole> = (0..14).map(|i| s.role(i)).collect();
        use StepRole::*;
        assert_eq!(
            roles,
            [
                Wait, Warmup, Warmup, Active, Active, Active, Wait, Warmup, Warmup, Active, Active,
                Active, Done, Done
            ]
        );
        let forever = Schedule { repeat: 0, ..s };
        assert_eq!(forever.role(100 * 6 + 3), Active);
        assert_eq!(Schedule::skip_warmup(2).role(1), Warmup);
        assert_eq!(Schedule::skip_warmup(2).role(1_000_000), Active);
        assert_eq!(
            Schedule::default().role(0),
            Done,
            "no active steps records nothing"
        );
    }
}
