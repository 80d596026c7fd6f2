//! [`Frame`]: the plot area of an x/y chart on two linear axes, with the
//! pieces line charts are made of: grid and tick labels, shaded x spans
//! (steps left out), horizontal bands and reference lines with their
//! labels, and series drawn as broken lines or, when denser than the
//! pixels, as a min/max envelope.

use super::axis::LinearAxis;
use super::labels::Rect;
use super::series::{columns, runs};
use super::svg::{Anchor, Svg};

/// A plot area and the axes that map data onto it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Frame {
    /// The plot area, px.
    pub(crate) area: Rect,
    /// Horizontal axis.
    pub(crate) x: LinearAxis,
    /// Vertical axis (upwards).
    pub(crate) y: LinearAxis,
}

/// How a series was drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Drawn {
    /// One line per run of points.
    Lines,
    /// A min/max band per pixel column: more points than pixels.
    Envelope,
}

impl Frame {
    /// A frame over `area` whose axes cover the data spans `x` and `y`.
    pub(crate) fn new(area: Rect, x: (f64, f64), y: (f64, f64)) -> Self {
        Self {
            area,
            x: LinearAxis::between(x.0, x.1, area.x0, area.x1),
            y: LinearAxis::between(y.0, y.1, area.y1, area.y0),
        }
    }

    /// Pixel of a data point.
    pub(crate) fn at(&self, x: f64, y: f64) -> (f64, f64) {
        (self.x.px(x), self.y.px(y))
    }

    /// Grid lines, axes, tick labels and axis labels. `x_tick` and
    /// `y_tick` format a tick from its value and its plain label (as many
    /// decimals as the step needs); `integer_x` keeps only whole x ticks,
    /// for indices.
    pub(crate) fn axes(
        &self,
        svg: &mut Svg,
        (x_label, y_label): (&str, &str),
        x_tick: &dyn Fn(f64, &str) -> String,
        y_tick: &dyn Fn(f64, &str) -> String,
        integer_x: bool,
    ) {
        let a = self.area;
        for (v, label) in self.y.ticks() {
            let py = self.y.px(v);
            svg.line(a.x0, py, a.x1, py, "grid");
            svg.text(
                a.x0 - 6.0,
                py + 4.0,
                Anchor::End,
                "tick",
                &y_tick(v, &label),
            );
        }
        for (v, label) in self.x.ticks() {
            if integer_x && v.fract() != 0.0 {
                continue;
            }
            let px = self.x.px(v);
            svg.line(px, a.y1, px, a.y1 + 4.0, "axis");
            svg.text(px, a.y1 + 16.0, Anchor::Middle, "tick", &x_tick(v, &label));
        }
        svg.line(a.x0, a.y1, a.x1, a.y1, "axis");
        svg.line(a.x0, a.y0, a.x0, a.y1, "axis");
        svg.text(
            (a.x0 + a.x1) / 2.0,
            a.y1 + 32.0,
            Anchor::Middle,
            "axis-label",
            x_label,
        );
        svg.text_rotated(14.0, (a.y0 + a.y1) / 2.0, -90.0, "axis-label", y_label);
    }

    /// A shaded full-height span from `x0` to `x1` (data units, clipped to
    /// the axis), with a tooltip.
    pub(crate) fn x_span(&self, svg: &mut Svg, (x0, x1): (f64, f64), class: &str, tip: &str) {
        let clip = |v: f64| v.clamp(self.x.min(), self.x.max());
        let (p0, p1) = (self.x.px(clip(x0)), self.x.px(clip(x1)));
        // At least a pixel wide, so a single left-out step stays visible.
        let w = (p1 - p0).max(1.0);
        let a = self.area;
        svg.rect(p0, a.y0, w, a.y1 - a.y0, class, Some(tip));
    }

    /// A full-width band between two y values, with a tooltip.
    pub(crate) fn y_band(&self, svg: &mut Svg, (y0, y1): (f64, f64), class: &str, tip: &str) {
        let (p0, p1) = (self.y.px(y0.max(y1)), self.y.px(y0.min(y1)));
        let a = self.area;
        svg.rect(a.x0, p0, a.x1 - a.x0, p1 - p0, class, Some(tip));
    }

    /// Full-width reference lines `(y, class, label)`, each labelled just
    /// outside the plot's right edge (the caller keeps room there); labels
    /// of lines closer than a text line are moved apart, keeping their order.
    pub(crate) fn y_lines(&self, svg: &mut Svg, lines: &[(f64, &str, String)]) {
        const LINE_H: f64 = 15.0;
        let a = self.area;
        let mut placed: Vec<(f64, f64, &str, &str)> = lines
            .iter()
            .map(|(y, class, label)| {
                let py = self.y.px(*y);
                (py, py, *class, label.as_str())
            })
            .collect();
        placed.sort_by(|l, r| l.0.total_cmp(&r.0));
        // Push each label down below the one above it, then the whole
        // stack back up so it stays centred on the lines.
        for i in 1..placed.len() {
            placed[i].1 = placed[i].1.max(placed[i - 1].1 + LINE_H);
        }
        let pushed = placed.iter().map(|p| p.1 - p.0).fold(0.0, f64::max);
        placed.iter_mut().for_each(|p| p.1 -= pushed / 2.0);
        for (py, label_y, class, label) in placed {
            svg.line(a.x0, py, a.x1, py, class);
            svg.text(a.x1 + 6.0, label_y + 4.0, Anchor::Start, class, label);
        }
    }

    /// Draws `points` (sorted by x): lines broken wherever x grows by more
    /// than `max_step`, a dot for a point standing alone, or, with more
    /// points than half the plot's pixels, one min/max column per pixel.
    pub(crate) fn series(
        &self,
        svg: &mut Svg,
        points: &[(f64, f64)],
        max_step: f64,
        class: &str,
    ) -> Drawn {
        let a = self.area;
        let width_px = (a.x1 - a.x0).max(1.0) as usize;
        if points.len() > width_px / 2 {
            let span = (self.x.min(), self.x.max());
            let cols = columns(points, span, width_px / 2);
            let mut outline: Vec<(f64, f64)> = cols.iter().map(|c| self.at(c.x, c.hi)).collect();
            outline.extend(cols.iter().rev().map(|c| self.at(c.x, c.lo)));
            // A lone column is a vertical segment: widen it to a pixel.
            if cols.len() == 1 {
                let (x, y_hi) = outline[0];
                outline = vec![(x - 0.5, y_hi), (x + 0.5, y_hi), (x + 0.5, outline[1].1)];
            }
            svg.polygon(&outline, &format!("{class} envelope"), None);
            return Drawn::Envelope;
        }
        for run in runs(points, max_step) {
            let px: Vec<(f64, f64)> = run.iter().map(|&(x, y)| self.at(x, y)).collect();
            match px.as_slice() {
                [(x, y)] => svg.circle(*x, *y, 1.8, &format!("{class} dot"), None),
                _ => svg.polyline(&px, class),
            }
        }
        Drawn::Lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AREA: Rect = Rect {
        x0: 50.0,
        y0: 10.0,
        x1: 450.0,
        y1: 110.0,
    };

    #[test]
    fn the_frame_maps_data_upwards_and_labels_its_axes() {
        let f = Frame::new(AREA, (0.0, 9.0), (0.0, 95.0));
        assert_eq!(f.at(0.0, 0.0), (50.0, 110.0));
        let (_, top) = f.at(0.0, 100.0);
        assert!((top - 10.0).abs() < 1e-9);
        let mut svg = Svg::new(500.0, 150.0, "t", "t", "");
        f.axes(
            &mut svg,
            ("step", "ms <p50>"),
            &|_, l| l.to_owned(),
            &|_, l| format!("{l} ms"),
            true,
        );
        let out = svg.finish();
        assert!(
            out.contains(">100 ms</text>") && out.contains(">ms &lt;p50&gt;</text>"),
            "{out}"
        );
        // Whole ticks only on an index axis.
        assert!(!out.contains(">0.5</text>"));
    }

    #[test]
    fn sparse_series_break_at_gaps_and_dense_ones_become_an_envelope() {
        let f = Frame::new(AREA, (0.0, 10.0), (0.0, 10.0));
        let mut svg = Svg::new(500.0, 150.0, "t", "t", "");
        let drawn = f.series(&mut svg, &[(0.0, 1.0), (1.0, 2.0), (5.0, 3.0)], 1.0, "line");
        let out = svg.finish();
        assert_eq!(drawn, Drawn::Lines);
        assert_eq!(out.matches("<polyline").count(), 1);
        assert_eq!(out.matches("class=\"line dot\"").count(), 1);

        let dense: Vec<(f64, f64)> = (0..5_000).map(|i| (f64::from(i) / 500.0, 1.0)).collect();
        let mut svg = Svg::new(500.0, 150.0, "t", "t", "");
        assert_eq!(f.series(&mut svg, &dense, 1.0, "line"), Drawn::Envelope);
        let out = svg.finish();
        assert!(out.contains("class=\"line envelope\"") && !out.contains("<polyline"));
    }

    #[test]
    fn close_reference_labels_move_apart() {
        let f = Frame::new(AREA, (0.0, 10.0), (0.0, 100.0));
        let mut svg = Svg::new(500.0, 150.0, "t", "t", "");
        f.y_lines(
            &mut svg,
            &[(50.0, "ref", "p50".into()), (51.0, "ref", "p90".into())],
        );
        let out = svg.finish();
        let y_of = |label: &str| -> f64 {
            let at = out.find(&format!(">{label}</text>")).unwrap();
            let tag = &out[out[..at].rfind("<text").unwrap()..at];
            let y = tag.split("y=\"").nth(1).unwrap();
            y[..y.find('"').unwrap()].parse().unwrap()
        };
        // p90 is the upper line: its label stays above, a line apart.
        assert!(y_of("p50") - y_of("p90") >= 15.0 - 1e-9, "{out}");
        assert_eq!(out.matches("<line class=\"ref\"").count(), 2);
    }

    #[test]
    fn spans_stay_visible_and_inside_the_axis() {
        let f = Frame::new(AREA, (0.0, 100.0), (0.0, 1.0));
        let mut svg = Svg::new(500.0, 150.0, "t", "t", "");
        f.x_span(&mut svg, (-5.0, 0.0), "gap", "warm-up");
        let out = svg.finish();
        assert!(
            out.contains("x=\"50.0\"") && out.contains("width=\"1.0\""),
            "{out}"
        );
        assert!(out.contains("<title>warm-up</title>"));
    }
}
