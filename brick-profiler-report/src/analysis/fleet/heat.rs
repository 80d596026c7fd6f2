//! The fleet's heat map: step times, rank x step, pooled into a bounded
//! grid while the ranks are walked once, so its size is fixed whatever the
//! number of ranks and however far apart their step indices lie.

use super::read::RankData;

/// Most rows of the [`HeatMap`]: beyond that, neighbouring ranks share a
/// row, each cell showing their slowest time, so the map stays small and
/// its cells large enough to point at for any number of ranks.
pub const HEAT_MAX_ROWS: usize = 128;
/// Most columns of the [`HeatMap`]: beyond that, consecutive steps share a
/// column, each cell showing their slowest time.
pub const HEAT_MAX_COLUMNS: usize = 200;

/// Step times, rank x step, pooled into at most [`HEAT_MAX_ROWS`] rows and
/// [`HEAT_MAX_COLUMNS`] columns: each cell holds the slowest step of its
/// ranks and step indices.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HeatMap {
    /// The lowest step index of any rank (the first column starts there).
    pub first_step: u64,
    /// The highest step index of any rank.
    pub last_step: u64,
    /// Consecutive step indices each column pools (1: one step a column).
    pub steps_per_column: u64,
    /// The rows, by rank.
    pub rows: Vec<HeatRow>,
}

/// One row of the [`HeatMap`]: consecutive ranks analysed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HeatRow {
    /// Its first rank.
    pub first_rank: u32,
    /// Its last rank (equal to `first_rank` for a row of one rank).
    pub last_rank: u32,
    /// The slowest step time of each column, ns; `None` where its ranks
    /// recorded no step of those indices.
    pub cells: Vec<Option<u64>>,
}

impl HeatMap {
    /// The map of `ranks` (ascending by rank).
    pub(crate) fn of(ranks: &[RankData]) -> Self {
        let indices = ranks.iter().flat_map(|d| d.steps.iter().map(|s| s.0));
        let (Some(first_step), Some(last_step)) = (indices.clone().min(), indices.max()) else {
            return Self::default();
        };
        // In u128: the span of u64 indices can be 2^64.
        let span = u128::from(last_step - first_step) + 1;
        let steps_per_column = u64::try_from(span.div_ceil(HEAT_MAX_COLUMNS as u128))
            .unwrap_or(u64::MAX)
            .max(1);
        let columns = usize::try_from(span.div_ceil(u128::from(steps_per_column)))
            .unwrap_or(HEAT_MAX_COLUMNS)
            .min(HEAT_MAX_COLUMNS);
        let ranks_per_row = ranks.len().div_ceil(HEAT_MAX_ROWS).max(1);
        let rows = ranks
            .chunks(ranks_per_row)
            .map(|chunk| {
                let mut cells = vec![None; columns];
                for &(index, ns) in chunk.iter().flat_map(|d| &d.steps) {
                    let column = ((index - first_step) / steps_per_column) as usize;
                    if let Some(cell) = cells.get_mut(column) {
                        *cell = Some(cell.map_or(ns, |old: u64| old.max(ns)));
                    }
                }
                HeatRow {
                    first_rank: chunk.first().map_or(0, |d| d.rank),
                    last_rank: chunk.last().map_or(0, |d| d.rank),
                    cells,
                }
            })
            .collect();
        Self {
            first_step,
            last_step,
            steps_per_column,
            rows,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rank(rank: u32, steps: &[(u64, u64)]) -> RankData {
        RankData {
            rank,
            steps: steps.to_vec(),
            ..RankData::default()
        }
    }

    #[test]
    fn far_apart_steps_pool_into_a_bounded_grid() {
        let ranks: Vec<RankData> = (0..1000u32)
            .map(|r| {
                let base = u64::from(r) * 1_000_000;
                rank(r, &[(base, 10), (base + 999_999, 20)])
            })
            .collect();
        let map = HeatMap::of(&ranks);
        assert_eq!(map.rows.len(), 125, "8 ranks a row");
        assert!(map.rows.iter().all(|r| r.cells.len() <= HEAT_MAX_COLUMNS));
        assert_eq!((map.first_step, map.last_step), (0, 999_999_999));
        assert_eq!(map.steps_per_column, 1_000_000_000u64.div_ceil(200));
        assert_eq!((map.rows[1].first_rank, map.rows[1].last_rank), (8, 15));
        // Each row's 8 ranks hold 16 steps, in at most 16 columns.
        let filled = map.rows[0].cells.iter().flatten().count();
        assert!((1..=16).contains(&filled), "{filled}");
    }

    #[test]
    fn one_step_a_column_when_they_fit_and_the_slowest_wins_a_shared_cell() {
        let map = HeatMap::of(&[rank(0, &[(3, 5), (4, 7)]), rank(1, &[(4, 9)])]);
        assert_eq!(map.steps_per_column, 1);
        assert_eq!(map.rows[0].cells, [Some(5), Some(7)]);
        assert_eq!(map.rows[1].cells, [None, Some(9)]);
        let extremes = HeatMap::of(&[rank(0, &[(0, 1), (u64::MAX, 2)])]);
        assert_eq!(extremes.rows[0].cells.len(), HEAT_MAX_COLUMNS);
        assert_eq!(extremes.rows[0].cells[HEAT_MAX_COLUMNS - 1], Some(2));
        assert_eq!(HeatMap::of(&[]), HeatMap::default());
    }

    #[test]
    fn binning_keeps_each_cells_slowest_step() {
        // 1,024 ranks x 2,000 steps: 8 ranks a row, 10 steps a column.
        let ranks: Vec<RankData> = (0..1024u32)
            .map(|r| {
                let steps: Vec<(u64, u64)> = (0..2_000u64)
                    .map(|s| {
                        (
                            s,
                            if r == 77 && s == 1_234 {
                                999
                            } else {
                                10 + s % 7
                            },
                        )
                    })
                    .collect();
                rank(r, &steps)
            })
            .collect();
        let map = HeatMap::of(&ranks);
        assert_eq!((map.rows.len(), map.steps_per_column), (128, 10));
        assert!(map.rows.iter().all(|r| r.cells.len() == HEAT_MAX_COLUMNS));
        // Rank 77 is in row 9 (ranks 72-79); step 1,234 in column 123.
        assert_eq!(map.rows[9].cells[123], Some(999));
        let others = map.rows.iter().flat_map(|r| &r.cells).flatten();
        assert_eq!(others.filter(|&&ns| ns == 999).count(), 1);
        // Every other cell holds its bin's max, 16 (10 + 6).
        assert!(map.rows[0].cells.iter().all(|c| *c == Some(16)));
    }
}
