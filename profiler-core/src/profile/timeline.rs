//! The trace-mode timeline as a profile reports it: per-thread events
//! (steps, phases, layers, bricks) in ns since the run's start.

use serde::{Deserialize, Serialize};

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
