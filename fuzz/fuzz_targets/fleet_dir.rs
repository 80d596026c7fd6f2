//! Any bytes as a run directory: `fleet` over a generated tree of rank
//! directories, each holding a profile built from the bytes (rank, world
//! size, run id, step count, step samples and indices, bricks, phases), raw
//! text as `profile.json`, a directory where the profile should be, or
//! nothing. Reading never panics; the report's ranks, absent ranges and
//! problems account for every rank exactly once; every number is finite;
//! the heat map stays within its bounds; every rendering runs and the JSON
//! reads back.

#![no_main]

#[path = "../common/mod.rs"]
mod common;

use std::collections::BTreeSet;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use profiler_core::{BrickCategory, BrickStats, Profile};
use profiler_report::fleet::{
    FleetError, FleetReport, FleetSettings, HEAT_MAX_COLUMNS, HEAT_MAX_ROWS, RankProblem,
};
use profiler_report::html::FleetPage;

/// Reads the fuzz input as small numbers, running dry as zeros.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        let (&b, rest) = self.0.split_first().unwrap_or((&0, &[]));
        self.0 = rest;
        b
    }

    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    fn u64(&mut self) -> u64 {
        u64::from(self.u32()) << 32 | u64::from(self.u32())
    }

    /// A number from a small range of interesting ones, or any.
    fn pick(&mut self, small: u64) -> u64 {
        match self.u8() % 4 {
            0 => u64::from(self.u8()) % (small + 1),
            1 => u64::from(self.u32()),
            2 => self.u64(),
            _ => small,
        }
    }

    fn text(&mut self, most: usize) -> String {
        let n = usize::from(self.u8()) % (most + 1);
        let (head, rest) = self.0.split_at(n.min(self.0.len()));
        self.0 = rest;
        String::from_utf8_lossy(head).into_owned()
    }
}

/// A profile built from the bytes: mostly plausible, sometimes extreme.
fn profile(b: &mut Bytes<'_>, dir_rank: u32) -> Profile {
    let mut p = Profile::empty();
    p.run.rank = match b.u8() % 4 {
        0 => None,
        1 => Some(b.u32()),
        _ => Some(dir_rank),
    };
    p.run.world_size = match b.u8() % 4 {
        0 => None,
        1 => Some(b.u32()),
        _ => Some(8),
    };
    p.run.run_id = if b.u8() % 4 == 0 { b.text(12) } else { "job".into() };
    p.run.host = b.text(8);
    let samples = usize::from(b.u8() % 24);
    let base = b.pick(100);
    for i in 0..samples {
        p.steps.samples_ns.push(b.pick(10_000_000));
        p.steps.samples_index.push(base.saturating_add(i as u64));
    }
    p.steps.count = b.pick(samples as u64);
    for _ in 0..b.u8() % 5 {
        let name = if b.u8() % 2 == 0 { b.text(6) } else { "MatMul".into() };
        let mut brick = BrickStats::new(name, BrickCategory::Ffn);
        brick.total_ns = b.pick(5_000_000);
        brick.count = b.pick(20);
        p.bricks.push(brick);
    }
    if b.u8() % 2 == 0 {
        p.phases.push(profiler_core::profile::PhaseStats {
            name: b.text(6),
            count: b.pick(20),
            total_ns: b.pick(4_000_000),
            min_ns: 0,
            max_ns: 0,
            in_steps_ns: 0,
            latency: Default::default(),
        });
    }
    p
}

/// Writes one rank directory from the bytes; returns its name.
fn rank_dir(b: &mut Bytes<'_>, root: &Path) -> Option<String> {
    let rank = match b.u8() % 4 {
        0 => b.u32(),
        _ => u32::from(b.u8() % 12),
    };
    let name = match b.u8() % 8 {
        0 => format!("rank-{rank}"),
        1 => format!("not-a-rank-{rank}"),
        _ => format!("rank-{rank:05}"),
    };
    let dir = root.join(&name);
    std::fs::create_dir_all(&dir).ok()?;
    let file = dir.join("profile.json");
    match b.u8() % 8 {
        0 => {}
        1 => std::fs::create_dir(&file).ok()?,
        2 => std::fs::write(&file, b.text(255)).ok()?,
        _ => std::fs::write(&file, profile(b, rank).to_json()).ok()?,
    }
    Some(name)
}

fuzz_target!(|data: &[u8]| {
    let Ok(root) = tempfile::tempdir() else {
        return;
    };
    let mut b = Bytes(data);
    let mut dirs = BTreeSet::new();
    for _ in 0..b.u8() % 12 {
        if let Some(name) = rank_dir(&mut b, root.path()) {
            dirs.insert(name);
        }
    }
    let report = match FleetReport::from_dir(root.path(), FleetSettings::default()) {
        Ok(report) => report,
        Err(FleetError::NoRanks { problems, .. }) => {
            for p in &problems {
                assert!(!p.to_string().chars().any(char::is_control), "{p:?}");
            }
            return;
        }
        Err(e) => panic!("a readable directory: {e}"),
    };
    check(&report);
});

fn check(report: &FleetReport) {
    assert!(report.ranks_analysed > 0);
    assert_eq!(report.ranks.len(), report.ranks_analysed);
    let analysed: Vec<u32> = report.ranks.iter().map(|r| r.rank).collect();
    assert!(analysed.windows(2).all(|w| w[0] < w[1]), "{analysed:?}");
    assert!(
        analysed.iter().all(|&r| u64::from(r) < report.world_size),
        "{analysed:?} in a world of {}",
        report.world_size
    );
    // Absent ranges: ascending, disjoint, in the world, and together with
    // the ranks analysed they are the whole world.
    let mut next = 0u64;
    let mut absent = 0u64;
    for r in &report.absent {
        assert!(u64::from(r.first) >= next && r.first <= r.last, "{:?}", report.absent);
        assert!(u64::from(r.last) < report.world_size);
        next = u64::from(r.last) + 1;
        absent += u64::from(r.last) - u64::from(r.first) + 1;
        assert!(
            analysed.iter().all(|&a| a < r.first || a > r.last),
            "rank analysed and absent: {r:?}"
        );
    }
    assert_eq!(absent + analysed.len() as u64, report.world_size);
    for r in &report.ranks {
        assert!(r.steps > 0, "{r:?}");
        for v in [r.median_ns, r.p10_ns, r.p90_ns, r.max_ns] {
            assert!(v.is_finite() && v >= 0.0, "{r:?}");
        }
        assert!(r.p10_ns <= r.median_ns && r.median_ns <= r.p90_ns && r.p90_ns <= r.max_ns);
    }
    for s in &report.stragglers {
        assert!(analysed.binary_search(&s.rank).is_ok(), "{s:?}");
        assert!(s.value_ns.is_finite() && s.excess.is_finite(), "{s:?}");
    }
    for b in report.bricks.iter().chain(&report.phases) {
        assert!(b.mean_ns.is_finite() && b.max_ns.is_finite(), "{b:?}");
        assert!(b.max_ns + 1e-6 * b.max_ns.abs() >= b.mean_ns, "{b:?}");
        assert!(analysed.binary_search(&b.slowest_rank).is_ok(), "{b:?}");
    }
    for p in &report.problems {
        let text = p.to_string();
        assert!(!text.chars().any(char::is_control), "{text:?}");
        if let RankProblem::Missing { ranks } = p {
            assert!(u64::from(ranks.last) < report.world_size, "{p:?}");
        }
    }
    assert!(report.heat.rows.len() <= HEAT_MAX_ROWS);
    assert!(report.heat.rows.iter().all(|r| r.cells.len() <= HEAT_MAX_COLUMNS));
    let text = report.to_string();
    assert!(!text.contains('\u{1b}'), "{text:?}");
    let _ = report.to_markdown();
    let html = FleetPage::new(&report).render();
    assert!(html.ends_with("</html>\n"));
    let json = common::assert_finite_json(&report.to_json(), "fleet JSON");
    assert_eq!(json["ranks_analysed"], report.ranks_analysed);
}
