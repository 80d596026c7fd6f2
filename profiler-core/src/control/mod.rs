//! Controlling the global profiler: `enable`/`disable`, `reset`,
//! `snapshot`, and [`Config`], the one place its settings are changed.

mod config;
mod identity;
mod switch;

pub use config::Config;
pub use identity::{IdentitySource, RankIdentity};
pub use switch::{disable, enable, is_enabled, reset, snapshot};

/// This process's rank identity: what `Config::rank` and `Config::run_id`
/// set, else what the launcher's environment says (torchrun, SLURM, Open
/// MPI, MPICH), else rank 0 of 1.
pub fn rank_identity() -> RankIdentity {
    let mut id = identity::from_env().clone();
    let facts = crate::record::facts::run_facts();
    if let (Some(rank), Some(world_size)) = (facts.rank, facts.world_size) {
        id.rank = rank;
        id.world_size = world_size;
        id.source = IdentitySource::Config;
    }
    if let Some(run_id) = &facts.run_id {
        id.run_id.clone_from(run_id);
    }
    id
}
