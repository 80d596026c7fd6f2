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
    /// An error at 0-based character offset `start`.
    pub(super) fn new(start: usize, message: impl Into<String>) -> Self {
        Self {
            column: start + 1,
            message: message.into(),
        }
    }
}
