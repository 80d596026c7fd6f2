//! Items used by code that `#[brick]` and `#[trace_op]` generate, and by the
//! sibling crates of the workspace.
//!
//! Not public API: anything here may change in any release.

pub use crate::catalogue::{BrickCategory, BrickId};
pub use crate::fs::{write_atomic, write_atomic_with};
pub use crate::record::amounts::{Amounts, IntoCount, IntoLayerIndex};
pub use crate::record::guard::{BrickGuard, Recording, recording};
pub use crate::record::site::{BrickSite, SiteRef};
pub use crate::trace::op::TraceOpGuard;
pub use crate::trace::shape::{OutputShapeKnown, OutputShapeUnknown, ShapeOf, input_shape};
pub use inventory;

/// Converts an `elements`/`bytes`/`flops` argument.
#[inline(always)]
pub fn count(value: impl IntoCount) -> u64 {
    value.into_count()
}

/// Converts a `device` argument of `#[trace_op]`.
pub fn device_id(value: &impl ::core::fmt::Display) -> Option<String> {
    Some(value.to_string())
}

/// Converts a `layer` argument.
#[inline(always)]
pub fn layer_index(value: impl IntoLayerIndex) -> u32 {
    value.into_layer_index()
}
