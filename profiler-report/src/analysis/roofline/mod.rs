//! Rooflines: the analytical decode roofline of contract
//! `roofline-model-v1` ([`compute_roofline`]), the kernel roofline of a
//! device ([`KernelRoofline`], [`KernelRoofline::classify`]) and the
//! per-brick roofline of a profile ([`BrickRoofline`]), with Markdown, JSON,
//! terminal, SVG and HTML renderers; Nsight Compute launches placed on a
//! device's roof ([`FullProfileOptions`] for `NcuReport::full_profiles`).

mod analytical;
mod bricks;
mod error;
mod hierarchy;
mod html;
mod kernel;
mod levels;
mod nsight;
mod presets;
mod render;
mod svg;
mod svg_ceilings;
mod svg_levels;
mod units;

pub use analytical::{
    HardwareProfile, ROOFLINE_CONTRACT_ID, RooflineBottleneck, RooflineResult, compute_roofline,
};
pub use bricks::{BrickPoint, BrickRoofline, NotAnnotated};
pub use error::RooflineError;
pub use hierarchy::{Hierarchy, KernelLevels, LevelMark, LevelRoof};
pub use html::roofline_section;
pub use kernel::{KernelClassification, KernelRoofline};
pub use levels::{Annotation, LevelChoice, RooflineOptions};
pub use nsight::FullProfileOptions;
pub use units::{
    CacheCapacity, CeilingSource, ComputeCeiling, IMPOSSIBLE_TOLERANCE, Impossible, MemoryCeiling,
};
