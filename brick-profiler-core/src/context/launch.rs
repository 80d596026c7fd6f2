//! [`launch_context`]: where in the run the calling thread is (the bricks,
//! layer, phase and step open on it), read when a device launch call is
//! entered so the kernel it starts can be charged to them later. Reads
//! thread-locals only: no lock, no allocation.

use super::phase::current_phase;
use super::step::thread_step;
use crate::profile::Direction;
use crate::record::amounts::NO_LAYER;
use crate::record::layers::unpack;
use crate::record::site::name_of;
use crate::record::state;
use crate::record::thread::{PATH_DEPTH, current_layer, open_bricks, with_slab};

/// The deepest brick nesting a [`BrickPath`] names; deeper launches keep
/// the innermost brick and the outermost ones and say so.
pub const MAX_PATH: usize = PATH_DEPTH;

/// The bricks open on a thread, innermost first, by brick slot (the
/// profiler's number for a brick; [`brick_name`] names it), in a fixed
/// array: taking one never allocates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BrickPath {
    ids: [u32; MAX_PATH],
    len: u8,
    truncated: bool,
}

impl BrickPath {
    /// No brick open.
    pub const EMPTY: Self = Self {
        ids: [0; MAX_PATH],
        len: 0,
        truncated: false,
    };

    /// The path from brick slots listed innermost first; slots past
    /// [`MAX_PATH`] (the outermost ones) are dropped and
    /// [`BrickPath::is_truncated`] says so.
    pub fn innermost_first(ids: &[u32]) -> Self {
        let mut path = Self::EMPTY;
        for &id in ids.iter().take(MAX_PATH) {
            path.ids[usize::from(path.len)] = id;
            path.len += 1;
        }
        path.truncated = ids.len() > MAX_PATH;
        path
    }

    /// The innermost open brick, if any.
    pub fn innermost(&self) -> Option<u32> {
        self.as_slice().first().copied()
    }

    /// The open bricks, innermost first.
    pub fn as_slice(&self) -> &[u32] {
        &self.ids[..usize::from(self.len)]
    }

    /// Whether some open bricks were left out (their totals then miss
    /// what was launched here).
    pub fn is_truncated(&self) -> bool {
        self.truncated
    }
}

impl Default for BrickPath {
    fn default() -> Self {
        Self::EMPTY
    }
}

/// Where a launch happened in the run: the bricks, layer, phase and step
/// open on the launching thread when the launch call was entered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LaunchContext {
    /// The open bricks, innermost first (empty: outside every brick).
    pub bricks: BrickPath,
    /// The innermost layer scope: index and direction.
    pub layer: Option<(u32, Direction)>,
    /// The innermost phase's id (the order phases were first opened).
    pub phase: Option<u32>,
    /// The outermost step open on the thread.
    pub step: Option<u64>,
    /// The profiler's number for the launching thread (its trace track).
    pub thread: Option<u32>,
}

/// Where the calling thread is now: call it when a device launch call is
/// entered (a CUPTI callback runs on the launching thread) and keep the
/// result with the launch's correlation id.
pub fn launch_context() -> LaunchContext {
    let (ids, len, truncated) = open_bricks();
    let mut bricks = BrickPath::innermost_first(&ids[..len]);
    bricks.truncated = truncated;
    let layer = current_layer();
    LaunchContext {
        bricks,
        layer: (layer != NO_LAYER).then(|| unpack(layer)),
        phase: current_phase(),
        step: thread_step(),
        thread: with_slab(state::load(), |slab, _| slab.thread),
    }
}

/// The name of the brick in `slot` (a [`BrickPath`] entry), if one has it.
/// Takes the brick table's lock: for reports, not for the launch path.
pub fn brick_name(slot: u32) -> Option<std::sync::Arc<str>> {
    name_of(slot)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::thread::{enter_brick, exit_brick};

    fn enter(slot: u32) -> (u32, u32) {
        (slot, enter_brick(slot))
    }

    #[test]
    fn the_path_names_open_bricks_innermost_first_and_unwinds() {
        assert_eq!(launch_context().bricks, BrickPath::EMPTY);
        let outer = enter(3);
        let inner = enter(5);
        assert_eq!(launch_context().bricks.as_slice(), [5, 3]);
        exit_brick(inner.0, inner.1);
        assert_eq!(launch_context().bricks.as_slice(), [3]);
        let again = enter(6);
        assert_eq!(launch_context().bricks.as_slice(), [6, 3]);
        exit_brick(again.0, again.1);
        exit_brick(outer.0, outer.1);
        assert_eq!(launch_context().bricks.as_slice(), [] as [u32; 0]);
    }

    #[test]
    fn a_path_deeper_than_the_limit_keeps_the_innermost_and_the_outermost() {
        let opened: Vec<_> = (0..(MAX_PATH as u32 + 3)).map(enter).collect();
        let path = launch_context().bricks;
        assert!(path.is_truncated());
        let mut expected = vec![MAX_PATH as u32 + 2];
        expected.extend((0..(MAX_PATH as u32 - 1)).rev());
        assert_eq!(path.as_slice(), expected);
        for (slot, parent) in opened.into_iter().rev() {
            exit_brick(slot, parent);
        }
        assert_eq!(launch_context().bricks, BrickPath::EMPTY);
    }
}
