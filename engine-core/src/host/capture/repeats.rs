//! Records written as repeats (from version 9): a record that
//! [repeats](TraceRecord::repeats) the last one about the same event and track with the
//! same decision is written as how far back that one is, the time between them and its
//! own object — no names, no numbers of the decision (a verdict's voice table is
//! written as for any verdict: the seats that changed, if any; a verdict that compared
//! another occupant than the earlier one names the seat it compared). A busy session
//! is mostly such records (the same footstep refused again and again against the same
//! full table, the same click started on the same voice), and they cost the capture's
//! thread a few comparisons instead of encoding the record.
//!
//! The capture's thread finds the earlier record by a key of the record's event, track,
//! kind and kind of decision ([`Repeats`]), among the records of the hand-over it is
//! writing and the one before ([`Window`]): it compares records it still holds, and
//! copies none (a copy would count references the engine counts too, see `writer`).
//! The reader has every record read so far, so any distance back reads.
//!
//! Repeats come in runs: a session that does the same things again does them in the
//! same order, so each record of a run is as far back and as long after its earlier
//! one as the one before it was. From version 10, a repeat as far back and as long
//! after as the last repeat of its frame, with no change of the voice table before
//! it, is written as just that ([`Entry::Like`]): its object (and the seat it compared,
//! if another than the earlier one's occupant: [`Entry::LikeAt`]).

use super::tables::{DeltaRef, TableDelta, TableWriter, each_with_delta, table_of};
use crate::runtime::hash::FastHasher;
use crate::runtime::objects::ObjectId;
use crate::runtime::trace::{Repetition, TraceRecord};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Serialize, Serializer};
use std::cell::RefCell;
use std::hash::{Hash, Hasher};
use std::ops::Range;
use std::sync::Arc;

/// One record of a records frame, as read (from version 9), after the change of the voice
/// table to apply first, if any (a verdict's table is the one that stands then).
#[derive(Debug, Deserialize)]
pub(super) enum Entry {
    /// A record in full.
    Full(Option<TableDelta>, TraceRecord),
    /// A record that repeats an earlier one.
    Again(Option<TableDelta>, Repeat),
    /// A record that repeats an earlier one as the last repeat of its frame did, for
    /// an object (from version 10).
    Like(ObjectNumber),
    /// The same, comparing the seat at that position of the voice table rather than the
    /// earlier one's occupant (from version 10).
    LikeAt(ObjectNumber, u32),
}

/// A record's object as one number: 0 for none, else one more than its zigzag
/// encoding (a [`Like`](Entry::Like) entry is this number alone).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct ObjectNumber(u64);

impl ObjectNumber {
    pub fn new(object: Option<ObjectId>) -> Self {
        Self(object.map_or(0, |id| u64::from((id << 1 ^ id >> 31) as u32) + 1))
    }

    /// The object it is for; a number out of range is an error.
    pub fn object(self) -> Result<Option<ObjectId>, String> {
        let Some(zigzag) = self.0.checked_sub(1) else {
            return Ok(None);
        };
        let zigzag = u32::try_from(zigzag)
            .map_err(|_| format!("an object number {} out of range", self.0))?;
        Ok(Some((zigzag >> 1) as i32 ^ -((zigzag & 1) as i32)))
    }
}

/// A record that repeats the one `back` records before it: that one again `after`
/// samples later, for `object` ([`TraceRecord::again`]) — and if `seat` is given, a
/// verdict that compared the seat at that position of the voice table (as it stands
/// with this entry's change) rather than the earlier one's occupant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Repeat {
    pub back: u64,
    pub after: u64,
    pub object: Option<ObjectId>,
    pub seat: Option<u32>,
}

impl Repeat {
    /// How `record`, at `position`, repeats `earlier`, at `at`, if it does.
    fn of(record: &TraceRecord, position: u64, earlier: &TraceRecord, at: u64) -> Option<Self> {
        let seat = match record.repeats(earlier) {
            Repetition::No => return None,
            Repetition::Exactly => None,
            Repetition::ButTheOccupant => Some(compared_seat(record)?),
        };
        Some(Self {
            back: position - at,
            after: record.time - earlier.time,
            object: record.object,
            seat,
        })
    }
}

/// The position in a verdict's voice table of the occupant it compared, if it is one
/// of its seats as it was then.
fn compared_seat(record: &TraceRecord) -> Option<u32> {
    let occupant = record.compared()?;
    let time = record.time.samples();
    let position = table_of(&record.what)?.seats().iter().position(|seat| {
        (seat.voice, seat.priority) == (occupant.voice, occupant.priority)
            && time.saturating_sub(seat.since.samples()) == occupant.age
            && Arc::ptr_eq(&seat.track, &occupant.track)
    })?;
    u32::try_from(position).ok()
}

/// An [`Entry`] as written.
#[derive(Serialize)]
enum EntryRef<'a> {
    Full(Option<DeltaRef<'a>>, &'a TraceRecord),
    Again(Option<DeltaRef<'a>>, Repeat),
    Like(ObjectNumber),
    LikeAt(ObjectNumber, u32),
}

/// The records the capture's thread still holds: the hand-over it writes and the one
/// before, each with the position in the capture of its first record.
#[derive(Clone, Copy)]
pub(super) struct Window<'a> {
    pub previous: &'a [TraceRecord],
    pub previous_start: u64,
    pub current: &'a [TraceRecord],
    pub current_start: u64,
}

impl<'a> Window<'a> {
    /// The record at `position`, if it is held.
    fn get(&self, position: u64) -> Option<&'a TraceRecord> {
        let at = |records: &'a [TraceRecord], start: u64| {
            position
                .checked_sub(start)
                .and_then(|i| records.get(usize::try_from(i).ok()?))
        };
        at(self.current, self.current_start).or_else(|| at(self.previous, self.previous_start))
    }
}

/// Places of [`Repeats`], in sets of [`WAYS`]; a power of two (the top bits of a key
/// pick a set).
const PLACES: usize = 1024;
/// Places a key may take within its set: a set of four keys and positions is one cache
/// line, and a few hundred keys (a busy session's events, tracks and decisions) seldom
/// meet five to a set.
const WAYS: usize = 4;
/// Sets of [`Repeats`].
const SETS: usize = PLACES / WAYS;

/// The position of the last record written with each key (event, track, kind, kind of
/// decision), in a set of places picked by the key: a key takes the place in its set
/// that was used longest ago, and a record whose key was pushed out of its set by
/// others is written in full.
pub(super) struct Repeats {
    /// `(key, position)`; key 0 marks an empty place.
    sets: Box<[[(u64, u64); WAYS]; SETS]>,
}

impl Default for Repeats {
    fn default() -> Self {
        Self {
            sets: Box::new([[(0, 0); WAYS]; SETS]),
        }
    }
}

impl Repeats {
    /// The position of the last record with `record`'s key, if it is known, after
    /// which `position` (`record`'s) is the last.
    fn last_like(&mut self, record: &TraceRecord, position: u64) -> Option<u64> {
        let key = key(record);
        let set = &mut self.sets[(key >> (u64::BITS - SETS.ilog2())) as usize];
        last_in_set(set, key, position)
    }
}

/// The position of the last record with `key` in `set`, if it is there, after which
/// `position` is the last; else `key` takes the place used longest ago.
fn last_in_set(set: &mut [(u64, u64); WAYS], key: u64, position: u64) -> Option<u64> {
    if let Some(place) = set.iter_mut().find(|(known, _)| *known == key) {
        return Some(std::mem::replace(&mut place.1, position));
    }
    // An empty place first; else, as positions only grow, the smallest is the place
    // used longest ago (the first record's position is 0 too, so an empty place is
    // told by its key).
    let age = |(known, position): (u64, u64)| (known != 0, position);
    let oldest = (1..WAYS).fold(0, |oldest, way| {
        if age(set[way]) < age(set[oldest]) {
            way
        } else {
            oldest
        }
    });
    set[oldest] = (key, position);
    None
}

/// A record's key: the addresses of its event's and track's names (the engine shares
/// one per name; two records about the same names have the same key, and two keys that
/// are alike only by chance just fail the comparison), its kind and its kind of
/// decision.
fn key(record: &TraceRecord) -> u64 {
    let address = |name: &Option<Arc<str>>| {
        name.as_ref()
            .map_or(0, |n| Arc::as_ptr(n).cast::<u8>() as usize)
    };
    let mut hasher = FastHasher::default();
    hasher.write_usize(address(&record.event));
    hasher.write_usize(address(&record.track));
    record.kind.hash(&mut hasher);
    std::mem::discriminant(&record.what).hash(&mut hasher);
    // Never 0, which marks an empty place.
    hasher.finish() | 1
}

/// What the capture's thread keeps between records frames.
#[derive(Default)]
pub(super) struct RecordState {
    pub tables: TableWriter,
    pub repeats: Repeats,
}

/// The records `range` of the window's current hand-over as one frame's entries: each
/// a repeat if it is one, else in full after the change of the voice table to write
/// before it. Serializing it moves the state on.
pub(super) struct EntriesRef<'a> {
    pub window: Window<'a>,
    pub range: Range<usize>,
    pub state: RefCell<&'a mut RecordState>,
}

impl Serialize for EntriesRef<'_> {
    /// As `Vec<Entry>`, the records' own tables left out (call it inside
    /// [`without_tables`](crate::runtime::trace::without_tables)).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut state = self.state.borrow_mut();
        let RecordState { tables, repeats } = &mut **state;
        let records = &self.window.current[self.range.clone()];
        let mut seq = serializer.serialize_seq(Some(records.len()))?;
        let mut position = self.window.current_start + self.range.start as u64;
        // The distance back and time after of the frame's last repeat.
        let mut last = None;
        each_with_delta(records, tables, |delta, record| {
            let repeat = repeats
                .last_like(record, position)
                .and_then(|at| Repeat::of(record, position, self.window.get(at)?, at));
            position += 1;
            match repeat {
                Some(Repeat {
                    back,
                    after,
                    object,
                    seat,
                }) if delta.is_none() && last == Some((back, after)) => {
                    let object = ObjectNumber::new(object);
                    seq.serialize_element(&match seat {
                        None => EntryRef::Like(object),
                        Some(seat) => EntryRef::LikeAt(object, seat),
                    })
                }
                Some(repeat) => {
                    last = Some((repeat.back, repeat.after));
                    seq.serialize_element(&EntryRef::Again(delta, repeat))
                }
                None => seq.serialize_element(&EntryRef::Full(delta, record)),
            }
        })?;
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_keeps_its_keys_until_a_fifth_pushes_out_the_one_used_longest_ago() {
        let mut set = [(0, 0); WAYS];
        // The first record (position 0) keeps its place when others come after it.
        assert_eq!(last_in_set(&mut set, 11, 0), None);
        assert_eq!(last_in_set(&mut set, 13, 1), None);
        assert_eq!(last_in_set(&mut set, 15, 2), None);
        assert_eq!(last_in_set(&mut set, 11, 3), Some(0));
        assert_eq!(last_in_set(&mut set, 17, 4), None);
        // Full: 13 (last at 1) was used longest ago and goes; 11, 15 and 17 stay.
        assert_eq!(last_in_set(&mut set, 19, 5), None);
        assert_eq!(last_in_set(&mut set, 13, 6), None);
        assert_eq!(last_in_set(&mut set, 17, 7), Some(4));
        assert_eq!(last_in_set(&mut set, 19, 8), Some(5));
        // 13 pushed out 15 (last at 2), the longest unused then.
        assert_eq!(last_in_set(&mut set, 11, 9), Some(3));
        assert_eq!(last_in_set(&mut set, 15, 10), None);
    }
}
