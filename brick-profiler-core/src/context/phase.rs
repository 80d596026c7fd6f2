//! Phases: named parts of a step (`forward`, `loss`, `opt`, ...). The time
//! of top-level phases inside recorded steps gives the wall coverage.

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::{LazyLock, Mutex, MutexGuard, PoisonError};

use super::scope::ScopeStart;
use super::step::{current_step, in_open_step};
use crate::kernel_data::NodeKind;
use crate::profile::{EventKind, GenerationPhase, MAX_GENERATION_EVENTS};
use crate::record::scope_memory::{self, ScopeKey};
use crate::record::uncharged::uncharged;
use crate::stats::{TickCounts, bucket};

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
    /// Set for `prefill` and `decode`, whose occurrences are kept one by one.
    pub(crate) generation: Option<GenerationPhase>,
    /// Each occurrence's duration, in the bricks' latency buckets: a
    /// phase's distribution, for comparing runs.
    pub(crate) hist: TickCounts,
}

/// One occurrence of a generation phase, in ticks.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawTokenEvent {
    pub(crate) phase: GenerationPhase,
    pub(crate) start: u64,
    pub(crate) ticks: u64,
    /// The step open on this thread when it ended, if any.
    pub(crate) step: Option<u64>,
}

#[derive(Debug, Default)]
pub(crate) struct Phases {
    ids: HashMap<Cow<'static, str>, u32>,
    pub(crate) stats: Vec<PhaseAgg>,
    /// Occurrences of generation phases, up to [`MAX_GENERATION_EVENTS`].
    pub(crate) generation: Vec<RawTokenEvent>,
    /// Generation phase occurrences beyond the cap.
    pub(crate) generation_dropped: u64,
}

impl Phases {
    fn intern(&mut self, name: Cow<'static, str>) -> u32 {
        if let Some(&id) = self.ids.get(&name) {
            return id;
        }
        let id = self.stats.len() as u32;
        self.stats.push(PhaseAgg {
            generation: GenerationPhase::of_name(&name),
            name: name.clone(),
            count: 0,
            ticks: 0,
            min: u64::MAX,
            max: 0,
            in_steps: 0,
            hist: TickCounts::default(),
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
                generation: p.generation,
                hist: TickCounts::default(),
            };
        }
        self.generation.clear();
        self.generation_dropped = 0;
    }
}

static PHASES: LazyLock<Mutex<Phases>> = LazyLock::new(Mutex::default);

pub(crate) fn phases() -> MutexGuard<'static, Phases> {
    PHASES.lock().unwrap_or_else(PoisonError::into_inner)
}

/// No phase is open on the thread.
const NO_PHASE: u32 = u32::MAX;

thread_local! {
    static PHASE_DEPTH: Cell<u32> = const { Cell::new(0) };
    /// The innermost recorded phase open on this thread (`NO_PHASE`).
    static CURRENT: Cell<u32> = const { Cell::new(NO_PHASE) };
}

/// The id of the innermost phase open on the calling thread, if any.
pub(crate) fn current_phase() -> Option<u32> {
    let id = CURRENT.with(Cell::get);
    (id != NO_PHASE).then_some(id)
}

/// An open phase; dropping it ends the phase. Tied to the thread that
/// opened it (`!Send`).
#[must_use = "the phase ends when this guard is dropped: bind it to a named variable \
              (`let _fwd = profiler::phase(\"forward\");`; `let _ = ...` drops it at once), \
              or use `profiler::in_phase(name, || ...)`"]
#[derive(Debug)]
pub struct PhaseGuard {
    id: u32,
    top_level: bool,
    /// The phase this one is nested in (restored at drop).
    outer: u32,
    start: Option<ScopeStart>,
    /// The phase's mark of the memory ledger, when memory is tracked.
    memory: Option<u64>,
    _thread_bound: PhantomData<*const ()>,
}

/// Opens a phase named `name` (one of the canonical training phases, such
/// as `"forward"` or `"opt"`, or any name).
///
/// ```
/// # use profiler_core as profiler;
/// {
///     let _fwd = profiler::phase("forward");
///     // ...
/// }
/// ```
pub fn phase(name: impl Into<Cow<'static, str>>) -> PhaseGuard {
    let name = name.into();
    let Some(start) = ScopeStart::now(|| NodeKind::function(name.as_ref()))
        .map(|start| start.named(|| name.to_string()))
    else {
        return PhaseGuard {
            id: 0,
            top_level: false,
            outer: NO_PHASE,
            start: None,
            memory: None,
            _thread_bound: PhantomData,
        };
    };
    // Interning is the profiler's own allocation, not the caller's.
    let id = uncharged(|| phases().intern(name));
    let top_level = PHASE_DEPTH.with(|d| d.replace(d.get() + 1)) == 0;
    let outer = CURRENT.with(|c| c.replace(id));
    PhaseGuard {
        id,
        top_level,
        outer,
        start: Some(start),
        memory: scope_memory::open(ScopeKey::Phase(id)),
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
        if let Some(token) = self.memory.take() {
            scope_memory::close(token);
        }
        let Some(start) = self.start.take() else {
            return;
        };
        PHASE_DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
        let begin = start.start_ticks();
        CURRENT.with(|c| c.set(self.outer));
        let ticks = start.finish(EventKind::Phase, u64::from(self.id), [0; 3], |_, _| {});
        let in_step = in_open_step();
        let mut phases = phases();
        let mut generation = None;
        if let Some(p) = phases.stats.get_mut(self.id as usize) {
            p.count += 1;
            p.ticks = p.ticks.saturating_add(ticks);
            p.min = p.min.min(ticks);
            p.max = p.max.max(ticks);
            // The histogram's growth is the profiler's own, charged to no one.
            uncharged(|| p.hist.add(bucket(ticks), 1));
            if self.top_level && in_step {
                p.in_steps = p.in_steps.saturating_add(ticks);
            }
            generation = p.generation;
        }
        if let Some(phase) = generation {
            // Capped like the step samples; the push's growth is the profiler's own.
            if phases.generation.len() < MAX_GENERATION_EVENTS {
                let event = RawTokenEvent {
                    phase,
                    start: begin,
                    ticks,
                    step: in_step.then(|| u64::try_from(current_step()).unwrap_or(u64::MAX)),
                };
                uncharged(|| phases.generation.push(event));
            } else {
                phases.generation_dropped += 1;
            }
        }
    }
}

/// Name of phase `id` (for timeline events).
pub(crate) fn phase_name(id: u32) -> Option<String> {
    phases().stats.get(id as usize).map(|p| p.name.to_string())
}
