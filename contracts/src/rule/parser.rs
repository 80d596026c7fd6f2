//! Recursive-descent parser of the rule language, lowest precedence first:
//! `if/then`, `or`, `and`, `not` and quantifiers, comparisons (chainable),
//! `+ -`, `* /`, unary minus, then field access, calls and atoms.

use super::ast::{ArithOp, CmpOp, Expr, ExprKind, LogicOp, Rule, Span};
use super::error::RuleSyntaxError;
use super::lexer::{Tok, Token};

/// Words that cannot name a metric.
const KEYWORDS: [&str; 11] = [
    "if", "then", "and", "or", "not", "all", "any", "in", "true", "false", "none",
];

/// Expression nesting beyond this is refused (no stack overflow on input).
const MAX_DEPTH: usize = 64;

pub(super) struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    depth: usize,
    /// Column one past the text, for "expected ... at the end" errors.
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
            let guard = self.expr()?;
            if !self.eat_word("then") {
                return Err(self.expected("`then` after the `if` condition"));
            }
            let check = self.expr()?;
            Rule::Conditional { guard, check }
        } else {
            Rule::Check(self.expr()?)
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

    fn expr(&mut self) -> Result<Expr, RuleSyntaxError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let at = self.here();
            return Err(RuleSyntaxError::new(at, "expression nested too deeply"));
        }
        let result = self.logic(LogicOp::Or);
        self.depth -= 1;
        result
    }

    /// `or` binds looser than `and`.
    fn logic(&mut self, op: LogicOp) -> Result<Expr, RuleSyntaxError> {
        let (word, symbol) = match op {
            LogicOp::Or => ("or", "||"),
            LogicOp::And => ("and", "&&"),
        };
        let operand = |p: &mut Self| match op {
            LogicOp::Or => p.logic(LogicOp::And),
            LogicOp::And => p.unary_logic(),
        };
        let mut lhs = operand(self)?;
        while self.eat_word(word) || self.eat_punct(symbol) {
            let rhs = operand(self)?;
            let span = lhs.span.to(rhs.span);
            lhs = node(ExprKind::Logic(op, Box::new(lhs), Box::new(rhs)), span);
        }
        Ok(lhs)
    }

    fn unary_logic(&mut self) -> Result<Expr, RuleSyntaxError> {
        let start = self.here();
        if self.eat_word("not") || self.eat_punct("!") {
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(RuleSyntaxError::new(start, "expression nested too deeply"));
            }
            let inner = self.unary_logic()?;
            self.depth -= 1;
            let span = Span {
                start,
                end: inner.span.end,
            };
            return Ok(node(ExprKind::Not(Box::new(inner)), span));
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
                let span = Span {
                    start,
                    end: body.span.end,
                };
                let kind = ExprKind::Quantifier {
                    all,
                    var,
                    collection,
                    body: Box::new(body),
                };
                return Ok(node(kind, span));
            }
        }
        self.comparison()
    }

    fn comparison(&mut self) -> Result<Expr, RuleSyntaxError> {
        let first = self.sum()?;
        let mut chain = Vec::new();
        while let Some(op) = self.cmp_op() {
            chain.push((op, self.sum()?));
        }
        if chain.is_empty() {
            return Ok(first);
        }
        let span = first
            .span
            .to(chain.last().map_or(first.span, |(_, e)| e.span));
        Ok(node(ExprKind::Compare(Box::new(first), chain), span))
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

    fn sum(&mut self) -> Result<Expr, RuleSyntaxError> {
        let mut lhs = self.product()?;
        loop {
            let op = if self.eat_punct("+") {
                ArithOp::Add
            } else if self.eat_punct("-") {
                ArithOp::Sub
            } else {
                return Ok(lhs);
            };
            let rhs = self.product()?;
            let span = lhs.span.to(rhs.span);
            lhs = node(ExprKind::Arith(op, Box::new(lhs), Box::new(rhs)), span);
        }
    }

    fn product(&mut self) -> Result<Expr, RuleSyntaxError> {
        let mut lhs = self.negation()?;
        loop {
            let op = if self.eat_punct("*") {
                ArithOp::Mul
            } else if self.eat_punct("/") {
                ArithOp::Div
            } else {
                return Ok(lhs);
            };
            let rhs = self.negation()?;
            let span = lhs.span.to(rhs.span);
            lhs = node(ExprKind::Arith(op, Box::new(lhs), Box::new(rhs)), span);
        }
    }

    fn negation(&mut self) -> Result<Expr, RuleSyntaxError> {
        let start = self.here();
        if self.eat_punct("-") {
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(RuleSyntaxError::new(start, "expression nested too deeply"));
            }
            let inner = self.negation()?;
            self.depth -= 1;
            let span = Span {
                start,
                end: inner.span.end,
            };
            return Ok(node(ExprKind::Neg(Box::new(inner)), span));
        }
        self.postfix()
    }

    fn postfix(&mut self) -> Result<Expr, RuleSyntaxError> {
        let mut base = self.atom()?;
        while self.eat_punct(".") {
            let field_start = self.here();
            let field = self.ident("a field name after `.`")?;
            let span = base.span.to(Span {
                start: field_start,
                end: self.prev_end(),
            });
            base = node(ExprKind::Field(Box::new(base), field), span);
        }
        Ok(base)
    }

    fn atom(&mut self) -> Result<Expr, RuleSyntaxError> {
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
                let args = self.arguments()?;
                let end = self.prev_end();
                return Ok(node(
                    ExprKind::Call(name, args),
                    Span {
                        start: span.start,
                        end,
                    },
                ));
            }
            Tok::Ident(name) => ExprKind::Name(name),
            Tok::Punct("(") => {
                let inner = self.expr()?;
                if !self.eat_punct(")") {
                    return Err(self.expected("`)`"));
                }
                return Ok(Expr {
                    kind: inner.kind,
                    span: Span {
                        start: span.start,
                        end: self.prev_end(),
                    },
                });
            }
            other => {
                return Err(RuleSyntaxError::new(
                    span.start,
                    format!("expected a value, found {}", describe(&other)),
                ));
            }
        };
        Ok(node(kind, span))
    }

    fn arguments(&mut self) -> Result<Vec<Expr>, RuleSyntaxError> {
        let mut args = Vec::new();
        if self.eat_punct(")") {
            return Ok(args);
        }
        loop {
            args.push(self.expr()?);
            if self.eat_punct(")") {
                return Ok(args);
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

fn node(kind: ExprKind, span: Span) -> Expr {
    Expr { kind, span }
}

fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Number(n) => format!("the number `{n}`"),
        Tok::Str(s) => format!("the string \"{s}\""),
        Tok::Ident(w) => format!("`{w}`"),
        Tok::Punct(p) => format!("`{p}`"),
    }
}
