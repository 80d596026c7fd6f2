//! Importers of Nsight Compute CSVs and Nsight Systems kernel summaries,
//! read from the fixtures in `tests/fixtures/nsight/` (written from the
//! tools' documented formats, with awkward names, separators, units,
//! missing metrics and a second GPU).

use std::path::PathBuf;

use profiler_report::hardware::{Bound, preset};
use profiler_report::run::Distribution;
use profiler_report::{
    export::{full_profiles_markdown, full_profiles_text},
    input::nsight::{
        FlopsAssumption, FullProfile, ImportError, NcuLayout, NsysForm, full_profiles_to_profile,
        parse_ncu_csv, parse_nsys_stats, read_ncu_csv, read_nsys_stats,
    },
    roofline::FullProfileOptions,
};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/nsight")
        .join(name)
}

const GEMM: &str = "void gemm<float, 128>(float const*, float const*, float*, int)";
const GELU: &str = "fused_bias_gelu<\"bias,gelu\">(float*, float const*, int)";

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(1e-12)
}

fn on_4090() -> FullProfileOptions {
    FullProfileOptions {
        hardware: Some(preset("4090").unwrap()),
        hardware_origin: Some("--hardware 4090".into()),
        ..FullProfileOptions::default()
    }
}

#[test]
fn details_page_reads_every_metric_with_its_source() {
    let r = read_ncu_csv(fixture("ncu_details.csv")).unwrap();
    assert_eq!(r.layout, NcuLayout::Details);
    let names: Vec<&str> = r.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(
        names,
        [GEMM, GELU, GEMM],
        "quoted commas and quotes survive"
    );
    assert_eq!(r.kernels[2].device.as_deref(), Some("1"));
    assert_eq!(r.kernels[2].compute_capability.as_deref(), Some("9.0"));
    let p = r.full_profiles(&FullProfileOptions::default()).unwrap();
    let g = &p[0];
    assert_eq!(g.version, "3.0");
    assert_eq!(g.timing.duration_ns.as_ref().unwrap().value, 1_234_560.0);
    assert_eq!(
        g.timing.duration_ns.as_ref().unwrap().source,
        "Duration (GPU Speed Of Light Throughput)"
    );
    assert_eq!(g.throughput.sm_pct.as_ref().unwrap().value, 78.21);
    assert_eq!(g.throughput.dram_pct.as_ref().unwrap().value, 12.07);
    assert_eq!(g.compute.warps_active_pct.as_ref().unwrap().value, 32.71);
    assert_eq!(g.kernel.registers_per_thread.as_ref().unwrap().value, 128.0);
    assert!(close(
        g.memory.shared_mem_driver_bytes.as_ref().unwrap().value,
        1020.0,
        1e-12
    ));
    assert!(close(
        g.memory.shared_mem_static_bytes.as_ref().unwrap().value,
        32_770.0,
        1e-12
    ));
    assert_eq!(g.memory.l2_hit_rate_pct.as_ref().unwrap().value, 85.23);
    assert_eq!(
        g.memory
            .global_load_bytes_per_sector_pct
            .as_ref()
            .unwrap()
            .value,
        100.0
    );
    assert_eq!(g.compute.tensor_pipe_pct.as_ref().unwrap().value, 0.0);
    assert_eq!(
        g.compute.thread_inst_per_inst_pct.as_ref().unwrap().value,
        99.87
    );
    let flops = g.compute.flops.as_ref().unwrap();
    assert_eq!(
        flops.value,
        2.0 * 8_589_934_592.0 + 16_777_216.0 + 4_194_304.0
    );
    assert!(flops.source.starts_with("counted"), "{}", flops.source);
    assert_eq!(g.kernel.grid, Some([64, 64, 1]));
    assert_eq!(g.kernel.threads_per_block, Some(128));
    assert!(g.missing.is_empty(), "{:?}", g.missing);
    // The CSV names no device: no roofline is guessed.
    assert_eq!(g.hardware.ceilings, None);
    assert!(
        g.roofline
            .unavailable
            .as_deref()
            .unwrap()
            .contains("--hardware"),
        "{:?}",
        g.roofline
    );
    assert_eq!(g.roofline.arithmetic_intensity, None);
    // The second kernel lacks metrics and has an `n/a`.
    let f = &p[1];
    for m in [
        "sm__warps_active.avg.pct_of_peak_sustained_elapsed",
        "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
        "smsp__thread_inst_executed_per_inst_executed.pct",
    ] {
        assert!(f.missing.iter().any(|x| x == m), "{m}: {:?}", f.missing);
    }
    assert_eq!(f.throughput.dram_gb_s.as_ref().unwrap().value, 896.21);
    let bytes = f.memory.dram_bytes.as_ref().unwrap();
    assert!(close(bytes.value, 896.21e9 * 85.44e-6, 1e-9));
    assert!(bytes.source.contains("x duration"), "{}", bytes.source);
    assert!(f.compute.flops.is_none());
    assert!(f.notes.iter().any(|n| n.starts_with("FLOPs unknown")));
}

#[test]
fn kernels_are_classified_on_the_chosen_device() {
    let r = read_ncu_csv(fixture("ncu_details.csv")).unwrap();
    let p = r.full_profiles(&on_4090()).unwrap();
    let g = &p[0].roofline;
    let flops = 2.0 * 8_589_934_592.0 + 16_777_216.0 + 4_194_304.0;
    assert!(close(
        g.arithmetic_intensity.unwrap(),
        flops / 150.99e6,
        1e-9
    ));
    assert!(close(
        g.achieved_tflops.unwrap(),
        flops / 1.23456e-3 / 1e12,
        1e-9
    ));
    assert_eq!(g.bound, Some(Bound::Compute));
    assert!(close(g.ridge_point.unwrap(), 82.6e12 / 1008e9, 1e-9));
    assert!(close(
        g.efficiency_pct.unwrap(),
        flops / 1.23456e-3 / 82.6e12 * 100.0,
        1e-9
    ));
    assert_eq!(
        p[0].hardware.ceilings.as_ref().map(|h| h.name.as_str()),
        Some("RTX 4090")
    );
    assert_eq!(p[0].hardware.origin, "--hardware 4090");
    // The second GPU reports CC 9.0, which no RTX 4090 has: said.
    assert!(!p[0].notes.iter().any(|n| n.contains("compute capability")));
    assert!(
        p[2].notes
            .iter()
            .any(|n| n.contains("compute capability 9.0 is not that of RTX 4090")),
        "{:?}",
        p[2].notes
    );
    // The same kernel on an H100 has another ridge: the device matters.
    let h100 = FullProfileOptions {
        hardware: Some(preset("h100").unwrap()),
        ..FullProfileOptions::default()
    };
    let on_h100 = r.full_profiles(&h100).unwrap();
    assert!(close(
        on_h100[0].roofline.ridge_point.unwrap(),
        67e12 / 3350e9,
        1e-9
    ));
    assert_ne!(on_h100[0].roofline.efficiency_pct, g.efficiency_pct);
}

#[test]
fn stated_flops_say_where_n_comes_from_and_apply_to_one_kernel() {
    let r = read_ncu_csv(fixture("ncu_details.csv")).unwrap();
    let gemm = FullProfileOptions {
        flops: Some(FlopsAssumption::Gemm {
            m: 2048,
            n: 2048,
            k: 2048,
            origin: "--gemm 2048".into(),
        }),
        kernel_filter: Some("gemm".into()),
        ..on_4090()
    };
    let p = r.full_profiles(&gemm).unwrap();
    assert_eq!(p.len(), 2, "both launches of the GEMM");
    let f = p[0].compute.flops.as_ref().unwrap();
    assert_eq!(f.value, 2.0 * 2048f64.powi(3));
    assert_eq!(
        f.source,
        "assumed: GEMM 2n^3 with n=2048 (from --gemm 2048)"
    );
    assert!(
        p[0].roofline.estimate,
        "an assumed FLOP count is an estimate"
    );
    assert!(
        p[0].notes
            .iter()
            .any(|n| n.contains("counted from instructions")),
        "{:?}",
        p[0].notes
    );
    let all = FullProfileOptions {
        kernel_filter: None,
        ..gemm
    };
    let e = r.full_profiles(&all).unwrap_err();
    assert!(matches!(e, ImportError::InvalidOption { .. }), "{e}");
    assert!(e.to_string().contains("--kernel"), "{e}");
    let none = FullProfileOptions {
        kernel_filter: Some("softmax".into()),
        ..FullProfileOptions::default()
    };
    assert!(
        r.full_profiles(&none)
            .unwrap_err()
            .to_string()
            .contains("softmax")
    );
}

#[test]
fn raw_page_detects_each_device_from_its_name() {
    let r = read_ncu_csv(fixture("ncu_raw.csv")).unwrap();
    assert_eq!(r.layout, NcuLayout::Raw);
    assert_eq!(r.kernels.len(), 3, "the units row is not a kernel");
    let p = r.full_profiles(&FullProfileOptions::default()).unwrap();
    assert_eq!(
        p[0].hardware.ceilings.as_ref().map(|h| h.name.as_str()),
        Some("RTX 4090")
    );
    assert!(p[0].hardware.origin.contains("NVIDIA GeForce RTX 4090"));
    assert_eq!(
        p[1].hardware.ceilings.as_ref().map(|h| h.name.as_str()),
        Some("H100 SXM")
    );
    assert_eq!(p[0].timing.duration_ns.as_ref().unwrap().value, 1_234_560.0);
    assert_eq!(p[0].memory.dram_bytes.as_ref().unwrap().value, 150.99e6);
    // Tensor-core work is not in the FP counters: said, and no roofline
    // placement is built on the undercount.
    assert!(
        p[1].notes.iter().any(|n| n.contains("lower bound")),
        "{:?}",
        p[1].notes
    );
    assert!(
        p[1].roofline
            .unavailable
            .as_deref()
            .unwrap()
            .contains("undercounted")
    );
    assert_eq!(
        (p[1].roofline.bound, p[1].roofline.efficiency_pct),
        (None, None)
    );
    // A streaming kernel sits on the bandwidth roof.
    let add = &p[2].roofline;
    assert_eq!(add.bound, Some(Bound::Memory));
    let achieved = 16_777_216.0 / 210.5e-6;
    let attainable = 16_777_216.0 / 201.33e6 * 1008e9;
    assert!(close(
        add.efficiency_pct.unwrap(),
        achieved / attainable * 100.0,
        1e-9
    ));
    // Given hardware wins, and the mismatch is noted.
    let given = r
        .full_profiles(&FullProfileOptions {
            hardware: Some(preset("h100").unwrap()),
            ..FullProfileOptions::default()
        })
        .unwrap();
    assert_eq!(
        given[0].hardware.ceilings.as_ref().map(|h| h.name.as_str()),
        Some("H100 SXM")
    );
    assert!(
        given[0]
            .notes
            .iter()
            .any(|n| n.contains("NVIDIA GeForce RTX 4090"))
    );
}

#[test]
fn broken_exports_are_errors_naming_file_and_line() {
    let e = read_ncu_csv(fixture("ncu_truncated.csv")).unwrap_err();
    let lines = std::fs::read_to_string(fixture("ncu_truncated.csv"))
        .unwrap()
        .lines()
        .count();
    match &e {
        ImportError::Malformed {
            origin,
            line,
            reason,
        } => {
            assert!(origin.ends_with("ncu_truncated.csv"));
            assert_eq!(*line, lines);
            assert!(reason.contains("truncated"), "{reason}");
        }
        other => panic!("{other}"),
    }
    let e = read_ncu_csv(fixture("ncu_permission.txt")).unwrap_err();
    assert!(matches!(e, ImportError::CountersRestricted { .. }), "{e}");
    assert!(
        e.to_string()
            .contains("NVreg_RestrictProfilingToAdminUsers=0")
    );
    // Text that only mentions the code (a README, a log) is not a permission
    // failure: it is simply not an export.
    let mention = "Exit status 3: ncu cannot read the counters (ERR_NVGPUCTRPERM).\n";
    let e = parse_ncu_csv(mention, "notes.md").unwrap_err();
    assert!(matches!(e, ImportError::NotRecognised { .. }), "{e}");
    let e = parse_ncu_csv("hello\nworld\n", "x.csv").unwrap_err();
    assert!(
        e.to_string().contains("`x.csv` is not Nsight Compute CSV"),
        "{e}"
    );
    let e = parse_ncu_csv(
        "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Value\"\n",
        "h.csv",
    )
    .unwrap_err();
    assert!(matches!(e, ImportError::NoKernels { .. }), "{e}");
    let e = parse_ncu_csv("\"ID\",\"Kernel Name\"\n\"0\",\"k\"\n", "w.csv").unwrap_err();
    assert!(e.to_string().contains("metric columns"), "{e}");
    let e = read_ncu_csv(fixture("missing.csv")).unwrap_err();
    assert!(e.to_string().contains("missing.csv"), "{e}");
}

#[test]
fn a_decimal_comma_locale_is_read_as_such() {
    let csv = "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n\
               \"0\",\"k\",\"dram__throughput.avg.pct_of_peak_sustained_elapsed\",\"%\",\"9,00\"\n\
               \"0\",\"k\",\"gpu__time_duration.sum\",\"usecond\",\"1.234,5\"\n";
    let p = parse_ncu_csv(csv, "de.csv")
        .unwrap()
        .full_profiles(&FullProfileOptions::default())
        .unwrap();
    assert_eq!(p[0].throughput.dram_pct.as_ref().unwrap().value, 9.0);
    assert_eq!(p[0].timing.duration_ns.as_ref().unwrap().value, 1_234_500.0);
}

fn nsys_values(r: &profiler_report::input::nsight::NsysReport) -> Vec<(u64, f64, f64, f64, f64)> {
    r.kernels
        .iter()
        .map(|k| (k.instances, k.total_ns, k.avg_ns, k.min_ns, k.max_ns))
        .collect()
}

#[test]
fn nsys_summaries_read_the_same_in_every_form() {
    let table = read_nsys_stats(fixture("nsys_kern_sum.txt")).unwrap();
    let boxed = read_nsys_stats(fixture("nsys_kern_sum_boxed.txt")).unwrap();
    let csv = read_nsys_stats(fixture("nsys_kern_sum.csv")).unwrap();
    assert_eq!(
        (table.form, boxed.form, csv.form),
        (NsysForm::Table, NsysForm::Boxed, NsysForm::Csv)
    );
    assert_eq!(table.kernels.len(), 4, "only the kernel summary is read");
    assert_eq!(nsys_values(&table), nsys_values(&csv));
    assert_eq!(nsys_values(&boxed), nsys_values(&csv));
    let g = &table.kernels[0];
    assert_eq!(g.name, GEMM);
    assert_eq!(
        (g.total_ns, g.instances, g.med_ns, g.stddev_ns),
        (246_912_000.0, 200, Some(1_230_112.0), Some(21_436.7))
    );
    assert_eq!(table.kernels[2].name, GELU);
    assert!(table.kernels[3].truncated && !csv.kernels[3].truncated);
    assert!(csv.kernels[3].name.ends_with("(int, T2, T3)"));
    assert!(table.notes.iter().any(|n| n.contains("cut short")));
    let legacy = read_nsys_stats(fixture("nsys_stats_legacy.txt")).unwrap();
    assert_eq!(legacy.kernels.len(), 2);
    assert_eq!(legacy.kernels[0].avg_ns, 1_234_560.0);
    assert!(legacy.notes.iter().any(|n| n.contains("read as ns")));
}

#[test]
fn inconsistent_or_cut_nsys_rows_are_errors() {
    let text = std::fs::read_to_string(fixture("nsys_kern_sum.csv")).unwrap();
    let bad = text.replace(",209888,214016,", ",219888,214016,");
    let e = parse_nsys_stats(&bad, "k.csv").unwrap_err();
    assert!(e.to_string().starts_with("`k.csv` line 6: `Min`"), "{e}");
    let bad = text.replace("246912000,200,", "246912000,100,");
    let e = parse_nsys_stats(&bad, "k.csv").unwrap_err();
    assert!(e.to_string().contains("`Total Time`"), "{e}");
    let cut = text.replace(
        ",\"elementwise_add(float*, float const*, float const*, int)\"",
        "",
    );
    let e = parse_nsys_stats(&cut, "k.csv").unwrap_err();
    assert!(
        e.to_string().contains("line 6") && e.to_string().contains("fields"),
        "{e}"
    );
    let e = parse_nsys_stats(
        "SKIPPED: r.sqlite does not contain CUDA kernel data.\n",
        "r",
    )
    .unwrap_err();
    assert!(matches!(e, ImportError::NoKernels { .. }), "{e}");
    let e = parse_nsys_stats("Time (%),Total Time (ns),Instances,Name\n", "r").unwrap_err();
    assert!(matches!(e, ImportError::NoKernels { .. }), "{e}");
}

#[test]
fn imports_become_profiles_and_diff_inputs() {
    let table = read_nsys_stats(fixture("nsys_kern_sum.txt")).unwrap();
    let p = table.to_profile();
    assert_eq!(p.run.name, "nsys_kern_sum");
    assert_eq!(p.bricks.len(), 4);
    let g = p.brick(GEMM).unwrap();
    assert_eq!(
        (g.count, g.total_ns, g.min_ns, g.max_ns),
        (200, 246_912_000, 1_201_344, 1_318_912)
    );
    assert!(p.run.notes[0].contains("Nsight Systems"));
    let d = table.to_run_summary();
    assert_eq!(
        d.ops[0].distribution,
        Distribution::Moments {
            mean: 1_234_560.0,
            stddev: 21_436.7,
            n: 200
        }
    );
    let full: Vec<FullProfile> = read_ncu_csv(fixture("ncu_raw.csv"))
        .unwrap()
        .full_profiles(&FullProfileOptions::default())
        .unwrap();
    let p = full_profiles_to_profile(&full, "ncu_raw.csv");
    let add = p
        .brick("elementwise_add(float*, float const*, float const*, int)")
        .unwrap();
    assert_eq!(
        (add.count, add.total_flops, add.total_bytes),
        (1, 16_777_216, 201_330_000)
    );
}

#[test]
fn text_and_markdown_reports_name_every_launch() {
    let r = read_ncu_csv(fixture("ncu_details.csv")).unwrap();
    let p = r.full_profiles(&on_4090()).unwrap();
    let text = full_profiles_text(&p);
    assert!(
        text.contains("[1] fused_bias_gelu<\"bias,gelu\">"),
        "{text}"
    );
    assert!(text.contains("compute-bound"), "{text}");
    assert!(text.contains("not placed: FLOPs unknown"), "{text}");
    let md = full_profiles_markdown(&p);
    assert!(md.contains("### [0] void gemm\\<float, 128\\>"), "{md}");
    assert!(!md.contains("NaN") && !text.contains("inf"));
}

#[test]
fn impossible_values_and_hostile_names_are_handled() {
    let csv = "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n\
               \"0\",\"evil\x1b[31m|name\nsecond line\",\"gpu__time_duration.sum\",\"usecond\",\"-5\"\n\
               \"0\",\"evil\x1b[31m|name\nsecond line\",\"lts__t_sector_hit_rate.pct\",\"%\",\"12\"\n";
    let p = parse_ncu_csv(csv, "evil.csv")
        .unwrap()
        .full_profiles(&FullProfileOptions::default())
        .unwrap();
    assert!(p[0].timing.duration_ns.is_none());
    assert!(
        p[0].notes.iter().any(|n| n.contains("is negative")),
        "{:?}",
        p[0].notes
    );
    assert_eq!(p[0].memory.l2_hit_rate_pct.as_ref().unwrap().value, 12.0);
    let text = full_profiles_text(&p);
    assert!(!text.contains('\x1b'), "{text}");
    let md = full_profiles_markdown(&p);
    assert!(
        md.contains("evil\\\\x1b\\[31m\\|name\\\\nsecond line"),
        "{md}"
    );
}

/// A raw page taken on a device the hardware table does not hold (its
/// `device__attribute_display_name` says `NVIDIA B200`): no ceilings are
/// guessed, and the device the export names is kept in the JSON with the
/// reason there is no roof.
#[test]
fn a_raw_page_on_a_device_outside_the_table_keeps_the_device_name() {
    let text = std::fs::read_to_string(fixture("ncu_raw.csv"))
        .unwrap()
        .replace("NVIDIA GeForce RTX 4090", "NVIDIA B200")
        .replace("NVIDIA H100 80GB HBM3", "NVIDIA B200");
    let full = parse_ncu_csv(&text, "b200_raw.csv")
        .unwrap()
        .full_profiles(&FullProfileOptions::default())
        .unwrap();
    assert!(!full.is_empty());
    for p in &full {
        assert_eq!(p.hardware.device_name.as_deref(), Some("NVIDIA B200"));
        assert_eq!(p.hardware.ceilings, None, "no ceilings are guessed");
        assert!(
            p.hardware
                .origin
                .contains("the export names the device `NVIDIA B200`"),
            "{}",
            p.hardware.origin
        );
        let json = serde_json::to_value(p).unwrap();
        assert_eq!(json["hardware"]["device_name"], "NVIDIA B200");
    }
}
