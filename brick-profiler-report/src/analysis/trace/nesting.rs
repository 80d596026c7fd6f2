//! Turns one thread's spans into a properly nested tree, the shape every
//! timeline export needs (Chrome `X` events, folded stacks, speedscope).
//!
//! The rule: spans are ordered by start, then longer first, then coarser
//! kind. A span that starts before the innermost open span ends is its
//! child; a child that ends after its parent (an overshoot from rounding
//! ticks to ns, or from two clocks) is clamped to the parent's end. A span
//! that starts exactly where an open span ends is not its child.

use std::borrow::Cow;
use std::cmp::Reverse;

use profiler_core::trace::TimelineEvent;

/// A span placed in the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Nested {
    /// Index of the span in the input slice.
    pub(crate) item: usize,
    /// Start, ns.
    pub(crate) start_ns: u64,
    /// End, ns, after clamping to the parent.
    pub(crate) end_ns: u64,
    /// 0 for top-level spans.
    pub(crate) depth: usize,
    /// Position of the parent in the output (it always comes earlier).
    pub(crate) parent: Option<usize>,
}

impl Nested {
    /// Duration after clamping, ns.
    pub(crate) fn dur_ns(&self) -> u64 {
        self.end_ns - self.start_ns
    }
}

/// Nests spans given as `(start_ns, end_ns, kind_rank)`; returns them in tree
/// order (parents before children, siblings by start). Linear after the sort.
pub(crate) fn nest(spans: &[(u64, u64, u8)]) -> Vec<Nested> {
    let mut order: Vec<usize> = (0..spans.len()).collect();
    order.sort_by_key(|&i| {
        let (start, end, rank) = spans[i];
        (start, Reverse(end.max(start)), rank)
    });
    let mut out: Vec<Nested> = Vec::with_capacity(spans.len());
    let mut open: Vec<usize> = Vec::new();
    for i in order {
        let (start, end, _) = spans[i];
        while open.last().is_some_and(|&top| out[top].end_ns <= start) {
            open.pop();
        }
        let parent = open.last().copied();
        let mut end_ns = end.max(start);
        if let Some(p) = parent {
            end_ns = end_ns.min(out[p].end_ns);
        }
        out.push(Nested {
            item: i,
            start_ns: start,
            end_ns,
            depth: open.len(),
            parent,
        });
        open.push(out.len() - 1);
    }
    out
}

/// The spans of timeline events (`kind` ranks break ties: step before brick).
pub(crate) fn event_spans(events: &[TimelineEvent]) -> Vec<(u64, u64, u8)> {
    events
        .iter()
        .map(|e| {
            (
                e.start_ns,
                e.start_ns.saturating_add(e.dur_ns),
                e.kind.rank(),
            )
        })
        .collect()
}

/// Events sorted by start, longer first, coarser kind first; borrowed when
/// already sorted (as snapshots write them).
pub(crate) fn sorted_events(events: &[TimelineEvent]) -> Cow<'_, [TimelineEvent]> {
    let key = |e: &TimelineEvent| (e.start_ns, Reverse(e.dur_ns), e.kind.rank());
    if events.is_sorted_by_key(key) {
        Cow::Borrowed(events)
    } else {
        let mut owned = events.to_vec();
        owned.sort_by_key(key);
        Cow::Owned(owned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(spans: &[(u64, u64, u8)]) -> Vec<(usize, u64, u64, usize)> {
        nest(spans)
            .iter()
            .map(|n| (n.item, n.start_ns, n.end_ns, n.depth))
            .collect()
    }

    #[test]
    fn children_nest_and_overshoot_is_clamped() {
        // step [0,100) > phase [0,60) > brick [10,61) overshoots by 1 ns.
        let spans = [(10, 61, 3), (0, 100, 0), (0, 60, 1), (60, 70, 3)];
        assert_eq!(
            shape(&spans),
            [
                (1, 0, 100, 0),
                (2, 0, 60, 1),
                (0, 10, 60, 2),
                (3, 60, 70, 1)
            ]
        );
        let tree = nest(&spans);
        assert_eq!(tree[2].parent, Some(1));
        assert_eq!(tree[3].parent, Some(0));
        assert_eq!(tree[2].dur_ns(), 50);
    }

    #[test]
    fn equal_spans_nest_by_kind_and_touching_spans_are_siblings() {
        let spans = [(0, 10, 3), (0, 10, 1), (10, 10, 3)];
        assert_eq!(
            shape(&spans),
            [(1, 0, 10, 0), (0, 0, 10, 1), (2, 10, 10, 0)]
        );
    }

    #[test]
    fn inverted_spans_become_empty() {
        assert_eq!(shape(&[(5, 3, 3)]), [(0, 5, 5, 0)]);
    }
}
