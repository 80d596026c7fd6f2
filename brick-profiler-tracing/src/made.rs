//! The spans each thread made, by span id: the callsite resolution of each,
//! noted when the span is made, so entering it on the same thread needs no
//! registry lookup (which counts a reference up and down) and no table probe.
//!
//! Exact, not a guess: `tracing_subscriber`'s registry packs the making
//! thread's shard into a span's id, so a span with a given id can only be
//! made again on the thread that made the first (and a live span's id is
//! never reused). Every span made on a thread passes through `note` there
//! and overwrites the entry of its id, so an entry that matches an id is the
//! latest span made with it. Only used under that registry (see
//! `BrickLayer::on_layer`).

use std::cell::Cell;

/// Entries per thread: the spans a model keeps and enters again (candle's,
/// made once per layer of a model) fit; an id's entry is its low bits.
const ENTRIES: usize = 256;

/// Marks a span whose enter needs more than its callsite's plan.
const NO_PLAN: u32 = u32::MAX;

/// One span made on this thread: which layer noted it, its id, and where
/// its plan is in that layer's table when entering it needs nothing else.
#[derive(Clone, Copy)]
struct Entry {
    owner: u32,
    plan: u32,
    span: u64,
}

const EMPTY: Entry = Entry {
    owner: u32::MAX,
    plan: NO_PLAN,
    span: 0,
};

/// The callsite (metadata address) a layer last noted a span of on this
/// thread, and its plan's place as [`Entry::plan`] says.
#[derive(Clone, Copy)]
struct Last {
    owner: u32,
    plan: u32,
    site: usize,
}

/// A thread's spans and last callsite.
struct Made {
    spans: [Cell<Entry>; ENTRIES],
    last: Cell<Last>,
}

thread_local! {
    static MADE: Made = const {
        Made {
            spans: [const { Cell::new(EMPTY) }; ENTRIES],
            last: Cell::new(Last { owner: u32::MAX, plan: NO_PLAN, site: 0 }),
        }
    };
}

/// The entry of span id `span`.
#[inline]
fn index(span: u64) -> usize {
    // Registry ids are slab slots plus one: the low bits count up.
    (span as usize) & (ENTRIES - 1)
}

/// Notes that layer `owner` saw span `span` made on this thread at the
/// callsite `site` (its metadata address), and returns the place in its
/// table of the plan every enter of the span follows: `None` when entering
/// it needs more (data of its own) or it is not a brick. `resolve` says so
/// for a callsite other than the last one noted.
#[inline]
pub(crate) fn note(
    owner: u32,
    span: u64,
    site: usize,
    resolve: impl FnOnce() -> Option<u32>,
) -> Option<u32> {
    MADE.with(|made| {
        let last = made.last.get();
        let plan = if last.owner == owner && last.site == site {
            last.plan
        } else {
            let plan = resolve().unwrap_or(NO_PLAN);
            made.last.set(Last { owner, plan, site });
            plan
        };
        made.spans[index(span)].set(Entry { owner, plan, span });
        (plan != NO_PLAN).then_some(plan)
    })
}

/// Where in layer `owner`'s table the plan of span `span` is, when the span
/// was made on this thread, its entry was not taken by another span since,
/// and entering it needs nothing but that plan.
#[inline]
pub(crate) fn plan(owner: u32, span: u64) -> Option<u32> {
    let entry = MADE.with(|made| made.spans[index(span)].get());
    (entry.owner == owner && entry.span == span && entry.plan != NO_PLAN).then_some(entry.plan)
}
