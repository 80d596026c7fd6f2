//! [`CategoryStats`]: brick time aggregated per [`BrickCategory`](crate::catalogue::BrickCategory).

use serde::{Deserialize, Serialize};

use super::brick::{avg_us, per_second, percent};

/// Aggregated statistics of one brick category.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CategoryStats {
    /// Total time, ns.
    pub total_ns: u64,
    /// Elements processed.
    pub total_elements: u64,
    /// Samples.
    pub count: u64,
}

impl CategoryStats {
    /// Mean time per sample, µs (0 without samples).
    #[must_use]
    pub fn avg_us(&self) -> f64 {
        avg_us(self.total_ns, self.count)
    }

    /// Elements per second (0 when no time was measured).
    #[must_use]
    pub fn throughput(&self) -> f64 {
        per_second(self.total_elements, self.total_ns)
    }

    /// Share of `total_ns`, in percent (0 when the total is 0).
    #[must_use]
    pub fn percentage(&self, total_ns: u64) -> f64 {
        percent(self.total_ns, total_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn category_derived_values() {
        let c = CategoryStats {
            total_ns: 10_000,
            total_elements: 0,
            count: 2,
        };
        assert_eq!(c.avg_us(), 5.0);
        assert_eq!(c.throughput(), 0.0);
        assert_eq!(c.percentage(1_000), 1000.0);
        assert_eq!(CategoryStats::default().percentage(0), 0.0);
    }
}
