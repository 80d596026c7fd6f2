//! Timing, CPU-time and memory probes shared by every variant.
//!
//! Wall time per call comes from `Instant` around a whole batch, so clock
//! cost is amortised over the batch. CPU time is the whole process's
//! (`getrusage(RUSAGE_SELF)`, every thread), so work a profiler moves to a
//! background thread is still charged to it.

use std::hint::black_box;
use std::time::Instant;

/// Calls `f` `n` times with opaque arguments, keeping every result alive.
///
/// Generic over `F`, so a function item is called directly (no indirect
/// call through a pointer), as it would be in user code.
#[inline(always)]
pub fn call_n<F: Fn(u64) -> u64>(n: u64, f: F) {
    for i in 0..n {
        black_box(f(black_box(i)));
    }
}

/// Runs `calls` calls as consecutive chunks of at most `chunk` calls, with
/// `each(len)` running one chunk (e.g. one root span or one forward pass).
#[inline(always)]
pub fn in_chunks(calls: u64, chunk: u64, mut each: impl FnMut(u64)) {
    let mut left = calls;
    while left > 0 {
        let n = left.min(chunk);
        each(n);
        left -= n;
    }
}

/// Time per call of one batch on one thread.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    /// Wall-clock ns per call.
    pub wall: f64,
    /// The calling thread's own CPU ns per call (`CLOCK_THREAD_CPUTIME_ID`):
    /// like `wall`, minus any time the thread was not running.
    pub on_cpu: Option<f64>,
}

impl Timing {
    /// The mean of several threads' timings.
    #[must_use]
    pub fn mean(timings: &[Timing]) -> Timing {
        let n = timings.len().max(1) as f64;
        let on_cpu: Option<f64> = timings.iter().map(|t| t.on_cpu).sum();
        Timing {
            wall: timings.iter().map(|t| t.wall).sum::<f64>() / n,
            on_cpu: on_cpu.map(|c| c / n),
        }
    }
}

/// Time per call of `run(calls)`, which must make `calls` calls.
#[inline(always)]
pub fn ns_per_call(calls: u64, run: impl FnOnce(u64)) -> Timing {
    let cpu_start = thread_cpu_ns();
    let start = Instant::now();
    run(calls);
    let wall = start.elapsed();
    let cpu_end = thread_cpu_ns();
    let per_call = |ns: f64| ns / calls as f64;
    Timing {
        wall: per_call(wall.as_nanos() as f64),
        on_cpu: cpu_end
            .zip(cpu_start)
            .map(|(end, start)| per_call(end.saturating_sub(start) as f64)),
    }
}

/// CPU time used so far by the calling thread, in ns.
#[must_use]
pub fn thread_cpu_ns() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec; the clock id is a
        // constant every supported Unix provides.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        (rc == 0).then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// CPU time used so far by the whole process (user + system, all threads),
/// in ns; `None` where `getrusage` is unavailable.
#[must_use]
pub fn process_cpu_ns() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: `usage` points to writable memory of the right type, and
        // getrusage only writes it; RUSAGE_SELF is always a valid target.
        let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) };
        if rc != 0 {
            return None;
        }
        // SAFETY: getrusage succeeded, so it filled the struct (and zeroed
        // memory is a valid `rusage` anyway).
        let usage = unsafe { usage.assume_init() };
        let ns = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1_000;
        Some(ns(usage.ru_utime) + ns(usage.ru_stime))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Keeps freed memory in the process: glibc otherwise returns the top of
/// the main thread's heap to the OS whenever more than 128 KiB is free, so a
/// profiler that allocates a buffer per trace and frees it on its collector
/// thread re-faults fresh pages on every trace, but only on the main thread.
/// With trimming off (and a fixed mmap threshold) every thread sees the same
/// steady-state allocator, so no variant is charged for a glibc quirk.
pub fn steady_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallopt only changes allocator tuning parameters; both
        // values are in the ranges glibc accepts (it ignores others).
        unsafe {
            libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
            libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        }
    }
}

/// Median, minimum and maximum of a set of samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// Middle value (mean of the two middle ones for an even count).
    pub median: f64,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
}

impl Summary {
    /// Summarises `samples`; `None` when there are none.
    #[must_use]
    pub fn of(samples: &[f64]) -> Option<Summary> {
        if samples.is_empty() {
            return None;
        }
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let mid = sorted.len() / 2;
        let median = if sorted.len().is_multiple_of(2) {
            (sorted[mid - 1] + sorted[mid]) / 2.0
        } else {
            sorted[mid]
        };
        Some(Summary {
            median,
            min: sorted[0],
            max: sorted[sorted.len() - 1],
        })
    }
}

/// Process memory as the kernel and the allocator see it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Memory {
    /// Resident set size, bytes (`/proc/self/statm`), if readable.
    pub resident: Option<u64>,
    /// Bytes handed out by malloc (glibc `mallinfo2`: in-use arena bytes
    /// plus mmapped blocks), if available.
    pub allocated: Option<u64>,
}

impl Memory {
    /// Reads both numbers now.
    #[must_use]
    pub fn now() -> Memory {
        Memory {
            resident: resident_bytes(),
            allocated: allocated_bytes(),
        }
    }

    /// Bytes gained per `units` since `before`: (allocated, resident).
    #[must_use]
    pub fn per_unit_since(self, before: Memory, units: u64) -> (Option<f64>, Option<f64>) {
        let per = |after: Option<u64>, before: Option<u64>| {
            Some(after?.saturating_sub(before?) as f64 / units as f64)
        };
        (
            per(self.allocated, before.allocated),
            per(self.resident, before.resident),
        )
    }
}

fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * page_size()?)
}

fn page_size() -> Option<u64> {
    #[cfg(unix)]
    {
        // SAFETY: sysconf has no preconditions.
        let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        u64::try_from(size).ok().filter(|&s| s > 0)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

fn allocated_bytes() -> Option<u64> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallinfo2 has no preconditions; it only reads allocator
        // statistics under the allocator's own locks.
        let info = unsafe { libc::mallinfo2() };
        Some((info.uordblks + info.hblkhd) as u64)
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_takes_the_middle() {
        let s = Summary::of(&[5.0, 1.0, 3.0]).unwrap();
        assert_eq!((s.median, s.min, s.max), (3.0, 1.0, 5.0));
        assert_eq!(Summary::of(&[1.0, 2.0, 4.0, 8.0]).unwrap().median, 3.0);
        assert!(Summary::of(&[]).is_none());
    }

    #[test]
    fn chunks_cover_every_call() {
        let mut seen = Vec::new();
        in_chunks(25, 10, |n| seen.push(n));
        assert_eq!(seen, [10, 10, 5]);
    }
}
