//! `--suggest-mapping`: a draft mapping file from a trace. Forward ops are
//! grouped by the mapped `record_function` range around them, else by leaf
//! module call (by module path) or, outside leaf modules, by op name, input
//! shapes and enclosing module, each with its time per step, largest first;
//! the user renames the bricks and keeps what fits.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::mapping::OpMapping;
use super::tally::{Draft, Key, Tally};
use super::walk::{DEVICE, HOST, walk};
use crate::model::chrome_trace::ChromeTrace;
use crate::model::parity_error::ParityError;

/// Rules the draft lists at most; the rest are counted in a comment.
const MAX_RULES: usize = 40;

/// A brick-like name for a rule nobody mapped yet: the module class, or
/// the op name without its namespace, in CamelCase.
fn placeholder(key: &Key) -> String {
    let raw = match key {
        Key::Module(path) => path
            .rsplit('.')
            .next()
            .unwrap_or(path)
            .split('[')
            .next()
            .unwrap_or(path),
        Key::Op { name, .. } | Key::Range(name) => name.rsplit("::").next().unwrap_or(name),
    };
    raw.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next().map_or(String::new(), |f| {
                f.to_ascii_uppercase().to_string() + c.as_str()
            })
        })
        .collect()
}

/// Shapes for a comment: at most 60 characters, cut with `...`, on one
/// line.
fn abbreviated(shapes: &str) -> String {
    const MAX: usize = 60;
    let one_line: String = shapes.chars().filter(|c| !c.is_control()).collect();
    if one_line.chars().count() <= MAX {
        return one_line;
    }
    let cut: String = one_line.chars().take(MAX - 3).collect();
    format!("{cut}...")
}

/// A TOML basic string.
fn quoted(text: &str) -> String {
    let mut s = String::with_capacity(text.len() + 2);
    s.push('"');
    for c in text.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(s, "\\u{:04X}", u32::from(c));
            }
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

/// A draft mapping file (TOML) for `trace`: one rule per group of forward
/// ops, largest time first, each with its time and calls per step; bricks
/// are what `mapping` maps the group to today, else a placeholder named
/// after the module class or op. `origin` names the trace in the header.
///
/// # Errors
/// [`ParityError::Spill`] when a large trace's temporary files cannot be
/// read back.
pub fn suggest_mapping(
    trace: &ChromeTrace,
    mapping: &OpMapping,
    origin: &str,
) -> Result<String, ParityError> {
    let mut draft = Draft::default();
    let (names, summary) = walk(trace, mapping, &mut draft)?;
    let device = summary.device;
    let mode = if device { DEVICE } else { HOST };
    let kept: Vec<u32> = (0..summary.steps.len() as u32)
        .filter(|&s| summary.steps[s as usize].busy[mode])
        .collect();
    let tallies = draft.merged(&names, mode, !kept.is_empty());
    let steps = kept.len();
    let per_step = steps.max(1) as f64;
    let mut rows: Vec<(Key, Tally)> = tallies.into_iter().filter(|(_, t)| t.us > 0.0).collect();
    rows.sort_by(|a, b| {
        b.1.us
            .total_cmp(&a.1.us)
            .then_with(|| format!("{:?}", a.0).cmp(&format!("{:?}", b.0)))
    });

    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Draft op mapping for {}: rename the bricks, keep what fits.",
        quoted(origin)
    );
    let what = if device { "device time" } else { "CPU time" };
    let _ = writeln!(
        s,
        "# Rules match in order; each says its {what} and calls per step over {} step(s).",
        steps.max(1)
    );
    s.push_str(
        "# Module paths: Class[k] is the k-th call of a Class module inside its parent's call\n\
         # (ranges `nn.Module: ...` of with_stack=True); backward ops follow their forward op.\n\
         # An op in one rule matches whatever its shapes (they are in the comment).\n",
    );
    if rows.is_empty() {
        s.push_str("# no forward op with time in the trace\nrules = []\n");
        return Ok(s);
    }
    // An op that makes one group needs no shapes to tell its calls apart,
    // and a rule without them still holds when the batch size changes:
    // its shapes go to the comment instead.
    let mut groups_of_op: HashMap<&str, usize> = HashMap::new();
    for (key, _) in &rows {
        if let Key::Op { name, .. } = key {
            *groups_of_op.entry(name).or_default() += 1;
        }
    }
    s.push_str("rules = [\n");
    for (key, t) in rows.iter().take(MAX_RULES) {
        let brick = t
            .brick
            .map(|b| names.brick(b).to_owned())
            .unwrap_or_else(|| placeholder(key));
        let calls = (t.calls as f64 / per_step).round();
        let mut comment = String::new();
        let fields = match key {
            Key::Range(name) => {
                comment = ", a record_function range (`ignore` it to map what runs \
                               inside instead)"
                    .to_owned();
                format!("op = {}", quoted(name))
            }
            Key::Module(path) => format!("module = {}", quoted(path)),
            Key::Op {
                name,
                shapes,
                module,
            } => {
                let mut f = format!("op = {}", quoted(name));
                if let Some(sh) = shapes.as_deref().filter(|sh| !sh.is_empty()) {
                    if groups_of_op.get(name.as_str()) == Some(&1) {
                        comment = format!(", shapes {}", abbreviated(sh));
                    } else {
                        let _ = write!(f, ", shapes = {}", quoted(sh));
                    }
                }
                if let Some(m) = module {
                    let _ = write!(f, ", module = {}", quoted(m));
                }
                f
            }
        };
        let _ = writeln!(
            s,
            "  {{ {fields}, brick = {} }},  # {:.3} ms, {calls} call{}{comment}",
            quoted(&brick),
            t.us / 1e3 / per_step,
            if calls == 1.0 { "" } else { "s" }
        );
    }
    s.push_str("]\n");
    if rows.len() > MAX_RULES {
        let rest: f64 = rows[MAX_RULES..].iter().map(|(_, t)| t.us).sum::<f64>() / 1e3 / per_step;
        let _ = writeln!(
            s,
            "# {} smaller groups left out ({rest:.3} ms)",
            rows.len() - MAX_RULES
        );
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_camel_case_and_strings_are_toml() {
        assert_eq!(
            placeholder(&Key::Module("*.Block[*].RMSNorm[1]".into())),
            "RMSNorm"
        );
        let op = Key::Op {
            name: "aten::masked_fill".into(),
            shapes: None,
            module: None,
        };
        assert_eq!(placeholder(&op), "MaskedFill");
        assert_eq!(quoted("a\"b\\c"), "\"a\\\"b\\\\c\"");
    }
}
