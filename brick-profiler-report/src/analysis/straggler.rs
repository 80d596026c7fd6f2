//! The one straggler rule, for every report over ranks (the merged trace's
//! rank report and the fleet report): a rank stands out when its
//! value is above the median over ranks by more than `k` robust deviations
//! (1.4826 x MAD) and by a minimum share. With the medians, the median
//! absolute deviation and quantiles it rests on, and which phases are
//! collectives: with one, a rank's wait there is no work of its own, and
//! ranks are judged by the rest of their step.

use serde::{Deserialize, Serialize};

/// MAD times this estimates the standard deviation of normal data.
const MAD_TO_SIGMA: f64 = 1.4826;

/// The median of `values` (the mean of the middle two for an even count);
/// 0 for none.
pub(crate) fn median(values: &[f64]) -> f64 {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    if v.len().is_multiple_of(2) {
        f64::midpoint(v[mid - 1], v[mid])
    } else {
        v[mid]
    }
}

/// The median absolute deviation from `center`.
pub(crate) fn mad(values: &[f64], center: f64) -> f64 {
    let deviations: Vec<f64> = values.iter().map(|v| (v - center).abs()).collect();
    median(&deviations)
}

/// The `q`-quantile (`0..=1`) by nearest rank of sorted `values`.
pub(crate) fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let at = (q * (sorted.len() - 1) as f64).round() as usize;
    sorted[at.min(sorted.len() - 1)]
}

/// Name fragments of collectives, matched in the name lowercased with `_`,
/// `-` and spaces removed: `all_reduce`, `AllReduce` and `nccl:all-reduce`
/// all hold `allreduce`.
const COLLECTIVE_FRAGMENTS: [&str; 6] = [
    "allreduce",
    "allgather",
    "reducescatter",
    "alltoall",
    "nccl",
    "gloo",
];

/// Words that mark a collective or a point-to-point transfer only as a
/// whole word of the name (split at anything not a letter or digit):
/// `c10d::broadcast` but not `BroadcastAdd`, `send` but not `sender`.
const COLLECTIVE_WORDS: [&str; 8] = [
    "broadcast",
    "barrier",
    "send",
    "recv",
    "isend",
    "irecv",
    "sendrecv",
    "p2p",
];

/// Whether a phase or brick named `name` is communication: its name,
/// lowercased with `_`, `-` and spaces removed, holds a collective's name
/// (`allreduce`, `allgather`, `reducescatter`, `alltoall`) or a
/// communication library's (`nccl`, `gloo`, as Holistic Trace Analysis
/// finds NCCL kernels), or one of its words is `broadcast`, `barrier`,
/// `send`, `recv`, `isend`, `irecv`, `sendrecv` or `p2p`.
#[must_use]
pub fn is_collective(name: &str) -> bool {
    let squeezed: String = name
        .chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_lowercase)
        .collect();
    COLLECTIVE_FRAGMENTS.iter().any(|f| squeezed.contains(f))
        || words(name).any(|w| COLLECTIVE_WORDS.contains(&w.as_str()))
}

/// The words of `name`, lowercased: split at anything not a letter or
/// digit (`_` included), so `BroadcastAdd` is one word.
fn words(name: &str) -> impl Iterator<Item = String> + '_ {
    name.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// At each collective, the fastest rank's time and that rank (the lowest
/// on a tie), of `times` (`(rank, time per step at each collective, None
/// where the rank lacks it)`); `None` for a collective no rank ran. That
/// rank arrived last and waited for no one: its time is the transfer, and
/// any other rank's time beyond it is waiting for slower ranks.
pub(crate) fn fastest_at_collectives(times: &[(u32, Vec<Option<f64>>)]) -> Vec<Option<(u32, f64)>> {
    let collectives = times.iter().map(|(_, t)| t.len()).max().unwrap_or(0);
    (0..collectives)
        .map(|c| {
            times
                .iter()
                .filter_map(|(rank, t)| Some((*rank, (*t.get(c)?)?)))
                .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
        })
        .collect()
}

/// Each rank's wait at collectives (`None` for a rank that lacks one the
/// others ran): its time at each beyond the fastest rank's, summed.
pub(crate) fn collective_waits(times: &[(u32, Vec<Option<f64>>)]) -> Vec<Option<f64>> {
    let fastest = fastest_at_collectives(times);
    times
        .iter()
        .map(|(_, t)| {
            t.iter()
                .zip(&fastest)
                .map(|(own, fast)| Some((own.as_ref()? - fast.map_or(0.0, |f| f.1)).max(0.0)))
                .sum()
        })
        .collect()
}

/// The rule's settings: how stragglers are told apart from noise.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StragglerRule {
    /// Robust deviations (1.4826 x MAD) above the median a rank must be.
    pub mad_k: f64,
    /// And at least this fraction above the median (0.2 = 20%).
    pub min_excess: f64,
}

impl Default for StragglerRule {
    fn default() -> Self {
        Self {
            mad_k: 5.0,
            min_excess: 0.2,
        }
    }
}

impl StragglerRule {
    /// The threshold over `values` (one per rank), by this rule.
    #[must_use]
    pub fn threshold(&self, values: &[f64]) -> Threshold {
        Threshold::of(values, self.mad_k, self.min_excess)
    }

    /// The ranks whose median step stands out among `medians` (`(rank,
    /// median step ns)`, one per rank with step times), by rank, with the
    /// threshold they were judged by.
    #[must_use]
    pub fn step_stragglers(&self, medians: &[(u32, f64)]) -> (Threshold, Vec<Straggler>) {
        self.stragglers_in(medians, &StragglerIn::Step)
    }

    /// The ranks whose own work stands out among `own` (`(rank, median
    /// step less its wait at collectives, ns)`): with a synchronous
    /// collective every rank's step lasts as long as the slowest's, and
    /// only the time a rank did not spend waiting for the others tells it
    /// apart.
    #[must_use]
    pub fn own_work_stragglers(&self, own: &[(u32, f64)]) -> (Threshold, Vec<Straggler>) {
        self.stragglers_in(own, &StragglerIn::OwnWork)
    }

    fn stragglers_in(
        &self,
        medians: &[(u32, f64)],
        what: &StragglerIn,
    ) -> (Threshold, Vec<Straggler>) {
        let values: Vec<f64> = medians.iter().map(|&(_, m)| m).collect();
        let threshold = self.threshold(&values);
        let mut out: Vec<Straggler> = medians
            .iter()
            .filter(|&&(_, m)| threshold.exceeded_by(m))
            .map(|&(rank, m)| Straggler {
                rank,
                what: what.clone(),
                value_ns: m,
                threshold,
                excess: threshold.excess(m),
            })
            .collect();
        out.sort_by_key(|s| s.rank);
        (threshold, out)
    }
}

/// What a straggler stands out in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "in", rename_all = "snake_case")]
pub enum StragglerIn {
    /// Its median step time.
    Step,
    /// Its median step less its wait at collectives (its own work): what
    /// is judged when ranks communicate.
    OwnWork,
    /// Its median call of one brick.
    Brick {
        /// The brick.
        brick: String,
    },
}

/// A rank that stands out, with the numbers that made it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Straggler {
    /// The rank.
    pub rank: u32,
    /// Where it stands out.
    #[serde(flatten)]
    pub what: StragglerIn,
    /// Its value, ns (median step, or brick ns per step).
    pub value_ns: f64,
    /// The threshold it passed.
    pub threshold: Threshold,
    /// Its value over the median of the ranks, minus 1.
    pub excess: f64,
}

/// How far above the other ranks a value must be to stand out.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Threshold {
    /// Median over ranks, ns.
    pub median_ns: f64,
    /// Median absolute deviation over ranks, ns.
    pub mad_ns: f64,
    /// A rank above this stands out, ns.
    pub threshold_ns: f64,
}

impl Threshold {
    /// `median + max(k * 1.4826 * MAD, min_excess * median)` over `values`:
    /// the MAD term ignores a few slow ranks (unlike the standard
    /// deviation), and the floor keeps a fleet of near-identical ranks from
    /// flagging noise.
    pub(crate) fn of(values: &[f64], k: f64, min_excess: f64) -> Self {
        let median_ns = median(values);
        let mad_ns = mad(values, median_ns);
        let margin = (k * MAD_TO_SIGMA * mad_ns).max(min_excess * median_ns);
        Self {
            median_ns,
            mad_ns,
            threshold_ns: median_ns + margin,
        }
    }

    /// Whether `value` stands out (a fleet of one never does).
    pub(crate) fn exceeded_by(&self, value: f64) -> bool {
        value > self.threshold_ns && self.median_ns > 0.0
    }

    /// `value` over the median, minus 1 (0.5 = 50% slower).
    pub(crate) fn excess(&self, value: f64) -> f64 {
        if self.median_ns > 0.0 {
            value / self.median_ns - 1.0
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collectives_are_told_by_name_and_look_alikes_are_not() {
        for name in [
            "allreduce",
            "all_reduce",
            "AllReduce",
            "ncclDevKernel_AllGather_RING_LL",
            "nccl:all-reduce",
            "reduce_scatter",
            "c10d::broadcast",
            "barrier",
            "isend",
            "dist.recv",
            "Gloo allgather",
            "AllToAll",
            "p2p",
        ] {
            assert!(is_collective(name), "{name}");
        }
        for name in [
            "forward",
            "opt",
            "BroadcastAdd",
            "sender_queue",
            "descend",
            "MatMul",
            "reduce",
            "receiver",
            "embed_bwd",
        ] {
            assert!(!is_collective(name), "{name}");
        }
    }

    #[test]
    fn median_and_mad_ignore_one_slow_rank() {
        let values = [100.0, 104.0, 98.0, 400.0];
        assert_eq!(median(&values), 102.0);
        // Deviations 2, 2, 4, 298: the slow rank does not widen the MAD.
        assert_eq!(mad(&values, 102.0), 3.0);
        let t = Threshold::of(&values, 5.0, 0.2);
        assert!(t.exceeded_by(400.0) && !t.exceeded_by(104.0), "{t:?}");
        assert!((t.threshold_ns - 124.239).abs() < 1e-9, "{t:?}");
    }

    #[test]
    fn identical_ranks_use_the_floor_and_one_rank_never_stands_out() {
        let t = Threshold::of(&[10.0, 10.0, 10.0], 5.0, 0.25);
        assert_eq!(t.threshold_ns, 12.5);
        assert!(t.exceeded_by(13.0) && !t.exceeded_by(12.0));
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.9), 5.0);
        assert!(!Threshold::of(&[], 5.0, 0.2).exceeded_by(1.0));
    }

    #[test]
    fn step_stragglers_are_the_ranks_above_the_threshold_by_rank() {
        let rule = StragglerRule::default();
        let medians = [(3, 100.0), (0, 400.0), (1, 104.0), (2, 98.0)];
        let (t, found) = rule.step_stragglers(&medians);
        assert_eq!(t, rule.threshold(&[100.0, 400.0, 104.0, 98.0]));
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].rank, found[0].value_ns), (0, 400.0));
        assert!((found[0].excess - (400.0 / 102.0 - 1.0)).abs() < 1e-12);
        // Two ranks 30% apart: the MAD is half the gap, so neither stands
        // out by five robust deviations.
        assert!(rule.step_stragglers(&[(0, 100.0), (1, 130.0)]).1.is_empty());
    }
}
