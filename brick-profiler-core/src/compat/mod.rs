//! The string API: explicit start/stop timers, pre-measured durations and
//! bottleneck labels for names known only at run time. Its names and
//! behaviour are stable for code written against earlier brick profilers.
//!
//! Names resolve to a built-in [`BrickId`] first (aliases included), then to
//! the slot of a custom brick of the same name, so `#[brick("X")]` and
//! `start("X")` share statistics. Resolving a name takes a lock; prefer
//! `#[brick]` or [`start_brick`] in hot loops.

use std::time::Duration;

use crate::catalogue::{BrickBottleneck, BrickCategory, BrickId};
use crate::control::snapshot;
use crate::record::amounts::Amounts;
use crate::record::facts::run_facts;
use crate::record::guard::{record_finished, record_measured, recording};
use crate::record::site::{all_slots, intern, lookup};
use crate::record::state::{self, RAW_CLOCK};
use crate::record::thread::current_layer;
use crate::stats::BrickStats;

/// A running timer from [`start`]; finish it with [`stop`].
#[must_use = "a timer records nothing until passed to `stop`"]
#[derive(Debug)]
pub struct BrickTimer {
    slot: Option<u32>,
    start: u64,
    raw: bool,
}

/// A running timer from [`start_brick`]; finish it with [`stop_brick`].
#[must_use = "a timer records nothing until passed to `stop_brick`"]
#[derive(Debug)]
pub struct BrickIdTimer {
    brick: BrickId,
    start: u64,
    raw: bool,
    recording: bool,
}

fn clock_now() -> (u64, bool) {
    let raw = state::load() & RAW_CLOCK != 0;
    (crate::clock::now(raw), raw)
}

/// Starts timing the brick `name`. While the profiler is disabled the timer
/// is inert and the name is not even looked up.
pub fn start(name: &str) -> BrickTimer {
    let slot = recording().map(|_| intern(name, BrickCategory::Other));
    let (start, raw) = clock_now();
    BrickTimer { slot, start, raw }
}

/// Stops a [`start`] timer and records the sample with `elements` processed.
pub fn stop(timer: BrickTimer, elements: u64) {
    let end = crate::clock::now(timer.raw);
    if let (Some(slot), Some(_)) = (timer.slot, recording()) {
        finish(slot, timer.start, end.saturating_sub(timer.start), elements);
    }
}

/// Starts timing a built-in brick (no name lookup).
pub fn start_brick(brick: BrickId) -> BrickIdTimer {
    let recording = recording().is_some();
    let (start, raw) = clock_now();
    BrickIdTimer {
        brick,
        start,
        raw,
        recording,
    }
}

/// Stops a [`start_brick`] timer and records the sample.
pub fn stop_brick(timer: BrickIdTimer, elements: u64) {
    let end = crate::clock::now(timer.raw);
    if timer.recording && recording().is_some() {
        finish(
            timer.brick as u32,
            timer.start,
            end.saturating_sub(timer.start),
            elements,
        );
    }
}

fn finish(slot: u32, start: u64, ticks: u64, elements: u64) {
    let amounts = Amounts {
        elements,
        ..Amounts::NONE
    };
    record_finished(state::load(), slot, start, ticks, amounts, current_layer());
}

/// Records a duration measured elsewhere for the brick `name`.
pub fn record_elapsed(name: &str, elapsed: Duration, elements: u64) {
    record_elapsed_with_bytes(name, elapsed, elements, 0, 0);
}

/// Records a duration with the bytes read (`input_bytes`) and written
/// compressed (`output_bytes`), for compression-style bricks.
pub fn record_elapsed_with_bytes(
    name: &str,
    elapsed: Duration,
    elements: u64,
    input_bytes: u64,
    output_bytes: u64,
) {
    if recording().is_none() {
        return;
    }
    let slot = intern(name, BrickCategory::Other);
    let ns = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
    let amounts = Amounts {
        elements,
        bytes: input_bytes,
        ..Amounts::NONE
    };
    let (end, _) = clock_now();
    record_measured(state::load(), slot, end, ns, amounts, current_layer(), None);
    if output_bytes > 0 {
        let mut facts = run_facts();
        let total = facts.compressed.entry(slot).or_default();
        *total = total.saturating_add(output_bytes);
    }
}

/// Current statistics of the brick `name`, if it has samples.
#[must_use]
pub fn stats(name: &str) -> Option<BrickStats> {
    let slot = lookup(name)?;
    let meta = all_slots().get(slot as usize)?.name.to_string();
    snapshot().bricks.into_iter().find(|b| b.name == meta)
}

/// Statistics of every brick with samples, by total time descending.
#[must_use]
pub fn all_brick_stats() -> Vec<BrickStats> {
    snapshot().bricks
}

/// Names of every brick with samples, by total time descending.
#[must_use]
pub fn brick_names() -> Vec<String> {
    all_brick_stats().into_iter().map(|b| b.name).collect()
}

/// Labels a brick's bottleneck (built-in names and aliases resolve); the
/// label shows in `BrickStats::bottleneck` and the JSON summary.
pub fn set_brick_bottleneck(name: &str, bottleneck: BrickBottleneck) {
    let slot = intern(name, BrickCategory::Other);
    run_facts().bottlenecks.insert(slot, bottleneck);
}
