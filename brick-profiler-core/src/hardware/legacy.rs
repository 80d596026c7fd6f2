//! Reading `run.hardware` of profiles written before it held [`Hardware`]:
//! they recorded a name, a DRAM bandwidth, one dense peak and the bytes a
//! token moves. Both shapes are read; only [`Hardware`] is written.

use serde::{Deserialize, Deserializer};

use super::figure::{Figure, Source};
use super::model::Hardware;
use super::units::{MemoryLevel, Precision};

/// `run.hardware` in either shape.
#[derive(Deserialize)]
#[serde(untagged)]
enum Recorded {
    /// The current shape.
    Hardware(Box<Hardware>),
    /// The shape of earlier profiles.
    Figures {
        name: String,
        #[serde(default)]
        peak_bw_gb_s: Option<f64>,
        #[serde(default)]
        peak_tflops: Option<f64>,
        #[serde(default)]
        bytes_per_token: Option<f64>,
    },
}

/// Reads `run.hardware` in the current shape or the earlier one. An earlier
/// profile's figures are marked [`Source::Profile`] and kept as written:
/// the profile's own validation judges them, naming the field.
pub(crate) fn recorded_hardware<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Hardware>, D::Error> {
    Ok(Option::<Recorded>::deserialize(d)?.map(|r| match r {
        Recorded::Hardware(hw) => *hw,
        Recorded::Figures {
            name,
            peak_bw_gb_s,
            peak_tflops,
            bytes_per_token,
        } => {
            let recorded = |v: f64| Figure::new(v, Source::Profile);
            let mut hw = Hardware::new(name);
            if let Some(bw) = peak_bw_gb_s {
                hw.memory.insert(MemoryLevel::Dram, recorded(bw));
            }
            if let Some(t) = peak_tflops {
                for p in [Precision::Bf16, Precision::Fp16] {
                    hw.compute.insert(p, recorded(t));
                }
            }
            hw.bytes_per_token = bytes_per_token.map(recorded);
            hw
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Run {
        #[serde(default, deserialize_with = "recorded_hardware")]
        hardware: Option<Hardware>,
    }

    fn read(json: &str) -> Option<Hardware> {
        serde_json::from_str::<Run>(json).unwrap().hardware
    }

    #[test]
    fn earlier_profiles_read_as_hardware_marked_recorded() {
        let hw = read(
            r#"{"hardware": {"name": "RTX 4090", "peak_bw_gb_s": 1008.0,
                "peak_tflops": 165.0, "bytes_per_token": 80772.0}}"#,
        )
        .unwrap();
        assert_eq!(hw.name, "RTX 4090");
        let dram = hw.memory(MemoryLevel::Dram).unwrap();
        assert_eq!((dram.value, &dram.source), (1008.0, &Source::Profile));
        assert_eq!(hw.compute(Precision::Fp16).unwrap().value, 165.0);
        assert_eq!(hw.dense_peak_tflops(), Some(165.0));
        assert_eq!(hw.bytes_per_token().unwrap().value, 80772.0);
        let bare = read(r#"{"hardware": {"name": "A100"}}"#).unwrap();
        assert!(bare.is_empty() && bare.bytes_per_token().is_none());
        assert!(read(r#"{"hardware": null}"#).is_none());
        assert!(read("{}").is_none());
    }

    #[test]
    fn the_current_shape_round_trips() {
        let mut hw = Hardware::new("box");
        hw.set_memory(
            MemoryLevel::L2Cache,
            Figure::new(300.0, Source::Measured { how: None }),
        )
        .unwrap();
        hw.set_bytes_per_token(Figure::new(5e6, Source::Given))
            .unwrap();
        let json = format!(r#"{{"hardware": {}}}"#, serde_json::to_string(&hw).unwrap());
        assert_eq!(read(&json), Some(hw));
    }

    #[test]
    fn a_profile_writes_only_the_current_shape_and_reads_it_back() {
        let mut p = crate::Profile::empty();
        let mut hw = Hardware::new("RTX 4090");
        hw.set_memory(MemoryLevel::Dram, Figure::new(1008.0, Source::Preset))
            .unwrap();
        p.run.hardware = Some(hw.clone());
        let json = p.to_json();
        assert!(!json.contains("peak_bw_gb_s"), "{json}");
        let back = crate::Profile::from_json(&json).unwrap();
        assert_eq!(back.run.hardware, Some(hw));
        // An earlier file's negative bandwidth is refused by the profile's
        // own validation, naming the field.
        let mut old: serde_json::Value = serde_json::from_str(&json).unwrap();
        old["run"]["hardware"] = serde_json::json!({"name": "x", "peak_bw_gb_s": -1.0});
        let e = crate::Profile::from_json(&old.to_string())
            .unwrap_err()
            .to_string();
        assert!(e.contains("run.hardware.memory.DRAM"), "{e}");
    }
}
