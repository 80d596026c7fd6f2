//! The typed view of a validated contract: what `parse_contract`
//! returns and what the macro generator and the verifier read.

use std::fmt;

use serde::Deserialize;

use crate::error::ContractWarning;
use crate::rule::Rule;

/// One contract file.
#[derive(Debug, Clone, PartialEq)]
pub struct Contract {
    /// The contract's name: its file stem (`gpu-decode-profiling-v1`).
    pub name: String,
    /// Where it was read from (a path, or `contracts/<name>.yaml` for the
    /// shipped ones), as errors quote it.
    pub source: String,
    /// Version, date, description, references, dependencies.
    pub metadata: Metadata,
    /// Equations, in file order.
    pub equations: Vec<Equation>,
    /// What must be proven or bounded about the equations.
    pub proof_obligations: Vec<ProofObligation>,
    /// Checks a profile must pass, in file order.
    pub falsification_tests: Vec<FalsificationTest>,
    /// Keys of the file this project reads past (upstream keys such as
    /// `metadata.author` or `kani_harnesses`), with their lines.
    pub warnings: Vec<ContractWarning>,
}

impl Contract {
    /// The equation named `name`.
    #[must_use]
    pub fn equation(&self, name: &str) -> Option<&Equation> {
        self.equations.iter().find(|e| e.name == name)
    }

    /// The falsification test with id `id`.
    #[must_use]
    pub fn test(&self, id: &str) -> Option<&FalsificationTest> {
        self.falsification_tests.iter().find(|t| t.id == id)
    }

    /// The name as a Rust path segment (`gpu_decode_profiling_v1`).
    #[must_use]
    pub fn rust_name(&self) -> String {
        rust_name(&self.name)
    }
}

/// `gpu-decode-profiling-v1` -> `gpu_decode_profiling_v1`.
pub(crate) fn rust_name(name: &str) -> String {
    name.replace(['-', '.'], "_")
}

/// A contract's `metadata` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metadata {
    /// Version of the contract (`1.0.0`).
    pub version: String,
    /// When it was written (`2025-06-01`).
    pub created: String,
    /// What it is about.
    pub description: String,
    /// Where its formulas come from.
    pub references: Vec<String>,
    /// Names of contracts it builds on.
    pub depends_on: Vec<String>,
    /// 1-based line of each `depends_on` entry, for cross-reference errors.
    pub(crate) depends_on_lines: Vec<usize>,
}

/// One named equation.
#[derive(Debug, Clone, PartialEq)]
pub struct Equation {
    /// Snake-case name; generated macros are `contract_pre_<name>!` and
    /// `contract_post_<name>!`.
    pub name: String,
    /// 1-based line of the name in the file.
    pub line: usize,
    /// The formula, as prose or math.
    pub formula: String,
    /// What the inputs are (and the type `input` has in conditions).
    pub domain: String,
    /// What the result is (and the type `result` has in conditions).
    pub codomain: String,
    /// Rust boolean expressions over `input` that must hold on entry.
    pub preconditions: Vec<Condition>,
    /// Rust boolean expressions over `result` (and `input`) that must hold
    /// on exit.
    pub postconditions: Vec<Condition>,
    /// Properties that always hold, as prose or math.
    pub invariants: Vec<String>,
}

/// A pre- or postcondition: a Rust boolean expression, checked at build time
/// to parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condition {
    /// The expression as written.
    pub text: String,
    /// 1-based line in the file.
    pub line: usize,
    /// Whether it reads `input`.
    pub uses_input: bool,
    /// Whether it reads `result`.
    pub uses_result: bool,
}

/// What kind of claim a proof obligation makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ObligationKind {
    /// Holds for every input.
    Invariant,
    /// A value stays within a range.
    Bound,
    /// Two computations agree (within the tolerance).
    Equivalence,
    /// A value never decreases (or increases) as an input grows.
    Monotonicity,
    /// Results come in a fixed order.
    Ordering,
    /// Nothing is created or lost (counts add up).
    Conservation,
    /// Classification at a threshold goes to the documented side.
    Boundary,
    /// A sum of inputs maps to the sum of outputs.
    Linearity,
    /// Applying twice is applying once.
    Idempotency,
    /// Swapping inputs gives the same (or the mirrored) result.
    Symmetry,
    /// Grouping does not change the result.
    Associativity,
    /// Whatever is accepted is correct.
    Soundness,
    /// Whatever is correct is accepted.
    Completeness,
}

impl ObligationKind {
    /// The snake_case name used in YAML.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Invariant => "invariant",
            Self::Bound => "bound",
            Self::Equivalence => "equivalence",
            Self::Monotonicity => "monotonicity",
            Self::Ordering => "ordering",
            Self::Conservation => "conservation",
            Self::Boundary => "boundary",
            Self::Linearity => "linearity",
            Self::Idempotency => "idempotency",
            Self::Symmetry => "symmetry",
            Self::Associativity => "associativity",
            Self::Soundness => "soundness",
            Self::Completeness => "completeness",
        }
    }
}

impl fmt::Display for ObligationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A claim about the equations, with the tolerance a check may allow.
#[derive(Debug, Clone, PartialEq)]
pub struct ProofObligation {
    /// What kind of claim (the YAML key is `type`).
    pub kind: ObligationKind,
    /// The claim in words.
    pub property: String,
    /// The claim in math, if given.
    pub formal: String,
    /// Allowed numeric error, if any (finite, non-negative).
    pub tolerance: Option<f64>,
}

/// A check that a profile must pass; a failure falsifies the contract.
#[derive(Debug, Clone, PartialEq)]
pub struct FalsificationTest {
    /// Unique id within the contract (`GDP-001`).
    pub id: String,
    /// 1-based line of the id.
    pub line: usize,
    /// The rule in words.
    pub rule: String,
    /// What a valid profile shows.
    pub prediction: String,
    /// The check, in the rule language (see [`rule`](crate::rule)), or
    /// prose (`proptest with random inputs`) that no machine checks.
    pub test: String,
    /// The parsed check; `None` for a prose test, which is shown as not
    /// machine-checkable and never counts as passed.
    pub parsed: Option<Rule>,
    /// 1-based line of the `test` value.
    pub test_line: usize,
    /// What to look at when the check fails.
    pub if_fails: String,
}
