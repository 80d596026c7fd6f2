//! The trace-mode timeline as a profile reports it: per-thread events
//! (steps, phases, layers, bricks) in ns since the run's start.

use serde::{Deserialize, Serialize};

use super::layer::Direction;

/// What a timeline event stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
pub enum EventKind {
    /// A training or inference step.
    Step = 0,
    /// A named phase of a step.
    Phase = 1,
    /// A layer scope.
    Layer = 2,
    /// One brick call.
    Brick = 3,
}

impl EventKind {
    /// The kind stored in the top byte of an event tag.
    pub(crate) fn from_tag(tag: u64) -> Self {
        match tag >> 56 {
            0 => Self::Step,
            1 => Self::Phase,
            2 => Self::Layer,
            _ => Self::Brick,
        }
    }

    /// Nesting rank: a step contains phases, which contain layers, which contain bricks.
    #[must_use]
    pub const fn rank(self) -> u8 {
        self as u8
    }
}

/// One event of a [`Timeline`], in ns since the profile's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimelineEvent {
    /// What the event is.
    pub kind: EventKind,
    /// Index into [`Timeline::names`].
    pub name: u32,
    /// Start, ns since the profile's start.
    pub start_ns: u64,
    /// Duration, ns.
    pub dur_ns: u64,
    /// The layer a brick ran in (or a layer scope's own index).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layer: Option<u32>,
    /// That layer's direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<Direction>,
    /// A brick call's elements, or a step's tokens.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub elements: u64,
    /// A brick call's bytes.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub bytes: u64,
    /// A brick call's floating-point operations.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub flops: u64,
}

impl TimelineEvent {
    /// A span with no layer, direction or amounts: `kind` named by
    /// `name` (an index into [`Timeline::names`]) from `start_ns` for
    /// `dur_ns`.
    #[must_use]
    pub const fn span(kind: EventKind, name: u32, start_ns: u64, dur_ns: u64) -> Self {
        Self {
            kind,
            name,
            start_ns,
            dur_ns,
            layer: None,
            direction: None,
            elements: 0,
            bytes: 0,
            flops: 0,
        }
    }
}

#[allow(clippy::trivially_copy_pass_by_ref, reason = "serde's signature")]
fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// Events of one thread, sorted by start (outer scopes first on ties).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadTimeline {
    /// Dense thread number (matches `ThreadInfo::thread`).
    pub thread: u32,
    /// Thread name, if it had one.
    #[serde(default)]
    pub name: Option<String>,
    /// The events.
    pub events: Vec<TimelineEvent>,
}

/// Everything recorded in trace mode.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Timeline {
    /// Event names, referenced by index.
    pub names: Vec<String>,
    /// Per-thread events.
    pub threads: Vec<ThreadTimeline>,
    /// Events dropped because a thread's buffer was full.
    pub dropped: u64,
    /// Where device-timed bricks began on the device, when the timer said
    /// (absent in files written before this was recorded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub device_starts: Vec<DeviceStart>,
}

/// When a brick's device work began: a timeline event of one thread, and
/// its start on the device, anchored to the host clock, in ns since the
/// profile's start (the event itself starts at the host launch).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceStart {
    /// The thread (matches [`ThreadTimeline::thread`]).
    pub thread: u32,
    /// Index of the brick's event in that thread's `events`.
    pub event: u32,
    /// Device start, ns since the profile's start.
    pub start_ns: u64,
}

impl Timeline {
    /// Name of an event.
    #[must_use]
    pub fn name_of(&self, event: &TimelineEvent) -> &str {
        self.names
            .get(event.name as usize)
            .map_or("?", String::as_str)
    }

    /// Total number of events kept.
    #[must_use]
    pub fn event_count(&self) -> usize {
        self.threads.iter().map(|t| t.events.len()).sum()
    }
}

/// One value of a counter (`profiler::counter`), with when and where it was
/// taken.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CounterSample {
    /// When, ns since the profile's start.
    pub t_ns: u64,
    /// The value (always finite).
    pub value: f64,
    /// The recording thread (matches `ThreadInfo::thread`).
    pub thread: u32,
}

/// A named counter's samples over the run, by time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CounterTrack {
    /// The counter's name.
    pub name: String,
    /// Its samples, by time.
    pub samples: Vec<CounterSample>,
}
