//! Imports inside each crate run one way, in the layer order that
//! `docs/ARCHITECTURE.md` documents in its `layers` block: a module uses
//! only modules of lower layers, a file inside a folder module uses only
//! files listed before it, and no two modules use each other. Paths in
//! code and in doc links count; unit-test modules may reach anywhere.
//!
//! The block has one section per crate (`crate <dir>`), then one indented
//! line per layer, bottom first. Modules on one line are peers and must not
//! use each other; `name(a < b, c < d)` lists a folder module's files
//! bottom first, `,` separating peers. `mod.rs` may use all its files;
//! a file never uses its parent `mod.rs`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One crate's layers: module -> (layer, file -> level within the folder).
#[derive(Debug, Default)]
struct Spec {
    modules: BTreeMap<String, (usize, BTreeMap<String, usize>)>,
}

fn specs() -> BTreeMap<String, Spec> {
    let doc = include_str!("../docs/ARCHITECTURE.md");
    let block = doc
        .split("```layers\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("docs/ARCHITECTURE.md has a ```layers block");
    let mut specs = BTreeMap::new();
    let mut current: Option<(String, Spec, usize)> = None;
    for line in block.lines().filter(|l| !l.trim().is_empty()) {
        if let Some(dir) = line.strip_prefix("crate ") {
            if let Some((name, spec, _)) = current.take() {
                specs.insert(name, spec);
            }
            current = Some((dir.trim().to_owned(), Spec::default(), 0));
            continue;
        }
        let (_, spec, layer) = current.as_mut().expect("a `crate` line first");
        for module in split_top(line.trim(), ',') {
            let (name, files) = match module.split_once('(') {
                Some((name, files)) => (name.trim(), files.trim_end_matches(')')),
                None => (module.trim(), ""),
            };
            let mut levels = BTreeMap::new();
            for (level, peers) in files.split('<').enumerate() {
                for file in peers.split(',').map(str::trim).filter(|f| !f.is_empty()) {
                    levels.insert(file.to_owned(), level);
                }
            }
            spec.modules.insert(name.to_owned(), (*layer, levels));
        }
        *layer += 1;
    }
    if let Some((name, spec, _)) = current {
        specs.insert(name, spec);
    }
    specs
}

/// Splits on `sep` outside parentheses.
fn split_top(s: &str, sep: char) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            c if c == sep && depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `(first, second)` path segments after each `prefix` (`crate::`, `super::`),
/// expanding `{a::b, c}` groups one level.
fn references(code: &str, prefix: &str) -> Vec<(String, Option<String>)> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let path = |s: &str| -> (String, Option<String>) {
        let first = ident(s);
        let second = s[first.len()..].strip_prefix("::").map(ident);
        (first, second.filter(|s| !s.is_empty()))
    };
    let mut refs = Vec::new();
    for (i, _) in code.match_indices(prefix) {
        if code[..i].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &code[i + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            refs.extend(group.split(',').map(|item| path(item.trim())));
        } else {
            refs.push(path(rest));
        }
    }
    refs
}

/// Violations of the layer order in one crate's `src`.
fn check_crate(dir: &str, spec: &Spec) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut problems = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).expect("under src");
        let parts: Vec<String> = rel
            .components()
            .map(|c| {
                c.as_os_str()
                    .to_string_lossy()
                    .trim_end_matches(".rs")
                    .to_owned()
            })
            .collect();
        let top = parts[0].clone();
        if top == "lib" || top == "main" {
            continue;
        }
        let Some((layer, levels)) = spec.modules.get(&top) else {
            problems.push(format!(
                "{dir}: module `{top}` is missing from the layers block"
            ));
            continue;
        };
        // The file's unit inside its folder: `mod`, a file, or a subfolder.
        let unit = parts.get(1).cloned();
        if let Some(unit) = unit.as_deref().filter(|u| *u != "mod")
            && !levels.contains_key(unit)
        {
            problems.push(format!(
                "{dir}: `{top}/{unit}` is missing from the layers block"
            ));
            continue;
        }
        let text = std::fs::read_to_string(file).expect("readable source");
        let code = text
            .find("#[cfg(test)]\nmod tests")
            .map_or(text.as_str(), |i| &text[..i]);
        let at = rel.display();
        for (module, item) in references(code, "crate::") {
            if module == top {
                if let (Some(unit), Some(item)) = (unit.as_deref(), item.as_deref()) {
                    check_sibling(&mut problems, &at, &top, unit, item, levels);
                }
                continue;
            }
            match spec.modules.get(&module) {
                Some((other, _)) if other >= layer => problems.push(format!(
                    "{dir}/src/{at}: `{top}` uses `{module}`, which is not in a layer below it"
                )),
                _ => {}
            }
        }
        // `super::` from a file directly inside the folder names a sibling.
        if parts.len() == 2
            && let Some(unit) = unit.as_deref()
            && unit != "mod"
        {
            for (item, _) in references(code, "super::") {
                check_sibling(&mut problems, &at, &top, unit, &item, levels);
            }
        }
    }
    problems
}

fn check_sibling(
    problems: &mut Vec<String>,
    at: &impl std::fmt::Display,
    top: &str,
    unit: &str,
    item: &str,
    levels: &BTreeMap<String, usize>,
) {
    if unit == "mod" || item == unit || item == "super" {
        return;
    }
    match (levels.get(unit), levels.get(item)) {
        (Some(mine), Some(theirs)) if theirs >= mine => problems.push(format!(
            "{at}: `{top}/{unit}` uses `{top}/{item}`, which is not listed below it"
        )),
        (Some(_), None) => problems.push(format!(
            "{at}: `{top}/{unit}` uses `{item}` from its parent module; name the file it lives in"
        )),
        _ => {}
    }
}

#[test]
fn every_crate_imports_one_way_in_the_documented_layers() {
    let specs = specs();
    assert!(
        specs.contains_key("profiler-core"),
        "the layers block covers profiler-core: {specs:?}"
    );
    let problems: Vec<String> = specs
        .iter()
        .flat_map(|(dir, spec)| check_crate(dir, spec))
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_checker_sees_upward_imports() {
    let spec = Spec {
        modules: BTreeMap::from([
            ("low".to_owned(), (0, BTreeMap::new())),
            ("high".to_owned(), (1, BTreeMap::new())),
        ]),
    };
    let refs = references(
        "use crate::{high::X, low};\n/// [`y`](crate::low::y)",
        "crate::",
    );
    assert_eq!(
        refs,
        [
            ("high".to_owned(), Some("X".to_owned())),
            ("low".to_owned(), None),
            ("low".to_owned(), Some("y".to_owned())),
        ]
    );
    let layer = |m: &str| spec.modules[m].0;
    assert!(layer("high") > layer("low"));
    let levels = BTreeMap::from([("a".to_owned(), 0), ("b".to_owned(), 1)]);
    let mut problems = Vec::new();
    check_sibling(&mut problems, &"x", "m", "a", "b", &levels);
    check_sibling(&mut problems, &"x", "m", "b", "a", &levels);
    check_sibling(&mut problems, &"x", "m", "a", "helper", &levels);
    assert_eq!(problems.len(), 2, "{problems:?}");
}
