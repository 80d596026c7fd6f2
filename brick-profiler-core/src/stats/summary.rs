//! [`Summary`]: count, total and extremes of a series of samples, and the
//! one place that knows how two of them merge (an empty side never
//! contributes its extremes, whatever they hold).

/// Count, total and extremes of samples, in whatever unit the caller uses
/// (ticks, ns, cycles). Totals saturate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Summary {
    pub(crate) count: u64,
    pub(crate) total: u64,
    /// `u64::MAX` while empty.
    pub(crate) min: u64,
    pub(crate) max: u64,
}

impl Default for Summary {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl Summary {
    /// No samples.
    pub(crate) const EMPTY: Summary = Summary {
        count: 0,
        total: 0,
        min: u64::MAX,
        max: 0,
    };

    /// A block of `count` samples summing to `total` with the given extremes.
    pub(crate) const fn of(count: u64, total: u64, min: u64, max: u64) -> Self {
        if count == 0 {
            Self::EMPTY
        } else {
            Self {
                count,
                total,
                min,
                max,
            }
        }
    }

    /// Adds one sample.
    pub(crate) fn add(&mut self, value: u64) {
        self.merge(&Self::of(1, value, value, value));
    }

    /// Adds every sample of `other`. Extremes of an empty side are ignored.
    pub(crate) fn merge(&mut self, other: &Summary) {
        if other.count == 0 {
            return;
        }
        if self.count == 0 {
            *self = *other;
            return;
        }
        self.count = self.count.saturating_add(other.count);
        self.total = self.total.saturating_add(other.total);
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_side_never_contributes_extremes() {
        let mut a = Summary {
            min: 0,
            ..Summary::EMPTY
        };
        a.merge(&Summary::of(2, 30, 10, 20));
        assert_eq!(a, Summary::of(2, 30, 10, 20));
        a.merge(&Summary {
            min: 1,
            max: 99,
            ..Summary::EMPTY
        });
        assert_eq!(a, Summary::of(2, 30, 10, 20));
        a.add(5);
        assert_eq!(a, Summary::of(3, 35, 5, 20));
        let mut full = Summary::of(1, u64::MAX, 7, 7);
        full.add(1);
        assert_eq!(full.total, u64::MAX, "totals saturate");
    }
}
