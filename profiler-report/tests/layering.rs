//! The crate's modules import one way, bottom to top, in the layer order
//! documented at the top of `src/lib.rs`: a module may use modules of its
//! own layer or below, never above (paths `crate::x` in code and doc links).
//! Unit-test modules are exempt: they may reach anywhere.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Bottom to top; modules in one layer may use each other one way only.
const LAYERS: &[&[&str]] = &[
    &["escape", "json", "error", "write"],
    &["hardware"],
    &["trace"],
    &["scorecard"],
    &["export"],
    &["html"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
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

/// Top-level modules named by `crate::x` paths outside `#[cfg(test)] mod tests`.
fn references(text: &str) -> Vec<String> {
    let code = text
        .find("#[cfg(test)]\nmod tests")
        .map_or(text, |i| &text[..i]);
    let mut refs = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            for item in group.split(',') {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                    .collect();
                refs.push(name);
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            refs.push(name);
        }
    }
    refs
}

#[test]
fn modules_import_only_from_layers_below() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut uses: BTreeMap<(String, String), PathBuf> = BTreeMap::new();
    let mut violations = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).expect("under src");
        let top = rel
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .map(|s| s.trim_end_matches(".rs").to_owned())
            .expect("a file name");
        if top == "lib" {
            continue;
        }
        let from = layer_of(&top).unwrap_or_else(|| panic!("module `{top}` is in no layer"));
        let text = std::fs::read_to_string(file).expect("readable source");
        for target in references(&text) {
            let Some(to) = layer_of(&target) else {
                continue; // an item of the crate root, not a module
            };
            if target == top {
                continue;
            }
            if to > from {
                violations.push(format!(
                    "{}: `{top}` uses `{target}` above it",
                    rel.display()
                ));
            }
            uses.insert((top.clone(), target), rel.to_path_buf());
        }
    }
    for ((a, b), file) in &uses {
        if let Some(other) = uses.get(&(b.clone(), a.clone())) {
            violations.push(format!(
                "`{a}` and `{b}` use each other ({} and {})",
                file.display(),
                other.display()
            ));
        }
    }
    assert!(violations.is_empty(), "{violations:#?}");
}

#[test]
fn the_reference_scan_finds_paths_and_groups() {
    let refs = references(
        "use crate::trace::X;\nuse crate::{escape, json::message};\n[a](crate::html::Y)\n#[cfg(test)]\nmod tests { use crate::html; }",
    );
    assert_eq!(refs, ["trace", "escape", "json", "html"]);
}
