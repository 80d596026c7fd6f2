//! Brick call sites and the slot table.
//!
//! Every `#[brick]` call site is a `static` [`BrickSite`], registered at
//! link time (see `registry.rs`). Built-in bricks own slots `0..BrickId::COUNT`;
//! a custom name is interned into the next free slot the first time any of
//! its call sites runs, and the slot is cached in the site, so custom bricks
//! cost the same as built-in ones afterwards. Call sites and string-API names
//! that agree on a name share its slot.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use crate::catalogue::{BrickCategory, BrickId};

/// Slots per allocation unit of per-thread storage.
pub(crate) const CHUNK_SLOTS: usize = 16;
/// Most slots a process can have; the last one collects any overflow.
pub(crate) const MAX_SLOTS: usize = 16_384;
/// Slot that absorbs bricks once the table is full, so no time is lost.
pub(crate) const OVERFLOW_SLOT: u32 = MAX_SLOTS as u32 - 1;
/// Name under which overflowed bricks are reported.
pub(crate) const OVERFLOW_NAME: &str = "(slot table full)";
const UNASSIGNED: u32 = u32::MAX;

/// Static metadata of one annotated call site. Built by `#[brick]`; not
/// meant to be constructed by hand.
#[derive(Debug)]
pub struct BrickSite {
    name: &'static str,
    category: BrickCategory,
    module_path: &'static str,
    file: &'static str,
    line: u32,
    slot: AtomicU32,
}

impl BrickSite {
    /// A call site of a built-in brick.
    #[must_use]
    pub const fn builtin(
        id: BrickId,
        module_path: &'static str,
        file: &'static str,
        line: u32,
    ) -> Self {
        Self {
            name: id.name(),
            category: id.category(),
            module_path,
            file,
            line,
            slot: AtomicU32::new(id as u32),
        }
    }

    /// A call site of a custom brick named `name`.
    #[must_use]
    pub const fn custom(
        name: &'static str,
        category: BrickCategory,
        module_path: &'static str,
        file: &'static str,
        line: u32,
    ) -> Self {
        Self {
            name,
            category,
            module_path,
            file,
            line,
            slot: AtomicU32::new(UNASSIGNED),
        }
    }

    /// The site's slot, interning its name on first use.
    #[inline(always)]
    pub(crate) fn slot(&'static self) -> u32 {
        let slot = self.slot.load(Relaxed);
        if slot != UNASSIGNED {
            slot
        } else {
            self.assign_slot()
        }
    }

    #[cold]
    #[inline(never)]
    fn assign_slot(&self) -> u32 {
        let slot = intern(self.name, self.category);
        self.slot.store(slot, Relaxed);
        slot
    }

    pub(crate) fn info(&self) -> SiteInfo {
        SiteInfo {
            name: self.name.to_owned(),
            category: self.category,
            module_path: self.module_path.to_owned(),
            file: self.file.to_owned(),
            line: self.line,
        }
    }
}

/// Where a brick is annotated, as reported in a [`Profile`](crate::Profile).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SiteInfo {
    /// Brick name.
    pub name: String,
    /// Category the brick's time counts under.
    pub category: BrickCategory,
    /// `module_path!()` of the annotated function.
    pub module_path: String,
    /// Source file.
    pub file: String,
    /// Line of the attribute.
    pub line: u32,
}

/// What a slot stands for.
#[derive(Debug, Clone)]
pub(crate) struct SlotMeta {
    /// Shared, so snapshots copy a pointer rather than the name.
    pub(crate) name: Arc<str>,
    pub(crate) category: BrickCategory,
    /// Internal slots (overhead calibration) are never reported.
    pub(crate) hidden: bool,
}

struct SlotTable {
    slots: Vec<SlotMeta>,
    by_name: HashMap<Arc<str>, u32>,
}

static TABLE: LazyLock<Mutex<SlotTable>> = LazyLock::new(|| {
    let slots: Vec<SlotMeta> = BrickId::ALL
        .iter()
        .map(|id| SlotMeta {
            name: Arc::from(id.name()),
            category: id.category(),
            hidden: false,
        })
        .collect();
    let by_name = slots
        .iter()
        .enumerate()
        .map(|(i, m)| (m.name.clone(), i as u32))
        .collect();
    Mutex::new(SlotTable { slots, by_name })
});

fn table() -> std::sync::MutexGuard<'static, SlotTable> {
    // The table is only ever appended to under the lock; a panic cannot
    // leave it half-updated, so a poisoned lock is still consistent.
    TABLE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The slot for `name`: a built-in brick (aliases included), an existing
/// custom name, or a new slot with `category`.
pub(crate) fn intern(name: &str, category: BrickCategory) -> u32 {
    if let Some(id) = BrickId::from_str(name) {
        return id as u32;
    }
    intern_with(name, category, false)
}

/// Interns a slot that snapshots never report.
pub(crate) fn intern_hidden(name: &'static str) -> u32 {
    intern_with(name, BrickCategory::Other, true)
}

fn intern_with(name: &str, category: BrickCategory, hidden: bool) -> u32 {
    let mut table = table();
    if let Some(&slot) = table.by_name.get(name) {
        return slot;
    }
    if table.slots.len() >= OVERFLOW_SLOT as usize {
        if table.slots.len() == OVERFLOW_SLOT as usize {
            let meta = SlotMeta {
                name: Arc::from(OVERFLOW_NAME),
                category: BrickCategory::Other,
                hidden: false,
            };
            table.slots.push(meta);
        }
        return OVERFLOW_SLOT;
    }
    let slot = table.slots.len() as u32;
    let name: Arc<str> = Arc::from(name);
    table.slots.push(SlotMeta {
        name: name.clone(),
        category,
        hidden,
    });
    table.by_name.insert(name, slot);
    slot
}

/// The slot already holding `name`, without creating one.
pub(crate) fn lookup(name: &str) -> Option<u32> {
    if let Some(id) = BrickId::from_str(name) {
        return Some(id as u32);
    }
    table().by_name.get(name).copied()
}

/// A copy of every slot's metadata, indexed by slot.
pub(crate) fn all_slots() -> Vec<SlotMeta> {
    table().slots.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_and_aliases_keep_their_index() {
        assert_eq!(intern("RmsNorm", BrickCategory::Ffn), 0);
        assert_eq!(
            intern("SiLU", BrickCategory::Other),
            BrickId::Activation as u32
        );
        assert_eq!(lookup("LmHead"), Some(13));
    }

    #[test]
    fn custom_names_share_one_slot() {
        let a = intern("site-test-fused", BrickCategory::Attention);
        let b = intern("site-test-fused", BrickCategory::Other);
        assert_eq!(a, b);
        assert!(a as usize >= BrickId::COUNT);
        let meta = &all_slots()[a as usize];
        assert_eq!(&*meta.name, "site-test-fused");
        assert_eq!(
            meta.category,
            BrickCategory::Attention,
            "first registration wins"
        );
        assert_eq!(lookup("site-test-fused"), Some(a));
        assert_eq!(lookup("site-test-never"), None);
    }

    #[test]
    fn sites_cache_their_slot() {
        static SITE: BrickSite =
            BrickSite::custom("site-test-cached", BrickCategory::Other, "m", "f.rs", 1);
        let first = SITE.slot();
        assert_eq!(SITE.slot(), first);
        assert_eq!(lookup("site-test-cached"), Some(first));
    }
}
