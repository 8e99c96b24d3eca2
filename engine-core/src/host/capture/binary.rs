//! The compact encoding of a capture: a magic, then frames — a little-endian `u32`
//! length and that many bytes of one postcard-encoded [`Frame`]. The first frame is the
//! header.
//!
//! The records handed over together are one frame ([`EntriesRef`]; a frame of its own
//! per record should that be too long, as version 7 wrote them all), in which a record
//! that repeats an earlier one is written as a reference to it (`repeats`; version 8
//! wrote each in full, [`RecordsRef`]).
//!
//! A Box-X verdict's voice table is written as the seats that changed since the last
//! one written (`tables`).
//!
//! Names (events, tracks, patches, samples) are written once: a names frame gives the
//! next entries of the capture's name table before the first frame that uses them, and
//! frames refer to a name by its index ([`names`](crate::runtime::trace::names)).

use super::repeats::{EntriesRef, Entry, ObjectNumber, Repeat};
use super::tables::{DeltaRef, TableDelta, TableWriter, Tables, each_with_delta};
use super::{Assembler, Capture, CaptureError, Header, Line, MAX_FRAME_BYTES, MAX_HEADER_BYTES};
use crate::host::keyframe::Keyframe;
use crate::runtime::clock::SampleTime;
use crate::runtime::trace::TraceRecord;
use crate::runtime::trace::names::Reading;
use serde::ser::SerializeSeq;
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
    Input {
        seconds: f64,
        command: &'a str,
    },
    Record(&'a TraceRecord),
    Table(DeltaRef<'a>),
    End {
        at: SampleTime,
    },
    Keyframe(&'a Keyframe),
    Names(&'a [Arc<str>]),
    /// Version 8's records frame, no longer written (the test that a version 8 capture
    /// still reads writes one).
    #[cfg_attr(not(test), allow(dead_code))]
    Records(RecordsRef<'a>),
    Entries(EntriesRef<'a>),
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
    Entries(Vec<Entry>),
}

/// The repeat a like entry is: the frame's `last` repeat, but for `object` and `seat`.
fn like(last: Option<Repeat>, object: ObjectNumber, seat: Option<u32>) -> Result<Repeat, String> {
    let object = object.object()?;
    let last = last.ok_or("a repeat like the one before it, where there is none")?;
    Ok(Repeat {
        object,
        seat,
        ..last
    })
}

/// A record read from a records frame, made whole: the change of the voice table
/// before it applied, its verdict's table given back, and — if it names one — the seat
/// it compared.
fn push_read(
    table: &mut Tables,
    delta: Option<TableDelta>,
    record: &mut TraceRecord,
    seat: Option<u32>,
) -> Result<(), String> {
    if let Some(delta) = delta {
        table.apply(delta)?;
    }
    table.fill(record);
    if let Some(seat) = seat {
        table.compare(record, seat)?;
    }
    Ok(())
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
        Frame::Entries(entries) => {
            // The frame's last repeat, which a repeat like it follows.
            let mut last = None;
            for entry in entries {
                let (delta, repeat) = match entry {
                    Entry::Full(delta, mut record) => {
                        push_read(table, delta, &mut record, None)?;
                        assembler.push(Line::Record(record))?;
                        continue;
                    }
                    Entry::Again(delta, repeat) => (delta, repeat),
                    Entry::Like(object) => (None, like(last, object, None)?),
                    Entry::LikeAt(object, seat) => (None, like(last, object, Some(seat))?),
                };
                last = Some(repeat);
                let Repeat {
                    back,
                    after,
                    object,
                    seat,
                } = repeat;
                let earlier = assembler.earlier(back).ok_or_else(|| {
                    format!("a repeat of the record {back} back, which is not there")
                })?;
                let mut record = earlier.again(earlier.time.saturating_add(after), object);
                push_read(table, delta, &mut record, seat)?;
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
