//! The first bytes of a file, from which its format is told: the limits of
//! what is inspected and read, and the look at a JSON document's top-level
//! keys that needs no parse of the whole document.

use std::borrow::Cow;

/// Bytes inspected to tell a file's format (64 KiB). A file whose first
/// 64 KiB hold only whitespace is refused as empty.
pub const SNIFF_BYTES: usize = 64 << 10;

pub use crate::base::user_file::MAX_INPUT_BYTES;

/// What a JSON document starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonRoot {
    /// `{`: an object.
    Object,
    /// `[`: an array.
    Array,
}

/// The first bytes of an input, with a UTF-8 byte-order mark and leading
/// whitespace skipped, and what can be said of them without reading further.
#[derive(Debug)]
pub struct Head<'a> {
    body: &'a [u8],
    keys: Vec<String>,
}

impl<'a> Head<'a> {
    /// Looks at `bytes` (at most [`SNIFF_BYTES`] of them are used).
    #[must_use]
    pub fn new(bytes: &'a [u8]) -> Self {
        let bytes = &bytes[..bytes.len().min(SNIFF_BYTES)];
        let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
        let start = bytes
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(bytes.len());
        let body = &bytes[start..];
        let keys = match body.first() {
            Some(b'{') => keys_at(body, 1),
            Some(b'[') => keys_at(body, 2),
            _ => Vec::new(),
        };
        Self { body, keys }
    }

    /// The bytes after the byte-order mark and leading whitespace.
    #[must_use]
    pub fn body(&self) -> &'a [u8] {
        self.body
    }

    /// Whether nothing but whitespace was seen.
    #[must_use]
    pub fn is_blank(&self) -> bool {
        self.body.is_empty()
    }

    /// The JSON root, when the body starts like a JSON object or array.
    #[must_use]
    pub fn json_root(&self) -> Option<JsonRoot> {
        match self.body.first() {
            Some(b'{') => Some(JsonRoot::Object),
            Some(b'[') => Some(JsonRoot::Array),
            _ => None,
        }
    }

    /// The keys seen in the first bytes: a root object's own keys, or the
    /// keys of a root array's first element, in order.
    #[must_use]
    pub fn keys(&self) -> &[String] {
        &self.keys
    }

    /// Whether [`Head::keys`] holds `key`.
    #[must_use]
    pub fn has_key(&self, key: &str) -> bool {
        self.keys.iter().any(|k| k == key)
    }

    /// The body as text, when it is UTF-8 (a character cut at the end of the
    /// inspected bytes does not count against it).
    #[must_use]
    pub fn text(&self) -> Option<Cow<'a, str>> {
        match std::str::from_utf8(self.body) {
            Ok(t) => Some(Cow::Borrowed(t)),
            Err(e) if e.error_len().is_none() => {
                let valid = &self.body[..e.valid_up_to()];
                std::str::from_utf8(valid).ok().map(Cow::Borrowed)
            }
            Err(_) => None,
        }
    }
}

/// The keys at `depth` of a JSON document's first value (1: a root
/// object's keys; 2: those of the first element of a root array), read by
/// a scan that tracks only strings and nesting, so a document cut at any
/// byte yields the keys seen so far.
fn keys_at(body: &[u8], depth: usize) -> Vec<String> {
    let mut keys = Vec::new();
    let mut level = 0usize;
    let mut pending: Option<(usize, usize)> = None;
    let mut i = 0;
    while i < body.len() {
        match body[i] {
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < body.len() && body[i] != b'"' {
                    i += if body[i] == b'\\' { 2 } else { 1 };
                }
                if i >= body.len() {
                    break;
                }
                pending = (level == depth).then_some((start, i));
            }
            b'{' | b'[' => {
                level += 1;
                pending = None;
            }
            b'}' | b']' => {
                level = level.saturating_sub(1);
                pending = None;
                // The first value (or the array's first element) is complete.
                if level < depth {
                    break;
                }
            }
            b':' => {
                if let Some((s, e)) = pending.take() {
                    keys.push(String::from_utf8_lossy(&body[s..e]).into_owned());
                }
            }
            b if b.is_ascii_whitespace() => {}
            _ => pending = None,
        }
        i += 1;
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_of_objects_arrays_and_cut_documents() {
        let h = Head::new(
            b"\xef\xbb\xbf \n{\"a\": {\"x\": 1}, \"b\": [\"c\", {\"d\": 2}], \"e\\\"\": 3",
        );
        assert_eq!(h.keys(), ["a", "b", "e\\\""]);
        assert_eq!(h.json_root(), Some(JsonRoot::Object));
        let h = Head::new(b"[{\"version\": \"2.0\", \"kernel\": {}}, {\"late\": 1}]");
        assert_eq!(h.keys(), ["version", "kernel"]);
        let h = Head::new(b"{\"_profiler\": \"v\", \"steps\": 1}\n{\"other\": 2}");
        assert_eq!(h.keys(), ["_profiler", "steps"], "only the first document");
        assert!(Head::new(b" \t\n").is_blank());
        assert_eq!(
            Head::new("é".as_bytes()[..1].as_ref()).text().as_deref(),
            Some("")
        );
        assert!(Head::new(&[0xff, 0xfe, 0]).text().is_none());
    }
}
