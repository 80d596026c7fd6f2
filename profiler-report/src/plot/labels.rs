//! Placing point labels so they overlap neither each other nor any marker:
//! each label tries the right of its point, then spots above and below,
//! then the left side; a label moved off its point gets a leader line.

use super::svg::Anchor;

/// An axis-aligned box, px.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Rect {
    pub(crate) x0: f64,
    pub(crate) y0: f64,
    pub(crate) x1: f64,
    pub(crate) y1: f64,
}

impl Rect {
    fn overlaps(&self, o: &Rect) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }

    fn inside(&self, o: &Rect) -> bool {
        self.x0 >= o.x0 && self.x1 <= o.x1 && self.y0 >= o.y0 && self.y1 <= o.y1
    }
}

/// Where one label goes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Placement {
    /// Text anchor point: x, and y of the baseline.
    pub(crate) x: f64,
    pub(crate) y: f64,
    pub(crate) anchor: Anchor,
    /// From the point to the label, when the label moved off its row.
    pub(crate) leader: Option<(f64, f64, f64, f64)>,
}

/// Gap between a marker and its label, px.
const GAP: f64 = 8.0;
/// Marker half-size kept clear of labels, px.
const MARKER: f64 = 5.0;
/// Rows tried above and below the point.
const ROWS: i32 = 6;

/// Places one label per `(x, y, width)` point inside `bounds`, in order (put
/// the most important first): rows of `line_h` px above and below the point,
/// right side first. Where nothing is free the label keeps the first spot.
pub(crate) fn place_labels(
    points: &[(f64, f64, f64)],
    bounds: Rect,
    line_h: f64,
) -> Vec<Placement> {
    let mut taken: Vec<Rect> = points
        .iter()
        .map(|&(x, y, _)| Rect {
            x0: x - MARKER,
            y0: y - MARKER,
            x1: x + MARKER,
            y1: y + MARKER,
        })
        .collect();
    let mut rows = vec![0];
    for k in 1..=ROWS {
        rows.extend([-k, k]);
    }
    points
        .iter()
        .map(|&(x, y, w)| {
            let spot = |right: bool, row: i32| {
                let dy = f64::from(row) * line_h;
                let x0 = if right { x + GAP } else { x - GAP - w };
                let rect = Rect {
                    x0,
                    y0: y + dy - 0.75 * line_h,
                    x1: x0 + w,
                    y1: y + dy + 0.25 * line_h,
                };
                (right, dy, rect)
            };
            let candidates = [true, false]
                .into_iter()
                .flat_map(|right| rows.iter().map(move |&row| (right, row)));
            let (right, dy, rect) = candidates
                .map(|(right, row)| spot(right, row))
                .find(|(_, _, r)| r.inside(&bounds) && !taken.iter().any(|t| t.overlaps(r)))
                .unwrap_or_else(|| spot(true, 0));
            taken.push(rect);
            let edge = if right { rect.x0 - 1.0 } else { rect.x1 + 1.0 };
            Placement {
                x: if right { rect.x0 } else { rect.x1 },
                y: y + dy + 0.25 * line_h - 3.0,
                anchor: if right { Anchor::Start } else { Anchor::End },
                leader: (dy != 0.0).then_some((x, y, edge, y + dy - 0.25 * line_h)),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOUNDS: Rect = Rect {
        x0: 0.0,
        y0: 0.0,
        x1: 400.0,
        y1: 400.0,
    };

    #[test]
    fn a_lone_label_sits_right_of_its_point() {
        let p = place_labels(&[(100.0, 100.0, 50.0)], BOUNDS, 12.0);
        assert_eq!(p[0].anchor, Anchor::Start);
        assert_eq!((p[0].x, p[0].leader), (108.0, None));
    }

    #[test]
    fn crowded_labels_move_apart_and_get_leaders() {
        let pts = [
            (100.0, 100.0, 60.0),
            (101.0, 101.0, 60.0),
            (102.0, 99.0, 60.0),
        ];
        let placed = place_labels(&pts, BOUNDS, 12.0);
        let ys: Vec<f64> = placed.iter().map(|p| p.y).collect();
        assert!(ys[0] != ys[1] && ys[1] != ys[2] && ys[0] != ys[2], "{ys:?}");
        assert!(placed[1].leader.is_some() && placed[2].leader.is_some());
    }

    #[test]
    fn labels_at_the_right_edge_go_left() {
        let p = place_labels(&[(390.0, 100.0, 50.0)], BOUNDS, 12.0);
        assert_eq!(p[0].anchor, Anchor::End);
        assert_eq!(p[0].x, 382.0);
    }
}
