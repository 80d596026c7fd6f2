//! What a recorded call carries besides its duration: [`Amounts`] of work,
//! and the conversions that turn user expressions (`elements = x.len()`,
//! `layer = i`) into them without ever failing.

use crate::profile::MAX_LAYER_INDEX;

/// Layer context meaning "not inside a layer" (and, in [`Amounts::layer`],
/// "the enclosing layer scope").
pub(crate) const NO_LAYER: u32 = u32::MAX;

/// Per-call amounts given to `#[brick(..., elements = e, bytes = b, flops = f, layer = l)]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Amounts {
    /// Elements (tokens, rows, ...) processed.
    pub elements: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// Floating-point operations performed.
    pub flops: u64,
    /// Explicit layer index, or `u32::MAX` for "the enclosing layer scope".
    pub layer: u32,
}

impl Amounts {
    /// No amounts, no explicit layer.
    pub const NONE: Amounts = Amounts {
        elements: 0,
        bytes: 0,
        flops: 0,
        layer: NO_LAYER,
    };
}

/// A per-call amount (`elements`, `bytes`, `flops`): an integer or a float.
/// Negative values and NaN count as 0; huge values saturate.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a count: `elements`, `bytes` and `flops` take an integer or a float",
    label = "expected an integer or a float"
)]
pub trait IntoCount {
    /// The amount as `u64`.
    fn into_count(self) -> u64;
}

macro_rules! integer_counts {
    ($($t:ty),*) => {$(
        impl IntoCount for $t {
            #[inline(always)]
            fn into_count(self) -> u64 {
                // `max(0)` is a no-op for unsigned types, clamps signed ones.
                u64::try_from(self.max(0)).unwrap_or(u64::MAX)
            }
        }
    )*};
}
// Signed types too, so that a literal (`elements = 4`, an `i32` by default) works.
integer_counts!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize
);

impl IntoCount for f64 {
    #[inline(always)]
    fn into_count(self) -> u64 {
        // `as` maps NaN to 0 and saturates out-of-range values.
        self as u64
    }
}

impl IntoCount for f32 {
    #[inline(always)]
    fn into_count(self) -> u64 {
        self as u64
    }
}

/// A layer index (for `#[brick(..., layer = i)]` and `layer`):
/// an integer. Indices saturate at `MAX_LAYER_INDEX`;
/// a negative index, always a bug, is recorded under that largest index so it
/// stands out in reports instead of merging into layer 0.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a layer index: `layer` takes an integer",
    label = "expected an integer"
)]
pub trait IntoLayerIndex {
    /// The index as `u32`, saturating at the largest layer index.
    fn into_layer_index(self) -> u32;
}

macro_rules! layer_indices {
    ($($t:ty),*) => {$(
        impl IntoLayerIndex for $t {
            #[inline(always)]
            fn into_layer_index(self) -> u32 {
                // A negative index fails the conversion and lands on the largest.
                u32::try_from(self).unwrap_or(u32::MAX).min(MAX_LAYER_INDEX)
            }
        }
    )*};
}
// Signed types too, so that a literal (`layer(2, ..)`, an `i32` by default) works.
layer_indices!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_saturate_and_clamp_negatives() {
        assert_eq!(7usize.into_count(), 7);
        assert_eq!((-3i32).into_count(), 0);
        assert_eq!(u128::MAX.into_count(), u64::MAX);
        assert_eq!(f64::NAN.into_count(), 0);
        assert_eq!((-1.5f32).into_count(), 0);
        assert_eq!(2.9f64.into_count(), 2);
    }

    #[test]
    fn layer_indices_saturate_and_negatives_stand_out() {
        assert_eq!(5i32.into_layer_index(), 5);
        assert_eq!(5usize.into_layer_index(), 5);
        assert_eq!((-1i64).into_layer_index(), MAX_LAYER_INDEX);
        assert_eq!(u64::MAX.into_layer_index(), MAX_LAYER_INDEX);
    }
}
