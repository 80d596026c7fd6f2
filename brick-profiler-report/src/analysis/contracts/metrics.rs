//! The metrics every profile provides to rules: run totals
//! (`wall_coverage`, `decoded_tokens`, `layers`, ...), loss counters
//! (`counters.lost`), per-brick fields (`brick(LmHead).p50_ns`) and
//! per-category fields, plus the collections quantifiers range over.

use profiler_core::{BrickCategory, BrickStats, Direction, Profile, sync::SyncMode};

use super::value::Value;
use crate::analysis::scorecard::{TokenTimes, phase_rate, quantile};

/// Why a name could not be evaluated.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Problem {
    /// The rule names something that does not exist (a contract error).
    Unknown(String),
    /// The profile lacks the data (e.g. a brick without samples).
    Unmeasurable(String),
    /// The input cannot carry the data at all (latency histograms of an
    /// Nsight import): the rule does not apply, it has not failed.
    NotApplicable(String),
}

/// Every built-in profile metric with what it means, for docs and suggestions.
pub(crate) const PROFILE_METRICS: [(&str, &str); 40] = [
    (
        "wall_ns",
        "recorded step time, ns (run wall time without steps)",
    ),
    ("brick_ns", "time summed over bricks, ns"),
    ("wall_coverage", "brick_ns / wall_ns (not clamped)"),
    ("phase_coverage", "time in top-level phases / step time"),
    ("tokens", "elements summed over bricks"),
    ("decoded_tokens", "tokens counted by step(tokens)"),
    ("steps", "recorded steps"),
    (
        "layers",
        "distinct forward layer indices seen in layer scopes",
    ),
    ("threads", "threads that recorded"),
    (
        "sync_mode",
        "\"immediate\", \"per_layer\", \"deferred\" or \"none\"",
    ),
    ("device_timer", "whether a device timer was installed"),
    ("run.wall_ns", "wall time from enable() to the snapshot, ns"),
    ("steps.count", "recorded steps"),
    ("steps.tokens", "tokens of recorded steps"),
    ("steps.total_ns", "wall time of recorded steps, ns"),
    ("counters.pending", "deferred records waiting for finalize"),
    (
        "counters.pending_overflow",
        "deferred records refused: queue full",
    ),
    (
        "counters.pending_abandoned",
        "deferred records whose thread exited first",
    ),
    (
        "counters.device_timer_fallbacks",
        "device times resolved by fallback",
    ),
    ("counters.timeline_dropped", "timeline events dropped"),
    (
        "counters.lost_at_thread_exit",
        "samples lost at thread teardown",
    ),
    (
        "counters.slot_overflow_samples",
        "samples beyond the slot table",
    ),
    ("counters.sync_hook_panics", "sync-hook calls that panicked"),
    ("counters.trace_entries_dropped", "trace_op entries dropped"),
    ("counters.lost", "records that never became samples"),
    ("prefills", "prefill phases recorded (one per request)"),
    (
        "decodes",
        "decode phases recorded (one per generated token step)",
    ),
    ("requests", "requests: each prefill starts one"),
    (
        "generation_outside_steps",
        "prefill and decode phases that ran outside every step (tokens unknown)",
    ),
    (
        "generation.dropped",
        "prefill and decode phases beyond the recording cap",
    ),
    (
        "ttft_p50_ms",
        "time to first token, median over requests, ms",
    ),
    ("ttft_p90_ms", "time to first token, 90th percentile, ms"),
    (
        "tpot_p50_ms",
        "time per output token, median over requests, ms",
    ),
    ("tpot_p90_ms", "time per output token, 90th percentile, ms"),
    ("tpot_p99_ms", "time per output token, 99th percentile, ms"),
    (
        "itl_p50_ms",
        "inter-token latency, median over token gaps, ms",
    ),
    ("itl_p90_ms", "inter-token latency, 90th percentile, ms"),
    ("itl_p99_ms", "inter-token latency, 99th percentile, ms"),
    ("prefill_tok_s", "prompt tokens per second of prefill time"),
    ("decode_tok_s", "generated tokens per second of decode time"),
];

/// Fields of `brick(Name)` and of quantified bricks.
pub(crate) const BRICK_FIELDS: [&str; 14] = [
    "name",
    "count",
    "total_ns",
    "min_ns",
    "max_ns",
    "avg_ns",
    "p50_ns",
    "p90_ns",
    "p99_ns",
    "histogram_count",
    "total_elements",
    "total_bytes",
    "total_flops",
    "throughput",
];

/// Fields of `category(Name)` and of quantified categories.
pub(crate) const CATEGORY_FIELDS: [&str; 6] = [
    "name",
    "count",
    "total_ns",
    "total_elements",
    "bricks_total_ns",
    "bricks_count",
];

/// A value, or an object whose fields a rule reads.
#[derive(Debug, Clone)]
pub(crate) enum Item<'p> {
    Value(Value),
    /// `stats` is `None` when the brick recorded no sample.
    Brick {
        name: String,
        stats: Option<&'p BrickStats>,
        /// Whether the profile carries latency histograms at all.
        histograms: bool,
    },
    Category {
        category: BrickCategory,
        profile: &'p Profile,
    },
}

fn wall_ns(p: &Profile) -> u64 {
    if p.steps.count > 0 {
        p.steps.total_ns
    } else {
        p.run.wall_ns
    }
}

/// A built-in metric; `None` when `name` is not one.
pub(crate) fn profile_metric(p: &Profile, name: &str) -> Option<Result<Value, Problem>> {
    let c = &p.counters;
    let unmeasurable = |why: &str| Err(Problem::Unmeasurable(why.to_owned()));
    let value: Value = match name {
        "wall_ns" => wall_ns(p).into(),
        "brick_ns" => p.total_ns().into(),
        "wall_coverage" => {
            let wall = wall_ns(p);
            if wall == 0 {
                return Some(unmeasurable(
                    "no wall time: no steps recorded and run.wall_ns is 0",
                ));
            }
            (p.total_ns() as f64 / wall as f64).into()
        }
        "phase_coverage" => match p.wall_coverage() {
            Some(x) => x.into(),
            None => return Some(unmeasurable("no recorded steps")),
        },
        "tokens" => p.total_tokens().into(),
        "decoded_tokens" => {
            if p.steps.count == 0 {
                return Some(unmeasurable(
                    "no steps recorded: count tokens with step(tokens)",
                ));
            }
            p.steps.tokens.into()
        }
        "steps" | "steps.count" => p.steps.count.into(),
        "steps.tokens" => p.steps.tokens.into(),
        "steps.total_ns" => p.steps.total_ns.into(),
        "layers" => {
            let mut indices: Vec<u32> = p
                .layers
                .iter()
                .filter(|l| l.direction == Direction::Forward)
                .map(|l| l.index)
                .collect();
            indices.sort_unstable();
            indices.dedup();
            if indices.is_empty() {
                return Some(unmeasurable(
                    "no forward layer scopes recorded (profiler::layer), and no `layers` metric given",
                ));
            }
            (indices.len() as u64).into()
        }
        "threads" => u64::from(p.run.threads_seen).into(),
        "sync_mode" => match p.run.sync_mode {
            SyncMode::Immediate => "immediate",
            SyncMode::PerLayer => "per_layer",
            SyncMode::Deferred => "deferred",
            SyncMode::None => "none",
        }
        .into(),
        "device_timer" => p.run.device_timer.into(),
        "run.wall_ns" => p.run.wall_ns.into(),
        "counters.pending" => c.pending.into(),
        "counters.pending_overflow" => c.pending_overflow.into(),
        "counters.pending_abandoned" => c.pending_abandoned.into(),
        "counters.device_timer_fallbacks" => c.device_timer_fallbacks.into(),
        "counters.timeline_dropped" => c.timeline_dropped.into(),
        "counters.lost_at_thread_exit" => c.lost_at_thread_exit.into(),
        "counters.slot_overflow_samples" => c.slot_overflow_samples.into(),
        "counters.sync_hook_panics" => c.sync_hook_panics.into(),
        "counters.trace_entries_dropped" => c.trace_entries_dropped.into(),
        "counters.lost" => c.lost().into(),
        other => return generation_metric(p, other),
    };
    Some(Ok(value))
}

/// A token-latency metric of the `prefill` and `decode` phases; `None`
/// when `name` is not one.
fn generation_metric(p: &Profile, name: &str) -> Option<Result<Value, Problem>> {
    let t = TokenTimes::of(&p.generation, &p.steps);
    let percentile = |samples: &[f64], q: f64, what: &str| {
        quantile(samples, q).map(Value::from).ok_or_else(|| {
            Problem::Unmeasurable(format!(
                "no {what} recorded: mark the prompt pass profiler::phase(\"prefill\") and each \
                 token's profiler::phase(\"decode\")"
            ))
        })
    };
    let rate = |work, counts, phase| {
        phase_rate(work, counts, phase)
            .map(Value::from)
            .map_err(Problem::Unmeasurable)
    };
    Some(match name {
        "prefills" => Ok((t.prefills.0 as u64).into()),
        "decodes" => Ok((t.decodes.0 as u64).into()),
        "requests" => Ok((t.requests as u64).into()),
        "generation_outside_steps" => {
            let outside = t.prefills.0 - t.prefills.1 + t.decodes.0 - t.decodes.1;
            Ok((outside as u64).into())
        }
        "generation.dropped" => Ok(p.generation.dropped.into()),
        "ttft_p50_ms" => percentile(&t.ttft_ms, 0.5, "prefill"),
        "ttft_p90_ms" => percentile(&t.ttft_ms, 0.9, "prefill"),
        "tpot_p50_ms" => percentile(&t.tpot_ms, 0.5, "request of two tokens"),
        "tpot_p90_ms" => percentile(&t.tpot_ms, 0.9, "request of two tokens"),
        "tpot_p99_ms" => percentile(&t.tpot_ms, 0.99, "request of two tokens"),
        "itl_p50_ms" => percentile(&t.itl_ms, 0.5, "token gap"),
        "itl_p90_ms" => percentile(&t.itl_ms, 0.9, "token gap"),
        "itl_p99_ms" => percentile(&t.itl_ms, 0.99, "token gap"),
        "prefill_tok_s" => rate(t.prefill_work, t.prefills, "prefill"),
        "decode_tok_s" => rate(t.decode_work, t.decodes, "decode"),
        _ => return None,
    })
}

/// The brick named `name` (built-in aliases resolve).
pub(crate) fn brick<'p>(p: &'p Profile, name: &str) -> Item<'p> {
    let stats = p.brick(name);
    Item::Brick {
        name: stats.map_or_else(|| name.to_owned(), |b| b.name.clone()),
        stats,
        histograms: carries_histograms(p),
    }
}

/// The category named `name` (`Norm`, `Attention`, `FFN`, ..., any case).
pub(crate) fn category<'p>(p: &'p Profile, name: &str) -> Result<Item<'p>, Problem> {
    BrickCategory::ALL
        .iter()
        .find(|c| c.name().eq_ignore_ascii_case(name))
        .map(|&category| Item::Category {
            category,
            profile: p,
        })
        .ok_or_else(|| {
            let names: Vec<&str> = BrickCategory::ALL.iter().map(|c| c.name()).collect();
            Problem::Unknown(format!(
                "unknown category `{name}` (one of {})",
                names.join(", ")
            ))
        })
}

/// The elements a quantifier ranges over.
pub(crate) fn collection<'p>(p: &'p Profile, name: &str) -> Result<Vec<Item<'p>>, Problem> {
    match name {
        "bricks" => Ok(p
            .bricks
            .iter()
            .map(|b| Item::Brick {
                name: b.name.clone(),
                stats: Some(b),
                histograms: carries_histograms(p),
            })
            .collect()),
        "categories" => Ok(p
            .categories
            .iter()
            .map(|c| Item::Category {
                category: c.category,
                profile: p,
            })
            .collect()),
        other => Err(Problem::Unknown(format!(
            "unknown collection `{other}` (one of bricks, categories)"
        ))),
    }
}

/// A field of an item (`count`, `avg_ns`, ...).
pub(crate) fn field(item: &Item<'_>, field: &str) -> Result<Value, Problem> {
    match item {
        Item::Value(v) => Err(Problem::Unknown(format!(
            "{} has no field `{field}`",
            v.kind()
        ))),
        Item::Brick {
            name,
            stats,
            histograms,
        } => brick_field(name, *stats, *histograms, field),
        Item::Category { category, profile } => category_field(*category, profile, field),
    }
}

/// Whether `p` carries latency histograms: a recorded profile fills one per
/// sample; an import (an Nsight summary) has samples and no histogram at all.
fn carries_histograms(p: &Profile) -> bool {
    !p.bricks.iter().any(|b| b.count > 0) || p.bricks.iter().any(|b| b.latency.count() > 0)
}

fn brick_field(
    name: &str,
    stats: Option<&BrickStats>,
    histograms: bool,
    field: &str,
) -> Result<Value, Problem> {
    if !BRICK_FIELDS.contains(&field) {
        return Err(unknown_field("brick", field, &BRICK_FIELDS));
    }
    if !histograms && matches!(field, "histogram_count" | "p50_ns" | "p90_ns" | "p99_ns") {
        return Err(Problem::NotApplicable(format!(
            "not applicable: the input carries no latency histograms (an import such as an \
             Nsight summary), so `{field}` cannot be checked"
        )));
    }
    if field == "name" {
        return Ok(name.into());
    }
    let Some(b) = stats else {
        // No samples: counts and sums are exactly zero; per-call values do not exist.
        return match field {
            "count" | "total_ns" | "histogram_count" | "total_elements" | "total_bytes"
            | "total_flops" => Ok(Value::Num(0.0)),
            _ => Err(Problem::Unmeasurable(format!(
                "brick `{name}` has no samples, so its `{field}` is undefined"
            ))),
        };
    };
    let q = |q: f64| b.latency.quantile_ns(q, b.min_ns, b.max_ns);
    Ok(match field {
        "count" => b.count.into(),
        "total_ns" => b.total_ns.into(),
        "min_ns" => b.min_ns.into(),
        "max_ns" => b.max_ns.into(),
        "avg_ns" => (b.total_ns as f64 / b.count.max(1) as f64).into(),
        "p50_ns" if b.latency.count() > 0 => q(0.5).into(),
        "p90_ns" if b.latency.count() > 0 => q(0.9).into(),
        "p99_ns" if b.latency.count() > 0 => q(0.99).into(),
        "p50_ns" | "p90_ns" | "p99_ns" => {
            return Err(Problem::Unmeasurable(format!(
                "brick `{name}` has no latency histogram"
            )));
        }
        "histogram_count" => b.latency.count().into(),
        "total_elements" => b.total_elements.into(),
        "total_bytes" => b.total_bytes.into(),
        "total_flops" => b.total_flops.into(),
        _ => b.throughput().into(),
    })
}

fn category_field(category: BrickCategory, p: &Profile, field: &str) -> Result<Value, Problem> {
    if !CATEGORY_FIELDS.contains(&field) {
        return Err(unknown_field("category", field, &CATEGORY_FIELDS));
    }
    let stats = p.category(category);
    let members = p.bricks.iter().filter(|b| b.category == category);
    Ok(match field {
        "name" => category.name().into(),
        "count" => stats.count.into(),
        "total_ns" => stats.total_ns.into(),
        "total_elements" => stats.total_elements.into(),
        "bricks_total_ns" => members
            .fold(0u64, |acc, b| acc.saturating_add(b.total_ns))
            .into(),
        _ => members
            .fold(0u64, |acc, b| acc.saturating_add(b.count))
            .into(),
    })
}

fn unknown_field(what: &str, field: &str, known: &[&str]) -> Problem {
    let hint = profiler_suggest::suggest(field, known.iter().copied())
        .map(|s| format!(", did you mean `{s}`?"))
        .unwrap_or_else(|| format!(" (one of {})", known.join(", ")));
    Problem::Unknown(format!("a {what} has no field `{field}`{hint}"))
}
