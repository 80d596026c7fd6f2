//! Names of counter series (`profiler::counter("loss", v)`): a global table
//! gives each name an id, and a per-thread cache keyed by the name's address
//! makes the lookup a few compares for the `&'static str`s call sites pass.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, MutexGuard, PoisonError};

/// Most counter series a process can have; samples of later names are
/// dropped and counted.
pub(crate) const MAX_SERIES: usize = 4096;

#[derive(Default)]
struct Table {
    names: Vec<&'static str>,
    ids: HashMap<&'static str, u32>,
}

static TABLE: LazyLock<Mutex<Table>> = LazyLock::new(Mutex::default);

fn table() -> MutexGuard<'static, Table> {
    // Only ever appended to under the lock: a poisoned lock is consistent.
    TABLE.lock().unwrap_or_else(PoisonError::into_inner)
}

thread_local! {
    /// (address, length, id) of the names this thread has used.
    static CACHE: RefCell<Vec<(usize, usize, u32)>> = const { RefCell::new(Vec::new()) };
}

/// The id of the series `name`; `None` once the table is full.
#[inline]
pub(crate) fn id(name: &'static str) -> Option<u32> {
    let key = (name.as_ptr() as usize, name.len());
    let cached = CACHE
        .try_with(|c| {
            c.borrow()
                .iter()
                .find(|&&(p, l, _)| (p, l) == key)
                .map(|&(.., id)| id)
        })
        .ok()
        .flatten();
    cached.or_else(|| intern(name, key))
}

#[cold]
#[inline(never)]
fn intern(name: &'static str, key: (usize, usize)) -> Option<u32> {
    let mut table = table();
    let id = match table.ids.get(name) {
        Some(&id) => id,
        None if table.names.len() < MAX_SERIES => {
            let id = table.names.len() as u32;
            table.names.push(name);
            table.ids.insert(name, id);
            id
        }
        None => return None,
    };
    drop(table);
    let _ = CACHE.try_with(|c| c.borrow_mut().push((key.0, key.1, id)));
    Some(id)
}

/// The name of series `id`.
pub(crate) fn name(id: u32) -> Option<&'static str> {
    table().names.get(id as usize).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_names_share_an_id_whatever_their_address() {
        let a = id("series-test-loss").expect("room");
        let owned = String::from("series-test-loss");
        let leaked: &'static str = Box::leak(owned.into_boxed_str());
        assert_eq!(id(leaked), Some(a));
        assert_ne!(id("series-test-other"), Some(a));
        assert_eq!(name(a), Some("series-test-loss"));
    }
}
