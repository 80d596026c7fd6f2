//! `--ranks N`: one run of N processes, each a rank, as torchrun would
//! start them. The launcher re-runs this program N times with `RANK`,
//! `WORLD_SIZE`, `LOCAL_RANK` and a shared `PROFILER_RUN_ID` set, each
//! writing into its own `rank-NNNNN/` of `--out`; `--slow-rank R` makes
//! rank R do extra work every step, so a straggler can be seen. With
//! `--metrics HOST:PORT`, rank r serves on `HOST:PORT+r` (port 0 stays 0:
//! each rank picks a free port), since the ranks share this machine. With
//! `--allreduce` the launcher also runs the ranks' all-reduce server.

use std::error::Error;
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{Args, allreduce};

/// Options the launcher sets per rank, each taking a value.
const PER_RANK: [&str; 4] = ["--ranks", "--out", "--metrics", "--reduce-server"];

/// The command line given to every rank: this run's, less the options the
/// launcher sets per rank (`--ranks`: each rank is one process; `--out`:
/// each writes to its own directory; `--metrics`: each serves on its own
/// port) and less `--no-ceilings`, which it gives every rank.
fn rank_args(all: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip_next = false;
    for arg in all {
        if skip_next {
            skip_next = false;
        } else if PER_RANK.contains(&arg.as_str()) {
            skip_next = true;
        } else if arg != "--no-ceilings"
            && !PER_RANK
                .iter()
                .any(|o| arg.strip_prefix(o).is_some_and(|v| v.starts_with('=')))
        {
            out.push(arg.clone());
        }
    }
    out
}

/// Rank `rank`'s `--metrics` address: `addr`'s port plus the rank, as
/// the ranks share this machine; port 0 stays 0 (each picks a free port).
///
/// # Errors
/// `addr` is not `HOST:PORT`, or its port plus the rank is past 65535.
fn rank_metrics(addr: &str, rank: u32) -> Result<String, String> {
    let (host, port) = addr
        .rsplit_once(':')
        .ok_or_else(|| format!("--metrics `{addr}` is not HOST:PORT"))?;
    let port: u16 = port
        .parse()
        .map_err(|_| format!("--metrics `{addr}`: `{port}` is not a port (0-65535)"))?;
    if port == 0 {
        return Ok(addr.to_owned());
    }
    let offset = u16::try_from(rank)
        .ok()
        .and_then(|r| port.checked_add(r))
        .ok_or_else(|| {
            format!(
                "--metrics `{addr}`: rank {rank} would serve on port {} (port + rank), past 65535; \
                 pick a port at most {} or port 0",
                u64::from(port) + u64::from(rank),
                65535u32.saturating_sub(rank)
            )
        })?;
    Ok(format!("{host}:{offset}"))
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
    // Every rank's address is checked before any rank starts.
    let metrics = (0..world)
        .map(|rank| {
            args.metrics
                .as_deref()
                .map(|a| rank_metrics(a, rank))
                .transpose()
        })
        .collect::<Result<Vec<_>, _>>()?;
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
    let server = args
        .allreduce
        .then(|| allreduce::Server::start(world))
        .transpose()?;
    let mut children: Vec<(u32, Child)> = Vec::new();
    for (rank, metrics) in (0..world).zip(metrics) {
        let dir = args.out.join(format!("rank-{rank:05}"));
        let mut command = Command::new(&exe);
        command
            .args(&passed)
            .arg("--out")
            .arg(&dir)
            // The ranks share this machine's cores: probing its ceilings
            // from every rank at once would measure the contention.
            .arg("--no-ceilings");
        if let Some(addr) = metrics {
            command.arg("--metrics").arg(addr);
        }
        if let Some(server) = &server {
            command
                .arg("--reduce-server")
                .arg(server.addr().to_string());
        }
        let child = command
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
    if let Some(server) = &server {
        // A rank that fails before it joins the all-reduce would keep the
        // server waiting for it: the first failure lets the server go.
        if until_one_fails(&mut children)? {
            server.abandon();
        }
    }
    for (rank, mut child) in children {
        let status = child.wait()?;
        if !status.success() {
            failed.push(format!("rank {rank} ({status})"));
        }
    }
    if let Some(server) = server
        && let Err(e) = server.join()
    {
        failed.push(e);
    }
    if !failed.is_empty() {
        return Err(format!("failed: {}", failed.join(", ")).into());
    }
    println!(
        "train_tiny: {world} ranks done; brick-profiler fleet {}",
        args.out.display()
    );
    Ok(())
}

/// Waits until every rank of `children` has ended (false) or one
/// has failed (true), polling; the ranks are not reaped.
fn until_one_fails(children: &mut [(u32, Child)]) -> Result<bool, Box<dyn Error>> {
    loop {
        let mut running = false;
        for (_, child) in children.iter_mut() {
            match child.try_wait()? {
                Some(status) if !status.success() => return Ok(true),
                Some(_) => {}
                None => running = true,
            }
        }
        if !running {
            return Ok(false);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
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
    use super::{rank_args, rank_metrics};

    fn strings<const N: usize>(all: [&str; N]) -> Vec<String> {
        all.map(String::from).to_vec()
    }

    #[test]
    fn ranks_get_no_ceilings_once_and_no_shared_metrics_address() {
        let all = strings([
            "--ranks",
            "2",
            "--no-ceilings",
            "--metrics",
            "127.0.0.1:9464",
            "--steps",
            "3",
            "--metrics=127.0.0.1:1",
        ]);
        assert_eq!(rank_args(&all), ["--steps", "3"]);
    }

    #[test]
    fn each_rank_serves_on_the_port_plus_its_rank() {
        assert_eq!(
            rank_metrics("127.0.0.1:9464", 0).as_deref(),
            Ok("127.0.0.1:9464")
        );
        assert_eq!(
            rank_metrics("127.0.0.1:9464", 3).as_deref(),
            Ok("127.0.0.1:9467")
        );
        assert_eq!(rank_metrics("[::1]:9000", 2).as_deref(), Ok("[::1]:9002"));
        assert_eq!(rank_metrics("localhost:0", 5).as_deref(), Ok("localhost:0"));
        assert_eq!(rank_metrics("h:65534", 1).as_deref(), Ok("h:65535"));
    }

    #[test]
    fn a_port_past_65535_or_no_port_is_refused_by_name() {
        let err = rank_metrics("127.0.0.1:65535", 1).unwrap_err();
        assert!(err.contains("rank 1") && err.contains("65536"), "{err}");
        let err = rank_metrics("127.0.0.1:9464", 70_000).unwrap_err();
        assert!(err.contains("rank 70000"), "{err}");
        let err = rank_metrics("nohost", 0).unwrap_err();
        assert!(err.contains("`nohost` is not HOST:PORT"), "{err}");
        let err = rank_metrics("h:http", 0).unwrap_err();
        assert!(err.contains("`http` is not a port"), "{err}");
    }

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
        assert_eq!(rank_args(&all), ["--steps", "9", "--slow-rank", "2"]);
    }
}
