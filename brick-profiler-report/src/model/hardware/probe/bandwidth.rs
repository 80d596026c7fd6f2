//! The bandwidth probe: a STREAM-style triad `a[i] = b[i] + s * c[i]` over
//! f64 arrays, all threads at once, best of several repetitions. Bytes are
//! counted as STREAM does: 24 per element (two reads, one write; the
//! write-allocate read is not counted).

use std::hint::black_box;

use super::converge::{Plan, Round, Series};
use super::rounds::timed_rounds;

/// Bytes STREAM counts per triad element.
pub(crate) const TRIAD_BYTES_PER_ELEMENT: u64 = 24;

fn triad(a: &mut [f64], b: &[f64], c: &[f64], s: f64) {
    // Equal lengths up front let the optimiser drop the bounds checks and
    // vectorise; the indexed loop also stays cheap in unoptimised builds.
    let n = a.len().min(b.len()).min(c.len());
    let (a, b, c) = (&mut a[..n], &b[..n], &c[..n]);
    for i in 0..n {
        a[i] = b[i] + s * c[i];
    }
}

/// Runs timed rounds on `threads` threads as `plan` says, each round doing
/// `inner` triad passes over that thread's slice of three shared arrays.
fn rounds(threads: usize, elements: usize, plan: Plan, inner: u32) -> Vec<Round> {
    let mut a = vec![0.0f64; elements];
    let mut b = vec![0.0f64; elements];
    let mut c = vec![0.0f64; elements];
    let chunk = elements.div_ceil(threads.max(1)).max(1);
    let s = black_box(3.0);
    let slices: Vec<_> = a
        .chunks_mut(chunk)
        .zip(b.chunks_mut(chunk))
        .zip(c.chunks_mut(chunk))
        .map(|((a, b), c)| (a, b, c, false))
        .collect();
    // The first round touches the pages and is not timed.
    let more = |r: &[Round]| r.is_empty() || plan.more(&r[1..]);
    let times = timed_rounds(slices, more, |(a, b, c, touched)| {
        if !*touched {
            // First touch on the thread that uses the pages (NUMA).
            a.fill(0.0);
            b.fill(1.0);
            c.fill(2.0);
            *touched = true;
            return;
        }
        for _ in 0..inner {
            triad(a, b, c, s);
            // Keep each pass: the writes must reach memory.
            black_box(&mut **a);
        }
    });
    black_box((&a, &b, &c));
    times.into_iter().skip(1).collect()
}

/// Triad over three arrays of `elements` f64 each, split across `threads`.
pub(crate) fn triad_shared(what: &str, threads: usize, elements: usize, plan: Plan) -> Series {
    Series::new(
        what,
        (elements as u64 * TRIAD_BYTES_PER_ELEMENT) as f64,
        rounds(threads, elements, plan, 1),
    )
}

/// Triad over small per-thread arrays (`elements_per_thread` each) that
/// stay cache-resident, repeated `inner` times per round.
pub(crate) fn triad_resident(
    what: &str,
    threads: usize,
    elements_per_thread: usize,
    plan: Plan,
    inner: u32,
) -> Series {
    let elements = elements_per_thread * threads.max(1);
    Series::new(
        what,
        (elements as u64 * TRIAD_BYTES_PER_ELEMENT) as f64 * f64::from(inner),
        rounds(threads, elements, plan, inner),
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// Exactly `n` repetitions.
    fn reps(n: u32) -> Plan {
        Plan {
            min: n,
            max: n,
            budget: Duration::ZERO,
        }
    }

    #[test]
    fn triad_counts_stream_bytes_and_times_every_round() {
        let t = triad_shared("DRAM", 2, 1 << 16, reps(3));
        assert_eq!(t.work, (24u64 << 16) as f64);
        assert_eq!(t.rounds.len(), 3);
        assert!(t.best() > 0.0 && t.best() >= t.median());
        let r = triad_resident("L1", 2, 1024, reps(2), 10);
        assert_eq!(r.work, (24 * 2048 * 10) as f64);
        assert_eq!(r.rounds.len(), 2);
    }

    #[test]
    fn rates_of_nothing_are_zero() {
        let t = Series::new("none", 1.0, Vec::new());
        assert_eq!((t.best(), t.median()), (0.0, 0.0));
    }
}
