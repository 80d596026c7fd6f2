//! Build-script entry points: turn a crate's `contracts/` folder (or the
//! shipped contracts) into `$OUT_DIR/contracts.rs`, a file of contract
//! macros to `include!`.
//!
//! In a user crate, with `brick-profiler-contracts` as a build-dependency:
//!
//! ```text
//! // build.rs
//! fn main() {
//!     profiler_contracts::codegen::generate("contracts");
//! }
//! ```
//!
//! ```ignore
//! // src/lib.rs (or any module)
//! include!(concat!(env!("OUT_DIR"), "/contracts.rs"));
//!
//! fn total_ns(samples: &[u64]) -> u64 {
//!     contract_pre_total_time!(samples);
//!     let total = samples.iter().sum();
//!     contract_post_total_time!(total, samples);
//!     total
//! }
//! ```
//!
//! A malformed contract fails the build with `file:line: field: message`;
//! editing a contract file re-runs the build script.

mod emit;

use std::path::{Path, PathBuf};

pub use emit::render;

use crate::error::ContractError;
use crate::set::{ContractSet, SHIPPED_SOURCES};

/// Name of the generated file inside `OUT_DIR`.
pub const GENERATED_FILE: &str = "contracts.rs";

/// Generates macros for every contract in `dir` (relative to the crate's
/// manifest directory) into `$OUT_DIR/contracts.rs` and asks Cargo to re-run
/// when the folder changes. On a malformed contract, prints each error as a
/// `cargo::error`, which fails the build with `file:line: field: message`.
pub fn generate(dir: impl AsRef<Path>) {
    if let Err(e) = try_generate(dir) {
        fail(&e);
    }
}

/// As [`generate`], returning the error instead of failing the build.
///
/// # Errors
/// [`ContractError`] for an unreadable or malformed contract, or a missing
/// `OUT_DIR` / `CARGO_MANIFEST_DIR` (not run from a build script).
pub fn try_generate(dir: impl AsRef<Path>) -> Result<PathBuf, ContractError> {
    let manifest = env_dir("CARGO_MANIFEST_DIR")?;
    let dir = manifest.join(dir.as_ref());
    println!("cargo::rerun-if-changed={}", dir.display());
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for entry in entries.filter_map(Result::ok) {
            println!("cargo::rerun-if-changed={}", entry.path().display());
        }
    }
    let set = ContractSet::load_dir(&dir)?;
    let contracts: Vec<_> = set.iter().collect();
    write(&render(&contracts)?)
}

/// Generates macros for the shipped contracts into `$OUT_DIR/contracts.rs`
/// (what `brick-profiler-core`'s build script runs). The YAML is embedded in this
/// crate, so editing a shipped contract rebuilds this crate and re-runs the
/// calling build script.
pub fn generate_shipped() {
    let result = shipped_source().and_then(|source| write(&source));
    if let Err(e) = result {
        fail(&e);
    }
    println!("cargo::rerun-if-changed=build.rs");
}

/// The generated source for the shipped contracts.
///
/// # Errors
/// Only if the shipped contracts were inconsistent, which tests rule out.
pub fn shipped_source() -> Result<String, ContractError> {
    let parsed = SHIPPED_SOURCES
        .iter()
        .map(|(name, text)| {
            crate::parse::parse_contract(name, &format!("contracts/{name}.yaml"), text)
        })
        .collect::<Result<Vec<_>, _>>()?;
    render(&parsed.iter().collect::<Vec<_>>())
}

fn write(source: &str) -> Result<PathBuf, ContractError> {
    let out = env_dir("OUT_DIR")?.join(GENERATED_FILE);
    std::fs::write(&out, source).map_err(|e| ContractError::Io {
        file: out.display().to_string(),
        source: e,
    })?;
    Ok(out)
}

fn env_dir(var: &str) -> Result<PathBuf, ContractError> {
    std::env::var_os(var)
        .map(PathBuf::from)
        .ok_or_else(|| ContractError::Io {
            file: format!("${var}"),
            source: std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("{var} is not set: call this from a build script"),
            ),
        })
}

fn fail(e: &ContractError) {
    for one in e.errors() {
        println!("cargo::error={one}");
    }
}
