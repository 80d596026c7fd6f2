//! This process's rank identity: what `Config::rank` and `Config::run_id`
//! set, over what the launcher's environment says, read once.

use std::sync::OnceLock;

use crate::profile::identity::{IdentitySource, RankIdentity};

/// The identity read from the environment, once per process.
fn from_env() -> &'static RankIdentity {
    static ENV: OnceLock<RankIdentity> = OnceLock::new();
    ENV.get_or_init(|| {
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let fallback = format!("{started:x}-{:x}", std::process::id());
        RankIdentity::from_vars(|name| std::env::var(name).ok(), &fallback)
    })
}

/// This process's rank identity: what `Config::rank` and `Config::run_id`
/// set, else what the launcher's environment says (torchrun, SLURM, Open
/// MPI, MPICH), else rank 0 of 1.
pub fn rank_identity() -> RankIdentity {
    let mut id = from_env().clone();
    let facts = super::facts::run_facts();
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
