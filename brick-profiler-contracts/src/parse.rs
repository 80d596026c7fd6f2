//! Reading a contract: the size limit, the YAML options (strict types, a
//! small alias budget), and turning the YAML crate's errors into
//! [`ContractError`]s that name the file, line and field.

use std::path::Path;

use serde_saphyr::{DuplicateKeyPolicy, Options};

use crate::error::ContractError;
use crate::keys::{self, KeyTree};
use crate::model::Contract;
use crate::schema::{RawContract, expected};
use crate::valid;

/// Largest contract file accepted, in bytes (1 MiB). Larger files are refused
/// before they are parsed.
pub const MAX_CONTRACT_BYTES: u64 = 1 << 20;

/// Most aliases (`*name`) a contract may use.
const MAX_ALIASES: usize = 64;
/// Most YAML events an alias may replay in total: stops "billion laughs"
/// after a few thousand events instead of a billion.
const MAX_REPLAYED_EVENTS: usize = 10_000;

/// Reads and validates one contract file; its name is the file stem.
///
/// # Errors
/// [`ContractError`] naming the file, line and field of the first problems.
pub fn load_contract(path: impl AsRef<Path>) -> Result<Contract, ContractError> {
    let path = path.as_ref();
    let file = path.display().to_string();
    let io = |source| ContractError::Io {
        file: file.clone(),
        source,
    };
    let size = std::fs::metadata(path).map_err(io)?.len();
    if size > MAX_CONTRACT_BYTES {
        return Err(ContractError::TooLarge {
            file,
            size,
            limit: MAX_CONTRACT_BYTES,
        });
    }
    let text = std::fs::read_to_string(path).map_err(io)?;
    let name = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    parse_contract(name, &file, &text)
}

/// Parses and validates a contract from text. `name` is the contract's name
/// (a file stem such as `gpu-decode-profiling-v1`); `source` is how errors
/// name the file.
///
/// # Errors
/// [`ContractError`] naming `source`, the line and the field.
pub fn parse_contract(name: &str, source: &str, text: &str) -> Result<Contract, ContractError> {
    let size = text.len() as u64;
    if size > MAX_CONTRACT_BYTES {
        return Err(ContractError::TooLarge {
            file: source.to_owned(),
            size,
            limit: MAX_CONTRACT_BYTES,
        });
    }
    // The typed reading first, so its errors stay the precise ones; the key
    // pass adds typos of known keys and warnings about unused ones.
    let typed = deserialize::<RawContract>(source, text);
    let keys = match deserialize::<KeyTree>(source, text) {
        Ok(tree) => keys::check(&tree, source, text),
        Err(e) if typed.is_ok() => return Err(e),
        Err(_) => keys::KeyReport::default(),
    };
    let mut errors = keys.errors;
    match typed.and_then(|raw| valid::contract(name, source, text, raw)) {
        Ok(mut contract) if errors.is_empty() => {
            let own = std::mem::take(&mut contract.warnings);
            contract.warnings = keys.warnings;
            contract.warnings.extend(own);
            contract.warnings.sort_by_key(|w| w.line);
            Ok(contract)
        }
        Ok(_) => Err(one_or_several(errors)),
        Err(e) => {
            for e in e.into_errors() {
                // A typo reported by the key pass also shows as a missing key.
                if !errors.iter().any(|k| k.to_string() == e.to_string()) {
                    errors.push(e);
                }
            }
            errors.sort_by_key(|e| e.line().unwrap_or(0));
            Err(one_or_several(errors))
        }
    }
}

/// One error, or several in line order (`errors` is not empty).
fn one_or_several(mut errors: Vec<ContractError>) -> ContractError {
    if errors.len() == 1 {
        errors.remove(0)
    } else {
        ContractError::Several(errors)
    }
}

fn options() -> Options {
    serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_aliases: MAX_ALIASES,
            max_anchors: MAX_ALIASES,
            max_events: 200_000,
            max_depth: 32,
        },
        alias_limits: serde_saphyr::alias_limits! {
            max_total_replayed_events: MAX_REPLAYED_EVENTS,
        },
        duplicate_keys: DuplicateKeyPolicy::Error,
        // `1.0` or `yes` where a string is expected is a type error, not a
        // silent conversion.
        no_schema: true,
        strict_booleans: true,
        with_snippet: false,
    }
}

fn deserialize<T: serde::de::DeserializeOwned>(
    source: &str,
    text: &str,
) -> Result<T, ContractError> {
    let mut path = String::new();
    let result = serde_saphyr::with_deserializer_from_str_with_options(text, options(), |de| {
        serde_path_to_error::deserialize(de).map_err(|e| {
            path = e.path().to_string();
            e.into_inner()
        })
    });
    result.map_err(|e| {
        let mut line = e.location().map_or(0, |l| l.line() as usize);
        let (field, message) = describe(&path, &e.to_string());
        if message.starts_with("missing required key") {
            // The YAML crate points at the end of the mapping; the key that
            // opens it is where the reader should look.
            line = parent_line(text, &field, line);
        }
        ContractError::Schema {
            file: source.to_owned(),
            line,
            field,
            message,
        }
    })
}

/// The line of the key that opens the mapping at `field` (searching up from
/// `line`), or `line` when it is a list element or cannot be found.
fn parent_line(text: &str, field: &str, line: usize) -> usize {
    let Some(key) = field
        .rsplit('.')
        .next()
        .filter(|k| !k.ends_with(']') && *k != "(document)")
    else {
        return line;
    };
    let lines: Vec<&str> = text.lines().take(line).collect();
    lines
        .iter()
        .rposition(|l| {
            let l = l.trim_start().trim_start_matches(['"', '\'']);
            l.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start_matches(['"', '\'']).starts_with(':'))
        })
        .map_or(line, |i| i + 1)
}

/// The field path as users write it (without the location wrappers' own
/// `value` segments), and a message in the schema's terms.
fn describe(path: &str, raw: &str) -> (String, String) {
    let segments: Vec<&str> = path
        .trim_start_matches('.')
        .split('.')
        .filter(|s| *s != "?")
        .collect();
    let kept: Vec<&str> = segments
        .iter()
        .enumerate()
        .filter(|(i, s)| {
            let wrapped = *i > 0 && {
                let prev = segments[i - 1];
                (segments[0] == "equations" && *i == 2)
                    || prev.ends_with(']')
                    || matches!(prev, "version" | "tolerance" | "id" | "test")
            };
            !(**s == "value" && wrapped)
        })
        .map(|(_, s)| *s)
        .collect();
    let field = kept.join(".");
    // The YAML crate appends the location; the error carries it separately.
    let message = raw.find(" at line ").map_or(raw, |i| &raw[..i]).trim();
    let message = if message.starts_with("budget breached") || message.contains("replay") {
        format!(
            "alias expansion over the limit ({MAX_ALIASES} aliases, {MAX_REPLAYED_EVENTS} \
             replayed nodes): {message}"
        )
    } else if let Some(rest) = message.strip_prefix("unknown field ") {
        format!(
            "unknown key {}",
            rest.replace("expected one of", "expected one of:")
        )
    } else if let Some(rest) = message.strip_prefix("missing field ") {
        format!("missing required key {rest}")
    } else if let Some(rest) = message.strip_prefix("unknown variant ") {
        format!("unknown value {rest}")
    } else if is_type_error(message) {
        let what = expected_at(&field).unwrap_or("a different type");
        if message.contains("must be quoted") {
            format!("expected {what}; quote numbers and booleans meant as text")
        } else {
            format!("expected {what}")
        }
    } else {
        message.to_owned()
    };
    let field = if field.is_empty() {
        "(document)".to_owned()
    } else {
        field
    };
    (field, message)
}

fn is_type_error(message: &str) -> bool {
    message.starts_with("expected ")
        || message.starts_with("invalid type")
        || message.starts_with("invalid floating point")
        || message.starts_with("invalid value")
        || message.contains("must be quoted")
}

/// What the field at `path` holds: the last key, with list indices removed;
/// an equation or list element by its position.
fn expected_at(path: &str) -> Option<&'static str> {
    let segments: Vec<&str> = path.split('.').collect();
    let last = segments.last().copied().unwrap_or("");
    if segments.len() == 2 && segments[0] == "equations" {
        return Some("an equation (a mapping with `formula`, `preconditions`, ...)");
    }
    if last.ends_with(']') {
        let base = last.split('[').next().unwrap_or("");
        return Some(match base {
            "proof_obligations" => "a proof obligation (a mapping with `type`, `property`, ...)",
            "falsification_tests" => "a falsification test (a mapping with `id`, `rule`, ...)",
            _ => "a string",
        });
    }
    expected(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_speak_of_keys_and_fields() {
        let (field, msg) = describe(
            "equations.w.preconditions",
            "expected sequence start at line 6, column 20",
        );
        assert_eq!(field, "equations.w.preconditions");
        assert_eq!(msg, "expected a list of strings (Rust boolean expressions)");
        let (field, msg) = describe(
            "equations.w.preconditions[1].value",
            "The string value [3] must be quoted at line 6, column 24",
        );
        assert_eq!(field, "equations.w.preconditions[1]");
        assert!(msg.starts_with("expected a string;"), "{msg}");
        let (_, msg) = describe("metadata", "missing field `created` at line 1, column 1");
        assert_eq!(msg, "missing required key `created`");
    }
}
