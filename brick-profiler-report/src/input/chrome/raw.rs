//! The serde shapes of one Chrome trace event, parsed from a byte slice into
//! typed fields: lenient about the value types producers write (numbers as
//! strings, ids as numbers or strings), strict about duplicate keys.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::dims::Dims;

/// Implements the visits a lenient field type ignores: whatever is not
/// handled reads as the type's default.
macro_rules! ignore_rest {
    ($($skip:ident),*) => {
        $(ignore_rest!(@one $skip);)*
    };
    (@one bool) => { fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> { Ok(Default::default()) } };
    (@one i64) => { fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> { Ok(Default::default()) } };
    (@one u64) => { fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> { Ok(Default::default()) } };
    (@one f64) => { fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> { Ok(Default::default()) } };
    (@one str) => { fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> { Ok(Default::default()) } };
    (@one unit) => { fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> { Ok(Default::default()) } };
    (@one seq) => {
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(Default::default())
        }
    };
    (@one map) => {
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(Default::default())
        }
    };
}

/// A string field, borrowed from the document when it holds no escapes;
/// any other value reads as absent.
#[derive(Debug, Default)]
pub(crate) struct Text<'a>(pub(crate) Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Text<'de>, E> {
                Ok(Text(Some(Cow::Owned(v.to_owned()))))
            }
            ignore_rest!(bool, i64, u64, f64, unit, seq, map);
        }
        d.deserialize_any(V)
    }
}

impl Text<'_> {
    /// The text, when given.
    pub(crate) fn get(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

/// A number, or a string holding one (`"NaN"` and `"inf"` included).
#[derive(Debug, Default)]
pub(crate) struct Num(pub(crate) Option<f64>);

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Num;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Num, E> {
                Ok(Num(Some(v as f64)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Num, E> {
                Ok(Num(Some(v as f64)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Num, E> {
                Ok(Num(Some(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Num, E> {
                Ok(Num(v.trim().parse().ok()))
            }
            ignore_rest!(bool, unit, seq, map);
        }
        d.deserialize_any(V)
    }
}

/// A whole number that fits `i64`; anything else reads as absent.
#[derive(Debug, Default)]
pub(crate) struct Int(pub(crate) Option<i64>);

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Int;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an integer")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Int, E> {
                Ok(Int(Some(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Int, E> {
                Ok(Int(i64::try_from(v).ok()))
            }
            ignore_rest!(bool, f64, str, unit, seq, map);
        }
        d.deserialize_any(V)
    }
}

/// A `pid` or `tid`: a number or a string (a string holding a whole
/// number is that number: older traces write a thread id as a number in one
/// event and as a string of it in the next; one thread either way).
#[derive(Debug, Default)]
pub(crate) enum Id<'a> {
    /// Not given, or of no usable type.
    #[default]
    Absent,
    /// A whole number.
    Int(i128),
    /// Any other number.
    Float(f64),
    /// Text that is not a whole number.
    Text(Cow<'a, str>),
}

impl fmt::Display for Id<'_> {
    /// As the thread is named: numbers as written, other text quoted.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Absent => Ok(()),
            Id::Int(n) => write!(f, "{n}"),
            Id::Float(v) => write!(f, "{v}"),
            Id::Text(t) => write!(f, "{t:?}"),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Id<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Id<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an id")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Id<'de>, E> {
                Ok(Id::Int(v.into()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Id<'de>, E> {
                Ok(Id::Int(v.into()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Id<'de>, E> {
                Ok(Id::Float(v))
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Id<'de>, E> {
                Ok(match v.parse::<i64>() {
                    Ok(n) => Id::Int(n.into()),
                    Err(_) => Id::Text(Cow::Borrowed(v)),
                })
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Id<'de>, E> {
                Ok(match v.parse::<i64>() {
                    Ok(n) => Id::Int(n.into()),
                    Err(_) => Id::Text(Cow::Owned(v.to_owned())),
                })
            }
            ignore_rest!(bool, unit, seq, map);
        }
        d.deserialize_any(V)
    }
}

/// The `args` the import links events by.
#[derive(Debug, Default)]
pub(crate) struct Args {
    /// `Sequence number`.
    pub(crate) seq: Option<i64>,
    /// `External id`.
    pub(crate) external_id: Option<i64>,
    /// `correlation`: links a runtime launch to the kernel or copy it queued.
    pub(crate) correlation: Option<i64>,
    /// `Input Dims`, as text.
    pub(crate) dims: Option<String>,
}

impl<'de> Deserialize<'de> for Args {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Args;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Args, A::Error> {
                let mut args = Args::default();
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    match key.as_ref() {
                        "Sequence number" => args.seq = map.next_value::<Int>()?.0,
                        "External id" => args.external_id = map.next_value::<Int>()?.0,
                        "correlation" => args.correlation = map.next_value::<Int>()?.0,
                        "Input Dims" => args.dims = map.next_value::<Dims>()?.0,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(args)
            }
            ignore_rest!(bool, i64, u64, f64, str, unit, seq);
        }
        d.deserialize_any(V)
    }
}

/// One element of `traceEvents`, its strings borrowed from the document
/// where they can be; a key given twice is an error.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct RawEvent<'a> {
    #[serde(borrow)]
    pub(crate) ph: Text<'a>,
    #[serde(borrow)]
    pub(crate) name: Text<'a>,
    #[serde(borrow)]
    pub(crate) cat: Text<'a>,
    pub(crate) ts: Num,
    pub(crate) dur: Num,
    #[serde(borrow)]
    pub(crate) pid: Id<'a>,
    #[serde(borrow)]
    pub(crate) tid: Id<'a>,
    pub(crate) args: Args,
    /// A flow event's id (`ac2g` flows carry the correlation id).
    pub(crate) id: Int,
}

/// An element that is an object reads as an event; anything else is skipped.
#[derive(Default)]
pub(crate) struct MaybeEvent<'a>(pub(crate) Option<RawEvent<'a>>);

impl<'de> Deserialize<'de> for MaybeEvent<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MaybeEvent<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an event object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<MaybeEvent<'de>, A::Error> {
                RawEvent::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|e| MaybeEvent(Some(e)))
            }
            ignore_rest!(bool, i64, u64, f64, str, unit, seq);
        }
        d.deserialize_any(V)
    }
}

/// Receives each event with its index in `traceEvents` as it is read, so
/// the document is never held whole.
pub(crate) trait Sink {
    /// One event object.
    fn event(&mut self, index: usize, event: RawEvent<'_>);
}

/// A top-level `tokens_per_step`: a number, or a string holding one.
#[derive(Debug)]
pub(crate) enum Tokens {
    /// The value, when it reads as a number.
    Number(f64),
    /// The value as written, when it does not.
    Other(String),
}

/// What the top level holds besides events.
#[derive(Debug, Default)]
pub(crate) struct Top {
    /// Whether a `traceEvents` array (or a bare array of events) was found.
    pub(crate) has_events: bool,
    /// Whether the document is an object or an array (else neither).
    pub(crate) container: bool,
    /// `tokens_per_step`, when given.
    pub(crate) tokens_per_step: Option<Tokens>,
    /// Kineto's `deviceProperties`.
    pub(crate) devices: Vec<crate::model::TraceDevice>,
    /// Kineto's `distributedInfo`.
    pub(crate) rank: Option<crate::model::TraceRank>,
}
