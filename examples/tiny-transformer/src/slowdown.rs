//! A planted slowdown, for testing performance gates: [`plant`] makes one
//! brick spend `factor` times its own work time (the extra spent spinning
//! inside the brick, so the profiler times it). Off unless planted; then
//! one atomic load per call of a brick that honours it.

use std::sync::OnceLock;
use std::time::Instant;

/// Bricks that honour a planted slowdown.
pub const BRICKS: &[&str] = &["RmsNorm"];

static PLANTED: OnceLock<(&'static str, f64)> = OnceLock::new();

/// Makes `brick` (one of [`BRICKS`]) take `factor` times as long, once per
/// process.
///
/// # Errors
/// A brick that does not honour it, a factor that is not finite or below
/// 1, or a slowdown already planted.
pub fn plant(brick: &str, factor: f64) -> Result<(), String> {
    let Some(&name) = BRICKS.iter().find(|b| **b == brick) else {
        return Err(format!(
            "`{brick}` cannot be slowed; bricks that can: {}",
            BRICKS.join(", ")
        ));
    };
    if !(factor.is_finite() && factor >= 1.0) {
        return Err(format!(
            "slowdown factor {factor} must be finite and at least 1"
        ));
    }
    PLANTED
        .set((name, factor))
        .map_err(|_| "a slowdown is already planted".to_owned())
}

/// Spins until `brick`'s call, begun at `started`, has lasted its factor
/// times its work so far; returns at once when nothing is planted on it.
pub(crate) fn pad(brick: &str, started: Instant) {
    let Some(&(name, factor)) = PLANTED.get() else {
        return;
    };
    if name != brick {
        return;
    }
    let until = started.elapsed().mul_f64(factor);
    while started.elapsed() < until {
        std::hint::spin_loop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_known_bricks_and_sane_factors_are_planted() {
        assert!(plant("Softmax", 1.15).unwrap_err().contains("RmsNorm"));
        assert!(plant("RmsNorm", 0.5).is_err());
        assert!(plant("RmsNorm", f64::NAN).is_err());
    }
}
