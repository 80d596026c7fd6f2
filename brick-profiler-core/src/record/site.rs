//! Brick call sites and the slot table.
//!
//! Every `#[brick]` call site is a `static` `BrickSite`, registered at link
//! time (see `record::registry`). Built-in bricks own slots `0..BrickId::COUNT`;
//! a custom name is interned into the next free slot the first time any of
//! its call sites runs, and the slot is cached in the site, so custom bricks
//! cost the same as built-in ones afterwards. Call sites and string-API names
//! that agree on a name share its slot, and the category an annotated call
//! site declares wins over the string API's default, whichever runs first.

use std::collections::HashMap;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use super::registry::{BrickSite, UNASSIGNED, linked};
use crate::catalogue::{BrickCategory, BrickId};

/// Slots per allocation unit of per-thread storage.
pub(crate) const CHUNK_SLOTS: usize = 16;
/// Most slots a process can have; the last one collects any overflow.
pub(crate) const MAX_SLOTS: usize = 16_384;
/// Slot that absorbs bricks once the table is full, so no time is lost.
pub(crate) const OVERFLOW_SLOT: u32 = MAX_SLOTS as u32 - 1;
/// Name under which overflowed bricks are reported.
pub(crate) const OVERFLOW_NAME: &str = "(slot table full)";

impl BrickSite {
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
        let slot = super::uncharged::uncharged(|| intern(self.name, self.category));
        self.slot.store(slot, Relaxed);
        slot
    }
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
    /// Categories annotated call sites declare for custom names, known at
    /// link time; they win over whatever category a caller of [`intern`]
    /// passes (the string API knows none).
    declared: HashMap<&'static str, BrickCategory>,
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
    let mut declared = HashMap::new();
    for site in linked() {
        // The first site in link order decides when two sites disagree.
        declared.entry(site.0.name).or_insert(site.0.category);
    }
    Mutex::new(SlotTable {
        slots,
        by_name,
        declared,
    })
});

fn table() -> std::sync::MutexGuard<'static, SlotTable> {
    // The table is only ever appended to under the lock; a panic cannot
    // leave it half-updated, so a poisoned lock is still consistent.
    TABLE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The slot for `name`: a built-in brick (aliases included), an existing
/// custom name, or a new slot with the category a call site declares for
/// the name, else `category`.
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
    let category = table.declared.get(name).copied().unwrap_or(category);
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

/// The name of `slot`, if it has one.
pub(crate) fn name_of(slot: u32) -> Option<Arc<str>> {
    table().slots.get(slot as usize).map(|m| m.name.clone())
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
            "without a call site, the first registration wins"
        );
        assert_eq!(lookup("site-test-fused"), Some(a));
        assert_eq!(lookup("site-test-never"), None);
    }

    #[test]
    fn a_call_site_category_wins_over_the_string_api() {
        static SITE: BrickSite =
            BrickSite::custom("site-test-declared", BrickCategory::Solver, "m", "f.rs", 1);
        crate::__profiler_register_site!(SITE);
        // The string API registers the name first, knowing no category.
        let slot = intern("site-test-declared", BrickCategory::Other);
        assert_eq!(SITE.slot(), slot);
        assert_eq!(all_slots()[slot as usize].category, BrickCategory::Solver);
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
