//! Where each rank's median step went by kind, as Holistic Trace Analysis
//! splits time: compute (phases that are no collective), communication
//! (phases whose names mark a collective, the straggler rule's
//! [`is_collective`](crate::analysis::straggler::is_collective)) split into
//! transfer and waiting for slower ranks, and outside any phase. A
//! collective's transfer is the fleet's fastest rank's time at it: that
//! rank arrived last and waited for no one; every other rank's time beyond
//! it is waiting. Without a collective phase nothing is split, and the
//! report says so rather than showing zeros.

use serde::Serialize;

use super::breakdown::StepBreakdown;
use crate::analysis::straggler::{fastest_at_collectives, is_collective};
use crate::base::escape::visible;
use crate::base::textfmt::duration;

/// One rank's communication per median step: the time in its collective
/// phases, split into transfer and waiting.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Communication {
    /// Time in collective phases, ns per step (`transfer + waiting`).
    pub total_ns: f64,
    /// The fleet's fastest rank's time at each collective, summed, ns per
    /// step (at most this rank's own).
    pub transfer_ns: f64,
    /// The rest: waiting for slower ranks, ns per step.
    pub waiting_ns: f64,
}

/// One rank's median step by kind of time. The parts add up to
/// `median_ns`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankTime {
    /// The rank.
    pub rank: u32,
    /// Its median step, ns.
    pub median_ns: f64,
    /// Time in phases that are no collective, ns per step.
    pub compute_ns: f64,
    /// Time in collective phases, split; `None` when the fleet has no
    /// collective phase, or this rank lacks one the fleet has (its
    /// collective time is then `unsplit_communication_ns`).
    pub communication: Option<Communication>,
    /// Time in the collective phases this rank has when it lacks another
    /// the fleet has (not split: the fleet's fastest rank is not comparable),
    /// ns per step; 0 otherwise.
    pub unsplit_communication_ns: f64,
    /// Host time in no phase, ns per step.
    pub outside_ns: f64,
    /// The median step when the profile gives no step wall time to split
    /// it by (else 0), ns.
    pub unsplit_ns: f64,
}

impl RankTime {
    /// Its median step less its wait at collectives: its own work, what the
    /// straggler rule judges when the fleet communicates.
    #[must_use]
    pub fn own_work_ns(&self) -> f64 {
        self.median_ns - self.communication.map_or(0.0, |c| c.waiting_ns)
    }
}

/// The fleet's median steps by kind: what the temporal breakdown and idle
/// time by cause show. Phase times are each rank's mean per recorded step
/// (scaled with the step split when its phases overlap); the step is its
/// median.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TimeSplit {
    /// The fleet's collective phases, in the report's phase order (empty:
    /// no communication recorded, nothing split).
    pub collectives: Vec<String>,
    /// Each collective's transfer: the fastest rank's time at it, ns per
    /// step, with that rank.
    pub transfer: Vec<(u32, f64)>,
    /// Each rank's split, by rank.
    pub ranks: Vec<RankTime>,
    /// Ranks that lack a collective phase the fleet has: their
    /// communication is not split.
    pub missing: Vec<u32>,
}

impl TimeSplit {
    /// The split of `splits` (each rank's, by rank, with its phase names
    /// `has`), the phases named `phases` in the splits' order.
    pub(crate) fn of(splits: &[(StepBreakdown, Vec<&str>)], phases: &[&str]) -> Self {
        let collective: Vec<usize> = (0..phases.len())
            .filter(|&i| is_collective(phases[i]))
            .collect();
        let has_all = |has: &[&str]| collective.iter().all(|&i| has.contains(&phases[i]));
        let times: Vec<(u32, Vec<Option<f64>>)> = splits
            .iter()
            .map(|(b, has)| {
                let at = |&i: &usize| {
                    has.contains(&phases[i])
                        .then(|| b.phases_ns.get(i).copied().unwrap_or(0.0))
                };
                (b.first_rank, collective.iter().map(at).collect())
            })
            .collect();
        let transfer: Vec<(u32, f64)> = fastest_at_collectives(&times)
            .into_iter()
            .flatten()
            .collect();
        let mut missing = Vec::new();
        let ranks = splits
            .iter()
            .map(|(b, has)| {
                let at = |i: usize| b.phases_ns.get(i).copied().unwrap_or(0.0);
                let comm: f64 = collective.iter().map(|&i| at(i)).sum();
                let compute = b.phases_ns.iter().sum::<f64>() - comm;
                let complete = !collective.is_empty() && has_all(has);
                if !collective.is_empty() && !complete {
                    missing.push(b.first_rank);
                }
                let communication = complete.then(|| {
                    let transfer_ns: f64 = collective
                        .iter()
                        .zip(&transfer)
                        .map(|(&i, &(_, fastest))| fastest.min(at(i)))
                        .sum();
                    Communication {
                        total_ns: comm,
                        transfer_ns,
                        waiting_ns: (comm - transfer_ns).max(0.0),
                    }
                });
                RankTime {
                    rank: b.first_rank,
                    median_ns: b.median_ns,
                    compute_ns: compute,
                    communication,
                    unsplit_communication_ns: if complete { 0.0 } else { comm },
                    outside_ns: b.outside_ns,
                    unsplit_ns: b.unsplit_ns,
                }
            })
            .collect();
        Self {
            collectives: collective.iter().map(|&i| phases[i].to_owned()).collect(),
            transfer,
            ranks,
            missing,
        }
    }

    /// What the split was computed over, and what it withholds, in one
    /// sentence (names made visible, not escaped).
    #[must_use]
    pub fn summary(&self) -> String {
        let t = self;
        let over = "per rank: its median step; phases at their mean per recorded step";
        if !t.has_communication() {
            return format!(
                "time by kind ({over}): no collective phase recorded (a phase named like allreduce, \
                 all_gather, reduce_scatter, broadcast, barrier, send/recv or nccl), so communication \
                 and waiting are not measured"
            );
        }
        let fastest: Vec<String> = t
            .collectives
            .iter()
            .zip(&t.transfer)
            .map(|(c, (rank, ns))| format!("{} {} (rank {rank})", visible(c), duration(*ns)))
            .collect();
        let mut note = format!(
            "time by kind ({over}, {} ranks): communication = phases {}; transfer = the fastest \
             rank's time at each ({}), waiting = the rest; ranks judged by own work = median step \
             less waiting",
            t.ranks.len(),
            t.collectives
                .iter()
                .map(|c| visible(c).into_owned())
                .collect::<Vec<_>>()
                .join(", "),
            fastest.join(", "),
        );
        if !t.missing.is_empty() {
            let ranks: Vec<String> = t.missing.iter().take(10).map(u32::to_string).collect();
            let more = match t.missing.len().saturating_sub(10) {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            note.push_str(&format!(
                "; ranks {}{more} lack a collective phase: their communication is not split",
                ranks.join(", ")
            ));
        }
        note
    }

    /// Whether the fleet records communication (a collective phase).
    #[must_use]
    pub fn has_communication(&self) -> bool {
        !self.collectives.is_empty()
    }

    /// The fastest time at the collective phase `name`, ns per step, when
    /// it is one.
    #[must_use]
    pub fn transfer_of(&self, name: &str) -> Option<f64> {
        let i = self.collectives.iter().position(|c| c == name)?;
        self.transfer.get(i).map(|&(_, ns)| ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(
        rank: u32,
        median: f64,
        phases: &[f64],
        has: &[&'static str],
    ) -> (StepBreakdown, Vec<&'static str>) {
        let sum: f64 = phases.iter().sum();
        (
            StepBreakdown {
                first_rank: rank,
                last_rank: rank,
                ranks: 1,
                median_ns: median,
                phases_ns: phases.to_vec(),
                outside_ns: median - sum,
                unsplit_ns: 0.0,
                scaled: false,
            },
            has.to_vec(),
        )
    }

    #[test]
    fn the_fastest_rank_at_the_collective_sets_the_transfer_and_the_rest_wait() {
        let both = ["forward", "allreduce"];
        // Rank 2 computes 80 and arrives last: 5 at the collective. The
        // others compute 20 and wait 60 more.
        let splits = [
            split(0, 100.0, &[20.0, 65.0], &both),
            split(1, 100.0, &[20.0, 66.0], &both),
            split(2, 100.0, &[80.0, 5.0], &both),
        ];
        let t = TimeSplit::of(&splits, &both);
        assert!(t.has_communication());
        assert_eq!(t.collectives, ["allreduce"]);
        assert_eq!(t.transfer, [(2, 5.0)]);
        let r0 = &t.ranks[0];
        let c = r0.communication.expect("split");
        assert_eq!((c.total_ns, c.transfer_ns, c.waiting_ns), (65.0, 5.0, 60.0));
        assert_eq!((r0.compute_ns, r0.outside_ns), (20.0, 15.0));
        assert_eq!(r0.own_work_ns(), 40.0);
        let r2 = &t.ranks[2];
        assert_eq!(r2.communication.map(|c| c.waiting_ns), Some(0.0));
        assert_eq!(r2.own_work_ns(), 100.0);
        for r in &t.ranks {
            let c = r.communication.expect("split");
            let sum = r.compute_ns + c.transfer_ns + c.waiting_ns + r.outside_ns + r.unsplit_ns;
            assert!((sum - r.median_ns).abs() < 1e-9, "{r:?}");
        }
    }

    #[test]
    fn without_a_collective_nothing_is_split_and_own_work_is_the_step() {
        let phases = ["forward", "opt"];
        let splits = [
            split(0, 100.0, &[20.0, 30.0], &phases),
            split(1, 300.0, &[20.0, 30.0], &phases),
        ];
        let t = TimeSplit::of(&splits, &phases);
        assert!(!t.has_communication());
        assert!(t.transfer.is_empty() && t.missing.is_empty());
        for r in &t.ranks {
            assert_eq!(r.communication, None);
            assert_eq!(r.compute_ns, 50.0);
            assert_eq!(r.own_work_ns(), r.median_ns);
        }
    }

    #[test]
    fn a_rank_missing_the_collective_is_listed_and_left_unsplit() {
        let phases = ["forward", "allreduce"];
        let splits = [
            split(0, 100.0, &[20.0, 70.0], &phases),
            // Rank 1 never ran the collective: it is not the fastest at it.
            split(1, 100.0, &[20.0, 0.0], &["forward"]),
            split(2, 100.0, &[80.0, 10.0], &phases),
        ];
        let t = TimeSplit::of(&splits, &phases);
        assert_eq!(t.missing, [1]);
        assert_eq!(t.transfer, [(2, 10.0)]);
        assert_eq!(t.ranks[1].communication, None);
        assert_eq!(t.ranks[1].own_work_ns(), 100.0);
        assert_eq!(t.ranks[0].communication.map(|c| c.waiting_ns), Some(60.0));
    }
}
