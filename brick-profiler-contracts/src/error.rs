//! [`ContractError`]: every way a contract file can be wrong, each naming the
//! file, the line and the field, so a build or a test failure points at the
//! YAML to fix.

use std::fmt;

/// A contract file that could not be read, parsed or validated.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ContractError {
    /// The file could not be read.
    #[error("{file}: cannot read the contract: {source}")]
    Io {
        /// The file.
        file: String,
        /// What the OS said.
        #[source]
        source: std::io::Error,
    },
    /// The file is larger than `MAX_CONTRACT_BYTES`;
    /// refused before parsing.
    #[error("{file}: {size} bytes is over the {limit}-byte limit of a contract file")]
    TooLarge {
        /// The file.
        file: String,
        /// Its size in bytes.
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// The YAML is malformed, or a value has the wrong shape or type.
    #[error("{file}:{line}: `{field}`: {message}")]
    Schema {
        /// The file.
        file: String,
        /// 1-based line (0 when unknown).
        line: usize,
        /// Dotted path of the field, e.g. `equations.wall_coverage.preconditions`.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// The YAML is well-formed but a value breaks a rule of the schema
    /// (an identifier, a condition that does not parse, an unknown
    /// dependency, a duplicate id).
    #[error("{file}:{line}: `{field}`: {message}")]
    Invalid {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// Dotted path of the field.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// A falsification test's `test` expression does not parse.
    #[error("{file}:{line}: falsification test `{id}`: `test`, column {column}: {message}")]
    Rule {
        /// The file.
        file: String,
        /// 1-based line of the `test` value.
        line: usize,
        /// The falsification test's id.
        id: String,
        /// 1-based column inside the expression.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// Several problems, in file and line order.
    #[error("{}", Several(.0))]
    Several(Vec<ContractError>),
}

/// Something in a contract file this project reads past: a key it does
/// not use (from the upstream format), named with its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContractWarning {
    /// The file.
    pub file: String,
    /// 1-based line (0 when unknown).
    pub line: usize,
    /// Dotted path of the field, e.g. `metadata.author`.
    pub field: String,
    /// What was ignored and why.
    pub message: String,
}

impl fmt::Display for ContractWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: `{}`: {}",
            self.file, self.line, self.field, self.message
        )
    }
}

struct Several<'a>(&'a [ContractError]);

impl fmt::Display for Several<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl ContractError {
    /// The individual errors (one, or each of [`ContractError::Several`]).
    #[must_use]
    pub fn errors(&self) -> Vec<&ContractError> {
        match self {
            Self::Several(all) => all.iter().flat_map(ContractError::errors).collect(),
            other => vec![other],
        }
    }

    /// The individual errors, owned.
    #[must_use]
    pub fn into_errors(self) -> Vec<ContractError> {
        match self {
            Self::Several(all) => all
                .into_iter()
                .flat_map(ContractError::into_errors)
                .collect(),
            other => vec![other],
        }
    }

    /// One error from a list (none when the list is empty).
    pub(crate) fn combine(mut errors: Vec<ContractError>) -> Option<ContractError> {
        match errors.len() {
            0 => None,
            1 => errors.pop(),
            _ => Some(Self::Several(errors)),
        }
    }

    /// The file the error is about (the first one for several).
    #[must_use]
    pub fn file(&self) -> &str {
        match self {
            Self::Io { file, .. }
            | Self::TooLarge { file, .. }
            | Self::Schema { file, .. }
            | Self::Invalid { file, .. }
            | Self::Rule { file, .. } => file,
            Self::Several(all) => all.first().map_or("", ContractError::file),
        }
    }

    /// The 1-based line the error is about, when known.
    #[must_use]
    pub fn line(&self) -> Option<usize> {
        match self {
            Self::Schema { line, .. } | Self::Invalid { line, .. } | Self::Rule { line, .. } => {
                Some(*line).filter(|l| *l > 0)
            }
            Self::Several(all) => all.first().and_then(ContractError::line),
            Self::Io { .. } | Self::TooLarge { .. } => None,
        }
    }
}
