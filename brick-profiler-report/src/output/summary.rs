//! The two quick summaries of a [`Profile`]: the reference JSON summary
//! (field names and number formats fixed for existing tools) and a text
//! table for terminals, whose names pass through the terminal escaper.

use std::fmt::Write as _;

use profiler_core::Profile;

use crate::base::escape;

/// The reference JSON summary: `{"total_tokens", "total_ns",
/// "total_throughput", "bricks": [{"name", "count", "total_ns", "avg_us",
/// "min_us", "max_us", "throughput", "pct", "total_bytes",
/// "compression_ratio", "throughput_gbps", "bottleneck"}]}`, bricks by
/// total time descending, numbers formatted as the reference did.
#[must_use]
pub fn summary_json(profile: &Profile) -> String {
    let total_ns = profile.total_ns();
    let bricks: Vec<String> = profile
        .bricks
        .iter()
        .map(|b| {
            format!(
                r#"{{"name":{},"count":{},"total_ns":{},"avg_us":{:.2},"min_us":{:.2},"max_us":{:.2},"throughput":{:.1},"pct":{:.1},"total_bytes":{},"compression_ratio":{:.2},"throughput_gbps":{:.2},"bottleneck":"{}"}}"#,
                serde_json::Value::from(b.name.as_str()),
                b.count,
                b.total_ns,
                b.avg_us(),
                b.min_us(),
                b.max_us(),
                b.throughput(),
                b.percentage(total_ns),
                b.total_bytes,
                b.compression_ratio(),
                b.throughput_gbps(),
                b.bottleneck,
            )
        })
        .collect();
    format!(
        r#"{{"total_tokens":{},"total_ns":{},"total_throughput":{:.1},"bricks":[{}]}}"#,
        profile.total_tokens(),
        total_ns,
        profile.total_throughput(),
        bricks.join(",")
    )
}

/// A terminal table: bricks by total time descending (count, total,
/// mean, p50, p99, share, throughput), then the category breakdown and
/// any lost or pending records.
#[must_use]
pub fn summary_text(profile: &Profile) -> String {
    let total_ns = profile.total_ns();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "=== Brick profile: {} ===\nTotal: {} elements in {:.3} ms of brick time ({:.1} elements/s)",
        escape::visible(&profile.run.name),
        profile.total_tokens(),
        total_ns as f64 / 1e6,
        profile.total_throughput()
    );
    let names: Vec<_> = profile
        .bricks
        .iter()
        .map(|b| escape::visible(&b.name))
        .collect();
    let width = names
        .iter()
        .map(|name| name.chars().count())
        .max()
        .unwrap_or(5)
        .max(5);
    let _ = writeln!(
        out,
        "\n{:<width$}  {:>9}  {:>11}  {:>10}  {:>10}  {:>10}  {:>6}",
        "Brick", "Count", "Total ms", "Mean µs", "p50 µs", "p99 µs", "Share"
    );
    for (b, name) in profile.bricks.iter().zip(&names) {
        let _ = writeln!(
            out,
            "{:<width$}  {:>9}  {:>11.3}  {:>10.2}  {:>10.2}  {:>10.2}  {:>5.1}%",
            name,
            b.count,
            b.total_ns as f64 / 1e6,
            b.avg_us(),
            b.p50_us(),
            b.p99_us(),
            b.percentage(total_ns)
        );
    }
    let categories: Vec<_> = profile
        .categories
        .iter()
        .filter(|c| c.stats.count > 0)
        .collect();
    if !categories.is_empty() {
        out.push_str("\nCategory breakdown:\n");
        for c in categories {
            let _ = writeln!(
                out,
                "  {:<10} {:>10.2} µs mean  {:>5.1}%  [{} samples]",
                c.category.name(),
                c.stats.avg_us(),
                c.stats.percentage(total_ns),
                c.stats.count
            );
        }
    }
    if let Some(o) = profile.run.overhead {
        let _ = writeln!(
            out,
            "\nProfiler overhead: {:.1} ns per call, {:.1} ns floor per sample{}",
            o.per_call_ns,
            o.floor_ns,
            if o.subtracted { " (subtracted)" } else { "" }
        );
    }
    for warning in profile.counters.warnings() {
        let _ = writeln!(out, "warning: {warning}");
    }
    out
}

#[cfg(test)]
mod tests {
    use profiler_core::profile::CategoryEntry;
    use profiler_core::{BrickCategory, BrickStats, Profile};

    use super::{summary_json, summary_text};

    fn profile() -> Profile {
        let mut p = Profile::empty();
        p.run.name = "test".into();
        p.bricks = vec![
            BrickStats {
                count: 10,
                total_ns: 3_000_000,
                min_ns: 200_000,
                max_ns: 400_000,
                total_elements: 10,
                total_bytes: 3_000_000,
                ..BrickStats::new("LmHead", BrickCategory::Other)
            },
            BrickStats {
                count: 20,
                total_ns: 1_000_000,
                min_ns: 40_000,
                max_ns: 60_000,
                total_elements: 20,
                ..BrickStats::new("Name \"quoted\"", BrickCategory::Norm)
            },
        ];
        p.categories = CategoryEntry::all_of(&p.bricks);
        p
    }

    #[test]
    fn summary_json_matches_the_reference_layout() {
        let json = summary_json(&profile());
        assert_eq!(
            json,
            r#"{"total_tokens":30,"total_ns":4000000,"total_throughput":7500.0,"bricks":[{"name":"LmHead","count":10,"total_ns":3000000,"avg_us":300.00,"min_us":200.00,"max_us":400.00,"throughput":3333.3,"pct":75.0,"total_bytes":3000000,"compression_ratio":1.00,"throughput_gbps":1.00,"bottleneck":"unknown"},{"name":"Name \"quoted\"","count":20,"total_ns":1000000,"avg_us":50.00,"min_us":40.00,"max_us":60.00,"throughput":20000.0,"pct":25.0,"total_bytes":0,"compression_ratio":1.00,"throughput_gbps":0.00,"bottleneck":"unknown"}]}"#
        );
        let parsed: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
        assert_eq!(parsed["bricks"][1]["name"], "Name \"quoted\"");
    }

    #[test]
    fn summary_text_orders_bricks_and_lists_categories() {
        let text = summary_text(&profile());
        let head = text.find("LmHead").expect("LmHead row");
        let second = text.find("Name \"quoted\"").expect("second row");
        assert!(head < second, "{text}");
        assert!(text.contains("Category breakdown:"));
        assert!(text.contains("Other"));
        assert!(text.contains(" 75.0%"));
        assert!(!text.contains("warning"));
    }

    #[test]
    fn summary_text_shows_lost_records() {
        let mut p = profile();
        p.counters.pending_overflow = 3;
        assert!(summary_text(&p).contains("warning: 3 deferred records dropped"));
    }

    #[test]
    fn summary_text_keeps_hostile_names_on_their_row() {
        let mut p = profile();
        p.run.name = "run\x1b[2J".into();
        p.bricks[0].name = "Evil\u{202e}\nName".into();
        let text = summary_text(&p);
        assert!(
            text.starts_with("=== Brick profile: run\\x1b[2J ===\n"),
            "{text}"
        );
        let row = text
            .lines()
            .find(|l| l.starts_with("Evil"))
            .expect("the brick's row");
        assert!(row.starts_with("Evil\\u{202e}\\nName  "), "{row}");
        assert!(row.ends_with("75.0%"), "{row}");
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{202e}'),
            "{text}"
        );
    }
}
