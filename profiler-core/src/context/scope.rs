//! Timing shared by step, phase and layer scopes: read the clock when the
//! scope opens (only while recording), and on close hand the elapsed ticks to
//! the scope's own bookkeeping and, in trace mode, to the timeline.

use crate::counter::bump;
use crate::profile::EventKind;
use crate::record::events::RawEvent;
use crate::record::slab::ThreadSlab;
use crate::record::state::{self, RAW_CLOCK, TIMELINE};
use crate::record::thread::with_slab;

/// The opening timestamp of a scope that is being recorded.
#[derive(Debug)]
pub(crate) struct ScopeStart {
    raw: bool,
    start: u64,
}

impl ScopeStart {
    /// Reads the clock if the profiler is recording; `None` otherwise.
    pub(crate) fn now() -> Option<Self> {
        let state = state::load();
        if !state::is_recording(state) {
            return None;
        }
        let raw = state & RAW_CLOCK != 0;
        Some(Self {
            raw,
            start: crate::clock::now(raw),
        })
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
        ticks
    }
}
