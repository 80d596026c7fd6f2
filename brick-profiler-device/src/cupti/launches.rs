//! [`LaunchLog`]: launch records written on the launching thread (inside
//! the CUPTI callback) into a bounded lock-free queue, moved into the
//! attribution off the hot path. A full log drops and counts.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crossbeam_queue::ArrayQueue;

use crate::attribution::Launch;

/// Launch records waiting to be attributed.
#[derive(Debug)]
pub(crate) struct LaunchLog {
    queue: ArrayQueue<Launch>,
    dropped: AtomicU64,
}

impl LaunchLog {
    /// A log holding up to `capacity` launches between drains.
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            queue: ArrayQueue::new(capacity.max(1)),
            dropped: AtomicU64::new(0),
        }
    }

    /// Adds a launch: no lock, no allocation; dropped and counted when full.
    #[inline]
    pub(crate) fn push(&self, launch: Launch) {
        if self.queue.push(launch).is_err() {
            self.dropped.fetch_add(1, Relaxed);
        }
    }

    /// Moves every waiting launch to `sink`.
    pub(crate) fn drain(&self, mut sink: impl FnMut(Launch)) {
        while let Some(launch) = self.queue.pop() {
            sink(launch);
        }
    }

    /// Launches dropped because the log was full.
    pub(crate) fn dropped(&self) -> u64 {
        self.dropped.load(Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use profiler_core::kernel::LaunchContext;

    use super::*;

    fn launch(correlation: u32) -> Launch {
        Launch {
            correlation,
            api_ns: u64::from(correlation) * 10,
            context: LaunchContext::default(),
        }
    }

    #[test]
    fn a_full_log_drops_and_counts_and_drains_in_order() {
        let log = LaunchLog::new(2);
        (1..=4).for_each(|c| log.push(launch(c)));
        assert_eq!(log.dropped(), 2);
        let mut seen = Vec::new();
        log.drain(|l| seen.push(l.correlation));
        assert_eq!(seen, [1, 2]);
        log.push(launch(5));
        log.drain(|l| seen.push(l.correlation));
        assert_eq!(seen, [1, 2, 5], "room again after a drain");
    }
}
