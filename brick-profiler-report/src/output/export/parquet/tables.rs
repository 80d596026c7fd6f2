//! A profile's aggregates as four tables, every row led by the run id,
//! rank, world size and host, so the files of all ranks of a run can be
//! read as one (`run/rank-*/bricks.parquet`).

use profiler_core::{Direction, Profile};

use super::table::{Table, Values, i64_of, text};

/// The leading columns of every table: `n` rows of the profile's identity.
fn identity(profile: &Profile, n: usize) -> Table {
    let run = &profile.run;
    let rank = i32::try_from(run.rank.unwrap_or(0)).unwrap_or(i32::MAX);
    let world = i32::try_from(run.world_size.unwrap_or(1)).unwrap_or(i32::MAX);
    Table::default()
        .column("run_id", Values::Str(vec![text(&run.run_id); n]))
        .column("rank", Values::I32(vec![rank; n]))
        .column("world_size", Values::I32(vec![world; n]))
        .column("host", Values::Str(vec![text(&run.host); n]))
}

/// One row per brick.
pub(super) fn bricks(profile: &Profile) -> Table {
    let b = &profile.bricks;
    let steps = profile.steps.samples_ns.len().max(1) as f64;
    identity(profile, b.len())
        .column(
            "brick",
            Values::Str(b.iter().map(|b| text(&b.name)).collect()),
        )
        .column(
            "category",
            Values::Str(b.iter().map(|b| text(b.category.name())).collect()),
        )
        .column(
            "calls",
            Values::I64(b.iter().map(|b| i64_of(b.count)).collect()),
        )
        .column(
            "total_ns",
            Values::I64(b.iter().map(|b| i64_of(b.total_ns)).collect()),
        )
        .column(
            "self_ns",
            Values::I64(
                b.iter()
                    .map(|b| i64_of(b.total_ns.saturating_sub(b.child_ns)))
                    .collect(),
            ),
        )
        .column(
            "min_ns",
            Values::I64(b.iter().map(|b| i64_of(b.min_ns)).collect()),
        )
        .column(
            "max_ns",
            Values::I64(b.iter().map(|b| i64_of(b.max_ns)).collect()),
        )
        .column(
            "ns_per_step",
            Values::F64(b.iter().map(|b| b.total_ns as f64 / steps).collect()),
        )
        .column(
            "flops",
            Values::I64(b.iter().map(|b| i64_of(b.total_flops)).collect()),
        )
        .column(
            "bytes",
            Values::I64(b.iter().map(|b| i64_of(b.total_bytes)).collect()),
        )
}

/// One row per recorded step.
pub(super) fn steps(profile: &Profile) -> Table {
    let s = &profile.steps;
    let n = s.samples_ns.len();
    let index = (0..n).map(|i| i64_of(s.samples_index.get(i).copied().unwrap_or(i as u64)));
    let tokens = (0..n).map(|i| i64_of(s.samples_tokens.get(i).copied().unwrap_or(0)));
    identity(profile, n)
        .column("step", Values::I64(index.collect()))
        .column(
            "wall_ns",
            Values::I64(s.samples_ns.iter().map(|&v| i64_of(v)).collect()),
        )
        .column("tokens", Values::I64(tokens.collect()))
}

/// One row per layer and direction.
pub(super) fn layers(profile: &Profile) -> Table {
    let l = &profile.layers;
    let direction = |d: Direction| match d {
        Direction::Forward => "forward",
        Direction::Backward => "backward",
    };
    identity(profile, l.len())
        .column(
            "layer",
            Values::I32(
                l.iter()
                    .map(|l| i32::try_from(l.index).unwrap_or(i32::MAX))
                    .collect(),
            ),
        )
        .column(
            "direction",
            Values::Str(l.iter().map(|l| text(direction(l.direction))).collect()),
        )
        .column(
            "scopes",
            Values::I64(l.iter().map(|l| i64_of(l.scope_count)).collect()),
        )
        .column(
            "total_ns",
            Values::I64(l.iter().map(|l| i64_of(l.total_ns())).collect()),
        )
}

/// One row per counter sample.
pub(super) fn counters(profile: &Profile) -> Table {
    let samples: Vec<(&str, &profiler_core::trace::CounterSample)> = profile
        .counter_tracks
        .iter()
        .flat_map(|t| t.samples.iter().map(move |s| (t.name.as_str(), s)))
        .collect();
    identity(profile, samples.len())
        .column(
            "counter",
            Values::Str(samples.iter().map(|(n, _)| text(n)).collect()),
        )
        .column(
            "thread",
            Values::I32(
                samples
                    .iter()
                    .map(|(_, s)| i32::try_from(s.thread).unwrap_or(i32::MAX))
                    .collect(),
            ),
        )
        .column(
            "t_ns",
            Values::I64(samples.iter().map(|(_, s)| i64_of(s.t_ns)).collect()),
        )
        .column(
            "value",
            Values::F64(samples.iter().map(|(_, s)| s.value).collect()),
        )
}
