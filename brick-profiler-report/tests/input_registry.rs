//! The input layer: every format of the registry recognises a sample of its
//! own from the first bytes and reads it into its `Input`; odd but valid
//! inputs read as their producers meant; special and empty files are
//! refused by name.

use std::path::{Path, PathBuf};

use profiler_core::Profile;
use profiler_core::trace::{RecordedExecutionTrace, RecordedTraceEntry};
use profiler_report::input::{self, Input, InputError, SNIFF_BYTES, detect, read_bytes, registry};
use profiler_report::run::RunSummary;
use profiler_report::scorecard::{ScorecardError, TrainingScorecard};
use profiler_report::{
    export::full_profiles_json, input::nsight::parse_ncu_csv, roofline::FullProfileOptions,
};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate sits in the workspace")
        .to_path_buf()
}

fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(root().join(path)).expect("fixture")
}

const STEP_LINE: &str = r#"{"_profiler":"step_profiler_v2","steps":4,"avg_step_ms":10.0}"#;

/// (format name, a sample of it).
fn samples() -> Vec<(&'static str, Vec<u8>)> {
    let profile_bytes = fixture("brick-profiler-cli/tests/fixtures/profile.json");
    let profile = Profile::from_json(std::str::from_utf8(&profile_bytes).unwrap()).unwrap();
    let mut trace = RecordedExecutionTrace::new();
    trace.add_entry(RecordedTraceEntry::new(0, "allreduce"));
    let ncu = fixture("tests/fixtures/nsight/ncu_details.csv");
    let report = parse_ncu_csv(std::str::from_utf8(&ncu).unwrap(), "ncu.csv").unwrap();
    let full = report
        .full_profiles(&FullProfileOptions::default())
        .unwrap();
    vec![
        ("profile", profile_bytes),
        (
            "parity",
            RunSummary::from_profile(&profile, "ours")
                .to_parity_json()
                .into_bytes(),
        ),
        (
            "chrome-trace",
            profiler_report::chrome_trace_json(&profile).into_bytes(),
        ),
        (
            "pytorch-trace",
            fixture("tests/fixtures/pytorch/tiny_transformer_cpu.trace.json"),
        ),
        ("execution-trace", trace.to_json().unwrap().into_bytes()),
        (
            "scorecard",
            fixture("brick-profiler-cli/tests/fixtures/scorecard.json"),
        ),
        ("full-profiles", full_profiles_json(&full).into_bytes()),
        ("ncu-csv", ncu),
        ("ncu-csv", fixture("tests/fixtures/nsight/ncu_raw.csv")),
        (
            "nsys-stats",
            fixture("tests/fixtures/nsight/nsys_kern_sum.csv"),
        ),
        (
            "nsys-stats",
            fixture("tests/fixtures/nsight/nsys_kern_sum_boxed.txt"),
        ),
        (
            "step-log",
            format!("epoch 1\nINFO {STEP_LINE}\ndone\n").into_bytes(),
        ),
    ]
}

#[test]
fn the_registry_lists_every_format_once() {
    let names: Vec<&str> = registry().iter().map(|f| f.name()).collect();
    assert_eq!(
        names,
        [
            "profile",
            "parity",
            "chrome-trace",
            "pytorch-trace",
            "execution-trace",
            "scorecard",
            "full-profiles",
            "ncu-csv",
            "nsys-stats",
            "step-log",
        ]
    );
    for f in registry() {
        assert!(!f.what().is_empty(), "{}", f.name());
    }
}

#[test]
fn each_sample_is_told_from_its_first_bytes_and_read() {
    for (name, bytes) in samples() {
        let head = &bytes[..bytes.len().min(SNIFF_BYTES)];
        let format = detect(head).unwrap_or_else(|| panic!("{name}: not recognised"));
        assert_eq!(format.name(), name);
        let input = read_bytes(&bytes, name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(input.what(), format.what(), "{name}");
        // With a byte-order mark and leading whitespace, the same format.
        let mut padded = b"\xef\xbb\xbf \n\t".to_vec();
        padded.extend_from_slice(head);
        assert_eq!(detect(&padded).map(|f| f.name()), Some(name), "{name}");
    }
}

#[test]
fn a_log_of_json_step_records_reads_line_by_line() {
    // One record per line: the first line starts like a JSON document, but
    // the file is a log, not one document ("trailing characters").
    let log = format!(
        "{STEP_LINE}\n{}\n",
        STEP_LINE.replace("\"steps\":4", "\"steps\":9")
    );
    match read_bytes(log.as_bytes(), "train.log").unwrap() {
        Input::StepLog(input) => assert_eq!(input.steps, 9, "the last line wins"),
        other => panic!("{}", other.what()),
    }
}

#[test]
fn a_byte_order_mark_inside_a_concatenated_ncu_export_adds_no_kernel() {
    let csv = String::from_utf8(fixture("tests/fixtures/nsight/ncu_details.csv")).unwrap();
    let one = parse_ncu_csv(&csv, "a.csv").unwrap();
    let header_end = csv.find('\n').unwrap() + 1;
    // A second export's rows, each as `cat` leaves them after a BOM.
    let rows: String = csv[header_end..]
        .lines()
        .filter(|l| l.starts_with('"'))
        .map(|l| format!("\u{feff}{l}\n"))
        .collect();
    let concatenated = format!("\u{feff}{csv}{rows}");
    let both = parse_ncu_csv(&concatenated, "both.csv").unwrap();
    assert_eq!(both.kernels.len(), one.kernels.len());
    let names = |r: &profiler_report::input::nsight::NcuReport| {
        r.kernels.iter().map(|k| k.name.clone()).collect::<Vec<_>>()
    };
    assert_eq!(names(&both), names(&one));
}

#[test]
fn special_and_blank_files_are_refused_by_name() {
    let e = input::open("/dev/zero").unwrap_err();
    assert!(
        matches!(&e, InputError::NotAFile { what, .. } if *what == "a character device"),
        "{e}"
    );
    assert!(e.to_string().contains("/dev/zero"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let blank = dir.path().join("blank.json");
    std::fs::write(&blank, " \n".repeat(SNIFF_BYTES)).unwrap();
    let e = input::open(&blank).unwrap_err();
    assert!(matches!(e, InputError::Empty { .. }), "{e}");
    assert!(e.to_string().contains("blank.json"), "{e}");
    let e = input::open(dir.path()).unwrap_err();
    assert!(
        matches!(e, InputError::NotAFile { .. } | InputError::Read { .. }),
        "{e}"
    );
    let e = read_bytes(&[0xff, 0xfe, 0x00], "bin").unwrap_err();
    assert!(
        matches!(&e, InputError::Binary { what, gzip: false, .. } if what.contains("neither text nor gzip")),
        "{e}"
    );
    let e = read_bytes(b"{\"colour\": 1}", "odd.json").unwrap_err();
    assert!(matches!(e, InputError::UnrecognisedJson { .. }), "{e}");
    let e = read_bytes(b"[1, 2]", "odd.json").unwrap_err();
    assert!(matches!(e, InputError::Unrecognised { .. }), "{e}");
}

#[test]
fn a_saved_scorecard_is_read_as_a_document_that_the_scorecard_reads() {
    let bytes = fixture("brick-profiler-cli/tests/fixtures/scorecard.json");
    let Input::Scorecard(saved) = read_bytes(&bytes, "base.json").unwrap() else {
        panic!("not a scorecard");
    };
    assert_eq!(saved.origin(), "base.json");
    let expected = TrainingScorecard::from_json(std::str::from_utf8(&bytes).unwrap()).unwrap();
    assert_eq!(TrainingScorecard::from_saved(&saved).unwrap(), expected);
    // Well-formed JSON whose field has the wrong shape is the scorecard's
    // error, naming the document.
    let Input::Scorecard(odd) = read_bytes(b"{\"efficiency\": \"high\"}", "odd.json").unwrap()
    else {
        panic!("not a scorecard");
    };
    let e = TrainingScorecard::from_saved(&odd).unwrap_err();
    assert!(
        matches!(&e, ScorecardError::BaselineMalformed { path, .. } if path.ends_with("odd.json")),
        "{e}"
    );
    // Malformed JSON is the input's error.
    let e = read_bytes(b"{\"efficiency\": 0.5,", "cut.json").unwrap_err();
    assert!(matches!(e, InputError::Malformed { .. }), "{e}");
}

/// A Kineto trace whose first value outgrows the inspected bytes: a
/// `deviceProperties` of many devices before `traceEvents`.
fn late_events_trace(first_key: &str) -> Vec<u8> {
    let device = r#"{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85029158912, "computeMajor": 9, "computeMinor": 0, "numSms": 132}"#;
    let devices = vec![device; 2 * SNIFF_BYTES / device.len()].join(", ");
    format!(
        r#"{{"{first_key}": [{devices}], "distributedInfo": {{"rank": 5, "world_size": 16}},
            "traceEvents": [{{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2}}]}}"#
    )
    .into_bytes()
}

#[test]
fn a_trace_whose_events_come_after_the_inspected_bytes_is_still_read() {
    let bytes = late_events_trace("deviceProperties");
    assert!(bytes.len() > 2 * SNIFF_BYTES);
    let Input::PytorchTrace(trace) = read_bytes(&bytes, "late.json").unwrap() else {
        panic!("not read as a PyTorch trace");
    };
    assert_eq!(trace.event_count(), 1);
    assert!(trace.devices().len() > 900, "{}", trace.devices().len());
    assert_eq!(trace.devices()[0].name, "NVIDIA H100 80GB HBM3");
    let rank = trace.rank().unwrap();
    assert_eq!((rank.rank, rank.world_size), (Some(5), Some(16)));
}

#[test]
fn a_json_object_of_no_known_keys_is_refused_naming_what_was_seen() {
    let bytes = late_events_trace("gpus");
    let e = read_bytes(&bytes, "late.json").unwrap_err();
    assert!(
        matches!(&e, InputError::UnrecognisedJson { keys, .. } if keys == &["gpus"]),
        "{e}"
    );
    let msg = e.to_string();
    assert!(
        msg.contains("`late.json` is a JSON object")
            && msg.contains(&format!("first {SNIFF_BYTES} bytes"))
            && msg.contains("`gpus`")
            && msg.contains("no `traceEvents`"),
        "{msg}"
    );
}
