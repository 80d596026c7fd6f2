//! Where in a run a brick executes: steps (with the warm-up schedule),
//! phases, and layer scopes, and the counters a run reports along the way.
//! Files, bottom to top: `scope` (timing shared by the three), `step`,
//! `phase`, `layer`, `launch` (where a device launch happens); `counter`
//! beside them.

pub(crate) mod counter;
pub(crate) mod launch;
pub(crate) mod layer;
pub(crate) mod phase;
pub(crate) mod scope;
pub(crate) mod step;
