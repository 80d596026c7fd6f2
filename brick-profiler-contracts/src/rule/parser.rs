//! Recursive-descent parser of the rule language, lowest precedence first:
//! `if/then`, `or`, `and`, `not` and quantifiers, comparisons (chainable),
//! `+ -`, `* /`, unary minus, then field access, calls and atoms.

use super::ast::{ArithOp, CmpOp, Expr, ExprKind, LogicOp, Rule, Span};
use super::error::RuleSyntaxError;
use super::height::{Node, Parsed, binary, grown, node, unary};
use super::lexer::{Tok, Token};

/// Words that cannot name a metric.
const KEYWORDS: [&str; 11] = [
    "if", "then", "and", "or", "not", "all", "any", "in", "true", "false", "none",
];

/// Parenthesis, `not` and unary minus nesting beyond this is refused, so
/// the parser's own recursion stays shallow.
const MAX_DEPTH: usize = 64;

pub(super) struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    depth: usize,
    /// Byte offset one past the text, for "expected ... at the end" errors.
    end: usize,
}

impl Parser {
    pub(super) fn new(tokens: Vec<Token>, end: usize) -> Self {
        Self {
            tokens,
            pos: 0,
            depth: 0,
            end,
        }
    }

    pub(super) fn rule(&mut self) -> Result<Rule, RuleSyntaxError> {
        if self.tokens.is_empty() {
            return Err(RuleSyntaxError::new(0, "empty test expression"));
        }
        let rule = if self.eat_word("if") {
            let guard = self.expr()?.expr;
            if !self.eat_word("then") {
                return Err(self.expected("`then` after the `if` condition"));
            }
            let check = self.expr()?.expr;
            Rule::Conditional { guard, check }
        } else {
            Rule::Check(self.expr()?.expr)
        };
        match self.tokens.get(self.pos) {
            None => Ok(rule),
            Some(t) => Err(RuleSyntaxError::new(
                t.span.start,
                format!(
                    "unexpected {} after a complete expression",
                    describe(&t.tok)
                ),
            )),
        }
    }

    fn expr(&mut self) -> Parsed {
        self.nested(|p| p.logic(LogicOp::Or))
    }

    /// Runs `inner` one nesting level deeper, refusing too deep a nesting.
    fn nested(&mut self, inner: impl FnOnce(&mut Self) -> Parsed) -> Parsed {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let at = self.here();
            return Err(RuleSyntaxError::new(at, "expression nested too deeply"));
        }
        let result = inner(self);
        self.depth -= 1;
        result
    }

    /// `or` binds looser than `and`.
    fn logic(&mut self, op: LogicOp) -> Parsed {
        let (word, symbol) = match op {
            LogicOp::Or => ("or", "||"),
            LogicOp::And => ("and", "&&"),
        };
        let operand = |p: &mut Self| match op {
            LogicOp::Or => p.logic(LogicOp::And),
            LogicOp::And => p.unary_logic(),
        };
        let mut lhs = operand(self)?;
        loop {
            let at = self.here();
            if !(self.eat_word(word) || self.eat_punct(symbol)) {
                return Ok(lhs);
            }
            let rhs = operand(self)?;
            let what = if op == LogicOp::Or { "`or`" } else { "`and`" };
            lhs = binary(at, what, lhs, rhs, |l, r| {
                ExprKind::Logic(op, Box::new(l), Box::new(r))
            })?;
        }
    }

    fn unary_logic(&mut self) -> Parsed {
        let start = self.here();
        if self.eat_word("not") || self.eat_punct("!") {
            let inner = self.nested(Self::unary_logic)?;
            return unary(start, "`not`", inner, |e| ExprKind::Not(Box::new(e)));
        }
        for (word, all) in [("all", true), ("any", false)] {
            if self.peek_word(word) && self.peek_is_ident_at(1) && self.peek_word_at(2, "in") {
                self.pos += 1;
                let var = self.ident("a variable name")?;
                self.pos += 1; // `in`
                let collection = self.ident("a collection (`bricks`, `categories`, ...)")?;
                if !self.eat_punct(":") {
                    return Err(self.expected("`:` before the quantified condition"));
                }
                let body = self.expr()?;
                return unary(start, "a quantifier", body, |body| ExprKind::Quantifier {
                    all,
                    var,
                    collection,
                    body: Box::new(body),
                });
            }
        }
        self.comparison()
    }

    fn comparison(&mut self) -> Parsed {
        let first = self.sum()?;
        let mut chain = Vec::new();
        let mut height = first.height;
        while let Some(op) = self.cmp_op() {
            let rhs = self.sum()?;
            height = height.max(rhs.height);
            chain.push((op, rhs.expr));
        }
        let Some((_, last)) = chain.last() else {
            return Ok(first);
        };
        let span = first.expr.span.to(last.span);
        let kind = ExprKind::Compare(Box::new(first.expr), chain);
        grown(span.start, "a comparison", node(kind, span), height)
    }

    fn cmp_op(&mut self) -> Option<CmpOp> {
        let op = match self.tokens.get(self.pos).map(|t| &t.tok) {
            Some(Tok::Punct("==")) => CmpOp::Eq,
            Some(Tok::Punct("!=")) => CmpOp::Ne,
            Some(Tok::Punct("<")) => CmpOp::Lt,
            Some(Tok::Punct("<=")) => CmpOp::Le,
            Some(Tok::Punct(">")) => CmpOp::Gt,
            Some(Tok::Punct(">=")) => CmpOp::Ge,
            Some(Tok::Punct("~=")) => CmpOp::Approx,
            _ => return None,
        };
        self.pos += 1;
        Some(op)
    }

    fn sum(&mut self) -> Parsed {
        self.arithmetic([("+", ArithOp::Add), ("-", ArithOp::Sub)], Self::product)
    }

    fn product(&mut self) -> Parsed {
        self.arithmetic([("*", ArithOp::Mul), ("/", ArithOp::Div)], Self::negation)
    }

    /// A left-associative chain of `ops` over `operand`s.
    fn arithmetic(
        &mut self,
        ops: [(&'static str, ArithOp); 2],
        operand: fn(&mut Self) -> Parsed,
    ) -> Parsed {
        let mut lhs = operand(self)?;
        loop {
            let at = self.here();
            let Some((_, op)) = ops.into_iter().find(|(s, _)| self.eat_punct(s)) else {
                return Ok(lhs);
            };
            let rhs = operand(self)?;
            let what = match op {
                ArithOp::Add => "`+`",
                ArithOp::Sub => "`-`",
                ArithOp::Mul => "`*`",
                ArithOp::Div => "`/`",
            };
            lhs = binary(at, what, lhs, rhs, |l, r| {
                ExprKind::Arith(op, Box::new(l), Box::new(r))
            })?;
        }
    }

    fn negation(&mut self) -> Parsed {
        let start = self.here();
        if self.eat_punct("-") {
            let inner = self.nested(Self::negation)?;
            return unary(start, "`-`", inner, |e| ExprKind::Neg(Box::new(e)));
        }
        self.postfix()
    }

    fn postfix(&mut self) -> Parsed {
        let mut base = self.atom()?;
        loop {
            let at = self.here();
            if !self.eat_punct(".") {
                return Ok(base);
            }
            let field_start = self.here();
            let field = self.ident("a field name after `.`")?;
            let span = base.expr.span.to(Span {
                start: field_start,
                end: self.prev_end(),
            });
            let kind = ExprKind::Field(Box::new(base.expr), field);
            base = grown(at, "`.`", node(kind, span), base.height)?;
        }
    }

    fn atom(&mut self) -> Parsed {
        let Some(token) = self.tokens.get(self.pos).cloned() else {
            return Err(self.expected("a value"));
        };
        self.pos += 1;
        let span = token.span;
        let kind = match token.tok {
            Tok::Number(n) => ExprKind::Number(n),
            Tok::Str(s) => ExprKind::Str(s),
            Tok::Ident(w) if w == "true" || w == "false" => ExprKind::Bool(w == "true"),
            Tok::Ident(w) if w == "none" => ExprKind::None,
            Tok::Ident(w) if KEYWORDS.contains(&w.as_str()) => {
                return Err(RuleSyntaxError::new(
                    span.start,
                    format!("expected a value, found the keyword `{w}`"),
                ));
            }
            Tok::Ident(name) if self.eat_punct("(") => {
                let (args, height) = self.arguments()?;
                let end = self.prev_end();
                let span = Span {
                    start: span.start,
                    end,
                };
                return grown(
                    span.start,
                    "a call",
                    node(ExprKind::Call(name, args), span),
                    height,
                );
            }
            Tok::Ident(name) => ExprKind::Name(name),
            Tok::Punct("(") => {
                let inner = self.expr()?;
                if !self.eat_punct(")") {
                    return Err(self.expected("`)`"));
                }
                let span = Span {
                    start: span.start,
                    end: self.prev_end(),
                };
                return Ok(Node {
                    expr: node(inner.expr.kind, span),
                    height: inner.height,
                });
            }
            other => {
                return Err(RuleSyntaxError::new(
                    span.start,
                    format!("expected a value, found {}", describe(&other)),
                ));
            }
        };
        Ok(Node {
            expr: node(kind, span),
            height: 1,
        })
    }

    /// The arguments after `(`, and the height of the tallest.
    fn arguments(&mut self) -> Result<(Vec<Expr>, usize), RuleSyntaxError> {
        let mut args = Vec::new();
        let mut height = 0;
        if self.eat_punct(")") {
            return Ok((args, height));
        }
        loop {
            let arg = self.expr()?;
            height = height.max(arg.height);
            args.push(arg.expr);
            if self.eat_punct(")") {
                return Ok((args, height));
            }
            if !self.eat_punct(",") {
                return Err(self.expected("`,` or `)` in the argument list"));
            }
        }
    }

    fn ident(&mut self, what: &str) -> Result<String, RuleSyntaxError> {
        match self.tokens.get(self.pos).map(|t| &t.tok) {
            Some(Tok::Ident(w)) if !KEYWORDS.contains(&w.as_str()) => {
                let w = w.clone();
                self.pos += 1;
                Ok(w)
            }
            _ => Err(self.expected(what)),
        }
    }

    fn expected(&self, what: &str) -> RuleSyntaxError {
        match self.tokens.get(self.pos) {
            Some(t) => RuleSyntaxError::new(
                t.span.start,
                format!("expected {what}, found {}", describe(&t.tok)),
            ),
            None => RuleSyntaxError::new(self.end, format!("expected {what} at the end")),
        }
    }

    fn here(&self) -> usize {
        self.tokens.get(self.pos).map_or(self.end, |t| t.span.start)
    }

    fn prev_end(&self) -> usize {
        self.pos
            .checked_sub(1)
            .and_then(|i| self.tokens.get(i))
            .map_or(0, |t| t.span.end)
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        let hit =
            matches!(self.tokens.get(self.pos), Some(Token { tok: Tok::Punct(q), .. }) if *q == p);
        self.pos += usize::from(hit);
        hit
    }

    fn eat_word(&mut self, word: &str) -> bool {
        let hit = self.peek_word(word);
        self.pos += usize::from(hit);
        hit
    }

    fn peek_word(&self, word: &str) -> bool {
        self.peek_word_at(0, word)
    }

    fn peek_word_at(&self, ahead: usize, word: &str) -> bool {
        matches!(self.tokens.get(self.pos + ahead), Some(Token { tok: Tok::Ident(w), .. }) if w == word)
    }

    fn peek_is_ident_at(&self, ahead: usize) -> bool {
        matches!(self.tokens.get(self.pos + ahead), Some(Token { tok: Tok::Ident(w), .. }) if !KEYWORDS.contains(&w.as_str()))
    }
}

fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Number(n) => format!("the number `{n}`"),
        Tok::Str(s) => format!("the string \"{s}\""),
        Tok::Ident(w) => format!("`{w}`"),
        Tok::Punct(p) => format!("`{p}`"),
    }
}
