//! Timed rounds on several threads at once. Each worker stamps its own
//! start and end, and a round lasts from the earliest start to the latest
//! end: a coordinating thread that is descheduled between the release and
//! its clock read would otherwise time a round too short.

use std::sync::Barrier;
use std::time::{Duration, Instant};

/// Runs `reps` rounds: in each, every worker (one thread per item of
/// `workers`) waits for all the others, then calls `work` on its own
/// state once. Returns each round's wall time.
pub(crate) fn timed_rounds<T: Send>(
    workers: Vec<T>,
    reps: u32,
    work: impl Fn(&mut T) + Sync,
) -> Vec<Duration> {
    let barrier = Barrier::new(workers.len());
    let work = &work;
    let stamps: Vec<Vec<(Instant, Instant)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = workers
            .into_iter()
            .map(|mut state| {
                let barrier = &barrier;
                scope.spawn(move || {
                    (0..reps)
                        .map(|_| {
                            barrier.wait();
                            let start = Instant::now();
                            work(&mut state);
                            (start, Instant::now())
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        // A worker that panicked contributes no stamps.
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    (0..reps as usize)
        .filter_map(|r| {
            let start = stamps.iter().filter_map(|s| s.get(r)).map(|s| s.0).min()?;
            let end = stamps.iter().filter_map(|s| s.get(r)).map(|s| s.1).max()?;
            Some(end.duration_since(start))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_lasts_as_long_as_its_slowest_worker() {
        let sleeps = vec![Duration::from_millis(1), Duration::from_millis(20)];
        let reps = timed_rounds(sleeps, 2, |d| std::thread::sleep(*d));
        assert_eq!(reps.len(), 2);
        assert!(
            reps.iter().all(|r| *r >= Duration::from_millis(20)),
            "{reps:?}"
        );
        assert!(timed_rounds(Vec::<u8>::new(), 3, |_| {}).is_empty());
    }
}
