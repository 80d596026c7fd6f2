//! The library's readers of a user's file by path read it gzipped as
//! plain: each real file below, gzipped at run time, reads as the file
//! itself does (Nsight exports, a parity profile saved from a real trace).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::write::GzEncoder;
use profiler_report::input::nsight::{read_ncu_csv, read_nsys_stats};
use profiler_report::parity::{OpMapping, import_pytorch_trace, ms_per_step};
use profiler_report::run::RunSummary;

fn real(kind: &str, name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/real")
        .join(kind)
        .join(name)
}

/// A gzipped copy of `path` in `dir`, named as it with `.gz`.
fn gzipped(path: &Path, dir: &Path) -> PathBuf {
    let mut e = GzEncoder::new(Vec::new(), Compression::default());
    e.write_all(&std::fs::read(path).unwrap()).unwrap();
    let name = format!("{}.gz", path.file_name().unwrap().to_str().unwrap());
    let gz = dir.join(name);
    std::fs::write(&gz, e.finish().unwrap()).unwrap();
    gz
}

#[test]
fn nsight_exports_read_gzipped_as_plain() {
    let dir = tempfile::tempdir().unwrap();
    let ncu = real("nsight", "ncu_sm120_gemm_details.csv");
    let (a, mut b) = (
        read_ncu_csv(&ncu).unwrap(),
        read_ncu_csv(gzipped(&ncu, dir.path())).unwrap(),
    );
    assert!(
        b.origin.ends_with("ncu_sm120_gemm_details.csv.gz"),
        "{}",
        b.origin
    );
    assert!(!a.kernels.is_empty());
    b.origin.clone_from(&a.origin);
    assert_eq!(b, a);
    let nsys = real("nsight", "nsys_legacy_conv.md");
    let (a, mut b) = (
        read_nsys_stats(&nsys).unwrap(),
        read_nsys_stats(gzipped(&nsys, dir.path())).unwrap(),
    );
    assert!(!a.kernels.is_empty());
    b.origin.clone_from(&a.origin);
    assert_eq!(b, a);
    // A file that is no text still says what to do, gzipped or not.
    let png = dir.path().join("chart.png");
    std::fs::write(&png, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe").unwrap();
    let e = read_ncu_csv(gzipped(&png, dir.path()))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("chart.png.gz") && e.contains("not UTF-8 text"),
        "{e}"
    );
}

#[test]
fn a_saved_parity_profile_reads_gzipped_as_plain() {
    let dir = tempfile::tempdir().unwrap();
    let mapping =
        OpMapping::from_file(real("kineto", "stock_tiny_transformer.mapping.toml")).unwrap();
    let import =
        import_pytorch_trace(real("kineto", "stock_tiny_transformer_cpu.json"), &mapping).unwrap();
    assert!(!ms_per_step(&import.summary).is_empty());
    let saved = dir.path().join("torch.parity.json");
    import.summary.write_parity(&saved).unwrap();
    let plain = RunSummary::read_parity(&saved).unwrap();
    let gz = RunSummary::read_parity(gzipped(&saved, dir.path())).unwrap();
    assert_eq!(gz, plain);
    // A parity file holds ms per step, read back to the ns.
    let (written, read) = (ms_per_step(&import.summary), ms_per_step(&plain));
    assert_eq!(
        read.keys().collect::<Vec<_>>(),
        written.keys().collect::<Vec<_>>()
    );
    assert!(
        read.iter().all(|(k, ms)| (ms - written[k]).abs() <= 0.5e-6),
        "{read:?} vs {written:?}"
    );
    assert_eq!(
        (plain.name.as_str(), &plain.notes),
        ("pytorch", &import.summary.notes)
    );
    // A folder is named for what it is.
    let e = RunSummary::read_parity(dir.path()).unwrap_err().to_string();
    assert!(e.contains("a directory, not a regular file"), "{e}");
}
