//! [`TensorShape`]: how `#[trace_op]` learns the shapes of arguments and
//! return values, with autoref specialisation for values that have none.

use crate::profile::DEFAULT_ELEMENT_SIZE;

/// A value with a tensor shape, for `#[trace_op(shapes(...))]` and output shapes.
///
/// Implemented for slices, arrays, `Vec`s and references to them; implement
/// it for your tensor type:
///
/// ```
/// # use profiler_core as profiler;
/// struct Tensor { dims: Vec<usize>, data: Vec<f32> }
/// impl profiler::trace::TensorShape for Tensor {
///     fn shape(&self) -> Vec<usize> { self.dims.clone() }
///     fn element_size(&self) -> usize { 4 }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no tensor shape",
    label = "`shapes(...)` arguments must implement `profiler::trace::TensorShape`",
    note = "implement `profiler::trace::TensorShape` for your tensor type, or leave this argument out of `shapes(...)`"
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
