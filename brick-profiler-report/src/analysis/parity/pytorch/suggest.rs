//! `--suggest-mapping`: a draft mapping file from a trace. Forward ops are
//! grouped by the mapped `record_function` range around them, else by leaf
//! module call (by module path) or, outside leaf modules, by op name, input
//! shapes and enclosing module, each with its time per step, largest first;
//! the user renames the bricks and keeps what fits.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::mapping::{OpMapping, toml_string};
use super::rules::literal;
use super::tally::{Draft, Key, Tally, Unreached};
use super::walk::{DEVICE, HOST, walk};
use crate::input::chrome::OTHER_NAMES;
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
    let name: String = raw
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next().map_or(String::new(), |f| {
                f.to_ascii_uppercase().to_string() + c.as_str()
            })
        })
        .collect();
    // A brick needs a name; one that starts with a digit is not one.
    match name.chars().next() {
        None => "Unnamed".to_owned(),
        Some(c) if c.is_ascii_digit() => format!("Op{name}"),
        Some(_) => name,
    }
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
    let (tallies, ranges, unreached) = draft.merged(&names, mode, !kept.is_empty());
    let steps = kept.len();
    let per_step = steps.max(1) as f64;
    let (rows, lumped_us) = sorted_rows(tallies);
    let mut s = String::new();
    header(&mut s, origin, device, steps.max(1));
    if trace.lumped_names() > 0 {
        let _ = writeln!(
            s,
            "# {} events came after the distinct names held reached their bound and read as \
             {} ({:.3} ms per step): no rule can name them",
            trace.lumped_names(),
            toml_string(OTHER_NAMES),
            lumped_us / 1e3 / per_step
        );
    }
    if device {
        unreached_comment(&mut s, &unreached, per_step);
    }
    if rows.is_empty() {
        s.push_str("# no forward op with time in the trace\nrules = []\n");
        ranges_comment(&mut s, ranges, per_step);
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
        let (fields, comment) = rule_fields(key, &groups_of_op);
        let _ = writeln!(
            s,
            "  {{ {fields}, brick = {} }},  # {:.3} ms, {calls} call{}{comment}",
            toml_string(&brick),
            t.us / 1e3 / per_step,
            if calls == 1.0 { "" } else { "s" }
        );
    }
    s.push_str("]\n");
    ranges_comment(&mut s, ranges, per_step);
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

/// The device time no rule reaches through a launch, as comments: what
/// was launched outside every op and module call (only a rule naming a
/// range around it maps it), and what is linked to no launch call.
fn unreached_comment(s: &mut String, u: &Unreached, per_step: f64) {
    let share = |us: f64| 100.0 * us / u.device_us.max(f64::MIN_POSITIVE);
    if u.us > 0.0 {
        let graphs = if u.graph_kernels > 0 {
            format!(
                ", {} of them replayed by graph launches",
                (u.graph_kernels as f64 / per_step).round()
            )
        } else {
            String::new()
        };
        let kernels = (u.kernels as f64 / per_step).round();
        let _ = writeln!(
            s,
            "# {kernels} kernel{} per step ({:.3} ms, {:.1}% of the device time) launched outside \
             every op and module call{graphs}: only a rule naming a range around them maps them",
            if kernels == 1.0 { "" } else { "s" },
            u.us / 1e3 / per_step,
            share(u.us)
        );
    }
    if u.unlinked > 0 {
        let events = (u.unlinked as f64 / per_step).round();
        let _ = writeln!(
            s,
            "# {events} device event{} per step ({:.3} ms, {:.1}% of the device time) linked to \
             no launch call: no rule can name {}",
            if events == 1.0 { "" } else { "s" },
            u.unlinked_us / 1e3 / per_step,
            share(u.unlinked_us),
            if events == 1.0 { "it" } else { "them" }
        );
    }
}

/// Groups with time, most first; events read past the names bound share
/// one name no rule can match for them alone: their time (µs) is returned
/// apart, for a comment, never drafted.
fn sorted_rows(tallies: HashMap<Key, Tally>) -> (Vec<(Key, Tally)>, f64) {
    let mut rows: Vec<(Key, Tally)> = tallies.into_iter().filter(|(_, t)| t.us > 0.0).collect();
    let lumped_us: f64 = rows
        .iter()
        .filter(|(k, _)| is_lumped(k))
        .map(|(_, t)| t.us)
        .sum();
    rows.retain(|(k, _)| !is_lumped(k));
    rows.sort_by(|a, b| {
        b.1.us
            .total_cmp(&a.1.us)
            .then_with(|| format!("{:?}", a.0).cmp(&format!("{:?}", b.0)))
    });
    (rows, lumped_us)
}

/// The draft's opening comment: what it is of and how its rules read.
fn header(s: &mut String, origin: &str, device: bool, steps: usize) {
    let _ = writeln!(
        s,
        "# Draft op mapping for {}: rename the bricks, keep what fits.",
        toml_string(origin)
    );
    let what = if device { "device time" } else { "CPU time" };
    let _ = writeln!(
        s,
        "# Rules match in order; each says its {what} and calls per step over {steps} step(s)."
    );
    s.push_str(
        "# Module paths: Class[k] is the k-th call of a Class module inside its parent's call\n\
         # (ranges `nn.Module: ...` of with_stack=True); backward ops follow their forward op.\n\
         # An op in one rule matches whatever its shapes (they are in the comment).\n",
    );
}

/// A rule's match fields, and what its comment adds: shapes left out of an
/// op that makes one group, or how to look inside a range.
fn rule_fields(key: &Key, groups_of_op: &HashMap<&str, usize>) -> (String, String) {
    let mut comment = String::new();
    let fields = match key {
        Key::Range(name) => {
            comment = ", a record_function range (`ignore` it to map what runs \
                           inside instead)"
                .to_owned();
            format!("op = {}", toml_string(&literal(name)))
        }
        Key::Module(path) => format!("module = {}", toml_string(path)),
        Key::Op {
            name,
            shapes,
            module,
        } => {
            let mut f = format!("op = {}", toml_string(&literal(name)));
            if let Some(sh) = shapes.as_deref().filter(|sh| !sh.is_empty()) {
                if groups_of_op.get(name.as_str()) == Some(&1) {
                    comment = format!(", shapes {}", abbreviated(sh));
                } else {
                    let _ = write!(f, ", shapes = {}", toml_string(&literal(sh)));
                }
            }
            if let Some(m) = module {
                let _ = write!(f, ", module = {}", toml_string(m));
            }
            f
        }
    };
    (fields, comment)
}

/// Whether a group is the events read past the names bound
/// ([`OTHER_NAMES`]).
fn is_lumped(key: &Key) -> bool {
    matches!(key, Key::Op { name, .. } | Key::Range(name) if name == OTHER_NAMES)
}

/// The ranges that map to no brick, as comments: the rules above reach
/// inside them.
fn ranges_comment(s: &mut String, ranges: HashMap<Key, Tally>, per_step: f64) {
    const LISTED: usize = 12;
    let mut rows: Vec<(String, Tally)> = ranges
        .into_iter()
        .filter_map(|(k, t)| match k {
            Key::Range(name) => Some((name, t)),
            _ => None,
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    rows.sort_by(|a, b| b.1.us.total_cmp(&a.1.us).then_with(|| a.0.cmp(&b.0)));
    s.push_str(
        "# Ranges around these ops that are not bricks (CPU time per step; name one in a rule \
         to map it whole):\n",
    );
    for (name, t) in rows.iter().take(LISTED) {
        let one_line: String = name.chars().filter(|c| !c.is_control()).collect();
        let _ = writeln!(
            s,
            "#   {} {:.3} ms, {} call{}",
            toml_string(&one_line),
            t.us / 1e3 / per_step,
            (t.calls as f64 / per_step).round(),
            if (t.calls as f64 / per_step).round() == 1.0 {
                ""
            } else {
                "s"
            }
        );
    }
    if rows.len() > LISTED {
        let _ = writeln!(s, "#   and {} more", rows.len() - LISTED);
    }
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
        assert_eq!(toml_string("a\"b\\c"), "\"a\\\"b\\\\c\"");
        for hostile in ["---", "", "::", "7up"] {
            let op = Key::Op {
                name: hostile.into(),
                shapes: None,
                module: None,
            };
            let p = placeholder(&op);
            assert!(
                p.starts_with(|c: char| c.is_ascii_uppercase()),
                "{hostile}: {p}"
            );
        }
    }
}
