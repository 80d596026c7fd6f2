//! Many ranks, one view: a run directory (`rank-NNNNN/profile.json` per
//! rank) analysed across ranks: step-time distributions, stragglers by the
//! one straggler rule, load imbalance per brick and phase, absent ranks.
//! Each rank's profile is read by the input layer's one profile reader,
//! for its aggregates only.

mod error;
mod heat;
mod html;
mod read;
mod report;
mod text;

pub use error::{FleetError, RankProblem, RankRange};
pub use heat::{HEAT_MAX_CELLS, HeatMap, HeatRow};
pub use read::rank_profile_at;
pub use report::{
    BRICK_MIN_EXCESS, BRICK_MIN_STEP_COST, FleetReport, FleetSettings, Imbalance, RankSteps,
};

#[cfg(test)]
mod tests;
