//! The hardware model read the way users give it: the TOML and JSON files
//! `brick-profiler-report --hardware FILE` accepts, loaded through the library,
//! and the earlier flat JSON of `PROFILER_HARDWARE_FILE`.

use profiler_core::hardware::{MemoryLevel, Precision, Source};
use profiler_report::hardware::{DEVICES, DeviceSpec, HardwareError, from_file, preset, resolve};
use profiler_report::roofline::{BrickRoofline, classify};

const TOML: &str = r#"name = "lab RTX 4090"
device = "4090"
bytes_per_token = 2e6
[bandwidth_gb_s]
dram = 900
l3 = 3000
[peak_tflops]
fp64 = 1.3
bf16 = 150
"#;

const JSON: &str = r#"{
  "name": "lab box",
  "estimate": true,
  "bandwidth_gb_s": {"dram": 4.2, "l2": 40},
  "peak_tflops": {"fp32": 0.007}
}"#;

#[test]
fn the_cli_hardware_files_load_through_the_library() {
    let dir = tempfile::tempdir().unwrap();
    let toml = dir.path().join("lab.toml");
    std::fs::write(&toml, TOML).unwrap();
    let hw = from_file(&toml).unwrap();
    assert_eq!(hw.name, "lab RTX 4090");
    assert_eq!(hw.preset.as_deref(), Some("RTX 4090"));
    let in_file = Source::File {
        path: toml.clone(),
        estimate: false,
    };
    let dram = hw.memory(MemoryLevel::Dram).unwrap();
    assert_eq!((dram.value, &dram.source), (900.0, &in_file));
    assert_eq!(hw.memory(MemoryLevel::L3Cache).unwrap().value, 3000.0);
    assert_eq!(hw.compute(Precision::Fp64).unwrap().value, 1.3);
    // What the file does not set stays the preset's, and says so.
    let l1 = hw.memory(MemoryLevel::L1Cache).unwrap();
    assert_eq!((l1.value, &l1.source), (19_000.0, &Source::Preset));
    assert_eq!(hw.dense_peak_tflops(), Some(150.0));
    assert_eq!(hw.bytes_per_token().unwrap().value, 2e6);
    // `--hardware FILE` reads the same model.
    assert_eq!(resolve(toml.to_str().unwrap()).unwrap(), hw);

    let json = dir.path().join("lab.json");
    std::fs::write(&json, JSON).unwrap();
    let hw = from_file(&json).unwrap();
    assert_eq!(hw.name, "lab box");
    assert!(hw.memory(MemoryLevel::L2Cache).unwrap().is_estimate());
    assert_eq!(hw.compute(Precision::Fp32).unwrap().value, 0.007);
    assert!(hw.preset.is_none() && hw.compute(Precision::Bf16).is_none());
    let c = classify(&hw, 1.0, 1e9, Precision::Fp32, MemoryLevel::Dram).unwrap();
    assert!(c.estimate, "the file marks its figures as estimates");
}

#[test]
fn earlier_flat_json_files_still_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hw.json");
    std::fs::write(
        &path,
        r#"{"device": "a100", "peak_bw_gb_s": 1900, "peak_tflops": 280}"#,
    )
    .unwrap();
    let hw = from_file(&path).unwrap();
    assert_eq!(hw.name, "A100 80GB SXM");
    assert_eq!(hw.memory(MemoryLevel::Dram).unwrap().value, 1900.0);
    assert_eq!(hw.compute(Precision::Bf16).unwrap().value, 280.0);
    assert_eq!(hw.compute(Precision::Fp16).unwrap().value, 280.0);
    assert_eq!(hw.compute(Precision::Fp32).unwrap().value, 19.5);
}

#[test]
fn bad_files_name_the_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gpu.toml");
    std::fs::write(&path, "name = \"x\"\n\n[peak_tflops]\nfp32 = inf\n").unwrap();
    let e = from_file(&path).unwrap_err();
    assert!(
        matches!(&e, HardwareError::InvalidField { line: Some(4), field, .. } if field == "peak_tflops.fp32"),
        "{e}"
    );
    assert!(e.to_string().contains("gpu.toml"), "{e}");
    std::fs::write(&path, "[bandwidth_gb_s]\nl9 = 5\n").unwrap();
    let e = from_file(&path).unwrap_err().to_string();
    assert!(e.contains("line 2 field `bandwidth_gb_s.l9`"), "{e}");
    assert!(e.contains("expected l1, l2, l3"), "{e}");
    let e = from_file(dir.path().join("none.json")).unwrap_err();
    assert!(matches!(e, HardwareError::ReadFile { .. }), "{e}");
}

#[test]
fn the_one_preset_table_gives_every_preset() {
    let rtx = preset("4090").unwrap();
    assert_eq!(resolve("RTX 4090").unwrap(), rtx);
    assert_eq!(rtx.compute(Precision::Int8).unwrap().value, 660.0);
    assert_eq!(rtx.memory(MemoryLevel::Pcie).unwrap().value, 32.0);
    assert_eq!(
        rtx.memory(MemoryLevel::Dram).unwrap().source,
        Source::Preset
    );
    let gb10 = preset("gb10").unwrap();
    assert_eq!(gb10.memory(MemoryLevel::Dram).unwrap().value, 273.0);
    assert!(gb10.bytes_per_token().is_none());
    // Every row is found by its name and each alias, and is listed where an
    // unknown name is refused.
    let refused = resolve("tpu-v9").unwrap_err().to_string();
    for row in DEVICES {
        for name in std::iter::once(row.name).chain(row.aliases.iter().copied()) {
            assert_eq!(DeviceSpec::lookup(name).map(|d| d.name), Some(row.name));
        }
        assert!(refused.contains(row.aliases[0]), "{refused}");
        let hw = preset(row.name).unwrap();
        let r =
            BrickRoofline::from_profile(&profiler_core::Profile::empty(), &hw, None, None).unwrap();
        assert_eq!(r.hardware, hw);
    }
}
