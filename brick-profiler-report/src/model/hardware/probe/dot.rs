//! The low-precision peak probes: INT8 and BF16 dot products with the
//! instructions made for them, chosen at run time: AVX-512 VNNI or AVX-VNNI
//! `vpdpbusd`, else AVX2's `vpmaddubsw` + `vpmaddwd` (the int8 path GEMM
//! libraries take on AVX2); AVX-512 BF16 `vdpbf16ps`. No kernel is offered
//! for a precision without a native instruction: an emulation is no peak.

use super::flops::Kernel;

/// Bytes of each lane's start value, and the addend of every step: the
/// int8 chains stay below 2^11, so no kernel depends on saturation.
const START: i32 = 0x0403_0201;
const ADDEND: i32 = 3;

/// Ops per multiply-add counted as vendors count them: 2 (a multiply and
/// an add), as for FMA FLOPs.
const INT8_METHOD_AVX2: &str = "independent chains of u8 x i8 multiply-adds with vpmaddubsw \
     (_mm256_maddubs_epi16) then vpmaddwd (_mm256_madd_epi16), 256-bit, 32 multiply-adds per \
     pair of instructions, 2 ops per multiply-add";
const INT8_METHOD_AVX_VNNI: &str = "independent chains of u8 x i8 multiply-adds with vpdpbusd \
     (_mm256_dpbusd_avx_epi32, AVX-VNNI), 256-bit, 32 multiply-adds per instruction, 2 ops per \
     multiply-add";
const INT8_METHOD_AVX512_VNNI: &str = "independent chains of u8 x i8 multiply-adds with vpdpbusd \
     (_mm512_dpbusd_epi32, AVX-512 VNNI), 512-bit, 64 multiply-adds per instruction, 2 ops per \
     multiply-add";
const BF16_METHOD: &str = "independent chains of bf16 pair dot products into f32 with vdpbf16ps \
     (_mm512_dpbf16_ps, AVX-512 BF16), 512-bit, 32 multiply-adds per instruction, 2 FLOPs per \
     multiply-add";

/// One step of an int8 chain on one 32-bit lane, as every int8 kernel
/// computes it: the lane's four bytes as u8 times 1 (i8), summed, plus
/// [`ADDEND`]. For the tests.
#[cfg(test)]
fn int8_step(v: i32) -> i32 {
    v.to_le_bytes().iter().map(|b| i32::from(*b)).sum::<i32>() + ADDEND
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::{
        __m256i, __m512, __m512i, _mm256_add_epi32, _mm256_dpbusd_avx_epi32, _mm256_madd_epi16,
        _mm256_maddubs_epi16, _mm256_set1_epi8, _mm256_set1_epi16, _mm256_set1_epi32,
        _mm256_storeu_si256, _mm512_add_epi32, _mm512_add_ps, _mm512_cvtne2ps_pbh,
        _mm512_dpbf16_ps, _mm512_dpbusd_epi32, _mm512_reduce_add_epi32, _mm512_reduce_add_ps,
        _mm512_set1_epi8, _mm512_set1_epi32, _mm512_set1_ps,
    };
    use std::hint::black_box;

    use super::{ADDEND, START};

    /// The lanes of `v` summed, as f32 (the chains stay small, so exactly).
    #[target_feature(enable = "avx2")]
    fn sum_256(acc: &[__m256i]) -> f32 {
        let s = acc
            .iter()
            .fold(_mm256_set1_epi32(0), |s, x| _mm256_add_epi32(s, *x));
        let mut lanes = [0i32; 8];
        // SAFETY: `lanes` holds exactly the 32 bytes an unaligned store writes.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), s) };
        lanes.iter().map(|l| *l as f32).sum()
    }

    /// 12 chains x 32 u8 x i8 pairs: each step feeds a chain's bytes back
    /// into the multiply, so no multiply can be hoisted out of the loop.
    #[target_feature(enable = "avx2")]
    fn avx2_int8_kernel(iters: u64) -> f32 {
        let ones8 = _mm256_set1_epi8(black_box(1));
        let ones16 = _mm256_set1_epi16(black_box(1));
        let c = _mm256_set1_epi32(black_box(ADDEND));
        let mut acc: [__m256i; 12] = [_mm256_set1_epi32(START); 12];
        for _ in 0..iters {
            for x in &mut acc {
                let pairs = _mm256_maddubs_epi16(*x, ones8);
                *x = _mm256_add_epi32(_mm256_madd_epi16(pairs, ones16), c);
            }
        }
        sum_256(&acc)
    }

    /// The same chains with AVX-VNNI's one-instruction multiply-add.
    #[target_feature(enable = "avx2,avxvnni")]
    fn avx_vnni_int8_kernel(iters: u64) -> f32 {
        let ones8 = _mm256_set1_epi8(black_box(1));
        let c = _mm256_set1_epi32(black_box(ADDEND));
        let mut acc: [__m256i; 12] = [_mm256_set1_epi32(START); 12];
        for _ in 0..iters {
            for x in &mut acc {
                *x = _mm256_dpbusd_avx_epi32(c, *x, ones8);
            }
        }
        sum_256(&acc)
    }

    /// 16 chains x 64 pairs with AVX-512 VNNI.
    #[target_feature(enable = "avx512f,avx512vnni")]
    fn avx512_vnni_int8_kernel(iters: u64) -> f32 {
        let ones8 = _mm512_set1_epi8(black_box(1));
        let c = _mm512_set1_epi32(black_box(ADDEND));
        let mut acc: [__m512i; 16] = [_mm512_set1_epi32(START); 16];
        for _ in 0..iters {
            for x in &mut acc {
                *x = _mm512_dpbusd_epi32(c, *x, ones8);
            }
        }
        let s = acc
            .iter()
            .fold(_mm512_set1_epi32(0), |s, x| _mm512_add_epi32(s, *x));
        _mm512_reduce_add_epi32(s) as f32
    }

    /// 16 chains x 32 bf16 pairs: `acc += a0*b0 + a1*b1` per f32 lane,
    /// with 1.0 x 2^-8 (exact in bf16 and in the f32 sums).
    #[target_feature(enable = "avx512f,avx512bf16")]
    fn avx512_bf16_kernel(iters: u64) -> f32 {
        let a = _mm512_set1_ps(black_box(1.0));
        let b = _mm512_set1_ps(black_box(1.0 / 256.0));
        let (a, b) = (_mm512_cvtne2ps_pbh(a, a), _mm512_cvtne2ps_pbh(b, b));
        let mut acc: [__m512; 16] = [_mm512_set1_ps(0.5); 16];
        for _ in 0..iters {
            for x in &mut acc {
                *x = _mm512_dpbf16_ps(*x, a, b);
            }
        }
        let s = acc
            .iter()
            .fold(_mm512_set1_ps(0.0), |s, x| _mm512_add_ps(s, *x));
        _mm512_reduce_add_ps(s)
    }

    pub(super) fn avx2_int8(iters: u64) -> f32 {
        // SAFETY: only reachable through `int8_kernel()`, which returns this
        // kernel after `is_x86_feature_detected!("avx2")` said yes.
        unsafe { avx2_int8_kernel(iters) }
    }

    pub(super) fn avx_vnni_int8(iters: u64) -> f32 {
        // SAFETY: only reachable through `int8_kernel()`, which returns this
        // kernel after detecting "avx2" and "avxvnni" at run time.
        unsafe { avx_vnni_int8_kernel(iters) }
    }

    pub(super) fn avx512_vnni_int8(iters: u64) -> f32 {
        // SAFETY: only reachable through `int8_kernel()`, which returns this
        // kernel after detecting "avx512f" and "avx512vnni" at run time.
        unsafe { avx512_vnni_int8_kernel(iters) }
    }

    pub(super) fn avx512_bf16(iters: u64) -> f32 {
        // SAFETY: only reachable through `bf16_kernel()`, which returns this
        // kernel after detecting "avx512f" and "avx512bf16" at run time.
        unsafe { avx512_bf16_kernel(iters) }
    }
}

/// The fastest INT8 dot-product kernel this CPU has, if it has one.
pub(crate) fn int8_kernel() -> Option<Kernel> {
    #[cfg(target_arch = "x86_64")]
    {
        let k = |isa, method, chains, lanes, run| {
            Some(Kernel::new("int8", isa, method, chains, lanes, run))
        };
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vnni")
        {
            return k(
                "avx512_vnni",
                INT8_METHOD_AVX512_VNNI,
                16,
                64,
                x86::avx512_vnni_int8,
            );
        }
        if std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("avxvnni")
        {
            return k("avx_vnni", INT8_METHOD_AVX_VNNI, 12, 32, x86::avx_vnni_int8);
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            return k("avx2", INT8_METHOD_AVX2, 12, 32, x86::avx2_int8);
        }
    }
    None
}

/// The BF16 dot-product kernel, on a CPU with a native BF16 instruction.
pub(crate) fn bf16_kernel() -> Option<Kernel> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bf16")
        {
            return Some(Kernel::new(
                "bf16",
                "avx512_bf16",
                BF16_METHOD,
                16,
                32,
                x86::avx512_bf16,
            ));
        }
    }
    None
}

/// BF16 and INT8 dot-product instruction sets this CPU has, by name.
pub(crate) fn low_precision_isa() -> Vec<&'static str> {
    let mut found = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512bf16") {
            found.push("avx512_bf16");
        }
        if std::arch::is_x86_feature_detected!("avx512vnni") {
            found.push("avx512_vnni");
        }
        if std::arch::is_x86_feature_detected!("avxvnni") {
            found.push("avx_vnni");
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        if std::arch::is_aarch64_feature_detected!("bf16") {
            found.push("bf16");
        }
        if std::arch::is_aarch64_feature_detected!("dotprod") {
            found.push("dotprod");
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int8_kernels_compute_the_chain_they_count() {
        let Some(k) = int8_kernel() else {
            // No int8 path on this CPU (not x86-64 with AVX2).
            assert!(!cfg!(target_arch = "x86_64") || !std::arch::is_x86_feature_detected!("avx2"));
            return;
        };
        let n = 1000;
        let lane = (0..n).fold(START, |v, _| int8_step(v));
        let lanes_per_chain = k.lanes / 4;
        let expect = f64::from(lane) * f64::from(k.chains * lanes_per_chain);
        assert_eq!(f64::from(k.run(n)), expect, "{}", k.isa);
        assert_eq!(k.flops(10), 10.0 * f64::from(k.chains * k.lanes) * 2.0);
    }

    #[test]
    fn bf16_is_measured_only_with_a_native_instruction() {
        match bf16_kernel() {
            Some(k) => {
                // 0.5 + n x (2 x 2^-8) per lane, 16 lanes per chain.
                let n = 1000u64;
                let lane = 0.5 + n as f64 * 2.0 / 256.0;
                let expect = lane * f64::from(k.chains) * 16.0;
                assert!((f64::from(k.run(n)) - expect).abs() < 1e-6 * expect);
            }
            None => assert!(
                !cfg!(target_arch = "x86_64") || !std::arch::is_x86_feature_detected!("avx512bf16")
            ),
        }
    }
}
