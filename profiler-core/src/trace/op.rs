//! The runtime behind `#[trace_op]`: [`TensorShape`] for argument and
//! output shapes, the guard that times each call, and the per-thread store
//! its entries go to.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Mutex, PoisonError};

use super::{DEFAULT_ELEMENT_SIZE, RecordedTraceEntry};

/// A value with a tensor shape, for `#[trace_op(shapes(...))]` and output shapes.
///
/// Implemented for slices, arrays, `Vec`s and references to them; implement
/// it for your tensor type:
///
/// ```
/// # use profiler_core as profiler;
/// struct Tensor { dims: Vec<usize>, data: Vec<f32> }
/// impl profiler::TensorShape for Tensor {
///     fn shape(&self) -> Vec<usize> { self.dims.clone() }
///     fn element_size(&self) -> usize { 4 }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no tensor shape",
    label = "`shapes(...)` arguments must implement `profiler::TensorShape`",
    note = "implement `profiler::TensorShape` for your tensor type, or leave this argument out of `shapes(...)`"
)]
pub trait TensorShape {
    /// Dimensions, outermost first.
    fn shape(&self) -> Vec<usize>;
    /// Bytes per element (default 8).
    fn element_size(&self) -> usize {
        DEFAULT_ELEMENT_SIZE
    }
}

impl<T> TensorShape for [T] {
    fn shape(&self) -> Vec<usize> {
        vec![self.len()]
    }
    fn element_size(&self) -> usize {
        size_of::<T>()
    }
}

impl<T, const N: usize> TensorShape for [T; N] {
    fn shape(&self) -> Vec<usize> {
        vec![N]
    }
    fn element_size(&self) -> usize {
        size_of::<T>()
    }
}

impl<T> TensorShape for Vec<T> {
    fn shape(&self) -> Vec<usize> {
        vec![self.len()]
    }
    fn element_size(&self) -> usize {
        size_of::<T>()
    }
}

impl<T: TensorShape + ?Sized> TensorShape for &T {
    fn shape(&self) -> Vec<usize> {
        (**self).shape()
    }
    fn element_size(&self) -> usize {
        (**self).element_size()
    }
}

impl<T: TensorShape + ?Sized> TensorShape for &mut T {
    fn shape(&self) -> Vec<usize> {
        (**self).shape()
    }
    fn element_size(&self) -> usize {
        (**self).element_size()
    }
}

impl<T: TensorShape + ?Sized> TensorShape for Box<T> {
    fn shape(&self) -> Vec<usize> {
        (**self).shape()
    }
    fn element_size(&self) -> usize {
        (**self).element_size()
    }
}

/// Default bound of a thread's `#[trace_op]` entries.
pub const DEFAULT_TRACE_ENTRY_CAPACITY: usize = 100_000;
static ENTRY_CAPACITY: AtomicUsize = AtomicUsize::new(DEFAULT_TRACE_ENTRY_CAPACITY);

/// Sets how many `#[trace_op]` entries each thread keeps; later entries are
/// dropped and counted.
pub fn set_trace_entry_capacity(entries: usize) {
    ENTRY_CAPACITY.store(entries, Relaxed);
}

/// One thread's `#[trace_op]` entries. The lock is only ever contended by a
/// snapshot; `#[trace_op]` allocates shapes anyway, so this is not the
/// zero-cost path that `#[brick]` is.
#[derive(Default)]
pub(crate) struct EntryStore {
    pub(crate) entries: Mutex<Vec<RecordedTraceEntry>>,
    pub(crate) dropped: AtomicU64,
}

impl EntryStore {
    fn push(&self, entry: RecordedTraceEntry) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.len() < ENTRY_CAPACITY.load(Relaxed) {
            entries.push(entry);
        } else {
            drop(entries);
            crate::slab::bump(&self.dropped, 1);
        }
    }

    pub(crate) fn clear(&self) {
        self.entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        self.dropped.store(0, Relaxed);
    }
}

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
        let step = crate::session::current_step();
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
        let ns_per_tick = crate::clock::ns_per_tick_cached();
        let micros = |ticks: u64| ticks as f64 * ns_per_tick / 1e3;
        entry.duration_us = micros(end.saturating_sub(start));
        entry.start_us = Some(micros(start.saturating_sub(crate::control::origin_ticks())));
        let state = crate::state::load();
        crate::slab::with_slab(state, |slab, _| {
            entry.thread = Some(slab.thread);
            slab.trace_entries.push(entry);
        });
    }
}

/// The shape of a `shapes(...)` argument.
pub fn input_shape<T: TensorShape + ?Sized>(value: &T) -> Vec<usize> {
    value.shape()
}

/// Wraps a return value so `#[trace_op]` can ask for its shape when it has one.
pub struct ShapeOf<'a, T: ?Sized>(pub &'a T);

/// Output shape of values that implement [`TensorShape`] (picked first by
/// method resolution on `(&ShapeOf(&v)).output_shape()`).
pub trait OutputShapeKnown {
    /// The shape and element size.
    fn output_shape(&self) -> Option<(Vec<usize>, usize)>;
}

impl<T: TensorShape + ?Sized> OutputShapeKnown for ShapeOf<'_, T> {
    fn output_shape(&self) -> Option<(Vec<usize>, usize)> {
        Some((self.0.shape(), self.0.element_size()))
    }
}

/// Fallback for values without a shape: `None`.
pub trait OutputShapeUnknown {
    /// Always `None`.
    fn output_shape(&self) -> Option<(Vec<usize>, usize)>;
}

impl<T: ?Sized> OutputShapeUnknown for &ShapeOf<'_, T> {
    fn output_shape(&self) -> Option<(Vec<usize>, usize)> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(
        clippy::needless_borrow,
        reason = "the borrow is the autoref-specialisation under test"
    )]
    fn shapes_of_std_types() {
        let v = vec![0f32; 5];
        assert_eq!(input_shape(&v), [5]);
        assert_eq!(input_shape(&v[..2]), [2]);
        assert_eq!(input_shape(&[0u8; 3]), [3]);
        assert_eq!((&ShapeOf(&v)).output_shape(), Some((vec![5], 4)));
        assert_eq!((&ShapeOf(&3u32)).output_shape(), None);
    }
}
