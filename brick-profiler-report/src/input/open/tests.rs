//! Gzip read transparently, through [`open`] and the streamed trace reader,
//! on a real `.json.gz` Kineto trace, and binaries named for what they are.

use std::collections::HashMap;
use std::io::Write as _;

use flate2::Compression;
use flate2::write::GzEncoder;

use super::*;
use crate::model::chrome_trace::{Cat, ChromeTrace};

/// Holistic Trace Analysis' `nccl_data.json.gz`: a ResNet step on 2 ranks of
/// 8 A100s (see `tests/fixtures/real/kineto/PROVENANCE.md`).
const REAL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/fixtures/real/kineto/hta_nccl_a100_rank0.json.gz"
);

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// Total kernel time (µs) and launches of `name`, from the records.
fn kernel(trace: &ChromeTrace, name: &str) -> (f64, usize) {
    let mut by: HashMap<&str, (f64, usize)> = HashMap::new();
    for r in trace.records.iter().unwrap() {
        let r = r.unwrap();
        if r.cat == Cat::Kernel {
            let e = by.entry(&trace.texts[r.name as usize]).or_default();
            e.0 += r.dur;
            e.1 += 1;
        }
    }
    by.get(name).copied().unwrap_or_default()
}

#[test]
fn a_real_gzipped_kineto_trace_reads_as_its_json_does() {
    let Input::PytorchTrace(trace) = open(REAL).unwrap() else {
        panic!("not read as a PyTorch trace");
    };
    // Ground truth, from Python over the raw file:
    //   d = json.load(gzip.open(f)); X = [e for e in d["traceEvents"] if e["ph"] == "X"]
    //   len(X) == 26933 (every one with `ts` and `dur`, none a Python frame);
    //   sum(e["dur"] for e in X if e["cat"] == "kernel" and e["name"] == NCCL) == 46762.159
    //   over 15 kernels.
    assert_eq!(trace.event_count(), 26_933);
    assert_eq!(trace.dropped_count(), 0);
    let nccl = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)";
    let (total, count) = kernel(&trace, nccl);
    assert_eq!(count, 15);
    assert!((total - 46_762.159).abs() < 1e-6, "{total}");
    // What the trace says of where it ran.
    let devices = trace.devices();
    assert_eq!(devices.len(), 8);
    assert!(devices.iter().all(|d| d.name == "NVIDIA A100-PG509-200"));
    assert_eq!(devices[7].id, Some(7));
    assert_eq!(devices[0].compute_capability, Some((8, 0)));
    assert_eq!(devices[0].multiprocessors, Some(108));
    assert_eq!(devices[0].total_memory_bytes, Some(42_297_524_224));
    let rank = trace.rank().unwrap();
    assert_eq!((rank.rank, rank.world_size), (Some(0), Some(2)));
    assert_eq!(rank.backend.as_deref(), Some("nccl"));

    // The streamed reader takes the gzip bytes as they are, and gives what
    // the decompressed text gives.
    let gz = std::fs::read(REAL).unwrap();
    let from_gz = ChromeTrace::from_reader(gz.as_slice(), "t.json.gz").unwrap();
    let mut text = Vec::new();
    flate2::read::MultiGzDecoder::new(gz.as_slice())
        .read_to_end(&mut text)
        .unwrap();
    let plain = ChromeTrace::from_reader(text.as_slice(), "t.json").unwrap();
    assert_eq!(from_gz.event_count(), plain.event_count());
    assert_eq!(kernel(&from_gz, nccl), kernel(&plain, nccl));
    assert_eq!(from_gz.devices(), plain.devices());
}

#[test]
fn every_input_reads_through_gzip() {
    let profile = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../brick-profiler-cli/tests/fixtures/scorecard.json"
    ))
    .unwrap();
    let plain = read_bytes(&profile, "s.json").unwrap();
    let zipped = read_bytes(&gzip(&profile), "s.json.gz").unwrap();
    assert_eq!(plain.what(), zipped.what());
    let csv = b"ID,Kernel Name,Metric Name,Metric Unit,Metric Value\n";
    let e = read_bytes(&gzip(csv), "k.csv.gz").map(|i| i.what());
    let p = read_bytes(csv, "k.csv").map(|i| i.what());
    assert_eq!(e.is_ok(), p.is_ok(), "{e:?} {p:?}");
}

#[test]
fn a_gzip_bomb_stops_at_the_limit_with_an_error_that_says_so() {
    // 8 MiB of spaces inside a trace, against a 1 MiB limit.
    let mut doc = b"{\"traceEvents\": [".to_vec();
    doc.resize(8 << 20, b' ');
    doc.extend_from_slice(b"]}");
    let bomb = gzip(&doc);
    assert!(bomb.len() < 64 << 10, "{} bytes", bomb.len());
    let e = read_from(registry(), bomb.as_slice(), "bomb.json.gz", None, 1 << 20).unwrap_err();
    assert!(
        matches!(&e, InputError::Gzip { past_limit: Some(l), .. } if *l == 1 << 20),
        "{e}"
    );
    let msg = e.to_string();
    assert!(
        msg.contains("bomb.json.gz") && msg.contains("past the input limit"),
        "{msg}"
    );
    // Under the limit, the same document reads (and is refused for what it is).
    let e = read_from(registry(), bomb.as_slice(), "ok.json.gz", None, 16 << 20).unwrap_err();
    assert!(!matches!(e, InputError::Gzip { .. }), "{e}");
}

#[test]
fn a_cut_gzip_is_named_as_such_not_as_bad_json() {
    let doc = format!(
        "{{\"traceEvents\": [{}]}}",
        vec![
            r#"{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2}"#;
            50_000
        ]
        .join(",")
    );
    let mut gz = gzip(doc.as_bytes());
    gz.truncate(gz.len() * 2 / 3);
    let e = read_bytes(&gz, "cut.json.gz").unwrap_err();
    assert!(
        matches!(
            &e,
            InputError::Gzip {
                past_limit: None,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("does not decompress"), "{e}");
}

#[test]
fn binaries_are_named_inside_gzip_and_out() {
    let e = read_bytes(b"SQLite format 3\0\x10\0\x01\x01", "run.sqlite").unwrap_err();
    assert!(e.to_string().contains("nsys export --type json"), "{e}");
    let e = read_bytes(&gzip(b"PK\x03\x04\x14\0\0\0"), "t.json.gz").unwrap_err();
    assert!(
        matches!(&e, InputError::Binary { what, gzip: true, .. } if *what == "a zip archive"),
        "{e}"
    );
    assert!(e.to_string().contains("once decompressed from gzip"), "{e}");
    let e = read_bytes(&[0xff, 0xfe, 0x00, 0x01], "x.bin").unwrap_err();
    assert!(
        e.to_string().contains("binary, neither text nor gzip"),
        "{e}"
    );
}
