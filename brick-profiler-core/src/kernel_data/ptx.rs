//! PTX registry: maps the FNV-1a 64 hash of a kernel's PTX source text to
//! its name and file, so kernel nodes (which carry only the hash) can be
//! named and traced back to the code that produced them.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::checksum::fnv1a_64;

/// The hash a [`PtxRegistry`] files `source` under: FNV-1a 64 of its UTF-8 bytes.
#[must_use]
pub fn ptx_hash(source: &str) -> u64 {
    fnv1a_64(source.as_bytes())
}

/// What is known about one PTX source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PtxEntry {
    /// Name given at the first registration.
    pub name: String,
    /// File given at the first registration (lossy UTF-8).
    #[serde(default)]
    pub path: Option<String>,
    /// Other names the same source was registered under, in order.
    #[serde(default)]
    pub aliases: Vec<String>,
}

/// PTX hash -> name and file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PtxRegistry {
    entries: BTreeMap<u64, PtxEntry>,
}

impl PtxRegistry {
    /// An empty registry.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Files `source` under its hash and returns the hash. The first
    /// registration's name and path stay; a later, different name for the
    /// same source is kept as an alias.
    pub fn register(&mut self, source: &str, name: &str, path: Option<&Path>) -> u64 {
        let hash = ptx_hash(source);
        match self.entries.get_mut(&hash) {
            Some(entry) => {
                if entry.name != name && !entry.aliases.iter().any(|a| a == name) {
                    entry.aliases.push(name.to_owned());
                }
            }
            None => {
                self.entries.insert(
                    hash,
                    PtxEntry {
                        name: name.to_owned(),
                        path: path.map(|p| p.to_string_lossy().into_owned()),
                        aliases: Vec::new(),
                    },
                );
            }
        }
        hash
    }

    /// The entry for `hash`.
    #[must_use]
    pub fn get(&self, hash: u64) -> Option<&PtxEntry> {
        self.entries.get(&hash)
    }

    /// The name registered for `hash`.
    #[must_use]
    pub fn name_of(&self, hash: u64) -> Option<&str> {
        self.get(hash).map(|e| e.name.as_str())
    }

    /// Registered sources.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is registered.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Entries by ascending hash.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &PtxEntry)> {
        self.entries.iter().map(|(&h, e)| (h, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GEMM: &str = ".version 8.0\n.target sm_90\n.entry gemm() { ret; }\n";

    #[test]
    fn the_hash_is_fnv1a_of_the_source_bytes() {
        assert_eq!(ptx_hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(ptx_hash("a"), 0xaf63_dc4c_8601_ec8c);
        assert_ne!(ptx_hash(GEMM), ptx_hash(&GEMM.replace("sm_90", "sm_80")));
    }

    #[test]
    fn register_maps_the_hash_to_name_and_path() {
        let mut r = PtxRegistry::new();
        let h = r.register(GEMM, "gemm", Some(Path::new("kernels/gemm.ptx")));
        assert_eq!(h, ptx_hash(GEMM));
        assert_eq!(r.name_of(h), Some("gemm"));
        assert_eq!(r.get(h).unwrap().path.as_deref(), Some("kernels/gemm.ptx"));
        assert_eq!(r.name_of(h ^ 1), None);
    }

    #[test]
    fn the_first_registration_stays_and_other_names_become_aliases() {
        let mut r = PtxRegistry::new();
        let h = r.register(GEMM, "gemm", None);
        r.register(GEMM, "gemm_alias", Some(Path::new("other.ptx")));
        r.register(GEMM, "gemm_alias", None);
        r.register(GEMM, "gemm", None);
        let e = r.get(h).unwrap();
        assert_eq!((e.name.as_str(), e.path.as_deref()), ("gemm", None));
        assert_eq!(e.aliases, ["gemm_alias"]);
        assert_eq!(r.len(), 1);
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(serde_json::from_str::<PtxRegistry>(&json).unwrap(), r);
    }
}
