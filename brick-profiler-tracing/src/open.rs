//! The calls a thread has open: one entry per enter of a span timed per
//! enter, closed by the matching exit on the same thread (tracing's enter
//! guards cannot leave their thread, so neither do these).

use std::cell::RefCell;

use profiler_core::LayerGuard;
use profiler_core::dynamic::BrickGuard;

/// One open call: the span, its brick guard and whether it opened a layer
/// scope. Scopes sit on their own stack, so the common entry stays small
/// (it is moved in on enter and out on exit).
struct Open {
    /// Which `BrickLayer` opened it, so two layers on one thread never
    /// close each other's calls.
    owner: u32,
    scoped: bool,
    span: u64,
    brick: BrickGuard,
}

thread_local! {
    static OPEN: RefCell<Vec<Open>> = const { RefCell::new(Vec::new()) };
    /// The layer scopes of the open calls that have one, in the same order.
    static SCOPES: RefCell<Vec<LayerGuard>> = const { RefCell::new(Vec::new()) };
}

/// Notes a call of `span` opened on this thread.
#[inline]
pub(crate) fn push(owner: u32, span: u64, scope: Option<LayerGuard>, brick: BrickGuard) {
    let scoped = scope.is_some();
    if let Some(scope) = scope {
        SCOPES.with(|scopes| scopes.borrow_mut().push(scope));
    }
    OPEN.with(|open| {
        open.borrow_mut().push(Open {
            owner,
            scoped,
            span,
            brick,
        });
    });
}

/// Closes the innermost open call of `span` on this thread, recording it.
/// An exit with no such call (the span was entered while the profiler was
/// off) does nothing.
#[inline]
pub(crate) fn pop(owner: u32, span: u64) {
    let closed = OPEN.with(|open| {
        let mut open = open.borrow_mut();
        // Spans exit in the order they entered, but for spans entered
        // while the profiler was off or by another layer.
        match open.last() {
            Some(o) if o.owner == owner && o.span == span => {
                open.pop().map(|o| (o.brick, o.scoped, open.len()))
            }
            _ => {
                let at = open
                    .iter()
                    .rposition(|o| o.owner == owner && o.span == span)?;
                let o = open.remove(at);
                Some((o.brick, o.scoped, at))
            }
        }
        .map(|(brick, scoped, at)| {
            // Scopes of the calls before it, which sit below its own.
            let below = if scoped {
                open[..at].iter().filter(|o| o.scoped).count()
            } else {
                usize::MAX
            };
            (brick, below)
        })
    });
    let Some((brick, below)) = closed else {
        return;
    };
    let scope = (below != usize::MAX)
        .then(|| SCOPES.with(|scopes| remove(&mut scopes.borrow_mut(), below)))
        .flatten();
    // Dropped outside the borrows: the brick first, inside its layer scope.
    drop(brick);
    drop(scope);
}

/// Removes entry `at` of `scopes`, if there.
fn remove(scopes: &mut Vec<LayerGuard>, at: usize) -> Option<LayerGuard> {
    (at < scopes.len()).then(|| scopes.remove(at))
}
