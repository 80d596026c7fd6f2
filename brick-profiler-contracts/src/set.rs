//! [`ContractSet`]: contracts that are checked together, so names are unique
//! and every `depends_on` resolves (to the set or to the shipped contracts)
//! without a cycle. Also the shipped contracts, embedded in this crate.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use crate::error::ContractError;
use crate::model::Contract;
use crate::parse::{load_contract, parse_contract};
use profiler_suggest::{did_you_mean, suggest};

/// The contracts shipped with the profiler, as `(name, YAML text)`.
///
/// The files live at the root of this package (the workspace's
/// `contracts/` folder) and are embedded at compile time.
pub const SHIPPED_SOURCES: [(&str, &str); 6] = [
    (
        "brick-profiler-v1",
        include_str!("../brick-profiler-v1.yaml"),
    ),
    (
        "gpu-decode-profiling-v1",
        include_str!("../gpu-decode-profiling-v1.yaml"),
    ),
    (
        "inference-scorecard-v1",
        include_str!("../inference-scorecard-v1.yaml"),
    ),
    (
        "parity-profiling-v1",
        include_str!("../parity-profiling-v1.yaml"),
    ),
    (
        "roofline-model-v1",
        include_str!("../roofline-model-v1.yaml"),
    ),
    (
        "training-step-scorecard-v1",
        include_str!("../training-step-scorecard-v1.yaml"),
    ),
];

/// A validated collection of contracts, in name order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ContractSet {
    contracts: Vec<Contract>,
}

impl ContractSet {
    /// The shipped contracts (parsed once; they are validated by this
    /// crate's tests, so parsing cannot fail in a released build).
    ///
    /// # Panics
    /// Only if a shipped file is invalid, which the crate's tests rule out.
    #[must_use]
    pub fn shipped() -> &'static ContractSet {
        static SHIPPED: OnceLock<ContractSet> = OnceLock::new();
        SHIPPED.get_or_init(|| {
            let parsed = SHIPPED_SOURCES
                .iter()
                .map(|(name, text)| parse_contract(name, &format!("contracts/{name}.yaml"), text))
                .collect::<Result<Vec<_>, _>>();
            match parsed.and_then(|c| Self::resolve(c, None)) {
                Ok(set) => set,
                Err(e) => panic!("a shipped contract is invalid:\n{e}"),
            }
        })
    }

    /// Reads every `*.yaml` / `*.yml` file of `dir` (not recursively) and
    /// checks them together; `depends_on` may also name shipped contracts.
    /// A contract named like a shipped one shadows it (a folder of upstream's
    /// contracts means upstream's): [`shadowing`](Self::shadowing) lists them.
    ///
    /// # Errors
    /// [`ContractError`] (several, in file order) naming file, line, field.
    pub fn load_dir(dir: impl AsRef<Path>) -> Result<ContractSet, ContractError> {
        let (mut contracts, mut errors) = (Vec::new(), Vec::new());
        for path in yaml_files(dir.as_ref())? {
            match load_contract(&path) {
                Ok(c) => contracts.push(c),
                Err(e) => errors.extend(e.into_errors()),
            }
        }
        if let Some(e) = ContractError::combine(errors) {
            return Err(e);
        }
        Self::from_contracts(contracts)
    }

    /// Reads every `*.yaml` / `*.yml` file of `dir` like
    /// [`load_dir`](Self::load_dir), but keeps the good files when others are
    /// bad: the set holds every contract that reads and resolves, the errors
    /// name each bad file (a file whose dependency is bad is bad too).
    ///
    /// # Errors
    /// [`ContractError::Io`] only when the folder cannot be listed.
    pub fn scan_dir(dir: impl AsRef<Path>) -> Result<DirScan, ContractError> {
        let mut contracts = Vec::new();
        let mut errors = Vec::new();
        for path in yaml_files(dir.as_ref())? {
            match load_contract(&path) {
                Ok(c) => contracts.push(c),
                Err(e) => errors.push(e),
            }
        }
        // Each round drops the files the set's checks name; a file depending
        // on a dropped one fails in the next round.
        for _ in 0..=contracts.len() {
            match Self::from_contracts(contracts.clone()) {
                Ok(set) => {
                    errors.sort_by(|a, b| a.file().cmp(b.file()));
                    return Ok(DirScan { set, errors });
                }
                Err(e) => {
                    let bad: Vec<ContractError> = e.into_errors();
                    contracts.retain(|c| !bad.iter().any(|b| b.file() == c.source));
                    for file in bad
                        .iter()
                        .map(ContractError::file)
                        .collect::<std::collections::BTreeSet<_>>()
                    {
                        let mine: Vec<ContractError> = bad
                            .iter()
                            .filter(|b| b.file() == file)
                            .map(clone_error)
                            .collect();
                        errors.extend(ContractError::combine(mine));
                    }
                }
            }
        }
        errors.sort_by(|a, b| a.file().cmp(b.file()));
        Ok(DirScan {
            set: ContractSet::default(),
            errors,
        })
    }

    /// Checks `contracts` together (names unique, dependencies known, no
    /// cycle); one named like a shipped contract shadows it, and a
    /// `depends_on` naming it resolves to it.
    ///
    /// # Errors
    /// [`ContractError::Invalid`] for each problem.
    pub fn from_contracts(contracts: Vec<Contract>) -> Result<ContractSet, ContractError> {
        Self::resolve(contracts, Some(Self::shipped()))
    }

    fn resolve(
        mut contracts: Vec<Contract>,
        shipped: Option<&ContractSet>,
    ) -> Result<ContractSet, ContractError> {
        contracts.sort_by(|a, b| a.name.cmp(&b.name));
        let mut errors = Vec::new();
        for pair in contracts.windows(2) {
            if pair[0].name == pair[1].name {
                errors.push(invalid(
                    &pair[1],
                    1,
                    "(file name)",
                    format!(
                        "contract `{}` is defined twice (also in {})",
                        pair[1].name, pair[0].source
                    ),
                ));
            }
        }
        let known = |name: &str| {
            contracts.iter().any(|c| c.name == name)
                || shipped.is_some_and(|s| s.get(name).is_some())
        };
        for c in &contracts {
            for (i, dep) in c.metadata.depends_on.iter().enumerate() {
                if !known(dep) {
                    let mut all: Vec<&str> = contracts.iter().map(|c| c.name.as_str()).collect();
                    all.extend(shipped.iter().flat_map(|s| s.names()));
                    let hint = did_you_mean(suggest(dep, all));
                    let line = c.metadata.depends_on_lines.get(i).copied().unwrap_or(1);
                    let field = format!("metadata.depends_on[{i}]");
                    errors.push(invalid(
                        c,
                        line,
                        &field,
                        format!("unknown contract `{dep}`{hint}"),
                    ));
                }
            }
        }
        errors.extend(cycles(&contracts));
        match ContractError::combine(errors) {
            Some(e) => Err(e),
            None => Ok(ContractSet { contracts }),
        }
    }

    /// The contracts of this set named like a shipped contract, which they
    /// shadow wherever the set is searched first.
    pub fn shadowing(&self) -> impl Iterator<Item = &Contract> {
        let shipped = Self::shipped();
        self.contracts
            .iter()
            .filter(move |c| !std::ptr::eq(self, shipped) && shipped.get(&c.name).is_some())
    }

    /// The contract named `name`.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&Contract> {
        self.contracts.iter().find(|c| c.name == name)
    }

    /// The contracts, in name order.
    pub fn iter(&self) -> impl Iterator<Item = &Contract> {
        self.contracts.iter()
    }

    /// The contract names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.contracts.iter().map(|c| c.name.as_str())
    }

    /// Number of contracts.
    #[must_use]
    pub fn len(&self) -> usize {
        self.contracts.len()
    }

    /// Whether the set is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.contracts.is_empty()
    }
}

impl<'a> IntoIterator for &'a ContractSet {
    type Item = &'a Contract;
    type IntoIter = std::slice::Iter<'a, Contract>;

    fn into_iter(self) -> Self::IntoIter {
        self.contracts.iter()
    }
}

/// What [`ContractSet::scan_dir`] found: the good contracts and, per bad
/// file, its errors.
#[derive(Debug)]
pub struct DirScan {
    /// Every contract that reads and resolves.
    pub set: ContractSet,
    /// One entry per bad file (several problems as
    /// [`ContractError::Several`]), in file order.
    pub errors: Vec<ContractError>,
}

/// The `*.yaml` / `*.yml` files of `dir` (not recursively), sorted.
fn yaml_files(dir: &Path) -> Result<Vec<std::path::PathBuf>, ContractError> {
    let entries = std::fs::read_dir(dir).map_err(|source| ContractError::Io {
        file: dir.display().to_string(),
        source,
    })?;
    let mut paths: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        .collect();
    paths.sort();
    Ok(paths)
}

/// A copy of a set-level error (those are `Invalid`, which hold no I/O
/// error).
fn clone_error(e: &ContractError) -> ContractError {
    match e {
        ContractError::Invalid {
            file,
            line,
            field,
            message,
        } => ContractError::Invalid {
            file: file.clone(),
            line: *line,
            field: field.clone(),
            message: message.clone(),
        },
        other => ContractError::Invalid {
            file: other.file().to_owned(),
            line: other.line().unwrap_or(0),
            field: "(file)".to_owned(),
            message: other.to_string(),
        },
    }
}

/// A `depends_on` cycle inside the set (shipped contracts have none).
fn cycles(contracts: &[Contract]) -> Vec<ContractError> {
    let deps: BTreeMap<&str, &[String]> = contracts
        .iter()
        .map(|c| (c.name.as_str(), c.metadata.depends_on.as_slice()))
        .collect();
    let mut errors = Vec::new();
    for c in contracts {
        // Depth-first from `c`: a path that returns to `c` is a cycle.
        let mut stack = vec![(c.name.as_str(), vec![c.name.as_str()])];
        let mut seen = std::collections::BTreeSet::new();
        while let Some((at, path)) = stack.pop() {
            for dep in deps.get(at).copied().unwrap_or_default() {
                if dep == &c.name {
                    let mut chain = path.clone();
                    chain.push(dep);
                    errors.push(invalid(
                        c,
                        c.metadata.depends_on_lines.first().copied().unwrap_or(1),
                        "metadata.depends_on",
                        format!("dependency cycle: {}", chain.join(" -> ")),
                    ));
                    stack.clear();
                    break;
                }
                if seen.insert(dep.as_str()) {
                    let mut next = path.clone();
                    next.push(dep);
                    stack.push((dep, next));
                }
            }
        }
    }
    errors
}

fn invalid(c: &Contract, line: usize, field: &str, message: String) -> ContractError {
    ContractError::Invalid {
        file: c.source.clone(),
        line,
        field: field.to_owned(),
        message,
    }
}
