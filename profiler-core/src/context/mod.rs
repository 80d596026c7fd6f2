//! Where in a run a brick executes: steps (with the warm-up schedule),
//! phases, and layer scopes. Files, bottom to top: `scope` (timing shared
//! by the three), `step`, `phase`, `layer`.

pub(crate) mod layer;
pub(crate) mod phase;
pub(crate) mod scope;
pub(crate) mod step;
