//! The resolutions of a layer's span callsites, found by metadata address
//! without taking a lock: entries are written once, under a lock, and read
//! with one acquire load; callsites past the table's room go to a locked map.

use std::collections::HashMap;
use std::ops::Deref;
use std::sync::atomic::{AtomicUsize, Ordering::Acquire, Ordering::Release};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock};

use tracing_core::Metadata;

use crate::plan::Plan;

/// Entries of the lock-free part: a model has tens of span callsites, so
/// this many are never nearly full (and cost 12 KiB per layer).
const ENTRIES: usize = 512;

/// One callsite: its metadata address (0 while free) and its resolution
/// (`None` for callsites that are not bricks), set before the address.
struct Entry {
    key: AtomicUsize,
    plan: OnceLock<Option<Box<Plan>>>,
}

/// A callsite's resolution, borrowed from the table or shared with the
/// overflow map.
pub(crate) enum PlanRef<'a> {
    /// A plan of the lock-free part, and its entry there.
    Table(&'a Plan, u32),
    Shared(Arc<Plan>),
}

impl Deref for PlanRef<'_> {
    type Target = Plan;

    fn deref(&self) -> &Plan {
        match self {
            PlanRef::Table(plan, _) => plan,
            PlanRef::Shared(plan) => plan,
        }
    }
}

/// Resolutions by callsite.
pub(crate) struct PlanTable {
    /// A power of two of entries.
    entries: Box<[Entry]>,
    /// Most callsites kept lock-free (three quarters of the entries); the
    /// rest go to the overflow map, so a probe always meets a free entry soon.
    most: usize,
    /// Serialises writers; readers never take it.
    writing: Mutex<usize>,
    overflow: RwLock<HashMap<usize, Option<Arc<Plan>>>>,
}

impl std::fmt::Debug for PlanTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let held = *self.writing.lock().unwrap_or_else(PoisonError::into_inner);
        f.debug_struct("PlanTable")
            .field("callsites", &held)
            .finish()
    }
}

impl PlanTable {
    /// An empty table.
    pub(crate) fn new() -> Self {
        Self::with_entries(ENTRIES)
    }

    /// An empty table of `entries` lock-free entries (rounded up to a power
    /// of two).
    fn with_entries(entries: usize) -> Self {
        let entries = entries.next_power_of_two();
        Self {
            most: entries * 3 / 4,
            entries: (0..entries)
                .map(|_| Entry {
                    key: AtomicUsize::new(0),
                    plan: OnceLock::new(),
                })
                .collect(),
            writing: Mutex::new(0),
            overflow: RwLock::new(HashMap::new()),
        }
    }

    /// The resolution of the callsite of `meta`, made with `resolve` the
    /// first time the callsite is seen. `None` when it is not a brick.
    #[inline]
    pub(crate) fn get_or_resolve(
        &self,
        meta: &'static Metadata<'static>,
        resolve: impl FnOnce() -> Option<Plan>,
    ) -> Option<PlanRef<'_>> {
        let key = std::ptr::from_ref(meta).addr();
        if let Some(found) = self.find(key) {
            return found;
        }
        let mut held = self.writing.lock().unwrap_or_else(PoisonError::into_inner);
        // Another thread may have resolved it while this one waited.
        if let Some(found) = self.find(key) {
            return found;
        }
        let plan = resolve();
        if *held >= self.most {
            let mut overflow = self
                .overflow
                .write()
                .unwrap_or_else(PoisonError::into_inner);
            let shared = overflow
                .entry(key)
                .or_insert_with(|| plan.map(Arc::new))
                .clone();
            return shared.map(PlanRef::Shared);
        }
        let mut at = self.home(key);
        // Fewer than `most` entries are taken, so a free one exists.
        while self.entries[at].key.load(Acquire) != 0 {
            at = (at + 1) % self.entries.len();
        }
        let entry = &self.entries[at];
        let _ = entry.plan.set(plan.map(Box::new));
        // Published after the plan: a reader that sees the key sees it.
        entry.key.store(key, Release);
        *held += 1;
        entry
            .plan
            .get()?
            .as_deref()
            .map(|plan| PlanRef::Table(plan, at as u32))
    }

    /// The plan in entry `at` of the lock-free part (from
    /// [`PlanRef::Table`]), if it holds one.
    #[inline]
    pub(crate) fn at(&self, at: u32) -> Option<&Plan> {
        self.entries.get(at as usize)?.plan.get()?.as_deref()
    }

    /// The first entry probed for the callsite at address `key`: metadata
    /// are statics at least 8 bytes apart, so the low bits say little.
    #[inline]
    fn home(&self, key: usize) -> usize {
        // Fibonacci hashing: the top bits of the product are well mixed.
        let mixed = (key as u64 >> 3).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (mixed >> (64 - self.entries.len().trailing_zeros())) as usize
    }

    /// The resolution of the callsite at `key`, if it was resolved: the
    /// outer `None` means not seen yet.
    #[inline]
    fn find(&self, key: usize) -> Option<Option<PlanRef<'_>>> {
        let mut at = self.home(key);
        loop {
            let entry = &self.entries[at];
            match entry.key.load(Acquire) {
                0 => break,
                k if k == key => {
                    return entry
                        .plan
                        .get()
                        .map(|plan| plan.as_deref().map(|plan| PlanRef::Table(plan, at as u32)));
                }
                _ => at = (at + 1) % self.entries.len(),
            }
        }
        let overflow = self.overflow.read().unwrap_or_else(PoisonError::into_inner);
        if overflow.is_empty() {
            return None;
        }
        overflow
            .get(&key)
            .map(|plan| plan.clone().map(PlanRef::Shared))
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::rule::SpanTiming;

    /// The metadata of five span callsites and one event callsite.
    fn callsites() -> Vec<&'static Metadata<'static>> {
        let subscriber = tracing_subscriber::registry();
        tracing::subscriber::with_default(subscriber, || {
            let spans = [
                tracing::info_span!("first"),
                tracing::info_span!("second"),
                tracing::info_span!("third"),
                tracing::info_span!("fourth"),
                tracing::info_span!("fifth"),
            ];
            spans.iter().filter_map(tracing::Span::metadata).collect()
        })
    }

    #[test]
    fn each_callsite_is_resolved_once_in_the_table_or_past_it() {
        let metas = callsites();
        assert_eq!(metas.len(), 5);
        // Four entries: three callsites lock-free, the other two overflow.
        let table = PlanTable::with_entries(4);
        let resolved = Cell::new(0);
        let get = |meta| {
            table
                .get_or_resolve(meta, || {
                    resolved.set(resolved.get() + 1);
                    Plan::resolve(meta, &[], &[], SpanTiming::Entered)
                })
                .map(|plan| (plan.site.name(), matches!(plan, PlanRef::Table(..))))
        };
        let first: Vec<_> = metas.iter().map(|&m| get(m)).collect();
        let again: Vec<_> = metas.iter().map(|&m| get(m)).collect();
        assert_eq!(resolved.get(), 5, "once per callsite");
        assert_eq!(first, again);
        assert_eq!(
            first,
            [
                Some(("first", true)),
                Some(("second", true)),
                Some(("third", true)),
                Some(("fourth", false)),
                Some(("fifth", false)),
            ]
        );
    }
}
