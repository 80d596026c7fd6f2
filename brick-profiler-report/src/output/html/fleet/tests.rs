//! The fleet page over run directories written here: every chart is drawn
//! from the report's numbers, names and paths are escaped, links lead to
//! each rank's files, and the page stays small for a large fleet.

use std::path::Path;

use profiler_core::{BrickCategory, BrickStats, Profile, profile::PhaseStats};

use super::page::FleetPage;
use crate::analysis::fleet::{FleetReport, FleetSettings};

/// A rank of `steps` steps of about `step_ns`, phases `forward` (30%) and
/// `backward` (50%), one brick; `host` and the brick name as given.
fn profile(rank: u32, world: u32, step_ns: u64, steps: u64, host: &str, brick: &str) -> Profile {
    let mut p = Profile::empty();
    p.run.rank = Some(rank);
    p.run.world_size = Some(world);
    p.run.run_id = "job<7>".into();
    p.run.host = host.to_owned();
    p.steps.samples_ns = (0..steps)
        .map(|i| step_ns + (i % 5) * step_ns / 100)
        .collect();
    p.steps.samples_index = (0..steps).collect();
    p.steps.count = steps;
    p.steps.total_ns = p.steps.samples_ns.iter().sum();
    let total = p.steps.total_ns;
    p.phases = [("forward", 30), ("backward", 50)]
        .into_iter()
        .map(|(name, share)| PhaseStats {
            name: name.into(),
            count: steps,
            total_ns: total * share / 100,
            min_ns: 0,
            max_ns: 0,
            in_steps_ns: total * share / 100,
            latency: Default::default(),
        })
        .collect();
    let mut b = BrickStats::new(brick, BrickCategory::Ffn);
    b.total_ns = total / 2;
    b.count = steps;
    p.bricks = vec![b];
    p
}

fn write(dir: &Path, rank: u32, p: &Profile) {
    let rank_dir = dir.join(format!("rank-{rank:05}"));
    std::fs::create_dir_all(&rank_dir).unwrap();
    std::fs::write(rank_dir.join("profile.json"), p.to_json()).unwrap();
}

/// A run of `world` ranks, rank 2 twice as slow outside its phases.
fn run(dir: &Path, world: u32, steps: u64, host: &str, brick: &str) -> FleetReport {
    for r in 0..world {
        let mut p = profile(r, world, 10_000_000, steps, host, brick);
        if r == 2 {
            // The same phase time in a step twice as long.
            p.steps.samples_ns.iter_mut().for_each(|ns| *ns *= 2);
            p.steps.total_ns *= 2;
        }
        write(dir, r, &p);
    }
    FleetReport::from_dir(dir, FleetSettings::default()).unwrap()
}

#[test]
fn every_chart_is_drawn_and_the_straggler_grows_outside_its_phases() {
    let dir = tempfile::tempdir().unwrap();
    let report = run(dir.path(), 4, 12, "node0", "MatMul");
    assert_eq!(report.straggler_ranks(), [2]);
    let b = &report.charts.breakdown[2];
    // Rank 2 spends the same time in phases, so its extra half is outside.
    assert!(b.outside_ns > 0.55 * b.median_ns, "{b:?}");
    assert!(report.charts.breakdown[0].outside_ns < 0.25 * report.charts.breakdown[0].median_ns);
    let page = FleetPage::new(&report).render();
    // 4 bars of 3 parts (two phases, outside), 4 boxes, one brick strip.
    assert_eq!(page.matches("<rect class=\"seg ").count(), 12);
    assert_eq!(page.matches("<rect class=\"box\"").count(), 4);
    assert!(page.contains("<path class=\"cells hl"));
    assert!(page.contains("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"fleet-strip\""));
    let median = crate::base::textfmt::duration(report.step_threshold.median_ns);
    assert!(
        page.contains(&format!("fleet median {median}")),
        "the median is marked"
    );
    assert!(page.contains(">rank 2</text>") && page.contains("class=\"straggler-label\""));
    assert!(
        page.contains("MAD k 5.0, min excess 20.0%"),
        "the settings are shown"
    );
    // Offline: nothing is loaded from elsewhere.
    assert!(!page.contains("src=\"http") && !page.contains("<link"));
    for id in [
        "overview",
        "breakdown",
        "spread",
        "heat",
        "bricks",
        "ranks",
        "glossary",
    ] {
        assert!(page.contains(&format!("<section id=\"{id}\">")), "{id}");
    }
    assert!(page.contains("<dt id=\"glossary-straggler\">"));
}

#[test]
fn names_and_links_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let report = run(dir.path(), 3, 6, "<b>host\"", "Mat<Mul>&\"x\"");
    let page = FleetPage::new(&report).run_dir("my runs/#7").render();
    assert!(!page.contains("<b>host") && page.contains("&lt;b&gt;host&quot;"));
    assert!(!page.contains("Mat<Mul>") && page.contains("Mat&lt;Mul&gt;&amp;"));
    assert!(page.contains("Fleet: run job&lt;7&gt;"));
    assert!(
        page.contains("href=\"my%20runs/%237/rank-00001/profile.json\""),
        "paths are percent-encoded"
    );
    // Without a report or trace beside the profile, no dead link.
    assert!(!page.contains("rank-00001/report.html") && page.contains("no report"));
    std::fs::write(dir.path().join("rank-00001/report.html"), "<html>").unwrap();
    let report = FleetReport::from_dir(dir.path(), FleetSettings::default()).unwrap();
    let page = FleetPage::new(&report).run_dir("../run/").render();
    assert!(page.contains("href=\"../run/rank-00001/report.html\""));
}

#[test]
fn a_large_fleet_is_pooled_and_stays_small() {
    let dir = tempfile::tempdir().unwrap();
    let report = run(dir.path(), 300, 50, "node", "MatMul");
    let page = FleetPage::new(&report).render();
    let c = &report.charts;
    assert!(c.breakdown.len() <= crate::analysis::fleet::BREAKDOWN_MAX_BARS + 1);
    assert!(
        c.breakdown
            .iter()
            .any(|b| b.ranks == 1 && b.first_rank == 2)
    );
    assert!(page.contains("(mean)"), "pooled bars say so");
    assert_eq!(page.matches("<tr class=\"straggler\">").count(), 1);
    assert_eq!(page.matches("profile.json\">profile</a>").count(), 300);
    assert!(page.len() < 600_000, "{} bytes", page.len());
}

/// Rank 2 computes 75% of the step longer; the others wait for it at a
/// synchronous `allreduce`.
#[test]
fn a_collective_shows_as_transfer_and_waiting_in_the_bars_and_the_rank_table() {
    let dir = tempfile::tempdir().unwrap();
    for r in 0..4 {
        let mut p = profile(r, 4, 10_000_000, 12, "node0", "MatMul");
        let total = p.steps.total_ns;
        // forward 30%, then an allreduce of 5% (rank 2) or 60% (the others).
        p.phases.truncate(1);
        let mut comm = p.phases[0].clone();
        comm.name = "allreduce".into();
        comm.in_steps_ns = total * if r == 2 { 5 } else { 60 } / 100;
        comm.total_ns = comm.in_steps_ns;
        p.phases.push(comm);
        write(dir.path(), r, &p);
    }
    let report = FleetReport::from_dir(dir.path(), FleetSettings::default()).unwrap();
    assert_eq!(report.straggler_ranks(), [2]);
    let page = FleetPage::new(&report).render();
    // Three ranks wait; rank 2 does not (no segment for a zero wait).
    assert_eq!(page.matches("<rect class=\"seg comm-wait\"").count(), 3);
    assert_eq!(page.matches("<rect class=\"seg comm-transfer\"").count(), 4);
    assert!(page.contains("allreduce: waiting for slower ranks: "));
    assert!(page.contains(">waiting for slower ranks</text>"), "legend");
    assert!(page.contains(">communication: transfer</text>"), "legend");
    for column in [
        ">Compute</th>",
        ">Communication</th>",
        ">Waiting</th>",
        ">Outside any phase</th>",
    ] {
        assert!(page.contains(column), "{column}");
    }
    assert!(page.contains("straggler threshold own work (step less waiting)"));
    assert!(page.contains("Fleet median own work"));
    // The others' wait, up front: 60% - 5% of a step of about 10.2 ms.
    let waits: Vec<f64> = report
        .time
        .ranks
        .iter()
        .filter(|t| t.rank != 2)
        .filter_map(|t| t.communication.map(|c| c.waiting_ns))
        .collect();
    assert_eq!(waits.len(), 3);
    let wait = crate::base::textfmt::duration(crate::analysis::straggler::median(&waits));
    assert!(
        page.contains(&format!(
            "The other ranks wait for it at allreduce: a median of {wait} per step"
        )),
        "{wait}"
    );

    // Without a collective: said so, and dashes where the split would be.
    let plain = tempfile::tempdir().unwrap();
    let report = run(plain.path(), 4, 12, "node0", "MatMul");
    let page = FleetPage::new(&report).render();
    assert!(!page.contains("comm-wait\""));
    assert!(page.contains("no collective phase recorded"));
    assert_eq!(
        page.matches("title=\"no collective phase recorded: not measured\">")
            .count(),
        8,
        "communication and waiting of 4 ranks"
    );
}
