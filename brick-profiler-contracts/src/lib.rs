//! YAML contracts of the brick profiler.
//!
//! A contract states once what a valid profile or computation satisfies:
//! named equations with Rust pre- and postconditions (checked in debug
//! builds by generated macros), proof obligations, and falsification tests
//! (checked against a `Profile` by `brick-profiler-report`). This crate holds:
//!
//! - the shipped contracts ([`ContractSet::shipped`]; the YAML files sit in
//!   the workspace's `brick-profiler-contracts/` folder, which is this package);
//! - the strict parser ([`parse_contract`], [`load_contract`],
//!   [`ContractSet::load_dir`]): unknown keys, wrong types, missing fields,
//!   files over [`MAX_CONTRACT_BYTES`] and alias bombs are refused with a
//!   [`ContractError`] naming the file, line and field;
//! - the [`rule`] language of falsification tests;
//! - the build-script generator of contract macros (`codegen`, behind the
//!   `codegen` feature: the runtime's build script and contract users'
//!   build scripts call it; readers of contracts never do).
//!
//! # File format
//!
//! ```yaml
//! metadata:
//!   version: "1.0.0"
//!   created: "2025-06-01"
//!   description: What the contract is about.
//!   references: ["Where the formulas come from"]
//!   depends_on: [brick-profiler-v1]          # other contracts, by name
//! equations:
//!   wall_coverage:                           # snake_case: contract_pre_wall_coverage!
//!     formula: "sum(brick_ns) / wall_ns"
//!     domain: "input: &Profile"
//!     codomain: "result: &f64, in [0, 1]"
//!     preconditions: ["input.steps.total_ns > 0"]     # Rust, over `input`
//!     postconditions: ["(0.0..=1.0).contains(result)"] # over `result`, `input`
//!     invariants: ["coverage never exceeds 1"]
//! proof_obligations:
//!   - type: bound        # invariant, bound, equivalence, monotonicity,
//!                        # ordering, conservation, boundary
//!     property: Coverage is a fraction.
//!     formal: "0 <= wall_coverage <= 1"
//!     tolerance: 0.0     # optional
//! falsification_tests:
//!   - id: GDP-001
//!     rule: Brick time covers at least 85% of wall time.
//!     prediction: wall_coverage >= 0.85 for a valid decode profile.
//!     test: "wall_coverage >= 0.85"      # the rule language, see `rule`
//!     if_fails: Un-annotated work sits between bricks; annotate it.
//! ```
//!
//! `metadata` (with `version`, `created`, `description`) and `equations`
//! (each with a `formula`) are required; everything else may be omitted.
//! The contract's name is its file stem.
//!
//! ```
//! use profiler_contracts::ContractSet;
//! let decode = ContractSet::shipped().get("gpu-decode-profiling-v1").unwrap();
//! assert!(decode.equation("wall_coverage").is_some());
//! assert!(decode.test("GDP-001").is_some());
//! ```

mod depth;
mod error;
mod keys;
mod model;
mod parse;
mod schema;
mod set;
mod valid;

#[cfg(feature = "codegen")]
pub mod codegen;
pub mod rule;

pub use error::{ContractError, ContractWarning};
pub use model::{
    Condition, Contract, Equation, FalsificationTest, Metadata, ObligationKind, ProofObligation,
};
pub use parse::{MAX_CONTRACT_BYTES, load_contract, parse_contract};
/// The workspace's one "did you mean" helper, re-exported for callers
/// of this crate.
pub use profiler_suggest::suggest;
pub use set::{ContractSet, DirScan, SHIPPED_SOURCES};
