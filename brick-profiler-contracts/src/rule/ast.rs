//! The syntax tree of a falsification test: a [`Rule`] is a check, optionally
//! guarded by a condition, over [`Expr`]essions that name metrics of a
//! profile. Every node keeps its [`Span`] so reports can quote it.

/// Byte offsets `start..end` of a node in its rule text (on character
/// boundaries), so quoting a node costs nothing however long the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// The text this span covers in `source` (empty when the span does not
    /// fall on `source`'s character boundaries).
    #[must_use]
    pub fn text<'a>(&self, source: &'a str) -> &'a str {
        source.get(self.start..self.end).unwrap_or("").trim()
    }

    pub(crate) fn to(self, other: Span) -> Span {
        Span {
            start: self.start,
            end: other.end,
        }
    }
}

/// A parsed falsification test.
#[derive(Debug, Clone, PartialEq)]
pub enum Rule {
    /// `expr`: must hold.
    Check(Expr),
    /// `if guard then check`: must hold whenever `guard` holds; the test is
    /// skipped (not applicable) otherwise.
    Conditional {
        /// When the rule applies.
        guard: Expr,
        /// What must then hold.
        check: Expr,
    },
}

/// An expression with its span.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where it is.
    pub span: Span,
}

/// Arithmetic operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArithOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
}

/// Logical connectives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogicOp {
    /// `and` / `&&`
    And,
    /// `or` / `||`
    Or,
}

/// Comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `~=`: equal within a relative tolerance of 1e-9 (absolute near 0).
    Approx,
}

impl CmpOp {
    /// The operator as written.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Eq => "==",
            Self::Ne => "!=",
            Self::Lt => "<",
            Self::Le => "<=",
            Self::Gt => ">",
            Self::Ge => ">=",
            Self::Approx => "~=",
        }
    }
}

/// The kinds of expression.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// A number literal (`0.85`, `10`, `1e-9`).
    Number(f64),
    /// A string literal (`"immediate"`).
    Str(String),
    /// `true` or `false`.
    Bool(bool),
    /// `none`: the value of an optional metric that is absent.
    None,
    /// A bare identifier: a metric (`wall_coverage`), a namespace
    /// (`scorecard` in `scorecard.grade`), or a quantifier's variable.
    Name(String),
    /// `base.field`.
    Field(Box<Expr>, String),
    /// `name(args)`: `brick(LmHead)`, `category(Attention)`, `min(a, b)`,
    /// `max(a, b)`, `abs(x)`.
    Call(String, Vec<Expr>),
    /// `-x`.
    Neg(Box<Expr>),
    /// `not x` / `!x`.
    Not(Box<Expr>),
    /// `a + b`, `a - b`, `a * b`, `a / b`.
    Arith(ArithOp, Box<Expr>, Box<Expr>),
    /// `a and b`, `a or b`.
    Logic(LogicOp, Box<Expr>, Box<Expr>),
    /// `a <= b` or a chain `a <= b <= c` (each adjacent pair must hold).
    Compare(Box<Expr>, Vec<(CmpOp, Expr)>),
    /// `all b in bricks: body` / `any b in bricks: body`.
    Quantifier {
        /// `all` (true) or `any` (false).
        all: bool,
        /// The variable bound to each element.
        var: String,
        /// The collection (`bricks`, `categories`, `layers`, `phases`).
        collection: String,
        /// The condition per element.
        body: Box<Expr>,
    },
}
