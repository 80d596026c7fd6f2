//! speedscope JSON (<https://www.speedscope.app/file-format-schema.json>):
//! one "evented" profile per thread over shared frames, in ns.

use std::collections::HashMap;

use profiler_core::{Profile, trace::EventKind};
use serde::Serialize;

use super::chrome::to_json;
use super::run_facts::EXPORTER;
use crate::analysis::trace::nesting::{event_spans, nest, sorted_events};

#[derive(Serialize)]
struct File<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    shared: Shared<'a>,
    profiles: Vec<Evented>,
    name: &'a str,
    #[serde(rename = "activeProfileIndex")]
    active_profile_index: usize,
    exporter: &'static str,
}

#[derive(Serialize)]
struct Shared<'a> {
    frames: Vec<Frame<'a>>,
}

#[derive(Serialize)]
struct Frame<'a> {
    name: &'a str,
}

#[derive(Serialize)]
struct Evented {
    #[serde(rename = "type")]
    kind: &'static str,
    name: String,
    unit: &'static str,
    #[serde(rename = "startValue")]
    start_value: u64,
    #[serde(rename = "endValue")]
    end_value: u64,
    events: Vec<Event>,
}

#[derive(Serialize)]
struct Event {
    #[serde(rename = "type")]
    kind: &'static str,
    frame: usize,
    at: u64,
}

/// speedscope JSON of a profile's timeline: one evented profile per thread
/// (`thread N` or its name), frames shared across threads and named like
/// [`folded_stacks`](super::folded::folded_stacks) frames (steps merge as `step`),
/// nesting and clamping as in [`chrome_trace_json`](super::chrome::chrome_trace_json).
/// A profile without a timeline gives a file with no profiles.
#[must_use]
pub fn speedscope_json(profile: &Profile) -> String {
    let timeline = &profile.timeline;
    let mut frames: Vec<Frame<'_>> = Vec::new();
    let mut frame_of: HashMap<&str, usize> = HashMap::new();
    let mut profiles = Vec::new();
    for thread in &timeline.threads {
        let events = sorted_events(&thread.events);
        let tree = nest(&event_spans(&events));
        let mut out: Vec<Event> = Vec::with_capacity(2 * tree.len());
        // Open frames as (frame, end ns); closed LIFO, which nesting makes
        // time-ordered.
        let mut open: Vec<(usize, u64)> = Vec::new();
        for n in &tree {
            close(&mut open, &mut out, n.depth);
            let event = &events[n.item];
            let name = match event.kind {
                EventKind::Step => "step",
                _ => timeline.name_of(event),
            };
            let frame = *frame_of.entry(name).or_insert_with(|| {
                frames.push(Frame { name });
                frames.len() - 1
            });
            out.push(Event {
                kind: "O",
                frame,
                at: n.start_ns,
            });
            open.push((frame, n.end_ns));
        }
        close(&mut open, &mut out, 0);
        let start_value = tree.iter().map(|n| n.start_ns).min().unwrap_or(0);
        let end_value = tree.iter().map(|n| n.end_ns).max().unwrap_or(0);
        let name = thread
            .name
            .as_ref()
            .map_or_else(|| format!("thread {}", thread.thread), Clone::clone);
        profiles.push(Evented {
            kind: "evented",
            name,
            unit: "nanoseconds",
            start_value,
            end_value,
            events: out,
        });
    }
    let name = if profile.run.name.is_empty() {
        "profile"
    } else {
        &profile.run.name
    };
    to_json(&File {
        schema: "https://www.speedscope.app/file-format-schema.json",
        shared: Shared { frames },
        profiles,
        name,
        active_profile_index: 0,
        exporter: EXPORTER,
    })
}

/// Closes open frames until `depth` remain.
fn close(open: &mut Vec<(usize, u64)>, out: &mut Vec<Event>, depth: usize) {
    while open.len() > depth {
        if let Some((frame, at)) = open.pop() {
            out.push(Event {
                kind: "C",
                frame,
                at,
            });
        }
    }
}
