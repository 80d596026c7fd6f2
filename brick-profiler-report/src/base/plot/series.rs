//! Series of `(x, y)` points made drawable: split into runs where x jumps
//! (steps left out are not joined by a line), and reduced to one min/max
//! column per pixel when there are more points than pixels, so a spike
//! is never averaged away and the SVG stays small.

/// One pixel column of a reduced series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Column {
    /// Centre of the column, in data units.
    pub(crate) x: f64,
    /// Smallest value in the column.
    pub(crate) lo: f64,
    /// Largest value in the column.
    pub(crate) hi: f64,
}

/// Splits points (sorted by x) into runs: a new run starts wherever x
/// grows by more than `max_step`. Points with a non-finite coordinate are
/// left out.
pub(crate) fn runs(points: &[(f64, f64)], max_step: f64) -> Vec<Vec<(f64, f64)>> {
    let mut out: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut last_x = f64::NEG_INFINITY;
    for &(x, y) in points
        .iter()
        .filter(|(x, y)| x.is_finite() && y.is_finite())
    {
        match out.last_mut() {
            Some(run) if x - last_x <= max_step => run.push((x, y)),
            _ => out.push(vec![(x, y)]),
        }
        last_x = x;
    }
    out
}

/// Reduces points to `n` equal columns across `[x0, x1]`, each holding the
/// range of the values that fall in it (empty columns are left out).
/// Points outside the span or with a non-finite coordinate are left out.
pub(crate) fn columns(points: &[(f64, f64)], (x0, x1): (f64, f64), n: usize) -> Vec<Column> {
    let width = x1 - x0;
    if n == 0 || !(width.is_finite() && width > 0.0) {
        return Vec::new();
    }
    let mut cols: Vec<Option<(f64, f64)>> = vec![None; n];
    for &(x, y) in points {
        if !(x.is_finite() && y.is_finite()) || x < x0 || x > x1 {
            continue;
        }
        // In range and finite: the cast cannot overflow; x1 itself goes last.
        let i = (((x - x0) / width * n as f64) as usize).min(n - 1);
        let col = cols[i].get_or_insert((y, y));
        col.0 = col.0.min(y);
        col.1 = col.1.max(y);
    }
    cols.into_iter()
        .enumerate()
        .filter_map(|(i, c)| {
            c.map(|(lo, hi)| Column {
                x: x0 + (i as f64 + 0.5) / n as f64 * width,
                lo,
                hi,
            })
        })
        .collect()
}

/// The nearest-rank `q`-quantile of `sorted` (ascending): the `⌈q·n⌉`-th
/// smallest value; `None` when empty.
pub(crate) fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let q = if q.is_nan() { 0.5 } else { q.clamp(0.0, 1.0) };
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted.get(rank.clamp(1, sorted.len()) - 1).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_break_where_x_jumps() {
        let points = [
            (0.0, 1.0),
            (1.0, 2.0),
            (4.0, 3.0),
            (5.0, f64::NAN),
            (6.0, 1.0),
        ];
        let r = runs(&points, 1.0);
        assert_eq!(r.len(), 3);
        assert_eq!(r[0], [(0.0, 1.0), (1.0, 2.0)]);
        assert_eq!(r[1], [(4.0, 3.0)]);
        // The NaN point is left out, so 4 -> 6 is a jump.
        assert_eq!(r[2], [(6.0, 1.0)]);
        assert!(runs(&[], 1.0).is_empty());
    }

    #[test]
    fn columns_keep_every_spike() {
        let mut points: Vec<(f64, f64)> = (0..1000).map(|i| (f64::from(i), 1.0)).collect();
        points[637].1 = 50.0;
        let cols = columns(&points, (0.0, 999.0), 100);
        assert_eq!(cols.len(), 100);
        assert_eq!(cols.iter().filter(|c| c.hi == 50.0).count(), 1);
        assert!(cols.iter().all(|c| c.lo == 1.0));
        assert!((cols[0].x - 4.995).abs() < 1e-9);
        assert!(columns(&points, (1.0, 1.0), 10).is_empty());
        assert!(columns(&points, (0.0, 1.0), 0).is_empty());
    }

    #[test]
    fn quantiles_are_nearest_rank() {
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(quantile(&v, 0.5), Some(5.0));
        assert_eq!(quantile(&v, 0.9), Some(9.0));
        assert_eq!(quantile(&v, 0.99), Some(10.0));
        assert_eq!(quantile(&v, 0.0), Some(1.0));
        assert_eq!(quantile(&[], 0.5), None);
    }
}
