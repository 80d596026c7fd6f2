//! The main job as four real processes: `fleet` names the rank started
//! with `--slow-rank` and no other, and names no rank without it; with
//! `--allreduce` every step lasts as long as the slow rank's, and `fleet`
//! still names it, by its own work, while the others show the wait.
//!
//! The four ranks share this machine's cores (two in CI), so the scheduler
//! alone makes a rank up to about 45% slower than the others in a run (seen
//! on a 2-core VM: 307 ms against a 214 ms median). That rank is slower in
//! fact, but it is not the one planted: the check asks a rank to be twice
//! the median (`min_excess` 1.0; the default 20% is for ranks with devices
//! of their own). The planted one waits three times its training, and at
//! least 0.5 s, every step: four times the median or more.

use profiler_integration::run_ranks_with;
use profiler_report::fleet::{FleetReport, FleetSettings};
use profiler_report::straggler::{StragglerIn, StragglerRule};

const EXE: &str = env!("CARGO_BIN_EXE_train_tiny");

fn stragglers(slow: Option<u32>) -> (Vec<u32>, FleetReport) {
    stragglers_with(slow, &[])
}

fn stragglers_with(slow: Option<u32>, extra: &[&str]) -> (Vec<u32>, FleetReport) {
    let out = tempfile::tempdir().expect("temp dir");
    run_ranks_with(EXE.as_ref(), out.path(), 4, slow, extra).expect("the 4-rank run succeeds");
    let settings = FleetSettings {
        rule: StragglerRule {
            min_excess: 1.0,
            ..StragglerRule::default()
        },
        ..FleetSettings::default()
    };
    let report = FleetReport::from_dir(out.path(), settings).expect("fleet reads the run");
    assert_eq!(report.ranks_analysed, 4, "{report}");
    assert!(
        report.problems.is_empty() && report.absent.is_empty(),
        "{report}"
    );
    (report.straggler_ranks(), report)
}

#[test]
fn fleet_names_the_slow_rank_and_only_it() {
    let (named, report) = stragglers(Some(2));
    assert_eq!(named, vec![2], "{report}");
    let (named, report) = stragglers(None);
    assert!(named.is_empty(), "{report}");
}

/// With the all-reduce every rank's step lasts as long as the slow
/// rank's: by step time no rank stands out, by own work (step less the
/// wait at the collective) rank 2 does, and the others' wait is most of
/// their step.
#[test]
fn with_the_allreduce_the_slow_rank_is_named_by_its_own_work_and_the_others_wait() {
    let (named, report) = stragglers_with(Some(2), &["--allreduce"]);
    assert_eq!(named, vec![2], "{report}");
    assert!(
        report
            .stragglers
            .iter()
            .any(|s| s.rank == 2 && s.what == StragglerIn::OwnWork),
        "{report}"
    );
    let time = &report.time;
    assert_eq!(time.collectives, ["allreduce"], "{report}");
    assert!(time.missing.is_empty(), "{report}");
    // The steps equalize: the step rule alone would not name rank 2.
    let steps: Vec<(u32, f64)> = report.ranks.iter().map(|r| (r.rank, r.median_ns)).collect();
    let (_, by_step) = report.settings.rule.step_stragglers(&steps);
    assert!(by_step.is_empty(), "{report}");
    let wait = |rank: u32| {
        time.ranks[rank as usize]
            .communication
            .map(|c| c.waiting_ns)
            .expect("every rank ran the collective")
    };
    for rank in [0, 1, 3] {
        // The slow rank waits 0.5 s or more a step: the others wait for it.
        assert!(
            wait(rank) > 0.4e9,
            "rank {rank} waits {}: {report}",
            wait(rank)
        );
        assert!(wait(rank) > 10.0 * wait(2), "{report}");
    }
}
