//! The metric families of one snapshot: step time, tokens, efficiency and
//! MFU, bricks, layers, dropped records and the run's facts, written through
//! `prometheus-client`'s encoders (which add the prefix, units and suffixes).

use std::fmt;
use std::sync::Arc;

use profiler_core::Profile;
use profiler_core::hardware::{Hardware, MemoryLevel};
use profiler_core::sync::SyncMode;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, MetricEncoder, NoLabelSet};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::exemplar::Exemplar;
use prometheus_client::registry::Unit;

/// Upper bounds of the step-time histogram, seconds: 1 ms doubling to about
/// 65 s, which spans a CPU toy model and a large GPU step alike.
const STEP_BUCKETS: [f64; 17] = [
    0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512, 1.024, 2.048, 4.096,
    8.192, 16.384, 32.768, 65.536,
];

/// Steps the tokens/s gauge averages over: recent enough to show a drop
/// within a scrape or two, long enough not to jump with every step.
const RECENT_STEPS: usize = 16;

/// What one scrape or push writes: a snapshot and the push failures so far.
#[derive(Debug)]
pub(crate) struct Families {
    /// The profile read at scrape time.
    pub(crate) profile: Arc<Profile>,
    /// Failed pushes of this process so far.
    pub(crate) push_failures: u64,
}

impl Collector for Families {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), fmt::Error> {
        let p = &*self.profile;
        steps(&mut encoder, p)?;
        throughput(&mut encoder, p)?;
        bricks(&mut encoder, p)?;
        layers(&mut encoder, p)?;
        dropped(&mut encoder, p)?;
        run_info(&mut encoder, p)?;
        counter(
            &mut encoder,
            "metrics_push_failures",
            "Pushes to the Pushgateway that failed (each retried with backoff).",
            None,
            self.push_failures,
        )
    }
}

/// Writes one counter without labels of its own.
fn counter<V: prometheus_client::encoding::EncodeCounterValue>(
    encoder: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    unit: Option<&Unit>,
    value: V,
) -> fmt::Result {
    let mut metric = encoder.encode_descriptor(name, help, unit, MetricType::Counter)?;
    write_counter(&mut metric, value)
}

fn write_counter<V: prometheus_client::encoding::EncodeCounterValue>(
    metric: &mut MetricEncoder,
    value: V,
) -> fmt::Result {
    metric.encode_counter(&value, None::<&Exemplar<NoLabelSet, f64>>)
}

/// Writes one gauge without labels of its own.
fn gauge(encoder: &mut DescriptorEncoder, name: &str, help: &str, value: f64) -> fmt::Result {
    encoder
        .encode_descriptor(name, help, None, MetricType::Gauge)?
        .encode_gauge(&value)
}

fn seconds(ns: u64) -> f64 {
    ns as f64 / 1e9
}

fn steps(encoder: &mut DescriptorEncoder, p: &Profile) -> fmt::Result {
    // Per-bucket counts; the encoder makes them cumulative. The histogram
    // holds the steps whose times the profile kept (all but those past its
    // sample cap); `steps_total` counts every recorded step.
    let mut buckets: Vec<(f64, u64)> = STEP_BUCKETS.iter().map(|&le| (le, 0)).collect();
    buckets.push((f64::INFINITY, 0));
    let mut sum = 0.0;
    for &ns in &p.steps.samples_ns {
        let s = seconds(ns);
        sum += s;
        let slot = STEP_BUCKETS
            .iter()
            .position(|&le| s <= le)
            .unwrap_or(STEP_BUCKETS.len());
        buckets[slot].1 += 1;
    }
    encoder
        .encode_descriptor(
            "step",
            "Wall time of recorded training steps.",
            Some(&Unit::Seconds),
            MetricType::Histogram,
        )?
        .encode_histogram::<NoLabelSet>(sum, p.steps.samples_ns.len() as u64, &buckets, None)?;
    counter(
        encoder,
        "steps",
        "Training steps recorded.",
        None,
        p.steps.count,
    )?;
    counter(
        encoder,
        "tokens",
        "Tokens of recorded steps.",
        None,
        p.steps.tokens,
    )
}

/// Tokens per second over the last few recorded steps, or over all of them
/// when the profile kept no per-step samples.
pub(crate) fn recent_tokens_per_second(p: &Profile) -> Option<f64> {
    let s = &p.steps;
    let from = s.samples_ns.len().saturating_sub(RECENT_STEPS);
    let (tokens, ns) = if s.samples_ns.len() == s.samples_tokens.len() && from < s.samples_ns.len()
    {
        (
            s.samples_tokens[from..].iter().sum::<u64>(),
            s.samples_ns[from..].iter().sum::<u64>(),
        )
    } else {
        (s.tokens, s.total_ns)
    };
    (ns > 0).then(|| tokens as f64 / seconds(ns))
}

fn throughput(encoder: &mut DescriptorEncoder, p: &Profile) -> fmt::Result {
    let recent = recent_tokens_per_second(p);
    if let Some(tok_s) = recent {
        gauge(
            encoder,
            "tokens_per_second",
            "Tokens per second over the last 16 recorded steps.",
            tok_s,
        )?;
    }
    let overall = (p.steps.total_ns > 0).then(|| p.steps.tokens as f64 / seconds(p.steps.total_ns));
    let hardware = p.run.hardware.as_ref();
    // Efficiency: throughput against the memory-bound peak the hardware
    // allows, as the scorecard defines it.
    let peak_tok_s = hardware
        .and_then(|h| Some(h.memory(MemoryLevel::Dram)?.value * 1e9 / h.bytes_per_token()?.value));
    if let (Some(tok_s), Some(peak)) = (overall, peak_tok_s.filter(|v| v.is_finite() && *v > 0.0)) {
        gauge(
            encoder,
            "efficiency_ratio",
            "Tokens per second against the hardware's memory-bound peak (0-1).",
            tok_s / peak,
        )?;
    }
    // MFU: the FLOPs the bricks declare per second of step time, against the
    // hardware's dense peak.
    let flops: u64 = p
        .bricks
        .iter()
        .fold(0, |sum, b| sum.saturating_add(b.total_flops));
    let peak_flops = hardware
        .and_then(Hardware::dense_peak_tflops)
        .map(|t| t * 1e12)
        .filter(|v| v.is_finite() && *v > 0.0);
    if let Some(peak) = peak_flops
        && flops > 0
        && p.steps.total_ns > 0
    {
        gauge(
            encoder,
            "mfu_ratio",
            "Model FLOP utilisation: declared brick FLOPs per second of step time over the peak (0-1).",
            flops as f64 / seconds(p.steps.total_ns) / peak,
        )?;
    }
    Ok(())
}

fn bricks(encoder: &mut DescriptorEncoder, p: &Profile) -> fmt::Result {
    let label = |b: &profiler_core::BrickStats| {
        [
            ("brick", b.name.clone()),
            ("category", b.category.name().to_owned()),
        ]
    };
    let mut calls = encoder.encode_descriptor(
        "brick_calls",
        "Calls of each brick.",
        None,
        MetricType::Counter,
    )?;
    for b in &p.bricks {
        write_counter(&mut calls.encode_family(&label(b))?, b.count)?;
    }
    let mut time = encoder.encode_descriptor(
        "brick",
        "Time inside each brick (bricks called inside it included).",
        Some(&Unit::Seconds),
        MetricType::Counter,
    )?;
    for b in &p.bricks {
        write_counter(&mut time.encode_family(&label(b))?, seconds(b.total_ns))?;
    }
    Ok(())
}

fn layers(encoder: &mut DescriptorEncoder, p: &Profile) -> fmt::Result {
    let mut time = encoder.encode_descriptor(
        "layer",
        "Time inside each layer, per direction (fwd, bwd).",
        Some(&Unit::Seconds),
        MetricType::Counter,
    )?;
    for l in &p.layers {
        let labels = [
            ("layer", l.index.to_string()),
            ("direction", l.direction.short_name().to_owned()),
        ];
        write_counter(&mut time.encode_family(&labels)?, seconds(l.total_ns()))?;
    }
    Ok(())
}

fn dropped(encoder: &mut DescriptorEncoder, p: &Profile) -> fmt::Result {
    let c = &p.counters;
    let kinds = [
        ("timeline_events", c.timeline_dropped),
        ("trace_entries", c.trace_entries_dropped),
        ("checksums", c.checksums_dropped),
        ("pending_overflow", c.pending_overflow),
        ("pending_abandoned", c.pending_abandoned),
        ("lost_at_thread_exit", c.lost_at_thread_exit),
        ("counter_values_rejected", c.counter_values_rejected),
    ];
    let mut metric = encoder.encode_descriptor(
        "dropped_records",
        "Events and records dropped or lost instead of becoming samples, by kind.",
        None,
        MetricType::Counter,
    )?;
    for (kind, n) in kinds {
        write_counter(&mut metric.encode_family(&[("kind", kind)])?, n)?;
    }
    Ok(())
}

fn run_info(encoder: &mut DescriptorEncoder, p: &Profile) -> fmt::Result {
    let r = &p.run;
    let mut facts = vec![
        ("name", r.name.clone()),
        ("pid", r.pid.to_string()),
        (
            "local_rank",
            r.local_rank.map(|l| l.to_string()).unwrap_or_default(),
        ),
        ("schema_version", p.schema_version.clone()),
        ("sync_mode", sync_mode_name(r.sync_mode).to_owned()),
    ];
    if let Some(h) = &r.hardware {
        facts.push(("hardware", h.name.clone()));
    }
    encoder
        .encode_descriptor("run", "Facts about the run.", None, MetricType::Info)?
        .encode_info(&facts)
}

/// The sync mode as saved profiles spell it.
fn sync_mode_name(mode: SyncMode) -> &'static str {
    match mode {
        SyncMode::Immediate => "immediate",
        SyncMode::PerLayer => "per_layer",
        SyncMode::Deferred => "deferred",
        SyncMode::None => "none",
    }
}
