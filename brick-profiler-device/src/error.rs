//! Errors of the device timers: which device call failed and why, or what
//! the adapter lacks.

/// A device timer could not be set up or a device call failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DeviceError {
    /// A driver call failed (`call` names it, e.g. `cuEventCreate`).
    #[error("device call `{call}` failed: {message}")]
    Driver {
        /// The call that failed.
        call: &'static str,
        /// The driver's own words.
        message: String,
    },
    /// No device driver could be loaded or initialised.
    #[error("no {api} driver: {reason}")]
    NoDriver {
        /// The API looked for (`CUDA`, `Vulkan`).
        api: &'static str,
        /// Why it is missing.
        reason: String,
    },
    /// The device was created without a feature the timer needs.
    #[error(
        "the wgpu device was created without `{feature}`: add it to the DeviceDescriptor's \
         required_features (check `adapter.features()` first)"
    )]
    MissingFeature {
        /// The feature (`TIMESTAMP_QUERY`).
        feature: &'static str,
    },
    /// The adapter cannot provide a feature the timer needs.
    #[error("the adapter `{adapter}` does not offer `{feature}`")]
    AdapterLacks {
        /// The adapter's name.
        adapter: String,
        /// The feature (`TIMESTAMP_QUERY`).
        feature: &'static str,
    },
}
