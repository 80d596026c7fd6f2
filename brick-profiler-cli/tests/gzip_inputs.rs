//! Every file a user hands the CLI is read through the one reader: a
//! gzipped copy of a real input reads as the plain file does, whichever
//! path reads it (`FILE#N`, `--report N`, thresholds, baselines, hardware
//! files, op mappings), and a FIFO among them is refused without waiting
//! for a writer.

mod common;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Out, PROFILE, root, run_bounded, run_with};
use flate2::Compression;
use flate2::write::GzEncoder;

/// The real five-run `nsys stats` capture.
const FIVE_RUNS: &str = "tests/fixtures/real/nsight/nsys_five_runs_a100.md";

/// Copies `from` (relative to the root) into `dir` as `name`, and a gzipped
/// copy as `name.gz`.
fn plain_and_gzipped(dir: &Path, from: &str, name: &str) -> (String, String) {
    let bytes = std::fs::read(root().join(from)).unwrap();
    std::fs::write(dir.join(name), &bytes).unwrap();
    let mut e = GzEncoder::new(Vec::new(), Compression::default());
    e.write_all(&bytes).unwrap();
    let gz = format!("{name}.gz");
    std::fs::write(dir.join(&gz), e.finish().unwrap()).unwrap();
    (name.to_owned(), gz)
}

/// Runs with each argument list, the second naming the gzipped copies:
/// both succeed, and print the same once the file names are made alike.
#[track_caller]
fn same_output(dir: &Path, plain: &[&str], gzipped: &[&str], names: &[(&str, &str)]) -> Out {
    let a = run_with(dir, plain, None).expect(0);
    let b = run_with(dir, gzipped, None);
    assert_eq!(b.code, 0, "{gzipped:?}: {}", b.stderr);
    let mut unified = b.stdout.clone();
    for (gz, name) in names {
        unified = unified.replace(gz, name);
    }
    assert!(!a.stdout.trim().is_empty(), "{plain:?} printed nothing");
    assert_eq!(unified, a.stdout, "{gzipped:?} read differently");
    b
}

#[test]
fn a_gzipped_capture_gives_its_summaries_by_number_as_the_plain_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (md, gz) = plain_and_gzipped(d, FIVE_RUNS, "five.md");
    let names = [(gz.as_str(), md.as_str())];
    for n in ["2", "5"] {
        // `FILE#N`.
        let (p, g) = (format!("{md}#{n}"), format!("{gz}#{n}"));
        let out = same_output(
            d,
            &["import", "nsys", &p, "--format", "json"],
            &["import", "nsys", &g, "--format", "json"],
            &names,
        );
        assert!(out.stdout.contains("kernel"), "{}", out.stdout);
        // `--report N`: read again when the first read finds several.
        same_output(
            d,
            &["--report", n, "import", "nsys", &md, "--format", "json"],
            &["--report", n, "import", "nsys", &gz, "--format", "json"],
            &names,
        );
    }
    // Two summaries of the same gzipped capture compared.
    same_output(
        d,
        &["diff", &format!("{md}#4"), &format!("{md}#5")],
        &["diff", &format!("{gz}#4"), &format!("{gz}#5")],
        &names,
    );
}

#[test]
fn gzipped_settings_read_as_the_plain_ones() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let profile = root().join(PROFILE);
    let profile = profile.to_str().unwrap();
    // A baseline scorecard.
    let (base, base_gz) = plain_and_gzipped(
        d,
        "brick-profiler-cli/tests/fixtures/scorecard.json",
        "base.json",
    );
    same_output(
        d,
        &["scorecard", profile, "--baseline", &base],
        &["scorecard", profile, "--baseline", &base_gz],
        &[],
    );
    // Thresholds, told TOML through the `.gz`: a grade-A bar no run reaches.
    std::fs::write(d.join("t.toml"), "grade_a = 0.99\ngrade_b = 0.98\n").unwrap();
    let (t, t_gz) = plain_and_gzipped(d, &d.join("t.toml").display().to_string(), "t.toml");
    same_output(
        d,
        &["scorecard", profile, "--thresholds", &t, "--format", "json"],
        &[
            "scorecard",
            profile,
            "--thresholds",
            &t_gz,
            "--format",
            "json",
        ],
        &[],
    );
    // A hardware file.
    std::fs::write(
        d.join("lab.toml"),
        "name = \"lab\"\n[bandwidth_gb_s]\ndram = 50\n[peak_tflops]\nfp32 = 1.5\n",
    )
    .unwrap();
    let (hw, hw_gz) = plain_and_gzipped(d, &d.join("lab.toml").display().to_string(), "lab.toml");
    let out = same_output(
        d,
        &["roofline", profile, "--hardware", &hw],
        &["roofline", profile, "--hardware", &hw_gz],
        &[(&hw_gz, &hw)],
    );
    assert!(out.stdout.contains("lab"), "{}", out.stdout);
    // A real op mapping, with the real trace it maps.
    let (m, m_gz) = plain_and_gzipped(
        d,
        "tests/fixtures/real/kineto/stock_tiny_transformer.mapping.toml",
        "ops.toml",
    );
    let trace = root().join("tests/fixtures/real/kineto/stock_tiny_transformer_cpu.json");
    let trace = trace.to_str().unwrap();
    let out = same_output(
        d,
        &["parity", profile, trace, "--mapping", &m],
        &["parity", profile, trace, "--mapping", &m_gz],
        &[],
    );
    assert!(out.stdout.contains("QkvProjection"), "{}", out.stdout);
}

#[cfg(unix)]
#[test]
fn a_fifo_given_as_settings_is_refused_without_waiting_for_a_writer() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let made = Command::new("mkfifo").arg(d.join("pipe.toml")).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    let profile: PathBuf = root().join(PROFILE);
    let profile = profile.to_str().unwrap();
    for args in [
        &["scorecard", profile, "--thresholds", "pipe.toml"][..],
        &["scorecard", profile, "--baseline", "pipe.toml"],
        &["roofline", profile, "--hardware", "pipe.toml"],
        &["parity", profile, profile, "--mapping", "pipe.toml"],
    ] {
        let out = run_bounded(d, args).unwrap_or_else(|| panic!("{args:?} waited on the FIFO"));
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(
            out.stderr.contains("pipe.toml") && out.stderr.contains("a FIFO, not a regular file"),
            "{args:?}: {}",
            out.stderr
        );
    }
}
