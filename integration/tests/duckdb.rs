//! The README's DuckDB SQL over a 4-rank run's Parquet files (PyPI
//! `duckdb`): the slowest rank per brick and the step-time spread per rank
//! agree with the ranks' profiles.

use std::path::Path;
use std::process::Command;

use profiler::Profile;
use profiler_integration::{python, run_ranks};

const EXE: &str = env!("CARGO_BIN_EXE_train_tiny");

/// The README's queries, run from the folder holding the run directory `run`.
const SLOWEST_RANK_PER_BRICK: &str = "\
SELECT brick, arg_max(rank, total_ns) AS slowest_rank, max(total_ns) AS max_ns,
       max(total_ns) / avg(total_ns) AS imbalance
FROM 'run/rank-*/bricks.parquet' GROUP BY brick ORDER BY brick";
const STEP_SPREAD_PER_RANK: &str = "\
SELECT rank, count(*) AS steps, median(wall_ns) AS median_ns,
       quantile_cont(wall_ns, 0.9) - quantile_cont(wall_ns, 0.1) AS p10_p90_ns
FROM 'run/rank-*/steps.parquet' GROUP BY rank ORDER BY rank";

fn query(python: &Path, dir: &Path, sql: &str) -> Vec<Vec<serde_json::Value>> {
    let script = "import duckdb, json, sys\n\
                  rows = duckdb.sql(sys.argv[1]).fetchall()\n\
                  print(json.dumps([list(r) for r in rows]))";
    let done = Command::new(python)
        .args(["-c", script, sql])
        .current_dir(dir)
        .output()
        .expect("python starts");
    assert!(
        done.status.success(),
        "duckdb failed: {}",
        String::from_utf8_lossy(&done.stderr)
    );
    serde_json::from_slice(&done.stdout).expect("rows as JSON")
}

#[test]
fn readme_sql_agrees_with_the_profiles() {
    let python = python().unwrap_or_else(|e| panic!("{e}"));
    let out = tempfile::tempdir().expect("temp dir");
    let run = out.path().join("run");
    run_ranks(EXE.as_ref(), &run, 4, Some(1)).expect("the 4-rank run succeeds");
    let profiles: Vec<Profile> = (0..4)
        .map(|r| Profile::read(run.join(format!("rank-{r:05}/profile.json"))).expect("profile"))
        .collect();

    let rows = query(&python, out.path(), SLOWEST_RANK_PER_BRICK);
    assert!(!rows.is_empty());
    for row in &rows {
        let brick = row[0].as_str().expect("brick name");
        let totals: Vec<(u64, u64)> = profiles
            .iter()
            .filter_map(|p| {
                let b = p.bricks.iter().find(|b| b.name == brick)?;
                Some((b.total_ns, u64::from(p.run.rank.expect("ranked"))))
            })
            .collect();
        let (max_ns, rank) = totals.iter().copied().max().expect("a rank has the brick");
        assert_eq!(
            (row[1].as_u64(), row[2].as_u64()),
            (Some(rank), Some(max_ns)),
            "{brick}: {row:?}"
        );
    }

    let rows = query(&python, out.path(), STEP_SPREAD_PER_RANK);
    assert_eq!(rows.len(), 4);
    for (row, p) in rows.iter().zip(&profiles) {
        let mut times = p.steps.samples_ns.clone();
        times.sort_unstable();
        let n = times.len();
        let median = if n % 2 == 0 {
            (times[n / 2 - 1] + times[n / 2]) as f64 / 2.0
        } else {
            times[n / 2] as f64
        };
        assert_eq!(row[0].as_u64(), p.run.rank.map(u64::from));
        assert_eq!(row[1].as_u64(), Some(n as u64));
        assert_eq!(row[2].as_f64(), Some(median), "{row:?}");
    }
}
