//! Every Kineto / PyTorch profiler trace in `tests/fixtures/real/kineto/`,
//! taken from public repositories (see PROVENANCE.md there) or recorded
//! from a stock PyTorch model, read and checked against numbers counted by
//! hand from each file: steps, device events and their launches, kernels,
//! device time.

use std::path::PathBuf;

use profiler_core::Profile;
use profiler_report::parity::{
    ChromeTrace, OpMapping, PytorchImport, compute_parity_comparison, import_chrome_trace,
    import_pytorch_trace, import_pytorch_trace_str, ms_per_step, suggest_mapping,
};
use profiler_report::run::RunSummary;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/real/kineto")
}

fn import(name: &str) -> PytorchImport {
    import_pytorch_trace(dir().join(name), &OpMapping::defaults())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// What was counted by hand in one file.
struct Expect {
    file: &'static str,
    /// `ProfilerStep#N` ranges kept (0: none, the trace is one step).
    steps: u64,
    /// Steps left out for holding no work.
    empty: &'static [&'static str],
    /// Kernels, memcpy and memset events.
    device: u64,
    /// Of those, linked to the runtime call that launched them.
    linked: u64,
    /// Kernels (or, in CPU traces, leaf ops) per step.
    launches: u64,
    /// Device time (or, in CPU traces, step time), ms per step.
    basis_ms: f64,
}

const EXPECTED: &[Expect] = &[
    // The case: 79 kernels, 16 memcpy, 3 memset, none linked by
    // External id; 10.692 ms of kernels, 66.203 ms with the copies.
    Expect {
        file: "hta_alexnet_a100.json",
        steps: 0,
        empty: &[],
        device: 98,
        linked: 98,
        launches: 79,
        basis_ms: 66.203,
    },
    // ROCm 6.2 (MI250): ProfilerStep#1 9.288 ms and an empty trailing
    // ProfilerStep#2 of 0.049 ms; 14 kernels, 2 memcpy.
    Expect {
        file: "hta_minitoy_mi250_rocm.json",
        steps: 1,
        empty: &["ProfilerStep#2"],
        device: 16,
        linked: 16,
        launches: 14,
        basis_ms: 0.149042,
    },
    Expect {
        file: "hta_event_sync_a100.json",
        steps: 1,
        empty: &[],
        device: 5,
        linked: 5,
        launches: 4,
        basis_ms: 0.051,
    },
    // Triton: the launch is `cuLaunchKernel` (cuda_driver).
    Expect {
        file: "hta_triton_a100.json",
        steps: 1,
        empty: &[],
        device: 1,
        linked: 1,
        launches: 1,
        basis_ms: 0.00176,
    },
    // Two steps of 1154 kernels and 50 copies, all launched by correlation.
    Expect {
        file: "hta_sampled_rank0.json",
        steps: 2,
        empty: &[],
        device: 1204,
        linked: 1204,
        launches: 577,
        basis_ms: 303.922,
    },
    Expect {
        file: "hta_backward_thread.json",
        steps: 1,
        empty: &[],
        device: 1,
        linked: 1,
        launches: 1,
        basis_ms: 0.045,
    },
    // A cut-down HTA sample: 16 of 18 device events have no runtime call.
    Expect {
        file: "hta_trace_compare_base.json",
        steps: 2,
        empty: &[],
        device: 18,
        linked: 2,
        launches: 3,
        basis_ms: 0.843,
    },
    // CPU only (gloo): one step of 210.109 ms.
    Expect {
        file: "hta_cpu_only_rank34.json",
        steps: 1,
        empty: &[],
        device: 0,
        linked: 0,
        launches: 0,
        basis_ms: 210.109162,
    },
    Expect {
        file: "hta_rank_non_gpu.json",
        steps: 1,
        empty: &[],
        device: 0,
        linked: 0,
        launches: 690,
        basis_ms: 75.473,
    },
    // CUPTI range profiling: 77 `cudaLaunchKernel` calls but no kernel
    // activity: the launches are those calls, not leaf ops.
    Expect {
        file: "hta_cupti_profiler_a100.json",
        steps: 0,
        empty: &[],
        device: 0,
        linked: 0,
        launches: 77,
        basis_ms: 11849.544,
    },
    // The second AlexNet run of the same benchmark: 79 kernels, 16 memcpy,
    // 3 memset, 49.816 ms of device time.
    Expect {
        file: "hta_alexnet_a100_run2.json",
        steps: 0,
        empty: &[],
        device: 98,
        linked: 98,
        launches: 79,
        basis_ms: 49.816,
    },
    // One `torch.add` benchmarked inside `[param|cuda]`: 4 kernels.
    Expect {
        file: "hta_simple_add_param_a100.json",
        steps: 0,
        empty: &[],
        device: 4,
        linked: 4,
        launches: 4,
        basis_ms: 0.016,
    },
    // Two streams: 3 kernels and 3 memset.
    Expect {
        file: "hta_event_sync_multi_stream_a100.json",
        steps: 0,
        empty: &[],
        device: 6,
        linked: 6,
        launches: 3,
        basis_ms: 0.372,
    },
    // rank 1 of HTA's cut-down pair: 17 device events, one with its
    // runtime call; 5 kernels in 2 steps, 2.5 rounded half away from 0.
    Expect {
        file: "hta_trace_compare_test.json",
        steps: 2,
        empty: &[],
        device: 17,
        linked: 1,
        launches: 3,
        basis_ms: 0.841,
    },
    // The events of `hta_rank_non_gpu.json` with deviceProperties (A100)
    // and no distributedInfo: a CPU trace from a GPU host.
    Expect {
        file: "hta_gpu_host_cpu_only_a100.json",
        steps: 1,
        empty: &[],
        device: 0,
        linked: 0,
        launches: 690,
        basis_ms: 75.473,
    },
    // 2021 inference fragment (`Kernel`/`Runtime` categories, rank 1): 4
    // kernels and their launches, no op.
    Expect {
        file: "hta_inference_rank1_2021.json",
        steps: 0,
        empty: &[],
        device: 4,
        linked: 4,
        launches: 4,
        basis_ms: 0.03,
    },
    // 2021 (PyTorch 1.8 era): `Operator`/`Runtime`/`Kernel` categories, the
    // step marker an operator, tids as strings and numbers.
    Expect {
        file: "kineto_tb_plugin_v100_2021.json",
        steps: 1,
        empty: &[],
        device: 32,
        linked: 32,
        launches: 30,
        basis_ms: 0.050,
    },
    Expect {
        file: "kineto_docs_h100_before_fix.json",
        steps: 0,
        empty: &[],
        device: 1,
        linked: 1,
        launches: 1,
        basis_ms: 0.00002,
    },
    // torch 2.11 on an H100, bf16 autocast: three steps of 153 kernels,
    // 13 memset and 8 memcpy each, 1.829525 ms of device time in all.
    Expect {
        file: "kineto_h100_transformer_bf16.json",
        steps: 3,
        empty: &[],
        device: 522,
        linked: 522,
        launches: 153,
        basis_ms: 0.609_841_667,
    },
    // torch 2.15 CPU, record_shapes + with_modules + with_stack.
    Expect {
        file: "stock_tiny_transformer_cpu.json",
        steps: 1,
        empty: &[],
        device: 0,
        linked: 0,
        launches: 586,
        basis_ms: 231.588,
    },
];

#[test]
fn every_real_trace_reads_with_the_numbers_counted_by_hand() {
    let mut listed: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    listed.sort();
    let mut expected: Vec<String> = EXPECTED.iter().map(|e| e.file.to_owned()).collect();
    expected.sort();
    assert_eq!(
        listed, expected,
        "every fixture has its hand-counted numbers"
    );
    for x in EXPECTED {
        let i = import(x.file);
        let got = (
            i.steps,
            i.device_events,
            i.linked_device_events,
            i.summary.launches_per_step.unwrap_or(0),
        );
        assert_eq!(got, (x.steps, x.device, x.linked, x.launches), "{}", x.file);
        assert_eq!(i.empty_steps, x.empty, "{}", x.file);
        assert!(
            (i.basis_ms - x.basis_ms).abs() <= 1e-6 * x.basis_ms.max(1.0),
            "{}: {} ms, expected {}",
            x.file,
            i.basis_ms,
            x.basis_ms
        );
        assert!(
            i.mapped_fraction.is_finite() && i.mapped_fraction >= 0.0,
            "{}",
            x.file
        );
        // No public trace reuses a correlation id while it is in flight.
        assert_eq!(i.colliding_device_events, 0, "{}", x.file);
    }
}

#[test]
fn kernels_belong_to_the_op_that_launched_them_not_to_an_external_id() {
    // alexnet: every device event sits under the `[param|cuda]` range,
    // which is no brick: the kernels go to the ops that launched them
    // (counted with python over the raw JSON: kernels linked by
    // correlation id to their launch, the outermost mapped op around it).
    let i = import("hta_alexnet_a100.json");
    let ms = ms_per_step(&i.summary);
    let ops: Vec<(&str, f64)> = ms.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(ops.len(), 2, "{ops:?}");
    assert!(
        (ms_per_step(&i.summary)["Activation"] - 0.683).abs() < 1e-9,
        "{ops:?}"
    );
    assert!(
        (ms_per_step(&i.summary)["MatMul"] - 2.664).abs() < 1e-9,
        "{ops:?}"
    );
    assert!(
        (i.mapped_fraction - (0.683 + 2.664) / 66.203).abs() < 1e-9,
        "{}",
        i.mapped_fraction
    );
    // ROCm: the two linear layers' kernels (hipLaunchKernel) count as MatMul,
    // their backward through the sequence number.
    let i = import("hta_minitoy_mi250_rocm.json");
    assert!(
        ms_per_step(&i.summary)["MatMul"] > 0.0 && ms_per_step(&i.summary)["MatMulBackward"] > 0.0,
        "{:?}",
        ms_per_step(&i.summary)
    );
    // Start and end are µs since boot: about 1e-3 µs of rounding.
    assert!(
        ((i.summary.step_ns.unwrap_or(0.0) / 1e6) - 9.288291).abs() < 1e-5,
        "the empty step does not halve the step"
    );
    assert!(
        i.summary
            .notes
            .iter()
            .any(|n| n.contains("ProfilerStep#2 (0.049 ms)")),
        "{:?}",
        i.summary.notes
    );
}

#[test]
fn coverage_above_one_is_shown_as_is_with_why() {
    // gloo all_reduce ranges on two threads: 343.68 ms in a 210.11 ms step
    // (a range counts as an op when the mapping names it).
    let mapping =
        OpMapping::from_toml_str("[ops]\n\"gloo:all_reduce\" = \"AllReduce\"\n", "m.toml").unwrap();
    let i = import_pytorch_trace(dir().join("hta_cpu_only_rank34.json"), &mapping).unwrap();
    assert!(
        (i.mapped_fraction - 343.680971 / 210.109162).abs() < 1e-6,
        "{}",
        i.mapped_fraction
    );
    let note = i
        .summary
        .notes
        .iter()
        .find(|n| n.contains("mapped ops cover"))
        .unwrap();
    assert!(
        note.contains("163.6%") && note.contains("overlap"),
        "{note}"
    );
}

#[test]
fn a_cut_file_is_an_error_naming_it() {
    let text = std::fs::read_to_string(dir().join("hta_event_sync_a100.json")).unwrap();
    let cut = &text[..text.len() / 2];
    let e = import_pytorch_trace_str(
        cut,
        "hta_event_sync_a100.json (cut)",
        &OpMapping::defaults(),
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("hta_event_sync_a100.json (cut)"),
        "{e}"
    );
}

fn stock_trace() -> ChromeTrace {
    let path = dir().join("stock_tiny_transformer_cpu.json");
    ChromeTrace::from_reader(std::fs::File::open(&path).unwrap(), "stock").unwrap()
}

#[test]
fn the_draft_mapping_names_module_paths_and_shapes_with_their_time() {
    let draft = suggest_mapping(&stock_trace(), &OpMapping::defaults(), "stock.json").unwrap();
    for line in [
        "{ module = \"*.Attention[*].Linear[0]\", brick = \"Linear\" },",
        "{ module = \"*.FeedForward[*].Linear[2]\", brick = \"Linear\" },",
        "{ module = \"TinyTransformer[*].Linear[0]\", brick = \"Linear\" },",
        "{ op = \"aten::matmul\", shapes = \"[4, 4, 64, 16] x [4, 4, 16, 64]\", module = \"*.Block[*].Attention[*]\", brick = \"MatMul\" },",
        // The optimizer's range, mapped by the built-in rules, holds its ops.
        "{ op = \"Optimizer.step#Adam.step\", brick = \"AdamUpdate\" },  # 11.911 ms, 1 call, a record_function range",
        // One rule for the op: its shapes are only in the comment.
        "{ op = \"aten::softmax\", module = \"*.Block[*].Attention[*]\", brick = \"AttentionSoftmax\" },  # 0.836 ms, 4 calls, shapes [4, 4, 64, 64]",
    ] {
        assert!(draft.contains(line), "{line}\n{draft}");
    }
    assert!(draft.contains("ms, 4 calls"), "{draft}");
    // The draft is a mapping file as it stands.
    OpMapping::from_toml_str(&draft, "draft.toml").unwrap();
}

#[test]
fn the_stock_model_compares_per_op_against_the_main_job() {
    let mapping = OpMapping::from_file(dir().join("stock_tiny_transformer.mapping.toml")).unwrap();
    let torch =
        import_pytorch_trace(dir().join("stock_tiny_transformer_cpu.json"), &mapping).unwrap();
    let main = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../brick-profiler-cli/tests/fixtures/profile.json");
    let ours = RunSummary::from_profile(&Profile::read(main).unwrap(), "train_tiny");
    let c = compute_parity_comparison(&ours, &torch.summary);
    let compared: Vec<&str> = c.all_gaps.iter().map(|g| g.op.as_str()).collect();
    for op in [
        "QkvProjection",
        "OutputProjection",
        "GateProjection",
        "UpProjection",
        "DownProjection",
        "LmHead",
        "RmsNorm",
        "AttentionScore",
        "AttentionSoftmax",
        "AttentionOutput",
        "RopeEmbedding",
        "Residual",
        "Activation",
        "Embedding",
        "CrossEntropy",
        "AdamUpdate",
        "QkvProjectionBackward",
        "RmsNormBackward",
        "RopeBackward",
        "AttentionScoreBackward",
    ] {
        assert!(
            compared.contains(&op),
            "{op} not compared: {compared:?}\n{:?}",
            ms_per_step(&torch.summary)
        );
    }
    assert!(
        c.coverage.ours > 0.5 && c.coverage.baseline > 0.5,
        "{:?}",
        c.coverage
    );
    assert!(
        c.to_markdown().contains("% of train_tiny's step time"),
        "{}",
        c.to_markdown()
    );
}

/// The draft mapping, applied as it stands, finds what its comments say:
/// per forward brick, the time of its rules (ms per step, as printed) is
/// the time parity then compares, on a CPU trace and on an H100 trace.
#[test]
fn the_draft_mapping_applied_finds_the_time_its_comments_say() {
    for name in [
        "stock_tiny_transformer_cpu.json",
        "kineto_h100_transformer_bf16.json",
    ] {
        let trace =
            ChromeTrace::from_reader(std::fs::File::open(dir().join(name)).unwrap(), name).unwrap();
        let draft = suggest_mapping(&trace, &OpMapping::defaults(), name).unwrap();
        let mapping = OpMapping::from_toml_str(&draft, "draft.toml").unwrap();
        let found = ms_per_step(&import_chrome_trace(&trace, &mapping).unwrap().summary);
        let mut said: std::collections::BTreeMap<String, (f64, usize)> = Default::default();
        for line in draft.lines().filter(|l| l.starts_with("  { ")) {
            let brick = line
                .split("brick = \"")
                .nth(1)
                .and_then(|r| r.split('"').next())
                .unwrap();
            let ms: f64 = line
                .split("},  # ")
                .nth(1)
                .and_then(|r| r.split(" ms").next())
                .unwrap()
                .parse()
                .unwrap();
            let entry = said.entry(brick.to_owned()).or_default();
            entry.0 += ms;
            entry.1 += 1;
        }
        // Backward ops follow their forward op's brick: the draft lists
        // forward groups only.
        let forward: Vec<&String> = found.keys().filter(|b| !b.ends_with("Backward")).collect();
        assert_eq!(said.keys().collect::<Vec<_>>(), forward, "{name}\n{draft}");
        for (brick, (ms, rules)) in &said {
            // Each rule's time is printed to 0.001 ms.
            let tolerance = 0.0005 * *rules as f64 + 1e-9;
            assert!(
                (found[brick] - ms).abs() <= tolerance,
                "{name}: {brick} found {} ms, the draft says {ms} ms\n{draft}",
                found[brick]
            );
        }
    }
}

/// What was counted by hand (python over the raw file: `gzip` + `json`) in
/// a gzipped trace kept as its repository ships it, or cut (see
/// PROVENANCE.md).
struct GzExpect {
    file: &'static str,
    /// `ProfilerStep#N` ranges kept (0: none, the trace is one step).
    steps: u64,
    /// Kernels, memcpy and memset events, and of those linked to their launch.
    device: u64,
    linked: u64,
    /// Kernels per step.
    launches: u64,
    /// Kernel launch calls per trace, graph launches aside.
    launch_calls: u64,
    /// Device time, ms per step.
    basis_ms: f64,
    /// `deviceProperties[0].name` (none when empty).
    device_name: Option<&'static str>,
    /// Kernels replayed by graph launches, their launches, and the device
    /// time of what they replayed (ms): the graph note's numbers.
    graph: Option<(u64, &'static str, f64)>,
}

const GZ_EXPECTED: &[GzExpect] = &[
    // torch.compile on an MI300X: 12 Triton/hipBLASLt kernels, all launched
    // by `hipModuleLaunchKernel` (5) or `hipExtModuleLaunchKernel` (7).
    GzExpect {
        file: "tracelens_torch_compile_mi300x.json.gz",
        steps: 0,
        device: 12,
        linked: 12,
        launches: 12,
        launch_calls: 12,
        basis_ms: 12.549_021,
        device_name: Some("AMD Instinct MI300X"),
        graph: None,
    },
    // SGLang decode on an MI300X: 544 of 555 kernels replayed by one
    // `hipGraphLaunch`, 11 launched one by one.
    GzExpect {
        file: "tracelens_sglang_decode_hipgraph_mi300x.json.gz",
        steps: 0,
        device: 558,
        linked: 558,
        launches: 555,
        launch_calls: 11,
        basis_ms: 9.778_614,
        device_name: Some("AMD Instinct MI300X"),
        graph: Some((544, "`hipGraphLaunch` 1", 9.656)),
    },
    // ROCm runtime calls and kernels only, no CPU op (MI210).
    GzExpect {
        file: "tracelens_gpu_only_mi210.json.gz",
        steps: 0,
        device: 562,
        linked: 562,
        launches: 562,
        launch_calls: 562,
        basis_ms: 5.343_422,
        device_name: Some("AMD Instinct MI210"),
        graph: None,
    },
    // vLLM on a B200, eager with one compiled region: `cudaLaunchKernel`
    // 367, `cuLaunchKernelEx` 220, `cudaLaunchKernelExC` 180,
    // `cuLaunchKernel` 1.
    GzExpect {
        file: "tracelens_b200_eager.json.gz",
        steps: 0,
        device: 929,
        linked: 929,
        launches: 768,
        launch_calls: 768,
        basis_ms: 11.665_76,
        device_name: Some("NVIDIA B200"),
        graph: None,
    },
    // vLLM capturing its decode graph on an MI300X (deviceProperties names
    // no device: `name` is empty): 428 launch calls (`hipModuleLaunchKernel`
    // 252, `hipLaunchKernel` 104, `hipExtModuleLaunchKernel` 72) of which
    // only 7 ran a kernel, the rest being captured.
    GzExpect {
        file: "tracelens_vllm_graph_capture_mi300x.json.gz",
        steps: 0,
        device: 10,
        linked: 10,
        launches: 7,
        launch_calls: 428,
        basis_ms: 0.028_83,
        device_name: None,
        graph: None,
    },
    // One step of a torch.compile'd recommendation model on an A100 with
    // CUDA graphs: 14 `cudaGraphLaunch` replay 27 kernels and 42 memset.
    GzExpect {
        file: "hta_cuda_graph_compiled_a100_step552.json.gz",
        steps: 1,
        device: 1375,
        linked: 1375,
        launches: 1075,
        launch_calls: 1048,
        basis_ms: 76.878,
        device_name: Some("NVIDIA A100-SXM4-80GB"),
        graph: Some((27, "`cudaGraphLaunch` 14", 21.109)),
    },
];

#[test]
fn gzipped_real_traces_read_with_the_numbers_counted_by_hand() {
    let mut listed: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json.gz"))
        .collect();
    listed.sort();
    let mut expected: Vec<&str> = GZ_EXPECTED.iter().map(|e| e.file).collect();
    // Read by the input tests (`src/input/open/tests.rs`, the CLI's).
    expected.push("hta_nccl_a100_rank0.json.gz");
    expected.sort_unstable();
    assert_eq!(
        listed, expected,
        "every fixture has its hand-counted numbers"
    );
    for x in GZ_EXPECTED {
        let i = import(x.file);
        let got = (
            i.steps,
            i.device_events,
            i.linked_device_events,
            i.summary.launches_per_step.unwrap_or(0),
            i.launch_calls,
        );
        let want = (x.steps, x.device, x.linked, x.launches, x.launch_calls);
        assert_eq!(got, want, "{}", x.file);
        assert!(i.device_kernels && !i.device_activity_missing, "{}", x.file);
        assert!(
            (i.basis_ms - x.basis_ms).abs() <= 1e-6 * x.basis_ms,
            "{}: {} ms, expected {}",
            x.file,
            i.basis_ms,
            x.basis_ms
        );
        assert_eq!(i.device.as_deref(), x.device_name, "{}", x.file);
        assert_eq!(i.colliding_device_events, 0, "{}", x.file);
        let graph_note = i
            .summary
            .notes
            .iter()
            .find(|n| n.contains("graph launches"));
        match (x.graph, graph_note) {
            (None, None) => {}
            (Some((kernels, calls, ms)), Some(note)) => {
                let head = format!(
                    "{kernels} of the {} kernels per step were replayed by graph launches \
                     ({calls}; {} kernel launch calls besides, per step)",
                    x.launches, x.launch_calls
                );
                assert!(note.starts_with(&head), "{}: {note}", x.file);
                assert!(
                    note.contains(&format!("device time, {ms:.3} ms per step")),
                    "{}: {note}",
                    x.file
                );
            }
            (want, got) => panic!("{}: graph note {got:?}, expected {want:?}", x.file),
        }
        // Launch calls beyond the kernels recorded are said, with how many.
        let direct = x.launches - x.graph.map_or(0, |g| g.0);
        let calls_note = i
            .summary
            .notes
            .iter()
            .find(|n| n.contains("have no kernel event"));
        if x.launch_calls > direct {
            let head = format!(
                "{} of the {} kernel launch calls per step have no kernel event",
                x.launch_calls - direct,
                x.launch_calls
            );
            assert!(
                calls_note.is_some_and(|n| n.starts_with(&head)),
                "{}: {calls_note:?}",
                x.file
            );
        } else {
            assert_eq!(calls_note, None, "{}", x.file);
        }
    }
}

#[test]
fn a_compiled_trace_maps_the_ops_inside_its_region() {
    // Device time of the kernels launched inside each op, python over the
    // raw file (kernel -> launch by correlation -> enclosing cpu_op):
    // aten::mm 8.029555 ms, flash attention 3.683509 ms, of 12.549021.
    let i = import("tracelens_torch_compile_mi300x.json.gz");
    let ops = &profiler_report::parity::ms_per_step(&i.summary);
    assert_eq!(ops.len(), 2, "{ops:?}");
    assert!((ops["MatMul"] - 8.029_555).abs() < 1e-9, "{ops:?}");
    assert!((ops["Attention"] - 3.683_509).abs() < 1e-9, "{ops:?}");
    assert!(
        (i.mapped_fraction - (8.029_555 + 3.683_509) / 12.549_021).abs() < 1e-9,
        "{}",
        i.mapped_fraction
    );
    // The region and its graph call are wrappers, not ops.
    assert!(
        i.unmapped
            .iter()
            .all(|u| !u.name.starts_with("Torch-Compiled Region")
                && !u.name.contains("CompiledFxGraph")),
        "{:?}",
        i.unmapped
    );
}

/// The draft mapping of a gzipped fixture, read as the CLI reads it.
fn draft_of(name: &str) -> String {
    let file = profiler_report::input::open_file(dir().join(name)).unwrap();
    let trace = ChromeTrace::from_reader(std::io::BufReader::new(file), name)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    suggest_mapping(&trace, &OpMapping::defaults(), name).unwrap()
}

/// A draft says how much of the device time no rule can reach through a
/// launch (python over the raw files: kernels whose runtime call no CPU op
/// encloses): 547 kernels, 9.674 ms (544 replayed by the `hipGraphLaunch`)
/// of 9.779 ms in the SGLang decode step; all 562 kernels, 5.343 ms, of a
/// trace of runtime calls only.
#[test]
fn a_draft_says_what_device_time_was_launched_outside_every_op() {
    let draft = draft_of("tracelens_sglang_decode_hipgraph_mi300x.json.gz");
    assert!(
        draft.contains(
            "\n# 547 kernels per step (9.674 ms, 98.9% of the device time) launched outside every \
             op and module call, 544 of them replayed by graph launches: only a rule naming a \
             range around them maps them\n"
        ),
        "{draft}"
    );
    // The range that holds the graph launch is listed for such a rule.
    assert!(draft.contains("#   \"step[DECODE bs=32]\""), "{draft}");
    let draft = draft_of("tracelens_gpu_only_mi210.json.gz");
    assert!(
        draft.contains(
            "\n# 562 kernels per step (5.343 ms, 100.0% of the device time) launched outside \
             every op and module call: only a rule naming a range around them maps them\n\
             # no forward op with time in the trace\nrules = []\n"
        ),
        "{draft}"
    );
    // Every kernel of the compiled trace ran under an op: nothing to say.
    let draft = draft_of("tracelens_torch_compile_mi300x.json.gz");
    assert!(!draft.contains("outside every op"), "{draft}");
    assert!(!draft.contains("no launch call"), "{draft}");
}
