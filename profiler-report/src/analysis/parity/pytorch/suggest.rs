//! `--suggest-mapping`: a draft mapping file from a trace. Forward ops are
//! grouped by the mapped `record_function` range around them, else by leaf
//! module call (by module path) or, outside leaf modules, by op name, input
//! shapes and enclosing module, each with its time per step, largest first;
//! the user renames the bricks and keeps what fits.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::mapping::OpMapping;
use super::ownership::{own_maps, roots};
use super::rules::VIEW_OPS;
use super::steps::TraceSteps;
use super::tree::{StepWindows, Tree};
use crate::model::chrome_trace::{Cat, ChromeTrace};

/// Rules the draft lists at most; the rest are counted in a comment.
const MAX_RULES: usize = 40;

/// What a draft rule matches.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    /// A mapped `record_function` range (the built-in rules map some, and
    /// every other maps to itself), by name: what runs inside it is its.
    Range(String),
    /// A leaf module's calls, by generalised path.
    Module(String),
    /// Ops by name, shapes and generalised enclosing module path.
    Op {
        name: String,
        shapes: Option<String>,
        module: Option<String>,
    },
}

/// A draft rule's time (µs) and calls, over the steps.
#[derive(Debug, Default)]
struct Tally {
    us: f64,
    calls: u64,
    brick: Option<String>,
}

/// `TinyTransformer[0].Block[2].Attention[0].Linear[1]` ->
/// `*.Attention[*].Linear[1]`: the calls of that module in every parent
/// call, whatever the parent's place.
fn generalise(path: &str) -> String {
    let parts: Vec<&str> = path.split('.').collect();
    let starred = |p: &str| match p.find('[') {
        Some(i) => format!("{}[*]", &p[..i]),
        None => p.to_owned(),
    };
    match parts.as_slice() {
        [] | [_] => path.to_owned(),
        [parent, last] => format!("{}.{last}", starred(parent)),
        [.., parent, last] => format!("*.{}.{last}", starred(parent)),
    }
}

/// An op's enclosing module path with every place starred:
/// `TinyTransformer[0].Block[2].Attention[0]` -> `*.Block[*].Attention[*]`,
/// so the op's calls in every block fall in one rule.
fn generalise_all(path: &str) -> String {
    let parts: Vec<String> = path
        .split('.')
        .map(|p| match p.find('[') {
            Some(i) => format!("{}[*]", &p[..i]),
            None => p.to_owned(),
        })
        .collect();
    match parts.as_slice() {
        [] | [_] | [_, _] => parts.join("."),
        [.., parent, last] => format!("*.{parent}.{last}"),
    }
}

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
#[must_use]
pub fn suggest_mapping(trace: &ChromeTrace, mapping: &OpMapping, origin: &str) -> String {
    let events = &trace.events[..];
    let TraceSteps {
        device,
        links,
        steps,
    } = TraceSteps::of(trace);
    let steps = steps.kept;
    let windows = StepWindows::new(&steps);
    let tree = Tree::new(events);
    let mut notes = Vec::new();
    let own = own_maps(events, &tree, mapping, &mut notes);
    let root = roots(events, &own);

    // Leaf module calls: module calls with no module call inside.
    let mut has_inner_module = vec![false; events.len()];
    for e in events {
        if e.cat == Cat::Module
            && let Some(outer) = e.parent().and_then(|p| tree.module_call[p])
        {
            has_inner_module[outer] = true;
        }
    }
    // The group a host event's time counts in, if any.
    let group = |i: usize| -> Option<(usize, Key)> {
        if tree.in_backward[i] {
            return None;
        }
        // The outermost mapped range wins in parity, so it does here.
        if let Some(r) = root[i]
            && events[r].cat == Cat::Annotation
        {
            return Some((r, Key::Range(events[r].name.to_string())));
        }
        if let Some(m) = tree.module_call[i]
            && !has_inner_module[m]
        {
            return Some((m, Key::Module(generalise(tree.module_path(m)?))));
        }
        let op = tree.top_op[i]?;
        let e = &events[op];
        if VIEW_OPS.contains(&e.name.as_ref()) || e.name.starts_with("ProfilerStep#") {
            return None;
        }
        Some((
            op,
            Key::Op {
                name: e.name.to_string(),
                shapes: e.dims.as_deref().map(str::to_owned),
                module: tree.module_path(op).map(generalise_all),
            },
        ))
    };
    let mut tallies: HashMap<Key, Tally> = HashMap::new();
    let mut counted = vec![false; events.len()];
    let mut add = |owner: usize, key: Key, us: f64, counted: &mut Vec<bool>| {
        let t = tallies.entry(key).or_default();
        t.us += us;
        if !counted[owner] {
            counted[owner] = true;
            t.calls += 1;
        }
        if t.brick.is_none() {
            t.brick = root[owner].and_then(|r| own[r].clone());
        }
    };
    if device {
        for (i, d) in events.iter().enumerate().filter(|(_, e)| e.cat.on_device()) {
            if let Some(l) = links.launch[i]
                && windows.contains(links.host_ts(events, i))
                && let Some((owner, key)) = group(l)
            {
                add(owner, key, d.dur, &mut counted);
            }
        }
    } else {
        for (i, e) in events.iter().enumerate() {
            if !windows.contains(e.ts) {
                continue;
            }
            // Each group's time is that of its owner's range: a mapped
            // range, a leaf module call or a top-level op.
            if let Some((owner, key)) = group(i)
                && owner == i
            {
                add(owner, key, e.dur, &mut counted);
            }
        }
    }
    let per_step = steps.len().max(1) as f64;
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
        steps.len().max(1)
    );
    s.push_str(
        "# Module paths: Class[k] is the k-th call of a Class module inside its parent's call\n\
         # (ranges `nn.Module: ...` of with_stack=True); backward ops follow their forward op.\n\
         # An op in one rule matches whatever its shapes (they are in the comment).\n",
    );
    if rows.is_empty() {
        s.push_str("# no forward op with time in the trace\nrules = []\n");
        return s;
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
        let brick = t.brick.clone().unwrap_or_else(|| placeholder(key));
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
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_generalise_to_the_parent_class_and_the_call_place() {
        assert_eq!(
            generalise("TinyTransformer[0].Block[2].Attention[0].Linear[1]"),
            "*.Attention[*].Linear[1]"
        );
        assert_eq!(
            generalise("TinyTransformer[0].Linear[0]"),
            "TinyTransformer[*].Linear[0]"
        );
        assert_eq!(generalise("TinyTransformer[0]"), "TinyTransformer[0]");
        assert_eq!(
            generalise_all("TinyTransformer[0].Block[2].Attention[0]"),
            "*.Block[*].Attention[*]"
        );
        assert_eq!(
            generalise_all("TinyTransformer[0].Block[1]"),
            "TinyTransformer[*].Block[*]"
        );
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
