//! The names a walk over a trace hands its visitors by id: the trace's
//! texts, the bricks the mapping gave, and module paths, each held once.

use std::collections::HashMap;
use std::sync::Arc;

use crate::model::chrome_trace::MODULE_PREFIX;

/// Texts, bricks and module paths by id.
#[derive(Debug)]
pub(crate) struct Names<'t> {
    texts: &'t [Arc<str>],
    bricks: Interned,
    paths: Interned,
}

/// Strings by id, each held once.
#[derive(Debug, Default)]
struct Interned {
    list: Vec<String>,
    ids: HashMap<String, u32>,
}

impl Interned {
    fn id(&mut self, text: &str) -> u32 {
        if let Some(&id) = self.ids.get(text) {
            return id;
        }
        let id = u32::try_from(self.list.len()).unwrap_or(u32::MAX);
        self.list.push(text.to_owned());
        self.ids.insert(text.to_owned(), id);
        id
    }

    fn get(&self, id: u32) -> &str {
        self.list.get(id as usize).map_or("", String::as_str)
    }
}

impl<'t> Names<'t> {
    pub(crate) fn new(texts: &'t [Arc<str>]) -> Self {
        Self {
            texts,
            bricks: Interned::default(),
            paths: Interned::default(),
        }
    }

    /// A text of the trace (a name, thread or shapes).
    pub(crate) fn text(&self, id: u32) -> &'t str {
        self.texts.get(id as usize).map_or("", |t| t)
    }

    /// A brick name.
    pub(crate) fn brick(&self, id: u32) -> &str {
        self.bricks.get(id)
    }

    /// The id of brick `name`.
    pub(crate) fn brick_id(&mut self, name: &str) -> u32 {
        self.bricks.id(name)
    }

    /// A module path.
    pub(crate) fn path(&self, id: u32) -> &str {
        self.paths.get(id)
    }

    /// The id of module path `path`.
    pub(crate) fn path_id(&mut self, path: &str) -> u32 {
        self.paths.id(path)
    }
}

/// `Linear` of `nn.Module: Linear_5`: the class without the profiler's
/// instance counter.
pub(crate) fn module_class(name: &str) -> &str {
    let class = name.strip_prefix(MODULE_PREFIX).unwrap_or(name);
    match class.rsplit_once('_') {
        Some((head, n)) if !head.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => head,
        _ => class,
    }
}
