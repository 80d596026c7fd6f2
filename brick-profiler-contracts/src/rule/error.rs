//! [`RuleSyntaxError`]: where and why a rule's text does not parse.

/// A syntax error in a rule, at a 1-based column of its text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("column {column}: {message}")]
pub struct RuleSyntaxError {
    /// 1-based column (in characters) where the problem starts.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl RuleSyntaxError {
    /// An error at byte offset `at` of the text; [`Self::in_characters`]
    /// turns it into a column.
    pub(super) fn new(at: usize, message: impl Into<String>) -> Self {
        Self {
            column: at + 1,
            message: message.into(),
        }
    }

    /// The byte offset the lexer and parser gave, as a 1-based column in
    /// characters of `text`.
    pub(super) fn in_characters(mut self, text: &str) -> Self {
        let at = (self.column - 1).min(text.len());
        let before = text.get(..at).map_or(at, |s| s.chars().count());
        self.column = before + 1;
        self
    }
}
