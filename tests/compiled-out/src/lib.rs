//! Every form of `#[brick]` and `#[trace_op]`, built with `profiler`'s
//! `off` feature: the functions must behave as if unannotated and the
//! profiler must record nothing, not even a call-site registration.
//!
//! Argument checking is kept under `off`; a misspelt brick still fails:
//!
//! ```compile_fail
//! #[profiler::brick(RmsNrom)]
//! fn norm() {}
//! ```
//!
//! ```compile_fail
//! #[profiler::trace_op(shapes(missing))]
//! fn matmul(a: &[f32]) -> usize { a.len() }
//! ```
//!
//! And argument types are checked as in an instrumented build:
//!
//! ```compile_fail
//! #[profiler::brick(RmsNorm, elements = "not a count")]
//! fn norm() {}
//! ```
#![deny(warnings)]

use profiler::{brick, trace_op, trace::TensorShape};

/// A tensor for `shapes(...)`.
pub struct Tensor {
    /// Dimensions.
    pub dims: Vec<usize>,
}

impl TensorShape for Tensor {
    fn shape(&self) -> Vec<usize> {
        self.dims.clone()
    }
}

/// A built-in brick with every amount.
#[brick(RmsNorm, elements = x.len(), bytes = 4 * x.len(), flops = 3 * x.len(), layer = 0u32)]
pub fn rms_norm(x: &mut [f32]) -> usize {
    x.iter_mut().for_each(|v| *v *= 0.5);
    x.len()
}

/// A parameter used only by the attribute: must not become an
/// `unused_variables` error under `deny(warnings)` when compiled out.
#[brick(RmsNorm, layer = layer)]
#[trace_op(device = device, shapes(x))]
pub fn only_in_attributes(layer: usize, device: &str, x: &[f32]) {}

/// An alias.
#[brick(SiLU)]
pub fn silu(x: f32) -> f32 {
    x / (1.0 + (-x).exp())
}

/// A custom brick with a category.
#[brick("FusedGateUp", category = Ffn, elements = n)]
pub fn fused_gate_up(n: u64) -> u64 {
    n * 2
}

/// `#[trace_op]` with no arguments.
#[trace_op]
pub fn plain(a: &[f32]) -> Vec<f32> {
    a.to_vec()
}

/// `#[trace_op]` with every argument.
#[trace_op(name = "matmul", device = "cpu", shapes(a, b))]
pub fn matmul(a: &Tensor, b: &Tensor) -> Tensor {
    Tensor {
        dims: vec![a.dims[0], b.dims[1]],
    }
}

/// Both macros on a method, with an `async fn` and early return alongside.
pub struct Layer;

impl Layer {
    /// Method with both macros.
    #[brick(LmHead, elements = x.len())]
    #[trace_op(name = "lm_head", shapes(x))]
    pub fn forward(&self, x: &[f32]) -> usize {
        if x.is_empty() {
            return 0;
        }
        x.len()
    }

    /// An async method.
    #[brick("AsyncStep")]
    #[trace_op]
    pub async fn step(&mut self, n: u32) -> u32 {
        n + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    fn block_on<F: Future>(future: F) -> F::Output {
        let mut future = pin!(future);
        let mut cx = Context::from_waker(Waker::noop());
        loop {
            if let Poll::Ready(value) = future.as_mut().poll(&mut cx) {
                return value;
            }
        }
    }

    #[test]
    fn annotated_functions_record_nothing() {
        profiler::enable();
        assert!(!profiler::is_enabled(), "`off` keeps the profiler disabled");

        let mut x = vec![2.0_f32; 8];
        assert_eq!(rms_norm(&mut x), 8);
        assert!(silu(0.0).abs() < f32::EPSILON);
        assert_eq!(fused_gate_up(21), 42);
        assert_eq!(plain(&[1.0]), [1.0]);
        let t = Tensor { dims: vec![2, 3] };
        assert_eq!(matmul(&t, &Tensor { dims: vec![3, 4] }).dims, [2, 4]);
        let mut layer = Layer;
        assert_eq!(layer.forward(&x), 8);
        assert_eq!(layer.forward(&[]), 0);
        assert_eq!(block_on(layer.step(1)), 2);

        let profile = profiler::snapshot();
        assert!(profile.bricks.is_empty(), "{:?}", profile.bricks);
        assert!(
            profile.trace.entries.is_empty(),
            "{:?}",
            profile.trace.entries
        );
        assert!(!profiler::is_enabled());
    }

    #[test]
    fn the_scorecard_says_instrumentation_is_compiled_out() {
        profiler::enable();
        let mut x = vec![2.0_f32; 8];
        for _ in 0..3 {
            let _step = profiler::step(64);
            rms_norm(&mut x);
        }
        let text = profiler_report::scorecard().to_string();
        let grade = text
            .lines()
            .find_map(|l| l.strip_prefix("  Grade            "))
            .unwrap_or_default();
        assert!(
            grade.starts_with(
                "n/a: nothing was recorded: this program was built with the profiler's `off` \
                 feature"
            ),
            "{text}"
        );
    }

    #[test]
    fn no_call_site_is_registered() {
        // With instrumentation compiled in, each `#[brick]` above registers
        // its call site at link time; compiled out, none exists.
        assert_eq!(profiler::snapshot().sites, []);
    }
}
