//! The results table, the target checks and the JSON file.

use serde_json::{Value, json};

use crate::measure::Summary;
use crate::slots::SlotsResult;
use crate::variant::Variant;

/// One target check.
#[derive(Debug, Clone)]
pub struct Target {
    /// What is promised.
    pub name: &'static str,
    /// The measured numbers, in words.
    pub detail: String,
    /// Measured value (same unit as `limit`), if it could be measured.
    pub value: Option<f64>,
    /// The limit it must not exceed.
    pub limit: f64,
}

impl Target {
    /// Whether the value was measured and is within the limit.
    #[must_use]
    pub fn pass(&self) -> bool {
        self.value.is_some_and(|v| v <= self.limit)
    }
}

fn find<'a>(variants: &'a [Variant], key: &str) -> Option<&'a Variant> {
    variants.iter().find(|v| v.key == key)
}

fn median(variants: &[Variant], key: &str) -> Option<f64> {
    find(variants, key)?.wall().map(|s| s.median)
}

/// Median over rounds of `f(a[i], b[i])`: batches of one round ran within
/// about a second of each other, so slow drifts of the machine (the
/// host's CPU frequency, mostly) cancel out of the comparison.
fn paired(a: &[f64], b: &[f64], f: impl Fn(f64, f64) -> f64) -> Option<f64> {
    if a.len() != b.len() {
        return None;
    }
    let per_round: Vec<f64> = a.iter().zip(b).map(|(x, y)| f(*x, *y)).collect();
    Summary::of(&per_round).map(|s| s.median)
}

fn ratio_of(a: &[f64], b: &[f64]) -> Option<f64> {
    paired(a, b, |x, y| x / y)
}

/// Per round, the fastest of the fast clock pairs: the floor a profiler
/// that reads the clock twice per call cannot go below.
#[must_use]
pub fn floor_samples(variants: &[Variant]) -> Option<Vec<f64>> {
    let clocks: Vec<&Variant> = variants.iter().filter(|v| v.clock_floor).collect();
    let rounds = clocks.first()?.ns.len();
    if rounds == 0 || clocks.iter().any(|v| v.ns.len() != rounds) {
        return None;
    }
    Some(
        (0..rounds)
            .map(|i| clocks.iter().map(|v| v.ns[i]).fold(f64::MAX, f64::min))
            .collect(),
    )
}

/// The reference a row's "x fastrace" column divides by.
fn fastrace_for<'a>(variants: &'a [Variant], v: &Variant) -> Option<&'a Variant> {
    find(
        variants,
        if v.threads > 1 {
            "fastrace-threads"
        } else {
            "fastrace"
        },
    )
}

/// The results table, as text.
#[must_use]
pub fn table(variants: &[Variant]) -> String {
    let floor = floor_samples(variants);
    let mut out = format!(
        "{:<46} {:>3} {:>8} {:>8} {:>8} {:>8} {:>6} {:>6} {:>8}  {}\n",
        "variant", "thr", "median", "min", "max", "on-CPU", "x fast", "x flr", "all-in", "recorded"
    );
    out.push_str(&format!(
        "{:<46} {:>3} {:>8} {:>8} {:>8} {:>8} {:>6} {:>6} {:>8}\n",
        "", "", "ns/call", "ns/call", "ns/call", "ns/call", "-race", "-oor", "CPU ns"
    ));
    let num = |v: Option<f64>, digits: usize| v.map_or("-".to_owned(), |v| format!("{v:.digits$}"));
    for v in variants {
        let Some(wall) = v.wall() else { continue };
        let vs_fastrace = fastrace_for(variants, v).and_then(|f| ratio_of(&v.ns, &f.ns));
        let vs_floor = floor.as_ref().and_then(|f| ratio_of(&v.ns, f));
        out.push_str(&format!(
            "{:<46} {:>3} {:>8.2} {:>8.2} {:>8.2} {:>8} {:>6} {:>6} {:>8}  {}\n",
            v.name,
            v.threads,
            wall.median,
            wall.min,
            wall.max,
            num(v.on_cpu_median(), 2),
            num(vs_fastrace, 2),
            num(vs_floor, 2),
            num(v.cpu_median(), 1),
            v.recorded_text(),
        ));
    }
    out
}

/// Every target of the issue, measured. Ratios are medians of per-round
/// ratios (see [`table`]); the details show the plain medians too.
#[must_use]
pub fn targets(variants: &[Variant], slots: Option<&SlotsResult>) -> Vec<Target> {
    let fmt = |v: Option<f64>| v.map_or("?".to_owned(), |v| format!("{v:.2}"));
    let wall = |key: &str| find(variants, key).map(|v| v.ns.as_slice());
    let cpu = |key: &str| find(variants, key).map(|v| v.cpu.as_slice());
    let wall_ratio = |a: &str, b: &str| ratio_of(wall(a)?, wall(b)?);
    let both = |a: &str, b: &str| {
        format!(
            "median {} vs {} ns/call",
            fmt(median(variants, a)),
            fmt(median(variants, b))
        )
    };
    let mut out = Vec::new();
    for (name, key) in [
        ("#[brick] enabled <= 0.65x fastrace", "fastrace"),
        ("#[brick] enabled <= 0.65x hotpath", "hotpath"),
    ] {
        out.push(Target {
            name,
            detail: both("brick", key),
            value: wall_ratio("brick", key),
            limit: 0.65,
        });
    }
    let floor = floor_samples(variants);
    out.push(Target {
        name: "#[brick] enabled <= 1.5x two fast clock reads",
        detail: format!(
            "median {} vs {} ns/call (fastest clock pair per round)",
            fmt(median(variants, "brick")),
            fmt(floor.as_deref().and_then(Summary::of).map(|s| s.median))
        ),
        value: wall("brick")
            .zip(floor.as_deref())
            .and_then(|(a, f)| ratio_of(a, f)),
        limit: 1.5,
    });
    let cpu_median = |key: &str| find(variants, key).and_then(Variant::cpu_median);
    out.push(Target {
        name: "all-in process CPU/call <= 0.25x fastrace's",
        detail: format!(
            "median {} vs {} ns/call",
            fmt(cpu_median("brick")),
            fmt(cpu_median("fastrace"))
        ),
        value: cpu("brick")
            .zip(cpu("fastrace"))
            .and_then(|(a, b)| ratio_of(a, b)),
        limit: 0.25,
    });
    out.push(Target {
        name: "runtime-disabled <= unannotated + 2 ns",
        detail: both("brick-disabled", "unannotated"),
        value: wall("brick-disabled")
            .zip(wall("unannotated"))
            .and_then(|(a, b)| paired(a, b, |x, y| x - y)),
        limit: 2.0,
    });
    let on_cpu = |key: &str| find(variants, key).and_then(Variant::on_cpu_median);
    out.push(Target {
        name: "2 threads: per-thread ns/call <= 1.10x 1 thread",
        detail: format!(
            "{}; on-CPU {} vs {}",
            both("brick-threads", "brick"),
            fmt(on_cpu("brick-threads")),
            fmt(on_cpu("brick")),
        ),
        value: wall_ratio("brick-threads", "brick"),
        limit: 1.10,
    });
    out.push(Target {
        name: "trace-mode event <= 2x aggregate brick call",
        detail: both("brick-trace", "brick"),
        value: wall_ratio("brick-trace", "brick"),
        limit: 2.0,
    });
    out.push(Target {
        name: "counter sample <= 1x aggregate brick call",
        detail: both("counter", "brick"),
        value: wall_ratio("counter", "brick"),
        limit: 1.0,
    });
    out.push(Target {
        name: "tile timer, tile profiling off <= unannotated + 2 ns",
        detail: both("tile-off", "unannotated"),
        value: wall("tile-off")
            .zip(wall("unannotated"))
            .and_then(|(a, b)| paired(a, b, |x, y| x - y)),
        limit: 2.0,
    });
    out.push(Target {
        name: "tile timer <= 1.25x aggregate brick call",
        detail: both("tile", "brick"),
        value: wall_ratio("tile", "brick"),
        limit: 1.25,
    });
    out.push(Target {
        name: "span through BrickLayer <= 1.3x span through a counting layer (both scoped)",
        detail: format!(
            "{}; a layer that only times spans: {} ns/call, {}x",
            both("tracing-brick", "tracing-scoped"),
            fmt(median(variants, "tracing-timed")),
            fmt(wall_ratio("tracing-timed", "tracing-scoped"))
        ),
        value: wall_ratio("tracing-brick", "tracing-scoped"),
        limit: 1.3,
    });
    let snapshot = slots.and_then(SlotsResult::snapshot);
    out.push(Target {
        name: "snapshot() of 1000 bricks x 16 threads < 1 ms",
        detail: snapshot.map_or("not measured".to_owned(), |s| {
            format!("median {:.0} us, min {:.0} us", s.median / 1e3, s.min / 1e3)
        }),
        value: snapshot.map(|s| s.median / 1e6),
        limit: 1.0,
    });
    let event = slots.and_then(|s| s.event_allocated.or(s.event_resident));
    out.push(Target {
        name: "timeline buffer memory <= 64 B/event",
        detail: format!("{} B/event allocated", fmt(event)),
        value: event,
        limit: 64.0,
    });
    out
}

/// One line per target.
#[must_use]
pub fn target_lines(targets: &[Target]) -> String {
    targets
        .iter()
        .map(|t| {
            let verdict = if t.pass() { "PASS" } else { "FAIL" };
            let value = t.value.map_or("?".to_owned(), |v| format!("{v:.3}"));
            format!(
                "{verdict}  {:<50} {value} (limit {}): {}\n",
                t.name, t.limit, t.detail
            )
        })
        .collect()
}

/// Everything as one JSON document: settings, one object per variant,
/// the targets and the slot/snapshot measurements.
#[must_use]
pub fn to_json(
    variants: &[Variant],
    targets: &[Target],
    slots: Option<&SlotsResult>,
    settings: Value,
) -> Value {
    let rows: Vec<Value> = variants
        .iter()
        .map(|v| {
            let wall = v.wall();
            json!({
                "key": v.key,
                "name": v.name,
                "threads": v.threads,
                "median_ns_per_call": wall.map(|s| s.median),
                "min_ns_per_call": wall.map(|s| s.min),
                "max_ns_per_call": wall.map(|s| s.max),
                "on_cpu_ns_per_call": v.on_cpu_median(),
                "all_in_cpu_ns_per_call": v.cpu_median(),
                "samples_ns_per_call": v.ns,
                "samples_all_in_cpu_ns_per_call": v.cpu,
                "calls_made": v.made,
                "calls_recorded": v.recorded,
            })
        })
        .collect();
    let checks: Vec<Value> = targets
        .iter()
        .map(|t| json!({"name": t.name, "value": t.value, "limit": t.limit, "pass": t.pass(), "detail": t.detail}))
        .collect();
    let slots = slots.map(|s| {
        let snap = s.snapshot();
        json!({
            "threads": crate::slots::THREADS,
            "bricks": crate::slots::BRICKS,
            "slot_allocated_bytes": s.slot_allocated,
            "slot_resident_bytes": s.slot_resident,
            "event_allocated_bytes": s.event_allocated,
            "event_resident_bytes": s.event_resident,
            "snapshot_median_ns": snap.map(|x| x.median),
            "snapshot_min_ns": snap.map(|x| x.min),
            "snapshot_counts_ok": s.counts_ok,
        })
    });
    json!({
        "settings": settings,
        "variants": rows,
        "targets": checks,
        "slots": slots,
    })
}
