//! FLOPs counted from Nsight Compute's FP instruction counters (FMA counts
//! twice, as in its own roofline), per precision that has all three.

use super::ncu_model::NcuKernel;

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
}

impl CountedFlops {
    pub(crate) fn total(&self) -> f64 {
        self.by_precision.iter().map(|(_, f)| f).sum()
    }

    /// The precision with the most FLOPs.
    pub(crate) fn dominant(&self) -> Option<&'static str> {
        self.by_precision
            .iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(p, _)| *p)
    }
}

pub(crate) fn counted_flops(kernel: &NcuKernel, notes: &mut Vec<String>) -> Option<CountedFlops> {
    let mut by_precision = Vec::new();
    for (precision, names) in FLOP_COUNTERS {
        let values: Vec<Option<f64>> = names
            .iter()
            .map(|n| kernel.metric(n).and_then(|m| m.value).filter(|v| *v >= 0.0))
            .collect();
        match values.as_slice() {
            [Some(fma), Some(add), Some(mul)] if (2.0 * fma + add + mul).is_finite() => {
                by_precision.push((precision, 2.0 * fma + add + mul));
            }
            v if v.iter().any(Option::is_some) => notes.push(format!(
                "{precision} FLOPs not counted: needs all of {}",
                names.join(", ")
            )),
            _ => {}
        }
    }
    (!by_precision.is_empty()).then_some(CountedFlops { by_precision })
}
