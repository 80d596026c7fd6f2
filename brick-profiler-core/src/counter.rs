//! Saturating counters: every count the profiler keeps pins at `u64::MAX`
//! instead of wrapping, so an absurd amount can never turn into a small one.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Adds `v` to a counter only its owner thread writes: a plain load and
/// store (no lock-prefixed instruction), saturating.
#[inline(always)]
pub(crate) fn bump(counter: &AtomicU64, v: u64) {
    counter.store(counter.load(Relaxed).saturating_add(v), Relaxed);
}

/// The saturating sum of `values`.
pub(crate) fn saturating_sum(values: impl IntoIterator<Item = u64>) -> u64 {
    values.into_iter().fold(0, u64::saturating_add)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_pin_at_the_top() {
        let c = AtomicU64::new(u64::MAX - 1);
        bump(&c, 5);
        assert_eq!(c.load(Relaxed), u64::MAX);
        assert_eq!(saturating_sum([u64::MAX, 1, 2]), u64::MAX);
        assert_eq!(saturating_sum([1, 2, 3]), 6);
    }
}
