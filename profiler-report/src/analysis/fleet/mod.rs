//! Many ranks, one view: a run directory (`rank-NNNNN/profile.json` per
//! rank) analysed across ranks: step-time distributions, stragglers by
//! median and MAD, load imbalance per brick and phase, absent ranks.

mod error;
mod html;
mod read;
mod report;
mod stats;
mod text;

pub use error::{FleetError, RankProblem};
pub use read::rank_profile_at;
pub use report::{
    BRICK_MIN_EXCESS, BRICK_MIN_STEP_COST, FleetReport, FleetSettings, HeatMap, Imbalance,
    RankSteps, Straggler, StragglerIn,
};
pub use stats::Threshold;

#[cfg(test)]
mod tests;
