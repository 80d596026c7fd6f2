//! `u64::MAX` as "none" in saved files: written as `null`, read back from
//! `null` or the number. JavaScript tools read JSON numbers as doubles and
//! cannot hold `18446744073709551615` exactly; `null` says what it means.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Serialises `u64::MAX` as `null`, anything else as the number.
pub(crate) fn serialize<S: Serializer>(value: &u64, serializer: S) -> Result<S::Ok, S::Error> {
    (*value != u64::MAX).then_some(*value).serialize(serializer)
}

/// Reads `null` (or a missing field, with `#[serde(default = ...)]`) as
/// `u64::MAX`, and numbers as themselves.
pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    Ok(Option::<u64>::deserialize(deserializer)?.unwrap_or(u64::MAX))
}

/// `u64::MAX`, the default of a sentinel field.
pub(crate) const fn none() -> u64 {
    u64::MAX
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct S {
        #[serde(with = "super", default = "super::none")]
        v: u64,
    }

    #[test]
    fn max_round_trips_through_null() {
        assert_eq!(
            serde_json::to_string(&S { v: u64::MAX }).unwrap(),
            r#"{"v":null}"#
        );
        assert_eq!(serde_json::to_string(&S { v: 7 }).unwrap(), r#"{"v":7}"#);
        for (text, v) in [
            (r#"{"v":null}"#, u64::MAX),
            (r#"{"v":18446744073709551615}"#, u64::MAX),
            (r#"{"v":7}"#, 7),
            ("{}", u64::MAX),
        ] {
            assert_eq!(serde_json::from_str::<S>(text).unwrap(), S { v }, "{text}");
        }
    }
}
