//! `#[brick]` and `#[trace_op]` through a renamed dependency: every form
//! that reaches the runtime (amounts, layer, device, shapes, output shape,
//! futures, call-site registration) must compile with `crate = prof`.
#![deny(warnings)]

use std::future::Future;

use prof::{brick, trace_op};

/// A built-in brick with every amount.
#[brick(RmsNorm, elements = x.len(), bytes = 4 * x.len(), flops = 3 * x.len(), layer = 1u32, crate = prof)]
pub fn rms_norm(x: &mut [f32]) -> usize {
    x.iter_mut().for_each(|v| *v *= 0.5);
    x.len()
}

/// A custom brick without amounts, the path written with a leading `::`.
#[brick("renamed.plain", category = Ffn, crate = ::prof)]
pub fn plain() -> u8 {
    7
}

/// Both macros, with every `#[trace_op]` argument and an output shape.
#[brick("renamed.matmul", elements = a.len(), crate = prof)]
#[trace_op(name = "renamed.matmul", device = "cpu", shapes(a, b), crate = prof)]
pub fn matmul(a: &[f32], b: &[f32]) -> Vec<f32> {
    a.iter().zip(b).map(|(x, y)| x * y).collect()
}

/// `#[trace_op]` with no other argument.
#[trace_op(crate = prof)]
pub fn unit_op(out: &mut Vec<u8>) {
    out.push(1);
}

/// A future built in the body.
#[brick("renamed.future", elements = n, crate = prof)]
#[trace_op(name = "renamed.future", crate = prof)]
pub fn future(n: usize) -> impl Future<Output = Vec<u8>> + Send {
    async move { vec![0; n] }
}

#[cfg(all(test, not(feature = "off")))]
mod tests {
    use super::*;
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
    fn renamed_dependency_records_through_crate_path() {
        prof::enable();
        assert_eq!(rms_norm(&mut [1.0; 8]), 8);
        assert_eq!(plain(), 7);
        assert_eq!(matmul(&[1.0; 3], &[2.0; 3]), [2.0; 3]);
        let mut out = Vec::new();
        unit_op(&mut out);
        assert_eq!(block_on(future(4)).len(), 4);
        let profile = prof::snapshot();
        let norm = profile.brick("RmsNorm").expect("recorded");
        assert_eq!((norm.count, norm.total_elements, norm.total_bytes), (1, 8, 32));
        assert_eq!(profile.brick("renamed.plain").map(|b| b.count), Some(1));
        assert_eq!(profile.brick("renamed.future").map(|b| b.total_elements), Some(4));
        let names: Vec<&str> = profile.trace.entries.iter().map(|e| e.operation.as_str()).collect();
        assert_eq!(names.len(), 3, "{names:?}");
        for name in ["renamed.matmul", "unit_op", "renamed.future"] {
            assert!(names.contains(&name), "{name} in {names:?}");
        }
        let sites: Vec<String> = profile.sites.iter().map(|s| s.name.clone()).collect();
        assert_eq!(sites.len(), 4, "{sites:?}");
    }
}
