//! The file format as serde sees it: typed structs (required keys
//! enforced) with source locations kept where validation needs them. Keys
//! outside the schema are read past here and reported by `keys`.

use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_saphyr::Spanned;

use crate::model::ObligationKind;

#[derive(Debug, Deserialize)]
pub(crate) struct RawContract {
    pub(crate) metadata: RawMetadata,
    #[serde(default)]
    pub(crate) equations: Equations,
    #[serde(default)]
    pub(crate) proof_obligations: Vec<RawObligation>,
    #[serde(default)]
    pub(crate) falsification_tests: Vec<RawTest>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct RawMetadata {
    pub(crate) version: Spanned<String>,
    pub(crate) created: String,
    pub(crate) description: String,
    #[serde(default)]
    pub(crate) references: Vec<String>,
    #[serde(default)]
    pub(crate) depends_on: Vec<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct RawEquation {
    pub(crate) formula: String,
    #[serde(default)]
    pub(crate) domain: String,
    #[serde(default)]
    pub(crate) codomain: String,
    #[serde(default)]
    pub(crate) preconditions: Vec<Spanned<String>>,
    #[serde(default)]
    pub(crate) postconditions: Vec<Spanned<String>>,
    #[serde(default)]
    pub(crate) invariants: Vec<String>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct RawObligation {
    #[serde(rename = "type")]
    pub(crate) kind: ObligationKind,
    pub(crate) property: String,
    #[serde(default)]
    pub(crate) formal: String,
    #[serde(default)]
    pub(crate) tolerance: Option<Spanned<f64>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct RawTest {
    pub(crate) id: Option<Spanned<String>>,
    pub(crate) rule: Option<String>,
    pub(crate) prediction: Option<String>,
    pub(crate) test: Option<Spanned<String>>,
    pub(crate) if_fails: Option<String>,
    /// Upstream's other form of a test: code that tries to falsify the
    /// claim, in place of `test`.
    pub(crate) falsification_test: Option<Spanned<String>>,
    /// With `falsification_test`: what it means when that code passes, in
    /// place of `if_fails`.
    pub(crate) if_test_passes: Option<String>,
}

/// `equations:` in file order. Keys are read as plain strings so error paths
/// name them; each value keeps its location.
#[derive(Debug, Default)]
pub(crate) struct Equations(pub(crate) Vec<(String, Spanned<RawEquation>)>);

impl<'de> Deserialize<'de> for Equations {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct Entries;
        impl<'de> Visitor<'de> for Entries {
            type Value = Equations;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mapping from equation names to equations")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Equations, A::Error> {
                let mut out = Vec::new();
                while let Some(name) = map.next_key::<String>()? {
                    out.push((name, map.next_value()?));
                }
                Ok(Equations(out))
            }
        }
        de.deserialize_map(Entries)
    }
}

/// What each field holds, for "expected ..." messages.
pub(crate) fn expected(field: &str) -> Option<&'static str> {
    Some(match field {
        "" => "a mapping with `metadata`, `equations`, `proof_obligations`, `falsification_tests`",
        "metadata" => "a mapping (version, created, description, references, depends_on)",
        "equations" => "a mapping from equation names to equations",
        "proof_obligations" => "a list of proof obligations",
        "falsification_tests" => "a list of falsification tests",
        "preconditions" | "postconditions" => "a list of strings (Rust boolean expressions)",
        "references" | "depends_on" | "invariants" => "a list of strings",
        "tolerance" => "a number",
        "type" => {
            "one of invariant, bound, equivalence, monotonicity, ordering, conservation, \
             boundary, linearity, idempotency, symmetry, associativity, soundness, completeness"
        }
        "version" | "created" | "description" | "formula" | "domain" | "codomain" | "property"
        | "formal" | "id" | "rule" | "prediction" | "test" | "if_fails" | "falsification_test"
        | "if_test_passes" => "a string",
        _ => return None,
    })
}
