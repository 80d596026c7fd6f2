//! Recording: everything an annotated call touches, and the per-thread
//! storage it writes. Files, bottom to top: `uncharged` (the flag that
//! keeps the profiler's own allocations off the bricks), `amounts` (what a call
//! carries), `device` (device timers), `state` (the one state word and the
//! settings behind it), `facts` (run facts), `registry` (call sites,
//! registered at link time), `site` (slots of call sites and names),
//! `layers` (the layer-attribution table), `starts` (device
//! starts beside timeline events), `events` (the trace-mode buffer), `entries` (`#[trace_op]` entries), `cell` (one brick's
//! counters), `sample` (merged samples), `series` (counter names),
//! `pending` (the deferred queue) and `graph` (a thread's share of the
//! execution graph), `slab` (one thread's storage), `totals` (slabs
//! merged), `thread` (registration and the hot-path lookup), `memory` (memory
//! totals per brick, step and thread), `ledger` (what allocators charge), `nodes` (what feeds the
//! graph), `guard` (the hot path itself).

pub(crate) mod amounts;
pub(crate) mod cell;
pub(crate) mod device;
pub(crate) mod entries;
pub(crate) mod events;
pub(crate) mod facts;
pub(crate) mod graph;
pub(crate) mod guard;
pub(crate) mod layers;
pub(crate) mod ledger;
pub(crate) mod memory;
pub(crate) mod nodes;
pub(crate) mod pending;
pub(crate) mod rank;
pub(crate) mod registry;
pub(crate) mod sample;
pub(crate) mod scope_memory;
pub(crate) mod series;
pub(crate) mod site;
pub(crate) mod slab;
pub(crate) mod starts;
pub(crate) mod state;
pub(crate) mod thread;
pub(crate) mod totals;
pub(crate) mod uncharged;
