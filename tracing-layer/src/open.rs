//! The calls a thread has open: one entry per enter of a span timed per
//! enter, closed by the matching exit on the same thread (tracing's enter
//! guards cannot leave their thread, so neither do these).

use std::cell::RefCell;

use profiler_core::LayerGuard;
use profiler_core::dynamic::BrickGuard;

/// One open call: the span, its brick guard and the layer scope it opened.
struct Open {
    /// Which `BrickLayer` opened it, so two layers on one thread never
    /// close each other's calls.
    owner: u32,
    span: u64,
    brick: BrickGuard,
    scope: Option<LayerGuard>,
}

thread_local! {
    static OPEN: RefCell<Vec<Open>> = const { RefCell::new(Vec::new()) };
}

/// Notes a call of `span` opened on this thread.
pub(crate) fn push(owner: u32, span: u64, scope: Option<LayerGuard>, brick: BrickGuard) {
    OPEN.with(|open| {
        open.borrow_mut().push(Open {
            owner,
            span,
            brick,
            scope,
        });
    });
}

/// Closes the innermost open call of `span` on this thread, recording it.
/// An exit with no such call (the span was entered while the profiler was
/// off) does nothing.
pub(crate) fn pop(owner: u32, span: u64) {
    let closed = OPEN.with(|open| {
        let mut open = open.borrow_mut();
        let at = open
            .iter()
            .rposition(|o| o.owner == owner && o.span == span)?;
        Some(open.remove(at))
    });
    // Dropped outside the borrow: the brick first, inside its layer scope.
    if let Some(Open { brick, scope, .. }) = closed {
        drop(brick);
        drop(scope);
    }
}
