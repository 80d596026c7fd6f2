//! Nsight Compute launches on the roofline: the device each is judged
//! against and its place under that roof, building the [`FullProfile`]s of
//! an [`NcuReport`](crate::input::nsight::NcuReport).
//!
//! [`FullProfile`]: crate::input::nsight::FullProfile

mod build;
mod device;
mod levels;
mod placement;

pub use build::FullProfileOptions;
pub(crate) use device::capability_note;
pub(crate) use placement::roof_precision;
