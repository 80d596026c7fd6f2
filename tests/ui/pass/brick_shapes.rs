#![deny(warnings)]
//! `#[brick]` on every function shape it supports.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use profiler::brick;

/// Doc comments, `pub(crate)` and other attributes are kept.
#[brick(RmsNorm, elements = x.len())]
#[inline]
#[must_use]
pub(crate) fn free(x: &[f32]) -> f32 {
    x.iter().sum()
}

#[brick("pass.generic")]
fn generic<T, U>(value: T) -> U
where
    T: Into<U>,
{
    value.into()
}

#[brick("pass.unsafe")]
unsafe fn unsafe_fn(ptr: *const u8) -> u8 {
    unsafe { *ptr }
}

#[brick("pass.extern")]
extern "C" fn extern_c(x: u32) -> u32 {
    x + 1
}

#[brick("pass.async")]
async fn async_fn(x: u32) -> u32 {
    x * 2
}

#[brick("pass.impl_trait")]
fn impl_trait(n: u32) -> impl Iterator<Item = u32> {
    0..n
}

#[brick("pass.early")]
fn early(x: i32) -> i32 {
    if x < 0 {
        return -1;
    }
    x
}

#[brick("pass.question")]
fn question(s: &str) -> Result<u8, std::num::ParseIntError> {
    let v: u8 = s.parse()?;
    Ok(v)
}

#[brick("pass.recursion")]
fn recursion(n: u32) -> u32 {
    if n == 0 { 0 } else { 1 + recursion(n - 1) }
}

#[brick("pass.panic")]
fn panics() {
    panic!("boom");
}

#[brick("pass.inner_attrs")]
fn inner_attrs() -> u32 {
    #![allow(unused_variables)]
    //! Inner docs stay inner.
    let unused = 1;
    2
}

#[brick("pass.never")]
fn never() -> ! {
    panic!("never")
}

struct Model {
    weights: Vec<f32>,
}

impl Model {
    #[brick("pass.ref_self", elements = self.weights.len())]
    fn by_ref(&self) -> usize {
        self.weights.len()
    }

    #[brick("pass.mut_self")]
    fn by_mut(&mut self) {
        self.weights.push(0.0);
    }

    #[brick("pass.self")]
    fn by_value(self) -> Vec<f32> {
        self.weights
    }

    #[brick("pass.box_self")]
    fn boxed(self: Box<Self>) -> usize {
        self.weights.len()
    }
}

trait Op {
    #[brick("pass.trait_default")]
    fn default_method(&self) -> u8 {
        self.required() + 1
    }

    fn required(&self) -> u8;
}

impl Op for Model {
    #[brick("pass.trait_impl")]
    fn required(&self) -> u8 {
        1
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

fn count(name: &str) -> u64 {
    profiler::snapshot().brick(name).map_or(0, |b| b.count)
}

fn main() {
    // The panics below are expected; keep the test output quiet.
    std::panic::set_hook(Box::new(|_| {}));
    profiler::enable();
    assert_eq!(free(&[1.0, 2.0]), 3.0);
    assert_eq!(generic::<u8, u32>(7), 7);
    let byte = 5u8;
    assert_eq!(unsafe { unsafe_fn(&byte) }, 5);
    assert_eq!(extern_c(1), 2);
    assert_eq!(block_on(async_fn(2)), 4);
    assert_eq!(impl_trait(3).count(), 3);
    assert_eq!(early(-3), -1);
    assert_eq!(question("12"), Ok(12));
    assert!(question("x").is_err());
    assert_eq!(recursion(3), 3);
    assert!(std::panic::catch_unwind(panics).is_err());
    assert_eq!(inner_attrs(), 2);
    assert!(std::panic::catch_unwind(|| never()).is_err());
    let mut model = Model { weights: vec![1.0] };
    assert_eq!(model.by_ref(), 1);
    model.by_mut();
    assert_eq!(model.default_method(), 2);
    assert_eq!(Box::new(Model { weights: vec![] }).boxed(), 0);
    assert_eq!(model.by_value().len(), 2);

    let profile = profiler::snapshot();
    assert_eq!(profile.brick("RmsNorm").map(|b| b.total_elements), Some(2));
    for (name, calls) in [
        ("pass.generic", 1),
        ("pass.unsafe", 1),
        ("pass.extern", 1),
        ("pass.async", 1),
        ("pass.impl_trait", 1),
        ("pass.early", 1),
        ("pass.question", 2),
        ("pass.recursion", 4),
        ("pass.panic", 1),
        ("pass.inner_attrs", 1),
        ("pass.never", 1),
        ("pass.ref_self", 1),
        ("pass.mut_self", 1),
        ("pass.self", 1),
        ("pass.box_self", 1),
        ("pass.trait_default", 1),
        ("pass.trait_impl", 1),
    ] {
        assert_eq!(count(name), calls, "{name}");
    }
}
