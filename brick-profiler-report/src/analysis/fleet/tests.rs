//! Fleet analysis over run directories written here: the slow rank is
//! named and no other, and hostile directories are reported by name while
//! the other ranks are still analysed.

use std::path::Path;

use profiler_core::{BrickCategory, BrickStats, Profile, profile::PhaseStats};

use super::*;
use crate::analysis::straggler::StragglerIn;

/// A rank's profile: 20 steps of `step_ns` (+/- 1%), two bricks.
pub(super) fn profile(rank: u32, world: u32, run_id: &str, step_ns: u64) -> Profile {
    let mut p = Profile::empty();
    p.run.rank = Some(rank);
    p.run.world_size = Some(world);
    p.run.run_id = run_id.to_owned();
    p.run.host = format!("node{}", rank / 2);
    for i in 0..20u64 {
        p.steps.samples_ns.push(step_ns + (i % 3) * step_ns / 100);
        p.steps.samples_index.push(i + 3);
    }
    p.steps.count = 20;
    let mut matmul = BrickStats::new("MatMul", BrickCategory::Ffn);
    matmul.total_ns = step_ns * 20 * 6 / 10;
    matmul.count = 20;
    let mut norm = BrickStats::new("RmsNorm", BrickCategory::Norm);
    norm.total_ns = 20 * 1_000_000;
    norm.count = 20;
    p.bricks = vec![matmul, norm];
    p.phases = vec![PhaseStats {
        name: "forward".into(),
        count: 20,
        total_ns: step_ns * 20 / 2,
        min_ns: 0,
        max_ns: 0,
        in_steps_ns: 0,
        latency: Default::default(),
    }];
    p
}

pub(super) fn write(dir: &Path, name: &str, p: &Profile) {
    let rank_dir = dir.join(name);
    std::fs::create_dir_all(&rank_dir).unwrap();
    std::fs::write(rank_dir.join("profile.json"), p.to_json()).unwrap();
}

pub(super) fn run(dir: &Path, world: u32, slow: Option<u32>) {
    for r in 0..world {
        let ns = if Some(r) == slow {
            25_000_000
        } else {
            10_000_000 + u64::from(r) * 50_000
        };
        let mut p = profile(r, world, "job7", ns);
        // The slow rank's MatMul also takes a larger part of its step (90%
        // against 30%): a brick that stands out beyond the slower step.
        let share = if Some(r) == slow { 9 } else { 3 };
        p.bricks[0].total_ns = ns * 20 * share / 10;
        write(dir, &format!("rank-{r:05}"), &p);
    }
}

#[test]
fn the_slow_rank_is_named_and_no_other() {
    let dir = tempfile::tempdir().unwrap();
    run(dir.path(), 8, Some(5));
    let report = FleetReport::from_dir(dir.path(), FleetSettings::default()).unwrap();
    assert_eq!(report.straggler_ranks(), vec![5]);
    assert!(
        report
            .stragglers
            .iter()
            .any(|s| s.what == StragglerIn::Step)
    );
    assert!(report.stragglers.iter().any(|s| s.what
        == StragglerIn::Brick {
            brick: "MatMul".into()
        }));
    // RmsNorm is 1 ms on every rank: balanced, never a straggler.
    let norm = report.bricks.iter().find(|b| b.name == "RmsNorm").unwrap();
    assert!((norm.imbalance - 1.0).abs() < 1e-9, "{norm:?}");
    let matmul = report.bricks.iter().find(|b| b.name == "MatMul").unwrap();
    assert_eq!(matmul.slowest_rank, 5);
    assert_eq!(report.phases[0].slowest_rank, 5);
    assert!(report.worst_excess() > 0.9, "{}", report.worst_excess());
    assert_eq!(report.heat.rows.len(), 8);
    assert_eq!(report.heat.first_step, 3);
    assert!(
        report.verdict().starts_with("straggler: rank 5;"),
        "{}",
        report.verdict()
    );
    assert!(report.to_markdown().contains("| 5 | median step |"));
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(json["stragglers"][0]["rank"], 5);
    assert!(json["step_threshold"]["threshold_ns"].as_f64().unwrap() > 1e7);
    // The slow rank's row of the heat map holds the slowest cells.
    let slowest =
        |row: &crate::analysis::fleet::heat::HeatRow| row.cells.iter().flatten().max().copied();
    let slow_row = report.heat.rows.iter().max_by_key(|r| slowest(r)).unwrap();
    assert_eq!(slow_row.first_rank, 5);
    assert_eq!(report.charts.files.len(), 8);
    assert_eq!(report.charts.files[5].profile, "rank-00005/profile.json");

    let even = tempfile::tempdir().unwrap();
    run(even.path(), 8, None);
    let report = FleetReport::from_dir(even.path(), FleetSettings::default()).unwrap();
    assert!(report.stragglers.is_empty(), "{:?}", report.stragglers);
    assert!(report.verdict().starts_with("no straggler among 8 ranks"));
}

/// A brick straggler holds the others back: its rank's step is longer by
/// much of the brick's excess. A rank whose steps end sooner, or barely
/// later, than the others' holds nobody back, even when one brick takes
/// most of its step: on shared cores a rank that gets more CPU has shorter
/// steps, and its bricks a larger part of them.
#[test]
fn a_rank_faster_than_the_median_is_no_brick_straggler() {
    let dir = tempfile::tempdir().unwrap();
    run(dir.path(), 8, None);
    let ns = 8_000_000;
    let mut fast = profile(3, 8, "job7", ns);
    fast.bricks[0].total_ns = ns * 20 * 19 / 20;
    write(dir.path(), "rank-00003", &fast);
    let report = FleetReport::from_dir(dir.path(), FleetSettings::default()).unwrap();
    assert!(report.stragglers.is_empty(), "{:?}", report.stragglers);

    // The same brick share on a rank whose step is barely slower than the
    // median: the brick took twice its time, but the step did not (on
    // shared cores the rank made it up elsewhere), so no one waits for it.
    let ns = 10_400_000;
    let mut level = profile(3, 8, "job7", ns);
    level.bricks[0].total_ns = ns * 20 * 19 / 20;
    write(dir.path(), "rank-00003", &level);
    let report = FleetReport::from_dir(dir.path(), FleetSettings::default()).unwrap();
    assert!(report.stragglers.is_empty(), "{:?}", report.stragglers);

    // When the step is longer by the brick's excess, as on a device of its
    // own, the brick is named beside the step.
    let ns = 20_000_000;
    let mut slower = profile(3, 8, "job7", ns);
    slower.bricks[0].total_ns = ns * 20 * 19 / 20;
    write(dir.path(), "rank-00003", &slower);
    let report = FleetReport::from_dir(dir.path(), FleetSettings::default()).unwrap();
    assert_eq!(report.straggler_ranks(), vec![3], "{:?}", report.stragglers);
    assert!(
        report.stragglers.iter().any(|s| matches!(
            &s.what,
            StragglerIn::Brick { brick } if brick == "MatMul"
        )),
        "{:?}",
        report.stragglers
    );
}

/// Eight ranks whose RmsNorm takes 0.1 ms a step, but rank 3's takes
/// `norm_ns` a step, in a step of `step_ns`.
fn run_with_norm(dir: &Path, step_ns: u64, norm_ns: u64) {
    for r in 0..8u32 {
        let (ns, norm) = if r == 3 {
            (step_ns, norm_ns)
        } else {
            (10_000_000 + u64::from(r) * 50_000, 100_000)
        };
        let mut p = profile(r, 8, "job7", ns);
        p.bricks[1].total_ns = 20 * norm;
        write(dir, &format!("rank-{r:05}"), &p);
    }
}

/// A brick whose calls take four times as long, on a rank a little behind,
/// is noise when it costs that rank under 5% of a step (on shared cores
/// such a rank lost the CPU for a moment); the same brick costing 14% of
/// the step, on a rank behind by that much, is named.
#[test]
fn a_brick_that_costs_its_rank_little_is_no_straggler() {
    let dir = tempfile::tempdir().unwrap();
    run_with_norm(dir.path(), 10_600_000, 400_000);
    let report = FleetReport::from_dir(dir.path(), FleetSettings::default()).unwrap();
    assert!(report.stragglers.is_empty(), "{:?}", report.stragglers);

    run_with_norm(dir.path(), 12_000_000, 1_500_000);
    let report = FleetReport::from_dir(dir.path(), FleetSettings::default()).unwrap();
    assert_eq!(report.straggler_ranks(), vec![3], "{:?}", report.stragglers);
    assert!(
        report.stragglers.iter().all(|s| matches!(
            &s.what,
            StragglerIn::Brick { brick } if brick == "RmsNorm"
        )),
        "{:?}",
        report.stragglers
    );
}

#[test]
fn hostile_rank_directories_are_named_and_the_rest_analysed() {
    let dir = tempfile::tempdir().unwrap();
    run(dir.path(), 6, None);
    // rank 1 missing, rank 2 truncated, rank 3 from another run, and a
    // second directory claiming rank 4.
    std::fs::remove_dir_all(dir.path().join("rank-00001")).unwrap();
    let truncated = dir.path().join("rank-00002/profile.json");
    let text = std::fs::read_to_string(&truncated).unwrap();
    std::fs::write(&truncated, &text[..text.len() / 2]).unwrap();
    write(dir.path(), "rank-00003", &profile(3, 6, "job8", 10_000_000));
    write(dir.path(), "rank-00009", &profile(4, 6, "job7", 10_000_000));
    let report = FleetReport::from_dir(dir.path(), FleetSettings::default()).unwrap();
    let analysed: Vec<u32> = report.ranks.iter().map(|r| r.rank).collect();
    assert_eq!(analysed, vec![0, 4, 5]);
    assert_eq!(report.world_size, 10, "rank-00009 widens the run");
    let absent: Vec<(u32, u32)> = report.absent.iter().map(|r| (r.first, r.last)).collect();
    assert_eq!(absent, [(1, 3), (6, 9)]);
    let problems: Vec<String> = report.problems.iter().map(ToString::to_string).collect();
    let has = |needle: &str| problems.iter().any(|p| p.contains(needle));
    assert!(has("rank 1: no `rank-NNNNN` directory"), "{problems:?}");
    assert!(has("ranks 6-8: no `rank-NNNNN` directory"), "{problems:?}");
    assert!(
        has("rank 2: malformed profile `") && has("rank-00002/profile.json`: EOF while parsing"),
        "{problems:?}"
    );
    assert!(
        has("rank 3: `rank-00003/profile.json` has run id `job8`, not this run's `job7`"),
        "{problems:?}"
    );
    assert!(
        has(
            "rank 4 again in `rank-00009/profile.json` (already read from `rank-00004/profile.json`)"
        ),
        "{problems:?}"
    );
    assert!(report.to_string().contains("absent ranks: 1-3, 6-9"));
}

#[test]
fn a_directory_without_ranks_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let err = FleetReport::from_dir(dir.path(), FleetSettings::default()).unwrap_err();
    assert!(err.to_string().contains("no rank-NNNNN directory"), "{err}");
    let err = FleetReport::from_dir(dir.path().join("nope"), FleetSettings::default()).unwrap_err();
    assert!(matches!(err, FleetError::Dir { .. }), "{err}");
}

/// A profile keeps at most 100,000 step samples; a rank's time per step is
/// its total over the steps it recorded, not over the samples it kept.
#[test]
fn means_per_step_divide_by_the_step_count_not_the_samples_kept() {
    let dir = tempfile::tempdir().unwrap();
    for r in 0..4u32 {
        let mut p = profile(r, 4, "job7", 10_000_000);
        // 40 steps recorded, 20 kept: MatMul's total is over all 40.
        p.steps.count = 40;
        p.bricks[0].total_ns = 40 * 5_000_000;
        p.phases[0].total_ns = 40 * 4_000_000;
        write(dir.path(), &format!("rank-{r:05}"), &p);
    }
    let report = FleetReport::from_dir(dir.path(), FleetSettings::default()).unwrap();
    let matmul = report.bricks.iter().find(|b| b.name == "MatMul").unwrap();
    assert!((matmul.mean_ns - 5e6).abs() < 1.0, "{matmul:?}");
    assert!((report.phases[0].mean_ns - 4e6).abs() < 1.0, "{report:?}");
    assert_eq!(report.ranks[0].steps, 40);
}

/// A rank of a schema this version does not read is refused by the
/// profile reader and named; it neither hides the straggler nor ranks as
/// the slowest.
#[test]
fn an_unsupported_schema_is_named_and_does_not_mask_the_straggler() {
    let dir = tempfile::tempdir().unwrap();
    for r in 0..4u32 {
        let ns = if r == 2 { 30_000_000 } else { 10_000_000 };
        write(
            dir.path(),
            &format!("rank-{r:05}"),
            &profile(r, 4, "job7", ns),
        );
    }
    std::fs::write(
        dir.path().join("rank-00001/profile.json"),
        r#"{"schema_version": "9.0", "run": {"rank": 1, "world_size": 4, "run_id": "job7"}}"#,
    )
    .unwrap();
    let report = FleetReport::from_dir(dir.path(), FleetSettings::default()).unwrap();
    assert_eq!(report.straggler_ranks(), vec![2], "{:?}", report.stragglers);
    assert_eq!(report.ranks_analysed, 3);
    let problem = report
        .problems
        .iter()
        .find(|p| matches!(p, RankProblem::Unreadable { rank: 1, .. }))
        .unwrap_or_else(|| panic!("rank 1 named: {:?}", report.problems));
    let text = problem.to_string();
    assert!(
        text.contains("schema 9.0, newer than the supported") && text.contains("rank-00001"),
        "{text}"
    );
    assert!(
        report.bricks.iter().all(|b| b.slowest_rank != 1),
        "{:?}",
        report.bricks
    );
}

/// Ranks that recorded no step are left out of the statistics and named:
/// their zeros would drag the fleet's median down.
#[test]
fn zero_step_ranks_are_named_and_left_out_of_the_median() {
    let dir = tempfile::tempdir().unwrap();
    for r in 0..6u32 {
        let mut p = profile(r, 6, "job7", 100_000_000);
        if r >= 3 {
            p.steps = profiler_core::profile::StepSummary::default();
        }
        write(dir.path(), &format!("rank-{r:05}"), &p);
    }
    let report = FleetReport::from_dir(dir.path(), FleetSettings::default()).unwrap();
    assert!(
        report.step_threshold.median_ns >= 100_000_000.0,
        "{:?}",
        report.step_threshold
    );
    assert_eq!(report.ranks_analysed, 3);
    let no_steps: Vec<u32> = report
        .problems
        .iter()
        .filter_map(|p| match p {
            RankProblem::NoSteps { rank, .. } => Some(*rank),
            _ => None,
        })
        .collect();
    assert_eq!(no_steps, [3, 4, 5]);
    assert!(
        report
            .to_string()
            .contains("rank 4: `rank-00004/profile.json` records no step")
    );
}

/// A brick only one of four ranks runs is four times the fleet's mean on
/// that rank: the mean is over every rank analysed.
#[test]
fn a_brick_only_one_rank_runs_is_four_times_the_mean_of_four() {
    let dir = tempfile::tempdir().unwrap();
    for r in 0..4u32 {
        let mut p = profile(r, 4, "job7", 10_000_000);
        if r == 2 {
            let mut wait = BrickStats::new("StragglerWait", BrickCategory::Other);
            wait.total_ns = 20 * 100_000;
            wait.count = 20;
            p.bricks.push(wait);
        }
        write(dir.path(), &format!("rank-{r:05}"), &p);
    }
    let report = FleetReport::from_dir(dir.path(), FleetSettings::default()).unwrap();
    let wait = report
        .bricks
        .iter()
        .find(|b| b.name == "StragglerWait")
        .unwrap();
    assert!((wait.imbalance - 4.0).abs() < 1e-9, "{wait:?}");
    assert!((wait.mean_ns - 25_000.0).abs() < 1e-6, "{wait:?}");
    assert!(report.to_markdown().contains("| StragglerWait | "));
}

/// A profile recording another rank than its directory's is named, and its
/// directory's rank is not silently absent.
#[test]
fn a_profile_in_another_ranks_directory_is_named() {
    let dir = tempfile::tempdir().unwrap();
    run(dir.path(), 4, None);
    write(dir.path(), "rank-00003", &profile(9, 4, "job7", 10_000_000));
    let report = FleetReport::from_dir(dir.path(), FleetSettings::default()).unwrap();
    assert!(
        report.problems.iter().any(|p| matches!(
            p,
            RankProblem::RankMismatch {
                rank: 9,
                dir_rank: 3,
                ..
            }
        )),
        "{:?}",
        report.problems
    );
    let text = report.to_string();
    assert!(
        text.contains(
            "warning: `rank-00003/profile.json` records rank 9 (`run.rank`), not its directory's rank 3"
        ),
        "{text}"
    );
}

/// What the reader says of a rank's file is said as it is: a directory is
/// a directory, not a malformed profile.
#[test]
fn a_profile_that_is_a_directory_is_said_to_be_one() {
    let dir = tempfile::tempdir().unwrap();
    run(dir.path(), 3, None);
    let file = dir.path().join("rank-00001/profile.json");
    std::fs::remove_file(&file).unwrap();
    std::fs::create_dir(&file).unwrap();
    let report = FleetReport::from_dir(dir.path(), FleetSettings::default()).unwrap();
    let text: Vec<String> = report.problems.iter().map(ToString::to_string).collect();
    assert!(
        text.iter().any(
            |p| p.starts_with("rank 1: `") && p.ends_with("is a directory, not a regular file")
        ),
        "{text:?}"
    );
    assert!(text.iter().all(|p| !p.contains("malformed")), "{text:?}");
}

/// A run id holding terminal escapes, bidi controls and a bell is shown
/// escaped in the text report's problem lines.
#[test]
fn a_hostile_run_id_is_shown_escaped() {
    let dir = tempfile::tempdir().unwrap();
    run(dir.path(), 3, None);
    let hostile = "\u{1b}]0;pwned\u{7}\u{202e}evil";
    write(
        dir.path(),
        "rank-00001",
        &profile(1, 3, hostile, 10_000_000),
    );
    let report = FleetReport::from_dir(dir.path(), FleetSettings::default()).unwrap();
    let text = report.to_string();
    assert!(text.contains("\\x1b]0;pwned\\x07\\u{202e}evil"), "{text}");
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{202e}'),
        "{text:?}"
    );
}

/// A brick listed twice in one profile (a hand-edited file) is one brick:
/// its mean over ranks is never above its slowest rank's time.
#[test]
fn a_brick_listed_twice_in_one_profile_adds_up() {
    let dir = tempfile::tempdir().unwrap();
    for r in 0..2u32 {
        let mut p = profile(r, 2, "job7", 10_000_000);
        if r == 0 {
            p.bricks.push(p.bricks[0].clone());
        }
        write(dir.path(), &format!("rank-{r:05}"), &p);
    }
    let report = FleetReport::from_dir(dir.path(), FleetSettings::default()).unwrap();
    for b in &report.bricks {
        assert!(b.max_ns >= b.mean_ns, "{b:?}");
    }
    let matmul = report.bricks.iter().find(|b| b.name == "MatMul").unwrap();
    assert_eq!(matmul.slowest_rank, 0);
    assert!((matmul.max_ns - 12_000_000.0).abs() < 1e-3, "{matmul:?}");
}
