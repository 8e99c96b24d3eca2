//! How the trace's names — events, tracks, patches, samples, sounds — are written by
//! serde (`#[serde(with = "names")]` on each such field): in full, except while a
//! compact capture is written or read on this thread ([`Writing`], [`Reading`]). Then
//! a name is the index of its entry in the capture's name table, and each name is
//! written once, in a names frame before the first frame that uses it
//! (`docs/capture.md`).
//!
//! The writer knows a name by its address first — the engine shares one `Arc<str>` per
//! name, so almost every name is found without reading it — and by its text when an
//! address is new.

use crate::runtime::hash::FastMap;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cell::RefCell;
use std::sync::Arc;

thread_local! {
    static WRITING: RefCell<Option<NameWriter>> = const { RefCell::new(None) };
    static READING: RefCell<Option<Vec<Arc<str>>>> = const { RefCell::new(None) };
}

/// Addresses known at most before the writer forgets them (and the names it holds on
/// to for them), so a session that makes a new `Arc` for each record stays bounded.
const ADDRESSES: usize = 1 << 16;

/// While it lives, names written on this thread are indices into a capture's name
/// table, each name given the next index the first time it is seen.
#[derive(Debug)]
pub struct Writing {
    previous: Option<NameWriter>,
}

impl Writing {
    /// Starts a name table for what this thread writes next.
    pub fn start() -> Self {
        Self {
            previous: WRITING.replace(Some(NameWriter::default())),
        }
    }

    /// The names given an index since the last call, in index order: the names frame
    /// to write before what used them.
    pub fn take_new(&self) -> Vec<Arc<str>> {
        WRITING.with_borrow_mut(|table| {
            table
                .as_mut()
                .map(|table| std::mem::take(&mut table.new))
                .unwrap_or_default()
        })
    }
}

impl Drop for Writing {
    fn drop(&mut self) {
        WRITING.set(self.previous.take());
    }
}

/// While it lives, names read on this thread are indices into a capture's name table.
#[derive(Debug)]
pub struct Reading {
    previous: Option<Vec<Arc<str>>>,
}

impl Reading {
    /// Starts an empty name table for what this thread reads next.
    pub fn start() -> Self {
        Self {
            previous: READING.replace(Some(Vec::new())),
        }
    }

    /// Adds a names frame's names, in index order.
    pub fn define(&self, names: Vec<String>) {
        READING.with_borrow_mut(|table| {
            if let Some(table) = table.as_mut() {
                table.extend(names.into_iter().map(Arc::from));
            }
        });
    }
}

impl Drop for Reading {
    fn drop(&mut self) {
        READING.set(self.previous.take());
    }
}

/// Sets of [`NameWriter::recent`]; a power of two (the top bits of a hash pick one).
const RECENT: usize = 256;

/// Addresses met whose hash picks the same set, with their index, the one added last
/// first; one cache line. Address 0 (no `Arc` has it) marks an empty place.
#[derive(Debug, Clone, Copy)]
#[repr(align(64))]
struct Set([(usize, u32); 4]);

/// A name table as it is written.
#[derive(Debug)]
struct NameWriter {
    /// The addresses met last, with their index, in sets picked by a multiplicative
    /// hash of the address: most names of a record were in the records just before
    /// it, and this finds them without a map. A set holds four, so the few names of
    /// some hundred whose addresses fall in the same set all stay.
    recent: Box<[Set; RECENT]>,
    /// Index by the name's address. The `Arc`s in `pinned` keep these addresses from
    /// being reused for another name.
    by_address: FastMap<usize, u32>,
    pinned: Vec<Arc<str>>,
    /// Index by text.
    by_text: FastMap<Arc<str>, u32>,
    /// Names given an index since [`Writing::take_new`].
    new: Vec<Arc<str>>,
    /// How many times the addresses were forgotten ([`generation`]).
    forgotten: u64,
}

impl Default for NameWriter {
    fn default() -> Self {
        Self {
            recent: Box::new([Set([(0, 0); 4]); RECENT]),
            by_address: FastMap::default(),
            pinned: Vec::new(),
            by_text: FastMap::default(),
            new: Vec::new(),
            forgotten: 0,
        }
    }
}

impl NameWriter {
    /// Inlined where a name is written: a name met lately is a few instructions.
    #[inline]
    fn index(&mut self, name: &Arc<str>) -> u32 {
        let address = Arc::as_ptr(name).cast::<u8>() as usize;
        // The top bits of the product depend on every bit of the address (its low bits
        // alone fall on a few sets: allocations are aligned, names close together).
        let set = address.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (usize::BITS - RECENT.ilog2());
        let ways = &self.recent[set].0;
        for &(seen, index) in ways {
            if seen == address {
                return index;
            }
        }
        let index = self.index_of_new(name, address);
        let ways = &mut self.recent[set].0;
        ways.rotate_right(1);
        ways[0] = (address, index);
        index
    }

    /// The index of a name not in [`recent`](Self::recent).
    #[cold]
    #[inline(never)]
    fn index_of_new(&mut self, name: &Arc<str>, address: usize) -> u32 {
        if let Some(&index) = self.by_address.get(&address) {
            return index;
        }
        let next = self.by_text.len() as u32;
        let index = *self.by_text.entry(Arc::clone(name)).or_insert_with(|| {
            self.new.push(Arc::clone(name));
            next
        });
        if self.pinned.len() >= ADDRESSES {
            // Unpinned, an address may come back as another name's.
            self.recent.fill(Set([(0, 0); 4]));
            self.by_address.clear();
            self.pinned.clear();
            self.forgotten += 1;
        }
        self.by_address.insert(address, index);
        self.pinned.push(Arc::clone(name));
        index
    }
}

/// The index of `name` in the name table written on this thread (given one now, and
/// written with the next names frame, if it is new); `None` when no capture is written
/// here.
pub fn index_of(name: &Arc<str>) -> Option<u32> {
    WRITING.with_borrow_mut(|table| table.as_mut().map(|table| table.index(name)))
}

/// Changes each time the name table written on this thread forgets the addresses it
/// knew. Until it changes, every address given an index stays that name's (the table
/// holds on to the name), so two names at the same address are the same name.
pub fn generation() -> u64 {
    WRITING.with_borrow(|table| table.as_ref().map_or(0, |table| table.forgotten))
}

/// Writes a name (in full, or as an index while a capture is written on this thread).
pub fn serialize<S: Serializer>(name: &Arc<str>, serializer: S) -> Result<S::Ok, S::Error> {
    match index_of(name) {
        Some(index) => serializer.serialize_u32(index),
        None => serializer.serialize_str(name),
    }
}

/// Reads a name (in full, or as an index while a capture is read on this thread).
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Arc<str>, D::Error> {
    if READING.with_borrow(Option::is_none) {
        return String::deserialize(deserializer).map(Arc::from);
    }
    let index = u32::deserialize(deserializer)?;
    READING
        .with_borrow(|table| {
            table
                .as_ref()
                .and_then(|table| table.get(index as usize).cloned())
        })
        .ok_or_else(|| D::Error::custom(format!("name {index} is not in the name table")))
}

/// The same for a name that may be absent.
pub mod option {
    use super::*;

    /// A name, written as [`super::serialize`] does.
    struct Name<'a>(&'a Arc<str>);

    impl Serialize for Name<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            super::serialize(self.0, serializer)
        }
    }

    /// A name, read as [`super::deserialize`] does.
    struct Owned(Arc<str>);

    impl<'de> Deserialize<'de> for Owned {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            super::deserialize(deserializer).map(Owned)
        }
    }

    /// Writes a name that may be absent.
    pub fn serialize<S: Serializer>(
        name: &Option<Arc<str>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match name {
            Some(name) => serializer.serialize_some(&Name(name)),
            None => serializer.serialize_none(),
        }
    }

    /// Reads a name that may be absent.
    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Arc<str>>, D::Error> {
        Ok(Option::<Owned>::deserialize(deserializer)?.map(|owned| owned.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names whose addresses share a set, names met again after thousands of others,
    /// the same text at another address: each keeps the index it was first given, and
    /// each text is a new name once.
    #[test]
    fn a_name_keeps_its_index_however_many_names_come_between() {
        let writing = Writing::start();
        let names: Vec<Arc<str>> = (0..3000).map(|i| Arc::from(format!("track{i}"))).collect();
        let first: Vec<u32> = names.iter().map(|n| index_of(n).unwrap()).collect();
        assert_eq!(first, (0..3000).collect::<Vec<u32>>());
        for round in 0..3 {
            for (i, name) in names.iter().enumerate().rev().step_by(round + 1) {
                assert_eq!(index_of(name), Some(i as u32), "{name}");
            }
        }
        let again = Arc::from("track17");
        assert_eq!(index_of(&again), Some(17));
        let new = writing.take_new();
        assert_eq!(new.len(), 3000);
        assert_eq!(&*new[2999], "track2999");
        assert!(writing.take_new().is_empty());
        drop(writing);
        assert_eq!(index_of(&names[0]), None);
    }
}
