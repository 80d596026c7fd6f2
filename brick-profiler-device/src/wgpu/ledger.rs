//! The bookkeeping of timestamp pairs, apart from the GPU: each compute
//! pass's pair gets a sequence number and its thread; a brick is the range
//! of sequence numbers between its two events, and its device time the sum
//! of its thread's passes in that range; its device start is the begin
//! timestamp of its thread's first pass in the range.

use std::collections::{BTreeMap, VecDeque};

use profiler_core::sync::DeviceEvent;

/// Sequence numbers fit in the low 40 bits of an event; the thread key
/// takes the 24 bits above.
const SEQ_BITS: u32 = 40;
const SEQ_MASK: u64 = (1 << SEQ_BITS) - 1;
const THREAD_MASK: u32 = (1 << (64 - SEQ_BITS)) - 1;

/// A pair's time as far as it is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Time {
    /// Not read back yet.
    Unread,
    /// Read back, but the timestamps were not usable (end before begin).
    Unusable,
    /// Device nanoseconds between the pass's two timestamps.
    Ns(u64),
}

/// What a brick's range holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Span {
    /// Some pair of the brick's thread in the range is not read back yet.
    Unread,
    /// The range is gone (expired, or from before a pruning).
    Gone,
    /// Every pair is read: the sum of the usable ones, and how many there were.
    Read { ns: u64, passes: u64 },
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    thread: u32,
    time: Time,
    /// The pass's begin timestamp, raw ticks, once read and usable.
    begin: Option<u64>,
}

/// Pairs and the bricks' events still open, bounded by `capacity` pairs.
#[derive(Debug)]
pub(crate) struct Ledger {
    capacity: usize,
    /// Sequence number of `entries[0]`.
    first: u64,
    entries: VecDeque<Entry>,
    /// Events recorded and not released, by sequence number.
    open: BTreeMap<u64, u32>,
    /// Open events given up to make room.
    pub(crate) expired: u64,
}

/// The event a brick on `thread` records when the next pair is `seq`.
pub(crate) fn event(thread: u32, seq: u64) -> DeviceEvent {
    DeviceEvent((u64::from(thread & THREAD_MASK) << SEQ_BITS) | (seq & SEQ_MASK))
}

/// The thread and sequence number of an event.
pub(crate) fn parts(event: DeviceEvent) -> (u32, u64) {
    ((event.0 >> SEQ_BITS) as u32, event.0 & SEQ_MASK)
}

impl Ledger {
    /// Keeps at most `capacity` pairs (at least two).
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(2),
            first: 0,
            entries: VecDeque::new(),
            open: BTreeMap::new(),
            expired: 0,
        }
    }

    /// The sequence number the next pair gets.
    pub(crate) fn next(&self) -> u64 {
        self.first + self.entries.len() as u64
    }

    /// Pairs kept.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Opens an event of `thread` at the current sequence number.
    pub(crate) fn open(&mut self, thread: u32) -> DeviceEvent {
        let seq = self.next();
        *self.open.entry(seq).or_default() += 1;
        event(thread, seq)
    }

    /// Closes an event; pairs no open event can still ask for are dropped.
    pub(crate) fn close(&mut self, event: DeviceEvent) {
        let (_, seq) = parts(event);
        if let Some(count) = self.open.get_mut(&seq) {
            *count -= 1;
            if *count == 0 {
                self.open.remove(&seq);
            }
        }
        self.prune();
    }

    fn prune(&mut self) {
        let keep_from = self.open.keys().next().copied().unwrap_or(self.next());
        while self.first < keep_from && !self.entries.is_empty() {
            self.entries.pop_front();
            self.first += 1;
        }
    }

    /// Whether a pair fits; when full, the oldest open events (those
    /// holding the older half of the pairs) are given up first.
    pub(crate) fn make_room(&mut self) -> bool {
        if self.entries.len() < self.capacity {
            return true;
        }
        let horizon = self.first + (self.capacity / 2) as u64;
        let old: Vec<u64> = self.open.range(..horizon).map(|(&s, _)| s).collect();
        for seq in old {
            self.expired += u64::from(self.open.remove(&seq).unwrap_or(0));
        }
        self.prune();
        self.entries.len() < self.capacity
    }

    /// Adds a pair of `thread`; returns its sequence number. Call
    /// [`Ledger::make_room`] first.
    pub(crate) fn push(&mut self, thread: u32) -> u64 {
        let seq = self.next();
        self.entries.push_back(Entry {
            thread,
            time: Time::Unread,
            begin: None,
        });
        seq
    }

    /// Sets a pair's time and begin ticks (ignored for a pair already
    /// dropped).
    pub(crate) fn set(&mut self, seq: u64, time: Time, begin: Option<u64>) {
        if let Some(offset) = seq.checked_sub(self.first)
            && let Some(entry) = self.entries.get_mut(offset as usize)
        {
            entry.time = time;
            entry.begin = begin.filter(|_| matches!(time, Time::Ns(_)));
        }
    }

    /// The sequence number of the first pass of `event`'s thread from
    /// `event` on, and its begin ticks, when read and usable: where a
    /// brick starting at `event` began on the device.
    pub(crate) fn first_begin(&self, event: DeviceEvent) -> Option<(u64, u64)> {
        let (thread, from) = parts(event);
        let skip = usize::try_from(from.checked_sub(self.first)?).ok()?;
        let (offset, entry) = self
            .entries
            .iter()
            .enumerate()
            .skip(skip)
            .find(|(_, e)| e.thread == thread)?;
        Some((self.first + offset as u64, entry.begin?))
    }

    /// The sequence number of the first pair kept.
    pub(crate) fn first(&self) -> u64 {
        self.first
    }

    /// The pairs of `start`'s thread between two events.
    pub(crate) fn span(&self, start: DeviceEvent, end: DeviceEvent) -> Span {
        let ((thread, from), (end_thread, to)) = (parts(start), parts(end));
        if thread != end_thread || to < from || !self.open.contains_key(&from) {
            return Span::Gone;
        }
        let (mut ns, mut passes) = (0u64, 0u64);
        let skip = (from - self.first) as usize;
        let take = (to - from) as usize;
        for entry in self.entries.iter().skip(skip).take(take) {
            if entry.thread != thread {
                continue;
            }
            match entry.time {
                Time::Unread => return Span::Unread,
                Time::Unusable => {}
                Time::Ns(t) => {
                    ns = ns.saturating_add(t);
                    passes += 1;
                }
            }
        }
        Span::Read { ns, passes }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_brick_sums_its_threads_passes_between_its_events() {
        let mut l = Ledger::new(64);
        let start = l.open(1);
        let a = l.push(1);
        let other = l.push(2);
        let b = l.push(1);
        let end = l.open(1);
        assert_eq!(l.span(start, end), Span::Unread);
        l.set(a, Time::Ns(10), None);
        l.set(b, Time::Ns(5), None);
        assert_eq!(l.span(start, end), Span::Read { ns: 15, passes: 2 });
        // Another thread's pass in the range is not ours, read or not.
        l.set(other, Time::Ns(1000), None);
        assert_eq!(l.span(start, end), Span::Read { ns: 15, passes: 2 });
    }

    #[test]
    fn nested_bricks_keep_their_pairs_until_the_outer_one_closes() {
        let mut l = Ledger::new(64);
        let outer = l.open(1);
        let inner = l.open(1);
        let p = l.push(1);
        let inner_end = l.open(1);
        let outer_end = l.open(1);
        l.set(p, Time::Ns(7), None);
        assert_eq!(l.span(inner, inner_end), Span::Read { ns: 7, passes: 1 });
        l.close(inner);
        l.close(inner_end);
        assert_eq!(l.span(outer, outer_end), Span::Read { ns: 7, passes: 1 });
        l.close(outer);
        l.close(outer_end);
        assert_eq!(l.len(), 0, "nothing open: every pair dropped");
        assert_eq!(l.span(outer, outer_end), Span::Gone);
    }

    #[test]
    fn unusable_pairs_are_skipped_and_an_empty_brick_has_no_passes() {
        let mut l = Ledger::new(64);
        let s = l.open(3);
        let p = l.push(3);
        let e = l.open(3);
        l.set(p, Time::Unusable, None);
        assert_eq!(l.span(s, e), Span::Read { ns: 0, passes: 0 });
    }

    #[test]
    fn a_full_ledger_gives_up_its_oldest_open_events() {
        let mut l = Ledger::new(4);
        let forgotten = l.open(1);
        for _ in 0..4 {
            assert!(l.make_room());
            l.push(1);
        }
        assert!(l.make_room(), "the forgotten event made room");
        assert_eq!(l.expired, 1);
        let now = l.open(1);
        assert_eq!(l.span(forgotten, now), Span::Gone);
    }

    #[test]
    fn a_brick_begins_at_its_threads_first_read_pass() {
        let mut l = Ledger::new(64);
        let other = l.push(2);
        let start = l.open(1);
        l.push(2);
        let first = l.push(1);
        let second = l.push(1);
        assert_eq!(l.first_begin(start), None, "not read yet");
        l.set(other, Time::Ns(1), Some(5));
        l.set(second, Time::Ns(1), Some(900));
        l.set(first, Time::Ns(4), Some(700));
        assert_eq!(l.first_begin(start), Some((first, 700)));
        l.set(first, Time::Unusable, Some(700));
        assert_eq!(l.first_begin(start), None, "an unusable pass has no begin");
    }

    #[test]
    fn events_carry_thread_and_sequence() {
        let e = event(0x00AB_CDEF, 123_456_789);
        assert_eq!(parts(e), (0x00AB_CDEF, 123_456_789));
    }
}
