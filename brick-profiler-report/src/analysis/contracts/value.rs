//! [`Value`]: what a metric or a rule expression evaluates to, and how
//! reports print it.

use std::fmt;

use serde::Serialize;

/// A metric's value.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Value {
    /// A number (counts are exact up to 2^53).
    Num(f64),
    /// A flag.
    Bool(bool),
    /// A name such as a sync mode (`"deferred"`) or a grade (`"A"`).
    Str(String),
    /// An optional metric that is absent (a withheld grade, an unknown peak).
    None,
}

impl Value {
    /// The number, if this is one.
    #[must_use]
    pub fn as_num(&self) -> Option<f64> {
        match self {
            Self::Num(x) => Some(*x),
            _ => None,
        }
    }

    /// What kind of value this is, for type errors.
    #[must_use]
    pub const fn kind(&self) -> &'static str {
        match self {
            Self::Num(_) => "a number",
            Self::Bool(_) => "a flag",
            Self::Str(_) => "a string",
            Self::None => "none",
        }
    }
}

impl From<f64> for Value {
    fn from(x: f64) -> Self {
        Self::Num(x)
    }
}

impl From<u64> for Value {
    fn from(x: u64) -> Self {
        Self::Num(x as f64)
    }
}

impl From<bool> for Value {
    fn from(x: bool) -> Self {
        Self::Bool(x)
    }
}

impl From<&str> for Value {
    fn from(x: &str) -> Self {
        Self::Str(x.to_owned())
    }
}

impl From<String> for Value {
    fn from(x: String) -> Self {
        Self::Str(x)
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(x: Option<T>) -> Self {
        x.map_or(Self::None, Into::into)
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Num(x) => f.write_str(&format_number(*x)),
            Self::Bool(b) => write!(f, "{b}"),
            Self::Str(s) => write!(f, "{s:?}"),
            Self::None => f.write_str("none"),
        }
    }
}

/// Integers as integers, others with up to 4 decimals, very large or very
/// small magnitudes in scientific notation.
pub(crate) fn format_number(x: f64) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "NaN".to_owned()
        } else if x > 0.0 {
            "inf".to_owned()
        } else {
            "-inf".to_owned()
        };
    }
    if x.fract() == 0.0 && x.abs() < 1e15 {
        return format!("{x:.0}");
    }
    let a = x.abs();
    if !(1e-3..1e9).contains(&a) {
        return format!("{x:.4e}");
    }
    let s = format!("{x:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_readably() {
        assert_eq!(format_number(16.0), "16");
        assert_eq!(format_number(0.97126), "0.9713");
        assert_eq!(format_number(0.5), "0.5");
        assert_eq!(format_number(1.5e-6), "1.5000e-6");
        assert_eq!(format_number(f64::INFINITY), "inf");
        assert_eq!(Value::from("A").to_string(), "\"A\"");
        assert_eq!(Value::from(None::<f64>).to_string(), "none");
    }
}
