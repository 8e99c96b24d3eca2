//! One fast hasher for the engine's own tables: names (events, samples, resources) and
//! ids (tracks, notes, objects, addresses).
//!
//! The keys come from the game's own data and code, not from the network, so a keyed
//! hash (std's SipHash with a random key per process) buys no safety here and costs
//! twice: tens of nanoseconds per lookup on the hot paths (a trigger, a cache hit), and
//! a different table layout in every process, so two runs of the same benchmark do not
//! even take the same time. [`FastHasher`] is FxHash's mixing, 8 bytes at a time, with
//! the high bits folded down at the end (addresses and many ids have low bits that are
//! always zero, and a table takes its slot from the low bits).

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A map keyed by names or ids, hashed with [`FastHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// A set of names or ids, hashed with [`FastHasher`].
pub type FastSet<K> = HashSet<K, BuildHasherDefault<FastHasher>>;

/// See the module docs.
#[derive(Debug, Default, Clone, Copy)]
pub struct FastHasher(u64);

impl FastHasher {
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(Self::SEED);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.add(u64::from_le_bytes(chunk.try_into().unwrap_or_default()));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            // Shifted in byte by byte: copied into a zeroed array, the few bytes cost a
            // call to `memcpy`, as much as the rest of the hash of a short name.
            let word = rest
                .iter()
                .rev()
                .fold(0u64, |word, &byte| (word << 8) | u64::from(byte));
            self.add(word ^ ((rest.len() as u64) << 59));
        }
    }

    #[inline]
    fn write_u8(&mut self, value: u8) {
        self.add(u64::from(value));
    }

    #[inline]
    fn write_u16(&mut self, value: u16) {
        self.add(u64::from(value));
    }

    #[inline]
    fn write_u32(&mut self, value: u32) {
        self.add(u64::from(value));
    }

    #[inline]
    fn write_u64(&mut self, value: u64) {
        self.add(value);
    }

    #[inline]
    fn write_usize(&mut self, value: usize) {
        self.add(value as u64);
    }

    #[inline]
    fn write_i32(&mut self, value: i32) {
        self.add(u64::from(value as u32));
    }

    #[inline]
    fn write_i64(&mut self, value: i64) {
        self.add(value as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    fn hash<T: std::hash::Hash + ?Sized>(value: &T) -> u64 {
        BuildHasherDefault::<FastHasher>::default().hash_one(value)
    }

    #[test]
    fn is_the_same_in_every_process_and_tells_keys_apart() {
        // Fixed: a table's layout must not depend on the process.
        assert_eq!(hash("footstep"), hash(&String::from("footstep")));
        assert_ne!(hash("footstep"), hash("footstep2"));
        // Short names that share a prefix or differ only in length.
        assert_ne!(hash("a"), hash("a\0"));
        assert_ne!(hash(&1u32), hash(&2u32));
    }

    #[test]
    fn spreads_aligned_addresses_over_the_low_bits() {
        // 256 64-byte-aligned addresses in a 256-slot table: without the fold they
        // would all share the slots whose low six bits are zero (4 of 256); spread as
        // by chance they take about 1 - 1/e of them (162).
        let slots: FastSet<u64> = (0..256usize)
            .map(|i| hash(&(0x7f00_0000_0000 + i * 64)) & 255)
            .collect();
        assert!(slots.len() >= 128, "only {} slots of 256", slots.len());
    }

    #[test]
    fn works_as_a_map() {
        let mut map: FastMap<u32, &str> = FastMap::default();
        for i in 0..1000 {
            map.insert(i, "x");
        }
        assert_eq!(map.len(), 1000);
        assert!((0..1000).all(|i| map.contains_key(&i)));
    }
}
