//! How times spread across ranks, in bounded sizes for any fleet: each
//! rank's step times as a box (neighbouring ranks pooled past
//! [`SPREAD_MAX_BOXES`]), the slowest steps beyond their box's whisker, and
//! each brick's time per rank as a strip of counts.

use super::read::RankData;
use crate::analysis::straggler::{median, quantile};

/// Most boxes of the step-time spread: beyond that, neighbouring ranks
/// share a box of their pooled steps.
pub const SPREAD_MAX_BOXES: usize = 128;
/// Most slow steps kept (the slowest beyond their box's whisker).
pub const SPREAD_MAX_OUTLIERS: usize = 200;
/// Bins of a brick's strip.
pub const STRIP_BINS: usize = 48;

/// Step times of consecutive ranks (one rank unless pooled), ns.
#[derive(Debug, Clone, PartialEq)]
pub struct RankBox {
    /// Its first rank.
    pub first_rank: u32,
    /// Its last rank (equal to `first_rank` for one rank).
    pub last_rank: u32,
    /// Step samples pooled.
    pub samples: usize,
    /// Fastest step.
    pub min_ns: f64,
    /// First quartile.
    pub p25_ns: f64,
    /// Median.
    pub median_ns: f64,
    /// Third quartile.
    pub p75_ns: f64,
    /// Slowest step.
    pub max_ns: f64,
    /// The upper whisker: the slowest step within 1.5 interquartile ranges
    /// of the third quartile; steps above it are outliers.
    pub whisker_ns: f64,
    /// The lower whisker, likewise.
    pub low_whisker_ns: f64,
    /// Its stragglers (by the fleet's rule), ascending.
    pub stragglers: Vec<u32>,
}

/// One step slower than its box's upper whisker.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlowStep {
    /// The rank.
    pub rank: u32,
    /// The step index.
    pub step: u64,
    /// Its wall time, ns.
    pub ns: f64,
}

/// The boxes of `ranks` (ascending by rank) and their slowest outliers
/// (at most [`SPREAD_MAX_OUTLIERS`], slowest first), with how many
/// outliers there were in all.
pub(crate) fn step_boxes(
    ranks: &[RankData],
    stragglers: &[u32],
) -> (Vec<RankBox>, Vec<SlowStep>, usize) {
    let per_box = ranks.len().div_ceil(SPREAD_MAX_BOXES).max(1);
    let mut outliers: Vec<SlowStep> = Vec::new();
    let mut outlier_count = 0;
    let boxes = ranks
        .chunks(per_box)
        .map(|chunk| {
            let mut times: Vec<f64> = chunk
                .iter()
                .flat_map(|d| d.steps.iter().map(|&(_, ns)| ns as f64))
                .collect();
            times.sort_by(f64::total_cmp);
            let (p25, p75) = (quantile(&times, 0.25), quantile(&times, 0.75));
            let fence = p75 + 1.5 * (p75 - p25);
            let low_fence = p25 - 1.5 * (p75 - p25);
            let whisker = times.iter().rev().find(|&&t| t <= fence).copied();
            let low_whisker = times.iter().find(|&&t| t >= low_fence).copied();
            for d in chunk {
                for &(step, ns) in &d.steps {
                    if ns as f64 > fence {
                        outlier_count += 1;
                        outliers.push(SlowStep {
                            rank: d.rank,
                            step,
                            ns: ns as f64,
                        });
                    }
                }
            }
            // Keep the slowest only, as we go, so memory stays bounded.
            if outliers.len() > 4 * SPREAD_MAX_OUTLIERS {
                keep_slowest(&mut outliers);
            }
            let first_rank = chunk.first().map_or(0, |d| d.rank);
            let last_rank = chunk.last().map_or(0, |d| d.rank);
            RankBox {
                first_rank,
                last_rank,
                samples: times.len(),
                min_ns: times.first().copied().unwrap_or(0.0),
                p25_ns: p25,
                median_ns: median(&times),
                p75_ns: p75,
                max_ns: times.last().copied().unwrap_or(0.0),
                whisker_ns: whisker.unwrap_or(p75),
                low_whisker_ns: low_whisker.unwrap_or(p25),
                stragglers: stragglers
                    .iter()
                    .copied()
                    .filter(|r| (first_rank..=last_rank).contains(r))
                    .collect(),
            }
        })
        .collect();
    keep_slowest(&mut outliers);
    (boxes, outliers, outlier_count)
}

fn keep_slowest(outliers: &mut Vec<SlowStep>) {
    outliers.sort_by(|a, b| b.ns.total_cmp(&a.ns).then(a.rank.cmp(&b.rank)));
    outliers.truncate(SPREAD_MAX_OUTLIERS);
}

/// One brick's time per step on each rank that ran it, as counts of ranks
/// in [`STRIP_BINS`] equal bins from the fastest rank's to the slowest's.
#[derive(Debug, Clone, PartialEq)]
pub struct BrickStrip {
    /// The brick.
    pub name: String,
    /// Ranks that ran it.
    pub ranks: usize,
    /// The fastest rank's time per step, ns.
    pub min_ns: f64,
    /// The median over the ranks that ran it, ns per step.
    pub median_ns: f64,
    /// The slowest rank's time per step, ns.
    pub max_ns: f64,
    /// The slowest rank.
    pub slowest_rank: u32,
    /// Ranks per bin (one bin when every rank took the same time).
    pub bins: Vec<u32>,
}

impl BrickStrip {
    /// The strip of `name` from its `(rank, ns per step)` over the ranks
    /// that ran it; `None` without any.
    pub(crate) fn of(name: &str, values: &[(u32, f64)]) -> Option<Self> {
        let (slowest_rank, max_ns) = values
            .iter()
            .copied()
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))?;
        let min_ns = values.iter().map(|v| v.1).fold(f64::INFINITY, f64::min);
        let times: Vec<f64> = values.iter().map(|v| v.1).collect();
        let width = max_ns - min_ns;
        let n = if width > 0.0 { STRIP_BINS } else { 1 };
        let mut bins = vec![0u32; n];
        for &t in &times {
            let at = if width > 0.0 {
                (((t - min_ns) / width) * n as f64) as usize
            } else {
                0
            };
            bins[at.min(n - 1)] += 1;
        }
        Some(Self {
            name: name.to_owned(),
            ranks: values.len(),
            min_ns,
            median_ns: median(&times),
            max_ns,
            slowest_rank,
            bins,
        })
    }

    /// How much slower the slowest rank is than the median, as a fraction
    /// (0.5 = 50%); `None` when the median is 0.
    #[must_use]
    pub fn slowest_excess(&self) -> Option<f64> {
        (self.median_ns > 0.0).then(|| self.max_ns / self.median_ns - 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rank(rank: u32, steps: &[u64]) -> RankData {
        RankData {
            rank,
            steps: steps
                .iter()
                .enumerate()
                .map(|(i, &ns)| (i as u64, ns))
                .collect(),
            ..RankData::default()
        }
    }

    #[test]
    fn boxes_pool_ranks_past_the_limit_and_keep_the_slowest_steps() {
        let ranks: Vec<RankData> = (0..1000u32)
            .map(|r| {
                let mut steps = vec![100; 20];
                if r == 517 {
                    steps[3] = 900;
                }
                rank(r, &steps)
            })
            .collect();
        let (boxes, outliers, count) = step_boxes(&ranks, &[517]);
        assert!(boxes.len() <= SPREAD_MAX_BOXES, "{}", boxes.len());
        let with = boxes.iter().find(|b| b.stragglers == [517]).unwrap();
        assert!(with.first_rank <= 517 && 517 <= with.last_rank);
        // The pooled box still shows its slowest step.
        assert_eq!(with.max_ns, 900.0);
        assert_eq!(with.whisker_ns, 100.0);
        assert_eq!(count, 1);
        assert_eq!(
            outliers,
            [SlowStep {
                rank: 517,
                step: 3,
                ns: 900.0
            }]
        );
        assert_eq!(boxes.iter().map(|b| b.samples).sum::<usize>(), 20_000);
    }

    #[test]
    fn outliers_are_capped_slowest_first() {
        let ranks: Vec<RankData> = (0..50u32)
            .map(|r| {
                let mut steps = vec![100; 40];
                for (i, s) in steps.iter_mut().enumerate().take(10) {
                    *s = 1_000 + u64::from(r) * 10 + i as u64;
                }
                rank(r, &steps)
            })
            .collect();
        let (_, outliers, count) = step_boxes(&ranks, &[]);
        assert_eq!(count, 500);
        assert_eq!(outliers.len(), SPREAD_MAX_OUTLIERS);
        assert_eq!(outliers[0].ns, 1_499.0);
        assert!(outliers.windows(2).all(|w| w[0].ns >= w[1].ns));
    }

    #[test]
    fn strips_count_every_rank_and_name_the_slowest() {
        let values: Vec<(u32, f64)> = (0..10u32).map(|r| (r, 10.0 + f64::from(r % 3))).collect();
        let mut values = values;
        values.push((42, 30.0));
        let s = BrickStrip::of("MatMul", &values).unwrap();
        assert_eq!(s.bins.iter().sum::<u32>(), 11);
        assert_eq!((s.slowest_rank, s.max_ns, s.min_ns), (42, 30.0, 10.0));
        assert_eq!(*s.bins.last().unwrap(), 1, "the slowest has the top bin");
        // The median over the 11 ranks is 11.
        assert!((s.slowest_excess().unwrap() - (30.0 / 11.0 - 1.0)).abs() < 1e-9);
        let flat = BrickStrip::of("x", &[(0, 5.0), (1, 5.0)]).unwrap();
        assert_eq!(flat.bins, [2]);
        assert!(BrickStrip::of("x", &[]).is_none());
    }
}
