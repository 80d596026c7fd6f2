//! Rooflines of a [`Hardware`](profiler_core::hardware::Hardware): the
//! analytical decode roofline of contract `roofline-model-v1`
//! ([`compute_roofline`]), a kernel placed on one roof ([`classify`]) and
//! the per-brick roofline of a profile ([`BrickRoofline`]), with Markdown,
//! JSON, terminal, SVG and HTML renderers; Nsight Compute launches placed
//! on a device's roof ([`FullProfileOptions`] for
//! `NcuReport::full_profiles`).

mod analytical;
mod bricks;
mod device;
mod error;
mod hierarchy;
mod html;
mod kernel;
mod levels;
mod nsight;
mod render;
mod svg;
mod svg_ceilings;
mod svg_levels;
mod units;

pub(crate) use analytical::analytical_peaks;
pub use analytical::{
    OPS_PER_TOKEN, ROOFLINE_CONTRACT_ID, RooflineBottleneck, RooflineResult, compute_roofline,
};
pub use bricks::{BrickPoint, BrickRoofline, NotAnnotated};
pub use device::DevicePoint;
pub use error::RooflineError;
pub use hierarchy::{Hierarchy, KernelLevels, LevelMark, LevelRoof};
pub use html::roofline_section;
pub use kernel::{KernelClassification, classify, impossible, ridge_point};
pub use levels::{Annotation, LevelChoice, RooflineOptions, level_for};
pub use nsight::FullProfileOptions;
pub use units::{IMPOSSIBLE_TOLERANCE, Impossible};
