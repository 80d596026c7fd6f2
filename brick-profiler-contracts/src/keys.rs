//! Keys outside the schema: the upstream contract format carries keys this
//! project does not use (`metadata.author`, `kani_harnesses`, `qa_gate`,
//! `applies_to`, ...). Each becomes a warning with its line; a key that is
//! one typo away from a known key stays an error.

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::error::{ContractError, ContractWarning};
use profiler_suggest::suggest;

/// The shape of a YAML document: mappings (keys in file order), sequences
/// and scalars, without the values.
#[derive(Debug, Default)]
pub(crate) enum KeyTree {
    /// A mapping.
    Map(Vec<(String, KeyTree)>),
    /// A sequence.
    Seq(Vec<KeyTree>),
    /// Anything else.
    #[default]
    Leaf,
}

impl<'de> Deserialize<'de> for KeyTree {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        de.deserialize_any(TreeVisitor)
    }
}

struct TreeVisitor;

macro_rules! leaf {
    ($($name:ident: $ty:ty),*) => {
        $(fn $name<E: serde::de::Error>(self, _: $ty) -> Result<KeyTree, E> {
            Ok(KeyTree::Leaf)
        })*
    };
}

impl<'de> Visitor<'de> for TreeVisitor {
    type Value = KeyTree;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a YAML value")
    }

    leaf!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_f64: f64,
          visit_str: &str, visit_i128: i128, visit_u128: u128);

    fn visit_unit<E: serde::de::Error>(self) -> Result<KeyTree, E> {
        Ok(KeyTree::Leaf)
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<KeyTree, E> {
        Ok(KeyTree::Leaf)
    }

    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<KeyTree, D::Error> {
        KeyTree::deserialize(de)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<KeyTree, A::Error> {
        let mut out = Vec::new();
        while let Some(item) = seq.next_element::<KeyTree>()? {
            out.push(item);
        }
        Ok(KeyTree::Seq(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<KeyTree, A::Error> {
        let mut out = Vec::new();
        while let Some(key) = map.next_key::<KeyName>()? {
            out.push((key.0, map.next_value::<KeyTree>()?));
        }
        Ok(KeyTree::Map(out))
    }
}

/// A mapping key as text, whatever its YAML type.
struct KeyName(String);

impl<'de> Deserialize<'de> for KeyName {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct Name;
        impl Visitor<'_> for Name {
            type Value = KeyName;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<KeyName, E> {
                Ok(KeyName(v.to_owned()))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<KeyName, E> {
                Ok(KeyName(v.to_string()))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<KeyName, E> {
                Ok(KeyName(v.to_string()))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<KeyName, E> {
                Ok(KeyName(v.to_string()))
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<KeyName, E> {
                Ok(KeyName(v.to_string()))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<KeyName, E> {
                Ok(KeyName("~".to_owned()))
            }
        }
        de.deserialize_any(Name)
    }
}

const TOP: [&str; 4] = [
    "metadata",
    "equations",
    "proof_obligations",
    "falsification_tests",
];
const METADATA: [&str; 5] = [
    "version",
    "created",
    "description",
    "references",
    "depends_on",
];
const EQUATION: [&str; 6] = [
    "formula",
    "domain",
    "codomain",
    "preconditions",
    "postconditions",
    "invariants",
];
const OBLIGATION: [&str; 4] = ["type", "property", "formal", "tolerance"];
const TEST: [&str; 7] = [
    "id",
    "rule",
    "prediction",
    "test",
    "if_fails",
    "falsification_test",
    "if_test_passes",
];

/// Problems and warnings about keys, in file order.
#[derive(Debug, Default)]
pub(crate) struct KeyReport {
    /// Typos of known keys.
    pub(crate) errors: Vec<ContractError>,
    /// Keys this project does not use.
    pub(crate) warnings: Vec<ContractWarning>,
}

/// Checks every key of `tree` (read from `text`, named `file`) against the
/// schema.
pub(crate) fn check(tree: &KeyTree, file: &str, text: &str) -> KeyReport {
    let mut report = KeyReport::default();
    let mut at = |path: &[String], key: &str, known: &[&str]| {
        if known.contains(&key) {
            return;
        }
        let mut full = path.to_vec();
        full.push(key.to_owned());
        let field = dotted(&full);
        let line = locate(text, &full).unwrap_or(0);
        match suggest(key, known.iter().copied()) {
            Some(near) => report.errors.push(ContractError::Schema {
                file: file.to_owned(),
                line,
                field,
                message: format!(
                    "unknown key `{key}`, expected one of: {}; did you mean `{near}`?",
                    known.join(", ")
                ),
            }),
            None => report.warnings.push(ContractWarning {
                file: file.to_owned(),
                line,
                field,
                message: format!("unknown key `{key}`: not used by this project, ignored"),
            }),
        }
    };
    let KeyTree::Map(top) = tree else {
        return report;
    };
    for (key, value) in top {
        at(&[], key, &TOP);
        let base = vec![key.clone()];
        match (key.as_str(), value) {
            ("metadata", KeyTree::Map(m)) => {
                for (k, _) in m {
                    at(&base, k, &METADATA);
                }
            }
            ("equations", KeyTree::Map(eqs)) => {
                for (name, eq) in eqs {
                    if let KeyTree::Map(m) = eq {
                        let path = vec![key.clone(), name.clone()];
                        for (k, _) in m {
                            at(&path, k, &EQUATION);
                        }
                    }
                }
            }
            ("proof_obligations" | "falsification_tests", KeyTree::Seq(items)) => {
                let known: &[&str] = if key == "proof_obligations" {
                    &OBLIGATION
                } else {
                    &TEST
                };
                for (i, item) in items.iter().enumerate() {
                    if let KeyTree::Map(m) = item {
                        let path = vec![format!("{key}[{i}]")];
                        for (k, _) in m {
                            at(&path, k, known);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    report
}

fn dotted(path: &[String]) -> String {
    path.join(".")
}

/// The 1-based line of the key at `path` (`["falsification_tests[2]",
/// "applies_to"]`) in block-style YAML: each segment is searched for inside
/// the lines its parent spans.
pub(crate) fn locate(text: &str, path: &[String]) -> Option<usize> {
    let lines: Vec<&str> = text.lines().collect();
    let (mut from, mut to) = (0, lines.len());
    let mut found = None;
    for segment in path {
        let (key, index) = match segment.split_once('[') {
            Some((k, i)) => (k, i.trim_end_matches(']').parse::<usize>().ok()),
            None => (segment.as_str(), None),
        };
        // The shallowest match: a key of the same name deeper down is
        // another key.
        let at = (from..to)
            .filter(|&i| is_key(lines[i], key))
            .min_by_key(|&i| key_indent(lines[i]))?;
        let end = span_end(&lines, at, key_indent(lines[at]), to);
        found = Some(at + 1);
        (from, to) = (at + 1, end);
        if let Some(n) = index {
            let items: Vec<usize> = (from..to)
                .filter(|&i| lines[i].trim_start().starts_with("- "))
                .collect();
            let dash = items.iter().map(|&i| indent_of(lines[i])).min()?;
            let starts: Vec<usize> = items
                .into_iter()
                .filter(|&i| indent_of(lines[i]) == dash)
                .collect();
            let start = *starts.get(n)?;
            let end = starts.get(n + 1).copied().unwrap_or(to);
            found = Some(start + 1);
            // The item's first key sits on the dash line.
            (from, to) = (start, end);
        }
    }
    found
}

/// Whether `line` holds the key `key` (possibly after a list dash).
fn is_key(line: &str, key: &str) -> bool {
    let t = line.trim_start();
    let t = t.strip_prefix("- ").unwrap_or(t).trim_start();
    let t = t.trim_start_matches(['"', '\'']);
    t.strip_prefix(key)
        .is_some_and(|rest| rest.trim_start_matches(['"', '\'']).starts_with(':'))
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// Where the block of the key at line `at` (its key at column `indent`)
/// ends: the first later line, below `to`, that is shallower, or as deep
/// and not a list item (list items may sit at their key's column).
fn span_end(lines: &[&str], at: usize, indent: usize, to: usize) -> usize {
    (at + 1..to)
        .find(|&i| {
            let t = lines[i].trim_start();
            let d = indent_of(lines[i]);
            !t.is_empty()
                && !t.starts_with('#')
                && (d < indent || (d == indent && !t.starts_with("- ")))
        })
        .unwrap_or(to)
}

/// The column of the key on `line`, after a list dash.
fn key_indent(line: &str) -> usize {
    let t = line.trim_start();
    match t.strip_prefix("- ") {
        Some(rest) => line.len() - rest.trim_start().len(),
        None => indent_of(line),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_found_inside_their_parents() {
        let text = "metadata:\n  version: x\n  author: me\nfalsification_tests:\n  - id: A\n    test: t\n  - id: B\n    applies_to: all\n";
        let p = |s: &[&str]| s.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
        assert_eq!(locate(text, &p(&["metadata", "author"])), Some(3));
        assert_eq!(
            locate(text, &p(&["falsification_tests[1]", "applies_to"])),
            Some(8)
        );
        assert_eq!(locate(text, &p(&["falsification_tests[0]", "id"])), Some(5));
        assert_eq!(locate(text, &p(&["nothing"])), None);
    }
}
