//! Nsight outputs from public repositories (`tests/fixtures/real/nsight/`,
//! sources in its PROVENANCE.md) through the command line, as a user holding
//! them would run it: each is read right, or refused with a message that
//! says what the file is and what to do.

mod common;

use common::run;

fn real(name: &str) -> String {
    format!("tests/fixtures/real/nsight/{name}")
}

/// A console capture pasted from `[3/8] Executing 'nvtx_sum' stats report`
/// on: its 22-kernel summary is read (sum of the kernels' total times
/// 10,278,282,158 ns, by python3 over the file).
#[test]
fn a_console_capture_cut_at_the_top_is_imported() {
    let out = run(&["import", "nsys", &real("nsys_cut_at_nvtx_cagra.txt")])
        .expect(0)
        .stdout;
    assert!(out.contains(", 22 kernel(s)"), "{out}");
    assert!(
        out.contains("24.7%       2931       2.54 s") && out.contains("sum_doc_scores_kernel("),
        "{out}"
    );
    let json = run(&[
        "import",
        "nsys",
        &real("nsys_cut_at_nvtx_cagra.txt"),
        "--format",
        "json",
    ])
    .expect(0)
    .stdout;
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let total: f64 = v["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["total_ns"].as_f64().unwrap())
        .sum();
    assert_eq!(total, 10_278_282_158.0);
}

/// `--report N` on a file with one kernel summary is refused like `FILE#N`,
/// naming the flag the user gave; `--report 1` and `FILE#1` read it.
#[test]
fn report_beyond_the_one_summary_is_refused_like_file_hash_n() {
    let file = real("nsys_cut_at_nvtx_cagra.txt");
    let by_flag = run(&["--report", "5", "import", "nsys", &file])
        .expect(2)
        .stderr;
    let hashed = format!("{file}#5");
    let by_name = run(&["import", "nsys", &hashed]).expect(2).stderr;
    let holds = format!("`{file}` holds 1 kernel summary (numbered from 1): line 80 (22 kernels)");
    assert!(
        by_flag.contains(&format!("`--report 5`: {holds}")),
        "{by_flag}"
    );
    assert!(
        by_name.contains(&format!("`{hashed}`: {holds}")),
        "{by_name}"
    );
    for n in ["0", "2"] {
        let e = run(&["--report", n, "import", "nsys", &file])
            .expect(2)
            .stderr;
        assert!(e.contains(&format!("`--report {n}`")), "{e}");
    }
    run(&["--report", "1", "import", "nsys", &file]).expect(0);
    run(&["import", "nsys", &format!("{file}#1")]).expect(0);
}

/// Several summaries: the message names the command line's ways to pick
/// one, never a library function.
#[test]
fn several_summaries_are_picked_with_the_command_lines_words() {
    let e = run(&["import", "nsys", &real("nsys_five_runs_a100.md")])
        .expect(2)
        .stderr;
    assert!(
        e.contains("(1 to 5): `--report N` for every input, or `FILE#N` for one"),
        "{e}"
    );
    assert!(!e.contains("parse_nsys"), "{e}");
}

/// ncu without `--csv`: the human-readable `Section:` tables of two
/// launches (the first 153 lines of a real log). The message says what the
/// file is and to rerun with `--csv`, not "nor any other input we read".
#[test]
fn human_readable_ncu_output_says_to_rerun_with_csv() {
    let e = run(&["import", "ncu", &real("ncu_text_layernorm_excerpt.log")])
        .expect(2)
        .stderr;
    assert!(
        e.contains("is Nsight Compute's human-readable output (2 kernel launch(es)"),
        "{e}"
    );
    assert!(
        e.contains("rerun ncu with `--csv` (`ncu --csv --page details") && e.contains("--page raw"),
        "{e}"
    );
    assert!(!e.contains("nor any other input"), "{e}");
    // Any command that takes a run says the same.
    let e = run(&["scorecard", &real("ncu_text_layernorm_excerpt.log")])
        .expect(2)
        .stderr;
    assert!(e.contains("human-readable output"), "{e}");
}

/// A capture whose results went to a `.ncu-rep` (`-o`): only `==PROF==`
/// lines, the last naming the report. The message names it and the export.
#[test]
fn a_capture_saved_to_a_report_names_the_report_and_the_export() {
    let e = run(&["import", "ncu", &real("ncu_saved_to_report_cutlass.log")])
        .expect(2)
        .stderr;
    let report = "/home/nwadekar/dphpc/dphpc-gemm/ncu_analysis.ncu-rep";
    assert!(
        e.contains(&format!("line 8: ncu saved its results to `{report}`")),
        "{e}"
    );
    assert!(
        e.contains(&format!("`ncu --import {report} --csv --page details`")),
        "{e}"
    );
}

/// A capture refused for counter permissions, whose first line is the
/// program's `[W interface.cpp:47] ...`: that `[` is not a JSON array, and
/// the tool's `ERR_NVGPUCTRPERM` line is shown with what to do.
#[test]
fn a_restricted_capture_opening_with_a_bracket_is_read_as_ncu_output() {
    let e = run(&["import", "ncu", &real("ncu_counters_restricted_resnet.out")])
        .expect(2)
        .stderr;
    assert!(
        e.contains("ERR_NVGPUCTRPERM") && e.contains("NVreg_RestrictProfilingToAdminUsers=0"),
        "{e}"
    );
    assert!(!e.contains("nor any other input"), "{e}");
}

/// The scorecard of a real Nsight Systems import judged with `--hardware`:
/// the kernels were timed on the device, so no "ran on the CPU" warning; and
/// with no bytes per token known, no ceiling number rests on the presets'
/// guess: a note says what to set.
#[test]
fn the_scorecard_of_an_nsight_import_makes_no_cpu_warning_and_no_guessed_ceiling() {
    let file = real("nsys_cut_at_nvtx_cagra.txt");
    let out = run(&["scorecard", &file, "--hardware", "h100"])
        .expect(0)
        .stdout;
    assert!(!out.contains("timed no device work"), "{out}");
    assert!(!out.contains("ran on the CPU"), "{out}");
    let ceiling = out
        .lines()
        .find(|l| l.trim_start().starts_with("Ceiling"))
        .expect("a Ceiling row");
    assert!(
        ceiling.contains(
            "none: the bytes per token are not known (158 MB is the presets' default, a guess)"
        ),
        "{ceiling}"
    );
    assert!(!ceiling.contains("tok/s"), "{ceiling}");
    let json = run(&["scorecard", &file, "--hardware", "h100", "--format", "json"])
        .expect(0)
        .stdout;
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(v["peak_throughput_tok_s"].is_null(), "{v}");
    assert_eq!(v["device_timed"], true, "{v}");
}

/// The training-step contract over a run with no steps (a real Nsight
/// Systems import): the withheld wall coverage and the bottleneck the
/// scorecard calls not determined are values the run does not have, so
/// their rules are not applicable, never passed; with nothing checked the
/// contract does not pass and the exit status says so.
#[test]
fn a_training_contract_over_a_run_without_steps_passes_nothing() {
    let out = run(&[
        "contracts",
        "verify",
        &real("nsys_cut_at_nvtx_cagra.txt"),
        "--contract",
        "training-step-scorecard-v1",
    ])
    .expect(1)
    .stdout;
    assert!(out.contains(": 0 passed,"), "{out}");
    assert!(
        out.contains("no verdict: none of 13 rules was checked"),
        "{out}"
    );
    for id in ["TSS-012", "TSS-013"] {
        let line = out
            .lines()
            .find(|l| l.contains(id))
            .unwrap_or_else(|| panic!("{id} in {out}"));
        assert!(line.trim_start().starts_with("N/A"), "{line}");
    }
    assert!(
        out.contains("`scorecard.wall_coverage` is none, a value the run does not have"),
        "{out}"
    );
    assert!(
        out.contains("`scorecard.bottleneck` is none, a value the run does not have"),
        "{out}"
    );
}

/// A `--dir` holding upstream's own `roofline-model-v1.yaml` (provable-
/// contracts, unchanged): the folder's contract takes the shipped name and
/// is the one checked (its prose tests, not the shipped rules), and a note
/// says that it shadows the shipped contract.
#[test]
fn an_upstream_contract_named_like_a_shipped_one_shadows_it() {
    let dir = "tests/fixtures/real/contracts/upstream-shadowing";
    let out = run(&[
        "contracts",
        "verify",
        common::PROFILE,
        "--dir",
        dir,
        "--contract",
        "roofline-model-v1",
    ]);
    assert!(
        out.stderr.contains(&format!(
            "note: `roofline-model-v1` from `{dir}/roofline-model-v1.yaml` shadows the shipped \
             contract of that name"
        )),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("rename the file"), "{}", out.stderr);
    // Upstream's tests are prose (`FALSIFY-RM-001`), the shipped ones rules.
    assert!(out.stdout.contains("FALSIFY-RM-001"), "{}", out.stdout);
    assert!(
        out.stdout.contains("not machine-checkable"),
        "{}",
        out.stdout
    );
    let listed = run(&["contracts", "list", "--dir", dir]).expect(0).stdout;
    assert!(
        listed.contains("roofline-model-v1 (from --dir; ")
            && listed.contains("shadows the shipped contract of that name)"),
        "{listed}"
    );
}

/// Upstream's own `gpu-decode-profiling-v1` (provable-contracts, unchanged)
/// in a folder: it shadows the shipped contract of that name, and its 15
/// tests, all prose, leave no verdict: the run exits 1, never passes.
#[test]
fn upstream_gpu_decode_profiling_shadows_the_shipped_one_and_gives_no_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("gpu-decode-profiling-v1.yaml");
    std::fs::copy(
        common::root().join("tests/fixtures/real/contracts/gpu-decode-profiling-v1.yaml"),
        &file,
    )
    .unwrap();
    let d = dir.path().to_str().unwrap();
    let out = run(&[
        "contracts",
        "verify",
        common::PROFILE,
        "--dir",
        d,
        "--contract",
        "gpu-decode-profiling-v1",
    ])
    .expect(1);
    assert!(
        out.stderr.contains(&format!(
            "note: `gpu-decode-profiling-v1` from `{}` shadows the shipped contract of that name",
            file.display()
        )),
        "{}",
        out.stderr
    );
    assert!(
        out.stdout.starts_with(
            "contract gpu-decode-profiling-v1 v2.0.0: 0 passed, 0 skipped, 0 not passed (no \
             verdict: none of 15 rules was checked, 15 not machine-checkable)"
        ),
        "{}",
        out.stdout
    );
    assert_eq!(
        out.stdout.matches("  PROSE FALSIFY-GDP-").count(),
        15,
        "{}",
        out.stdout
    );
    let listed = run(&["contracts", "list", "--dir", d]).expect(0).stdout;
    assert!(
        listed.contains(
            "gpu-decode-profiling-v1 (from --dir; 15 test(s) not machine-checkable, 27 unused \
             key(s), shadows the shipped contract of that name)"
        ),
        "{listed}"
    );
}

/// A capture that profiled nothing (an NVTX filter that matched no range):
/// the program's output, `==PROF==` and two `==WARNING==` lines, no table.
/// The message says no kernel was profiled and the usual causes.
#[test]
fn a_capture_that_profiled_no_kernel_says_so_and_why() {
    let e = run(&["import", "ncu", &real("ncu_no_kernels_nvtx_filter.txt")])
        .expect(2)
        .stderr;
    assert!(
        e.contains("has no kernels: no kernel was profiled (line 5: `==WARNING== No kernels were profiled.`)"),
        "{e}"
    );
    assert!(
        e.contains("`--kernel-name`")
            && e.contains("`--nvtx-include`")
            && e.contains("--target-processes all"),
        "{e}"
    );
    assert!(!e.contains("nor any other input"), "{e}");
}
