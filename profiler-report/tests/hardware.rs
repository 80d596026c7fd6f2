//! The hardware model read the way users give it: the TOML and JSON files
//! `profiler-report --hardware FILE` accepts, loaded through the library,
//! and the earlier flat JSON of `PROFILER_HARDWARE_FILE`.

use profiler_report::hardware::HardwareSpec;
use profiler_report::hardware::{Hardware, HardwareError, MemoryLevel, Precision, Source};
use profiler_report::roofline::{CeilingSource, KernelRoofline};

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
    let hw = Hardware::from_file(&toml).unwrap();
    assert_eq!(hw.name, "lab RTX 4090");
    assert_eq!(hw.preset.as_deref(), Some("RTX 4090"));
    let from_file = Source::File {
        path: toml.clone(),
        estimate: false,
    };
    let dram = hw.memory(MemoryLevel::Dram).unwrap();
    assert_eq!((dram.value, &dram.source), (900.0, &from_file));
    assert_eq!(hw.memory(MemoryLevel::L3Cache).unwrap().value, 3000.0);
    assert_eq!(hw.compute(Precision::Fp64).unwrap().value, 1.3);
    // What the file does not set stays the preset's, and says so.
    let l1 = hw.memory(MemoryLevel::L1Cache).unwrap();
    assert_eq!((l1.value, &l1.source), (19_000.0, &Source::Preset));
    assert_eq!(hw.dense_peak_tflops(), Some(150.0));
    assert_eq!(
        hw.spec(),
        Some(HardwareSpec {
            peak_bw_gb_s: 900.0,
            bytes_per_token: 2e6
        })
    );
    let roof = KernelRoofline::from_hardware(&hw);
    assert_eq!(roof.source, CeilingSource::Custom);
    assert_eq!(roof.memory(MemoryLevel::L3Cache).unwrap().gb_s, 3000.0);

    let json = dir.path().join("lab.json");
    std::fs::write(&json, JSON).unwrap();
    let hw = Hardware::from_file(&json).unwrap();
    assert_eq!(hw.name, "lab box");
    assert!(hw.memory(MemoryLevel::L2Cache).unwrap().is_estimate());
    assert_eq!(hw.compute(Precision::Fp32).unwrap().value, 0.007);
    assert!(hw.preset.is_none() && hw.compute(Precision::Bf16).is_none());
    let roof = KernelRoofline::from_hardware(&hw);
    assert!(roof.compute(Precision::Fp32).unwrap().estimate);
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
    let hw = Hardware::from_file(&path).unwrap();
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
    let e = Hardware::from_file(&path).unwrap_err();
    assert!(
        matches!(&e, HardwareError::InvalidField { line: Some(4), field, .. } if field == "peak_tflops.fp32"),
        "{e}"
    );
    assert!(e.to_string().contains("gpu.toml"), "{e}");
    std::fs::write(&path, "[bandwidth_gb_s]\nl9 = 5\n").unwrap();
    let e = Hardware::from_file(&path).unwrap_err().to_string();
    assert!(e.contains("line 2 field `bandwidth_gb_s.l9`"), "{e}");
    assert!(e.contains("expected l1, l2, l3"), "{e}");
    let e = Hardware::from_file(dir.path().join("none.json")).unwrap_err();
    assert!(matches!(e, HardwareError::ReadFile { .. }), "{e}");
}

#[test]
fn the_one_preset_table_gives_the_roofline_presets() {
    let roof = KernelRoofline::rtx_4090();
    assert_eq!(
        roof,
        KernelRoofline::from_hardware(&Hardware::preset("4090").unwrap())
    );
    assert_eq!(roof.source, CeilingSource::Published);
    assert_eq!(roof.compute(Precision::Int8).unwrap().tflops, 660.0);
    assert_eq!(roof.memory(MemoryLevel::Pcie).unwrap().gb_s, 32.0);
    assert_eq!(
        Hardware::preset("gb10").unwrap().spec(),
        Some(HardwareSpec::gb10())
    );
}
