//! The memory level a `#[brick(..., level = L2)]` annotation pins: which
//! cache (or DRAM) serves the brick's data, for reports that judge it
//! against that level's bandwidth roof. Part of the saved-file format.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Memory level a brick's data is served from, as an annotation pins it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BrickLevel {
    /// The first-level data cache.
    L1,
    /// The second-level cache.
    L2,
    /// The third-level (last-level) cache.
    L3,
    /// Main memory.
    Dram,
}

impl BrickLevel {
    /// Every level, fastest first.
    pub const ALL: [Self; 4] = [Self::L1, Self::L2, Self::L3, Self::Dram];

    /// The name as written in `#[brick(level = ..)]`: `L1`, `L2`, `L3`, `DRAM`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::L1 => "L1",
            Self::L2 => "L2",
            Self::L3 => "L3",
            Self::Dram => "DRAM",
        }
    }
}

impl fmt::Display for BrickLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A level name that is not `L1`, `L2`, `L3` or `DRAM`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown memory level `{0}`, expected one of `L1`, `L2`, `L3`, `DRAM`")]
pub struct UnknownBrickLevel(pub String);

impl FromStr for BrickLevel {
    type Err = UnknownBrickLevel;

    /// Case-insensitive `L1`, `L2`, `L3`, `DRAM`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownBrickLevel(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_case_insensitively_and_save_lowercase() {
        assert_eq!("l2".parse(), Ok(BrickLevel::L2));
        assert_eq!(" Dram ".parse(), Ok(BrickLevel::Dram));
        assert_eq!(
            "L4".parse::<BrickLevel>().unwrap_err().to_string(),
            "unknown memory level `L4`, expected one of `L1`, `L2`, `L3`, `DRAM`"
        );
        assert_eq!(serde_json::to_string(&BrickLevel::L3).unwrap(), "\"l3\"");
        assert_eq!(
            serde_json::from_str::<BrickLevel>("\"dram\"").unwrap(),
            BrickLevel::Dram
        );
    }
}
