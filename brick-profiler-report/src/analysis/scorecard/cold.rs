//! Cold calls: a brick whose mean is far above its p99 spent most of its
//! time in a few calls (a first call that compiled, allocated or faulted
//! pages in, or an outlier). Such a brick is named in the warnings, and
//! hotspots rank it without its slowest call's excess over its p99, so one
//! cold call does not make a hotspot.

use profiler_core::Profile;

use super::units::pct;
use crate::base::textfmt::duration;

/// A mean this many times the p99 marks a brick as having a cold call.
pub(crate) const COLD_FACTOR: f64 = 2.0;

/// A brick whose time is dominated by its slowest call.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ColdCall {
    /// The brick.
    pub(crate) name: String,
    /// The slowest call's excess over the p99, ms per step: what hotspot
    /// ranking leaves out.
    pub(crate) excess_ms: f64,
    /// The warning that names it.
    pub(crate) warning: String,
}

/// Bricks of `profile` whose mean is above [`COLD_FACTOR`] times their p99,
/// the slowest first. `per_step` divides run totals into per-step times.
pub(crate) fn cold_calls(profile: &Profile, per_step: f64) -> Vec<ColdCall> {
    let mut found: Vec<(u64, ColdCall)> = profile
        .bricks
        .iter()
        .filter(|b| b.count >= 2 && b.total_ns > 0)
        .filter_map(|b| {
            let mean = b.total_ns as f64 / b.count as f64;
            let p99 = b.percentile_ns(0.99) as f64;
            if mean <= COLD_FACTOR * p99 {
                return None;
            }
            let excess = (b.max_ns as f64 - p99).max(0.0);
            let warning = format!(
                "`{}`: mean {} is {:.0}x its p99 of {}: its slowest call, {} (a cold first call \
                 or an outlier), is {} of its total {} over {} calls; hotspots rank it without \
                 that call's excess over p99",
                b.name,
                duration(mean),
                if p99 > 0.0 { mean / p99 } else { f64::INFINITY },
                duration(p99),
                duration(b.max_ns as f64),
                pct(b.max_ns as f64 / b.total_ns as f64),
                duration(b.total_ns as f64),
                b.count
            );
            let call = ColdCall {
                name: b.name.clone(),
                excess_ms: excess / 1e6 / per_step,
                warning,
            };
            Some((b.max_ns, call))
        })
        .collect();
    found.sort_by_key(|c| std::cmp::Reverse(c.0));
    found.into_iter().map(|(_, c)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use profiler_core::stats::{HistBucket, LatencyHistogram};
    use profiler_core::{BrickCategory, BrickStats};

    /// A brick of `n` calls of `ns` each, per `(ns, n)`, one histogram bucket each.
    fn brick(name: &str, calls: &[(u64, u64)]) -> BrickStats {
        let mut b = BrickStats::new(name, BrickCategory::Other);
        b.count = calls.iter().map(|c| c.1).sum();
        b.total_ns = calls.iter().map(|c| c.0 * c.1).sum();
        b.min_ns = calls.iter().map(|c| c.0).min().unwrap_or(0);
        b.max_ns = calls.iter().map(|c| c.0).max().unwrap_or(0);
        b.latency = LatencyHistogram {
            buckets: calls
                .iter()
                .map(|&(ns, count)| HistBucket {
                    lo_ns: ns,
                    hi_ns: ns + 1,
                    count,
                })
                .collect(),
        };
        b
    }

    #[test]
    fn one_cold_call_is_named_with_its_share_and_excess() {
        let mut p = Profile::empty();
        // 199 calls of 4 µs and one of 12.6 ms, as the decode example's
        // output projection showed.
        p.bricks
            .push(brick("OutputProjection", &[(4_000, 199), (12_600_000, 1)]));
        p.bricks.push(brick("Steady", &[(4_000, 200)]));
        let cold = cold_calls(&p, 2.0);
        assert_eq!(cold.len(), 1, "{cold:?}");
        let c = &cold[0];
        assert_eq!(c.name, "OutputProjection");
        // Excess over a p99 of about 4 µs, halved per step.
        assert!((c.excess_ms - 6.298).abs() < 0.01, "{}", c.excess_ms);
        assert!(c.warning.contains("12.6 ms"), "{}", c.warning);
        assert!(c.warning.contains("94.1%"), "{}", c.warning);
    }

    #[test]
    fn a_single_call_or_an_even_brick_is_not_cold() {
        let mut p = Profile::empty();
        p.bricks.push(brick("Once", &[(9_000_000, 1)]));
        p.bricks.push(brick("Tail", &[(1_000, 3), (2_500, 1)]));
        assert!(cold_calls(&p, 1.0).is_empty());
    }
}
