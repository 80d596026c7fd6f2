//! Comparing the checksums of two runs: [`find_divergence`] names the first
//! call whose output differs, [`compare_checksums`] lists every difference,
//! including calls that only one run made.
//!
//! Matching rule: entries are keyed by `(name, layer_idx, position)`. When a
//! key occurs several times in a run (the same kernel at the same layer and
//! position, e.g. two decode passes), the k-th occurrence in the current run
//! is compared with the k-th occurrence in the reference. "First" means the
//! lowest index in the current run's list.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::checksum::KernelChecksum;

/// One call whose output checksum differs between the runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DivergenceInfo {
    /// Kernel or brick name.
    pub name: String,
    /// Layer index.
    pub layer_idx: u32,
    /// Sequence position.
    pub position: u64,
    /// Checksum in the reference run.
    pub expected: u64,
    /// Checksum in the current run.
    pub actual: u64,
    /// Index of the entry in the reference run's list.
    pub reference_index: usize,
    /// Index of the entry in the current run's list.
    pub current_index: usize,
}

type Key<'a> = (&'a str, u32, u64);

/// Pairs each current entry with the reference entry of the same key and
/// occurrence number.
struct Pairing<'a> {
    /// Reference indices per key, in order, and how many are taken.
    slots: HashMap<Key<'a>, (Vec<usize>, usize)>,
}

impl<'a> Pairing<'a> {
    fn new(reference: &'a [KernelChecksum]) -> Self {
        let mut slots: HashMap<Key<'a>, (Vec<usize>, usize)> =
            HashMap::with_capacity(reference.len());
        for (i, entry) in reference.iter().enumerate() {
            slots.entry(entry.key()).or_default().0.push(i);
        }
        Self { slots }
    }

    /// The reference index paired with the next occurrence of `key`.
    fn take(&mut self, key: Key<'a>) -> Option<usize> {
        let (indices, taken) = self.slots.get_mut(&key)?;
        let index = indices.get(*taken).copied()?;
        *taken += 1;
        Some(index)
    }

    /// Reference indices never paired, ascending.
    fn leftovers(self) -> Vec<usize> {
        let mut left: Vec<usize> = self
            .slots
            .into_values()
            .flat_map(|(indices, taken)| indices.into_iter().skip(taken))
            .collect();
        left.sort_unstable();
        left
    }
}

fn info(
    reference: &KernelChecksum,
    ri: usize,
    current: &KernelChecksum,
    ci: usize,
) -> DivergenceInfo {
    DivergenceInfo {
        name: current.name.to_string(),
        layer_idx: current.layer_idx,
        position: current.position,
        expected: reference.checksum,
        actual: current.checksum,
        reference_index: ri,
        current_index: ci,
    }
}

/// The first call of `current` (in its order) whose checksum differs from
/// the reference's checksum for the same key and occurrence.
///
/// Only calls present in both runs are compared: `None` means no common
/// call differs, not that the runs are identical. Calls made by one run
/// only are reported by [`compare_checksums`].
///
/// ```
/// # use profiler_core as profiler;
/// use profiler::kernel::{KernelChecksum, find_divergence};
///
/// let cpu = [KernelChecksum::of("RmsNorm", 0, 0, &[1.0, 2.0])];
/// let gpu = [KernelChecksum::of("RmsNorm", 0, 0, &[1.0, 2.5])];
/// let first = find_divergence(&cpu, &gpu).unwrap();
/// assert_eq!((first.name.as_str(), first.layer_idx, first.position), ("RmsNorm", 0, 0));
/// ```
#[must_use]
pub fn find_divergence(
    reference: &[KernelChecksum],
    current: &[KernelChecksum],
) -> Option<DivergenceInfo> {
    let mut pairing = Pairing::new(reference);
    current.iter().enumerate().find_map(|(ci, cur)| {
        let ri = pairing.take(cur.key())?;
        let exp = &reference[ri];
        (exp.checksum != cur.checksum).then(|| info(exp, ri, cur, ci))
    })
}

/// Every difference between two runs' checksums.
#[must_use]
pub fn compare_checksums(
    reference: &[KernelChecksum],
    current: &[KernelChecksum],
) -> DivergenceReport {
    let mut pairing = Pairing::new(reference);
    let mut report = DivergenceReport {
        reference_len: reference.len(),
        current_len: current.len(),
        ..DivergenceReport::default()
    };
    for (ci, cur) in current.iter().enumerate() {
        match pairing.take(cur.key()) {
            Some(ri) => {
                report.compared += 1;
                let exp = &reference[ri];
                if exp.checksum != cur.checksum {
                    report.mismatches.push(info(exp, ri, cur, ci));
                }
            }
            None => report.only_in_current.push(cur.clone()),
        }
    }
    report.only_in_reference = pairing
        .leftovers()
        .into_iter()
        .map(|ri| reference[ri].clone())
        .collect();
    report
}

/// The full comparison of two runs (see the module docs for the matching rule).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DivergenceReport {
    /// Entries in the reference run.
    pub reference_len: usize,
    /// Entries in the current run.
    pub current_len: usize,
    /// Calls present in both runs (and therefore compared).
    pub compared: usize,
    /// Compared calls whose checksums differ, in the current run's order.
    pub mismatches: Vec<DivergenceInfo>,
    /// Calls the reference made that the current run did not, in reference order.
    pub only_in_reference: Vec<KernelChecksum>,
    /// Calls the current run made that the reference did not, in current order.
    pub only_in_current: Vec<KernelChecksum>,
}

impl DivergenceReport {
    /// The first mismatch in the current run's order.
    #[must_use]
    pub fn first(&self) -> Option<&DivergenceInfo> {
        self.mismatches.first()
    }

    /// Compared calls with equal checksums.
    #[must_use]
    pub fn matching(&self) -> usize {
        self.compared - self.mismatches.len()
    }

    /// Whether both runs made the same calls with the same checksums.
    #[must_use]
    pub fn is_identical(&self) -> bool {
        self.mismatches.is_empty()
            && self.only_in_reference.is_empty()
            && self.only_in_current.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(name: &'static str, layer: u32, pos: u64, sum: u64) -> KernelChecksum {
        KernelChecksum::new(name, layer, pos, sum)
    }

    #[test]
    fn identical_runs_have_no_divergence() {
        let run = [c("a", 0, 0, 1), c("b", 0, 0, 2), c("a", 1, 0, 3)];
        assert_eq!(find_divergence(&run, &run), None);
        let report = compare_checksums(&run, &run);
        assert!(report.is_identical());
        assert_eq!((report.compared, report.matching()), (3, 3));
    }

    #[test]
    fn the_first_mismatch_follows_the_current_runs_order() {
        let reference = [c("a", 0, 0, 1), c("b", 0, 0, 2), c("c", 0, 0, 3)];
        // Same keys, other order; "c" and "a" both differ, "c" comes first here.
        let current = [c("b", 0, 0, 2), c("c", 0, 0, 30), c("a", 0, 0, 10)];
        let first = find_divergence(&reference, &current).unwrap();
        assert_eq!(
            (first.name.as_str(), first.expected, first.actual),
            ("c", 3, 30)
        );
        assert_eq!((first.reference_index, first.current_index), (2, 1));
        let report = compare_checksums(&reference, &current);
        assert_eq!(report.first(), Some(&first));
        let names: Vec<_> = report.mismatches.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["c", "a"]);
    }

    #[test]
    fn keys_match_on_name_layer_and_position() {
        let reference = [c("a", 0, 0, 1), c("a", 1, 0, 2), c("a", 0, 1, 3)];
        let current = [c("a", 0, 1, 3), c("a", 1, 0, 2), c("a", 0, 0, 9)];
        let d = find_divergence(&reference, &current).unwrap();
        assert_eq!(
            (d.layer_idx, d.position, d.expected, d.actual),
            (0, 0, 1, 9)
        );
    }

    #[test]
    fn repeated_keys_pair_by_occurrence() {
        let reference = [c("k", 0, 0, 1), c("k", 0, 0, 2)];
        let current = [c("k", 0, 0, 1), c("k", 0, 0, 5)];
        let d = find_divergence(&reference, &current).unwrap();
        assert_eq!((d.expected, d.actual, d.current_index), (2, 5, 1));
    }

    #[test]
    fn one_sided_calls_are_listed_not_passed_as_identical() {
        let reference = [c("a", 0, 0, 1), c("b", 0, 0, 2)];
        let current = [c("a", 0, 0, 1), c("z", 0, 0, 7)];
        assert_eq!(find_divergence(&reference, &current), None);
        let report = compare_checksums(&reference, &current);
        assert!(!report.is_identical());
        assert_eq!(report.only_in_reference, [c("b", 0, 0, 2)]);
        assert_eq!(report.only_in_current, [c("z", 0, 0, 7)]);
        assert_eq!((report.compared, report.matching()), (1, 1));
    }

    #[test]
    fn the_report_counts_both_runs_and_names_the_first_mismatch() {
        let reference = [c("a", 0, 0, 1), c("a", 0, 0, 2), c("b", 0, 0, 3)];
        let current = [c("a", 0, 0, 1), c("a", 0, 0, 4)];
        let r = compare_checksums(&reference, &current);
        assert_eq!(
            (
                r.reference_len,
                r.current_len,
                r.compared,
                r.mismatches.len()
            ),
            (3, 2, 2, 1)
        );
        assert_eq!((r.only_in_reference.len(), r.only_in_current.len()), (1, 0));
        let first = r.first().unwrap();
        assert_eq!(
            (first.name.as_str(), first.expected, first.actual),
            ("a", 2, 4)
        );
    }
}
