//! Variants without a profiler: the bare call and two clock reads per call.
//!
//! The clock pairs show what a timestamp costs on this machine, and why the
//! profiler reads the raw counter: the fastest pair is the floor that any
//! profiler timing each call has to pay.

use std::rc::Rc;
use std::sync::Barrier;

use crate::measure::{Timing, call_n, ns_per_call};
use crate::subjects::{
    COUNTER_NAME, counter_pair, instant_pair, minstant_pair, plain, quanta_pair,
};
use crate::team::Team;
use crate::variant::{Batch, Expect, Recorded, Variant};

fn bare(timing: Timing) -> Batch {
    Batch {
        timing,
        recorded: Recorded::NotApplicable,
    }
}

/// The unannotated call and the four clock pairs.
#[must_use]
pub fn variants() -> Vec<Variant> {
    vec![
        Variant::new("unannotated", "unannotated", 1, Expect::Nothing, |calls| {
            bare(ns_per_call(calls, |n| call_n(n, plain)))
        }),
        Variant::new(
            "clock-instant",
            "2x std::time::Instant::now",
            1,
            Expect::Nothing,
            |calls| bare(ns_per_call(calls, |n| call_n(n, instant_pair))),
        ),
        Variant::new(
            "clock-counter",
            format!("2x {COUNTER_NAME} (raw counter)"),
            1,
            Expect::Nothing,
            |calls| bare(ns_per_call(calls, |n| call_n(n, counter_pair))),
        )
        .floor(),
        Variant::new(
            "clock-quanta",
            "2x quanta::Instant::now",
            1,
            Expect::Nothing,
            |calls| bare(ns_per_call(calls, |n| call_n(n, quanta_pair))),
        )
        .floor(),
        Variant::new(
            "clock-minstant",
            "2x minstant::Instant::now",
            1,
            Expect::Nothing,
            |calls| bare(ns_per_call(calls, |n| call_n(n, minstant_pair))),
        )
        .floor(),
    ]
}

fn counter_job(calls: u64, start: &Barrier) -> Timing {
    start.wait();
    ns_per_call(calls, |n| call_n(n, counter_pair))
}

/// The raw-counter pair on every thread of `team` at once: the machine's
/// own slowdown when both threads run, with no profiler state at all.
#[must_use]
pub fn team_variant(team: Rc<Team>) -> Variant {
    let threads = team.size() as u32;
    Variant::new(
        "clock-counter-threads",
        format!("2x {COUNTER_NAME} (raw counter)"),
        threads,
        Expect::Nothing,
        move |calls| bare(team.run(counter_job, calls)),
    )
}
