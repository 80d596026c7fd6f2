//! A few persistent worker threads that run one batch at the same time.
//!
//! The threads live for the whole benchmark (like a thread pool), so their
//! per-thread profiler state is set up once, during warm-up, not per batch.
//! Each is pinned to its own CPU so that "both threads at once" is what the
//! batch measures, not where the scheduler happened to wake them.

use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Barrier};
use std::thread::JoinHandle;

use crate::measure::Timing;

/// A job: `(calls, start line)` -> this thread's time per call. It must
/// wait on the barrier right before its timed loop.
pub type Job = fn(u64, &Barrier) -> Timing;

struct Worker {
    jobs: Option<Sender<(Job, u64, Arc<Barrier>)>>,
    results: Receiver<Timing>,
    handle: Option<JoinHandle<()>>,
}

/// Worker threads that run the same job together.
pub struct Team {
    workers: Vec<Worker>,
}

impl Team {
    /// Starts `size` named worker threads.
    ///
    /// # Panics
    /// If a thread cannot be spawned.
    #[must_use]
    pub fn new(size: usize) -> Team {
        let workers = (0..size)
            .map(|i| {
                let (job_tx, job_rx) = channel::<(Job, u64, Arc<Barrier>)>();
                let (result_tx, result_rx) = channel();
                let handle = std::thread::Builder::new()
                    .name(format!("bench-worker-{i}"))
                    .spawn(move || {
                        pin_to_cpu(i);
                        for (job, calls, barrier) in job_rx {
                            if result_tx.send(job(calls, &barrier)).is_err() {
                                break;
                            }
                        }
                    })
                    .expect("spawn a benchmark worker thread");
                Worker {
                    jobs: Some(job_tx),
                    results: result_rx,
                    handle: Some(handle),
                }
            })
            .collect();
        Team { workers }
    }

    /// Number of threads.
    #[must_use]
    pub fn size(&self) -> usize {
        self.workers.len()
    }

    /// Runs `job` on every worker at once; returns the mean of the
    /// threads' times per call.
    ///
    /// # Panics
    /// If a worker thread has died (its job panicked).
    pub fn run(&self, job: Job, calls: u64) -> Timing {
        let barrier = Arc::new(Barrier::new(self.workers.len()));
        for worker in &self.workers {
            let jobs = worker.jobs.as_ref().expect("team is running");
            jobs.send((job, calls, Arc::clone(&barrier)))
                .expect("benchmark worker alive");
        }
        let timings: Vec<Timing> = self
            .workers
            .iter()
            .map(|w| w.results.recv().expect("benchmark worker finished its job"))
            .collect();
        Timing::mean(&timings)
    }
}

/// Pins the calling thread to CPU `index` (modulo the CPUs available), so
/// the team's threads really run side by side: without it the scheduler
/// sometimes wakes both on one CPU and the batch measures its placement.
fn pin_to_cpu(index: usize) {
    #[cfg(target_os = "linux")]
    {
        let cpus = std::thread::available_parallelism().map_or(1, usize::from);
        // SAFETY: `set` is a plain bitmask owned by this frame; CPU_SET
        // stays within it (index < CPU_SETSIZE for any realistic machine),
        // and sched_setaffinity(0, ..) only affects the calling thread.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(index % cpus, &mut set);
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = index;
}

impl Drop for Team {
    fn drop(&mut self) {
        for worker in &mut self.workers {
            drop(worker.jobs.take());
            if let Some(handle) = worker.handle.take() {
                let _ = handle.join();
            }
        }
    }
}
