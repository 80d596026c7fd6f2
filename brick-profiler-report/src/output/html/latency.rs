//! Per-call latency of the bricks with the most time: one row per brick on
//! a shared logarithmic time axis, the histogram as bars and p50, p90, p99
//! and the maximum as marks, so a bimodal kernel or a long tail shows at a
//! glance, with the numbers beside each row.

use profiler_core::{BrickStats, Profile};

use super::parts::sorted_bricks;
use crate::base::escape;
use crate::base::plot::{Anchor, LogAxis, Svg};
use crate::base::textfmt::{cut, duration};

/// Bricks shown.
pub(crate) const TOP: usize = 12;
/// Histogram bins per decade of time.
const BINS_PER_DECADE: f64 = 20.0;
const WIDTH: f64 = 820.0;
const LEFT: f64 = 176.0;
const RIGHT: f64 = 178.0;
const TOP_PAD: f64 = 30.0;
const ROW: f64 = 32.0;
const BOTTOM: f64 = 42.0;
/// Longest name drawn in full; longer ones are cut (the tooltip has all).
const NAME_CHARS: usize = 26;

/// The bricks the chart shows: the most total time first, with samples
/// and a histogram.
pub(crate) fn shown(profile: &Profile) -> Vec<&BrickStats> {
    sorted_bricks(profile)
        .into_iter()
        .filter(|b| b.count > 0 && b.max_ns > 0 && !b.latency.buckets.is_empty())
        .take(TOP)
        .collect()
}

/// Bin of a bucket: its geometric middle (the middle of a bucket starting
/// at 0 is taken at half its upper bound).
fn bin(lo_ns: u64, hi_ns: u64) -> i64 {
    let mid = if lo_ns == 0 {
        hi_ns as f64 / 2.0
    } else {
        (lo_ns as f64 * hi_ns as f64).sqrt()
    };
    (mid.max(1.0).log10() * BINS_PER_DECADE).floor() as i64
}

/// `(bin, calls)` of a brick, ascending.
fn bins(b: &BrickStats) -> Vec<(i64, u64)> {
    let mut out: Vec<(i64, u64)> = Vec::new();
    for bucket in &b.latency.buckets {
        let k = bin(bucket.lo_ns, bucket.hi_ns);
        match out.last_mut() {
            Some((last, n)) if *last == k => *n = n.saturating_add(bucket.count),
            _ => out.push((k, bucket.count)),
        }
    }
    out
}

/// A decade of ns in its unit: `100 ns`, `1 µs`, `10 ms`, `1 s`.
fn decade(ns: f64) -> String {
    // Decades of an axis are exact powers of ten.
    let e = ns.log10().round() as i32;
    if e >= 0 {
        return duration(10f64.powi(e));
    }
    // Below a nanosecond the shared formatter shows whole nanoseconds.
    format!("{} ns", 10f64.powi(e))
}

/// The chart of `bricks` (see [`shown`]); `None` when there is none.
pub(crate) fn latency_chart(bricks: &[&BrickStats]) -> Option<String> {
    distribution_chart(
        bricks,
        "Per-call time of the bricks with the most total time (log scale)",
        "time per call (log scale)",
    )
}

/// One row per distribution in `rows` (bricks, or token latencies read as
/// the calls of a brick named after them), titled `label`, its time axis
/// named `axis_label`; `None` when there is none.
pub(crate) fn distribution_chart(
    bricks: &[&BrickStats],
    label: &str,
    axis_label: &str,
) -> Option<String> {
    let lo = bricks.iter().map(|b| b.min_ns.max(1)).min()?;
    let hi = bricks.iter().map(|b| b.max_ns).max()?;
    let height = TOP_PAD + ROW * bricks.len() as f64 + BOTTOM;
    let x = LogAxis::covering(lo as f64, hi as f64, 1, LEFT, WIDTH - RIGHT);
    let mut svg = Svg::new(WIDTH, height, "chart latency-chart", label, "");
    axis(&mut svg, &x, height, axis_label);
    legend(&mut svg);
    for (row, b) in bricks.iter().enumerate() {
        brick_row(&mut svg, &x, TOP_PAD + ROW * row as f64, b);
    }
    Some(svg.finish())
}

/// Grid and axis: every decade labelled in its unit, 2x and 5x faint.
fn axis(svg: &mut Svg, x: &LogAxis, height: f64, axis_label: &str) {
    let plot_bottom = height - BOTTOM;
    for v in x.minor() {
        if x.contains(v) {
            svg.line(x.px(v), TOP_PAD, x.px(v), plot_bottom, "grid minor");
        }
    }
    for (v, _) in x.decades() {
        let px = x.px(v);
        svg.line(px, TOP_PAD, px, plot_bottom, "grid");
        svg.text(px, plot_bottom + 16.0, Anchor::Middle, "tick", &decade(v));
    }
    svg.line(LEFT, plot_bottom, WIDTH - RIGHT, plot_bottom, "axis");
    svg.text(
        (LEFT + WIDTH - RIGHT) / 2.0,
        height - 6.0,
        Anchor::Middle,
        "axis-label",
        axis_label,
    );
}

/// One brick's row at `top`: its name, histogram, percentile marks and
/// their values.
fn brick_row(svg: &mut Svg, x: &LogAxis, top: f64, b: &BrickStats) {
    let base = top + ROW - 4.0;
    let name = escape::visible(&b.name);
    svg.open_group("brick-row", Some(name.as_ref()));
    svg.text(
        LEFT - 8.0,
        top + ROW / 2.0 + 4.0,
        Anchor::End,
        "name",
        &cut(&name, NAME_CHARS),
    );
    let bins = bins(b);
    let tallest = bins.iter().map(|x| x.1).max().unwrap_or(1).max(1);
    for &(k, calls) in &bins {
        let (b0, b1) = (
            10f64.powf(k as f64 / BINS_PER_DECADE),
            10f64.powf((k + 1) as f64 / BINS_PER_DECADE),
        );
        // Every non-empty bin shows, however rare.
        let h = (calls as f64 / tallest as f64 * (ROW - 8.0)).max(1.5);
        let (p0, p1) = (x.px(b0), x.px(b1));
        let tip = format!(
            "{} – {}: {} calls ({:.1}%)",
            duration(b0),
            duration(b1),
            calls,
            100.0 * calls as f64 / b.count.max(1) as f64
        );
        svg.rect(p0, base - h, (p1 - p0 - 0.6).max(0.8), h, "bin", Some(&tip));
    }
    marks(svg, x, top, b);
    svg.close_group();
}

/// A brick's p50, p90, p99 and maximum: marks on its row, values beside it.
fn marks(svg: &mut Svg, x: &LogAxis, top: f64, b: &BrickStats) {
    let marks = [
        ("p50", b.percentile_ns(0.5)),
        ("p90", b.percentile_ns(0.9)),
        ("p99", b.percentile_ns(0.99)),
        ("max", b.max_ns),
    ];
    for (class, ns) in marks {
        let px = x.px(ns.max(1) as f64);
        let tip = format!("{class}: {}", duration(ns as f64));
        svg.rect(
            px - 1.0,
            top + 2.0,
            2.0,
            ROW - 6.0,
            &format!("mark {class}"),
            Some(&tip),
        );
    }
    // Two lines beside the row: p50 and p90, then p99 and the maximum.
    for (line, pair) in marks.chunks(2).enumerate() {
        let text = pair
            .iter()
            .map(|(name, ns)| format!("{name} {}", duration(*ns as f64)))
            .collect::<Vec<_>>()
            .join("  ");
        let y = top + 13.0 + 13.0 * line as f64;
        svg.text(WIDTH - RIGHT + 10.0, y, Anchor::Start, "numbers", &text);
    }
}

/// What the bars and marks mean, above the plot.
fn legend(svg: &mut Svg) {
    let mut x = LEFT;
    svg.rect(x, 8.0, 10.0, 10.0, "bin", None);
    svg.text(
        x + 14.0,
        17.0,
        Anchor::Start,
        "legend",
        "calls per time bin",
    );
    x += 140.0;
    for (class, text) in [
        ("p50", "p50"),
        ("p90", "p90"),
        ("p99", "p99"),
        ("max", "max"),
    ] {
        svg.rect(x, 6.0, 2.0, 14.0, &format!("mark {class}"), None);
        svg.text(x + 6.0, 17.0, Anchor::Start, "legend", text);
        x += 52.0;
    }
}

#[cfg(test)]
mod tests {
    use profiler_core::BrickCategory;
    use profiler_core::stats::{HistBucket, LatencyHistogram};

    use super::*;

    fn brick(name: &str, buckets: &[(u64, u64, u64)]) -> BrickStats {
        let mut b = BrickStats::new(name, BrickCategory::Other);
        b.count = buckets.iter().map(|x| x.2).sum();
        b.total_ns = 1;
        b.min_ns = buckets.first().map_or(0, |x| x.0);
        b.max_ns = buckets.last().map_or(0, |x| x.1 - 1);
        b.latency = LatencyHistogram {
            buckets: buckets
                .iter()
                .map(|&(lo_ns, hi_ns, count)| HistBucket {
                    lo_ns,
                    hi_ns,
                    count,
                })
                .collect(),
        };
        b
    }

    #[test]
    fn a_bimodal_brick_shows_two_groups_of_bars() {
        // 900 calls near 10 µs, 100 near 1 ms.
        let b = brick(
            "Bimodal<&>",
            &[(10_000, 10_500, 900), (1_000_000, 1_050_000, 100)],
        );
        let bins = bins(&b);
        assert_eq!(bins.len(), 2);
        assert!(bins[1].0 - bins[0].0 >= 2 * BINS_PER_DECADE as i64 - 1);
        let svg = latency_chart(&[&b]).unwrap();
        assert_eq!(
            svg.matches("class=\"bin\"").count(),
            3,
            "two bins and the legend"
        );
        assert!(svg.contains("90.0%") && svg.contains("10.0%"), "{svg}");
        assert!(svg.contains(">Bimodal&lt;&amp;&gt;</text>"), "{svg}");
        // p50 in the first group, p99 and the maximum in the second.
        assert!(svg.contains("<title>p50: 10."), "{svg}");
        assert!(svg.contains("<title>p99: 1.0"), "{svg}");
    }

    #[test]
    fn decades_are_labelled_and_empty_profiles_draw_nothing() {
        assert_eq!(decade(1e2), "100 ns");
        assert_eq!(decade(1e3), "1 µs");
        assert_eq!(decade(1e7), "10 ms");
        assert_eq!(decade(1e10), "10 s");
        assert!(latency_chart(&[]).is_none());
        assert!(shown(&Profile::empty()).is_empty());
    }
}
