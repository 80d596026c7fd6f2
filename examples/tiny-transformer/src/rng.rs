//! A tiny deterministic random number generator (xorshift64*, seeded through SplitMix64).
//!
//! Not cryptographic; it only has to be fast, reproducible across platforms and
//! good enough for weight initialisation and synthetic data.

/// SplitMix64 finaliser: a strong 64-bit mixing function used for seeding.
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// xorshift64* generator.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// Creates a generator from any seed (including 0).
    pub fn new(seed: u64) -> Self {
        let state = splitmix64(seed);
        // xorshift must never be in the all-zero state.
        Self {
            state: if state == 0 {
                0x2545_F491_4F6C_DD1D
            } else {
                state
            },
        }
    }

    /// An independent stream for `(seed, domain, index)`, e.g. "data batch number 17 of seed 42".
    pub fn stream(seed: u64, domain: u64, index: u64) -> Self {
        Self::new(seed ^ splitmix64(domain ^ splitmix64(index)))
    }

    /// Next raw 64-bit value.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform `f32` in `[0, 1)` with 24 bits of precision.
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 * (1.0 / (1u64 << 24) as f32)
    }

    /// Uniform integer in `0..n` (`n > 0`), by multiply-shift (negligible bias for small `n`).
    pub fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0);
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }

    /// Standard normal sample (Box-Muller, computed in `f64`).
    pub fn normal(&mut self) -> f32 {
        // u1 in (0, 1] so that ln(u1) is finite.
        let u1 = ((self.next_u64() >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64);
        let u2 = (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
        ((-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()) as f32
    }

    /// Fills `out` with `N(0, std^2)` samples.
    pub fn fill_normal(&mut self, out: &mut [f32], std: f32) {
        for x in out {
            *x = std * self.normal();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reproducible_and_seed_dependent() {
        let a: Vec<u64> = (0..4).map(|_| Rng::new(1).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
        assert_ne!(
            Rng::stream(1, 0, 0).next_u64(),
            Rng::stream(1, 0, 1).next_u64()
        );
    }

    #[test]
    fn distributions_have_expected_moments() {
        let mut rng = Rng::new(3);
        let n = 20_000;
        let (mut s, mut s2) = (0.0f64, 0.0f64);
        for _ in 0..n {
            let x = rng.normal() as f64;
            s += x;
            s2 += x * x;
        }
        let mean = s / n as f64;
        let var = s2 / n as f64 - mean * mean;
        assert!(mean.abs() < 0.05, "mean {mean}");
        assert!((var - 1.0).abs() < 0.05, "var {var}");
        let u: f32 = (0..n).map(|_| rng.next_f32()).sum::<f32>() / n as f32;
        assert!((u - 0.5).abs() < 0.02, "uniform mean {u}");
        assert!((0..1000).all(|_| rng.below(7) < 7));
    }
}
