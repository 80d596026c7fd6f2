//! A large Kineto trace made by repeating a real one: each copy shifted in
//! time past the previous one, with its correlation, flow and external ids
//! moved out of the earlier copies' range so launches still pair up.

use std::io::{BufWriter, Write};
use std::path::Path;

use serde_json::Value;

/// Argument keys holding ids that must stay unique per copy.
const ID_ARGS: [&str; 3] = ["correlation", "External id", "external id"];

fn number(v: &Value) -> Option<f64> {
    v.as_f64()
}

fn shift_int(v: &mut Value, by: i64) {
    if let Some(n) = v.as_i64() {
        *v = Value::from(n + by);
    }
}

/// Writes copies of `source`'s events to `out` until it holds at least
/// `bytes`; returns the copies and bytes written.
pub(crate) fn repeat_trace(source: &Path, out: &Path, bytes: u64) -> Result<(u64, u64), String> {
    let text = std::fs::read_to_string(source).map_err(|e| format!("{}: {e}", source.display()))?;
    let doc: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", source.display()))?;
    let events = doc["traceEvents"]
        .as_array()
        .ok_or_else(|| format!("{}: no traceEvents array", source.display()))?;
    let (mut first, mut last) = (f64::INFINITY, f64::NEG_INFINITY);
    let mut max_id = 0i64;
    for e in events {
        if let Some(ts) = e.get("ts").and_then(number) {
            first = first.min(ts);
            last = last.max(ts + e.get("dur").and_then(number).unwrap_or(0.0));
        }
        let args = e.get("args");
        for key in ID_ARGS {
            if let Some(n) = args.and_then(|a| a.get(key)).and_then(Value::as_i64) {
                max_id = max_id.max(n);
            }
        }
        if let Some(n) = e.get("id").and_then(Value::as_i64) {
            max_id = max_id.max(n);
        }
    }
    let span = (last - first).max(1.0) + 1_000.0;
    let file = std::fs::File::create(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut w = BufWriter::new(file);
    let io = |e: std::io::Error| format!("{}: {e}", out.display());
    w.write_all(b"{\"schemaVersion\": 1, \"traceEvents\": [\n")
        .map_err(io)?;
    let (mut written, mut copies) = (0u64, 0u64);
    let mut comma = false;
    while written < bytes {
        let by = i64::try_from(copies).unwrap_or(i64::MAX) * (max_id + 1);
        let dt = copies as f64 * span;
        for e in events {
            let mut e = e.clone();
            if let Some(ts) = e.get("ts").and_then(number) {
                e["ts"] = Value::from(((ts + dt) * 1e3).round() / 1e3);
            }
            if let Some(args) = e.get_mut("args").and_then(Value::as_object_mut) {
                for key in ID_ARGS {
                    if let Some(v) = args.get_mut(key) {
                        shift_int(v, by);
                    }
                }
            }
            if let Some(v) = e.get_mut("id") {
                shift_int(v, by);
            }
            let line = serde_json::to_vec(&e).map_err(|e| e.to_string())?;
            if comma {
                w.write_all(b",\n").map_err(io)?;
            }
            comma = true;
            w.write_all(&line).map_err(io)?;
            written += line.len() as u64 + 2;
        }
        copies += 1;
    }
    w.write_all(b"\n]}\n").map_err(io)?;
    w.flush().map_err(io)?;
    Ok((copies, written))
}
