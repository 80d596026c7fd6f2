//! Nsight exports from public repositories this project has no part in
//! (`tests/fixtures/real/nsight/`, sources in its PROVENANCE.md): every file
//! is read, and each check compares with numbers read by hand from the file
//! or expects an error that names the file and the problem.

use std::path::PathBuf;

use profiler_report::{
    input::nsight::{
        FullProfile, ImportError, NsysForm, parse_nsys_report, parse_nsys_stats,
        parse_nsys_stats_all, read_ncu_csv,
    },
    roofline::FullProfileOptions,
};

fn real(name: &str) -> (String, String) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/real/nsight")
        .join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    (text, name.to_owned())
}

/// Five `nsys profile --stats=true` runs pasted into one Markdown file, each
/// with NVTX, OS runtime and CUDA API summaries that share the kernel
/// summary's first columns.
#[test]
fn five_console_runs_are_five_reports() {
    let (text, origin) = real("nsys_five_runs_a100.md");
    let all = parse_nsys_stats_all(&text, &origin).unwrap();
    assert_eq!(all.len(), 5);
    // By hand: (header line, total ns, instances) of each run's one kernel.
    let expected = [
        (70, 1_831_281.0, 1010),
        (154, 1_830_493.0, 1010),
        (236, 383_261_009.0, 1010),
        (321, 38_607_885.0, 110),
        (404, 14_835_396.0, 410),
    ];
    for (report, (line, total, n)) in all.iter().zip(expected) {
        assert_eq!(report.form, NsysForm::Table);
        assert_eq!(report.header_line, line);
        assert_eq!(report.kernels.len(), 1, "{report:?}");
        let k = &report.kernels[0];
        assert!(k.name.starts_with("vectorAdd("), "{}", k.name);
        assert_eq!(k.total_ns, total);
        assert_eq!(k.instances, n);
    }
    assert_eq!(
        all[0].run.as_deref(),
        Some("vector_add_profile_v3.nsys-rep")
    );
    assert_eq!(
        all[1].run.as_deref(),
        Some("vector_add_profile_v4.nsys-rep")
    );
    assert_eq!(all[0].kernels[0].max_ns, 4_705.0);
    assert_eq!(all[0].kernels[0].med_ns, Some(1_823.0));
}

#[test]
fn several_runs_are_refused_by_name_or_picked() {
    let (text, origin) = real("nsys_five_runs_a100.md");
    let e = parse_nsys_stats(&text, &origin).unwrap_err();
    assert!(matches!(e, ImportError::SeveralReports { ref reports, .. } if reports.len() == 5));
    let msg = e.to_string();
    assert!(msg.contains("nsys_five_runs_a100.md"), "{msg}");
    // The library names no flag of the command line and no function: the
    // command line adds its own words.
    assert!(
        msg.contains("pick one of them by its number (1 to 5)"),
        "{msg}"
    );
    assert!(
        !msg.contains("--report") && !msg.contains("parse_nsys"),
        "{msg}"
    );
    assert!(msg.contains("#3 at line 236"), "{msg}");
    assert!(msg.contains("vector_add_profile_v4.nsys-rep"), "{msg}");
    let third = parse_nsys_report(&text, &origin, 3).unwrap();
    assert_eq!(third.kernels[0].total_ns, 383_261_009.0);
    let e = parse_nsys_report(&text, &origin, 6)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("kernel summary #6") && e.contains("holds 5 kernel summaries"),
        "{e}"
    );
}

/// Two runs (PyTorch and Paddle GCN) in `~~~` blocks; the NVTX summary of
/// each is `SKIPPED`, kernel names are cut by nsys with `…`.
#[test]
fn two_framework_runs_with_skipped_reports() {
    let (text, origin) = real("nsys_two_runs_gcn.md");
    let all = parse_nsys_stats_all(&text, &origin).unwrap();
    assert_eq!(all.len(), 2);
    let torch = &all[0];
    assert_eq!(torch.header_line, 61);
    assert_eq!(torch.kernels.len(), 19);
    assert_eq!(torch.kernels[1].name, "ampere_sgemm_64x32_sliced1x4_tn");
    assert_eq!(torch.kernels[1].total_ns, 42_720.0);
    assert_eq!(torch.kernels[1].instances, 3);
    assert_eq!(torch.kernels[18].total_ns, 2_304.0);
    assert!(torch.kernels[0].truncated);
    assert!(torch.notes.iter().any(|n| n.contains("cut short")));
    let paddle = &all[1];
    assert_eq!(paddle.header_line, 173);
    assert_eq!(paddle.kernels[0].total_ns, 64_892.0);
    assert_eq!(paddle.kernels[1].instances, 30);
}

/// The first run of the capture cut before its kernel summary: the NVTX,
/// OS runtime and CUDA API summaries share the kernel summary's first
/// columns (`Time (%)`, `Total Time (ns)`, `Instances`/`Num Calls`, ...)
/// and must not be read as it.
#[test]
fn other_summaries_are_never_read_as_the_kernel_summary() {
    let (text, origin) = real("nsys_five_runs_a100.md");
    let head: String = text.lines().take(67).collect::<Vec<_>>().join("\n");
    assert!(head.contains("'nvtx_sum'") && head.contains("'cuda_api_sum'"));
    let e = parse_nsys_stats_all(&head, &origin).unwrap_err();
    assert!(matches!(e, ImportError::NotRecognised { .. }), "{e}");
    assert!(e.to_string().contains("nsys_five_runs_a100.md"), "{e}");
}

/// A 2020-era capture: `CUDA Kernel Statistics (nanoseconds)` with unitless
/// `Total Time`, `Average`, `Minimum`, `Maximum`, between CUDA API, memory
/// operation and OS runtime tables of the same shape.
#[test]
fn a_legacy_capture_reads_its_one_kernel_table() {
    let (text, origin) = real("nsys_legacy_conv.md");
    let report = parse_nsys_stats(&text, &origin).unwrap();
    assert_eq!(report.header_line, 117);
    assert_eq!(report.kernels.len(), 3);
    let conv = &report.kernels[0];
    assert_eq!(conv.name, "conv_forward_kernel");
    assert_eq!(conv.total_ns, 104_424_277.0);
    assert_eq!(conv.instances, 6);
    assert_eq!(conv.max_ns, 81_061_518.0);
    assert_eq!(report.kernels[2].name, "prefn_marker_kernel");
    assert!(
        report.notes.iter().any(|n| n.contains("read as ns")),
        "{:?}",
        report.notes
    );
}

/// `nsys stats --format table` of a vLLM run (Nsight Systems 2025.1.1): the
/// boxed form, after `NOTICE` and `Processing` lines, with long names cut
/// with `…`. Totals summed by hand over the file's 68 rows.
#[test]
fn a_boxed_kernel_summary_reads_every_row() {
    let (text, origin) = real("vllm_v16_cuda_gpu_kern_sum.txt");
    let report = parse_nsys_stats(&text, &origin).unwrap();
    assert_eq!(report.form, NsysForm::Boxed);
    assert_eq!(report.header_line, 11);
    assert_eq!(report.kernels.len(), 68);
    let first = &report.kernels[0];
    assert_eq!(
        first.name,
        "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)"
    );
    assert_eq!(first.total_ns, 29_131_334_735.0);
    assert_eq!(first.instances, 42_384);
    assert_eq!(first.max_ns, 45_519_592.0);
    assert!(!first.truncated);
    let second = &report.kernels[1];
    assert_eq!(second.name, "nvjet_tst_256x152_64x4_1x2_h_bz_coopA_TNT");
    assert_eq!(second.instances, 20_424);
    // Row 4 ends in `…`: its name is marked as cut.
    assert!(report.kernels[3].truncated);
    assert_eq!(report.kernels[3].instances, 81_176);
    let last = &report.kernels[67];
    assert_eq!(last.total_ns, 22_080.0);
    assert_eq!(last.instances, 24);
    let total: f64 = report.kernels.iter().map(|k| k.total_ns).sum();
    assert_eq!(total, 100_825_818_338.0);
}

/// The NVTX range and CUDA API summaries of the same run, boxed: they share
/// the kernel summary's first columns and are refused with the file's name.
#[test]
fn boxed_nvtx_and_api_summaries_are_not_kernel_summaries() {
    for name in ["vllm_v16_nvtx_sum.txt", "vllm_v16_cuda_api_sum.txt"] {
        let (text, origin) = real(name);
        let e = parse_nsys_stats(&text, &origin).unwrap_err();
        assert!(
            matches!(e, ImportError::NotRecognised { .. }),
            "{name}: {e}"
        );
        assert!(e.to_string().contains(name), "{e}");
    }
}

fn ncu(name: &str) -> Vec<FullProfile> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/real/nsight")
        .join(name);
    read_ncu_csv(&path)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .full_profiles(&FullProfileOptions::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn value(s: Option<&profiler_report::input::nsight::Sourced>) -> f64 {
    s.expect("a value").value
}

/// An ncu 2025 details page of a cuBLAS GEMV on an sm_120 GPU (CC 12.0):
/// DRAM bytes as `dram__bytes_read.sum` + `dram__bytes_write.sum`, the
/// device column a number, no FP instruction counters.
#[test]
fn an_sm120_details_page_reads_its_dram_bytes_and_withholds_flops() {
    let kernels = ncu("ncu_sm120_gemv_details.csv");
    assert_eq!(kernels.len(), 1);
    let k = &kernels[0];
    assert!(
        k.kernel.name.contains("cublasGemvParamsEx"),
        "{}",
        k.kernel.name
    );
    assert_eq!(k.hardware.compute_capability.as_deref(), Some("12.0"));
    assert_eq!(k.kernel.grid, Some([224, 1, 1]));
    assert_eq!(k.kernel.block, Some([32, 4, 1]));
    assert!((value(k.timing.duration_ns.as_ref()) - 6_750.0).abs() < 1e-6);
    // 2.33 Mbyte read + 0 byte written, as the file writes them.
    assert!((value(k.memory.dram_bytes.as_ref()) - 2.33e6).abs() < 1.0);
    assert!((value(k.throughput.sm_pct.as_ref()) - 9.15).abs() < 1e-9);
    assert!((value(k.throughput.dram_pct.as_ref()) - 19.66).abs() < 1e-9);
    // The one tensor counter reads 0 and there are no FP counters: no
    // FLOPs, and the roofline says why instead of placing the kernel.
    assert!(k.compute.flops.is_none());
    assert!(k.roofline.unavailable.is_some());
    // The device column is `0`, not a name: the hardware is unknown.
    assert!(k.hardware.ceilings.is_none());
}

/// The same run's GEMM, raw metrics: the tensor pipe's operation count
/// (`sm__ops_path_tensor_src_bf16_dst_fp32.sum`, 45,902,462,976 in the
/// file) is its FLOPs; `n/a` counters are missing, not zero.
#[test]
fn an_sm120_tensor_op_count_is_the_gemms_flops() {
    let kernels = ncu("ncu_sm120_gemm_metrics.csv");
    assert_eq!(kernels.len(), 1);
    let k = &kernels[0];
    assert!(
        k.kernel
            .name
            .contains("cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x256")
    );
    assert_eq!(value(k.compute.flops.as_ref()), 45_902_462_976.0);
    assert_eq!(
        k.compute.flops_by_precision.keys().collect::<Vec<_>>(),
        ["bf16 (tensor)"]
    );
    assert!(
        k.compute
            .flops
            .as_ref()
            .unwrap()
            .source
            .contains("tensor-pipe operations")
    );
    assert!((value(k.timing.duration_ns.as_ref()) - 404_700.0).abs() < 1e-6);
    assert!((value(k.memory.dram_bytes.as_ref()) - (63.77e6 + 197.38e3)).abs() < 1.0);
    // 45.9 GFLOP over 404.7 µs.
    let tflops = value(k.compute.achieved_tflops.as_ref());
    assert!(
        (tflops - 45.902_462_976 / 404.7e-6 / 1e3).abs() < 1e-6,
        "{tflops}"
    );
}

/// The GEMM's details page: the same duration and DRAM bytes as its raw
/// metrics, read from the other layout.
#[test]
fn an_sm120_details_page_agrees_with_its_raw_metrics() {
    let details = &ncu("ncu_sm120_gemm_details.csv")[0];
    let raw = &ncu("ncu_sm120_gemm_metrics.csv")[0];
    assert_eq!(details.kernel.name, raw.kernel.name);
    assert_eq!(
        value(details.timing.duration_ns.as_ref()),
        value(raw.timing.duration_ns.as_ref())
    );
    assert_eq!(
        value(details.memory.dram_bytes.as_ref()),
        value(raw.memory.dram_bytes.as_ref())
    );
}

/// The roofline chart section exported alone: display names and per-cycle
/// rates, but no duration, so nothing can be placed, and the report says
/// what is missing instead of guessing.
#[test]
fn a_roofline_section_without_a_duration_places_nothing() {
    let kernels = ncu("ncu_sm120_gemv_roofline_section.csv");
    assert_eq!(kernels.len(), 1);
    let k = &kernels[0];
    assert!(k.timing.duration_ns.is_none());
    assert!(k.compute.flops.is_none());
    assert!(k.roofline.achieved_tflops.is_none());
    assert!(
        k.missing.iter().any(|m| m == "gpu__time_duration.sum"),
        "{:?}",
        k.missing
    );
}

/// A capture that failed before any kernel ran: only the tool's
/// `==ERROR==` lines (an unknown `--section`). The error shows the line.
#[test]
fn a_failed_capture_shows_the_tools_error() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/real/nsight/ncu_failed_capture.csv");
    let e = read_ncu_csv(&path).unwrap_err();
    let ImportError::CaptureFailed { line, message, .. } = &e else {
        panic!("{e}");
    };
    assert_eq!(*line, 1);
    assert_eq!(
        message,
        "==ERROR== Option '--section .*SpeedOfLight.*' did not match any section."
    );
    assert!(e.to_string().contains("ncu_failed_capture.csv"), "{e}");
}

/// Two console captures of `nsys profile --stats=true` pasted from their
/// fourth line on: each starts at `[3/8] Executing 'nvtx_sum' stats report`,
/// whose `[` opens a JSON array to a first look. Both are read through the
/// input layer, which tells the format from the content, and give every
/// kernel of their summary; totals and launches as summed by python3 from
/// the files.
#[test]
fn console_captures_cut_at_the_top_are_read_through_the_input_layer() {
    let cases = [
        // (file, kernels, sum of Total Time ns, sum of Instances, first kernel)
        (
            "nsys_cut_at_nvtx_cagra.txt",
            22,
            10_278_282_158.0,
            82_069,
            "sum_doc_scores_kernel(const float *, float *, unsigned long)",
        ),
        (
            "nsys_cut_at_nvtx_cagra_v2.txt",
            22,
            15_419_187_670.0,
            82_069,
            "stage2_binary_ip_kernel_v2(",
        ),
    ];
    for (name, kernels, total, instances, first) in cases {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/real/nsight")
            .join(name);
        let input = profiler_report::input::open(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let profiler_report::input::Input::Nsys(report) = input else {
            panic!("{name}: read as {}", input.what());
        };
        assert_eq!(report.kernels.len(), kernels, "{name}");
        assert_eq!(report.header_line, 80, "{name}");
        assert!(report.kernels[0].name.starts_with(first), "{name}");
        let sum: f64 = report.kernels.iter().map(|k| k.total_ns).sum();
        assert_eq!(sum, total, "{name}");
        let n: u64 = report.kernels.iter().map(|k| k.instances).sum();
        assert_eq!(n, instances, "{name}");
        // The cut took the `[1/8] ... .nsys-rep` line: no run is named.
        assert_eq!(report.run, None, "{name}");
    }
}
