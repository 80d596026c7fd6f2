//! Result types of the trace analyses; field names follow
//! established trace tooling so saved JSON stays readable by existing tools.

use serde::{Deserialize, Serialize};

/// Totals of one operation name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OperationStats {
    /// Entries with this name.
    pub count: usize,
    /// Sum of their durations, µs.
    pub total_duration_us: f64,
    /// Sum of their output bytes (saturating).
    pub total_memory_bytes: usize,
}

/// Totals of one device.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceSummary {
    /// Entries on this device.
    pub op_count: usize,
    /// Sum of their durations, µs.
    pub total_duration_us: f64,
    /// Sum of their output bytes (saturating).
    pub total_memory_bytes: usize,
}

/// A communication operation and its share of the trace's time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommunicationBottleneck {
    /// Operation name as recorded.
    pub operation: String,
    /// Sum of its durations, µs.
    pub total_duration_us: f64,
    /// `total_duration_us / max(trace.total_duration_us, 1e-9)`.
    pub ratio_of_total: f64,
    /// Entries with this name.
    pub call_count: usize,
}

/// How evenly work is spread over devices.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadBalanceMetrics {
    /// Devices seen (at least 2).
    pub device_count: usize,
    /// Sum of all devices' time, µs.
    pub total_duration_us: f64,
    /// `total_duration_us / device_count`, µs.
    pub ideal_duration_us: f64,
    /// Busiest device's time, µs.
    pub max_duration_us: f64,
    /// `max(0, (max - ideal) / ideal)`; 0 when `ideal` is 0.
    pub imbalance_ratio: f64,
    /// `(device, time µs)`, sorted by device name.
    pub per_device_duration_us: Vec<(String, f64)>,
}

/// Totals of a set of busy times and how unevenly they are spread.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Balance {
    /// Sum of the values.
    pub(crate) total: f64,
    /// `total / n`.
    pub(crate) ideal: f64,
    /// Largest value (0 for none).
    pub(crate) max: f64,
    /// `max(0, (max - ideal) / ideal)`; 0 when `ideal` is not positive.
    pub(crate) ratio: f64,
}

/// The imbalance formula shared by devices and ranks.
pub(crate) fn balance(values: impl IntoIterator<Item = f64>) -> Balance {
    let (mut total, mut max, mut n) = (0.0_f64, 0.0_f64, 0usize);
    for v in values {
        total += v;
        max = max.max(v);
        n += 1;
    }
    if n == 0 {
        return Balance::default();
    }
    let ideal = total / n as f64;
    let ratio = if ideal > 0.0 {
        ((max - ideal) / ideal).max(0.0)
    } else {
        0.0
    };
    Balance {
        total,
        ideal,
        max,
        ratio,
    }
}

#[cfg(test)]
mod tests {
    use super::balance;

    #[test]
    fn imbalance_formula() {
        let b = balance([300.0, 100.0]);
        assert_eq!((b.total, b.ideal, b.max), (400.0, 200.0, 300.0));
        assert!((b.ratio - 0.5).abs() < 1e-12);
        assert_eq!(balance([0.0, 0.0]).ratio, 0.0);
        assert_eq!(balance([5.0, 5.0]).ratio, 0.0);
        assert_eq!(balance(std::iter::empty()), super::Balance::default());
    }
}
