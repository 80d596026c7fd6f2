//! The FLOPs of a launch: stated by the user ([`FlopsAssumption`], e.g. a
//! GEMM's `2n^3` with where `n` came from), else counted from the FP
//! instruction counters, else withheld with a note saying how to give them.

use super::ncu_metrics::KernelMetrics;
use crate::model::nsight::Sourced;

/// FLOPs the user states for a kernel the export has no counters for.
#[derive(Debug, Clone, PartialEq)]
pub enum FlopsAssumption {
    /// A GEMM of `m x n x k`: `2·m·n·k` FLOPs (`2n^3` when square).
    Gemm {
        /// Rows of the output.
        m: u64,
        /// Columns of the output.
        n: u64,
        /// The reduction dimension.
        k: u64,
        /// Where the size came from, e.g. `--gemm 4096`.
        origin: String,
    },
    /// A FLOP count per launch.
    Total {
        /// FLOPs.
        flops: f64,
        /// Where it came from, e.g. `--flops 1e12`.
        origin: String,
    },
}

impl FlopsAssumption {
    fn flops(&self) -> f64 {
        match self {
            Self::Gemm { m, n, k, .. } => 2.0 * *m as f64 * *n as f64 * *k as f64,
            Self::Total { flops, .. } => *flops,
        }
    }

    fn source(&self) -> String {
        match self {
            Self::Gemm { m, n, k, origin } if m == n && n == k => {
                format!("assumed: GEMM 2n^3 with n={n} (from {origin})")
            }
            Self::Gemm { m, n, k, origin } => {
                format!("assumed: GEMM 2·m·n·k with m={m}, n={n}, k={k} (from {origin})")
            }
            Self::Total { origin, .. } => format!("given ({origin})"),
        }
    }
}

/// FLOPs: stated by the user (wins), else counted, else none.
pub(crate) fn flops(
    m: &KernelMetrics,
    stated: Option<&FlopsAssumption>,
    notes: &mut Vec<String>,
) -> Option<Sourced> {
    let counted = m.flops.as_ref().and_then(|c| {
        let precisions: Vec<&str> = c.by_precision.iter().map(|(p, _)| *p).collect();
        Sourced::new(
            c.total(),
            format!(
                "counted: {} ({})",
                c.methods.join("; "),
                precisions.join(" + ")
            ),
        )
    });
    match (stated, counted) {
        (Some(a), counted) => {
            if let Some(c) = counted {
                notes.push(format!(
                    "FLOPs as stated ({}) rather than the {} counted from instructions",
                    crate::base::textfmt::si(a.flops()),
                    crate::base::textfmt::si(c.value)
                ));
            }
            Sourced::new(a.flops(), a.source())
        }
        (None, Some(c)) => Some(c),
        (None, None) => {
            notes.push(
                "FLOPs unknown: the export has no FP instruction counters \
                 (smsp__sass_thread_inst_executed_op_{f,h,d}{fma,add,mul}_pred_on.sum); \
                 state them with --gemm N or --flops F. TFLOP/s and the roofline are withheld"
                    .to_owned(),
            );
            None
        }
    }
}
