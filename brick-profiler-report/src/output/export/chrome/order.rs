//! The Chrome trace's timed events in print order (by ts, longer first,
//! then in the order they were produced) without holding them all: each
//! source (a thread's timeline, the captured kernels, an op track, a
//! counter) produces its events nearly in order and says how early any
//! later event can start; a small reorder buffer per source puts them in
//! order, and a k-way merge over the sources interleaves them. Memory is
//! one head per source plus each source's events not yet safe to print
//! (open slices, kernels still in flight), never the whole trace.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use super::event::Event;

/// A timed event with what orders it: `ts` and `dur` (ns, offset applied)
/// and `seq`, its position among its source's events as produced.
pub(super) struct Timed<'a> {
    pub(super) ts: u64,
    pub(super) dur: u64,
    pub(super) seq: u64,
    pub(super) event: Event<'a>,
}

impl Timed<'_> {
    fn key(&self) -> (u64, Reverse<u64>, u64) {
        (self.ts, Reverse(self.dur), self.seq)
    }
}

impl PartialEq for Timed<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Timed<'_> {}

impl PartialOrd for Timed<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Timed<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

/// A source of timed events, produced a few at a time.
pub(super) trait Feed<'a> {
    /// Appends the next few events (any order; `seq` rising in the order
    /// produced) to `out` and returns a lower bound on the `ts` of every
    /// event produced later; `None` once there is nothing left.
    fn feed(&mut self, out: &mut Vec<Timed<'a>>) -> Option<u64>;
}

/// One source's events in order: those produced but not yet safe to yield
/// wait in a min-heap until the source's lower bound passes them.
pub(super) struct Ordered<'a> {
    feed: Box<dyn Feed<'a> + 'a>,
    pending: BinaryHeap<Reverse<Timed<'a>>>,
    batch: Vec<Timed<'a>>,
    bound: u64,
    done: bool,
}

impl<'a> Ordered<'a> {
    pub(super) fn new(feed: Box<dyn Feed<'a> + 'a>) -> Self {
        Self {
            feed,
            pending: BinaryHeap::new(),
            batch: Vec::new(),
            bound: 0,
            done: false,
        }
    }
}

impl<'a> Iterator for Ordered<'a> {
    type Item = Timed<'a>;

    fn next(&mut self) -> Option<Timed<'a>> {
        loop {
            // An event at the bound itself may still be passed by a later,
            // longer one: only events strictly before it are safe.
            if let Some(Reverse(top)) = self.pending.peek()
                && (self.done || top.ts < self.bound)
            {
                return self.pending.pop().map(|Reverse(t)| t);
            }
            if self.done {
                return None;
            }
            match self.feed.feed(&mut self.batch) {
                Some(bound) => self.bound = bound,
                None => self.done = true,
            }
            self.pending.extend(self.batch.drain(..).map(Reverse));
        }
    }
}

/// The events of `sources` merged by ts, longer first, then source (in the
/// order given), then `seq`: what a stable sort of every source's events,
/// concatenated, gives.
pub(super) struct Merged<'a> {
    sources: Vec<Ordered<'a>>,
    heads: BinaryHeap<Reverse<Head<'a>>>,
}

struct Head<'a> {
    timed: Timed<'a>,
    source: usize,
}

impl Head<'_> {
    fn key(&self) -> (u64, Reverse<u64>, usize, u64) {
        let t = &self.timed;
        (t.ts, Reverse(t.dur), self.source, t.seq)
    }
}

impl PartialEq for Head<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Head<'_> {}

impl PartialOrd for Head<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Head<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

impl<'a> Merged<'a> {
    pub(super) fn new(mut sources: Vec<Ordered<'a>>) -> Self {
        let mut heads = BinaryHeap::with_capacity(sources.len());
        for (source, events) in sources.iter_mut().enumerate() {
            if let Some(timed) = events.next() {
                heads.push(Reverse(Head { timed, source }));
            }
        }
        Self { sources, heads }
    }
}

impl<'a> Iterator for Merged<'a> {
    type Item = Event<'a>;

    fn next(&mut self) -> Option<Event<'a>> {
        let Reverse(Head { timed, source }) = self.heads.pop()?;
        if let Some(next) = self.sources[source].next() {
            self.heads.push(Reverse(Head {
                timed: next,
                source,
            }));
        }
        Some(timed.event)
    }
}

/// Suffix minima of `ts`: entry `i` is the earliest of `ts[i..]`, and one
/// more entry (`u64::MAX`) for the end. What a source whose events are not
/// produced in order gives as its lower bound.
pub(super) fn floors(ts: impl DoubleEndedIterator<Item = u64> + ExactSizeIterator) -> Vec<u64> {
    let mut out = vec![u64::MAX; ts.len() + 1];
    for (i, t) in ts.enumerate().rev() {
        out[i] = t.min(out[i + 1]);
    }
    out
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;

    /// Produces `(ts, dur)` pairs one at a time with the bounds of
    /// [`floors`], so they come out of order within their source.
    struct Pairs {
        pairs: Vec<(u64, u64)>,
        floors: Vec<u64>,
        next: usize,
        name: &'static str,
    }

    impl<'a> Feed<'a> for Pairs {
        fn feed(&mut self, out: &mut Vec<Timed<'a>>) -> Option<u64> {
            let &(ts, dur) = self.pairs.get(self.next)?;
            out.push(Timed {
                ts,
                dur,
                seq: self.next as u64,
                event: Event {
                    name: Cow::Owned(format!("{}{}", self.name, self.next)),
                    ..Event::default()
                },
            });
            self.next += 1;
            Some(self.floors[self.next])
        }
    }

    fn source(name: &'static str, pairs: &[(u64, u64)]) -> Ordered<'static> {
        let floors = floors(pairs.iter().map(|p| p.0));
        Ordered::new(Box::new(Pairs {
            pairs: pairs.to_vec(),
            floors,
            next: 0,
            name,
        }))
    }

    #[test]
    fn the_merge_is_the_stable_sort_of_the_sources_concatenated() {
        let a = [(5, 0), (1, 4), (1, 4), (9, 1), (1, 9), (3, 0)];
        let b = [(1, 4), (0, 0), (5, 0), (3, 2)];
        let merged: Vec<String> = Merged::new(vec![source("a", &a), source("b", &b)])
            .map(|e| e.name.into_owned())
            .collect();
        let mut all: Vec<(u64, u64, String)> = a
            .iter()
            .enumerate()
            .map(|(i, &(t, d))| (t, d, format!("a{i}")))
            .chain(
                b.iter()
                    .enumerate()
                    .map(|(i, &(t, d))| (t, d, format!("b{i}"))),
            )
            .collect();
        all.sort_by_key(|(t, d, _)| (*t, Reverse(*d)));
        let sorted: Vec<String> = all.into_iter().map(|(_, _, n)| n).collect();
        assert_eq!(merged, sorted);
    }

    #[test]
    fn floors_are_suffix_minima() {
        assert_eq!(floors([4, 2, 7].into_iter()), [2, 2, 7, u64::MAX]);
    }
}
