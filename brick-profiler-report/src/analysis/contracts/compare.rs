//! Comparing two values (`==` on anything, order on numbers, `~=` within a
//! relative tolerance) and recording the comparison for the report with
//! the measured side first.

use profiler_contracts::rule::{CmpOp, Expr, ExprKind};

use super::report::Measurement;
use super::value::Value;

/// Relative tolerance of `~=`.
const APPROX_REL: f64 = 1e-9;

/// `lhs op rhs`; `None` when the values cannot be compared that way.
pub(crate) fn compare(lhs: &Value, op: CmpOp, rhs: &Value) -> Option<bool> {
    use std::cmp::Ordering;
    let ordering = match (lhs, rhs) {
        (Value::Num(a), Value::Num(b)) => {
            if op == CmpOp::Approx {
                let scale = a.abs().max(b.abs()).max(1.0);
                return Some(a == b || (a - b).abs() <= APPROX_REL * scale);
            }
            a.partial_cmp(b)?
        }
        _ => {
            let equal = lhs == rhs;
            return match op {
                CmpOp::Eq | CmpOp::Approx => Some(equal),
                CmpOp::Ne => Some(!equal),
                _ => None,
            };
        }
    };
    Some(match op {
        CmpOp::Eq | CmpOp::Approx => ordering == Ordering::Equal,
        CmpOp::Ne => ordering != Ordering::Equal,
        CmpOp::Lt => ordering == Ordering::Less,
        CmpOp::Le => ordering != Ordering::Greater,
        CmpOp::Gt => ordering == Ordering::Greater,
        CmpOp::Ge => ordering != Ordering::Less,
    })
}

/// The measured side on the left: a literal on the left swaps with the
/// metric on the right (`0 <= x` reads as `x >= 0`).
pub(crate) fn measurement(
    lhs_expr: &Expr,
    lhs: &Value,
    op: CmpOp,
    rhs_expr: &Expr,
    rhs: &Value,
    text: &str,
) -> Measurement {
    let literal = |e: &Expr| {
        matches!(
            e.kind,
            ExprKind::Number(_) | ExprKind::Str(_) | ExprKind::Bool(_) | ExprKind::None
        )
    };
    if literal(lhs_expr) && !literal(rhs_expr) {
        let flipped = match op {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            same => same,
        };
        return measurement(rhs_expr, rhs, flipped, lhs_expr, lhs, text);
    }
    Measurement {
        expr: lhs_expr.span.text(text).to_owned(),
        measured: lhs.clone(),
        op: op.as_str().to_owned(),
        bound_expr: rhs_expr.span.text(text).to_owned(),
        bound: rhs.clone(),
        element: None,
    }
}
