//! Which device a kernel is judged against: the one given, else the one the
//! export names when the driver's name matches a device of the hardware
//! table exactly, with a note when the two disagree.

use profiler_core::hardware::Hardware;

use crate::input::nsight::ncu_metrics::KernelMetrics;
use crate::input::nsight::{HardwareSection, NcuKernel, device_from_driver_name};

/// Compute capabilities of the devices of the hardware table, to catch a
/// `--hardware` that is not the device the export was taken on.
const COMPUTE_CAPABILITY: [(&str, &str); 5] = [
    ("RTX 4090", "8.9"),
    ("RTX 4060 Laptop", "8.9"),
    ("A100 80GB SXM", "8.0"),
    ("H100 SXM", "9.0"),
    ("H200 SXM", "9.0"),
];

/// A note when the export's compute capability `cc` is not that of the
/// table's device `device` (the `--hardware` given is probably not the
/// device the kernels ran on); `None` when they agree or the device's is
/// not known.
pub(crate) fn capability_note(device: &str, cc: &str) -> Option<String> {
    let (_, expected) = COMPUTE_CAPABILITY.iter().find(|(d, _)| *d == device)?;
    (cc.trim() != *expected).then(|| {
        format!(
            "the export's compute capability {cc} is not that of {device} ({expected}): \
             is it the device this kernel ran on?"
        )
    })
}

/// The roofline to judge against and the hardware section describing it.
pub(crate) fn hardware(
    k: &NcuKernel,
    m: &KernelMetrics,
    given: Option<&Hardware>,
    given_origin: Option<&str>,
    notes: &mut Vec<String>,
) -> (Option<Hardware>, HardwareSection) {
    let detected = m.device_name.as_deref().and_then(device_from_driver_name);
    let (roof, origin) = match (given, detected) {
        (Some(r), _) => {
            if let Some(name) = &m.device_name
                && detected.is_none_or(|d| d.name != r.name)
            {
                notes.push(format!(
                    "judged against {} as given, although the export names the device `{name}`",
                    r.name
                ));
            }
            let origin = given_origin.unwrap_or("given").to_owned();
            (Some(r.clone()), origin)
        }
        (None, Some(d)) => (
            Some(d.hardware()),
            format!(
                "detected from the device name `{}`",
                m.device_name.as_deref().unwrap_or_default()
            ),
        ),
        (None, None) => (
            None,
            m.device_name.as_deref().map_or_else(
                || "unknown".to_owned(),
                |name| {
                    format!(
                        "unknown: the export names the device `{name}`, which the hardware \
                         table does not hold (give --hardware NAME|FILE)"
                    )
                },
            ),
        ),
    };
    if let (Some(r), Some(cc)) = (&roof, k.compute_capability.as_deref())
        && let Some(note) = capability_note(&r.name, cc)
    {
        notes.push(note);
    }
    let section = HardwareSection {
        ceilings: roof.clone(),
        origin,
        device: k.device.clone(),
        device_name: m.device_name.clone(),
        compute_capability: k.compute_capability.clone(),
    };
    (roof, section)
}
