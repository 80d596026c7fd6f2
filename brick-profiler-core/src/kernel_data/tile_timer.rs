//! The value a runtime's `start_tile(level, row, col)` returns and its
//! `stop_tile(timer, elements, flops)` consumes: which tile, and when it
//! started (or that tile profiling was off, so stopping records nothing).

use super::tile::TileLevel;

/// A running tile measurement, from the runtime's `start_tile(level, row,
/// col)`; the runtime's `stop_tile(timer, elements, flops)` consumes it.
///
/// `start` is a timestamp in the unit of the clock that made it; the
/// timer only subtracts. A disarmed timer (tile profiling was off when the
/// tile started) measures nothing, so stopping it is a no-op.
#[must_use = "a tile timer records nothing until it is stopped"]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TileTimer {
    level: TileLevel,
    row: u32,
    col: u32,
    start: Option<u64>,
}

impl TileTimer {
    /// A timer started at `start`.
    pub const fn armed(level: TileLevel, row: u32, col: u32, start: u64) -> Self {
        Self {
            level,
            row,
            col,
            start: Some(start),
        }
    }

    /// A timer that measures nothing (tile profiling was off).
    pub const fn disarmed(level: TileLevel, row: u32, col: u32) -> Self {
        Self {
            level,
            row,
            col,
            start: None,
        }
    }

    /// The tile level.
    #[must_use]
    pub const fn level(&self) -> TileLevel {
        self.level
    }

    /// Row of the tile within its parent.
    #[must_use]
    pub const fn row(&self) -> u32 {
        self.row
    }

    /// Column of the tile within its parent.
    #[must_use]
    pub const fn col(&self) -> u32 {
        self.col
    }

    /// The start timestamp; `None` for a disarmed timer.
    #[must_use]
    pub const fn start(&self) -> Option<u64> {
        self.start
    }

    /// Time from the start to `now` (0 if the clock went backwards); `None`
    /// for a disarmed timer.
    #[must_use]
    pub const fn elapsed(&self, now: u64) -> Option<u64> {
        match self.start {
            Some(start) => Some(now.saturating_sub(start)),
            None => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timers_measure_only_when_armed() {
        let t = TileTimer::armed(TileLevel::Micro, 2, 3, 1_000);
        assert_eq!((t.level(), t.row(), t.col()), (TileLevel::Micro, 2, 3));
        assert_eq!(t.elapsed(1_750), Some(750));
        assert_eq!(t.elapsed(10), Some(0), "a clock going backwards gives 0");
        let off = TileTimer::disarmed(TileLevel::Macro, 0, 0);
        assert_eq!((off.start(), off.elapsed(5_000)), (None, None));
    }
}
