//! FLOPs counted from Nsight Compute's FP instruction counters (FMA counts
//! twice, as in its own roofline), per precision that has all three; from
//! the rates its roofline sections export (`.sum.per_cycle_elapsed` times
//! the SM sub-partition clock, times the duration) when the counts are
//! absent; and from the tensor pipes' operation counts or rates
//! (`sm__ops_path_tensor_src_*.sum`, `.sum.per_second`; one operation per
//! FLOP).

use crate::model::nsight::NcuKernel;

/// FP instruction counters per precision: FMA counts twice (the formula of
/// Nsight Compute's own roofline).
pub(crate) const FLOP_COUNTERS: [(&str, [&str; 3]); 3] = [
    (
        "FP32",
        [
            "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
            "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
            "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
        ],
    ),
    (
        "FP16",
        [
            "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum",
            "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum",
            "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum",
        ],
    ),
    (
        "FP64",
        [
            "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
            "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum",
            "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum",
        ],
    ),
];

/// FLOPs counted from instruction counters.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CountedFlops {
    /// FLOPs per precision that had all three counters.
    pub(crate) by_precision: Vec<(&'static str, f64)>,
    /// How they were counted, each way once.
    pub(crate) methods: Vec<&'static str>,
}

/// The ways FLOPs are counted, as the report names them.
const BY_COUNTS: &str = "2 x FMA + ADD + MUL instructions";
const BY_RATES: &str = "2 x FMA + ADD + MUL instructions per cycle x SM clock x duration";
const BY_TENSOR_COUNTS: &str = "tensor-pipe operations";
const BY_TENSOR: &str = "tensor-pipe operations per second x duration";

impl CountedFlops {
    pub(crate) fn total(&self) -> f64 {
        self.by_precision.iter().map(|(_, f)| f).sum()
    }

    /// Whether the tensor pipes' FLOPs are in the count.
    pub(crate) fn counts_tensor_pipes(&self) -> bool {
        self.methods.contains(&BY_TENSOR) || self.methods.contains(&BY_TENSOR_COUNTS)
    }

    /// The precision with the most FLOPs.
    pub(crate) fn dominant(&self) -> Option<&'static str> {
        self.by_precision
            .iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(p, _)| *p)
    }
}

/// The clock the per-cycle instruction rates are counted in.
const SMSP_CLOCK: &str = "smsp__cycles_elapsed.avg.per_second";
/// Suffix of an instruction counter's rate per elapsed cycle.
const PER_CYCLE: &str = ".per_cycle_elapsed";

/// Tensor-pipe operation counters (`sm__ops_path_tensor_src_<suffix>.sum`,
/// or its `.per_second` rate) that count floating-point operations, and the
/// precision each counts. Integer paths (`int8`, `int1`) count operations,
/// not FLOPs. Only paths seen in real exports (Hopper and sm_120, ncu 2025)
/// are read, so no path is counted twice under two names.
const TENSOR_PATHS: [(&str, &str); 7] = [
    ("bf16_dst_fp32", "BF16 (tensor)"),
    ("bf16_dst_bf16", "BF16 (tensor)"),
    ("fp16", "FP16 (tensor)"),
    ("tf32_dst_fp32", "TF32 (tensor)"),
    ("fp64", "FP64 (tensor)"),
    ("fp8_sparsity_off", "FP8 (tensor)"),
    ("fp8_sparsity_on", "FP8 (tensor)"),
];

/// FLOPs per precision: counted from instruction counters, else from their
/// rates over the kernel's `duration_s`, plus the tensor pipes' FLOPs
/// (their counts, else their rates over the duration).
pub(crate) fn counted_flops(
    kernel: &NcuKernel,
    duration_s: Option<f64>,
    notes: &mut Vec<String>,
) -> Option<CountedFlops> {
    let value = |name: &str| {
        kernel
            .metric(name)
            .and_then(|m| m.value)
            .filter(|v| v.is_finite() && *v >= 0.0)
    };
    let clock = value(SMSP_CLOCK);
    let mut by_precision: Vec<(&'static str, f64)> = Vec::new();
    let mut methods: Vec<&'static str> = Vec::new();
    let mut used = |method| {
        if !methods.contains(&method) {
            methods.push(method);
        }
    };
    for (precision, names) in FLOP_COUNTERS {
        let counts: Vec<Option<f64>> = names.iter().map(|n| value(n)).collect();
        let rates: Vec<Option<f64>> = names
            .iter()
            .map(|n| value(&format!("{n}{PER_CYCLE}")))
            .collect();
        let flops = |v: &[Option<f64>]| match v {
            [Some(fma), Some(add), Some(mul)] => Some(2.0 * fma + add + mul),
            _ => None,
        };
        if let Some(f) = flops(&counts).filter(|f| f.is_finite()) {
            by_precision.push((precision, f));
            used(BY_COUNTS);
        } else if let (Some(per_cycle), Some(hz), Some(s)) = (flops(&rates), clock, duration_s) {
            let f = per_cycle * hz * s;
            if f > 0.0 && f.is_finite() {
                by_precision.push((precision, f));
                used(BY_RATES);
            }
        } else if counts.iter().chain(&rates).any(Option::is_some) {
            notes.push(format!(
                "{precision} FLOPs not counted: needs all of {} (or their \
                 {PER_CYCLE} rates with {SMSP_CLOCK} and the duration)",
                names.join(", ")
            ));
        }
    }
    for (path, precision) in TENSOR_PATHS {
        let count = format!("sm__ops_path_tensor_src_{path}.sum");
        let rate = format!("{count}.per_second");
        let (f, method) = if let Some(ops) = value(&count) {
            (ops, BY_TENSOR_COUNTS)
        } else if let Some(per_second) = value(&rate) {
            let Some(s) = duration_s else {
                notes.push(format!(
                    "{precision} FLOPs not counted: {rate} needs the duration"
                ));
                continue;
            };
            (per_second * s, BY_TENSOR)
        } else {
            continue;
        };
        if f > 0.0 && f.is_finite() {
            match by_precision.iter_mut().find(|(p, _)| *p == precision) {
                Some((_, total)) => *total += f,
                None => by_precision.push((precision, f)),
            }
            used(method);
        }
    }
    (!by_precision.is_empty()).then_some(CountedFlops {
        by_precision,
        methods,
    })
}
