//! The stream reader on documents cut at every byte, escapes, nesting,
//! key order, the legacy array form, and hostile input.

use super::*;
use crate::input::chrome::raw::RawEvent;

/// Each event as (index, name, ts), the way a trace keeps them.
#[derive(Default)]
struct Seen(Vec<(usize, String, Option<f64>)>);

impl Sink for Seen {
    fn event(&mut self, index: usize, e: RawEvent<'_>) {
        let name = e.name.get().unwrap_or_default().to_owned();
        self.0.push((index, name, e.ts.0));
    }
}

fn read(doc: &str, chunk: usize, limit: usize) -> Result<(Top, Seen), StreamError> {
    let mut seen = Seen::default();
    let top = read_in(Window::new(doc.as_bytes(), chunk, limit), &mut seen)?;
    Ok((top, seen))
}

/// Reads `doc` cut into chunks of every size from 1 byte up, and checks
/// that each gives what one chunk gives.
fn every_cut(doc: &str) -> Result<(Top, Seen), StreamError> {
    let whole = read(doc, doc.len() + 1, MAX_VALUE_BYTES);
    for chunk in 1..=doc.len().min(80) {
        match (&whole, read(doc, chunk, MAX_VALUE_BYTES)) {
            (Ok((_, a)), Ok((_, b))) => assert_eq!(a.0, b.0, "chunk {chunk}"),
            (Err(a), Err(b)) => {
                assert_eq!(
                    (a.offset, a.line, a.column, &a.message),
                    (b.offset, b.line, b.column, &b.message),
                    "chunk {chunk}"
                );
            }
            (a, b) => panic!("chunk {chunk}: {:?} vs {:?}", a.is_ok(), b.is_ok()),
        }
    }
    whole
}

#[test]
fn events_survive_every_cut_escapes_nesting_and_key_order() {
    let doc =
        String::from(" {\"schemaVersion\": 1, \"deviceProperties\": [{\"name\": \"]}\\\"{[\"}],\n")
            + " \"traceEvents\" :\t[ {\"name\": \"a\\\"}{[b\", \"ts\": 12345.5,\n"
            + "   \"args\": {\"x\": {\"y\": [1, [2, {\"z\": \"}\"}]]}}},\r\n"
            + " 123456789, \"text\", [1, {\"ph\": 1}], null ,\n"
            + " {\"name\": \"\\u00e9\\n\", \"ts\": 7e3} ],\n"
            + " \"tokens_per_step\": \"256\", \"traceName\": \"x\"}\n";
    let (top, seen) = every_cut(&doc).expect("a valid document");
    assert!(top.has_events && top.container);
    assert!(matches!(top.tokens_per_step, Some(Tokens::Number(t)) if t == 256.0));
    assert_eq!(
        seen.0,
        [
            (0, "a\"}{[b".to_owned(), Some(12345.5)),
            (5, "é\n".to_owned(), Some(7000.0)),
        ]
    );
}

#[test]
fn the_bare_array_form_and_empty_arrays_read() {
    let (top, seen) = every_cut(" [{\"name\": \"k\", \"ts\": 1}, {}] ").unwrap();
    assert!(top.has_events);
    assert_eq!(seen.0.len(), 2);
    let (top, seen) = every_cut("{\"traceEvents\": [ ]}").unwrap();
    assert!(top.has_events && seen.0.is_empty());
    let (top, _) = every_cut("{\"other\": [1, 2]}").unwrap();
    assert!(top.container && !top.has_events);
    let (top, _) = every_cut("17").unwrap();
    assert!(!top.container);
}

/// The error of a document, read whole and cut every way.
fn error(doc: &str) -> StreamError {
    every_cut(doc).err().expect("an error")
}

#[test]
fn hostile_documents_fail_naming_the_place() {
    let e = error("{\"traceEvents\": [{\"name\": \"a\"},\n {\"name\": \"never closed}]}");
    assert!(
        e.message
            .starts_with("traceEvents[1]: EOF while parsing a string"),
        "{e:?}"
    );
    assert!(e.message.contains("value at byte 33"), "{e:?}");
    assert_eq!(
        (e.offset, e.line, e.column),
        (33, 2, 26),
        "the value's start, the cut's place"
    );
    // Depth past serde_json's limit in what an event is read into fails;
    // in what is skipped it is walked without recursion.
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let bomb = format!(
        "{{\"traceEvents\": [{{\"args\": {{\"Input Dims\": {}}}}}]}}",
        deep(200)
    );
    let e = error(&bomb);
    assert!(
        e.message
            .starts_with("traceEvents[0]: recursion limit exceeded"),
        "{e:?}"
    );
    let skipped = format!("{{\"traceEvents\": [{}, {{\"ts\": 2}}]}}", deep(200));
    assert_eq!(
        every_cut(&skipped).unwrap().1.0,
        [(1, String::new(), Some(2.0))]
    );
    let e = error("{\"traceEvents\": [{}, ]}");
    assert_eq!((e.message.as_str(), e.column), ("trailing comma", 22));
    let e = error("{\"traceEvents\": [{} {}]}");
    assert_eq!(e.message, "expected `,` or `]`");
    let e = error("{\"traceEvents\": [], \"traceEvents\": []}");
    assert_eq!(e.message, "duplicate field `traceEvents`");
    let e = error("{\"traceEvents\": [{\"ts\": 1}]} x");
    assert_eq!((e.message.as_str(), e.offset), ("trailing characters", 29));
    let e = error("{\"traceEvents\": [1");
    assert_eq!(e.message, "EOF while parsing a list");
    let e = error("{\"a\": tru}");
    assert!(e.message.starts_with("`a`: expected ident"), "{e:?}");
    let e = error("{\"traceEvents\": {}}");
    assert!(e.message.contains("expected an array"), "{e:?}");
    let e = error("");
    assert_eq!(e.message, "EOF while parsing a value");
}

#[test]
fn a_value_past_the_limit_is_refused_without_reading_on() {
    let doc = format!(
        "{{\"traceEvents\": [{{\"name\": \"{}\"}}]}}",
        "x".repeat(1000)
    );
    let e = read(&doc, 64, 256).err().expect("too large");
    assert!(
        e.message
            .starts_with("traceEvents[0]: a value of more than 256 bytes (starting at byte 17)"),
        "{e:?}"
    );
    assert!(read(&doc, 64, 2048).is_ok());
}

#[test]
fn long_runs_of_events_read_on_two_threads_as_one_at_a_time() {
    let event = |i: usize| format!("{{\"name\": \"e{i}\\\"}}\", \"ts\": {i}}}");
    let events: Vec<String> = (0..300).map(event).collect();
    let doc = format!("{{\"traceEvents\": [\n{}\n]}}", events.join(",\n"));
    let (_, seen) = every_cut(&doc).unwrap();
    let expected: Vec<(usize, String, Option<f64>)> = (0..300)
        .map(|i| (i, format!("e{i}\"}}"), Some(i as f64)))
        .collect();
    assert_eq!(seen.0, expected);
    // An error inside a run is found and named as without threads.
    let mut events = events;
    events[150] = "{\"ts\": 1, \"ts\": 2}".to_owned();
    let doc = format!("{{\"traceEvents\": [\n{}\n]}}", events.join(",\n"));
    let e = error(&doc);
    assert!(
        e.message
            .starts_with("traceEvents[150]: duplicate field `ts`"),
        "{e:?}"
    );
    assert_eq!(e.line, 152);
}
