//! `probe`: this machine's ceilings in every format, and `--save`, which
//! writes a hardware file the roofline and scorecard read back, or refuses
//! (exit 1) when the machine was busy while probing.

mod common;

use common::run;

#[test]
fn probe_reports_every_level_and_saves_only_quiet_ceilings() {
    let out = run(&["probe", "--format", "json"]).expect(0);
    let c: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    // The hardware model: each figure says how it was measured.
    let dram = &c["memory"]["dram"];
    assert!(dram["value"].as_f64().is_some_and(|b| b > 0.0), "{c}");
    assert_eq!(dram["source"]["kind"], "measured", "{c}");
    assert!(
        dram["source"]["how"]["repetitions"]
            .as_u64()
            .is_some_and(|n| n >= 1),
        "{c}"
    );
    let fp32 = &c["compute"]["fp32"];
    assert!(fp32["value"].as_f64().is_some_and(|f| f > 0.0), "{c}");
    assert!(fp32["source"]["how"]["isa"].is_string(), "{c}");
    assert!(c["busy"].is_null() || c["busy"].is_string(), "{c}");
    assert!(
        c["probe"]["measured_at_unix_ns"]
            .as_u64()
            .is_some_and(|t| t > 0),
        "{c}"
    );

    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("saved/ceilings.toml");
    let path_text = path.to_str().expect("utf-8 temp dir");
    let out = run(&["probe", "--save", "--path", path_text]);
    match out.code {
        0 => {
            assert!(out.stderr.contains("saved to"), "{}", out.stderr);
            let text = std::fs::read_to_string(&path).expect("saved file");
            assert!(
                text.contains("[bandwidth_gb_s]") && text.contains("dram = "),
                "{text}"
            );
            // The saved file is a hardware file `--hardware` reads.
            let hw = profiler_report::hardware::from_file(&path).expect("it reads back");
            assert!(
                hw.memory(profiler_core::hardware::MemoryLevel::Dram)
                    .is_some()
            );
        }
        1 => {
            assert!(out.stderr.contains("busy machine"), "{}", out.stderr);
            assert!(
                out.stdout.contains("the machine was busy"),
                "{}",
                out.stdout
            );
            assert!(!path.exists());
        }
        other => panic!("exit {other}: {}", out.stderr),
    }
    let out = run(&["probe", "--path", path_text]).expect(2);
    assert!(out.stderr.contains("--save"), "{}", out.stderr);
}
