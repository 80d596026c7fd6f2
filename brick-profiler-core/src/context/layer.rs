//! Layer scopes: a [`LayerGuard`] sets the calling thread's layer context
//! (index and [`Direction`]); bricks that finish inside it add their time to
//! the thread's layer table. Open scopes form a per-thread stack, so guards
//! may drop in any order.

use std::cell::{Cell, RefCell};
use std::marker::PhantomData;

use super::scope::ScopeStart;
use crate::kernel_data::NodeKind;
use crate::profile::{Direction, EventKind, SyncMode};
use crate::record::amounts::{IntoLayerIndex, NO_LAYER};
use crate::record::layers::{SCOPE_SLOT, pack, unpack};
use crate::record::scope_memory::{self, ScopeKey};
use crate::record::state;
use crate::record::thread::swap_layer;
use crate::record::uncharged::uncharged;

/// Open layer scope; attributes bricks on this thread to the layer until dropped.
///
/// Created by [`layer`]. Dropping it records the scope's wall time, runs the
/// sync hook first in [`SyncMode::PerLayer`], and
/// makes the innermost scope still open the current one again. Guards may
/// drop in any order (`g = layer(i, ..)` in a loop is fine); they belong to
/// the thread that opened them, hence `!Send`.
#[must_use = "the layer scope ends when this guard is dropped: bind it to a named variable \
              (`let _layer = profiler::layer(i, dir);`; `let _ = ...` drops it at once), \
              or use `profiler::in_layer(i, dir, || ...)`"]
#[derive(Debug)]
pub struct LayerGuard {
    ctx: u32,
    token: u64,
    start: Option<ScopeStart>,
    /// The scope's mark of the memory ledger, when memory is tracked.
    memory: Option<u64>,
    _thread_bound: PhantomData<*const ()>,
}

thread_local! {
    /// Open layer scopes of this thread, innermost last: (token, context).
    static OPEN: RefCell<Vec<(u64, u32)>> = const { RefCell::new(Vec::new()) };
    static NEXT_TOKEN: Cell<u64> = const { Cell::new(0) };
}

/// Makes the innermost open scope (or none) the thread's layer context.
fn restore_innermost(open: &[(u64, u32)]) {
    swap_layer(open.last().map_or(NO_LAYER, |&(_, ctx)| ctx));
}

/// Opens a layer scope: bricks on this thread finishing before the guard
/// drops count towards layer `index` in `direction`.
///
/// `index` is any unsigned integer (`usize` loop indices work as-is);
/// indices above the largest packable index are clamped to it.
///
/// ```
/// # use profiler_core as profiler;
/// use profiler::{layer, Direction};
/// for i in 0..4 {
///     let _layer = layer(i, Direction::Forward);
///     // attention, MLP, ... of layer i
/// }
/// ```
pub fn layer(index: impl IntoLayerIndex, direction: Direction) -> LayerGuard {
    let ctx = pack(index.into_layer_index(), direction);
    let token = NEXT_TOKEN.with(|t| t.replace(t.get().wrapping_add(1)));
    // The stack's growth is the profiler's own allocation, not the caller's.
    let _ = OPEN.try_with(|open| uncharged(|| open.borrow_mut().push((token, ctx))));
    swap_layer(ctx);
    LayerGuard {
        ctx,
        token,
        start: ScopeStart::now(|| NodeKind::Layer {
            index: unpack(ctx).0,
        })
        .map(|start| {
            start.named(|| {
                let (index, direction) = unpack(ctx);
                format!("layer {index} {}", direction.short_name())
            })
        }),
        memory: scope_memory::open(ScopeKey::Layer(ctx)),
        _thread_bound: PhantomData,
    }
}

/// Runs `f` inside a layer scope and returns its result.
pub fn in_layer<R>(index: impl IntoLayerIndex, direction: Direction, f: impl FnOnce() -> R) -> R {
    let _guard = layer(index, direction);
    f()
}

impl Drop for LayerGuard {
    fn drop(&mut self) {
        if let Some(token) = self.memory.take() {
            scope_memory::close(token);
        }
        if let Some(start) = self.start.take() {
            if state::sync_mode() == SyncMode::PerLayer {
                state::run_sync_hook();
            }
            let ctx = self.ctx;
            start.finish(EventKind::Layer, u64::from(ctx), [0; 3], |slab, ticks| {
                slab.layers.add(ctx, SCOPE_SLOT, ticks);
            });
        }
        let token = self.token;
        let _ = OPEN.try_with(|open| {
            let mut open = open.borrow_mut();
            if let Some(at) = open.iter().rposition(|&(t, _)| t == token) {
                open.remove(at);
            }
            restore_innermost(&open);
        });
    }
}
