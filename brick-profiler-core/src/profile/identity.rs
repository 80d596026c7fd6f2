//! Who a process is in a distributed run: its rank, the world size, its
//! local rank, its host and a run id that every rank of the run shares, as
//! read from the variables that torchrun, SLURM, Open MPI and MPICH set.

use serde::{Deserialize, Serialize};

/// Where a rank identity came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IdentitySource {
    /// `Config::rank`.
    Config,
    /// `RANK`/`WORLD_SIZE`/`LOCAL_RANK` (torchrun, torch.distributed).
    Torchrun,
    /// `SLURM_PROCID`/`SLURM_NTASKS`/`SLURM_LOCALID`.
    Slurm,
    /// `OMPI_COMM_WORLD_RANK`/`OMPI_COMM_WORLD_SIZE`/`OMPI_COMM_WORLD_LOCAL_RANK`.
    OpenMpi,
    /// `PMI_RANK`/`PMI_SIZE` (MPICH, Intel MPI).
    Pmi,
    /// No launcher variable: a single process, rank 0 of 1.
    #[default]
    Single,
}

/// One launcher's variables: rank, world size, local rank.
struct Launcher {
    source: IdentitySource,
    rank: &'static str,
    world_size: &'static str,
    local_rank: Option<&'static str>,
}

/// Launchers in the order they are tried: torchrun first, since it also
/// runs under SLURM and MPI and then its own variables are the ones that
/// name the training process.
const LAUNCHERS: [Launcher; 4] = [
    Launcher {
        source: IdentitySource::Torchrun,
        rank: "RANK",
        world_size: "WORLD_SIZE",
        local_rank: Some("LOCAL_RANK"),
    },
    Launcher {
        source: IdentitySource::Slurm,
        rank: "SLURM_PROCID",
        world_size: "SLURM_NTASKS",
        local_rank: Some("SLURM_LOCALID"),
    },
    Launcher {
        source: IdentitySource::OpenMpi,
        rank: "OMPI_COMM_WORLD_RANK",
        world_size: "OMPI_COMM_WORLD_SIZE",
        local_rank: Some("OMPI_COMM_WORLD_LOCAL_RANK"),
    },
    Launcher {
        source: IdentitySource::Pmi,
        rank: "PMI_RANK",
        world_size: "PMI_SIZE",
        local_rank: None,
    },
];

/// Variables that name a run the same way on every rank, tried in order.
const RUN_ID_VARS: [&str; 3] = ["PROFILER_RUN_ID", "TORCHELASTIC_RUN_ID", "SLURM_JOB_ID"];

/// This process's place in a distributed run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankIdentity {
    /// This process's rank, `0..world_size`.
    pub rank: u32,
    /// Number of ranks in the run (at least 1).
    pub world_size: u32,
    /// Rank on this host, when the launcher says.
    pub local_rank: Option<u32>,
    /// Host name, empty when unknown.
    pub host: String,
    /// Id shared by every rank of the run: `Config::run_id`, else
    /// `PROFILER_RUN_ID`, `TORCHELASTIC_RUN_ID` or `SLURM_JOB_ID`, else one
    /// made from this process's start time and pid (then ranks started
    /// apart do not share it).
    pub run_id: String,
    /// Where rank and world size came from.
    pub source: IdentitySource,
    /// Launcher variables that were set but unusable, as `NAME=value: why`.
    pub problems: Vec<String>,
}

impl RankIdentity {
    /// Reads the launcher variables through `var` (the environment in
    /// production, a table in tests). `fallback_run_id` names the run when
    /// no variable does.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>, fallback_run_id: &str) -> Self {
        let mut problems = Vec::new();
        let mut found = None;
        for launcher in &LAUNCHERS {
            let (Some(rank), Some(world)) = (var(launcher.rank), var(launcher.world_size)) else {
                continue;
            };
            match (parse_count(&rank), parse_count(&world)) {
                (Some(r), Some(w)) if w > 0 && r < w => {
                    let local_rank = launcher
                        .local_rank
                        .and_then(&var)
                        .and_then(|v| parse_count(&v));
                    found = Some((launcher.source, r, w, local_rank));
                    break;
                }
                _ => problems.push(format!(
                    "{}={rank:?}, {}={world:?}: not a rank below a positive world size",
                    launcher.rank, launcher.world_size
                )),
            }
        }
        let (source, rank, world_size, local_rank) =
            found.unwrap_or((IdentitySource::Single, 0, 1, None));
        let run_id = RUN_ID_VARS
            .iter()
            .find_map(|name| {
                var(name)
                    .map(|v| v.trim().to_owned())
                    .filter(|v| !v.is_empty())
            })
            .unwrap_or_else(|| fallback_run_id.to_owned());
        Self {
            rank,
            world_size,
            local_rank,
            host: var("HOSTNAME")
                .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
                .map(|h| h.trim().to_owned())
                .unwrap_or_default(),
            run_id,
            source,
            problems,
        }
    }

    /// Whether this process is one of several ranks.
    pub fn is_distributed(&self) -> bool {
        self.world_size > 1
    }

    /// The per-rank folder name in a run directory: `rank-00003`.
    pub fn dir_name(&self) -> String {
        format!("rank-{:05}", self.rank)
    }
}

fn parse_count(text: &str) -> Option<u32> {
    text.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(vars: &[(&str, &str)]) -> RankIdentity {
        let owned: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        RankIdentity::from_vars(
            |name| {
                owned
                    .iter()
                    .find(|(k, _)| k == name)
                    .map(|(_, v)| v.clone())
            },
            "fallback",
        )
    }

    #[test]
    fn torchrun_wins_over_slurm() {
        let id = read(&[
            ("RANK", "3"),
            ("WORLD_SIZE", "8"),
            ("LOCAL_RANK", "1"),
            ("SLURM_PROCID", "0"),
            ("SLURM_NTASKS", "2"),
            ("TORCHELASTIC_RUN_ID", "job7"),
        ]);
        assert_eq!((id.rank, id.world_size, id.local_rank), (3, 8, Some(1)));
        assert_eq!(id.source, IdentitySource::Torchrun);
        assert_eq!(id.run_id, "job7");
        assert_eq!(id.dir_name(), "rank-00003");
    }

    #[test]
    fn slurm_and_mpi_are_read() {
        let id = read(&[
            ("SLURM_PROCID", "5"),
            ("SLURM_NTASKS", "6"),
            ("SLURM_JOB_ID", "991"),
        ]);
        assert_eq!(
            (id.rank, id.world_size, id.source),
            (5, 6, IdentitySource::Slurm)
        );
        assert_eq!(id.run_id, "991");
        let id = read(&[("OMPI_COMM_WORLD_RANK", "1"), ("OMPI_COMM_WORLD_SIZE", "2")]);
        assert_eq!(
            (id.rank, id.world_size, id.source),
            (1, 2, IdentitySource::OpenMpi)
        );
        assert_eq!(id.run_id, "fallback");
    }

    #[test]
    fn bad_values_are_named_and_ignored() {
        let id = read(&[
            ("RANK", "4"),
            ("WORLD_SIZE", "4"),
            ("PMI_RANK", "x"),
            ("PMI_SIZE", "2"),
        ]);
        assert_eq!(
            (id.rank, id.world_size, id.source),
            (0, 1, IdentitySource::Single)
        );
        assert_eq!(id.problems.len(), 2, "{:?}", id.problems);
        assert!(
            id.problems[0].starts_with("RANK=\"4\""),
            "{:?}",
            id.problems
        );
    }
}
