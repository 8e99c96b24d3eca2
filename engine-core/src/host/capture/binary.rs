//! The compact encoding of a capture: a magic, then frames — a little-endian `u32`
//! length and that many bytes of one postcard-encoded [`Frame`]. The first frame is the
//! header.
//!
//! The records handed over together are one frame ([`RecordsRef`]; a frame of its own
//! per record should that be too long, as version 7 wrote them all).
//!
//! Box-X verdicts (`Stole`, `Refused`) carry the whole voice table, and consecutive
//! verdicts see the same table or almost. So the table is not written in each record
//! (a record's tables are written empty): the encoder keeps the table as last written
//! ([`TableWriter`]) and, with a verdict that saw another, writes a [`TableDelta`]
//! with the seats that changed (next to the record, or in a frame before it). The decoder keeps the same table and gives it back
//! to each verdict (shared), so a capture reads back exactly as it was recorded.
//!
//! Names (events, tracks, patches, samples) are written once: a names frame gives the
//! next entries of the capture's name table before the first frame that uses them, and
//! frames refer to a name by its index ([`names`](crate::runtime::trace::names)).

use super::{Assembler, Capture, CaptureError, Header, Line, MAX_FRAME_BYTES, MAX_HEADER_BYTES};
use crate::host::keyframe::Keyframe;
use crate::runtime::clock::SampleTime;
use crate::runtime::trace::names::{self, Reading};
use crate::runtime::trace::{Seat, TraceEvent, TraceRecord, VoiceTable};
use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Deserialize, Serialize, Serializer};
use std::cell::RefCell;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

/// The first bytes of a compact capture. (A capture in JSON lines starts with `{`.)
pub const MAGIC: &[u8; 8] = b"hbcap\0\r\n";

/// One frame, as written (borrowing) — the variants line up with [`Frame`]'s, which is
/// how postcard tells them apart.
#[derive(Serialize)]
pub(super) enum FrameRef<'a> {
    Header(&'a Header),
    Input { seconds: f64, command: &'a str },
    Record(&'a TraceRecord),
    Table(DeltaRef<'a>),
    End { at: SampleTime },
    Keyframe(&'a Keyframe),
    Names(&'a [Arc<str>]),
    Records(RecordsRef<'a>),
}

/// One frame, as read.
#[derive(Deserialize)]
pub(super) enum Frame {
    Header(Header),
    Input { seconds: f64, command: String },
    Record(TraceRecord),
    Table(TableDelta),
    End { at: SampleTime },
    Keyframe(Box<Keyframe>),
    Names(Vec<String>),
    Records(Vec<(Option<TableDelta>, TraceRecord)>),
}

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

/// Records written as one frame (from version 8): each with the change of the voice
/// table to apply before it, if it is a verdict that saw another table than the last
/// one written. Serializing it moves `tables` on, as writing each record's frame would.
pub(super) struct RecordsRef<'a> {
    pub records: &'a [TraceRecord],
    pub tables: RefCell<&'a mut TableWriter>,
}

impl Serialize for RecordsRef<'_> {
    /// As `Vec<(Option<TableDelta>, TraceRecord)>`, the records' own tables left out
    /// (call it inside [`without_tables`](crate::runtime::trace::without_tables)).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut tables = self.tables.borrow_mut();
        let mut seq = serializer.serialize_seq(Some(self.records.len()))?;
        each_with_delta(self.records, &mut tables, |delta, record| {
            seq.serialize_element(&(delta, record))
        })?;
        seq.end()
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

    /// Gives a verdict read back the table as it stands (shared, not copied).
    pub fn fill(&self, record: &mut TraceRecord) {
        if let Some(table) = table_mut(&mut record.what) {
            *table = self.last.clone();
        }
    }
}

/// Reads the frames after the magic. A file cut off in the middle of a frame (a session
/// that never finished) reads as a capture without its end.
pub(super) fn read(path: &Path, mut reader: impl Read) -> Result<Capture, CaptureError> {
    let mut assembler = Assembler::default();
    let mut table = Tables::default();
    // From version 7 on, names after the header are indices into the name table.
    let mut names: Option<Reading> = None;
    let mut offset = MAGIC.len() as u64;
    let mut buffer = Vec::new();
    let mut frame = 0;
    let bad = |frame: usize, offset: u64, why: String| CaptureError::BadFrame {
        path: path.to_path_buf(),
        frame,
        offset,
        why,
    };
    let io = |source| CaptureError::Io {
        path: path.to_path_buf(),
        source,
    };
    loop {
        frame += 1;
        let mut len = [0; 4];
        if read_full(&mut reader, &mut len).map_err(io)? < len.len() {
            break;
        }
        let len = u32::from_le_bytes(len) as usize;
        let limit = if frame == 1 {
            MAX_HEADER_BYTES
        } else {
            MAX_FRAME_BYTES
        };
        if len > limit {
            return Err(bad(
                frame,
                offset,
                format!("a frame of {len} bytes; at most {limit} are allowed"),
            ));
        }
        buffer.resize(len, 0);
        if read_full(&mut reader, &mut buffer).map_err(io)? < len {
            break;
        }
        let (decoded, rest) = postcard::take_from_bytes::<Frame>(&buffer)
            .map_err(|e| bad(frame, offset, format!("not a capture frame: {e}")))?;
        if !rest.is_empty() {
            return Err(bad(
                frame,
                offset,
                format!("{} bytes after the frame's contents", rest.len()),
            ));
        }
        if let Frame::Header(header) = &decoded
            && header.version >= 7
        {
            names = Some(Reading::start());
        }
        push_frame(decoded, &mut table, names.as_ref(), &mut assembler)
            .map_err(|e| bad(frame, offset, e))?;
        offset += 4 + len as u64;
    }
    assembler.finish().ok_or_else(|| {
        bad(
            1,
            MAGIC.len() as u64,
            "the file ends before its header".into(),
        )
    })
}

/// Reads until `buffer` is full or the file ends; how many bytes it read.
fn read_full(reader: &mut impl Read, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match reader.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Puts a frame read back into the capture: a line, or a frame of records line by
/// line (a table delta or names are not a line, but change how the next lines read).
fn push_frame(
    frame: Frame,
    table: &mut Tables,
    names: Option<&Reading>,
    assembler: &mut Assembler,
) -> Result<(), String> {
    let line = match frame {
        Frame::Header(header) => Line::Header(header),
        Frame::Input { seconds, command } => Line::Input { seconds, command },
        Frame::Record(mut record) => {
            table.fill(&mut record);
            Line::Record(record)
        }
        Frame::Records(records) => {
            for (delta, mut record) in records {
                if let Some(delta) = delta {
                    table.apply(delta)?;
                }
                table.fill(&mut record);
                assembler.push(Line::Record(record))?;
            }
            return Ok(());
        }
        Frame::Table(delta) => return table.apply(delta),
        Frame::End { at } => Line::End { at },
        Frame::Keyframe(keyframe) => Line::Keyframe(keyframe),
        Frame::Names(new) => {
            let names = names.ok_or("a name table in a capture of version 6, which has none")?;
            names.define(new);
            return Ok(());
        }
    };
    assembler.push(line)
}
