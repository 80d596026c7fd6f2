//! Counter tracks (`profiler::counter`): one small line chart per counter
//! against time since the run's start, with its first, last, smallest and
//! largest values beside it.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use profiler_core::trace::CounterTrack;

use crate::base::escape;
use crate::base::plot::{Drawn, Frame, Rect, Svg};
use crate::base::textfmt::{int, num, si_tick};

const WIDTH: f64 = 480.0;
const HEIGHT: f64 = 210.0;
const AREA: Rect = Rect {
    x0: 62.0,
    y0: 12.0,
    x1: WIDTH - 16.0,
    y1: HEIGHT - 44.0,
};
/// Samples hovered one by one when there are this few.
const HOVERED: usize = 200;

/// A figure per counter track with samples, in a grid.
pub(crate) fn counter_charts(tracks: &[CounterTrack]) -> String {
    let mut s = String::from("<div class=\"chart-grid\">\n");
    for track in tracks.iter().filter(|t| !t.samples.is_empty()) {
        let _ = write!(
            s,
            "<figure class=\"chart-box\">\n{}<figcaption>{}</figcaption>\n</figure>\n",
            chart(track),
            caption(track)
        );
    }
    s.push_str("</div>\n");
    s
}

/// `(seconds since start, value)` of the finite samples, by time.
fn points(track: &CounterTrack) -> Vec<(f64, f64)> {
    let mut p: Vec<(f64, f64)> = track
        .samples
        .iter()
        .filter(|s| s.value.is_finite())
        .map(|s| (s.t_ns as f64 / 1e9, s.value))
        .collect();
    p.sort_by(|a, b| a.0.total_cmp(&b.0));
    p
}

fn chart(track: &CounterTrack) -> String {
    let points = points(track);
    let name = escape::visible(&track.name);
    let (t0, t1) = (
        points.first().map_or(0.0, |p| p.0),
        points.last().map_or(1.0, |p| p.0),
    );
    let (lo, hi) = points
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p.1), hi.max(p.1))
        });
    let frame = Frame::new(AREA, (t0, t1), (lo, hi));
    let mut svg = Svg::new(WIDTH, HEIGHT, "chart line-chart counter-chart", &name, "");
    frame.axes(
        &mut svg,
        ("seconds since the run started", &name),
        &|_, l| l.to_owned(),
        &|v, _| si_tick(v),
        false,
    );
    let drawn = frame.series(&mut svg, &points, f64::INFINITY, "line");
    if drawn == Drawn::Lines && points.len() <= HOVERED {
        for &(t, v) in &points {
            let (px, py) = frame.at(t, v);
            let tip = format!("{name} = {} at {} s", num(v), num(t));
            svg.circle(px, py, 2.0, "pt", Some(&tip));
        }
    }
    svg.finish()
}

/// `loss: 197 samples, first 4.17, last 0.80, min 0.78, max 4.17`, and the
/// number of threads when more than one recorded it.
fn caption(track: &CounterTrack) -> String {
    let points = points(track);
    let (lo, hi) = points
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p.1), hi.max(p.1))
        });
    let first = points.first().map_or(f64::NAN, |p| p.1);
    let last = points.last().map_or(f64::NAN, |p| p.1);
    let threads: BTreeSet<u32> = track.samples.iter().map(|s| s.thread).collect();
    let mut s = format!(
        "<strong>{}</strong>: {} samples, first {}, last {}, min {}, max {}",
        escape::html(&track.name),
        int(points.len() as u64),
        num(first),
        num(last),
        num(lo),
        num(hi)
    );
    if threads.len() > 1 {
        let _ = write!(s, "; from {} threads, drawn as one series", threads.len());
    }
    s.push('.');
    s
}

#[cfg(test)]
mod tests {
    use profiler_core::trace::CounterSample;

    use super::*;

    fn track(name: &str, values: &[f64]) -> CounterTrack {
        CounterTrack {
            name: name.to_owned(),
            samples: values
                .iter()
                .enumerate()
                .map(|(i, &value)| CounterSample {
                    t_ns: i as u64 * 1_000_000,
                    value,
                    thread: (i % 2) as u32,
                })
                .collect(),
        }
    }

    #[test]
    fn one_chart_per_counter_with_its_values() {
        let html = counter_charts(&[
            track("loss <nats>", &[4.0, 2.0, 1.0]),
            track("empty", &[]),
            track("queue", &[-1.0, 3.0]),
        ]);
        assert_eq!(html.matches("<svg").count(), 2);
        assert!(
            html.contains("<strong>loss &lt;nats&gt;</strong>: 3 samples, first 4.000, last 1.000")
        );
        assert!(html.contains("from 2 threads"));
        assert!(html.contains("<polyline"));
        assert!(
            html.contains("loss &lt;nats&gt; = 2.000 at 0.00100 s"),
            "{html}"
        );
        assert!(!html.contains("NaN") && !html.contains("inf"));
    }

    #[test]
    fn a_single_sample_is_a_dot() {
        let html = counter_charts(&[track("lr", &[0.001])]);
        assert!(html.contains("class=\"line dot\""), "{html}");
    }
}
