//! The texts a trace's records point at (names, threads, shapes), each held
//! once, within a bound: past [`MAX_TEXT_BYTES`] a new name is read as
//! [`OTHER_NAMES`] and a new shape as absent, both counted, so a trace of
//! millions of distinct names costs the bound, not its names.

use std::collections::HashMap;
use std::sync::Arc;

/// Bytes of distinct texts held (64 MiB, each text counted with
/// [`TEXT_OVERHEAD`]): some 250,000 kernel names of 200 characters. A
/// realistic trace holds a few thousand distinct texts.
pub(crate) const MAX_TEXT_BYTES: usize = 64 << 20;

/// Bytes a held text costs besides its characters: its shared header, its
/// place in the list and in the table that finds it.
pub(crate) const TEXT_OVERHEAD: usize = 64;

/// Distinct threads (`pid/tid`) held; a trace with more is refused, as
/// threads cannot be merged without nesting one thread's events in
/// another's. A process has a few dozen.
pub(crate) const MAX_THREADS: usize = 1 << 16;

/// The name events get once the bound is reached.
pub const OTHER_NAMES: &str = "(other names)";

/// The limits of a [`Texts`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct TextLimits {
    /// Bytes of names and shapes held (texts and overhead).
    pub(crate) bytes: usize,
    /// Distinct threads held.
    pub(crate) threads: usize,
}

impl Default for TextLimits {
    fn default() -> Self {
        Self {
            bytes: MAX_TEXT_BYTES,
            threads: MAX_THREADS,
        }
    }
}

/// Texts by id, each held once, within [`TextLimits`].
#[derive(Debug, Default)]
pub(crate) struct Texts {
    texts: Vec<Arc<str>>,
    ids: HashMap<Arc<str>, u32>,
    limits: TextLimits,
    /// Bytes held, overhead included.
    bytes: usize,
    threads: usize,
    /// The id of [`OTHER_NAMES`], once used.
    other: Option<u32>,
    /// Names read as [`OTHER_NAMES`].
    pub(crate) lumped_names: u64,
    /// Shapes left out.
    pub(crate) dropped_shapes: u64,
}

impl Texts {
    pub(crate) fn new(limits: TextLimits) -> Self {
        Self {
            limits,
            ..Self::default()
        }
    }

    /// The id of the event name `text`: its own while the bound allows (or
    /// when already held), else that of [`OTHER_NAMES`].
    pub(crate) fn name(&mut self, text: &str) -> u32 {
        if let Some(id) = self.held(text) {
            return id;
        }
        if self.fits(text) {
            return self.add(text);
        }
        self.lumped_names += 1;
        match self.other {
            Some(id) => id,
            None => {
                let id = self
                    .held(OTHER_NAMES)
                    .unwrap_or_else(|| self.add(OTHER_NAMES));
                self.other = Some(id);
                id
            }
        }
    }

    /// The id of the shape `text`, when held or within the bound.
    pub(crate) fn shape(&mut self, text: &str) -> Option<u32> {
        if let Some(id) = self.held(text) {
            return Some(id);
        }
        if self.fits(text) {
            return Some(self.add(text));
        }
        self.dropped_shapes += 1;
        None
    }

    /// The id of the thread named `text`; `None` past the thread limit.
    /// Threads are held past the byte bound (their own limit bounds them).
    pub(crate) fn thread(&mut self, text: &str) -> Option<u32> {
        if let Some(id) = self.held(text) {
            return Some(id);
        }
        if self.threads >= self.limits.threads {
            return None;
        }
        self.threads += 1;
        Some(self.add(text))
    }

    /// Distinct threads held at most.
    pub(crate) fn thread_limit(&self) -> usize {
        self.limits.threads
    }

    /// Texts held, for tests of the bound.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.texts.len()
    }

    /// The texts by id.
    pub(crate) fn into_texts(self) -> Vec<Arc<str>> {
        self.texts
    }

    fn held(&self, text: &str) -> Option<u32> {
        self.ids.get(text).copied()
    }

    fn fits(&self, text: &str) -> bool {
        self.bytes + text.len() + TEXT_OVERHEAD <= self.limits.bytes
    }

    fn add(&mut self, text: &str) -> u32 {
        // Below u32::MAX: the byte bound and the thread limit hold far fewer.
        let id = u32::try_from(self.texts.len()).unwrap_or(u32::MAX - 1);
        let t: Arc<str> = Arc::from(text);
        self.texts.push(Arc::clone(&t));
        self.ids.insert(t, id);
        self.bytes += text.len() + TEXT_OVERHEAD;
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_bound_names_are_lumped_and_shapes_dropped_but_held_ones_stay() {
        let mut t = Texts::new(TextLimits {
            bytes: 10 * (TEXT_OVERHEAD + 4),
            threads: 2,
        });
        let names: Vec<u32> = (0..20).map(|i| t.name(&format!("op{i:02}"))).collect();
        // Ten fit; the other ten share one id, that of `(other names)`.
        assert_eq!(names[..10], (0..10).collect::<Vec<_>>()[..]);
        assert!(names[10..].iter().all(|&id| id == 10));
        assert_eq!(t.lumped_names, 10);
        assert_eq!(t.name("op03"), 3, "a held name keeps its id");
        assert_eq!(t.shape("[4, 4]"), None);
        assert_eq!(t.dropped_shapes, 1);
        assert_eq!(
            (t.thread("1/1"), t.thread("1/2"), t.thread("1/3")),
            (Some(11), Some(12), None)
        );
        assert_eq!(t.thread("1/1"), Some(11));
        assert_eq!(t.len(), 13);
        assert_eq!(&*t.into_texts()[10], OTHER_NAMES);
    }
}
