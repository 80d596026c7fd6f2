//! Opening a wgpu device with the timestamp features the wgpu timer
//! needs, for examples, tests and newcomers; real programs usually add the
//! features to the device they already create.

use wgpu::{
    Adapter, Backends, Device, DeviceDescriptor, Features, Instance, InstanceDescriptor, Queue,
    RequestAdapterOptions,
};

use crate::error::DeviceError;

/// What to install when no adapter is found, for the usual Linux case.
pub const INSTALL_HINT: &str = "install a Vulkan driver: on Debian or Ubuntu \
     `apt-get install mesa-vulkan-drivers` provides lavapipe, a software driver with timestamp queries";

/// An adapter and the device and queue opened on it with timestamp queries.
#[derive(Debug)]
pub struct TimedDevice {
    /// The adapter chosen.
    pub adapter: Adapter,
    /// The device, with `TIMESTAMP_QUERY` (and
    /// `TIMESTAMP_QUERY_INSIDE_ENCODERS` where the adapter offers it).
    pub device: Device,
    /// Its queue.
    pub queue: Queue,
}

impl TimedDevice {
    /// Opens the first adapter of `backends` with timestamp queries; the
    /// error names what is missing, with [`INSTALL_HINT`] when no adapter is.
    pub fn open(backends: Backends) -> Result<Self, DeviceError> {
        let instance = Instance::new(InstanceDescriptor {
            backends,
            ..InstanceDescriptor::new_without_display_handle()
        });
        let adapter =
            pollster::block_on(instance.request_adapter(&RequestAdapterOptions::default()))
                .map_err(|e| DeviceError::NoDriver {
                    api: "wgpu",
                    reason: format!("no adapter for {backends:?} ({e}); {INSTALL_HINT}"),
                })?;
        let offered = adapter.features();
        if !offered.contains(Features::TIMESTAMP_QUERY) {
            return Err(DeviceError::AdapterLacks {
                adapter: adapter.get_info().name,
                feature: "TIMESTAMP_QUERY",
            });
        }
        let features =
            offered & (Features::TIMESTAMP_QUERY | Features::TIMESTAMP_QUERY_INSIDE_ENCODERS);
        let (device, queue) = pollster::block_on(adapter.request_device(&DeviceDescriptor {
            label: Some("brick profiler"),
            required_features: features,
            ..DeviceDescriptor::default()
        }))
        .map_err(|e| DeviceError::Driver {
            call: "request_device",
            message: e.to_string(),
        })?;
        Ok(Self {
            adapter,
            device,
            queue,
        })
    }
}
