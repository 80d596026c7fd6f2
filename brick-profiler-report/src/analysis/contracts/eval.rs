//! Evaluating a parsed rule against one profile: arithmetic, chained
//! comparisons, short-circuit logic, guards and quantifiers, keeping the
//! deciding comparison for the report. Names resolve through `resolve.rs`.

use profiler_contracts::rule::{ArithOp, CmpOp, Expr, ExprKind, LogicOp, Rule};
use profiler_core::Profile;

use super::compare::{compare, measurement};
use super::metrics::{self, Item, Problem};
use super::report::{Measurement, Verdict};
use super::resolve::Resolver;
use super::value::Value;

/// The evaluation context of one profile.
pub(crate) struct Context<'p> {
    profile: &'p Profile,
    names: Resolver<'p>,
    /// Quantifier variables in scope, innermost last.
    bound: Vec<(String, Item<'p>)>,
}

/// How a boolean expression came out.
struct Check {
    holds: bool,
    measurement: Option<Measurement>,
    detail: String,
}

/// A rule's outcome, before it is labelled with the test's id.
pub(crate) struct Outcome {
    pub(crate) verdict: Verdict,
    pub(crate) measurement: Option<Measurement>,
    pub(crate) detail: String,
}

impl<'p> Context<'p> {
    pub(crate) fn new(profile: &'p Profile, names: Resolver<'p>) -> Self {
        Self {
            profile,
            names,
            bound: Vec::new(),
        }
    }

    pub(crate) fn run(&mut self, rule: &Rule, text: &str) -> Outcome {
        let result = match rule {
            Rule::Check(expr) => self.check(expr, text),
            Rule::Conditional { guard, check } => match self.check(guard, text) {
                Ok(g) if !g.holds => {
                    let why = g
                        .measurement
                        .map_or_else(String::new, |m| format!(" ({m})"));
                    return Outcome {
                        verdict: Verdict::Skipped,
                        measurement: None,
                        detail: format!(
                            "not applicable: `{}` does not hold{why}",
                            guard.span.text(text)
                        ),
                    };
                }
                Ok(_) => self.check(check, text),
                Err(e) => Err(e),
            },
        };
        match result {
            Ok(c) => Outcome {
                verdict: if c.holds {
                    Verdict::Pass
                } else {
                    Verdict::Fail
                },
                measurement: c.measurement,
                detail: c.detail,
            },
            Err(Problem::Unmeasurable(why)) => Outcome {
                verdict: Verdict::Unmeasurable,
                measurement: None,
                detail: why,
            },
            Err(Problem::NotApplicable(why)) => Outcome {
                verdict: Verdict::NotApplicable,
                measurement: None,
                detail: why,
            },
            Err(Problem::Unknown(why)) => Outcome {
                verdict: Verdict::Invalid,
                measurement: None,
                detail: why,
            },
        }
    }

    fn check(&mut self, e: &Expr, text: &str) -> Result<Check, Problem> {
        match &e.kind {
            ExprKind::Compare(first, chain) => self.compare(first, chain, text),
            ExprKind::Logic(op, lhs, rhs) => self.logic(*op, lhs, rhs, text),
            ExprKind::Not(inner) => {
                let c = self.check(inner, text)?;
                Ok(Check {
                    holds: !c.holds,
                    ..c
                })
            }
            ExprKind::Quantifier {
                all,
                var,
                collection,
                body,
            } => self.quantifier(*all, var, collection, body, text),
            _ => match self.value(e, text)? {
                Value::Bool(holds) => Ok(Check {
                    holds,
                    measurement: None,
                    detail: String::new(),
                }),
                other => Err(Problem::Unknown(format!(
                    "`{}` is {}, not a condition",
                    e.span.text(text),
                    other.kind()
                ))),
            },
        }
    }

    /// `lhs and rhs` / `lhs or rhs`, short-circuit, so a guard like
    /// `x != none and x > 0` is safe; a conjunction that holds keeps the
    /// first measurement either side has.
    fn logic(&mut self, op: LogicOp, lhs: &Expr, rhs: &Expr, text: &str) -> Result<Check, Problem> {
        let left = self.check(lhs, text)?;
        let decided = match op {
            LogicOp::And => !left.holds,
            LogicOp::Or => left.holds,
        };
        if decided {
            return Ok(left);
        }
        let right = self.check(rhs, text)?;
        if op == LogicOp::And && right.holds {
            return Ok(Check {
                holds: true,
                measurement: left.measurement.or(right.measurement),
                detail: left.detail,
            });
        }
        Ok(right)
    }

    /// `all`/`any` `var` in `collection`: `body` per element with `var`
    /// bound to it; the first element that decides is named in the result.
    fn quantifier(
        &mut self,
        all: bool,
        var: &str,
        collection: &str,
        body: &Expr,
        text: &str,
    ) -> Result<Check, Problem> {
        let items = metrics::collection(self.profile, collection)?;
        let total = items.len();
        for item in items {
            let label = element_label(var, &item);
            self.bound.push((var.to_owned(), item));
            let c = self.check(body, text);
            self.bound.pop();
            let mut c = c?;
            if c.holds != all {
                if let Some(m) = &mut c.measurement {
                    m.element = Some(label.clone());
                }
                c.detail = format!("{label}: {}", c.detail)
                    .trim_end_matches(": ")
                    .to_owned();
                return Ok(c);
            }
        }
        Ok(Check {
            holds: all,
            measurement: None,
            detail: format!(
                "{} of {total} {collection}",
                if all {
                    "holds for all"
                } else {
                    "holds for none"
                }
            ),
        })
    }

    fn compare(
        &mut self,
        first: &Expr,
        chain: &[(CmpOp, Expr)],
        text: &str,
    ) -> Result<Check, Problem> {
        let mut lhs_expr = first;
        let mut lhs = self.value(first, text)?;
        let mut first_measurement = None;
        for (op, rhs_expr) in chain {
            let rhs = self.value(rhs_expr, text)?;
            // `x == none` asks whether the run has `x`; `x == "memory_bw"`
            // over an `x` the run does not have asks nothing of the run.
            let literal_none = |e: &Expr| matches!(e.kind, ExprKind::None);
            if (lhs == Value::None || rhs == Value::None)
                && !literal_none(lhs_expr)
                && !literal_none(rhs_expr)
            {
                let (name, _) = if lhs == Value::None {
                    (lhs_expr, &lhs)
                } else {
                    (rhs_expr, &rhs)
                };
                return Err(Problem::NotApplicable(format!(
                    "not applicable: `{}` is none, a value the run does not have, so `{} {} {}` \
                     cannot be checked",
                    name.span.text(text),
                    lhs_expr.span.text(text),
                    op.as_str(),
                    rhs_expr.span.text(text)
                )));
            }
            let holds = compare(&lhs, *op, &rhs).ok_or_else(|| {
                let what = format!(
                    "cannot compare `{}` ({}) {} `{}` ({})",
                    lhs_expr.span.text(text),
                    lhs,
                    op.as_str(),
                    rhs_expr.span.text(text),
                    rhs
                );
                if lhs == Value::None || rhs == Value::None {
                    // A value the run does not have (a withheld grade, a
                    // coverage without steps): the rule does not apply.
                    Problem::NotApplicable(format!(
                        "not applicable: {what}: the run does not have this value"
                    ))
                } else {
                    Problem::Unknown(what)
                }
            })?;
            // Only the first link and a failing one are reported: quoting
            // every link would make a long chain quadratic.
            if !holds {
                return Ok(Check {
                    holds: false,
                    measurement: Some(measurement(lhs_expr, &lhs, *op, rhs_expr, &rhs, text)),
                    detail: String::new(),
                });
            }
            if first_measurement.is_none() {
                first_measurement = Some(measurement(lhs_expr, &lhs, *op, rhs_expr, &rhs, text));
            }
            lhs_expr = rhs_expr;
            lhs = rhs;
        }
        Ok(Check {
            holds: true,
            measurement: first_measurement,
            detail: String::new(),
        })
    }

    fn value(&mut self, e: &Expr, text: &str) -> Result<Value, Problem> {
        match self.item(e, text)? {
            Item::Value(v) => Ok(v),
            Item::Brick { name, .. } => Err(Problem::Unknown(format!(
                "`{}` is the brick `{name}`; read a field such as `.count` or `.avg_ns`",
                e.span.text(text)
            ))),
            Item::Category { category, .. } => Err(Problem::Unknown(format!(
                "`{}` is the category `{}`; read a field such as `.total_ns`",
                e.span.text(text),
                category.name()
            ))),
        }
    }

    fn item(&mut self, e: &Expr, text: &str) -> Result<Item<'p>, Problem> {
        let num = |x: f64| Ok(Item::Value(Value::Num(x)));
        match &e.kind {
            ExprKind::Number(x) => num(*x),
            ExprKind::Str(s) => Ok(Item::Value(Value::Str(s.clone()))),
            ExprKind::Bool(b) => Ok(Item::Value(Value::Bool(*b))),
            ExprKind::None => Ok(Item::Value(Value::None)),
            ExprKind::Compare(..)
            | ExprKind::Logic(..)
            | ExprKind::Not(_)
            | ExprKind::Quantifier { .. } => {
                Ok(Item::Value(Value::Bool(self.check(e, text)?.holds)))
            }
            ExprKind::Neg(inner) => num(-self.number(inner, text)?),
            ExprKind::Arith(op, a, b) => {
                let (x, y) = (self.number(a, text)?, self.number(b, text)?);
                let r = match op {
                    ArithOp::Add => x + y,
                    ArithOp::Sub => x - y,
                    ArithOp::Mul => x * y,
                    ArithOp::Div if y == 0.0 => {
                        return Err(Problem::Unmeasurable(format!(
                            "`{}`: division by zero",
                            e.span.text(text)
                        )));
                    }
                    ArithOp::Div => x / y,
                };
                if r.is_nan() {
                    return Err(Problem::Unmeasurable(format!(
                        "`{}` is not a number",
                        e.span.text(text)
                    )));
                }
                num(r)
            }
            ExprKind::Call(name, args) => self.call(name, args, e, text),
            ExprKind::Name(_) | ExprKind::Field(..) => self.path(e, text),
        }
    }

    fn number(&mut self, e: &Expr, text: &str) -> Result<f64, Problem> {
        match self.value(e, text)? {
            Value::Num(x) => Ok(x),
            Value::None => Err(Problem::NotApplicable(format!(
                "not applicable: `{}` is none: the run does not have this value",
                e.span.text(text)
            ))),
            other => Err(Problem::Unknown(format!(
                "`{}` is {}, not a number",
                e.span.text(text),
                other.kind()
            ))),
        }
    }

    fn call(
        &mut self,
        name: &str,
        args: &[Expr],
        e: &Expr,
        text: &str,
    ) -> Result<Item<'p>, Problem> {
        let arity = |n: usize| {
            if args.len() == n {
                Ok(())
            } else {
                Err(Problem::Unknown(format!(
                    "`{name}` takes {n} argument(s), `{}` has {}",
                    e.span.text(text),
                    args.len()
                )))
            }
        };
        match name {
            "brick" | "category" => {
                arity(1)?;
                let target = match &args[0].kind {
                    ExprKind::Name(n) | ExprKind::Str(n) => n.clone(),
                    _ => {
                        return Err(Problem::Unknown(format!(
                            "`{name}(...)` takes a name, e.g. `{name}(LmHead)`"
                        )));
                    }
                };
                if name == "brick" {
                    Ok(metrics::brick(self.profile, &target))
                } else {
                    metrics::category(self.profile, &target)
                }
            }
            "min" | "max" => {
                arity(2)?;
                let (a, b) = (self.number(&args[0], text)?, self.number(&args[1], text)?);
                Ok(Item::Value(Value::Num(if name == "min" {
                    a.min(b)
                } else {
                    a.max(b)
                })))
            }
            "abs" => {
                arity(1)?;
                Ok(Item::Value(Value::Num(self.number(&args[0], text)?.abs())))
            }
            other => Err(Problem::Unknown(format!(
                "unknown function `{other}` (one of brick, category, min, max, abs)"
            ))),
        }
    }

    /// A dotted name: a quantified variable's field, an override, a built-in,
    /// or a computation's metric; else a field of an item.
    fn path(&mut self, e: &Expr, text: &str) -> Result<Item<'p>, Problem> {
        if let Some(dotted) = dotted(e) {
            if let Some((_, item)) = self.bound.iter().rev().find(|(v, _)| *v == dotted[0]) {
                let item = item.clone();
                return match dotted.get(1..) {
                    Some([]) | None => Ok(item),
                    Some([f]) => metrics::field(&item, f).map(Item::Value),
                    Some(_) => Err(Problem::Unknown(format!(
                        "`{}` nests too deep",
                        e.span.text(text)
                    ))),
                };
            }
            // Only a quantified variable has fields among plain names.
            return self.names.resolve(&dotted).map(Item::Value);
        }
        match &e.kind {
            ExprKind::Field(base, f) => {
                let item = self.item(base, text)?;
                metrics::field(&item, f).map(Item::Value)
            }
            _ => Err(self.names.unknown_metric(e.span.text(text))),
        }
    }
}

/// `a.b.c` as `["a", "b", "c"]`, if the expression is only names and fields.
fn dotted(e: &Expr) -> Option<Vec<&str>> {
    match &e.kind {
        ExprKind::Name(n) => Some(vec![n.as_str()]),
        ExprKind::Field(base, f) => {
            let mut v = dotted(base)?;
            v.push(f.as_str());
            Some(v)
        }
        _ => None,
    }
}

fn element_label(var: &str, item: &Item<'_>) -> String {
    match item {
        Item::Brick { name, .. } => format!("{var} = {name}"),
        Item::Category { category, .. } => format!("{var} = {}", category.name()),
        Item::Value(v) => format!("{var} = {v}"),
    }
}
