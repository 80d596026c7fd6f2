//! Output checksums per kernel call: a cheap FNV-1a fingerprint of the first
//! 64 output floats, tagged with kernel name, layer and position, so two runs
//! (CPU vs GPU, before vs after a change) can be compared key by key.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// FNV-1a 64-bit offset basis; also the checksum of an empty slice.
pub const FNV_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
/// FNV-1a 64-bit prime.
pub const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;
/// How many leading floats [`fnv1a_f32_checksum`] reads.
pub const CHECKSUM_FLOATS: usize = 64;
/// Default capacity of a [`ChecksumLog`].
pub const DEFAULT_CHECKSUM_CAPACITY: usize = 65_536;

/// FNV-1a 64 of `bytes`, continuing from `hash`.
#[inline]
fn fnv1a_continue(mut hash: u64, bytes: &[u8]) -> u64 {
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(FNV_PRIME);
    }
    hash
}

/// FNV-1a 64 of `bytes` (used for PTX source text).
#[must_use]
pub fn fnv1a_64(bytes: &[u8]) -> u64 {
    fnv1a_continue(FNV_OFFSET_BASIS, bytes)
}

/// FNV-1a 64 over the little-endian bytes of the first 64 floats of `data`
/// (all of them when there are fewer). Bit-exact: `-0.0` and `0.0`, or two
/// NaNs with different payloads, give different checksums.
#[inline]
#[must_use]
pub fn fnv1a_f32_checksum(data: &[f32]) -> u64 {
    let head = &data[..data.len().min(CHECKSUM_FLOATS)];
    head.iter().fold(FNV_OFFSET_BASIS, |hash, value| {
        fnv1a_continue(hash, &value.to_le_bytes())
    })
}

/// The checksum of one kernel call's output.
///
/// The key `(name, layer_idx, position)` identifies the call across runs;
/// `position` is the caller's sequence position (token index, step, ...).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct KernelChecksum {
    /// Kernel or brick name (a `&'static str` is stored without allocating).
    pub name: Cow<'static, str>,
    /// Layer index.
    pub layer_idx: u32,
    /// Sequence position.
    pub position: u64,
    /// [`fnv1a_f32_checksum`] of the output.
    pub checksum: u64,
}

impl KernelChecksum {
    /// A checksum computed elsewhere.
    pub fn new(
        name: impl Into<Cow<'static, str>>,
        layer_idx: u32,
        position: u64,
        checksum: u64,
    ) -> Self {
        Self {
            name: name.into(),
            layer_idx,
            position,
            checksum,
        }
    }

    /// The checksum of `output`.
    pub fn of(
        name: impl Into<Cow<'static, str>>,
        layer_idx: u32,
        position: u64,
        output: &[f32],
    ) -> Self {
        Self::new(name, layer_idx, position, fnv1a_f32_checksum(output))
    }

    /// The comparison key `(name, layer_idx, position)`.
    #[must_use]
    pub fn key(&self) -> (&str, u32, u64) {
        (&self.name, self.layer_idx, self.position)
    }
}

/// A bounded, append-only list of checksums in recording order, with a
/// count of what did not fit. One per thread or per run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChecksumLog {
    entries: Vec<KernelChecksum>,
    capacity: usize,
    dropped: u64,
}

impl Default for ChecksumLog {
    fn default() -> Self {
        Self::with_capacity(DEFAULT_CHECKSUM_CAPACITY)
    }
}

impl ChecksumLog {
    /// An empty log that keeps at most `capacity` entries. Memory grows
    /// with use; nothing is reserved up front.
    #[must_use]
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            entries: Vec::new(),
            capacity,
            dropped: 0,
        }
    }

    /// Appends `checksum`; returns `false` (and counts a drop) when full.
    pub fn record(&mut self, checksum: KernelChecksum) -> bool {
        if self.entries.len() >= self.capacity {
            self.dropped = self.dropped.saturating_add(1);
            return false;
        }
        self.entries.push(checksum);
        true
    }

    /// Appends `other`'s entries after this log's (its drops are added).
    pub fn append(&mut self, other: ChecksumLog) {
        self.dropped = self.dropped.saturating_add(other.dropped);
        for checksum in other.entries {
            self.record(checksum);
        }
    }

    /// Entries in recording order.
    #[must_use]
    pub fn entries(&self) -> &[KernelChecksum] {
        &self.entries
    }

    /// Entries refused because the log was full.
    #[must_use]
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The most entries kept.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Forgets every entry and the drop count; keeps the capacity.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.dropped = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FNV-1a 64 written out independently: offset basis, then for every
    /// byte of every float (little-endian) xor, then multiply by the prime.
    fn expected(floats: &[f32]) -> u64 {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for f in floats.iter().take(64) {
            for b in f.to_le_bytes() {
                hash ^= b as u64;
                hash = hash.wrapping_mul(0x100_0000_01b3);
            }
        }
        hash
    }

    #[test]
    fn empty_input_is_the_offset_basis() {
        assert_eq!(fnv1a_f32_checksum(&[]), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a_64(b""), 0xcbf2_9ce4_8422_2325);
    }

    #[test]
    fn one_float_matches_a_hand_derived_value() {
        // 1.0f32 = 0x3F800000, little-endian bytes 00 00 80 3F:
        // cbf29ce484222325 ^00 *prime = af63bd4c8601b7df
        // af63bd4c8601b7df ^00 *prime = 08328807b4eb6fed
        // 08328807b4eb6fed ^80 *prime = d94c92186c0e5637
        // d94c92186c0e5637 ^3f *prime = 4b72477f9c5c2f98
        assert_eq!(fnv1a_f32_checksum(&[1.0]), 0x4b72_477f_9c5c_2f98);
    }

    #[test]
    fn byte_hash_matches_the_published_test_vectors() {
        assert_eq!(fnv1a_64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a_64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn fewer_than_64_floats_hash_them_all() {
        let data: Vec<f32> = (0..17).map(|i| i as f32 * 0.37 - 2.0).collect();
        assert_eq!(fnv1a_f32_checksum(&data), expected(&data));
        let mut changed = data.clone();
        changed[16] = 99.0;
        assert_ne!(fnv1a_f32_checksum(&changed), fnv1a_f32_checksum(&data));
    }

    #[test]
    fn only_the_first_64_floats_count() {
        let data: Vec<f32> = (0..100).map(|i| i as f32).collect();
        let sum = fnv1a_f32_checksum(&data);
        assert_eq!(sum, expected(&data[..64]));
        assert_eq!(sum, fnv1a_f32_checksum(&data[..64]));
        let mut tail = data.clone();
        tail[64] = -1.0; // the 65th float
        assert_eq!(fnv1a_f32_checksum(&tail), sum);
        let mut last = data;
        last[63] = -1.0; // the 64th float
        assert_ne!(fnv1a_f32_checksum(&last), sum);
    }

    #[test]
    fn the_checksum_sees_bits_not_values() {
        assert_ne!(fnv1a_f32_checksum(&[0.0]), fnv1a_f32_checksum(&[-0.0]));
        let quiet = f32::from_bits(0x7fc0_0000);
        let payload = f32::from_bits(0x7fc0_0001);
        assert_ne!(fnv1a_f32_checksum(&[quiet]), fnv1a_f32_checksum(&[payload]));
        assert_eq!(fnv1a_f32_checksum(&[payload]), expected(&[payload]));
    }

    #[test]
    fn kernel_checksum_of_hashes_the_output() {
        let c = KernelChecksum::of("RmsNorm", 3, 7, &[1.0]);
        assert_eq!(c.key(), ("RmsNorm", 3, 7));
        assert_eq!(c.checksum, 0x4b72_477f_9c5c_2f98);
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(serde_json::from_str::<KernelChecksum>(&json).unwrap(), c);
    }

    #[test]
    fn a_full_log_counts_what_it_refuses() {
        let mut log = ChecksumLog::with_capacity(2);
        for pos in 0..5 {
            log.record(KernelChecksum::new("k", 0, pos, pos));
        }
        assert_eq!((log.entries().len(), log.dropped()), (2, 3));
        let mut other = ChecksumLog::with_capacity(2);
        other.record(KernelChecksum::new("k", 1, 0, 0));
        log.append(other);
        assert_eq!((log.entries().len(), log.dropped()), (2, 4));
        log.clear();
        assert_eq!(
            (log.entries().len(), log.dropped(), log.capacity()),
            (0, 0, 2)
        );
    }
}
