//! Step time and throughput against step index: one line chart each, with
//! the median, the p50–p90 band (p10–p50 for throughput, where slow is
//! low), the slow steps marked, and the steps the schedule left out (the
//! warm-up before the first recorded step, and every gap) shaded.

use profiler_core::{Schedule, profile::StepSummary};

use crate::base::plot::{Anchor, Drawn, Frame, Rect, Svg, quantile};
use crate::base::textfmt::{int, num, si, si_tick};

const WIDTH: f64 = 860.0;
const HEIGHT: f64 = 230.0;
const AREA: Rect = Rect {
    x0: 64.0,
    y0: 14.0,
    x1: WIDTH - 140.0,
    y1: HEIGHT - 44.0,
};
/// Steps hovered one by one when there are this few; above it only the
/// slowest are marked.
const ALL_POINTS: usize = 400;
/// Slow steps marked at most.
const MARKED: usize = 300;

/// The recorded steps as the charts read them.
pub(crate) struct StepSeries {
    /// `(step index, ms)`.
    pub(crate) ms: Vec<(f64, f64)>,
    /// `(step index, tokens per second)`, where tokens were recorded.
    pub(crate) tok_s: Vec<(f64, f64)>,
    /// Whether indices came from the profile (else: positions).
    pub(crate) indexed: bool,
    /// Step ranges left out, `(first, last, what)`.
    pub(crate) left_out: Vec<(u64, u64, String)>,
}

impl StepSeries {
    /// The series of `steps`, or `None` without step samples.
    pub(crate) fn of(steps: &StepSummary) -> Option<Self> {
        let n = steps.samples_ns.len();
        if n == 0 {
            return None;
        }
        let indexed = steps.samples_index.len() == n;
        let index = |i: usize| {
            if indexed {
                steps.samples_index[i]
            } else {
                i as u64
            }
        };
        let ms = (0..n)
            .map(|i| (index(i) as f64, steps.samples_ns[i] as f64 / 1e6))
            .collect();
        let tok_s = if steps.samples_tokens.len() == n {
            (0..n)
                .filter(|&i| steps.samples_ns[i] > 0 && steps.samples_tokens[i] > 0)
                .map(|i| {
                    let t = steps.samples_tokens[i] as f64 / (steps.samples_ns[i] as f64 / 1e9);
                    (index(i) as f64, t)
                })
                .collect()
        } else {
            Vec::new()
        };
        let mut left_out = Vec::new();
        if indexed {
            let mut next = 0u64;
            for &i in &steps.samples_index {
                if i > next {
                    left_out.push((next, i - 1, why(steps.schedule.as_ref(), next, i - 1)));
                }
                next = i.saturating_add(1);
            }
        }
        Some(Self {
            ms,
            tok_s,
            indexed,
            left_out,
        })
    }
}

/// What the schedule did with steps `first..=last`: `warm-up`, `wait`,
/// both, or just "not recorded" when there is no schedule to say.
fn why(schedule: Option<&Schedule>, first: u64, last: u64) -> String {
    let Some(s) = schedule else {
        return "not recorded".to_owned();
    };
    let cycle = s.wait.saturating_add(s.warmup).saturating_add(s.active);
    let role = |i: u64| {
        if cycle == 0 || s.active == 0 || (s.repeat > 0 && i / cycle >= s.repeat) {
            "after the schedule ended"
        } else if i % cycle < s.wait {
            "wait"
        } else if i % cycle < s.wait.saturating_add(s.warmup) {
            "warm-up"
        } else {
            "not recorded"
        }
    };
    // A gap is one or two roles (wait then warm-up): its ends say which.
    let (a, b) = (role(first), role(last));
    if a == b {
        a.to_owned()
    } else {
        format!("{a} and {b}")
    }
}

/// `first–last` or `N`.
fn steps_text(first: u64, last: u64) -> String {
    if first == last {
        format!("step {first}")
    } else {
        format!("steps {first}–{last} ({} steps)", int(last - first + 1))
    }
}

/// Which side of the band is slow.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Slow {
    High,
    Low,
}

/// One chart: the series, its median and band, slow steps marked.
fn chart(
    series: &StepSeries,
    points: &[(f64, f64)],
    (label, unit): (&str, &str),
    slow: Slow,
    fmt: fn(f64) -> String,
) -> String {
    let mut sorted: Vec<f64> = points.iter().map(|p| p.1).collect();
    sorted.sort_by(f64::total_cmp);
    let q = |p: f64| quantile(&sorted, p).unwrap_or(0.0);
    let (p50, edge, edge_name) = match slow {
        Slow::High => (q(0.5), q(0.9), "p90"),
        Slow::Low => (q(0.5), q(0.1), "p10"),
    };
    let refs = Reference {
        slow,
        p50,
        edge,
        edge_name,
        unit,
        fmt,
    };
    let x_last = points.last().map_or(0.0, |p| p.0);
    let y_max = sorted.last().copied().unwrap_or(1.0);
    let frame = Frame::new(AREA, (0.0, x_last.max(1.0)), (0.0, y_max));
    let title = format!("{label}, {unit}");
    let mut svg = Svg::new(WIDTH, HEIGHT, "chart line-chart", &title, "");
    left_out(&mut svg, &frame, series, slow);
    let x_label = if series.indexed {
        "step index"
    } else {
        "recorded step (position; the file has no step indices)"
    };
    frame.axes(
        &mut svg,
        (x_label, &title),
        &|_, l| l.to_owned(),
        &|v, l| {
            if unit == "tok/s" {
                si_tick(v)
            } else {
                l.to_owned()
            }
        },
        true,
    );
    refs.band(&mut svg, &frame);
    let drawn = frame.series(&mut svg, points, 1.0, "line");
    refs.lines(&mut svg, &frame);
    refs.mark(&mut svg, &frame, points, drawn);
    svg.finish()
}

/// The steps left out of the profile, shaded, the warm-up and wide gaps
/// named.
fn left_out(svg: &mut Svg, frame: &Frame, series: &StepSeries, slow: Slow) {
    for (k, (first, last, what)) in series.left_out.iter().enumerate() {
        let tip = format!(
            "{}: {what}, left out of the profile",
            steps_text(*first, *last)
        );
        let span = (*first as f64 - 0.5, *last as f64 + 0.5);
        frame.x_span(svg, span, "left-out", &tip);
        // Named in the plot, on the side slow steps do not reach (the
        // bottom of step time, the top of throughput): the warm-up before
        // the first step, and any gap wide enough to hold its name.
        let (p0, p1) = (frame.x.px(span.0.max(0.0)), frame.x.px(span.1));
        let y = match slow {
            Slow::High => AREA.y1 - 6.0,
            Slow::Low => AREA.y0 + 12.0,
        };
        if k == 0 && *first == 0 {
            svg.text(p1 + 4.0, y, Anchor::Start, "left-out-label", what);
        } else if p1 - p0 > 8.0 * what.len() as f64 {
            svg.text((p0 + p1) / 2.0, y, Anchor::Middle, "left-out-label", what);
        }
    }
}

/// A chart's reference values: the median, the edge slow steps pass, and
/// how values are written.
struct Reference<'a> {
    /// Which side is slow.
    slow: Slow,
    /// The median.
    p50: f64,
    /// The p90 (step time) or p10 (throughput).
    edge: f64,
    /// `p90` or `p10`.
    edge_name: &'a str,
    /// The values' unit.
    unit: &'a str,
    /// How a value is written.
    fmt: fn(f64) -> String,
}

impl Reference<'_> {
    /// Whether `v` is past the edge, on the slow side.
    fn is_slow(&self, v: f64) -> bool {
        match self.slow {
            Slow::High => v > self.edge,
            Slow::Low => v < self.edge,
        }
    }

    /// The band between the median and the edge.
    fn band(&self, svg: &mut Svg, frame: &Frame) {
        let (p50, edge, unit, fmt) = (self.p50, self.edge, self.unit, self.fmt);
        let band = (p50.min(edge), p50.max(edge));
        let band_name = match self.slow {
            Slow::High => "p50–p90",
            Slow::Low => "p10–p50",
        };
        let band_tip = format!("{band_name} band: {} – {} {unit}", fmt(band.0), fmt(band.1));
        frame.y_band(svg, band, "band", &band_tip);
    }

    /// The median and edge lines, labelled.
    fn lines(&self, svg: &mut Svg, frame: &Frame) {
        let (p50, edge, unit, fmt) = (self.p50, self.edge, self.unit, self.fmt);
        // Upper line first, so equal values keep their labels in value order.
        let median = (p50, "ref median", format!("p50 {} {unit}", fmt(p50)));
        let edge_line = (
            edge,
            "ref edge",
            format!("{} {} {unit}", self.edge_name, fmt(edge)),
        );
        let lines = match self.slow {
            Slow::High => [edge_line, median],
            Slow::Low => [median, edge_line],
        };
        frame.y_lines(svg, &lines);
    }

    /// Hover targets: every step when few, else the slowest ones.
    fn mark(&self, svg: &mut Svg, frame: &Frame, points: &[(f64, f64)], drawn: Drawn) {
        let (p50, unit, fmt) = (self.p50, self.unit, self.fmt);
        let mut marked: Vec<&(f64, f64)> = if points.len() <= ALL_POINTS && drawn == Drawn::Lines {
            points.iter().collect()
        } else {
            points.iter().filter(|p| self.is_slow(p.1)).collect()
        };
        if marked.len() > MARKED {
            marked.sort_by(|a, b| match self.slow {
                Slow::High => b.1.total_cmp(&a.1),
                Slow::Low => a.1.total_cmp(&b.1),
            });
            marked.truncate(MARKED);
        }
        for &&(x, v) in &marked {
            let (px, py) = frame.at(x, v);
            let ratio = if p50 > 0.0 { v / p50 } else { f64::NAN };
            let tip = format!(
                "step {}: {} {unit} ({}× the median)",
                x as u64,
                fmt(v),
                num(ratio)
            );
            let class = if self.is_slow(v) { "spike" } else { "pt" };
            svg.circle(
                px,
                py,
                if self.is_slow(v) { 2.6 } else { 2.0 },
                class,
                Some(&tip),
            );
        }
    }
}

/// The step-time chart and, with tokens, the throughput chart.
pub(crate) fn step_charts(series: &StepSeries) -> String {
    let mut s = chart(series, &series.ms, ("Step time", "ms"), Slow::High, num);
    if !series.tok_s.is_empty() {
        s.push_str(&chart(
            series,
            &series.tok_s,
            ("Throughput", "tok/s"),
            Slow::Low,
            si,
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(ns: &[u64], index: &[u64]) -> StepSummary {
        StepSummary {
            count: ns.len() as u64,
            samples_ns: ns.to_vec(),
            samples_index: index.to_vec(),
            samples_tokens: vec![1_000; ns.len()],
            schedule: Some(Schedule {
                wait: 1,
                warmup: 2,
                active: 3,
                repeat: 0,
            }),
            ..StepSummary::default()
        }
    }

    #[test]
    fn gaps_and_the_warm_up_are_named_by_the_schedule() {
        let s = StepSeries::of(&steps(&[1, 2, 3, 4, 5, 6], &[3, 4, 5, 9, 10, 11])).unwrap();
        assert_eq!(
            s.left_out,
            [
                (0, 2, "wait and warm-up".to_owned()),
                (6, 8, "wait and warm-up".to_owned())
            ]
        );
        let warm = StepSeries::of(&StepSummary {
            schedule: Some(Schedule::skip_warmup(3)),
            ..steps(&[1], &[3])
        })
        .unwrap();
        assert_eq!(warm.left_out, [(0, 2, "warm-up".to_owned())]);
        assert_eq!(why(None, 0, 1), "not recorded");
    }

    #[test]
    fn charts_mark_the_spike_and_the_left_out_steps() {
        let mut ns = vec![10_000_000; 50];
        ns[20] = 90_000_000;
        let index: Vec<u64> = (3..53).collect();
        let s = StepSeries::of(&steps(&ns, &index)).unwrap();
        assert_eq!(s.tok_s.len(), 50);
        let svg = step_charts(&s);
        assert_eq!(svg.matches("<svg").count(), 2, "step time and tok/s");
        assert!(
            svg.contains("<title>steps 0–2 (3 steps): wait and warm-up"),
            "{svg}"
        );
        assert!(
            svg.contains("step 23: 90.00 ms (9.000× the median)"),
            "{svg}"
        );
        assert!(svg.contains(">p50 10.00 ms</text>"), "{svg}");
        assert!(
            svg.contains(">wait and warm-up</text>"),
            "the warm-up is named: {svg}"
        );
        assert!(!svg.contains("NaN"));
    }

    #[test]
    fn files_without_indices_use_positions_and_say_so() {
        let s = StepSeries::of(&StepSummary {
            samples_ns: vec![5, 6],
            ..StepSummary::default()
        })
        .unwrap();
        assert!(!s.indexed && s.tok_s.is_empty() && s.left_out.is_empty());
        let svg = step_charts(&s);
        assert_eq!(svg.matches("<svg").count(), 1);
        assert!(svg.contains("the file has no step indices"));
        assert!(StepSeries::of(&StepSummary::default()).is_none());
    }
}
