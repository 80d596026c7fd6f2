//! [`Svg`]: an append-only SVG document. Text and attribute values are
//! XML-escaped here (by the `escape` module's `xml`) and nowhere else; an
//! element with a non-finite coordinate is left out rather than written as
//! `NaN`.

use std::fmt::Write as _;

use crate::base::escape::xml as xml_escape;

/// Horizontal text anchor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    fn as_str(self) -> &'static str {
        match self {
            Self::Start => "start",
            Self::Middle => "middle",
            Self::End => "end",
        }
    }
}

/// A coordinate with one decimal, or `None` when not finite.
fn c(v: f64) -> Option<String> {
    v.is_finite().then(|| format!("{v:.1}"))
}

/// `x,y x,y ...` of the finite points, when there are at least `min`.
fn point_list(points: &[(f64, f64)], min: usize) -> Option<String> {
    let mut out = String::with_capacity(points.len() * 12);
    let mut n = 0;
    for &(x, y) in points {
        if let (Some(x), Some(y)) = (c(x), c(y)) {
            if n > 0 {
                out.push(' ');
            }
            let _ = write!(out, "{x},{y}");
            n += 1;
        }
    }
    (n >= min).then_some(out)
}

/// An SVG document under construction.
#[derive(Debug)]
pub(crate) struct Svg {
    out: String,
}

impl Svg {
    /// Opens `<svg>` of `width` x `height` px with CSS class `class`, an
    /// accessible `label`, and a `<style>` block (its selectors should start
    /// with `.class` so they cannot restyle the rest of an HTML page).
    pub(crate) fn new(width: f64, height: f64, class: &str, label: &str, css: &str) -> Self {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"{}\" width=\"{width:.0}\" height=\"{height:.0}\" \
             viewBox=\"0 0 {width:.0} {height:.0}\" role=\"img\" aria-label=\"{}\">",
            xml_escape(class),
            xml_escape(label)
        );
        let _ = writeln!(out, "<title>{}</title>", xml_escape(label));
        if !css.is_empty() {
            // CSS inside an SVG is character data: escaping `>` would break
            // child selectors, so the stylesheet goes in CDATA instead.
            let _ = writeln!(out, "<style><![CDATA[\n{css}]]></style>");
        }
        Self { out }
    }

    /// Opens a `<g>` with a class and, optionally, a tooltip (`<title>`).
    pub(crate) fn open_group(&mut self, class: &str, tooltip: Option<&str>) {
        let _ = write!(self.out, "<g class=\"{}\">", xml_escape(class));
        if let Some(t) = tooltip {
            let _ = write!(self.out, "<title>{}</title>", xml_escape(t));
        }
        self.out.push('\n');
    }

    /// Opens a `<g>` whose children are drawn in units of `sx` x `sy` px
    /// from (`x`, `y`): a grid of cells then takes small whole numbers.
    /// Non-finite values give a plain group.
    pub(crate) fn open_scaled(&mut self, class: &str, (x, y): (f64, f64), (sx, sy): (f64, f64)) {
        match (
            c(x),
            c(y),
            sx.is_finite().then_some(sx),
            sy.is_finite().then_some(sy),
        ) {
            (Some(x), Some(y), Some(sx), Some(sy)) => {
                let _ = writeln!(
                    self.out,
                    "<g class=\"{}\" transform=\"translate({x} {y}) scale({sx:.4} {sy:.4})\">",
                    xml_escape(class)
                );
            }
            _ => self.open_group(class, None),
        }
    }

    /// Closes the innermost `<g>`.
    pub(crate) fn close_group(&mut self) {
        self.out.push_str("</g>\n");
    }

    /// A line segment.
    pub(crate) fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, class: &str) {
        if let (Some(x1), Some(y1), Some(x2), Some(y2)) = (c(x1), c(y1), c(x2), c(y2)) {
            let _ = writeln!(
                self.out,
                "<line class=\"{}\" x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\"/>",
                xml_escape(class)
            );
        }
    }

    /// A polyline through `points`, in order; points with a non-finite
    /// coordinate are skipped. Fewer than two points draw nothing.
    pub(crate) fn polyline(&mut self, points: &[(f64, f64)], class: &str) {
        if let Some(points) = point_list(points, 2) {
            let _ = writeln!(
                self.out,
                "<polyline class=\"{}\" points=\"{points}\"/>",
                xml_escape(class)
            );
        }
    }

    /// A closed polygon with an optional tooltip; points with a
    /// non-finite coordinate are skipped. Fewer than three points draw
    /// nothing.
    pub(crate) fn polygon(&mut self, points: &[(f64, f64)], class: &str, tip: Option<&str>) {
        if let Some(points) = point_list(points, 3) {
            let _ = write!(
                self.out,
                "<polygon class=\"{}\" points=\"{points}\"",
                xml_escape(class)
            );
            self.close_shape(tip, "polygon");
        }
    }

    /// A rectangle with an optional tooltip.
    pub(crate) fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, class: &str, tip: Option<&str>) {
        let (Some(x), Some(y), Some(w), Some(h)) = (c(x), c(y), c(w.max(0.0)), c(h.max(0.0)))
        else {
            return;
        };
        let _ = write!(
            self.out,
            "<rect class=\"{}\" x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\"",
            xml_escape(class)
        );
        self.close_shape(tip, "rect");
    }

    /// A circle with an optional tooltip.
    pub(crate) fn circle(&mut self, cx: f64, cy: f64, r: f64, class: &str, tip: Option<&str>) {
        let (Some(cx), Some(cy), Some(r)) = (c(cx), c(cy), c(r)) else {
            return;
        };
        let _ = write!(
            self.out,
            "<circle class=\"{}\" cx=\"{cx}\" cy=\"{cy}\" r=\"{r}\"",
            xml_escape(class)
        );
        self.close_shape(tip, "circle");
    }

    /// A path of path data `d` with an optional tooltip; a `d` holding a
    /// non-finite number (`NaN`, `inf`) draws nothing.
    pub(crate) fn path(&mut self, d: &str, class: &str, tip: Option<&str>) {
        if d.is_empty() || d.contains("NaN") || d.contains("inf") {
            return;
        }
        let _ = write!(
            self.out,
            "<path class=\"{}\" d=\"{}\"",
            xml_escape(class),
            xml_escape(d)
        );
        self.close_shape(tip, "path");
    }

    fn close_shape(&mut self, tip: Option<&str>, tag: &str) {
        match tip {
            Some(t) => {
                let _ = writeln!(self.out, "><title>{}</title></{tag}>", xml_escape(t));
            }
            None => self.out.push_str("/>\n"),
        }
    }

    /// Text at (`x`, `y`) (the baseline), escaped.
    pub(crate) fn text(&mut self, x: f64, y: f64, anchor: Anchor, class: &str, text: &str) {
        if let (Some(x), Some(y)) = (c(x), c(y)) {
            let _ = writeln!(
                self.out,
                "<text class=\"{}\" x=\"{x}\" y=\"{y}\" text-anchor=\"{}\">{}</text>",
                xml_escape(class),
                anchor.as_str(),
                xml_escape(text)
            );
        }
    }

    /// Text rotated by `degrees` about its anchor point.
    pub(crate) fn text_rotated(&mut self, x: f64, y: f64, degrees: f64, class: &str, text: &str) {
        if let (Some(x), Some(y), Some(d)) = (c(x), c(y), c(degrees)) {
            let _ = writeln!(
                self.out,
                "<text class=\"{}\" transform=\"translate({x} {y}) rotate({d})\" text-anchor=\"middle\">{}</text>",
                xml_escape(class),
                xml_escape(text)
            );
        }
    }

    /// Closes the document.
    pub(crate) fn finish(mut self) -> String {
        self.out.push_str("</svg>\n");
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_coordinates_drop_the_element() {
        let mut svg = Svg::new(10.0, 10.0, "t", "t", "");
        svg.line(0.0, f64::NAN, 1.0, 1.0, "a");
        svg.circle(f64::INFINITY, 1.0, 1.0, "a", None);
        svg.text(1.0, 1.0, Anchor::Start, "a", "ok");
        let out = svg.finish();
        assert!(!out.contains("<line") && !out.contains("<circle"));
        assert!(out.contains(">ok</text>"));
        assert!(!out.contains("NaN") && !out.contains("inf"));
    }

    #[test]
    fn polylines_skip_non_finite_points_and_need_enough_of_them() {
        let mut svg = Svg::new(10.0, 10.0, "t", "t", "");
        svg.polyline(&[(0.0, 1.0), (f64::NAN, 2.0), (2.0, 3.3)], "line");
        svg.polyline(&[(0.0, 1.0), (f64::INFINITY, 2.0)], "lonely");
        svg.polygon(&[(0.0, 0.0), (1.0, 0.0), (1.0, 1.0)], "a\"b", Some("<tip>"));
        let out = svg.finish();
        assert!(
            out.contains("<polyline class=\"line\" points=\"0.0,1.0 2.0,3.3\"/>"),
            "{out}"
        );
        assert!(!out.contains("lonely"));
        assert!(out.contains("<polygon class=\"a&quot;b\" points=\"0.0,0.0 1.0,0.0 1.0,1.0\"><title>&lt;tip&gt;</title></polygon>"), "{out}");
    }

    #[test]
    fn paths_refuse_non_finite_data() {
        let mut svg = Svg::new(10.0, 10.0, "t", "t", "");
        svg.path("M1.0 2.0h3.0v1.0h-3.0z", "cells", Some("a<b"));
        svg.path("M1.0 NaNh3.0z", "bad", None);
        svg.path("", "empty", None);
        let out = svg.finish();
        assert!(
            out.contains(
                "<path class=\"cells\" d=\"M1.0 2.0h3.0v1.0h-3.0z\"><title>a&lt;b</title></path>"
            ),
            "{out}"
        );
        assert!(!out.contains("bad") && !out.contains("empty"));
    }
}
