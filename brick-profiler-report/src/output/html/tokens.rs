//! The token-latency section of a generation run: TTFT, TPOT and ITL as
//! distributions on one logarithmic time axis (the brick latency chart,
//! each latency read as the calls of a row named after it), with their
//! percentiles beside each row.

use profiler_core::profile::GenerationLog;
use profiler_core::stats::{HistBucket, LatencyHistogram};
use profiler_core::{BrickCategory, BrickStats, Profile};

use super::latency::distribution_chart;
use super::parts::note;
use crate::analysis::scorecard::token_latencies;

/// The section body: the chart, or a note saying how to get one.
pub(crate) fn token_latency(profile: &Profile) -> String {
    let rows: Vec<BrickStats> = token_latencies(profile)
        .into_iter()
        .filter_map(|(name, ms)| row(name, &ms))
        .collect();
    let refs: Vec<&BrickStats> = rows.iter().collect();
    let chart = distribution_chart(
        &refs,
        "Token latencies: time to first token, time per output token, inter-token latency (log scale)",
        "latency (log scale)",
    );
    let Some(svg) = chart else {
        return note(
            "No prefill or decode phases recorded. Wrap the prompt pass in \
             <code>profiler::phase(\"prefill\")</code> and each generated token in \
             <code>profiler::phase(\"decode\")</code>, each inside a \
             <code>profiler::step(tokens)</code>.",
        );
    };
    format!(
        "<figure class=\"chart-box\">\n{svg}<figcaption>TTFT per request (the prefill phase), \
         TPOT per request ((last token - first token) / (tokens - 1)) and ITL per token gap, on \
         one logarithmic axis; marks are p50, p90, p99 and the slowest.</figcaption>\n</figure>\n"
    )
}

/// Whether the profile generated tokens, so the section is worth a place.
pub(crate) fn generated(log: &GenerationLog) -> bool {
    !log.is_empty()
}

/// A distribution of `ms` samples as the calls of a brick named `name`,
/// one exact bucket per distinct nanosecond value.
fn row(name: &str, ms: &[f64]) -> Option<BrickStats> {
    let mut ns: Vec<u64> = ms
        .iter()
        .map(|m| (m * 1e6).round().max(1.0) as u64)
        .collect();
    ns.sort_unstable();
    let mut b = BrickStats::new(name, BrickCategory::Other);
    b.count = ns.len() as u64;
    b.total_ns = ns.iter().sum();
    b.min_ns = *ns.first()?;
    b.max_ns = *ns.last()?;
    let mut buckets: Vec<HistBucket> = Vec::new();
    for v in ns {
        match buckets.last_mut() {
            Some(last) if last.lo_ns == v => last.count += 1,
            _ => buckets.push(HistBucket {
                lo_ns: v,
                hi_ns: v + 1,
                count: 1,
            }),
        }
    }
    b.latency = LatencyHistogram { buckets };
    Some(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_become_exact_buckets_with_exact_percentiles() {
        let b = row("ITL", &[2.0, 1.0, 2.0, 3.0]).unwrap();
        assert_eq!(b.count, 4);
        assert_eq!((b.min_ns, b.max_ns), (1_000_000, 3_000_000));
        assert_eq!(b.latency.buckets.len(), 3);
        assert_eq!(b.percentile_ns(0.5), 2_000_000);
        assert!(row("TTFT", &[]).is_none());
    }
}
