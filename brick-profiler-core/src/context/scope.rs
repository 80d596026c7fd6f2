//! Timing shared by step, phase and layer scopes: read the clock when the
//! scope opens (only while recording), and on close hand the elapsed ticks to
//! the scope's own bookkeeping and, in trace mode, to the timeline.

use crate::counter::bump;
use crate::kernel_data::{NodeKind, ScopeHandle};
use crate::profile::EventKind;
use crate::record::device::guarded;
use crate::record::events::RawEvent;
use crate::record::nodes;
use crate::record::slab::ThreadSlab;
use crate::record::state::{self, RAW_CLOCK, TIMELINE};
use crate::record::thread::with_slab;

/// The opening timestamp of a scope that is being recorded, and its node
/// in the execution graph when the graph is on.
#[derive(Debug)]
pub(crate) struct ScopeStart {
    raw: bool,
    start: u64,
    graph: Option<ScopeHandle>,
    /// A named device range (NVTX) is open over the scope.
    range: bool,
}

impl ScopeStart {
    /// Reads the clock if the profiler is recording, opening the scope
    /// `node()` in the execution graph when it is on; `None` otherwise.
    pub(crate) fn now(node: impl FnOnce() -> NodeKind) -> Option<Self> {
        let state = state::load();
        if !state::is_recording(state) {
            return None;
        }
        let raw = state & RAW_CLOCK != 0;
        let graph = nodes::open_scope(state, node);
        Some(Self {
            raw,
            start: crate::clock::now(raw),
            graph,
            range: false,
        })
    }

    /// The clock reading the scope opened at, in ticks.
    pub(crate) fn start_ticks(&self) -> u64 {
        self.start
    }

    /// Opens a range named `name()` on an installed device timer that names
    /// bricks (NVTX ranges for Nsight), closed with the scope; the name is
    /// only made for such a timer.
    pub(crate) fn named(mut self, name: impl FnOnce() -> String) -> Self {
        if let Some(timer) = state::device_timer()
            && guarded(|| timer.names_bricks()) == Some(true)
        {
            let name = name();
            self.range = guarded(|| timer.brick_started(&name)).is_some();
        }
        self
    }

    /// Closes the range [`ScopeStart::named`] opened.
    fn close_range(&self) {
        if self.range
            && let Some(timer) = state::device_timer()
        {
            guarded(|| timer.brick_ended());
        }
    }

    /// Drops the scope without recording it (closing its graph node).
    pub(crate) fn abandon(self) {
        self.close_range();
        nodes::close_scope(state::load(), self.graph);
    }

    /// Closes the scope: `record(slab, ticks)` runs on the calling thread's
    /// slab, and a timeline event `(kind, id, args)` is appended in trace
    /// mode.
    /// Returns the elapsed ticks.
    pub(crate) fn finish(
        self,
        kind: EventKind,
        id: u64,
        args: [u64; 3],
        record: impl FnOnce(&ThreadSlab, u64),
    ) -> u64 {
        let end = crate::clock::now(self.raw);
        self.close_range();
        let ticks = end.saturating_sub(self.start);
        let state = state::load();
        with_slab(state, |slab, _| {
            bump(&slab.scopes, 1);
            record(slab, ticks);
            if state & TIMELINE != 0 {
                slab.events
                    .push(RawEvent::scope(kind, id, (self.start, end), args));
            }
        });
        nodes::close_scope(state, self.graph);
        ticks
    }
}
