//! A record that repeats an earlier one: the same decision about the same event and
//! track, at a later time and perhaps for another object — the next refusal of a
//! footstep against the same full table, say. A compact capture writes such a record as
//! a reference to the earlier one with its time and object (`docs/capture.md`), which is
//! what most of a busy session's records are.
//!
//! A Box-X verdict's occupant (the lowest it was compared with, the victim it took the
//! voice from) carries its age, which grows with the time between the two: a repeat is
//! exact when that occupant is older by just that much (when another was compared, the
//! record repeats but for it, [`Repetition::ButTheOccupant`]). A join repeats the one
//! before it when it is another object joining the same copy: the owners are the
//! earlier ones and the object. The voice table a verdict saw
//! is left out of the comparison: a compact capture writes it apart, as the seats that
//! changed, for a repeat as for any verdict.

use super::{Occupant, TraceEvent, TraceRecord};
use crate::runtime::clock::SampleTime;
use crate::runtime::objects::ObjectId;
use std::sync::Arc;

/// How a record repeats an earlier one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repetition {
    /// Not at all.
    No,
    /// Exactly: `earlier.again(time, object)` is the record (its voice table apart).
    Exactly,
    /// In all but the occupant the verdict compared (another was lowest, or another
    /// the victim): `earlier.again(time, object)` with the record's
    /// [`compared`](TraceRecord::compared) occupant is the record.
    ButTheOccupant,
}

impl TraceRecord {
    /// Whether and how this record is `earlier` again: equal to it in everything but
    /// its time (not before `earlier`'s), its object and a verdict's voice table, the
    /// age of a verdict's occupant older by the time between them — or another
    /// occupant altogether ([`Repetition::ButTheOccupant`]).
    pub fn repeats(&self, earlier: &TraceRecord) -> Repetition {
        let Some(after) = self.time.samples().checked_sub(earlier.time.samples()) else {
            return Repetition::No;
        };
        let same = self.kind == earlier.kind
            && same_name(&self.event, &earlier.event)
            && same_name(&self.track, &earlier.track)
            && self.voice == earlier.voice
            && self.note == earlier.note;
        if !same {
            return Repetition::No;
        }
        same_but_older(&self.what, &earlier.what, after, self.object)
    }

    /// This record again at `time` (not before its own) for `object`: a verdict's
    /// occupant older by the time between, its voice table this record's (to replace
    /// with the one the repeat saw); a join, `object` joining the same copy (one more
    /// owner).
    pub fn again(&self, time: SampleTime, object: Option<ObjectId>) -> TraceRecord {
        let after = time.samples().saturating_sub(self.time.samples());
        let mut record = self.clone();
        record.time = time;
        record.object = object;
        if let Some(occupant) = compared_mut(&mut record.what) {
            occupant.age = occupant.age.saturating_add(after);
        }
        if let (
            TraceEvent::Joined {
                object: joined,
                owners,
                ..
            },
            Some(object),
        ) = (&mut record.what, object)
        {
            *joined = object;
            if let Err(at) = owners.binary_search(&object) {
                owners.insert(at, object);
            }
        }
        record
    }

    /// The occupant a Box-X verdict compared: the lowest playing for a refusal, the
    /// victim for a steal.
    pub fn compared(&self) -> Option<&Occupant> {
        match &self.what {
            TraceEvent::Refused { lowest, .. } => Some(lowest),
            TraceEvent::Stole { victim, .. } => Some(victim),
            _ => None,
        }
    }

    /// The occupant a Box-X verdict compared, to change.
    pub fn compared_mut(&mut self) -> Option<&mut Occupant> {
        compared_mut(&mut self.what)
    }
}

/// Whether both are the same shared name, or both none. (Two names alike but not
/// shared count as different: the comparison stays a few instructions, and a record
/// taken for different is written in full, which is never wrong.)
fn same_name(one: &Option<Arc<str>>, other: &Option<Arc<str>>) -> bool {
    match (one, other) {
        (Some(one), Some(other)) => Arc::ptr_eq(one, other),
        (None, None) => true,
        _ => false,
    }
}

/// The occupant a Box-X verdict names, whose age is the verdict's own.
fn compared_mut(what: &mut TraceEvent) -> Option<&mut Occupant> {
    match what {
        TraceEvent::Refused { lowest, .. } => Some(lowest),
        TraceEvent::Stole { victim, .. } => Some(victim),
        _ => None,
    }
}

/// Whether `later` (of a record for `object`) is `earlier` with its occupant `after`
/// samples older (a verdict's voice table apart), or with another occupant; or, for a
/// join, `object` joining the same copy.
fn same_but_older(
    later: &TraceEvent,
    earlier: &TraceEvent,
    after: u64,
    object: Option<ObjectId>,
) -> Repetition {
    use TraceEvent as E;
    match (later, earlier) {
        (
            E::Joined {
                object: joined,
                track,
                voice,
                owners,
            },
            E::Joined {
                track: track_then,
                voice: voice_then,
                owners: owners_then,
                ..
            },
        ) => {
            let again = object == Some(*joined)
                && voice == voice_then
                && Arc::ptr_eq(track, track_then)
                && one_more(owners, owners_then, *joined);
            if again {
                Repetition::Exactly
            } else {
                Repetition::No
            }
        }
        (
            E::Refused {
                track,
                priority,
                lowest,
                capacity,
                ..
            },
            E::Refused {
                track: track_then,
                priority: priority_then,
                lowest: lowest_then,
                capacity: capacity_then,
                ..
            },
        )
        | (
            E::Stole {
                track,
                priority,
                victim: lowest,
                capacity,
                ..
            },
            E::Stole {
                track: track_then,
                priority: priority_then,
                victim: lowest_then,
                capacity: capacity_then,
                ..
            },
        ) => {
            if (priority, capacity) != (priority_then, capacity_then)
                || !Arc::ptr_eq(track, track_then)
            {
                Repetition::No
            } else if older(lowest, lowest_then, after) {
                Repetition::Exactly
            } else {
                Repetition::ButTheOccupant
            }
        }
        // No other decision changes with time alone.
        _ if later == earlier => Repetition::Exactly,
        _ => Repetition::No,
    }
}

/// Whether `owners` are `earlier` with `object` among them, in order (as
/// [`TraceRecord::again`] adds it).
fn one_more(owners: &[ObjectId], earlier: &[ObjectId], object: ObjectId) -> bool {
    match earlier.binary_search(&object) {
        Ok(_) => owners == earlier,
        Err(at) => {
            owners.len() == earlier.len() + 1
                && owners[..at] == earlier[..at]
                && owners[at] == object
                && owners[at + 1..] == earlier[at..]
        }
    }
}

/// Whether `later` is `earlier`, `after` samples older.
fn older(later: &Occupant, earlier: &Occupant, after: u64) -> bool {
    (later.voice, later.priority) == (earlier.voice, earlier.priority)
        && earlier.age.checked_add(after) == Some(later.age)
        && Arc::ptr_eq(&later.track, &earlier.track)
}

/// A record of `object` joining the copy of the track `name` (its event of the same
/// name) on `voice`, with these `owners`: for tests.
#[cfg(test)]
pub(crate) fn joined(
    name: &Arc<str>,
    time: u64,
    object: ObjectId,
    voice: usize,
    owners: &[ObjectId],
) -> TraceRecord {
    let mut record = TraceRecord::new(
        SampleTime::from_samples(time),
        super::TraceKind::Voice,
        TraceEvent::Joined {
            object,
            track: Arc::clone(name),
            voice,
            owners: owners.to_vec(),
        },
    );
    record.event = Some(Arc::clone(name));
    record.track = Some(Arc::clone(name));
    record.object = Some(object);
    record
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::trace::{Seat, TraceKind, VoiceTable};

    thread_local! {
        /// The engine's shared names: a repeat is about the very same ones.
        static NAMES: (Arc<str>, Arc<str>) = (Arc::from("ui1"), Arc::from("loop"));
    }

    fn refusal(time: u64, object: ObjectId, age: u64) -> TraceRecord {
        let (name, held) = NAMES.with(Clone::clone);
        let seat = Seat {
            voice: 0,
            track: held,
            priority: 5,
            since: SampleTime::from_samples(100),
        };
        let mut record = TraceRecord::new(
            SampleTime::from_samples(time),
            TraceKind::Voice,
            TraceEvent::Refused {
                track: Arc::clone(&name),
                priority: 1,
                lowest: Occupant {
                    voice: 0,
                    track: Arc::clone(&seat.track),
                    priority: 5,
                    age,
                },
                occupants: VoiceTable::new(vec![seat]),
                capacity: 1,
            },
        );
        record.event = Some(Arc::clone(&name));
        record.track = Some(name);
        record.object = Some(object);
        record
    }

    #[test]
    fn a_refusal_later_for_another_object_repeats_with_its_occupant_older() {
        let first = refusal(1_000, 3, 900);
        let later = refusal(1_480, 4, 1_380);
        assert_eq!(later.repeats(&first), Repetition::Exactly);
        assert_eq!(first.again(later.time, later.object), later);
    }

    #[test]
    fn a_refusal_that_compared_another_occupant_repeats_but_for_it() {
        let first = refusal(1_000, 3, 900);
        let later = refusal(1_480, 4, 900);
        assert_eq!(later.repeats(&first), Repetition::ButTheOccupant);
        let mut again = first.again(later.time, later.object);
        assert_ne!(again, later);
        *again.compared_mut().unwrap() = later.compared().unwrap().clone();
        assert_eq!(again, later);
    }

    #[test]
    fn a_refusal_against_another_table_repeats_but_for_the_table() {
        let first = refusal(1_000, 3, 900);
        let mut later = refusal(1_480, 4, 1_380);
        if let TraceEvent::Refused { occupants, .. } = &mut later.what {
            *occupants = VoiceTable::default();
        }
        assert_eq!(later.repeats(&first), Repetition::Exactly);
        let mut again = first.again(later.time, later.object);
        assert_ne!(again, later);
        if let TraceEvent::Refused { occupants, .. } = &mut again.what {
            *occupants = VoiceTable::default();
        }
        assert_eq!(again, later);
    }

    #[test]
    fn what_differs_in_anything_else_does_not_repeat() {
        let first = refusal(1_000, 3, 900);
        let no = |record: TraceRecord| assert_eq!(record.repeats(&first), Repetition::No);
        // Before the first.
        no(refusal(900, 4, 800));
        let mut other = refusal(1_480, 4, 1_380);
        other.voice = Some(2);
        no(other);
        let mut other = refusal(1_480, 4, 1_380);
        if let TraceEvent::Refused { priority, .. } = &mut other.what {
            *priority = 2;
        }
        no(other);
        let mut other = refusal(1_480, 4, 1_380);
        other.what = TraceEvent::TrackStarted;
        no(other);
        // The same event by name, but not the engine's shared name.
        let mut other = refusal(1_480, 4, 1_380);
        other.event = Some(Arc::from("ui1"));
        no(other);
    }

    fn join(time: u64, object: ObjectId, owners: &[ObjectId]) -> TraceRecord {
        let (name, _) = NAMES.with(Clone::clone);
        joined(&name, time, object, 2, owners)
    }

    #[test]
    fn a_join_of_one_more_owner_to_the_same_copy_repeats() {
        let first = join(100, 4, &[1, 4]);
        for later in [join(200, 2, &[1, 2, 4]), join(200, 9, &[1, 4, 9])] {
            assert_eq!(later.repeats(&first), Repetition::Exactly);
            assert_eq!(first.again(later.time, later.object), later);
        }
        // An owner left, or another copy (another voice), or the owners not the
        // earlier ones and the object.
        let no = |later: TraceRecord| assert_eq!(later.repeats(&first), Repetition::No);
        no(join(200, 2, &[2, 4]));
        no(join(200, 2, &[1, 2, 3, 4]));
        no(join(200, 2, &[1, 4]));
        let mut other = join(200, 2, &[1, 2, 4]);
        if let TraceEvent::Joined { voice, .. } = &mut other.what {
            *voice = 3;
        }
        no(other);
        let mut other = join(200, 2, &[1, 2, 4]);
        other.object = Some(3);
        no(other);
    }

    #[test]
    fn a_decision_without_an_age_repeats_when_equal() {
        let mut first = TraceRecord::new(
            SampleTime::from_samples(10),
            TraceKind::Track,
            TraceEvent::TrackStarted,
        );
        first.object = Some(1);
        let mut later = first.clone();
        later.time = SampleTime::from_samples(20);
        later.object = None;
        assert_eq!(later.repeats(&first), Repetition::Exactly);
        later.what = TraceEvent::Ended(super::super::EndReason::Stolen);
        assert_eq!(later.repeats(&first), Repetition::No);
        later.what = TraceEvent::TrackStarted;
        assert_eq!(first.again(later.time, later.object), later);
    }
}
