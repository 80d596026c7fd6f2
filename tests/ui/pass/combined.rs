#![deny(warnings)]
#![forbid(unsafe_code)]
//! `#[brick]` and `#[trace_op]` on one function, in either order, in a
//! crate that forbids `unsafe` code.

use profiler::{brick, trace_op};

#[brick(LmHead, elements = n)]
#[trace_op(name = "lm_head", shapes(logits))]
fn lm_head(logits: &[f32], n: u64) -> Vec<f32> {
    logits.to_vec()
}

#[trace_op(name = "sample")]
#[brick(Sample)]
fn sample(logits: &[f32]) -> usize {
    logits.len()
}

fn main() {
    profiler::enable();
    assert_eq!(lm_head(&[0.5; 3], 3).len(), 3);
    assert_eq!(sample(&[0.5; 3]), 3);
    let profile = profiler::snapshot();
    assert_eq!(profile.brick("LmHead").map(|b| b.total_elements), Some(3));
    assert_eq!(profile.brick("Sampling").map(|b| b.count), Some(1));
    let ops: Vec<&str> = profile
        .trace
        .entries
        .iter()
        .map(|e| e.operation.as_str())
        .collect();
    assert_eq!(ops, ["lm_head", "sample"]);
    assert_eq!(profile.trace.entries[0].output_shape, [3]);
}
