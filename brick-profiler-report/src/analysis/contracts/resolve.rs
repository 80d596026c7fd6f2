//! Resolving a metric's name to its value: the verifier's overrides, then
//! the built-in profile metrics, then the registered computations (each run
//! at most once per profile); unknown names get a suggestion.

use std::collections::BTreeMap;
use std::sync::Arc;

use profiler_core::Profile;
use profiler_suggest::{did_you_mean, suggest};

use super::computation::{Computation, Metrics};
use super::metrics::{self, PROFILE_METRICS, Problem};
use super::value::Value;

/// The names a rule may read for one profile.
pub(crate) struct Resolver<'p> {
    profile: &'p Profile,
    overrides: &'p BTreeMap<String, Value>,
    computations: &'p [Arc<dyn Computation>],
    /// Each computation's result, computed on first use.
    cache: BTreeMap<String, Result<Metrics, String>>,
}

impl<'p> Resolver<'p> {
    pub(crate) fn new(
        profile: &'p Profile,
        overrides: &'p BTreeMap<String, Value>,
        computations: &'p [Arc<dyn Computation>],
    ) -> Self {
        Self {
            profile,
            overrides,
            computations,
            cache: BTreeMap::new(),
        }
    }

    /// The value of the dotted name, or an error naming what is unknown.
    pub(crate) fn resolve(&mut self, dotted: &[&str]) -> Result<Value, Problem> {
        let name = dotted.join(".");
        if let Some(v) = self.overrides.get(&name) {
            return Ok(v.clone());
        }
        if let Some(v) = metrics::profile_metric(self.profile, &name) {
            return v;
        }
        if let Some(v) = self.computed(dotted) {
            return v;
        }
        Err(self.unknown_metric(&name))
    }

    fn computed(&mut self, dotted: &[&str]) -> Option<Result<Value, Problem>> {
        let (ns, rest) = dotted.split_first()?;
        let computation = self
            .computations
            .iter()
            .rev()
            .find(|c| c.namespace() == *ns)?;
        let profile = self.profile;
        let metrics = self
            .cache
            .entry((*ns).to_owned())
            .or_insert_with(|| computation.compute(profile));
        let key = rest.join(".");
        Some(match metrics {
            Err(why) => Err(Problem::Unmeasurable(format!(
                "`{ns}` cannot be computed: {why}"
            ))),
            Ok(m) => m.get(&key).cloned().ok_or_else(|| {
                let hint = did_you_mean(suggest(&key, m.names()).map(|s| format!("{ns}.{s}")));
                Problem::Unknown(format!("`{ns}` has no metric `{key}`{hint}"))
            }),
        })
    }

    pub(crate) fn unknown_metric(&self, name: &str) -> Problem {
        let mut known: Vec<String> = PROFILE_METRICS
            .iter()
            .map(|(n, _)| (*n).to_owned())
            .collect();
        known.extend(self.overrides.keys().cloned());
        known.extend(self.computations.iter().map(|c| c.namespace().to_owned()));
        let hint = did_you_mean(suggest(name, known.iter().map(String::as_str)));
        let namespace = name.split('.').next().unwrap_or(name);
        let plug = if name.contains('.')
            && !self.computations.iter().any(|c| c.namespace() == namespace)
        {
            format!(" (no computation is registered for `{namespace}`)")
        } else {
            String::new()
        };
        Problem::Unknown(format!("unknown metric `{name}`{hint}{plug}"))
    }
}
