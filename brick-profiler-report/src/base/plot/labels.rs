//! Placing point labels so they overlap neither each other nor any marker:
//! each label tries the right of its point, then spots above and below,
//! then the left side; a label moved off its point gets a leader line.
//! Occupied boxes sit in a grid, and the labels are capped, so placement
//! stays linear in the number of points.

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
/// Labels placed at most; later points are drawn unlabelled (their hover
/// title still names them). A plot area holds a few hundred readable labels
/// at most, and the cap keeps placement linear in the number of points.
pub(crate) const MAX_LABELS: usize = 300;
/// Side of a cell of the occupancy grid, px: about a label's height, so a
/// candidate spot scans a handful of cells.
const CELL: f64 = 16.0;

/// The boxes already taken (markers and placed labels), bucketed by the
/// grid cells they cover, so a candidate spot is checked only against the
/// boxes near it instead of every box of the plot.
struct Taken {
    boxes: Vec<Rect>,
    cells: Vec<Vec<u32>>,
    origin: (f64, f64),
    cols: usize,
    rows: usize,
}

impl Taken {
    fn new(bounds: Rect) -> Self {
        // Boxes outside `bounds` land in the edge cells (indices are
        // clamped), which keeps every overlap visible to the lookup.
        let count = |extent: f64| ((extent / CELL).ceil().max(1.0) as usize).min(4096);
        let (cols, rows) = (count(bounds.x1 - bounds.x0), count(bounds.y1 - bounds.y0));
        Self {
            boxes: Vec::new(),
            cells: vec![Vec::new(); cols * rows],
            origin: (bounds.x0, bounds.y0),
            cols,
            rows,
        }
    }

    /// Cell range `(c0, c1, r0, r1)`, inclusive, that `r` covers.
    fn span(&self, r: &Rect) -> (usize, usize, usize, usize) {
        // `as usize` saturates: NaN and negatives become 0.
        let cell =
            |v: f64, origin: f64, n: usize| (((v - origin) / CELL).floor() as usize).min(n - 1);
        (
            cell(r.x0, self.origin.0, self.cols),
            cell(r.x1, self.origin.0, self.cols),
            cell(r.y0, self.origin.1, self.rows),
            cell(r.y1, self.origin.1, self.rows),
        )
    }

    fn insert(&mut self, r: Rect) {
        let index = u32::try_from(self.boxes.len()).unwrap_or(u32::MAX);
        let (c0, c1, r0, r1) = self.span(&r);
        for row in r0..=r1 {
            for col in c0..=c1 {
                self.cells[row * self.cols + col].push(index);
            }
        }
        self.boxes.push(r);
    }

    fn overlaps(&self, r: &Rect) -> bool {
        let (c0, c1, r0, r1) = self.span(r);
        (r0..=r1).any(|row| {
            (c0..=c1).any(|col| {
                self.cells[row * self.cols + col]
                    .iter()
                    .any(|&i| self.boxes[i as usize].overlaps(r))
            })
        })
    }
}

/// Places one label per `(x, y, width)` point inside `bounds`, in order (put
/// the most important first): rows of `line_h` px above and below the point,
/// right side first. Where nothing is free the label keeps the first spot.
/// Only the first [`MAX_LABELS`] points get a label (`None` for the rest).
pub(crate) fn place_labels(
    points: &[(f64, f64, f64)],
    bounds: Rect,
    line_h: f64,
) -> Vec<Option<Placement>> {
    let mut taken = Taken::new(bounds);
    for &(x, y, _) in points {
        taken.insert(Rect {
            x0: x - MARKER,
            y0: y - MARKER,
            x1: x + MARKER,
            y1: y + MARKER,
        });
    }
    let mut rows = vec![0];
    for k in 1..=ROWS {
        rows.extend([-k, k]);
    }
    let mut placed: Vec<Option<Placement>> = points
        .iter()
        .take(MAX_LABELS)
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
                .find(|(_, _, r)| r.inside(&bounds) && !taken.overlaps(r))
                .unwrap_or_else(|| spot(true, 0));
            taken.insert(rect);
            let edge = if right { rect.x0 - 1.0 } else { rect.x1 + 1.0 };
            Some(Placement {
                x: if right { rect.x0 } else { rect.x1 },
                y: y + dy + 0.25 * line_h - 3.0,
                anchor: if right { Anchor::Start } else { Anchor::End },
                leader: (dy != 0.0).then_some((x, y, edge, y + dy - 0.25 * line_h)),
            })
        })
        .collect();
    placed.resize(points.len(), None);
    placed
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

    fn labels(points: &[(f64, f64, f64)]) -> Vec<Placement> {
        place_labels(points, BOUNDS, 12.0)
            .into_iter()
            .map(|p| p.expect("under the cap every point is labelled"))
            .collect()
    }

    #[test]
    fn a_lone_label_sits_right_of_its_point() {
        let p = labels(&[(100.0, 100.0, 50.0)]);
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
        let placed = labels(&pts);
        let ys: Vec<f64> = placed.iter().map(|p| p.y).collect();
        assert!(ys[0] != ys[1] && ys[1] != ys[2] && ys[0] != ys[2], "{ys:?}");
        assert!(placed[1].leader.is_some() && placed[2].leader.is_some());
    }

    #[test]
    fn labels_at_the_right_edge_go_left() {
        let p = labels(&[(390.0, 100.0, 50.0)]);
        assert_eq!(p[0].anchor, Anchor::End);
        assert_eq!(p[0].x, 382.0);
    }

    #[test]
    fn labels_past_the_cap_are_left_out() {
        // A grid of points 20 px apart: far more than the cap.
        let pts: Vec<(f64, f64, f64)> = (0..2_000)
            .map(|i| (f64::from(i % 40) * 10.0, f64::from(i / 40) * 8.0, 30.0))
            .collect();
        let placed = place_labels(&pts, BOUNDS, 12.0);
        assert_eq!(placed.len(), pts.len());
        assert_eq!(placed.iter().flatten().count(), MAX_LABELS);
        assert!(placed[MAX_LABELS..].iter().all(Option::is_none));
    }

    #[test]
    fn the_grid_sees_boxes_in_far_cells_and_outside_the_bounds() {
        let mut taken = Taken::new(BOUNDS);
        let wide = Rect {
            x0: -50.0,
            y0: 10.0,
            x1: 450.0,
            y1: 20.0,
        };
        taken.insert(wide);
        let probe = |x0: f64, y0: f64| Rect {
            x0,
            y0,
            x1: x0 + 5.0,
            y1: y0 + 5.0,
        };
        assert!(taken.overlaps(&probe(390.0, 12.0)));
        assert!(taken.overlaps(&probe(-20.0, 12.0)));
        assert!(!taken.overlaps(&probe(200.0, 30.0)));
        assert!(!taken.overlaps(&probe(f64::NAN, 30.0)));
    }
}
