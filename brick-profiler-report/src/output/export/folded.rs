//! Folded stacks (`frame;frame;frame weight` lines, the input of
//! flamegraph tools) of the real nesting of steps, phases, layers and bricks.

use std::collections::{BTreeMap, HashMap};

use profiler_core::{Profile, trace::EventKind};

use crate::analysis::trace::nesting::{event_spans, nest, sorted_events};
use crate::base::escape;

/// Folded stacks of a profile's timeline, one line per distinct stack.
///
/// Each thread's events are nested (see [`chrome_trace_json`](super::chrome::chrome_trace_json)
/// for the clamping rule) and every event contributes its *self* time (its
/// duration minus its children's) to the stack of frames from the outermost
/// scope down to it, e.g. `step;forward;layer 0 fwd;Attention;Softmax`.
/// Step frames are named `step` without their index so that steps merge.
/// Identical stacks of all threads are summed, weights are µs rounded to the
/// nearest integer (saturating), lines with weight 0 are dropped, and lines
/// are sorted, each ending in `\n`.
///
/// Names are made safe for the format, so every line reads back with the
/// frames written: `;` becomes `_`; line breaks, control characters and
/// bidi controls are escaped (`\n`, `\x1b`, `\u{202e}`); surrounding
/// whitespace is trimmed; a blank name is `(unnamed)`; and a name ending in
/// ` <number>` (`microbatch 1`) keeps its number behind a no-break space
/// (U+00A0), because readers take a line ending in two numbers for a
/// differential profile. A leading `# ` (a comment line) gets the same.
///
/// Fallback: when the profile has no timeline (trace mode was off) but has
/// brick statistics, there is no nesting to show, so each brick becomes a
/// single frame weighted by its total (inclusive) time.
#[must_use]
pub fn folded_stacks(profile: &Profile) -> String {
    let lines = if profile.timeline.event_count() == 0 {
        brick_totals(profile)
    } else {
        timeline_stacks(profile)
    };
    let mut out = String::new();
    for (stack, ns) in lines {
        let us = ns.saturating_add(500) / 1000;
        if us > 0 {
            out.push_str(&stack);
            out.push(' ');
            out.push_str(&us.to_string());
            out.push('\n');
        }
    }
    out
}

/// Self time per stack, ns.
fn timeline_stacks(profile: &Profile) -> BTreeMap<String, u64> {
    let timeline = &profile.timeline;
    let mut weights: HashMap<String, u64> = HashMap::new();
    for thread in &timeline.threads {
        let events = sorted_events(&thread.events);
        let tree = nest(&event_spans(&events));
        let mut children_ns = vec![0u64; tree.len()];
        for n in &tree {
            if let Some(p) = n.parent {
                children_ns[p] = children_ns[p].saturating_add(n.dur_ns());
            }
        }
        // `stack` holds the frames of the current path; `ends[d]` is its
        // length up to and including the frame at depth `d`.
        let mut stack = String::new();
        let mut ends: Vec<usize> = Vec::new();
        for (i, n) in tree.iter().enumerate() {
            ends.truncate(n.depth);
            stack.truncate(ends.last().copied().unwrap_or(0));
            if n.depth > 0 {
                stack.push(';');
            }
            let event = &events[n.item];
            match event.kind {
                EventKind::Step => stack.push_str("step"),
                _ => stack.push_str(&escape::frame(timeline.name_of(event))),
            }
            ends.push(stack.len());
            let self_ns = n.dur_ns().saturating_sub(children_ns[i]);
            match weights.get_mut(stack.as_str()) {
                Some(w) => *w = w.saturating_add(self_ns),
                None => {
                    weights.insert(stack.clone(), self_ns);
                }
            }
        }
    }
    weights.into_iter().collect()
}

/// One frame per brick with its total time, ns.
fn brick_totals(profile: &Profile) -> BTreeMap<String, u64> {
    let mut totals: BTreeMap<String, u64> = BTreeMap::new();
    for brick in &profile.bricks {
        let w = totals
            .entry(escape::frame(&brick.name).into_owned())
            .or_default();
        *w = w.saturating_add(brick.total_ns);
    }
    totals
}
