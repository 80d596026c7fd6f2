//! `Input Dims` (`record_shapes=True`) of a trace event, written as one
//! line of text while it is parsed, with no JSON tree built per event.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// `Input Dims` (`record_shapes=True`) as one line of text:
/// `[4, 64, 64] x [192, 64]`, leaving out the empty dims of scalars and
/// `None` inputs so that a pattern need not count them.
#[derive(Debug, Default)]
pub(crate) struct Dims(pub(crate) Option<String>);

impl<'de> Deserialize<'de> for Dims {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Inputs;
        impl<'de> Visitor<'de> for Inputs {
            type Value = Dims;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of input shapes")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Dims, A::Error> {
                let mut text = String::new();
                loop {
                    let mark = text.len();
                    if mark > 0 {
                        text.push_str(" x ");
                    }
                    match seq.next_element_seed(Render(&mut text))? {
                        None => {
                            text.truncate(mark);
                            return Ok(Dims(Some(text)));
                        }
                        // Scalars and `None` inputs have no dims to show.
                        Some(false) => text.truncate(mark),
                        Some(true) => {}
                    }
                }
            }
            // Anything but a list reads as absent.
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Dims, E> {
                Ok(Dims(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Dims, E> {
                Ok(Dims(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Dims, E> {
                Ok(Dims(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Dims, E> {
                Ok(Dims(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Dims, E> {
                Ok(Dims(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Dims, E> {
                Ok(Dims(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Dims, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Dims(None))
            }
        }
        d.deserialize_any(Inputs)
    }
}

/// Writes one value of `Input Dims` as it reads: `[4, 64]`, a list of
/// tensors (`aten::stack`) as `[[4, 8], [4, 8]]`, anything else as its
/// JSON. Yields whether it was a non-empty list.
struct Render<'s>(&'s mut String);

impl<'de> DeserializeSeed<'de> for Render<'_> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Render<'_> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a shape")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        self.0.push('[');
        let mut items = 0usize;
        loop {
            let mark = self.0.len();
            if items > 0 {
                self.0.push_str(", ");
            }
            if seq.next_element_seed(Render(&mut *self.0))?.is_none() {
                self.0.truncate(mark);
                break;
            }
            items += 1;
        }
        self.0.push(']');
        Ok(items > 0)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<bool, E> {
        self.json(v)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<bool, E> {
        self.json(v)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<bool, E> {
        self.json(v)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<bool, E> {
        self.json(v)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<bool, E> {
        self.json(v)
    }
    fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
        self.json(())
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<bool, A::Error> {
        let value = serde_json::Value::deserialize(de::value::MapAccessDeserializer::new(map))?;
        self.json(value)
    }
}

impl Render<'_> {
    /// A scalar (or an object) written as JSON, as serde_json prints it.
    fn json<T: Into<serde_json::Value>, E>(self, v: T) -> Result<bool, E> {
        use std::fmt::Write as _;
        let _ = write!(self.0, "{}", v.into());
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    fn dims(json: &str) -> Option<String> {
        serde_json::from_str::<super::Dims>(json).unwrap().0
    }

    #[test]
    fn input_dims_read_as_one_line_without_empty_inputs() {
        assert_eq!(
            dims("[[4, 64], [], [[4, 8], [4, 8]], null, 3, [192, 64]]").as_deref(),
            Some("[4, 64] x [[4, 8], [4, 8]] x [192, 64]")
        );
        assert_eq!(
            dims(r#"[[["a"], 1.5, true, {"k": 1}, null, []]]"#).as_deref(),
            Some(r#"[["a"], 1.5, true, {"k":1}, null, []]"#)
        );
        assert_eq!(dims("[[], []]").as_deref(), Some(""));
        assert_eq!(dims("7"), None);
    }
}
