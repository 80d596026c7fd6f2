//! The one preset table of known devices (published dense peaks and
//! bandwidths; estimates marked as such) and lookup by name or alias. Every
//! preset the crate offers, for any report, is a row of [`DEVICES`].

use super::spec::HardwareSpec;

/// One row of the preset table: published ceilings of one device (dense, no
/// sparsity). `Hardware::preset` turns a row into
/// the hardware model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeviceSpec {
    /// Display name.
    pub name: &'static str,
    /// Lookup aliases, compared case-insensitively ignoring ` `, `-`, `_`.
    pub aliases: &'static [&'static str],
    /// Peak memory bandwidth, GB/s.
    pub mem_bw_gb_s: f64,
    /// Dense bf16/fp16 tensor peak with fp32 accumulation, TFLOP/s (`None`
    /// where no figure is published).
    pub bf16_tflops: Option<f64>,
    /// Dense fp16 peak with fp16 accumulation, where it differs.
    pub fp16_acc_tflops: Option<f64>,
    /// Dense fp32 peak, TFLOP/s.
    pub fp32_tflops: f64,
    /// Dense TF32 tensor peak, TFLOP/s, where published.
    pub tf32_tflops: Option<f64>,
    /// Dense INT8 tensor peak, TOP/s, where published.
    pub int8_tops: Option<f64>,
    /// L1 / shared-memory bandwidth, GB/s, where published.
    pub l1_gb_s: Option<f64>,
    /// L2 bandwidth, GB/s, where published.
    pub l2_gb_s: Option<f64>,
    /// Host link bandwidth, GB/s, where published.
    pub pcie_gb_s: Option<f64>,
    /// Whether the compute figures are estimates rather than published peaks.
    pub estimate: bool,
}

/// Known devices: memory bandwidth and dense compute peaks.
pub const DEVICES: &[DeviceSpec] = &[
    DeviceSpec {
        name: "A100 80GB SXM",
        aliases: &["a100", "a100-80gb", "a100-sxm", "a100-80gb-sxm"],
        mem_bw_gb_s: 2039.0,
        bf16_tflops: Some(312.0),
        fp16_acc_tflops: None,
        fp32_tflops: 19.5,
        tf32_tflops: None,
        int8_tops: None,
        l1_gb_s: None,
        l2_gb_s: None,
        pcie_gb_s: None,
        estimate: false,
    },
    DeviceSpec {
        name: "H100 SXM",
        aliases: &["h100", "h100-sxm", "h100-sxm5"],
        mem_bw_gb_s: 3350.0,
        bf16_tflops: Some(989.0),
        fp16_acc_tflops: None,
        fp32_tflops: 67.0,
        tf32_tflops: None,
        int8_tops: None,
        l1_gb_s: None,
        l2_gb_s: None,
        pcie_gb_s: None,
        estimate: false,
    },
    DeviceSpec {
        name: "H200 SXM",
        aliases: &["h200", "h200-sxm"],
        mem_bw_gb_s: 4800.0,
        bf16_tflops: Some(989.0),
        fp16_acc_tflops: None,
        fp32_tflops: 67.0,
        tf32_tflops: None,
        int8_tops: None,
        l1_gb_s: None,
        l2_gb_s: None,
        pcie_gb_s: None,
        estimate: false,
    },
    DeviceSpec {
        name: "RTX 4090",
        aliases: &["4090", "rtx4090", "geforce-rtx-4090"],
        mem_bw_gb_s: 1008.0,
        bf16_tflops: Some(165.0),
        fp16_acc_tflops: Some(330.0),
        fp32_tflops: 82.6,
        tf32_tflops: Some(165.0),
        int8_tops: Some(660.0),
        l1_gb_s: Some(19_000.0),
        l2_gb_s: Some(5300.0),
        pcie_gb_s: Some(32.0),
        estimate: false,
    },
    DeviceSpec {
        // Clocks depend on the laptop's power limit: 23-29 TFLOP/s bf16,
        // 11.6-14.6 fp32. The upper bound keeps MFU from being overstated.
        name: "RTX 4060 Laptop",
        aliases: &[
            "rtx_4060l",
            "4060l",
            "rtx4060l",
            "rtx-4060-laptop",
            "4060-laptop",
        ],
        mem_bw_gb_s: 256.0,
        bf16_tflops: Some(29.0),
        fp16_acc_tflops: None,
        fp32_tflops: 14.6,
        tf32_tflops: None,
        int8_tops: None,
        l1_gb_s: None,
        l2_gb_s: None,
        pcie_gb_s: None,
        estimate: true,
    },
    DeviceSpec {
        // No published dense bf16 figure: pass a peak explicitly for MFU.
        name: "GB10",
        aliases: &["gb10", "dgx-spark", "spark"],
        mem_bw_gb_s: 273.0,
        bf16_tflops: None,
        fp16_acc_tflops: None,
        fp32_tflops: 31.0,
        tf32_tflops: None,
        int8_tops: None,
        l1_gb_s: None,
        l2_gb_s: None,
        pcie_gb_s: None,
        estimate: true,
    },
    DeviceSpec {
        name: "Apple M2 Max",
        aliases: &["m2-max", "m2max", "apple-m2-max"],
        mem_bw_gb_s: 400.0,
        bf16_tflops: Some(13.6),
        fp16_acc_tflops: None,
        fp32_tflops: 13.6,
        tf32_tflops: None,
        int8_tops: None,
        l1_gb_s: None,
        l2_gb_s: None,
        pcie_gb_s: None,
        estimate: false,
    },
    DeviceSpec {
        name: "Apple M3 Max",
        aliases: &["m3-max", "m3max", "apple-m3-max"],
        mem_bw_gb_s: 400.0,
        bf16_tflops: Some(16.4),
        fp16_acc_tflops: None,
        fp32_tflops: 16.4,
        tf32_tflops: None,
        int8_tops: None,
        l1_gb_s: None,
        l2_gb_s: None,
        pcie_gb_s: None,
        estimate: false,
    },
];

/// Lowercase with ` `, `-` and `_` removed, so "RTX 4090" == "rtx-4090".
fn normalise(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, ' ' | '-' | '_'))
        .flat_map(char::to_lowercase)
        .collect()
}

impl DeviceSpec {
    /// Finds a device by name or alias (case-insensitive; spaces, `-` and `_`
    /// ignored): `"h100"`, `"A100"`, `"4090"`, `"rtx_4060l"`, `"GB10"`.
    #[must_use]
    pub fn lookup(name: &str) -> Option<&'static DeviceSpec> {
        let wanted = normalise(name);
        DEVICES.iter().find(|d| {
            normalise(d.name) == wanted || d.aliases.iter().any(|a| normalise(a) == wanted)
        })
    }

    /// This device's [`HardwareSpec`] for a model moving `bytes_per_token`.
    #[must_use]
    pub fn hardware_spec(&self, bytes_per_token: f64) -> HardwareSpec {
        HardwareSpec {
            peak_bw_gb_s: self.mem_bw_gb_s,
            bytes_per_token,
        }
    }

    /// Names accepted by [`DeviceSpec::lookup`], for error messages.
    #[must_use]
    pub fn known_names() -> String {
        DEVICES
            .iter()
            .map(|d| d.aliases[0])
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_accepts_aliases_in_any_case() {
        assert_eq!(DeviceSpec::lookup("H100").map(|d| d.name), Some("H100 SXM"));
        assert_eq!(
            DeviceSpec::lookup("a100").map(|d| d.mem_bw_gb_s),
            Some(2039.0)
        );
        assert_eq!(
            DeviceSpec::lookup("RTX 4090").map(|d| d.name),
            Some("RTX 4090")
        );
        assert_eq!(DeviceSpec::lookup("4090").map(|d| d.name), Some("RTX 4090"));
        assert_eq!(
            DeviceSpec::lookup("rtx_4060l").map(|d| d.mem_bw_gb_s),
            Some(256.0)
        );
        assert!(DeviceSpec::lookup("tpu-v9").is_none());
    }
}
