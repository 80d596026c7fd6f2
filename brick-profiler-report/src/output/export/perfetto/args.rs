//! A slice's args as debug annotations: the args the Chrome trace writes,
//! the rates it derives included (serialised once through `serde_json`, so
//! both formats carry the same keys and values), with interned keys and
//! string values. Integers stay integers,
//! floats doubles, arrays and objects nested annotations (empty ones as
//! their JSON text, which nesting cannot tell from a missing value); a
//! `null` (a NaN the JSON side cannot print) is a key without a value.

use serde::Serialize;
use serde_json::Value;

use super::proto::DebugAnnotation;
use super::sequence::Interner;

/// The debug annotations of `args` (an object of the Chrome trace's
/// `args`); none for anything else. String values are interned.
pub(super) fn annotations(interner: &mut Interner, args: &impl Serialize) -> Vec<DebugAnnotation> {
    let Ok(Value::Object(map)) = serde_json::to_value(args) else {
        return Vec::new();
    };
    map.iter()
        .map(|(key, value)| {
            let annotation = match value {
                Value::String(s) => DebugAnnotation {
                    string_value_iid: Some(interner.value(s)),
                    ..DebugAnnotation::default()
                },
                other => annotation(other),
            };
            interner.arg(key, annotation)
        })
        .collect()
}

/// One value, without its key.
fn annotation(value: &Value) -> DebugAnnotation {
    let mut out = DebugAnnotation::default();
    match value {
        Value::Null => {}
        Value::Bool(b) => out.bool_value = Some(*b),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                out.uint_value = Some(u);
            } else if let Some(i) = n.as_i64() {
                out.int_value = Some(i);
            } else {
                out.double_value = n.as_f64();
            }
        }
        Value::String(s) => out.string_value = Some(s.clone()),
        Value::Array(items) if items.is_empty() => out.legacy_json_value = Some("[]".into()),
        Value::Object(map) if map.is_empty() => out.legacy_json_value = Some("{}".into()),
        Value::Array(items) => out.array_values = items.iter().map(annotation).collect(),
        Value::Object(map) => {
            out.dict_entries = map
                .iter()
                .map(|(key, value)| DebugAnnotation {
                    name: Some(key.clone()),
                    ..annotation(value)
                })
                .collect();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_keep_their_type_and_arrays_nest() {
        let mut interner = Interner::default();
        let args = serde_json::json!({"bytes": 7, "rate": 2.5, "shape": [[2, 3]], "dir": "forward", "none": [], "gb_per_s": 1.0});
        let out = annotations(&mut interner, &args);
        let forward = interner.value("forward");
        let mut find = |k: &str| {
            let id = interner.key(k);
            out.iter()
                .find(|a| a.name_iid == Some(id))
                .cloned()
                .expect(k)
        };
        assert_eq!(find("bytes").uint_value, Some(7));
        assert_eq!(
            find("gb_per_s").double_value,
            Some(1.0),
            "derived rates kept"
        );
        assert_eq!(find("rate").double_value, Some(2.5));
        assert_eq!(find("dir").string_value_iid, Some(forward));
        let shape = find("shape");
        assert_eq!(shape.array_values[0].array_values[1].uint_value, Some(3));
        assert_eq!(find("none").legacy_json_value.as_deref(), Some("[]"));
    }
}
