//! Layers as a profile reports them: index, [`Direction`], the scope's wall
//! time and the bricks that ran inside.

use serde::{Deserialize, Serialize};

use crate::counter::saturating_sum;

/// Whether a layer scope runs the forward or the backward pass.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Forward pass.
    #[default]
    Forward,
    /// Backward pass.
    Backward,
}

impl Direction {
    /// `"fwd"` or `"bwd"`.
    #[must_use]
    pub const fn short_name(self) -> &'static str {
        match self {
            Self::Forward => "fwd",
            Self::Backward => "bwd",
        }
    }
}

/// Largest layer index a scope can carry (the context packs index and direction).
pub const MAX_LAYER_INDEX: u32 = (u32::MAX >> 1) - 1;

/// Aggregated time of one layer in one direction, as reported in a
/// `Profile`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayerStats {
    /// Layer index.
    pub index: u32,
    /// Forward or backward.
    pub direction: Direction,
    /// Times the scope was entered.
    pub scope_count: u64,
    /// Wall time spent inside the scope.
    pub scope_ns: u64,
    /// Bricks that ran inside the layer, by total time descending.
    pub ops: Vec<LayerOp>,
}

impl LayerStats {
    /// The layer's time: the scope's wall time, or the sum of its bricks when
    /// it was only attributed through `#[brick(..., layer = i)]`.
    #[must_use]
    pub fn total_ns(&self) -> u64 {
        if self.scope_count > 0 {
            self.scope_ns
        } else {
            saturating_sum(self.ops.iter().map(|o| o.total_ns))
        }
    }
}

/// Time one brick spent inside one layer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayerOp {
    /// Brick name.
    pub name: String,
    /// Calls inside the layer.
    pub count: u64,
    /// Total time inside the layer.
    pub total_ns: u64,
}
