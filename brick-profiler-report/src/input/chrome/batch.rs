//! The events of a window parsed on two threads: complete event objects
//! are framed by a scan of strings and brackets, then each half is parsed
//! apart. Anything unusual is left to the one-at-a-time path, which reports
//! errors exactly.

use super::raw::{MaybeEvent, RawEvent};

/// Fewer events than this are not worth a second thread.
pub(crate) const BATCH_MIN: usize = 64;

/// The events at the start of `bytes`, parsed on two threads, and the
/// bytes they took (through the comma after the last). `None` when fewer
/// than [`BATCH_MIN`] complete objects, each followed by a comma, come
/// first, or when any of them does not parse.
pub(crate) fn parse_batch(bytes: &[u8]) -> Option<(Vec<Option<RawEvent<'_>>>, usize)> {
    let (spans, used) = frame(bytes);
    if spans.len() < BATCH_MIN {
        return None;
    }
    let (left, right) = spans.split_at(spans.len() / 2);
    let parse = |part: &[(usize, usize)]| -> Option<Vec<Option<RawEvent<'_>>>> {
        part.iter()
            .map(|&(start, end)| {
                let element = &bytes[start..end];
                let mut stream = serde_json::Deserializer::from_slice(element).into_iter();
                let MaybeEvent(event) = stream.next()?.ok()?;
                (stream.byte_offset() == element.len()).then_some(event)
            })
            .collect()
    };
    let (mut first, second) = std::thread::scope(|s| {
        // Without a second thread (the system refuses one), one does both.
        match std::thread::Builder::new().spawn_scoped(s, || parse(right)) {
            Ok(second) => (parse(left), second.join().ok().flatten()),
            Err(_) => (parse(left), parse(right)),
        }
    });
    let first_events = first.as_mut()?;
    first_events.extend(second?);
    first.map(|events| (events, used))
}

/// (start, end) of each complete object at the start of `bytes` that is
/// followed by a comma, and the offset just past the last such comma. The
/// scan knows only strings (with escapes) and brackets: exact for valid
/// JSON; for invalid JSON the parse of a span fails and the caller falls
/// back.
fn frame(bytes: &[u8]) -> (Vec<(usize, usize)>, usize) {
    let skip_ws = |mut i: usize| {
        while bytes
            .get(i)
            .is_some_and(|b| matches!(b, b' ' | b'\n' | b'\r' | b'\t'))
        {
            i += 1;
        }
        i
    };
    let mut spans = Vec::new();
    let mut used = 0;
    let mut i = skip_ws(0);
    while bytes.get(i) == Some(&b'{') {
        let start = i;
        let (mut depth, mut in_string, mut end) = (0usize, false, None);
        while i < bytes.len() {
            match (in_string, bytes[i]) {
                (true, b'\\') => i += 1,
                (true, b'"') => in_string = false,
                (true, _) => {}
                (false, b'"') => in_string = true,
                (false, b'{' | b'[') => depth += 1,
                (false, b'}' | b']') => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = Some(i + 1);
                        break;
                    }
                }
                (false, _) => {}
            }
            i += 1;
        }
        let Some(end) = end else { break };
        let comma = skip_ws(end);
        if bytes.get(comma) != Some(&b',') {
            break;
        }
        spans.push((start, end));
        used = comma + 1;
        i = skip_ws(used);
    }
    (spans, used)
}

#[cfg(test)]
mod tests {
    #[test]
    fn frames_objects_followed_by_commas_only() {
        let text = br#" {"a": "}\"{"}, {"b": [1, {"c": 2}]} ,{"d": 1} ]"#;
        let (spans, used) = super::frame(text);
        let found: Vec<&[u8]> = spans.iter().map(|&(s, e)| &text[s..e]).collect();
        assert_eq!(
            found,
            [&br#"{"a": "}\"{"}"#[..], br#"{"b": [1, {"c": 2}]}"#]
        );
        assert_eq!(&text[used..], br#"{"d": 1} ]"#);
        assert_eq!(super::frame(b"{\"cut\": ").0.len(), 0);
    }
}
