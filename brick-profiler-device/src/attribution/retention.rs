//! [`Retention`]: how many activity records the attribution holds between
//! snapshots. Records past what it holds are attributed as they arrive and
//! folded into running sums (per brick and kernel name: calls, total, min
//! and max device time, grid), then dropped: memory stays bounded for any
//! run length and no device time is lost.

use profiler_core::profile::DeviceKernels;

/// How many activity records the attribution keeps as records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retention {
    /// Keep no record: every activity is folded into the sums on arrival
    /// and dropped (the trace then has no device tracks). For long runs
    /// that need the tables, not the timeline. An activity whose launch
    /// record has not arrived yet when it is folded counts as without a
    /// launch (the launch queue is drained before each buffer, so only a
    /// dropped launch does that).
    Aggregate,
    /// Keep up to `max_records` records for the trace (they are the
    /// trace); past them, activities are folded into the sums and counted
    /// as left out of the trace (`DeviceKernels::events_omitted`). Idle
    /// time and step spans are exact over the kept records and summed
    /// apart over the folded ones (a gap between the two is not counted).
    Trace {
        /// Records held at most.
        max_records: usize,
    },
}

impl Default for Retention {
    /// The trace, as many records as the profile draws
    /// ([`DeviceKernels::MAX_EVENTS`]).
    fn default() -> Self {
        Self::Trace {
            max_records: DeviceKernels::MAX_EVENTS,
        }
    }
}

impl Retention {
    /// Records held at most.
    pub fn max_records(self) -> usize {
        match self {
            Self::Aggregate => 0,
            Self::Trace { max_records } => max_records,
        }
    }
}
