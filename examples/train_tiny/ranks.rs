//! `--ranks N`: one run of N processes, each a rank, as torchrun would
//! start them. The launcher re-runs this program N times with `RANK`,
//! `WORLD_SIZE`, `LOCAL_RANK` and a shared `PROFILER_RUN_ID` set, each
//! writing into its own `rank-NNNNN/` of `--out`; `--slow-rank R` makes
//! rank R do extra work every step, so a straggler can be seen.

use std::error::Error;
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::Args;

/// The command line given to every rank: this run's, less `--ranks` (each
/// rank is one process) and `--out` (each writes to its own directory).
fn rank_args(all: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip_next = false;
    for arg in all {
        if skip_next {
            skip_next = false;
        } else if arg == "--ranks" || arg == "--out" {
            skip_next = true;
        } else if !(arg.starts_with("--ranks=") || arg.starts_with("--out=")) {
            out.push(arg.clone());
        }
    }
    out
}

/// Starts `world` ranks of this program and waits for all of them.
///
/// # Errors
/// A rank that cannot start or that fails (all ranks are waited for first).
pub(crate) fn launch(args: &Args, world: u32) -> Result<(), Box<dyn Error>> {
    if world == 0 {
        return Err("--ranks must be at least 1".into());
    }
    if let Some(slow) = args.slow_rank
        && slow >= world
    {
        return Err(format!("--slow-rank {slow} is not a rank of 0..{world}").into());
    }
    let exe = std::env::current_exe()?;
    let now = SystemTime::now().duration_since(UNIX_EPOCH)?.as_nanos();
    let run_id = format!("train_tiny-{now:x}-{}", std::process::id());
    let passed = rank_args(&std::env::args().skip(1).collect::<Vec<_>>());
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create `{}`: {e}", args.out.display()))?;
    println!(
        "train_tiny: {world} ranks, run {run_id}, into {}",
        args.out.display()
    );
    let mut children: Vec<(u32, Child)> = Vec::new();
    for rank in 0..world {
        let dir = args.out.join(format!("rank-{rank:05}"));
        let child = Command::new(&exe)
            .args(&passed)
            .arg("--out")
            .arg(&dir)
            // The ranks share this machine's cores: probing its ceilings
            // from every rank at once would measure the contention.
            .arg("--no-ceilings")
            .env("RANK", rank.to_string())
            .env("WORLD_SIZE", world.to_string())
            .env("LOCAL_RANK", rank.to_string())
            .env("PROFILER_RUN_ID", &run_id)
            .stdout(log_file(&dir)?)
            .spawn()
            .map_err(|e| format!("cannot start rank {rank} ({}): {e}", exe.display()))?;
        children.push((rank, child));
    }
    let mut failed = Vec::new();
    for (rank, mut child) in children {
        let status = child.wait()?;
        if !status.success() {
            failed.push(format!("rank {rank} ({status})"));
        }
    }
    if !failed.is_empty() {
        return Err(format!("failed: {}", failed.join(", ")).into());
    }
    println!(
        "train_tiny: {world} ranks done; profiler-report fleet {}",
        args.out.display()
    );
    Ok(())
}

/// Each rank's stdout goes to `train.log` in its directory, so the ranks'
/// progress lines do not interleave.
fn log_file(dir: &Path) -> Result<std::fs::File, Box<dyn Error>> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
    let path = dir.join("train.log");
    Ok(std::fs::File::create(&path)
        .map_err(|e| format!("cannot create `{}`: {e}", path.display()))?)
}

/// Whether this process is the rank `--slow-rank` names.
pub(crate) fn is_slow(args: &Args) -> bool {
    args.slow_rank
        .is_some_and(|slow| profiler::rank_identity().rank == slow)
}

/// The slow rank's extra time in a step: it waits three times as long as
/// the step's training took, and at least [`MIN_WAIT`], inside a brick, so
/// its steps take four times as long or more and the excess shows in that
/// brick too. It waits rather than computes: ranks that share cores (four
/// on a laptop) would otherwise slow down together and hide the straggler,
/// which a rank with its own device would not. The floor keeps it plain
/// when sharing cores makes this rank's own training fast and the others'
/// slow and uneven.
#[profiler::brick("StragglerWait", category = Other)]
pub(crate) fn extra_work(trained: Duration) {
    std::thread::sleep((trained * 3).max(MIN_WAIT));
}

/// The least the slow rank waits in a step.
const MIN_WAIT: Duration = Duration::from_millis(500);

#[cfg(test)]
mod tests {
    #[test]
    fn ranks_get_the_run_less_ranks_and_out() {
        let all: Vec<String> = [
            "--ranks",
            "4",
            "--steps",
            "9",
            "--out=x",
            "--slow-rank",
            "2",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(super::rank_args(&all), ["--steps", "9", "--slow-rank", "2"]);
    }
}
