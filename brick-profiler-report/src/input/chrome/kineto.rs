//! Kineto's top-level `deviceProperties` and `distributedInfo`, read into
//! [`TraceDevice`]s and a [`TraceRank`]: leniently (a field of the wrong
//! type reads as absent; the events are what the trace is for), never
//! guessing a value that is not written.

use serde_json::Value;

use crate::model::{TraceDevice, TraceRank};

/// The devices of a `deviceProperties` value: every object with a `name`
/// (anything else in the array is skipped).
pub(crate) fn devices(value: &Value) -> Vec<TraceDevice> {
    let Value::Array(items) = value else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|d| {
            let name = d.get("name")?.as_str()?.trim();
            (!name.is_empty()).then(|| TraceDevice {
                id: d.get("id").and_then(Value::as_i64),
                name: name.to_owned(),
                total_memory_bytes: d.get("totalGlobalMem").and_then(Value::as_u64),
                compute_capability: small(d, "computeMajor").zip(small(d, "computeMinor")),
                multiprocessors: small(d, "numSms"),
            })
        })
        .collect()
}

/// The rank of a `distributedInfo` value; `None` when it is not an object.
pub(crate) fn rank(value: &Value) -> Option<TraceRank> {
    let Value::Object(_) = value else {
        return None;
    };
    Some(TraceRank {
        rank: small(value, "rank"),
        world_size: small(value, "world_size"),
        backend: value
            .get("backend")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}

/// A whole number of `u32` at `key` (a number, or a string holding one).
fn small(object: &Value, key: &str) -> Option<u32> {
    match object.get(key)? {
        Value::Number(n) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_and_ranks_are_read_as_written() {
        let v: Value = serde_json::from_str(
            r#"[{"id": 0, "name": "NVIDIA A100-PG509-200", "totalGlobalMem": 42297524224,
                 "computeMajor": 8, "computeMinor": 0, "numSms": 108},
                {"id": 1, "name": " "}, 3, {"name": "MI250X", "numSms": -1}]"#,
        )
        .unwrap();
        let d = devices(&v);
        assert_eq!(d.len(), 2, "{d:?}");
        assert_eq!(d[0].name, "NVIDIA A100-PG509-200");
        assert_eq!(d[0].total_memory_bytes, Some(42_297_524_224));
        assert_eq!(
            (d[0].compute_capability, d[0].multiprocessors),
            (Some((8, 0)), Some(108))
        );
        assert_eq!((d[1].id, d[1].multiprocessors), (None, None));
        assert!(devices(&Value::Null).is_empty());
        let v: Value =
            serde_json::from_str(r#"{"backend": "nccl", "rank": 3, "world_size": "8"}"#).unwrap();
        let r = rank(&v).unwrap();
        assert_eq!(
            (r.rank, r.world_size, r.backend.as_deref()),
            (Some(3), Some(8), Some("nccl"))
        );
        assert_eq!(rank(&Value::from(1)), None);
        let r = rank(&serde_json::json!({"rank": -1})).unwrap();
        assert_eq!(r.rank, None, "a negative rank is not a rank");
    }
}
