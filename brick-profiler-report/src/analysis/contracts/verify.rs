//! [`Verifier`]: which contracts to check, which computations and extra
//! metrics rules may read, and the check itself.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use profiler_contracts::{Contract, ContractError, ContractSet};
use profiler_core::Profile;

use super::computation::{Computation, ScorecardMetrics};
use super::eval::{Context, Outcome};
use super::report::{ContractReport, RuleResult, Verdict};
use super::resolve::Resolver;
use super::value::Value;

/// Checks profiles against contracts.
///
/// Knows the shipped contracts, plus any loaded with [`Verifier::load_dir`]
/// or [`Verifier::contract`]; rules read the built-in profile metrics, the
/// values given with [`Verifier::metric`], and the metrics of registered
/// [`Computation`]s (the scorecard is registered by default).
///
/// ```
/// use profiler_report::contracts::Verifier;
/// let profile = profiler::Profile::empty();
/// let report = Verifier::new()
///     .metric("layers", 2.0)
///     .verify("brick-profiler-v1", &profile)
///     .unwrap();
/// assert!(report.passed(), "{report}");
/// ```
#[derive(Clone)]
pub struct Verifier {
    user: Vec<Contract>,
    computations: Vec<Arc<dyn Computation>>,
    overrides: BTreeMap<String, Value>,
}

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Verifier")
            .field(
                "user",
                &self.user.iter().map(|c| &c.name).collect::<Vec<_>>(),
            )
            .field(
                "computations",
                &self
                    .computations
                    .iter()
                    .map(|c| c.namespace())
                    .collect::<Vec<_>>(),
            )
            .field("overrides", &self.overrides)
            .finish()
    }
}

impl Default for Verifier {
    fn default() -> Self {
        Self::new()
    }
}

/// A contract name that neither the shipped nor the loaded contracts have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown contract `{name}`{}", profiler_suggest::did_you_mean(suggestion.as_ref()))]
pub struct UnknownContract {
    /// The name asked for.
    pub name: String,
    /// The closest known name.
    pub suggestion: Option<String>,
}

impl Verifier {
    /// The shipped contracts and the scorecard computation.
    #[must_use]
    pub fn new() -> Self {
        Self {
            user: Vec::new(),
            computations: vec![Arc::new(ScorecardMetrics::new())],
            overrides: BTreeMap::new(),
        }
    }

    /// Adds the contracts of `dir` (every `*.yaml`), checked together with
    /// the shipped ones.
    ///
    /// # Errors
    /// [`ContractError`] naming the file, line and field of each problem.
    pub fn load_dir(mut self, dir: impl AsRef<Path>) -> Result<Self, ContractError> {
        let set = ContractSet::load_dir(dir)?;
        self.user.extend(set.iter().cloned());
        Ok(self)
    }

    /// Adds one contract (e.g. from [`profiler_contracts::load_contract`]).
    #[must_use]
    pub fn contract(mut self, contract: Contract) -> Self {
        self.user.retain(|c| c.name != contract.name);
        self.user.push(contract);
        self
    }

    /// Registers a computation; it replaces one with the same namespace.
    #[must_use]
    pub fn computation(mut self, computation: impl Computation + 'static) -> Self {
        let computation: Arc<dyn Computation> = Arc::new(computation);
        self.computations
            .retain(|c| c.namespace() != computation.namespace());
        self.computations.push(computation);
        self
    }

    /// Gives a metric's value (e.g. `layers` when the run has no layer
    /// scopes); it takes precedence over a built-in of the same name.
    #[must_use]
    pub fn metric(mut self, name: impl Into<String>, value: impl Into<Value>) -> Self {
        self.overrides.insert(name.into(), value.into());
        self
    }

    /// The contract named `name`, loaded or shipped.
    #[must_use]
    pub fn find(&self, name: &str) -> Option<&Contract> {
        self.user
            .iter()
            .find(|c| c.name == name)
            .or_else(|| ContractSet::shipped().get(name))
    }

    /// Checks `profile` against every falsification test of contract `name`.
    ///
    /// # Errors
    /// [`UnknownContract`] (with a suggestion) when no contract has that name.
    pub fn verify(&self, name: &str, profile: &Profile) -> Result<ContractReport, UnknownContract> {
        let contract = self.find(name).ok_or_else(|| {
            let known = self
                .user
                .iter()
                .map(|c| c.name.as_str())
                .chain(ContractSet::shipped().names());
            UnknownContract {
                name: name.to_owned(),
                suggestion: profiler_suggest::suggest(name, known).map(str::to_owned),
            }
        })?;
        Ok(self.verify_contract(contract, profile))
    }

    /// Checks `profile` against every falsification test of `contract`.
    #[must_use]
    pub fn verify_contract(&self, contract: &Contract, profile: &Profile) -> ContractReport {
        let names = Resolver::new(profile, &self.overrides, &self.computations);
        let mut cx = Context::new(profile, names);
        let results = contract
            .falsification_tests
            .iter()
            .map(|t| {
                let outcome = match &t.parsed {
                    Some(rule) => cx.run(rule, &t.test),
                    None => Outcome {
                        verdict: Verdict::NotMachineCheckable,
                        measurement: None,
                        detail: "not machine-checkable: the test is prose, shown here and \
                                 never counted as passed"
                            .to_owned(),
                    },
                };
                RuleResult {
                    id: t.id.clone(),
                    rule: t.rule.clone(),
                    test: t.test.clone(),
                    verdict: outcome.verdict,
                    measurement: outcome.measurement,
                    detail: outcome.detail,
                    if_fails: t.if_fails.clone(),
                }
            })
            .collect();
        ContractReport {
            contract: contract.name.clone(),
            version: contract.metadata.version.clone(),
            results,
        }
    }
}

/// Checks `profile` against the shipped or loaded contract `name` with the
/// default [`Verifier`].
///
/// ```
/// let report = profiler_report::contracts::verify_contract("brick-profiler-v1", &profiler::Profile::empty())
///     .unwrap();
/// assert!(report.passed(), "{report}");
/// ```
///
/// # Errors
/// [`UnknownContract`] when no contract has that name.
pub fn verify_contract(name: &str, profile: &Profile) -> Result<ContractReport, UnknownContract> {
    Verifier::new().verify(name, profile)
}
