//! [`TimeBase`]: which clock the scorecard's per-brick and per-layer times,
//! hotspots and device efficiency were read on. Host time by default;
//! device time when the profile captured kernels (`Profile::device_kernels`),
//! with the bricks and layers that launched none kept on host time and named.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The clock behind a scorecard's brick and layer times.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeSource {
    /// Wall time on the host, as the bricks' guards measured it.
    #[default]
    Host,
    /// Device time of the captured kernels, copies and sets each brick
    /// and layer launched.
    Device,
}

/// Which clock the per-brick and per-layer times, hotspots and device
/// efficiency use, and what was left on the host clock.
///
/// On device time a brick's hotspot time is its *self* device time (the
/// activities launched with it innermost), so the shares add up to the
/// captured device time; a layer's time is the device time of everything
/// launched inside its scope. Device activities launched outside every
/// brick (or whose launch was not captured) are their own hotspot rows,
/// [`TimeBase::OUTSIDE_BRICKS`] and [`TimeBase::UNKNOWN_LAUNCH`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TimeBase {
    /// Host or device.
    pub source: TimeSource,
    /// Kernels captured (device time only).
    pub kernels: u64,
    /// Copies and sets captured (device time only).
    pub copies: u64,
    /// Bricks that launched nothing on the device: their hotspot and layer
    /// op times stay on host time.
    pub host_bricks: Vec<String>,
    /// Layers (`layer 3 bwd`) that launched nothing on the device: their
    /// time stays on host time.
    pub host_layers: Vec<String>,
    /// The capture lost records (dropped buffers, records or launches, a
    /// failed flush): device times are lower bounds.
    pub partial: bool,
}

impl TimeBase {
    /// The hotspot row of device activities launched outside every brick.
    pub const OUTSIDE_BRICKS: &'static str = "(outside any brick)";
    /// The hotspot row of device activities whose launch was not captured.
    pub const UNKNOWN_LAUNCH: &'static str = "(launch not captured)";

    /// Whether times are device times.
    #[must_use]
    pub fn is_device(&self) -> bool {
        self.source == TimeSource::Device
    }

    /// Whether `op` (a hotspot or top-op name) kept host time in a
    /// device-time scorecard.
    #[must_use]
    pub fn on_host(&self, op: &str) -> bool {
        self.is_device() && self.host_bricks.iter().any(|b| b == op)
    }

    /// Whether layer `layer` in direction `short` (`fwd`, `bwd`) kept host
    /// time in a device-time scorecard.
    #[must_use]
    pub fn layer_on_host(&self, layer: usize, short: &str) -> bool {
        self.is_device() && self.host_layers.contains(&layer_label(layer, short))
    }
}

/// `layer 3 bwd`: how a layer is named in [`TimeBase::host_layers`].
pub(crate) fn layer_label(layer: usize, short: &str) -> String {
    format!("layer {layer} {short}")
}

impl fmt::Display for TimeBase {
    /// `host time`, or `device time from 12 captured kernels (and 3 copies
    /// or sets)`, with what stayed on host time.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.is_device() {
            return f.write_str("host time");
        }
        write!(f, "device time from {} captured kernels", self.kernels)?;
        if self.copies > 0 {
            write!(f, " and {} copies or sets", self.copies)?;
        }
        if self.partial {
            f.write_str(" (capture lost records: device times are lower bounds)")?;
        }
        let host = self.host_bricks.len() + self.host_layers.len();
        if host > 0 {
            write!(
                f,
                "; {} brick(s) and {} layer(s) without a kernel keep host time, marked (host)",
                self.host_bricks.len(),
                self.host_layers.len()
            )?;
        }
        Ok(())
    }
}
