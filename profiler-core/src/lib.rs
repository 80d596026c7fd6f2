//! Runtime of the brick profiler.
//!
//! One global profiler, off by default. Annotated calls (`#[brick]` from the
//! `profiler` facade) record into per-thread storage with no allocation, no
//! lock and no string work; [`snapshot`] merges everything into a
//! [`Profile`] that reports read, live or from disk.
//!
//! Most users depend on the `profiler` facade, which re-exports this crate
//! together with the `#[brick]` and `#[trace_op]` macros.
//!
//! The root holds what a run needs: [`enable`]/[`disable`]/[`reset`]/
//! [`snapshot`], [`step`]/[`phase`]/[`layer`] scopes, [`Config`], and the
//! [`Profile`] with its statistics. Specialised parts live in modules:
//! [`sync`] (GPU sync modes, device timers, deferred records), [`trace`]
//! (`#[trace_op]` entries and the trace-mode timeline), [`profile`] and
//! [`stats`] (the data a snapshot holds), [`kernel`] (tile timing, output
//! checksums and divergence, the execution graph), [`compat`] (the string
//! API).

mod catalogue;
mod clock;
mod context;
mod contract;
mod control;
mod counter;
mod fs;
mod overhead;
mod record;
mod sentinel;
mod snapshot;

pub mod compat;
pub mod kernel;
pub mod profile;
pub mod stats;
pub mod sync;
pub mod trace;

/// Items used by generated code and sibling crates. Not public API.
#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use catalogue::{BrickCategory, BrickId};
pub use context::counter::counter;
pub use context::layer::{LayerGuard, in_layer, layer};
pub use context::phase::{PhaseGuard, in_phase, phase};
pub use context::step::{StepGuard, in_step, step};
pub use control::{Config, disable, enable, is_enabled, reset, snapshot};
pub use profile::{Direction, Profile, Schedule};
pub use stats::{BrickStats, CategoryStats};
