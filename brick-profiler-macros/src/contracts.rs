//! Finding the contract and equation a `#[contract]` names: the shipped
//! contracts and the crate's own `contracts/` folder (read at expansion
//! time from `CARGO_MANIFEST_DIR`), with the nearest name on a miss.

use std::path::PathBuf;

use profiler_contracts::{Contract, ContractSet, Equation};
use syn::{Error, Ident, Result};

/// The contracts an expansion may name, and the user files to track.
pub(crate) struct Known {
    user: Option<ContractSet>,
    /// The user folder, whose files the expansion `include_str!`s so that
    /// editing them recompiles the crate.
    pub(crate) dir: Option<PathBuf>,
}

impl Known {
    /// The shipped contracts plus the crate's `contracts/` folder, if any.
    pub(crate) fn load(at: &Ident) -> Result<Self> {
        let dir = std::env::var_os("CARGO_MANIFEST_DIR")
            .map(|m| PathBuf::from(m).join("contracts"))
            .filter(|d| d.is_dir())
            // The profiler's own `brick-profiler-contracts/` package is the shipped set.
            .filter(|d| {
                !std::fs::read_to_string(d.join("Cargo.toml"))
                    .is_ok_and(|t| t.contains("name = \"brick-profiler-contracts\""))
            });
        let user = match &dir {
            Some(d) => Some(ContractSet::load_dir(d).map_err(|e| {
                Error::new_spanned(at, format!("cannot read the crate's contracts:\n{e}"))
            })?),
            None => None,
        };
        Ok(Self { user, dir })
    }

    /// The contract whose Rust name is `ident` (`gpu_decode_profiling_v1`).
    pub(crate) fn contract(&self, ident: &Ident) -> Result<&Contract> {
        let wanted = ident.to_string();
        let all: Vec<&Contract> = self.all().collect();
        if let Some(c) = all.iter().find(|c| c.rust_name() == wanted) {
            return Ok(c);
        }
        let names: Vec<String> = all.iter().map(|c| c.rust_name()).collect();
        let message = match profiler_suggest::suggest(&wanted, names.iter().map(String::as_str)) {
            Some(close) => format!("unknown contract `{wanted}`, did you mean `{close}`?"),
            None => format!(
                "unknown contract `{wanted}`, expected one of: {}",
                names.join(", ")
            ),
        };
        Err(Error::new_spanned(ident, message))
    }

    /// Whether `contract` came from the crate's folder (its file is tracked).
    pub(crate) fn is_user(&self, contract: &Contract) -> bool {
        self.user
            .as_ref()
            .is_some_and(|u| u.get(&contract.name).is_some())
    }

    fn all(&self) -> impl Iterator<Item = &Contract> {
        self.user
            .iter()
            .flat_map(|u| u.iter())
            .chain(ContractSet::shipped().iter())
    }
}

/// The equation `ident` of `contract`.
pub(crate) fn equation<'c>(contract: &'c Contract, ident: &Ident) -> Result<&'c Equation> {
    let wanted = ident.to_string();
    if let Some(eq) = contract.equation(&wanted) {
        return Ok(eq);
    }
    let names = contract.equations.iter().map(|e| e.name.as_str());
    let message = match profiler_suggest::suggest(&wanted, names.clone()) {
        Some(close) => format!(
            "contract `{}` has no equation `{wanted}`, did you mean `{close}`?",
            contract.name
        ),
        None => format!(
            "contract `{}` has no equation `{wanted}`, expected one of: {}",
            contract.name,
            names.collect::<Vec<_>>().join(", ")
        ),
    };
    Err(Error::new_spanned(ident, message))
}
