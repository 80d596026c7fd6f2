//! Robust statistics for noise-aware regression checks: median, MAD and the
//! Mann-Whitney U test (normal approximation with tie and continuity
//! corrections). Rank-based, so a few slow outlier steps (a GC pause, a
//! checkpoint) do not drive the verdict the way they would a t-test.

/// Median of finite values (0 for an empty slice).
pub(crate) fn median(values: &[f64]) -> f64 {
    let mut v: Vec<f64> = values.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Median absolute deviation from the median, scaled by 1.4826 so it
/// estimates the standard deviation of normal data.
pub(crate) fn scaled_mad(values: &[f64]) -> f64 {
    let m = median(values);
    let deviations: Vec<f64> = values.iter().map(|x| (x - m).abs()).collect();
    1.4826 * median(&deviations)
}

/// Result of a two-sided Mann-Whitney U test of `a` against `b`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct MannWhitney {
    /// U statistic of `a`.
    pub(crate) u: f64,
    /// Normal approximation z score (continuity corrected, >= 0).
    pub(crate) z: f64,
    /// Two-sided p-value.
    pub(crate) p_value: f64,
}

/// Two-sided Mann-Whitney U test. `None` when either side is empty.
pub(crate) fn mann_whitney(a: &[f64], b: &[f64]) -> Option<MannWhitney> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let (n1, n2) = (a.len() as f64, b.len() as f64);
    let mut all: Vec<(f64, bool)> = a
        .iter()
        .map(|&x| (x, true))
        .chain(b.iter().map(|&x| (x, false)))
        .collect();
    all.sort_by(|x, y| x.0.total_cmp(&y.0));
    let n = all.len();
    let (mut rank_sum_a, mut tie_term) = (0.0, 0.0);
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && all[j + 1].0 == all[i].0 {
            j += 1;
        }
        // Ranks i+1 ..= j+1 share their average.
        let avg_rank = (i + j + 2) as f64 / 2.0;
        let t = (j - i + 1) as f64;
        tie_term += t * t * t - t;
        rank_sum_a += avg_rank * all[i..=j].iter().filter(|e| e.1).count() as f64;
        i = j + 1;
    }
    let u = rank_sum_a - n1 * (n1 + 1.0) / 2.0;
    let mean = n1 * n2 / 2.0;
    let total = n1 + n2;
    let variance = n1 * n2 / 12.0 * ((total + 1.0) - tie_term / (total * (total - 1.0)));
    if variance <= 0.0 || !variance.is_finite() {
        return Some(MannWhitney {
            u,
            z: 0.0,
            p_value: 1.0,
        });
    }
    let z = ((u - mean).abs() - 0.5).max(0.0) / variance.sqrt();
    Some(MannWhitney {
        u,
        z,
        p_value: (2.0 * normal_sf(z)).min(1.0),
    })
}

/// Upper tail of the standard normal distribution.
pub(crate) fn normal_sf(z: f64) -> f64 {
    0.5 * erfc(z / std::f64::consts::SQRT_2)
}

/// Complementary error function (Chebyshev fit, fractional error < 1.2e-7).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_mad() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
        // |x - 3| = 2,1,0,1,2 -> median 1.
        assert!((scaled_mad(&[1.0, 2.0, 3.0, 4.0, 5.0]) - 1.4826).abs() < 1e-12);
    }

    #[test]
    fn erfc_matches_known_values() {
        assert!((erfc(0.0) - 1.0).abs() < 1e-7);
        assert!((erfc(1.0) - 0.157_299_207).abs() < 1e-7);
        assert!((erfc(-1.0) - 1.842_700_793).abs() < 1e-7);
        assert!((normal_sf(1.959_964) - 0.025).abs() < 1e-6);
    }

    #[test]
    fn separated_samples_are_significant() {
        let a: Vec<f64> = (1..=8).map(f64::from).collect();
        let b: Vec<f64> = (9..=16).map(f64::from).collect();
        let r = mann_whitney(&a, &b).unwrap();
        assert_eq!(r.u, 0.0);
        // sigma = sqrt(8*8*17/12); z = (32 - 0.5) / sigma = 3.308; p = 0.00094.
        assert!((r.z - 3.3082).abs() < 1e-3, "{r:?}");
        assert!(r.p_value > 0.0009 && r.p_value < 0.00099, "{r:?}");
    }

    #[test]
    fn interleaved_and_identical_samples_are_not() {
        let a = [1.0, 3.0, 5.0, 7.0, 9.0, 11.0];
        let b = [2.0, 4.0, 6.0, 8.0, 10.0, 12.0];
        assert!(mann_whitney(&a, &b).unwrap().p_value > 0.5);
        let same = [5.0; 10];
        assert_eq!(mann_whitney(&same, &same).unwrap().p_value, 1.0);
        assert!(mann_whitney(&[], &same).is_none());
    }
}
