//! Steps: one training or inference iteration each. [`step`] opens one and
//! counts its tokens; a [`Schedule`] (like `torch.profiler.schedule`)
//! pauses recording during wait and warm-up steps.
//!
//! Two mistakes are caught rather than counted: a step guard that ends
//! before anything inside it ran (bound to `_`, so dropped at once) is
//! counted as empty, and a step opened inside another open step of the
//! same thread is left out of every total (the outer one counts).

use std::cell::{Cell, RefCell};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{LazyLock, Mutex, MutexGuard, PoisonError};

use super::scope::ScopeStart;
use crate::kernel_data::NodeKind;
use crate::profile::{EventKind, Schedule, StepRole};
use crate::record::state;
use crate::record::thread::with_slab;

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
    /// (index, ticks, tokens) of recorded steps, up to [`MAX_STEP_SAMPLES`].
    pub(crate) samples: Vec<(u64, u64, u64)>,
    pub(crate) samples_dropped: u64,
    pub(crate) empty: u64,
    pub(crate) nested: u64,
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

/// Clears the step measurements, keeping the schedule and its position.
pub(crate) fn reset() {
    let mut steps = steps();
    let (schedule, begun) = (steps.schedule, steps.begun);
    *steps = Steps {
        schedule,
        begun,
        ..Steps::default()
    };
}

/// Sets (or clears) the step schedule; the next [`step`] is its step 0.
pub(crate) fn set_schedule(schedule: Option<Schedule>) {
    let mut steps = steps();
    steps.schedule = schedule;
    steps.begun = 0;
    drop(steps);
    set_paused(false);
}

fn set_paused(paused: bool) {
    let mut settings = state::settings();
    if settings.paused != paused {
        settings.paused = paused;
        settings.publish();
    }
}

/// An open step; dropping it ends the step. Tied to the thread that opened
/// it (`!Send`): wall coverage counts that thread's phases.
#[must_use = "the step ends when this guard is dropped: bind it to a named variable \
              (`let _step = profiler::step(n);`; `let _ = ...` drops it at once), \
              or use `profiler::in_step(n, || ...)`"]
#[derive(Debug)]
pub struct StepGuard {
    index: u64,
    tokens: u64,
    /// Identifies this step in the thread's stack of open steps.
    token: u64,
    start: Option<ScopeStart>,
    /// The thread's activity when the step began (see `ThreadSlab::activity`).
    activity: u64,
    _thread_bound: PhantomData<*const ()>,
}

/// A step open on this thread: (token, index, whether its role is active).
type OpenStep = (u64, u64, bool);

thread_local! {
    /// Steps open on this thread, oldest first.
    static OPEN: RefCell<Vec<OpenStep>> = const { RefCell::new(Vec::new()) };
    static NEXT_TOKEN: Cell<u64> = const { Cell::new(0) };
    /// Recorded steps open on this thread: its top-level phases are inside
    /// a step (wall coverage). Phases on other threads never count.
    static OPEN_STEPS: Cell<u32> = const { Cell::new(0) };
}

/// Begins a step that processes `tokens` tokens; it ends when the guard drops.
///
/// With a [`Schedule`], wait and warm-up steps pause recording (bricks cost
/// one load) and are counted as skipped. A step opened while another step
/// of the same thread is open is nested: only the outer one counts.
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
    if !recorded && state::is_recording(state::load() & !state::PAUSED) {
        steps.skipped += 1;
    }
    drop(steps);
    set_paused(!recorded);
    let token = NEXT_TOKEN.with(|t| t.replace(t.get().wrapping_add(1)));
    let _ = OPEN.try_with(|open| open.borrow_mut().push((token, index, recorded)));
    let start = ScopeStart::now(|| NodeKind::Step { index })
        .map(|start| start.named(|| format!("step {index}")));
    let mut activity = 0;
    if start.is_some() {
        crate::record::ledger::begin_step();
        OPEN_STEPS.with(|n| n.set(n.get() + 1));
        activity = with_slab(state::load(), |slab, _| slab.activity()).unwrap_or(0);
    }
    StepGuard {
        index,
        tokens,
        token,
        start,
        activity,
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

    /// Removes this step from the thread's open steps; returns the step it
    /// is nested in (an older one still open), if any.
    fn close(&self) -> Option<OpenStep> {
        OPEN.try_with(|open| {
            let mut open = open.borrow_mut();
            let at = open.iter().position(|&(t, ..)| t == self.token)?;
            open.remove(at);
            at.checked_sub(1).map(|outer| open[outer])
        })
        .ok()
        .flatten()
    }

    /// Leaves a nested step out: the schedule and the current step return
    /// to the enclosing one, as if this step had never begun.
    fn undo_nested(&self, (_, outer_index, outer_recorded): OpenStep) {
        let mut steps = steps();
        steps.nested += 1;
        if steps.begun == self.index + 1 {
            steps.begun = self.index;
        }
        drop(steps);
        CURRENT_STEP.store(outer_index, Relaxed);
        set_paused(!outer_recorded);
    }
}

impl Drop for StepGuard {
    fn drop(&mut self) {
        let outer = self.close();
        let start = self.start.take();
        if start.is_some() {
            OPEN_STEPS.with(|n| n.set(n.get().saturating_sub(1)));
        }
        if let Some(outer) = outer {
            if let Some(start) = start {
                start.abandon();
            }
            return self.undo_nested(outer);
        }
        let Some(start) = start else {
            return;
        };
        if state::load() & state::MEMORY != 0 {
            crate::record::ledger::record_step(self.index);
        }
        let activity = with_slab(state::load(), |slab, _| slab.activity()).unwrap_or(0);
        let ticks = start.finish(EventKind::Step, self.index, [self.tokens, 0, 0], |_, _| {});
        let mut steps = steps();
        steps.recorded += 1;
        if activity == self.activity {
            steps.empty += 1;
        }
        steps.tokens = steps.tokens.saturating_add(self.tokens);
        steps.ticks = steps.ticks.saturating_add(ticks);
        if steps.samples.len() < MAX_STEP_SAMPLES {
            steps.samples.push((self.index, ticks, self.tokens));
        } else {
            steps.samples_dropped += 1;
        }
    }
}

/// The index of the outermost step open on the calling thread (the one
/// that counts), if any.
pub(crate) fn thread_step() -> Option<u64> {
    // `try_borrow`: a device launch callback never panics, even if it ran
    // while the thread's steps were being changed.
    OPEN.try_with(|open| {
        open.try_borrow()
            .ok()
            .and_then(|open| open.first().map(|&(_, index, _)| index))
    })
    .ok()
    .flatten()
}

/// Whether a recorded step is open on the calling thread.
pub(crate) fn in_open_step() -> bool {
    OPEN_STEPS.with(Cell::get) > 0
}
