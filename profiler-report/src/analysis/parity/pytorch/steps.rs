//! The recorded steps: `ProfilerStep#N` ranges that hold work. A step with
//! no kernel (device traces) or no op or range that does work (CPU traces), such as
//! the short trailing step a schedule leaves, is left out with a note:
//! counted, it would halve the step time.

use super::link::Links;
use super::rules::VIEW_OPS;
use super::tree::StepWindows;
use crate::model::chrome_trace::{Cat, ChromeTrace, Event};

/// A trace's device events linked to their launches (none in a CPU trace)
/// and its steps, each device event placed by its launch on the host.
pub(crate) struct TraceSteps {
    /// Whether the trace has device events.
    pub(crate) device: bool,
    /// Each device event's launch.
    pub(crate) links: Links,
    /// The steps.
    pub(crate) steps: Steps,
}

impl TraceSteps {
    pub(crate) fn of(trace: &ChromeTrace) -> Self {
        let events = &trace.events[..];
        let device = events.iter().any(|e| e.cat.on_device());
        let links = if device {
            Links::new(trace)
        } else {
            Links::default()
        };
        let steps = Steps::find(events, device, |i| links.host_ts(events, i));
        Self {
            device,
            links,
            steps,
        }
    }
}

/// The steps kept, as (start, end) in µs, and what was left out.
#[derive(Debug)]
pub(crate) struct Steps {
    /// Steps with work.
    pub(crate) kept: Vec<(f64, f64)>,
    /// Steps left out: (name, duration in ms).
    pub(crate) empty: Vec<(String, f64)>,
}

impl Steps {
    /// `launch_ts` gives, per device event, the start of its launch on the
    /// host (else its own start).
    pub(crate) fn find(events: &[Event], device: bool, launch_ts: impl Fn(usize) -> f64) -> Self {
        let all: Vec<(usize, (f64, f64))> = events
            .iter()
            .enumerate()
            .filter(|(_, e)| e.cat == Cat::Annotation && e.name.starts_with("ProfilerStep#"))
            .map(|(i, e)| (i, (e.ts, e.end())))
            .collect();
        let ranges: Vec<(f64, f64)> = all.iter().map(|(_, r)| *r).collect();
        let windows = StepWindows::new(&ranges);
        let mut busy = vec![false; ranges.len()];
        for (i, e) in events.iter().enumerate() {
            let works = if device {
                e.cat.on_device()
            } else {
                // Any op or range inside the step that is not a view: a
                // CPU trace may hold little more than annotated ranges.
                matches!(e.cat, Cat::CpuOp | Cat::Annotation | Cat::Module)
                    && e.dur > 0.0
                    && !e.name.starts_with("ProfilerStep#")
                    && !VIEW_OPS.contains(&e.name.as_ref())
            };
            let at = if e.cat.on_device() {
                launch_ts(i)
            } else {
                e.ts
            };
            if works && let Some(s) = windows.which(at) {
                busy[s] = true;
            }
        }
        let mut steps = Steps {
            kept: Vec::new(),
            empty: Vec::new(),
        };
        for (s, &(i, range)) in all.iter().enumerate() {
            if busy[s] {
                steps.kept.push(range);
            } else {
                let e = &events[i];
                steps.empty.push((e.name.to_string(), e.dur / 1e3));
            }
        }
        steps
    }

    /// A note naming the steps left out, when there are any.
    pub(crate) fn note(&self, device: bool) -> Option<String> {
        if self.empty.is_empty() {
            return None;
        }
        let work = if device {
            "no kernel"
        } else {
            "no op that does work"
        };
        let names: Vec<String> = self
            .empty
            .iter()
            .take(3)
            .map(|(name, ms)| format!("{name} ({ms:.3} ms)"))
            .collect();
        let more = self.empty.len().saturating_sub(3);
        let tail = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        Some(format!(
            "{} ProfilerStep ranges with {work} left out: {}{tail}",
            self.empty.len(),
            names.join(", ")
        ))
    }
}
