//! The height of a rule's tree, counted as the parser builds it: chains
//! such as `1 + 1 + ...` are parsed by loops but build trees as deep as
//! they are long, so each node checks the height it reaches.

use super::ast::{Expr, ExprKind, Span};
use super::error::RuleSyntaxError;

/// Height of a rule's tree beyond this is refused: chains such as
/// `1 + 1 + ...`, `a or b or ...` and `.a.b.c...` are parsed by loops but
/// build trees as deep as they are long, and evaluating, cloning or
/// dropping a tree recurses once per level.
pub(super) const MAX_HEIGHT: usize = 256;

/// A parsed expression and the height of its tree (a leaf is 1).
pub(super) struct Node {
    pub(super) expr: Expr,
    pub(super) height: usize,
}

pub(super) type Parsed = Result<Node, RuleSyntaxError>;

pub(super) fn node(kind: ExprKind, span: Span) -> Expr {
    Expr { kind, span }
}

/// `expr` over children at most `below` high, refused past [`MAX_HEIGHT`]
/// with an error at byte `at` naming what grew too deep (`` `+` ``, "a call").
pub(super) fn grown(at: usize, what: &str, expr: Expr, below: usize) -> Parsed {
    let height = below + 1;
    if height > MAX_HEIGHT {
        return Err(RuleSyntaxError::new(
            at,
            format!(
                "expression too deep at {what}: more than {MAX_HEIGHT} nested operations \
                 (split the chain into several tests)"
            ),
        ));
    }
    Ok(Node { expr, height })
}

/// `lhs op rhs`, with the operator (`what`, for errors) at byte `at`.
pub(super) fn binary(
    at: usize,
    what: &str,
    lhs: Node,
    rhs: Node,
    kind: impl FnOnce(Expr, Expr) -> ExprKind,
) -> Parsed {
    let span = lhs.expr.span.to(rhs.expr.span);
    let below = lhs.height.max(rhs.height);
    grown(at, what, node(kind(lhs.expr, rhs.expr), span), below)
}

/// A prefix node (`not`, `-`, a quantifier) starting at byte `start`.
pub(super) fn unary(
    start: usize,
    what: &str,
    inner: Node,
    kind: impl FnOnce(Expr) -> ExprKind,
) -> Parsed {
    let span = Span {
        start,
        end: inner.expr.span.end,
    };
    let height = inner.height;
    grown(start, what, node(kind(inner.expr), span), height)
}
