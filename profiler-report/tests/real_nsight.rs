//! Nsight exports from public repositories this project has no part in
//! (`tests/fixtures/real/nsight/`, sources in its PROVENANCE.md): every file
//! is read, and each check compares with numbers read by hand from the file
//! or expects an error that names the file and the problem.

use std::path::PathBuf;

use profiler_report::import::{
    ImportError, NsysForm, parse_nsys_report, parse_nsys_stats, parse_nsys_stats_all,
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
    assert!(msg.contains("--report N"), "{msg}");
    assert!(msg.contains("#3 at line 236"), "{msg}");
    assert!(msg.contains("vector_add_profile_v4.nsys-rep"), "{msg}");
    let third = parse_nsys_report(&text, &origin, 3).unwrap();
    assert_eq!(third.kernels[0].total_ns, 383_261_009.0);
    let e = parse_nsys_report(&text, &origin, 6)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("--report 6") && e.contains("holds 5 kernel summaries"),
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
