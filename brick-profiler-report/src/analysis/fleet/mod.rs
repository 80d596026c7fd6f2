//! Many ranks, one view: a run directory (`rank-NNNNN/profile.json` per
//! rank) analysed across ranks: step-time distributions, stragglers by the
//! one straggler rule, load imbalance per brick and phase, absent ranks,
//! and each rank's step by kind (compute, communication, waiting).
//! Each rank's profile is read by the input layer's one profile reader,
//! for its aggregates only. The numbers the fleet page draws (step splits,
//! spreads, the heat map) are computed here, bounded for any fleet; the
//! page itself is the HTML output's.

mod breakdown;
mod comm;
mod error;
mod heat;
mod read;
mod report;
mod spread;
mod text;

pub use breakdown::{BREAKDOWN_MAX_BARS, StepBreakdown};
pub use comm::{Communication, RankTime, TimeSplit};
pub use error::{FleetError, RankProblem, RankRange};
pub use heat::{HEAT_MAX_COLUMNS, HEAT_MAX_ROWS, HeatMap, HeatRow};
pub use read::rank_profile_at;
pub use report::{
    BRICK_MIN_EXCESS, BRICK_MIN_STEP_COST, FleetCharts, FleetReport, FleetSettings, Imbalance,
    RankFiles, RankSteps,
};
pub use spread::{
    BrickStrip, RankBox, SPREAD_MAX_BOXES, SPREAD_MAX_OUTLIERS, STRIP_BINS, SlowStep,
};

#[cfg(test)]
mod comm_tests;
#[cfg(test)]
mod tests;
