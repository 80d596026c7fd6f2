//! The peak-FLOP probes: independent f32 and f64 fused multiply-add chains,
//! enough of them to cover FMA latency times throughput, vectorised for the
//! CPU it runs on (AVX-512F or AVX2+FMA on x86-64, chosen at run time; NEON
//! on aarch64; a portable multiply-add loop elsewhere), on every thread at once.

use std::hint::black_box;
use std::time::{Duration, Instant};

use super::converge::{Plan, Series};
use super::rounds::timed_rounds;

/// One vectorised kernel: `chains` accumulators of `lanes` floats each, every
/// iteration doing `x = x * m + a` on each (2 FLOPs per lane).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Kernel {
    /// Precision, as recorded in the ceilings: `"fp32"` or `"fp64"`.
    pub(crate) precision: &'static str,
    /// Instruction set, as recorded in the ceilings.
    pub(crate) isa: &'static str,
    /// How it measures: instructions, width, how ops are counted.
    pub(crate) method: &'static str,
    pub(crate) chains: u32,
    /// Multiply-adds per chain per iteration (2 ops each).
    pub(crate) lanes: u32,
    run: fn(u64) -> f32,
}

impl Kernel {
    /// A kernel of `chains` chains doing `lanes` multiply-adds each per
    /// iteration of `run`.
    pub(crate) fn new(
        precision: &'static str,
        isa: &'static str,
        method: &'static str,
        chains: u32,
        lanes: u32,
        run: fn(u64) -> f32,
    ) -> Self {
        Self {
            precision,
            isa,
            method,
            chains,
            lanes,
            run,
        }
    }

    /// FLOPs of `iters` iterations.
    pub(crate) fn flops(&self, iters: u64) -> f64 {
        iters as f64 * f64::from(self.chains) * f64::from(self.lanes) * 2.0
    }

    /// Runs `iters` iterations; the sum of the accumulators keeps the work.
    pub(crate) fn run(&self, iters: u64) -> f32 {
        (self.run)(black_box(iters))
    }
}

const FMA32: &str = "independent FMA chains x = x*m + a (2 FLOPs per lane), fp32 lanes";
const FMA64: &str = "independent FMA chains x = x*m + a (2 FLOPs per lane), fp64 lanes";

/// Multiplier and addend: the chains converge to 1.0, so no value
/// overflows or goes subnormal however long the probe runs.
const M: f32 = 0.999_9;
const A: f32 = 0.000_1;

/// Eight chains of eight lanes with a separate multiply and add, which any
/// target vectorises; the portable fallback.
fn portable(iters: u64) -> f32 {
    let (m, a) = (black_box(M), black_box(A));
    let mut acc = [[0.5f32; 8]; 8];
    for _ in 0..iters {
        for chain in &mut acc {
            for x in chain.iter_mut() {
                *x = *x * m + a;
            }
        }
    }
    acc.iter().flatten().sum()
}

/// The f64 portable fallback: eight chains of four lanes.
fn portable_f64(iters: u64) -> f32 {
    let (m, a) = (black_box(f64::from(M)), black_box(f64::from(A)));
    let mut acc = [[0.5f64; 4]; 8];
    for _ in 0..iters {
        for chain in &mut acc {
            for x in chain.iter_mut() {
                *x = *x * m + a;
            }
        }
    }
    acc.iter().flatten().sum::<f64>() as f32
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::{
        __m256, __m256d, __m512, __m512d, _mm_add_ps, _mm_cvtss_f32, _mm_hadd_ps, _mm256_add_pd,
        _mm256_add_ps, _mm256_castps256_ps128, _mm256_extractf128_ps, _mm256_fmadd_pd,
        _mm256_fmadd_ps, _mm256_set1_pd, _mm256_set1_ps, _mm256_storeu_pd, _mm512_add_pd,
        _mm512_add_ps, _mm512_fmadd_pd, _mm512_fmadd_ps, _mm512_reduce_add_pd,
        _mm512_reduce_add_ps, _mm512_set1_pd, _mm512_set1_ps,
    };
    use std::hint::black_box;

    /// 16 chains x 16 lanes: 16 of the 32 zmm registers, enough for a
    /// 4-cycle FMA on two ports (8 in flight) with room to spare.
    #[target_feature(enable = "avx512f")]
    fn avx512_kernel(iters: u64) -> f32 {
        let (m, a) = (
            _mm512_set1_ps(black_box(super::M)),
            _mm512_set1_ps(black_box(super::A)),
        );
        let mut acc: [__m512; 16] = [_mm512_set1_ps(0.5); 16];
        for _ in 0..iters {
            for x in &mut acc {
                *x = _mm512_fmadd_ps(*x, m, a);
            }
        }
        let sum = acc
            .iter()
            .fold(_mm512_set1_ps(0.0), |s, x| _mm512_add_ps(s, *x));
        _mm512_reduce_add_ps(sum)
    }

    /// 12 chains x 8 lanes: 12 of the 16 ymm registers (two hold `m`, `a`).
    #[target_feature(enable = "avx2,fma")]
    fn avx2_kernel(iters: u64) -> f32 {
        let (m, a) = (
            _mm256_set1_ps(black_box(super::M)),
            _mm256_set1_ps(black_box(super::A)),
        );
        let mut acc: [__m256; 12] = [_mm256_set1_ps(0.5); 12];
        for _ in 0..iters {
            for x in &mut acc {
                *x = _mm256_fmadd_ps(*x, m, a);
            }
        }
        let s = acc
            .iter()
            .fold(_mm256_set1_ps(0.0), |s, x| _mm256_add_ps(s, *x));
        let q = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps::<1>(s));
        let q = _mm_hadd_ps(q, q);
        _mm_cvtss_f32(_mm_hadd_ps(q, q))
    }

    /// The f64 twin of `avx512_kernel`: 16 chains x 8 lanes.
    #[target_feature(enable = "avx512f")]
    fn avx512_f64_kernel(iters: u64) -> f32 {
        let (m, a) = (
            _mm512_set1_pd(black_box(f64::from(super::M))),
            _mm512_set1_pd(black_box(f64::from(super::A))),
        );
        let mut acc: [__m512d; 16] = [_mm512_set1_pd(0.5); 16];
        for _ in 0..iters {
            for x in &mut acc {
                *x = _mm512_fmadd_pd(*x, m, a);
            }
        }
        let sum = acc
            .iter()
            .fold(_mm512_set1_pd(0.0), |s, x| _mm512_add_pd(s, *x));
        _mm512_reduce_add_pd(sum) as f32
    }

    /// The f64 twin of `avx2_kernel`: 12 chains x 4 lanes.
    #[target_feature(enable = "avx2,fma")]
    fn avx2_f64_kernel(iters: u64) -> f32 {
        let (m, a) = (
            _mm256_set1_pd(black_box(f64::from(super::M))),
            _mm256_set1_pd(black_box(f64::from(super::A))),
        );
        let mut acc: [__m256d; 12] = [_mm256_set1_pd(0.5); 12];
        for _ in 0..iters {
            for x in &mut acc {
                *x = _mm256_fmadd_pd(*x, m, a);
            }
        }
        let s = acc
            .iter()
            .fold(_mm256_set1_pd(0.0), |s, x| _mm256_add_pd(s, *x));
        let mut lanes = [0.0f64; 4];
        // SAFETY: `lanes` holds exactly the four f64 an unaligned store writes.
        unsafe { _mm256_storeu_pd(lanes.as_mut_ptr(), s) };
        lanes.iter().sum::<f64>() as f32
    }

    pub(super) fn avx512_f64(iters: u64) -> f32 {
        // SAFETY: only reachable through `kernel_f64()`, which returns this
        // kernel after `is_x86_feature_detected!("avx512f")` said yes.
        unsafe { avx512_f64_kernel(iters) }
    }

    pub(super) fn avx2_f64(iters: u64) -> f32 {
        // SAFETY: only reachable through `kernel_f64()`, which returns this
        // kernel after detecting both "avx2" and "fma" at run time.
        unsafe { avx2_f64_kernel(iters) }
    }

    pub(super) fn avx512(iters: u64) -> f32 {
        // SAFETY: only reachable through `kernel()`, which returns this
        // kernel after `is_x86_feature_detected!("avx512f")` said yes.
        unsafe { avx512_kernel(iters) }
    }

    pub(super) fn avx2(iters: u64) -> f32 {
        // SAFETY: only reachable through `kernel()`, which returns this
        // kernel after detecting both "avx2" and "fma" at run time.
        unsafe { avx2_kernel(iters) }
    }
}

#[cfg(target_arch = "aarch64")]
mod arm {
    use std::arch::aarch64::{
        float32x4_t, float64x2_t, vaddq_f32, vaddq_f64, vaddvq_f32, vaddvq_f64, vdupq_n_f32,
        vdupq_n_f64, vfmaq_f32, vfmaq_f64,
    };
    use std::hint::black_box;

    /// 16 chains x 4 lanes: half of the 32 NEON registers, enough for a
    /// 4-cycle FMA on up to four pipes.
    #[target_feature(enable = "neon")]
    fn neon_kernel(iters: u64) -> f32 {
        let (m, a) = (
            vdupq_n_f32(black_box(super::M)),
            vdupq_n_f32(black_box(super::A)),
        );
        let mut acc: [float32x4_t; 16] = [vdupq_n_f32(0.5); 16];
        for _ in 0..iters {
            for x in &mut acc {
                // vfmaq_f32(a, b, c) = a + b * c.
                *x = vfmaq_f32(a, *x, m);
            }
        }
        vaddvq_f32(acc.iter().fold(vdupq_n_f32(0.0), |s, x| vaddq_f32(s, *x)))
    }

    /// The f64 twin of `neon_kernel`: 16 chains x 2 lanes.
    #[target_feature(enable = "neon")]
    fn neon_f64_kernel(iters: u64) -> f32 {
        let (m, a) = (
            vdupq_n_f64(black_box(f64::from(super::M))),
            vdupq_n_f64(black_box(f64::from(super::A))),
        );
        let mut acc: [float64x2_t; 16] = [vdupq_n_f64(0.5); 16];
        for _ in 0..iters {
            for x in &mut acc {
                *x = vfmaq_f64(a, *x, m);
            }
        }
        vaddvq_f64(acc.iter().fold(vdupq_n_f64(0.0), |s, x| vaddq_f64(s, *x))) as f32
    }

    pub(super) fn neon_f64(iters: u64) -> f32 {
        // SAFETY: NEON is part of every aarch64 target Rust supports with std.
        #[allow(unused_unsafe)]
        unsafe {
            neon_f64_kernel(iters)
        }
    }

    pub(super) fn neon(iters: u64) -> f32 {
        // SAFETY: NEON is part of every aarch64 target Rust supports with std.
        #[allow(unused_unsafe)]
        unsafe {
            neon_kernel(iters)
        }
    }
}

/// The fastest kernel this CPU supports.
pub(crate) fn kernel() -> Kernel {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            return Kernel::new("fp32", "avx512f", FMA32, 16, 16, x86::avx512);
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            return Kernel::new("fp32", "avx2+fma", FMA32, 12, 8, x86::avx2);
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        return Kernel::new("fp32", "neon", FMA32, 16, 4, arm::neon);
    }
    #[allow(unreachable_code)]
    portable_kernel()
}

/// The portable kernel (also what tests compare the vector ones against).
pub(crate) fn portable_kernel() -> Kernel {
    Kernel::new("fp32", "portable", FMA32, 8, 8, portable)
}

/// The fastest f64 kernel this CPU supports.
pub(crate) fn kernel_f64() -> Kernel {
    let k = |isa, chains, lanes, run| Kernel::new("fp64", isa, FMA64, chains, lanes, run);
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            return k("avx512f", 16, 8, x86::avx512_f64);
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            return k("avx2+fma", 12, 4, x86::avx2_f64);
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        return k("neon", 16, 2, arm::neon_f64);
    }
    #[allow(unreachable_code)]
    k("portable", 8, 4, portable_f64)
}

/// Iterations that take about `target` on one thread.
fn calibrate(k: &Kernel, target: Duration) -> u64 {
    let mut iters = 1_000u64;
    loop {
        let t0 = Instant::now();
        black_box(k.run(iters));
        let took = t0.elapsed();
        if took >= Duration::from_millis(2) || iters >= 1 << 40 {
            let scale = target.as_secs_f64() / took.as_secs_f64().max(1e-9);
            return ((iters as f64 * scale) as u64).max(1);
        }
        iters *= 8;
    }
}

/// `k` on `threads` threads at once, rounds of about `target` each, as
/// many as `plan` says.
pub(crate) fn measure(k: Kernel, threads: usize, plan: Plan, target: Duration) -> Series {
    let threads = threads.max(1);
    let iters = calibrate(&k, target);
    let rounds = timed_rounds(
        vec![(); threads],
        |r| plan.more(r),
        |()| {
            black_box(k.run(iters));
        },
    );
    Series::new(
        format!("{} peak", k.precision.to_uppercase()),
        k.flops(iters) * threads as f64,
        rounds,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_computes_the_same_recurrence() {
        // After n steps from 0.5, x = 1 - 0.5 * M^n; the sum is lanes * chains of it.
        let f64_portable = Kernel::new("fp64", "portable", FMA64, 8, 4, portable_f64);
        for k in [kernel(), portable_kernel(), kernel_f64(), f64_portable] {
            let n = 1000u64;
            let expect = (1.0 - 0.5 * f64::from(M).powi(n as i32)) * f64::from(k.chains * k.lanes);
            let got = f64::from(k.run(n));
            assert!(
                (got - expect).abs() < 1e-3 * expect,
                "{}: {got} vs {expect}",
                k.isa
            );
        }
    }

    #[test]
    fn flops_count_two_per_lane_per_iteration() {
        let k = portable_kernel();
        assert_eq!(k.flops(10), 10.0 * 8.0 * 8.0 * 2.0);
        let plan = Plan {
            min: 2,
            max: 2,
            budget: Duration::ZERO,
        };
        let t = measure(k, 2, plan, Duration::from_millis(5));
        assert_eq!(t.rounds.len(), 2);
        assert_eq!(t.what, "FP32 peak");
        assert!(t.best() > 0.0);
    }
}
