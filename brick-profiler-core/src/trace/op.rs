//! The runtime behind `#[trace_op]`: a guard that times each call on the
//! bricks' clock and leaves one entry in the calling thread's store.

use crate::context::step::current_step;
use crate::profile::RecordedTraceEntry;
use crate::record::facts::origin_ticks;
use crate::record::state;
use crate::record::thread::with_slab;

/// Times one `#[trace_op]` call; the entry is recorded when it drops.
///
/// Timing uses the same counter as bricks and the timeline, so entries line
/// up with timeline events.
#[must_use = "the traced call is timed until the guard is dropped"]
#[derive(Debug)]
pub struct TraceOpGuard {
    entry: Option<(RecordedTraceEntry, u64)>,
}

impl TraceOpGuard {
    /// A guard that records nothing.
    pub const INERT: TraceOpGuard = TraceOpGuard { entry: None };

    /// Starts timing `operation` with its device and input shapes.
    pub fn start(operation: &str, device: Option<String>, input_shapes: Vec<Vec<usize>>) -> Self {
        let step = current_step();
        let mut entry = RecordedTraceEntry::new(step, operation).with_input_shapes(input_shapes);
        entry.device_id = device;
        Self {
            entry: Some((entry, crate::clock::now(crate::clock::init()))),
        }
    }

    /// Whether the call is being traced (recording was on when it started).
    #[must_use]
    pub fn is_active(&self) -> bool {
        self.entry.is_some()
    }

    /// Sets the output shape and element size (when the call returned normally).
    pub fn set_output(&mut self, output: Option<(Vec<usize>, usize)>) {
        if let (Some((entry, _)), Some((shape, size))) = (&mut self.entry, output) {
            let taken = std::mem::replace(entry, RecordedTraceEntry::new(0, ""));
            *entry = taken.with_output_shape_sized(shape, size);
        }
    }
}

impl Drop for TraceOpGuard {
    fn drop(&mut self) {
        let Some((mut entry, start)) = self.entry.take() else {
            return;
        };
        let end = crate::clock::now(crate::clock::init());
        let ns_per_tick = crate::clock::ns_per_tick();
        let micros = |ticks: u64| ticks as f64 * ns_per_tick / 1e3;
        entry.duration_us = micros(end.saturating_sub(start));
        entry.start_us = Some(micros(start.saturating_sub(origin_ticks())));
        with_slab(state::load(), |slab, _| {
            entry.thread = Some(slab.thread);
            slab.trace_entries.push(entry);
        });
    }
}
