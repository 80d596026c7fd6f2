//! The one preset table of known devices (published dense peaks and
//! bandwidths; estimates marked as such) and lookup by name or alias. Every
//! preset the crate offers, for any report, is a row of [`DEVICES`]: adding
//! a device is adding a row there.

use profiler_core::hardware::{Figure, Hardware, MemoryLevel, Precision, Source};

use super::error::HardwareError;

/// One row of the preset table: published ceilings of one device (dense, no
/// sparsity), as data. [`preset`] and [`DeviceSpec::hardware`] turn a row
/// into the hardware model.
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
    /// Whether the row is the reference machine of a contract rather than a
    /// device: looked up by its name only, never recognised in a device
    /// name a trace gives.
    pub reference: bool,
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
        reference: false,
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
        reference: false,
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
        reference: false,
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
        reference: false,
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
        reference: false,
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
        reference: false,
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
        reference: false,
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
        reference: false,
    },
    DeviceSpec {
        // The generic Apple M-series figures of contract roofline-model-v1.
        name: "apple_m_series",
        aliases: &["apple_m_series", "apple-m-series"],
        mem_bw_gb_s: 100.0,
        bf16_tflops: None,
        fp16_acc_tflops: None,
        fp32_tflops: 1.0,
        tf32_tflops: None,
        int8_tops: None,
        l1_gb_s: None,
        l2_gb_s: None,
        pcie_gb_s: None,
        estimate: false,
        reference: true,
    },
    DeviceSpec {
        // The A100 of contract roofline-model-v1: its FP32 peak only.
        name: "nvidia_a100",
        aliases: &["nvidia_a100", "nvidia-a100"],
        mem_bw_gb_s: 2039.0,
        bf16_tflops: None,
        fp16_acc_tflops: None,
        fp32_tflops: 19.5,
        tf32_tflops: None,
        int8_tops: None,
        l1_gb_s: None,
        l2_gb_s: None,
        pcie_gb_s: None,
        estimate: false,
        reference: true,
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
        lookup_in(DEVICES, name)
    }

    /// The hardware of this row: every figure it has, compute figures
    /// marked as estimates where the row says so. FP16 takes the
    /// FP16-accumulate peak where one is published, else the BF16 peak.
    #[must_use]
    pub fn hardware(&self) -> Hardware {
        let compute_source = if self.estimate {
            Source::PresetEstimate
        } else {
            Source::Preset
        };
        let mut hw = Hardware::new(self.name);
        hw.preset = Some(self.name.to_owned());
        let compute = [
            (Precision::Fp32, Some(self.fp32_tflops)),
            (Precision::Bf16, self.bf16_tflops),
            (Precision::Fp16, self.fp16_acc_tflops.or(self.bf16_tflops)),
            (Precision::Tf32, self.tf32_tflops),
            (Precision::Int8, self.int8_tops),
        ];
        let memory = [
            (MemoryLevel::L1Cache, self.l1_gb_s),
            (MemoryLevel::L2Cache, self.l2_gb_s),
            (MemoryLevel::Dram, Some(self.mem_bw_gb_s)),
            (MemoryLevel::Pcie, self.pcie_gb_s),
        ];
        // The table's figures are within range (a test reads every row), so
        // a figure refused here would be a typo in the table: it is left out
        // rather than shown wrong.
        for (p, value) in compute {
            if let Some(v) = value {
                let _ = hw.set_compute(p, Figure::new(v, compute_source.clone()));
            }
        }
        for (l, value) in memory {
            if let Some(v) = value {
                let _ = hw.set_memory(l, Figure::new(v, Source::Preset));
            }
        }
        hw
    }

    /// The names a user types for the devices of the table, one per row
    /// (its first alias; reference rows left out), for error messages and
    /// the command line's help.
    #[must_use]
    pub fn known_names() -> String {
        names_in(DEVICES)
    }

    /// Every name [`preset`] lists when it refuses one: the devices, then
    /// the reference rows.
    pub(crate) fn every_name() -> String {
        let references: Vec<&str> = DEVICES
            .iter()
            .filter(|d| d.reference)
            .map(|d| d.aliases.first().copied().unwrap_or(d.name))
            .collect();
        format!(
            "{}; references: {}",
            names_in(DEVICES),
            references.join(", ")
        )
    }
}

/// The row of `table` named `name` (its name or an alias).
fn lookup_in<'t>(table: &'t [DeviceSpec], name: &str) -> Option<&'t DeviceSpec> {
    let wanted = normalise(name);
    table
        .iter()
        .find(|d| normalise(d.name) == wanted || d.aliases.iter().any(|a| normalise(a) == wanted))
}

/// The first alias of each device of `table` (its name when it has none),
/// reference rows left out.
fn names_in(table: &[DeviceSpec]) -> String {
    table
        .iter()
        .filter(|d| !d.reference)
        .map(|d| d.aliases.first().copied().unwrap_or(d.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A device of the preset table by name or alias (`h100`, `4090`,
/// `rtx_4060l`, ...; see [`DeviceSpec::lookup`]).
///
/// # Errors
/// [`HardwareError::UnknownDevice`] listing the names accepted.
pub fn preset(name: &str) -> Result<Hardware, HardwareError> {
    DeviceSpec::lookup(name)
        .map(DeviceSpec::hardware)
        .ok_or_else(|| HardwareError::UnknownDevice {
            name: name.to_owned(),
            origin: "the preset table".to_owned(),
            known: DeviceSpec::every_name(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_becomes_hardware_with_all_its_figures() {
        for row in DEVICES {
            let hw = row.hardware();
            assert_eq!(hw.name, row.name);
            assert_eq!(
                hw.memory(MemoryLevel::Dram).map(|f| f.value),
                Some(row.mem_bw_gb_s),
                "{}",
                row.name
            );
            assert_eq!(
                hw.compute(Precision::Fp32).map(|f| f.value),
                Some(row.fp32_tflops),
                "{}",
                row.name
            );
            assert!(hw.validate().is_ok(), "{}", row.name);
        }
    }

    #[test]
    fn presets_carry_every_figure_with_its_source() {
        let rtx = preset("4090").unwrap();
        let peak = |p| rtx.compute(p).unwrap().value;
        assert_eq!(
            [
                Precision::Fp32,
                Precision::Fp16,
                Precision::Tf32,
                Precision::Int8
            ]
            .map(peak),
            [82.6, 330.0, 165.0, 660.0]
        );
        let bw = |l| rtx.memory(l).unwrap().value;
        assert_eq!(
            [
                MemoryLevel::L1Cache,
                MemoryLevel::L2Cache,
                MemoryLevel::Dram,
                MemoryLevel::Pcie
            ]
            .map(bw),
            [19_000.0, 5300.0, 1008.0, 32.0]
        );
        assert_eq!(rtx.compute(Precision::Fp32).unwrap().source, Source::Preset);
        let laptop = preset("rtx_4060l").unwrap();
        assert!(laptop.compute(Precision::Bf16).unwrap().is_estimate());
        assert!(!laptop.memory(MemoryLevel::Dram).unwrap().is_estimate());
        assert_eq!(laptop.memory(MemoryLevel::Dram).unwrap().value, 256.0);
        assert_eq!(preset("gb10").unwrap().dense_peak_tflops(), None);
        assert!(matches!(
            preset("tpu"),
            Err(HardwareError::UnknownDevice { .. })
        ));
    }

    /// What a newcomer adds for a new device: one row. Every lookup and
    /// listing reads the table, so the row is found by name and alias,
    /// listed where names are shown (errors, the command line's help), and
    /// its hardware is what the rooflines judge against.
    #[test]
    fn a_row_added_to_the_table_is_found_listed_and_gives_its_figures() {
        const ROW: DeviceSpec = DeviceSpec {
            name: "Lab Accelerator X1",
            aliases: &["x1", "lab-x1"],
            mem_bw_gb_s: 2000.0,
            bf16_tflops: Some(400.0),
            fp16_acc_tflops: None,
            fp32_tflops: 50.0,
            tf32_tflops: None,
            int8_tops: None,
            l1_gb_s: None,
            l2_gb_s: None,
            pcie_gb_s: None,
            estimate: false,
            reference: false,
        };
        let table: Vec<DeviceSpec> = DEVICES.iter().copied().chain([ROW]).collect();
        assert_eq!(lookup_in(DEVICES, "lab x1"), None);
        for name in ["Lab Accelerator X1", "X1", "lab_x1"] {
            assert_eq!(lookup_in(&table, name), Some(&ROW), "{name}");
        }
        let listed = names_in(&table);
        assert!(listed.ends_with(", x1"), "{listed}");
        assert_eq!(names_in(DEVICES), DeviceSpec::known_names());
        // Its figures, as every report takes them (the integration tests
        // place bricks on the hardware of every row of the table).
        let hw = lookup_in(&table, "x1").map(DeviceSpec::hardware).unwrap();
        assert_eq!(hw.name, "Lab Accelerator X1");
        assert_eq!(hw.dense_peak_tflops(), Some(400.0));
        assert_eq!(hw.compute(Precision::Fp32).unwrap().value, 50.0);
        assert_eq!(hw.memory(MemoryLevel::Dram).unwrap().value, 2000.0);
    }

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
