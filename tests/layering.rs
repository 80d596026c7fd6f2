//! Imports inside each crate run one way, in the layer order that
//! `docs/LAYERS.md` documents in its `layers` block: a module uses
//! only modules listed below it in its parent, and no two modules use each
//! other. Paths in code and in doc links count; unit-test modules may reach
//! anywhere.
//!
//! The block has one section per crate (`crate <dir>`), then one indented
//! line per layer of the crate's top-level modules, bottom first; modules on
//! one line are peers that must not use each other. `name(a < b, c < d)`
//! lists a folder module's files (or subfolders, nested the same way)
//! bottom first, `,` separating peers. A module may use its own children;
//! a child never uses an item of its parent.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The modules of one folder: name -> (level, its own children).
#[derive(Debug, Default, Clone)]
struct Tree {
    children: BTreeMap<String, (usize, Tree)>,
}

fn specs() -> BTreeMap<String, Tree> {
    let doc = include_str!("../docs/LAYERS.md");
    let block = doc
        .split("```layers\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("docs/LAYERS.md has a ```layers block");
    let mut specs = BTreeMap::new();
    let mut current: Option<(String, Vec<String>)> = None;
    for line in block.lines().filter(|l| !l.trim().is_empty()) {
        if let Some(dir) = line.strip_prefix("crate ") {
            if let Some((name, layers)) = current.take() {
                specs.insert(name, parse_levels(&layers.join("<")));
            }
            current = Some((dir.trim().to_owned(), Vec::new()));
        } else {
            let (_, layers) = current.as_mut().expect("a `crate` line first");
            layers.push(line.trim().to_owned());
        }
    }
    if let Some((name, layers)) = current {
        specs.insert(name, parse_levels(&layers.join("<")));
    }
    specs
}

/// Parses `a, b(x < y) < c`: levels split by `<`, peers by `,`.
fn parse_levels(text: &str) -> Tree {
    let mut tree = Tree::default();
    for (level, peers) in split_top(text, '<').into_iter().enumerate() {
        for peer in split_top(peers, ',') {
            let peer = peer.trim();
            if peer.is_empty() {
                continue;
            }
            let (name, children) = match peer.split_once('(') {
                Some((name, rest)) => (name.trim(), parse_levels(&rest[..rest.len() - 1])),
                None => (peer, Tree::default()),
            };
            tree.children.insert(name.to_owned(), (level, children));
        }
    }
    tree
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
                start = i + c.len_utf8();
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

/// Every path a file names through `crate::` or `super::`, resolved to
/// segments from the crate root (`{a, b::c}` groups expanded one level).
fn references(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let segments = |s: &str| -> Vec<String> {
        let mut out = Vec::new();
        let mut rest = s;
        loop {
            let ident: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if ident.is_empty() {
                break;
            }
            rest = &rest[ident.len()..];
            out.push(ident);
            match rest.strip_prefix("::") {
                Some(r) if !r.starts_with('{') => rest = r,
                _ => break,
            }
        }
        out
    };
    let mut refs = Vec::new();
    for prefix in ["crate::", "super::"] {
        for (i, _) in code.match_indices(prefix) {
            let before = &code[..i];
            // `$crate::` in a `macro_rules!` body is generated code's path.
            if before.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
                continue;
            }
            // A `super::super::` chain is handled from its first `super`.
            if prefix == "super::" && before.ends_with("super::") {
                continue;
            }
            let mut base: Vec<String> = if prefix == "crate::" {
                Vec::new()
            } else {
                // `super` from inside an inline `mod x { .. }` is the file's
                // own module first.
                let inline = inline_modules_open(before);
                module[..(module.len() + inline).saturating_sub(1).min(module.len())].to_vec()
            };
            let mut rest = &code[i + prefix.len()..];
            while let Some(r) = rest.strip_prefix("super::") {
                base.pop();
                rest = r;
            }
            let head = segments(rest);
            let tail = &rest[head
                .iter()
                .map(|s| s.len() + 2)
                .sum::<usize>()
                .min(rest.len())..];
            if let Some(group) = tail.strip_prefix('{').or_else(|| rest.strip_prefix('{')) {
                let group = &group[..group.find('}').unwrap_or(group.len())];
                for item in group.split(',') {
                    let mut path = base.clone();
                    path.extend(head.iter().cloned());
                    path.extend(segments(item.trim()));
                    refs.push(path);
                }
            } else {
                let mut path = base;
                path.extend(head);
                refs.push(path);
            }
        }
    }
    refs
}

/// How many inline `mod name { .. }` blocks are open at the end of `code`.
fn inline_modules_open(code: &str) -> usize {
    let mut depth = 0usize;
    let mut opened: Vec<usize> = Vec::new();
    let bytes = code.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'{' => {
                let head = code[..i].trim_end();
                let is_mod = head
                    .rsplit(|c: char| c.is_whitespace())
                    .nth(1)
                    .is_some_and(|w| w == "mod");
                depth += 1;
                if is_mod {
                    opened.push(depth);
                }
            }
            b'}' => {
                if opened.last() == Some(&depth) {
                    opened.pop();
                }
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
    }
    opened.len()
}

/// Why `from` (a module path) may not name `to` (a path from the root), if
/// it may not. `#[macro_export]` helpers (`crate::__name`) live at the root
/// wherever they are defined, and are exempt.
fn violation(tree: &Tree, from: &[String], to: &[String]) -> Option<String> {
    if to.first().is_some_and(|s| s.starts_with("__")) {
        return None;
    }
    let mut folder = tree;
    for depth in 0..from.len() {
        let target = to.get(depth)?;
        if *target == from[depth] {
            folder = &folder.children.get(target)?.1;
            continue;
        }
        let mine = folder.children.get(&from[depth]);
        let theirs = folder.children.get(target);
        return match (mine, theirs) {
            (Some((mine, _)), Some((theirs, _))) if theirs >= mine => Some(format!(
                "`{}` uses `{}`, which is not listed below `{}`",
                from.join("::"),
                to[..=depth].join("::"),
                from[depth]
            )),
            (Some(_), None) => Some(format!(
                "`{}` uses `{}` from its parent; name the module it lives in",
                from.join("::"),
                to[..=depth].join("::")
            )),
            _ => None,
        };
    }
    None
}

/// Checks that every module of `src` is in `tree`, at any depth.
fn unlisted(tree: &Tree, module: &[String]) -> Option<String> {
    let mut folder = tree;
    for (depth, name) in module.iter().enumerate() {
        match folder.children.get(name) {
            Some((_, children)) => folder = children,
            // Files below a listed leaf are its own business only if it
            // lists no children at all.
            None if folder.children.is_empty() && depth > 0 => return None,
            None => return Some(module[..=depth].join("::")),
        }
    }
    None
}

/// Violations of the layer order in one crate's `src`.
fn check_crate(dir: &str, tree: &Tree) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut problems = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).expect("under src");
        let mut module: Vec<String> = rel
            .components()
            .map(|c| {
                c.as_os_str()
                    .to_string_lossy()
                    .trim_end_matches(".rs")
                    .to_owned()
            })
            .collect();
        if module.last().is_some_and(|m| m == "mod") {
            module.pop();
        }
        if matches!(module.as_slice(), [m] if m == "lib" || m == "main") {
            continue;
        }
        if let Some(missing) = unlisted(tree, &module) {
            problems.push(format!(
                "{dir}: module `{missing}` is missing from the layers block"
            ));
            continue;
        }
        let text = std::fs::read_to_string(file).expect("readable source");
        let code = text
            .find("#[cfg(test)]\nmod ")
            .map_or(text.as_str(), |i| &text[..i]);
        for to in references(code, &module) {
            if let Some(why) = violation(tree, &module, &to) {
                problems.push(format!("{dir}/src/{}: {why}", rel.display()));
            }
        }
    }
    problems.sort();
    problems.dedup();
    problems
}

#[test]
fn every_crate_imports_one_way_in_the_documented_layers() {
    let specs = specs();
    assert!(
        specs.contains_key("brick-profiler-core") && specs.contains_key("brick-profiler-report"),
        "the layers block covers both crates: {specs:?}"
    );
    let problems: Vec<String> = specs
        .iter()
        .flat_map(|(dir, tree)| check_crate(dir, tree))
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_checker_sees_upward_and_parent_imports() {
    let tree = parse_levels("low < high(a < b(x < y) < c)");
    let path = |p: &str| p.split("::").map(str::to_owned).collect::<Vec<_>>();
    let module = path("high::b::x");
    let refs = references(
        "use crate::{high::c, low};\nuse super::y;\n/// [`q`](super::super::a::q)",
        &module,
    );
    assert_eq!(
        refs,
        [
            path("high::c"),
            path("low"),
            path("high::b::y"),
            path("high::a::q")
        ]
    );
    let verdicts: Vec<bool> = refs
        .iter()
        .map(|to| violation(&tree, &module, to).is_some())
        .collect();
    assert_eq!(verdicts, [true, false, true, false]);
    assert!(violation(&tree, &path("high::c"), &path("high::helper")).is_some());
    assert!(violation(&tree, &path("high"), &path("high::c::Thing")).is_none());
    assert!(violation(&tree, &path("low"), &path("high")).is_some());
    assert_eq!(
        unlisted(&tree, &path("high::d")),
        Some("high::d".to_owned())
    );
    assert_eq!(unlisted(&tree, &path("low::anything")), None);
    let inline = references("mod simd {\n    use super::K;\n}\n", &module);
    assert_eq!(
        inline,
        [path("high::b::x::K")],
        "super inside an inline module"
    );
}
