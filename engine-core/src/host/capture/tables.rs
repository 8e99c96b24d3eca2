//! A Box-X verdict's voice table, written as what changed. Box-X verdicts (`Stole`,
//! `Refused`) carry the whole voice table, and consecutive verdicts see the same table
//! or almost. So the table is not written in each record (a record's tables are written
//! empty): the encoder keeps the table as last written ([`TableWriter`]) and, with a
//! verdict that saw another, writes a [`TableDelta`] with the seats that changed (next
//! to the record, or in a frame before it). The decoder keeps the same table
//! ([`Tables`]) and gives it back to each verdict (shared), so a capture reads back
//! exactly as it was recorded.

use crate::runtime::clock::SampleTime;
use crate::runtime::trace::names;
use crate::runtime::trace::{Seat, TraceEvent, TraceRecord, VoiceTable};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};
use std::sync::Arc;

/// How the voice table changed since the last verdict: its new length and the seats
/// (by position) that differ.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct TableDelta {
    len: usize,
    changed: Vec<(usize, Seat)>,
}

impl TableDelta {
    /// The seats it writes.
    #[cfg(test)]
    pub fn seats(&self) -> impl Iterator<Item = &Seat> {
        self.changed.iter().map(|(_, seat)| seat)
    }
}

/// The voice table as last read.
#[derive(Debug, Default)]
pub(super) struct Tables {
    last: VoiceTable,
}

/// The voice table of a Box-X verdict.
fn table_mut(what: &mut TraceEvent) -> Option<&mut VoiceTable> {
    match what {
        TraceEvent::Stole { occupants, .. } | TraceEvent::Refused { occupants, .. } => {
            Some(occupants)
        }
        _ => None,
    }
}

/// The voice table of a Box-X verdict, to read.
pub(super) fn table_of(what: &TraceEvent) -> Option<&VoiceTable> {
    match what {
        TraceEvent::Stole { occupants, .. } | TraceEvent::Refused { occupants, .. } => {
            Some(occupants)
        }
        _ => None,
    }
}

/// A seat as last written: its name by the capture's name index, and by the address of
/// the engine's shared name, which finds an unchanged seat without looking the name up.
#[derive(Debug, Clone, Copy)]
struct Written {
    voice: usize,
    address: usize,
    name: u32,
    priority: i32,
    since: SampleTime,
}

/// The voice table as last written, seat by seat — the writer's side of [`Tables`]. It
/// runs on the capture's thread and holds no part of the engine's tables (no reference
/// count of theirs is written there): it compares each verdict's table with what it
/// wrote last, by value.
#[derive(Debug, Clone, Default)]
pub(super) struct TableWriter {
    last: Vec<Written>,
    /// The name table's [`generation`](names::generation) the addresses in `last` are
    /// of: until it changes, the same address is the same name.
    generation: u64,
    /// The seats that changed at the last verdict, by position.
    changed: Vec<usize>,
}

impl TableWriter {
    /// If `record` is a verdict that saw another table than the last one written, the
    /// change to write before it. Call it while the capture's names are written (it
    /// gives new names their index).
    pub fn delta<'a>(&'a mut self, record: &'a TraceRecord) -> Option<DeltaRef<'a>> {
        let seats = table_of(&record.what)?.seats();
        let generation = names::generation();
        if generation != self.generation {
            self.generation = generation;
            self.last.iter_mut().for_each(|seat| seat.address = 0);
        }
        self.changed.clear();
        for (index, seat) in seats.iter().enumerate() {
            let address = Arc::as_ptr(&seat.track).cast::<u8>() as usize;
            let known = self.last.get(index);
            // The same address is the same name; another is looked up once.
            let name = match known {
                Some(last) if last.address == address => last.name,
                _ => names::index_of(&seat.track).unwrap_or(u32::MAX),
            };
            let written = Written {
                voice: seat.voice,
                address,
                name,
                priority: seat.priority,
                since: seat.since,
            };
            let same = known.is_some_and(|last| {
                (last.voice, last.name, last.priority, last.since)
                    == (written.voice, name, written.priority, written.since)
            });
            if same {
                continue;
            }
            self.changed.push(index);
            // Positions past the old table's end all changed, so they come in order.
            match self.last.get_mut(index) {
                Some(last) => *last = written,
                None => self.last.push(written),
            }
        }
        if self.changed.is_empty() && seats.len() == self.last.len() {
            return None;
        }
        self.last.truncate(seats.len());
        Some(DeltaRef {
            seats,
            changed: &self.changed,
        })
    }
}

/// A [`TableDelta`] as written: the seats at the positions that changed, borrowed.
pub(super) struct DeltaRef<'a> {
    seats: &'a [Seat],
    changed: &'a [usize],
}

impl Serialize for DeltaRef<'_> {
    /// As [`TableDelta`]: the length, then the (position, seat) pairs.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Changed<'a>(&'a DeltaRef<'a>);
        impl Serialize for Changed<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let DeltaRef { seats, changed } = self.0;
                serializer.collect_seq(changed.iter().map(|&index| (index, &seats[index])))
            }
        }
        let mut delta = serializer.serialize_struct("TableDelta", 2)?;
        delta.serialize_field("len", &self.seats.len())?;
        delta.serialize_field("changed", &Changed(self))?;
        delta.end()
    }
}

/// Calls `each` with every record in turn and the change of the voice table to write
/// before it, if it is a verdict that saw another table than the last one written.
pub(super) fn each_with_delta<E>(
    records: &[TraceRecord],
    tables: &mut TableWriter,
    mut each: impl FnMut(Option<DeltaRef<'_>>, &TraceRecord) -> Result<(), E>,
) -> Result<(), E> {
    // A verdict that saw the very table the verdict before it among these saw (still
    // held by that record, so no other table has its address) changes nothing: its
    // seats are not read again.
    let mut last: Option<&VoiceTable> = None;
    for record in records {
        let table = table_of(&record.what);
        let seen = matches!((table, last), (Some(t), Some(l)) if t.same(l));
        each(if seen { None } else { tables.delta(record) }, record)?;
        last = table.or(last);
    }
    Ok(())
}

impl Tables {
    /// Applies a delta read from the file; a seat out of place is an error.
    pub fn apply(&mut self, delta: TableDelta) -> Result<(), String> {
        let mut seats: Vec<Seat> = self.last.seats().iter().take(delta.len).cloned().collect();
        for (index, seat) in delta.changed {
            if index < seats.len() {
                seats[index] = seat;
            } else if index == seats.len() && index < delta.len {
                seats.push(seat);
            } else {
                return Err(format!(
                    "a voice-table change at seat {index} of a table of {} seats",
                    delta.len
                ));
            }
        }
        if seats.len() != delta.len {
            return Err(format!(
                "a voice table of {} seats with {} of them given",
                delta.len,
                seats.len()
            ));
        }
        self.last = VoiceTable::new(seats);
        Ok(())
    }

    /// Gives a verdict read back as a repeat the occupant it compared: the seat at
    /// `position` of the table as it stands, as it was at the record's time.
    pub fn compare(&self, record: &mut TraceRecord, position: u32) -> Result<(), String> {
        let seats = self.last.seats();
        let seat = usize::try_from(position)
            .ok()
            .and_then(|position| seats.get(position))
            .ok_or_else(|| {
                format!(
                    "a repeat compared seat {position} of a voice table of {} seats",
                    seats.len()
                )
            })?;
        let time = record.time;
        let occupant = record
            .compared_mut()
            .ok_or("a repeat names the seat compared by a record that compares none")?;
        *occupant = seat.at(time);
        Ok(())
    }

    /// Gives a verdict read back the table as it stands (shared, not copied).
    pub fn fill(&self, record: &mut TraceRecord) {
        if let Some(table) = table_mut(&mut record.what) {
            *table = self.last.clone();
        }
    }
}
