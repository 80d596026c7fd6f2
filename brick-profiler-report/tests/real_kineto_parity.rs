//! Parity over real Kineto traces (`tests/fixtures/real/kineto/`, see
//! PROVENANCE.md there): a GPU run whose device side was not recorded, two
//! clocks, what a verdict's share is of, ranges that are not bricks,
//! drafts that reach inside ranges, the trace's device and rank. Numbers
//! were counted with python over the raw JSON.

use std::path::PathBuf;

use profiler_report::parity::{
    Basis, ChromeTrace, OpMapping, PytorchImport, compute_parity_comparison, device_preset,
    import_pytorch_trace, ms_per_step, suggest_mapping,
};
use profiler_report::run::Clock;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/real/kineto")
}

fn import_with(name: &str, mapping: &OpMapping) -> PytorchImport {
    import_pytorch_trace(dir().join(name), mapping).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn import(name: &str) -> PytorchImport {
    import_with(name, &OpMapping::defaults())
}

fn trace(name: &str) -> ChromeTrace {
    let file = std::fs::File::open(dir().join(name)).unwrap();
    ChromeTrace::from_reader(std::io::BufReader::new(file), name).unwrap()
}

#[test]
fn launch_calls_without_kernel_events_are_a_gpu_run_whose_device_was_not_recorded() {
    // 77 `cudaLaunchKernel` calls (cuda_runtime) and no kernel, memcpy or
    // memset event; 117 leaf ops is what the CPU reading counted.
    let i = import("hta_cupti_profiler_a100.json");
    assert!(i.device_activity_missing);
    assert_eq!(i.launch_calls, 77);
    assert_eq!(i.summary.launches_per_step.unwrap_or(0), 77);
    assert_eq!(i.summary.clock, Clock::Host);
    let notes = i.summary.notes.join("\n");
    assert!(
        notes.contains("device activity absent") && notes.contains("`cudaLaunchKernel` 77"),
        "{notes}"
    );
    assert!(
        notes.contains("activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]"),
        "{notes}"
    );
    assert!(!notes.contains("CPU run"), "{notes}");
    // A trace with kernels is not flagged; a CPU trace from a GPU host
    // (deviceProperties, no launch call) says it may be either.
    assert!(!import("hta_alexnet_a100.json").device_activity_missing);
    let host = import("hta_gpu_host_cpu_only_a100.json");
    assert!(!host.device_activity_missing && host.launch_calls == 0);
    assert!(
        host.summary
            .notes
            .iter()
            .any(|n| n.contains("GPU run profiled without ProfilerActivity.CUDA")),
        "{:?}",
        host.summary.notes
    );
}

#[test]
fn a_cpu_trace_against_a_cuda_trace_gives_no_verdict_and_names_both_clocks() {
    // The same mapping maps `aten::relu`/`aten::linear` on both sides: CPU
    // time on one, device time on the other.
    let cpu = import("hta_cupti_profiler_a100.json").summary;
    let gpu = import("hta_alexnet_a100.json").summary;
    assert!(ms_per_step(&cpu).contains_key("MatMul") && ms_per_step(&gpu).contains_key("MatMul"));
    let c = compute_parity_comparison(&cpu, &gpu);
    assert!(!c.all_gaps.is_empty(), "ops on both sides");
    assert!(!c.parity_achieved);
    assert_eq!(c.launch_ratio, 0.0, "kernels against launch calls");
    let md = c.to_markdown();
    assert!(md.contains("- Parity: no verdict"), "{md}");
    assert!(
        md.contains("host clock") && md.contains("device clock"),
        "{md}"
    );
    assert!(md.contains("for reference only"), "{md}");
    let text = c.to_string();
    assert!(
        !text.contains(" !"),
        "no gap flagged between clocks:\n{text}"
    );
    // Two device traces: a verdict, on one clock.
    let run2 = import("hta_alexnet_a100_run2.json").summary;
    let c = compute_parity_comparison(&gpu, &run2);
    assert!(c.coverage.clocks_agree());
    assert!(c.parity_achieved, "{}", c.to_markdown());
}

#[test]
fn the_verdict_says_which_time_its_share_is_of_and_agrees_with_the_import() {
    // run 2: Activation 0.686 + MatMul 2.715 ms of 49.816 ms device time.
    let base = import("hta_alexnet_a100_run2.json");
    let ours = import("hta_alexnet_a100.json");
    let c = compute_parity_comparison(&ours.summary, &base.summary);
    assert_eq!(c.coverage.baseline_basis, Basis::DeviceTime);
    let expected = (0.686 + 2.715) / 49.816;
    assert!(
        (c.coverage.baseline - expected).abs() < 1e-9,
        "{:?}",
        c.coverage
    );
    assert!((base.mapped_fraction - expected).abs() < 1e-9);
    let md = c.to_markdown();
    // The library names both sides `pytorch` (the CLI names them by file).
    assert!(
        md.contains("6.8% of pytorch's device time (device clock)"),
        "{md}"
    );
    assert!(
        base.summary
            .notes
            .iter()
            .any(|n| n.contains("mapped ops cover 6.8% of the device time")),
        "{:?}",
        base.summary.notes
    );
}

#[test]
fn a_range_not_named_like_a_brick_is_transparent_unless_the_mapping_names_it() {
    // Both AlexNet runs sit inside one `[param|cuda]` range: their kernels
    // go to the ops inside (python: Activation 0.686, MatMul 2.715 ms).
    let i = import("hta_alexnet_a100_run2.json");
    assert!(
        !ms_per_step(&i.summary).contains_key("[param|cuda]"),
        "{:?}",
        ms_per_step(&i.summary)
    );
    assert!((ms_per_step(&i.summary)["Activation"] - 0.686).abs() < 1e-9);
    assert!((ms_per_step(&i.summary)["MatMul"] - 2.715).abs() < 1e-9);
    assert!(
        i.unmapped.iter().any(|u| u.name == "aten::conv2d"),
        "{:?}",
        i.unmapped
    );
    // `torch.add` inside `[param|cuda]`: no rule maps `aten::add`, so it is
    // listed unmapped under its own name, not the range's.
    let i = import("hta_simple_add_param_a100.json");
    assert!(
        ms_per_step(&i.summary).is_empty(),
        "{:?}",
        ms_per_step(&i.summary)
    );
    assert!(
        i.unmapped.iter().any(|u| u.name == "aten::add"),
        "{:?}",
        i.unmapped
    );
    // A mapping that names the range maps it whole: all 49.816 ms.
    let mapping =
        OpMapping::from_toml_str("[ops]\n\"[param|cuda]\" = \"Benchmark\"\n", "m.toml").unwrap();
    let i = import_with("hta_alexnet_a100_run2.json", &mapping);
    assert_eq!(
        ms_per_step(&i.summary).len(),
        1,
        "{:?}",
        ms_per_step(&i.summary)
    );
    assert!((ms_per_step(&i.summary)["Benchmark"] - 49.816).abs() < 1e-9);
}

#[test]
fn the_draft_reaches_inside_forward_backward_and_optimizer_ranges() {
    // HTA's sampled rank 0 wraps each step in `## forward ##`,
    // `## backward ##`, `## optimizer ##` ranges.
    let t = trace("hta_sampled_rank0.json");
    let draft = suggest_mapping(&t, &OpMapping::defaults(), "hta_sampled_rank0.json").unwrap();
    let (rules, comments) = draft
        .split_once("]\n#")
        .expect("ranges listed after the rules");
    for range in ["## forward ##", "## backward ##", "## optimizer ##"] {
        assert!(
            !rules.contains(&format!("op = \"{range}\"")),
            "{range} is a rule:\n{draft}"
        );
        assert!(
            comments.contains(&format!("\"{range}\"")),
            "{range} not listed:\n{draft}"
        );
    }
    assert!(rules.contains("op = \"fbgemm::"), "{draft}");
    // The draft re-applies as it stands, and maps what its rules say.
    let mapping = OpMapping::from_toml_str(&draft, "draft.toml").unwrap();
    let i = import_pytorch_trace(dir().join("hta_sampled_rank0.json"), &mapping).unwrap();
    assert!(
        ms_per_step(&i.summary).contains_key("All2AllPooledReq"),
        "{:?}",
        ms_per_step(&i.summary)
    );
}

#[test]
fn the_trace_names_its_device_and_rank_and_the_device_names_a_preset() {
    let i = import("hta_alexnet_a100.json");
    assert_eq!(i.device.as_deref(), Some("NVIDIA A100-PG509-200"));
    assert_eq!(i.rank, Some(0));
    let note = i
        .summary
        .notes
        .iter()
        .find(|n| n.contains("deviceProperties"))
        .unwrap();
    assert!(
        note.contains("the first of 8") && note.contains("`a100` hardware preset"),
        "{note}"
    );
    let i = import("hta_cpu_only_rank34.json");
    assert_eq!((i.device.as_deref(), i.rank), (None, Some(34)));
    assert!(
        i.summary.notes.iter().any(|n| n == "rank 34 of 300"),
        "{:?}",
        i.summary.notes
    );
    let i = import("hta_gpu_host_cpu_only_a100.json");
    assert_eq!(
        (i.device.as_deref(), i.rank),
        (Some("NVIDIA A100-PG509-200"), None)
    );
    let i = import("hta_minitoy_mi250_rocm.json");
    assert_eq!(i.device.as_deref(), Some("AMD Radeon Graphics"));
    let preset = |d: &str| device_preset(d).map(|p| p.name);
    assert_eq!(preset("NVIDIA A100-PG509-200"), Some("A100 80GB SXM"));
    assert_eq!(preset("NVIDIA H100 80GB HBM3"), Some("H100 SXM"));
    assert_eq!(preset("AMD Radeon Graphics"), None);
    assert_eq!(preset("Tesla V100-SXM2-32GB"), None);
}
