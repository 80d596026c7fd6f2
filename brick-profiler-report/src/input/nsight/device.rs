//! The device of the hardware table an export names: the driver's device
//! name matched exactly (a different variant has other ceilings).

use crate::model::hardware::DeviceSpec;

/// Devices of the hardware table by the name the driver reports, matched
/// exactly: a different variant (H100 PCIe, A100 40GB) has other ceilings.
const DRIVER_NAMES: [(&str, &str); 8] = [
    ("NVIDIA GeForce RTX 4090", "RTX 4090"),
    ("NVIDIA H100 80GB HBM3", "H100 SXM"),
    ("NVIDIA H100 SXM5 80GB", "H100 SXM"),
    ("NVIDIA A100-SXM4-80GB", "A100 80GB SXM"),
    ("NVIDIA H200", "H200 SXM"),
    ("NVIDIA GeForce RTX 4060 Laptop GPU", "RTX 4060 Laptop"),
    ("NVIDIA GB10", "GB10"),
    ("Apple M2 Max", "Apple M2 Max"),
];

/// The device of the hardware table a driver-reported name denotes.
#[must_use]
pub fn device_from_driver_name(name: &str) -> Option<&'static DeviceSpec> {
    let name = name.trim();
    DRIVER_NAMES
        .iter()
        .find(|(driver, _)| driver.eq_ignore_ascii_case(name))
        .and_then(|(_, table)| DeviceSpec::lookup(table))
}
