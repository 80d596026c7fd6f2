#![deny(warnings)]
//! `#[trace_op]` on every function shape it supports.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use profiler::{trace_op, trace::TensorShape};

struct Tensor {
    dims: Vec<usize>,
}

impl TensorShape for Tensor {
    fn shape(&self) -> Vec<usize> {
        self.dims.clone()
    }
}

/// Docs are kept.
#[trace_op]
#[inline]
#[must_use]
pub(crate) fn default_name(a: &[f32]) -> Vec<f32> {
    a.to_vec()
}

#[trace_op(name = "pass.generic", shapes(items))]
fn generic<T>(items: &[T]) -> Vec<T>
where
    T: Clone,
{
    items.to_vec()
}

#[trace_op(name = "pass.unsafe")]
unsafe fn unsafe_fn(ptr: *const u8) -> u8 {
    unsafe { *ptr }
}

#[trace_op(name = "pass.extern")]
extern "C" fn extern_c(x: u32) -> u32 {
    x + 1
}

#[trace_op(name = "pass.async", shapes(v))]
async fn async_fn(v: Vec<u8>) -> Vec<u8> {
    v
}

#[trace_op(name = "pass.impl_trait")]
fn impl_trait(n: u32) -> impl Iterator<Item = u32> {
    0..n
}

#[trace_op(name = "pass.early")]
fn early(x: &[u8]) -> Vec<u8> {
    if x.is_empty() {
        return vec![];
    }
    x.to_vec()
}

#[trace_op(name = "pass.question")]
fn question(s: &str) -> Result<u8, std::num::ParseIntError> {
    Ok(s.parse()?)
}

#[trace_op(name = "pass.recursion")]
fn recursion(n: u32) -> u32 {
    if n == 0 { 0 } else { 1 + recursion(n - 1) }
}

#[trace_op(name = "pass.panic")]
fn panics() -> Vec<u8> {
    panic!("boom")
}

#[trace_op(name = "pass.inner_attrs")]
fn inner_attrs() -> Vec<u8> {
    #![allow(unused_variables)]
    let unused = 1;
    vec![1, 2]
}

#[trace_op(name = "pass.unit", device = 0)]
fn unit(out: &mut Vec<u8>) {
    out.push(1);
}

#[trace_op(name = "pass.never")]
fn never() -> ! {
    panic!("never")
}

#[trace_op(name = "pass.inferred")]
fn inferred(s: &str) -> u64 {
    s.parse().unwrap()
}

#[trace_op(name = "pass.coerced")]
fn coerced() -> Box<dyn Fn() -> u8> {
    Box::new(|| 1)
}

#[trace_op(name = "pass.r#match")]
fn r#match() -> u8 {
    1
}

#[trace_op]
fn r#loop() {}

struct Layer {
    weights: Tensor,
    device: &'static str,
}

impl Layer {
    #[trace_op(name = "pass.ref_self", device = self.device, shapes(self, x))]
    fn by_ref(&self, x: &Tensor) -> Tensor {
        Tensor {
            dims: x.dims.iter().chain(&self.weights.dims).copied().collect(),
        }
    }

    #[trace_op(name = "pass.mut_self")]
    fn by_mut(&mut self) {
        self.weights.dims.push(1);
    }

    #[trace_op(name = "pass.self")]
    fn by_value(self) -> Tensor {
        self.weights
    }

    #[trace_op(name = "pass.box_self")]
    fn boxed(self: Box<Self>) -> usize {
        self.weights.dims.len()
    }
}

impl TensorShape for Layer {
    fn shape(&self) -> Vec<usize> {
        self.weights.shape()
    }
}

trait Forward {
    #[trace_op(name = "pass.trait_default")]
    fn forward(&self) -> Vec<u8> {
        vec![self.width()]
    }

    fn width(&self) -> u8;
}

impl Forward for Layer {
    #[trace_op(name = "pass.trait_impl")]
    fn width(&self) -> u8 {
        3
    }
}

fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut cx) {
            return value;
        }
    }
}

fn main() {
    // The panics below are expected; keep the test output quiet.
    std::panic::set_hook(Box::new(|_| {}));
    profiler::enable();
    assert_eq!(default_name(&[1.0]), [1.0]);
    assert_eq!(generic(&[1u8, 2, 3]), [1, 2, 3]);
    let byte = 5u8;
    assert_eq!(unsafe { unsafe_fn(&byte) }, 5);
    assert_eq!(extern_c(1), 2);
    assert_eq!(block_on(async_fn(vec![1, 2])), [1, 2]);
    assert_eq!(impl_trait(3).count(), 3);
    assert!(early(&[]).is_empty());
    assert_eq!(question("7"), Ok(7));
    assert_eq!(recursion(2), 2);
    assert!(std::panic::catch_unwind(panics).is_err());
    assert_eq!(inner_attrs(), [1, 2]);
    unit(&mut Vec::new());
    assert!(std::panic::catch_unwind(|| never()).is_err());
    assert_eq!(inferred("9"), 9);
    assert_eq!(coerced()(), 1);
    assert_eq!(r#match(), 1);
    r#loop();
    let mut layer = Layer {
        weights: Tensor { dims: vec![4] },
        device: "cuda:0",
    };
    assert_eq!(layer.by_ref(&Tensor { dims: vec![2] }).dims, [2, 4]);
    layer.by_mut();
    assert_eq!(layer.forward(), [3]);
    assert_eq!(
        Box::new(Layer {
            weights: Tensor { dims: vec![] },
            device: ""
        })
        .boxed(),
        0
    );
    assert_eq!(layer.by_value().dims, [4, 1]);

    let trace = profiler::snapshot().trace;
    let entry = |name: &str| {
        trace
            .entries
            .iter()
            .find(|e| e.operation == name)
            .unwrap_or_else(|| panic!("no entry for {name}"))
    };
    assert_eq!(entry("default_name").output_shape, [1]);
    assert_eq!(entry("pass.generic").input_shapes, [[3]]);
    assert_eq!(entry("pass.async").input_shapes, [[2]]);
    assert_eq!(entry("pass.async").output_shape, [2]);
    assert!(entry("pass.early").output_shape.is_empty());
    assert_eq!(entry("pass.inner_attrs").output_shape, [2]);
    assert_eq!(entry("pass.unit").device_id.as_deref(), Some("0"));
    let by_ref = entry("pass.ref_self");
    assert_eq!(by_ref.input_shapes, [vec![4], vec![2]]);
    assert_eq!(
        (by_ref.device_id.as_deref(), &by_ref.output_shape[..]),
        (Some("cuda:0"), &[2, 4][..])
    );
    assert_eq!(entry("pass.self").output_shape, [4, 1]);
    assert_eq!(entry("pass.r#match").operation, "pass.r#match");
    assert_eq!(entry("loop").operation, "loop");
    for name in [
        "pass.unsafe",
        "pass.extern",
        "pass.impl_trait",
        "pass.question",
        "pass.panic",
        "pass.never",
        "pass.inferred",
        "pass.coerced",
        "pass.mut_self",
        "pass.box_self",
        "pass.trait_default",
        "pass.trait_impl",
    ] {
        entry(name);
    }
    assert_eq!(
        trace
            .entries
            .iter()
            .filter(|e| e.operation == "pass.recursion")
            .count(),
        3
    );
}
