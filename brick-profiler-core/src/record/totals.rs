//! [`Totals`]: everything read out of a set of slabs, merged but still in
//! recording units. The exited threads' totals are one of these; a
//! snapshot adds the live slabs to a copy and converts the result once.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering::{Acquire, Relaxed};

use super::events::{RawEvent, RawSample};
use super::sample::SampleTotals;
use super::slab::ThreadSlab;
use super::starts::Mark;
use crate::kernel_data::ExecutionGraph;
use crate::profile::{RecordedTraceEntry, ThreadInfo};

/// Most threads a profile lists by name; more are counted (thread churn
/// must not grow memory without bound).
pub(crate) const MAX_LISTED_THREADS: usize = 1024;

/// Everything read out of a set of slabs, still in ticks.
#[derive(Debug, Clone)]
pub(crate) struct Totals {
    /// Timed samples by slot, in ticks.
    pub(crate) slots: Vec<SampleTotals>,
    /// (layer context, slot or `SCOPE_SLOT`) -> (count, ticks).
    pub(crate) layers: BTreeMap<(u32, u32), (u64, u64)>,
    /// Each thread's timeline events, with the device starts (ticks) of
    /// some of them by index.
    pub(crate) timelines: Vec<(ThreadInfo, Vec<RawEvent>, Vec<Mark>)>,
    /// Counter samples by thread.
    pub(crate) samples: Vec<(u32, Vec<RawSample>)>,
    pub(crate) counters_rejected: u64,
    /// Threads that recorded, at most [`MAX_LISTED_THREADS`] of them.
    pub(crate) threads: Vec<ThreadInfo>,
    /// Threads that recorded, listed or not.
    pub(crate) threads_seen: u64,
    pub(crate) timeline_dropped: u64,
    pub(crate) pending: u64,
    pub(crate) pending_overflow: u64,
    pub(crate) pending_abandoned: u64,
    pub(crate) trace_entries: Vec<RecordedTraceEntry>,
    pub(crate) trace_entries_dropped: u64,
    /// Samples measured elsewhere by slot, in exact ns.
    pub(crate) measured: BTreeMap<u32, SampleTotals>,
    /// The threads' execution graphs, appended (`None` until one has nodes).
    pub(crate) graph: Option<ExecutionGraph>,
}

impl Totals {
    pub(crate) const EMPTY: Totals = Totals {
        slots: Vec::new(),
        layers: BTreeMap::new(),
        timelines: Vec::new(),
        samples: Vec::new(),
        counters_rejected: 0,
        threads: Vec::new(),
        threads_seen: 0,
        timeline_dropped: 0,
        pending: 0,
        pending_overflow: 0,
        pending_abandoned: 0,
        trace_entries: Vec::new(),
        trace_entries_dropped: 0,
        measured: BTreeMap::new(),
        graph: None,
    };

    /// Adds a slab's contents if it belongs to `generation`; the thread
    /// counts as seen when it recorded anything.
    pub(crate) fn add_slab(&mut self, slab: &ThreadSlab, generation: u32) {
        if slab.generation.load(Acquire) != generation {
            return;
        }
        let mut recorded = self.add_cells(slab);
        let info = ThreadInfo {
            thread: slab.thread,
            name: slab.name.clone(),
            exited: slab.retired.load(Acquire),
        };
        recorded |= self.add_series(slab, &info);
        self.add_pending(slab);
        recorded |= self.add_trace_entries(slab);
        recorded |= self.add_measured(slab);
        self.trace_entries_dropped = self
            .trace_entries_dropped
            .saturating_add(slab.trace_entries.dropped.load(Relaxed));
        recorded |= self.add_graph(slab);
        if recorded {
            self.threads_seen += 1;
            if self.threads.len() < MAX_LISTED_THREADS {
                self.threads.push(info);
            }
        }
    }

    /// Per-slot samples and per-layer counts; whether there were any.
    fn add_cells(&mut self, slab: &ThreadSlab) -> bool {
        let mut recorded = false;
        // Sized once for the slab's cells rather than grown cell by cell.
        self.slots
            .reserve(slab.cells().saturating_sub(self.slots.len()));
        slab.for_each_cell(|slot, cell| {
            let slot = slot as usize;
            if self.slots.len() <= slot {
                self.slots.resize_with(slot + 1, SampleTotals::default);
            }
            recorded |= self.slots[slot].add_cell(cell);
        });
        slab.layers.for_each(|ctx, slot, count, ticks| {
            let entry = self.layers.entry((ctx, slot)).or_default();
            entry.0 = entry.0.saturating_add(count);
            entry.1 = entry.1.saturating_add(ticks);
            recorded = true;
        });
        recorded
    }

    /// Timeline events and counter samples; whether there were any.
    fn add_series(&mut self, slab: &ThreadSlab, info: &ThreadInfo) -> bool {
        let mut recorded = false;
        let (events, samples, starts) = slab.events.read_marked(&slab.device_starts.read());
        if !events.is_empty() {
            self.timelines.push((info.clone(), events, starts));
            recorded = true;
        }
        if !samples.is_empty() {
            self.samples.push((slab.thread, samples));
            recorded = true;
        }
        recorded
    }

    /// Rejected counter values, dropped events and pending records.
    fn add_pending(&mut self, slab: &ThreadSlab) {
        self.counters_rejected = self
            .counters_rejected
            .saturating_add(slab.counters_rejected.load(Relaxed));
        self.timeline_dropped = self
            .timeline_dropped
            .saturating_add(slab.events.dropped.load(Relaxed));
        self.pending = self.pending.saturating_add(slab.pending.load(Relaxed));
        self.pending_overflow = self
            .pending_overflow
            .saturating_add(slab.pending_overflow.load(Relaxed));
        self.pending_abandoned = self
            .pending_abandoned
            .saturating_add(slab.pending_abandoned.load(Relaxed));
    }

    /// `#[trace_op]` entries; whether there were any.
    fn add_trace_entries(&mut self, slab: &ThreadSlab) -> bool {
        let entries = slab
            .trace_entries
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        self.trace_entries.extend(entries.iter().cloned());
        !entries.is_empty()
    }

    /// Device-measured times per slot; whether there were any.
    fn add_measured(&mut self, slab: &ThreadSlab) -> bool {
        let mut recorded = false;
        for (slot, ns) in slab
            .measured
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
        {
            self.measured.entry(*slot).or_default().merge(ns);
            recorded = true;
        }
        recorded
    }

    /// The thread's execution graph, appended; whether it had one.
    fn add_graph(&mut self, slab: &ThreadSlab) -> bool {
        let graph = slab
            .graph
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some(thread_graph) = graph.as_ref() else {
            return false;
        };
        self.graph
            .get_or_insert_with(ExecutionGraph::new)
            .append(&thread_graph.graph);
        true
    }

    /// Timeline events and trace entries held, for the process budgets.
    pub(crate) fn held(&self) -> (usize, usize) {
        let events = self
            .timelines
            .iter()
            .map(|(_, e, _)| e.len())
            .sum::<usize>()
            + self.samples.iter().map(|(_, s)| s.len()).sum::<usize>();
        (events, self.trace_entries.len())
    }
}
