#![deny(warnings)]
//! Every argument form of `#[brick]`: aliases, custom names, categories in
//! both spellings, amounts of every numeric kind, trailing commas.

use profiler::{BrickCategory, brick};

#[brick(Qkv, elements = n, bytes = n * 4, flops = 2 * n, layer = 3usize,)]
fn qkv(n: u64) -> u64 {
    n
}

#[brick(SiLU, elements = x.len() as f32 * 0.5)]
fn silu(x: &[f32]) -> usize {
    x.len()
}

#[brick("pass.fused", category = FFN, elements = 4u8)]
fn fused() {}

#[brick("pass.fft", category = FFT)]
fn fft() {}

#[brick("pass.default_category")]
fn default_category() {}

#[brick(spmv)]
fn sparse() {}

#[brick(r"pass.raw")]
fn raw() {}

fn main() {
    profiler::enable();
    qkv(10);
    silu(&[0.0; 8]);
    fused();
    fft();
    default_category();
    sparse();
    raw();
    let profile = profiler::snapshot();
    let qkv = profile.brick("QkvProjection").unwrap();
    assert_eq!(
        (
            qkv.count,
            qkv.total_elements,
            qkv.total_bytes,
            qkv.total_flops
        ),
        (1, 10, 40, 20)
    );
    assert!(profile.layers.iter().any(|l| l.index == 3));
    assert_eq!(profile.brick("Activation").unwrap().total_elements, 4);
    let fused = profile.brick("pass.fused").unwrap();
    assert_eq!(
        (fused.category, fused.total_elements),
        (BrickCategory::Ffn, 4)
    );
    assert_eq!(
        profile.brick("pass.fft").unwrap().category,
        BrickCategory::Fft
    );
    assert_eq!(
        profile.brick("pass.default_category").unwrap().category,
        BrickCategory::Other
    );
    assert_eq!(profile.brick("SpMV").unwrap().count, 1);
    assert_eq!(profile.brick("pass.raw").unwrap().count, 1);
    assert!(
        profiler::snapshot().sites
            .iter()
            .any(|s| s.name == "pass.raw" && s.line == 29)
    );
}
