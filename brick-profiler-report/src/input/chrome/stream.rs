//! A Chrome trace document read in large chunks: the top level and the
//! `traceEvents` array are walked here, and each element is parsed from a
//! byte slice, so memory holds one chunk (or one element), never the file.

use std::io::Read;

use serde::de::IgnoredAny;

use super::batch::parse_batch;
use super::kineto;
use super::raw::{MaybeEvent, Sink, Tokens, Top};
pub(crate) use super::window::StreamError;
use super::window::{Window, one, owned};

/// Bytes read from the source at a time.
const CHUNK: usize = 1 << 20;

/// The largest single value held whole: one element of `traceEvents`, or
/// one value of the top-level object other than the events (64 MiB). An
/// event that large is a hostile or broken file, not a trace.
pub(crate) const MAX_VALUE_BYTES: usize = 64 << 20;

/// Reads a trace document from `reader`, giving each element of its events
/// array to `sink`: `{"traceEvents": [...], ...}` (keys in any order) or a
/// bare array of events.
pub(crate) fn read_document<R: Read, S: Sink>(reader: R, sink: &mut S) -> Result<Top, StreamError> {
    read_in(Window::new(reader, CHUNK, MAX_VALUE_BYTES), sink)
}

fn read_in<R: Read, S: Sink>(mut w: Window<R>, sink: &mut S) -> Result<Top, StreamError> {
    let top = match w.peek()? {
        Some(b'[') => {
            events(&mut w, sink)?;
            Top {
                has_events: true,
                container: true,
                ..Top::default()
            }
        }
        Some(b'{') => {
            w.pos += 1;
            object(&mut w, sink)?
        }
        Some(_) => {
            // Not a container: still valid JSON (a number, a string) or an error.
            let root = || "the document".to_owned();
            w.value(&root, owned::<IgnoredAny>)?;
            Top::default()
        }
        None => return Err(w.error("EOF while parsing a value")),
    };
    if w.peek()?.is_some() {
        return Err(w.error("trailing characters"));
    }
    Ok(top)
}

/// The members of the top-level object, its `{` consumed.
fn object<R: Read, S: Sink>(w: &mut Window<R>, sink: &mut S) -> Result<Top, StreamError> {
    let mut top = Top {
        container: true,
        ..Top::default()
    };
    if w.eat(b'}')? {
        return Ok(top);
    }
    loop {
        if w.peek()? != Some(b'"') {
            return Err(w.error("key must be a string"));
        }
        let key_what = || "a top-level key".to_owned();
        let key: String = w.value(&key_what, owned::<String>)?;
        if !w.eat(b':')? {
            return Err(w.error("expected `:`"));
        }
        let what = || format!("`{key}`");
        match key.as_str() {
            "traceEvents" if top.has_events => {
                return Err(w.error("duplicate field `traceEvents`"));
            }
            "traceEvents" => {
                if w.peek()? != Some(b'[') {
                    return Err(w.error("`traceEvents`: expected an array of events"));
                }
                events(w, sink)?;
                top.has_events = true;
            }
            "tokens_per_step" => {
                let v: serde_json::Value = w.value(&what, owned)?;
                let n = match &v {
                    serde_json::Value::Number(n) => n.as_f64(),
                    serde_json::Value::String(s) => s.trim().parse().ok(),
                    _ => None,
                };
                top.tokens_per_step = Some(match n {
                    Some(n) => Tokens::Number(n),
                    None => Tokens::Other(v.to_string()),
                });
            }
            "deviceProperties" => {
                let v: serde_json::Value = w.value(&what, owned)?;
                top.devices = kineto::devices(&v);
            }
            "distributedInfo" => {
                let v: serde_json::Value = w.value(&what, owned)?;
                top.rank = kineto::rank(&v);
            }
            _ => {
                w.value(&what, owned::<IgnoredAny>)?;
            }
        }
        if w.eat(b',')? {
            continue;
        }
        if w.eat(b'}')? {
            return Ok(top);
        }
        return Err(match w.peek()? {
            None => w.error("EOF while parsing an object"),
            Some(_) => w.error("expected `,` or `}`"),
        });
    }
}

/// The elements of an events array, its `[` next: each object is an event
/// given to `sink` with its index; other elements are skipped.
fn events<R: Read, S: Sink>(w: &mut Window<R>, sink: &mut S) -> Result<(), StreamError> {
    w.pos += 1;
    if w.eat(b']')? {
        return Ok(());
    }
    let mut index = 0usize;
    loop {
        match w.peek()? {
            Some(b']') => return Err(w.error("trailing comma")),
            None => return Err(w.error("EOF while parsing a list")),
            Some(_) => {}
        }
        if let Some((batch, used)) = parse_batch(&w.buf[w.pos..]) {
            let count = batch.len();
            for (k, event) in batch.into_iter().enumerate() {
                if let Some(event) = event {
                    sink.event(index + k, event);
                }
            }
            index += count;
            w.pos += used;
            continue;
        }
        // Name the event: a position alone is hard to find in a one-line
        // trace of a million events.
        let what = || format!("traceEvents[{index}]");
        w.value(&what, |slice| {
            one::<MaybeEvent<'_>>(slice).map(|r| {
                r.map(|(MaybeEvent(event), end)| {
                    // Ending at the window's end, it is parsed again
                    // with more of the document: give it to `sink` then.
                    if end < slice.len()
                        && let Some(event) = event
                    {
                        sink.event(index, event);
                    }
                    ((), end)
                })
            })
        })?;
        index += 1;
        if w.eat(b',')? {
            continue;
        }
        if w.eat(b']')? {
            return Ok(());
        }
        return Err(match w.peek()? {
            None => w.error("EOF while parsing a list"),
            Some(_) => w.error("expected `,` or `]`"),
        });
    }
}

#[cfg(test)]
mod tests;
