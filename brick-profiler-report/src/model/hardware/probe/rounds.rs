//! Timed rounds on several threads at once. Each worker stamps its own
//! start and end, and a round lasts from the earliest start to the latest
//! end: a coordinating thread that is descheduled between the release and
//! its clock read would otherwise time a round too short. Each worker also
//! reads its own CPU time, so a round says whether its threads had their
//! cores to themselves (time the hypervisor steals is not CPU time where
//! the kernel accounts steal).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Barrier, Mutex, PoisonError};
use std::time::Instant;

use super::converge::Round;
use super::sysinfo::thread_cpu_ns;

/// One worker's stamps in one round.
#[derive(Debug, Clone, Copy)]
struct Stamp {
    start: Instant,
    end: Instant,
    /// CPU time of the worker's thread over the round, ns, when readable.
    cpu_ns: Option<u64>,
}

/// Folds the workers' stamps of one round into the round.
fn round_of(stamps: &[Stamp]) -> Option<Round> {
    let start = stamps.iter().map(|s| s.start).min()?;
    let end = stamps.iter().map(|s| s.end).max()?;
    let cpu_pct = stamps
        .iter()
        .map(|s| {
            let wall = s.end.duration_since(s.start).as_nanos() as f64;
            s.cpu_ns
                .map(|c| (c as f64 / wall.max(1.0) * 100.0).min(100.0))
        })
        .try_fold(100.0f64, |lowest, p| Some(lowest.min(p?)));
    Some(Round {
        wall: end.duration_since(start),
        cpu_pct,
    })
}

/// Runs rounds until `more` says stop: in each, every worker (one thread
/// per item of `workers`) waits for all the others, then calls `work` on
/// its own state once. `more` sees the rounds so far after each one (and
/// the empty list before the first). Returns every round.
pub(crate) fn timed_rounds<T: Send>(
    workers: Vec<T>,
    mut more: impl FnMut(&[Round]) -> bool + Send,
    work: impl Fn(&mut T) + Sync,
) -> Vec<Round> {
    if workers.is_empty() || !more(&[]) {
        return Vec::new();
    }
    // Called by whichever worker is the leader of a round.
    let more = Mutex::new(more);
    let barrier = Barrier::new(workers.len());
    let stop = AtomicBool::new(false);
    let stamps: Mutex<Vec<Stamp>> = Mutex::new(Vec::new());
    let rounds: Mutex<Vec<Round>> = Mutex::new(Vec::new());
    let work = &work;
    std::thread::scope(|scope| {
        for mut state in workers {
            let (barrier, stop, stamps, rounds, more) = (&barrier, &stop, &stamps, &rounds, &more);
            scope.spawn(move || {
                loop {
                    // The leader's decision, stored before it reached this
                    // barrier, is seen by every worker after it.
                    barrier.wait();
                    if stop.load(Ordering::Acquire) {
                        break;
                    }
                    let cpu0 = thread_cpu_ns();
                    let start = Instant::now();
                    work(&mut state);
                    let end = Instant::now();
                    let cpu_ns = thread_cpu_ns()
                        .zip(cpu0)
                        .map(|(c1, c0)| c1.saturating_sub(c0));
                    let stamp = Stamp { start, end, cpu_ns };
                    stamps
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(stamp);
                    if barrier.wait().is_leader() {
                        let taken = std::mem::take(
                            &mut *stamps.lock().unwrap_or_else(PoisonError::into_inner),
                        );
                        let mut done = rounds.lock().unwrap_or_else(PoisonError::into_inner);
                        done.extend(round_of(&taken));
                        let mut f = more.lock().unwrap_or_else(PoisonError::into_inner);
                        stop.store(!(*f)(&done), Ordering::Release);
                    }
                }
            });
        }
    });
    rounds.into_inner().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_round_lasts_as_long_as_its_slowest_worker() {
        let sleeps = vec![Duration::from_millis(1), Duration::from_millis(20)];
        let reps = timed_rounds(sleeps, |r| r.len() < 2, |d| std::thread::sleep(*d));
        assert_eq!(reps.len(), 2);
        assert!(
            reps.iter().all(|r| r.wall >= Duration::from_millis(20)),
            "{reps:?}"
        );
        // A sleeping thread is off the CPU: the round says so.
        if thread_cpu_ns().is_some() {
            assert!(
                reps.iter().all(|r| r.cpu_pct.is_some_and(|p| p < 50.0)),
                "{reps:?}"
            );
        }
        assert!(timed_rounds(Vec::<u8>::new(), |_| true, |_| {}).is_empty());
        assert!(timed_rounds(vec![(); 2], |_| false, |()| {}).is_empty());
    }

    #[test]
    fn the_stop_rule_sees_every_round_and_ends_them() {
        let mut seen = Vec::new();
        let reps = timed_rounds(
            vec![(); 3],
            |r: &[Round]| {
                seen.push(r.len());
                r.len() < 4
            },
            |()| {
                std::hint::black_box((0..10_000u64).sum::<u64>());
            },
        );
        assert_eq!(reps.len(), 4);
        assert_eq!(seen, [0, 1, 2, 3, 4]);
    }

    #[test]
    fn a_thread_without_cpu_time_leaves_the_share_unknown() {
        let t = Instant::now();
        let stamp = |cpu_ns| Stamp {
            start: t,
            end: t + Duration::from_millis(10),
            cpu_ns,
        };
        let r = round_of(&[stamp(Some(9_000_000)), stamp(Some(5_000_000))]).unwrap();
        assert_eq!(r.cpu_pct, Some(50.0));
        assert_eq!(
            round_of(&[stamp(Some(9_000_000)), stamp(None)])
                .unwrap()
                .cpu_pct,
            None
        );
        assert!(round_of(&[]).is_none());
    }
}
