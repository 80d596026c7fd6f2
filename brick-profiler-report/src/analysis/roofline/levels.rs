//! Which memory level serves a brick: the fastest cache its bytes per call
//! fit in (cache sizes from sysfs or a hardware file), DRAM past the last
//! one, or the level the user pinned; and the options that pin them.

use std::collections::BTreeMap;
use std::fmt;

use profiler_core::Profile;
use serde::{Deserialize, Serialize};

use profiler_core::hardware::{Hardware, MemoryLevel, Precision};

/// How a brick's roof level was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LevelChoice {
    /// One level for every brick, as the options asked.
    All,
    /// Pinned for this brick in the options (`roofline --pin NAME=LEVEL`).
    Pinned,
    /// Pinned by the brick's annotation, `#[brick(..., level = L2)]`.
    Annotated,
    /// The fastest cache level its bytes per call fit in, else DRAM.
    WorkingSet,
    /// No cache sizes known: the device's main roof (DRAM when it has one).
    Default,
}

impl fmt::Display for LevelChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::All => "as asked for every brick",
            Self::Pinned => "pinned by --pin",
            Self::Annotated => "pinned by annotation",
            Self::WorkingSet => "from its working set",
            Self::Default => "no cache sizes",
        })
    }
}

/// The annotation to check on a brick that runs above its roof.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Annotation {
    /// Bytes: it moves more per second than its level's bandwidth.
    Bytes,
    /// FLOPs: it computes more per second than the peak.
    Flops,
}

impl fmt::Display for Annotation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Bytes => "bytes",
            Self::Flops => "flops",
        })
    }
}

/// How bricks are placed on a roofline: the precision of the compute roof,
/// one memory level for all (else each brick's own), and levels pinned per
/// brick.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RooflineOptions {
    /// Precision of the compute roof (default FP32, else the first the
    /// device has).
    pub precision: Option<Precision>,
    /// One memory level for every brick. `None`: each brick's own level,
    /// from its bytes per call and the cache sizes (DRAM without sizes).
    pub level: Option<MemoryLevel>,
    /// Levels pinned per brick name, over both of the above and over a
    /// level the brick's annotation pins.
    pub pins: BTreeMap<String, MemoryLevel>,
}

impl LevelChoice {
    /// Whether the level was pinned (by the options or the annotation)
    /// rather than chosen for every brick or from the working set.
    #[must_use]
    pub fn is_pinned(self) -> bool {
        matches!(self, Self::Pinned | Self::Annotated)
    }
}

impl RooflineOptions {
    /// Pins brick `name` to `level`.
    #[must_use]
    pub fn pin(mut self, name: impl Into<String>, level: MemoryLevel) -> Self {
        self.pins.insert(name.into(), level);
        self
    }
}

/// The level a working set of `bytes` per call is served from on `hw`: the
/// fastest cache with a bandwidth ceiling that holds it, else DRAM (else the
/// slowest level with a ceiling below PCIe). `None` without cache sizes.
#[must_use]
pub fn level_for(hw: &Hardware, bytes: u64) -> Option<MemoryLevel> {
    hw.cache_sizes().next()?;
    let has_roof = |l: MemoryLevel| hw.memory(l).is_some();
    hw.cache_sizes()
        .find(|(l, size)| bytes <= size.value as u64 && has_roof(*l))
        .map(|(l, _)| l)
        .or_else(|| has_roof(MemoryLevel::Dram).then_some(MemoryLevel::Dram))
        .or_else(|| {
            hw.memory_ceilings()
                .map(|(l, _)| l)
                .filter(|l| *l < MemoryLevel::Pcie)
                .last()
        })
}

/// Where each brick's level comes from, in order: a pin in the options,
/// the one level asked for every brick, the brick's `level = ..`
/// annotation, the fastest cache its bytes per call fit in, the main roof.
pub(super) struct LevelPicker<'a> {
    options: &'a RooflineOptions,
    /// Levels the profile's call sites pin, by brick name (the first site
    /// of a name that pins one decides).
    annotated: BTreeMap<&'a str, MemoryLevel>,
    /// The main roof's level, for `All` and `Default`.
    main: MemoryLevel,
}

impl<'a> LevelPicker<'a> {
    /// The picker for `profile`'s bricks. An annotated level the device
    /// has no roof for is dropped with a note (its bricks are judged by
    /// their working set): a pin in code must not make the report fail.
    pub(super) fn new(
        profile: &'a Profile,
        roofline: &Hardware,
        options: &'a RooflineOptions,
        main: MemoryLevel,
        notes: &mut Vec<String>,
    ) -> Self {
        let mut annotated = BTreeMap::new();
        for site in &profile.sites {
            let Some(level) = site.level else { continue };
            let level = MemoryLevel::from(level);
            if annotated.contains_key(site.name.as_str()) {
                continue;
            }
            if roofline.memory(level).is_none() {
                notes.push(format!(
                    "{} is annotated `level = {level}` but {} has no {level} roof: it is judged \
                     by its working set instead",
                    site.name, roofline.name
                ));
                continue;
            }
            annotated.insert(site.name.as_str(), level);
        }
        Self {
            options,
            annotated,
            main,
        }
    }

    /// The level of brick `name` with `bytes_per_call`, and how it was chosen.
    pub(super) fn pick(
        &self,
        roofline: &Hardware,
        name: &str,
        bytes_per_call: u64,
    ) -> (MemoryLevel, LevelChoice) {
        if let Some(l) = self.options.pins.get(name) {
            return (*l, LevelChoice::Pinned);
        }
        if self.options.level.is_some() {
            return (self.main, LevelChoice::All);
        }
        if let Some(l) = self.annotated.get(name) {
            return (*l, LevelChoice::Annotated);
        }
        match level_for(roofline, bytes_per_call) {
            Some(l) => (l, LevelChoice::WorkingSet),
            None => (self.main, LevelChoice::Default),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use profiler_core::hardware::{Figure, Source};

    #[test]
    fn working_sets_land_in_the_fastest_level_that_holds_them() {
        let mut r = Hardware::new("cpu");
        for (l, gb_s) in [
            (MemoryLevel::L1Cache, 1000.0),
            (MemoryLevel::L2Cache, 400.0),
            (MemoryLevel::Dram, 30.0),
        ] {
            r.set_memory(l, Figure::new(gb_s, Source::Measured { how: None }))
                .unwrap();
        }
        assert_eq!(level_for(&r, 100), None, "no cache sizes, no choice");
        // L3 has a size but no measured bandwidth: skipped.
        let sysfs = |bytes: u64| {
            Figure::new(
                bytes as f64,
                Source::System {
                    path: "sysfs".into(),
                },
            )
        };
        for (l, bytes) in [
            (MemoryLevel::L3Cache, 32 << 20),
            (MemoryLevel::L2Cache, 512 << 10),
            (MemoryLevel::L1Cache, 32 << 10),
        ] {
            r.set_cache_bytes(l, sysfs(bytes)).unwrap();
        }
        assert_eq!(r.cache_sizes().next().unwrap().0, MemoryLevel::L1Cache);
        assert_eq!(level_for(&r, 32 << 10), Some(MemoryLevel::L1Cache));
        assert_eq!(level_for(&r, (32 << 10) + 1), Some(MemoryLevel::L2Cache));
        assert_eq!(level_for(&r, 1 << 20), Some(MemoryLevel::Dram));
        let opts = RooflineOptions::default().pin("MatMul", MemoryLevel::L2Cache);
        assert_eq!(opts.pins.get("MatMul"), Some(&MemoryLevel::L2Cache));
    }
}
