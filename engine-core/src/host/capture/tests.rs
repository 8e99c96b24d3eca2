//! Captures read back exactly as written, in both encodings; the voice table of
//! consecutive verdicts is written once.

use super::repeats::{Entry, Repeat};
use super::*;
use crate::runtime::clock::SampleTime;
use crate::runtime::trace::{EndReason, Occupant, Seat, TraceEvent, TraceKind, VoiceTable};
use std::ops::Range;
use std::sync::Arc;

mod header_checks;

fn seat(voice: usize, track: &str, priority: i32, since: u64) -> Seat {
    Seat {
        voice,
        track: Arc::from(track),
        priority,
        since: SampleTime::from_samples(since),
    }
}

fn verdict(time: u64, table: &VoiceTable, steal: bool) -> TraceRecord {
    let time = SampleTime::from_samples(time);
    let compared = table.seats().first().map_or_else(
        || Occupant {
            voice: 0,
            track: Arc::from("?"),
            priority: 0,
            age: 0,
        },
        |s| s.at(time),
    );
    let what = if steal {
        TraceEvent::Stole {
            track: Arc::from("new"),
            priority: 50,
            victim: compared,
            occupants: table.clone(),
            capacity: 4,
        }
    } else {
        TraceEvent::Refused {
            track: Arc::from("late"),
            priority: 1,
            lowest: compared,
            occupants: table.clone(),
            capacity: 4,
        }
    };
    let mut record = TraceRecord::new(time, TraceKind::Voice, what);
    record.event = Some(Arc::from("ev"));
    record.object = Some(7);
    record
}

/// Verdicts over a changing table: shared, one seat changed, shorter, longer, empty.
fn records() -> Vec<TraceRecord> {
    let full = VoiceTable::new(vec![
        seat(0, "a", 10, 0),
        seat(1, "b", 20, 100),
        seat(2, "c", 30, 200),
        seat(3, "dishwasher_loop", 40, 300),
    ]);
    let changed = VoiceTable::new(vec![
        seat(0, "a", 10, 0),
        seat(1, "new", 50, 1000),
        seat(2, "c", 30, 200),
        seat(3, "dishwasher_loop", 40, 300),
    ]);
    let shorter = VoiceTable::new(vec![seat(0, "a", 10, 0), seat(2, "c", 30, 200)]);
    let mut ended = TraceRecord::new(
        SampleTime::from_samples(1500),
        TraceKind::Track,
        TraceEvent::Ended(EndReason::Stolen),
    );
    ended.track = Some(Arc::from("b"));
    vec![
        verdict(500, &full, false),
        verdict(600, &full, false),
        verdict(1000, &full, true),
        ended,
        verdict(1100, &changed, false),
        verdict(1200, &shorter, false),
        verdict(1300, &changed, false),
        verdict(1400, &VoiceTable::default(), false),
        verdict(1500, &full, false),
    ]
}

fn header() -> Header {
    Header {
        format: FORMAT.to_string(),
        version: VERSION,
        dirs: vec![PathBuf::from("projects/demo")],
        seed: 7,
        sample_rate: 48_000,
        voices: 4,
        cache_budget: 1 << 20,
        files: Vec::new(),
    }
}

fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("hitbench-capture-{name}-{}", std::process::id()))
}

#[test]
fn a_compact_capture_reads_back_as_written_and_writes_each_table_change_once() {
    let path = scratch("compact");
    let mut writer = CaptureWriter::create(&path, &header()).unwrap();
    writer.input(0.0, "sev ev @7".into()).unwrap();
    let written = records();
    writer.records(written[..4].to_vec()).unwrap();
    for record in &written[4..] {
        writer.record(record.clone()).unwrap();
    }
    writer.finish(SampleTime::from_samples(2000)).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let read = read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(bytes.starts_with(MAGIC));
    assert_eq!(read.header, header());
    assert_eq!(read.inputs, vec![(0.0, "sev ev @7".to_string())]);
    assert_eq!(read.records, written);
    assert_eq!(read.end, Some(SampleTime::from_samples(2000)));
    // Verdicts that saw the same table share it when read back.
    let table = |r: &TraceRecord| match &r.what {
        TraceEvent::Stole { occupants, .. } | TraceEvent::Refused { occupants, .. } => {
            occupants.clone()
        }
        _ => VoiceTable::default(),
    };
    assert!(table(&read.records[0]).same(&table(&read.records[1])));
    // A seat is written when it changes, not with every verdict: seven verdicts saw
    // `dishwasher_loop`, whose seat was written with the first table, again after the
    // shorter one and again after the empty one.
    let frames = frames_of(&bytes);
    let deltas = deltas_of(&frames);
    assert_eq!(deltas.len(), 6);
    let with_seat = deltas
        .iter()
        .filter(|delta| delta.seats().any(|seat| &*seat.track == "dishwasher_loop"))
        .count();
    assert_eq!(with_seat, 3);
    // Its name is written once, in the name table; the seats refer to it.
    let name = b"dishwasher_loop";
    let written_names = bytes.windows(name.len()).filter(|w| w == name).count();
    assert_eq!(written_names, 1);
}

/// The table changes a capture's frames give, in order: in frames of their own, or
/// with the records they come before.
fn deltas_of(frames: &[binary::Frame]) -> Vec<&tables::TableDelta> {
    frames
        .iter()
        .flat_map(|frame| match frame {
            binary::Frame::Table(delta) => vec![delta],
            binary::Frame::Records(records) => records
                .iter()
                .filter_map(|(delta, _)| delta.as_ref())
                .collect(),
            binary::Frame::Entries(entries) => entries
                .iter()
                .filter_map(|entry| match entry {
                    Entry::Full(delta, _) | Entry::Again(delta, _) => delta.as_ref(),
                    Entry::Like(_) | Entry::LikeAt(..) => None,
                })
                .collect(),
            _ => Vec::new(),
        })
        .collect()
}

/// Records handed over together are one frame; records too many for one frame of at
/// most [`MAX_FRAME_BYTES`] are each a frame of their own, their table changes in frames
/// before them. Either way they read back as written, tables and all.
#[test]
fn records_go_in_one_frame_unless_it_would_be_too_long() {
    let path = scratch("batches");
    let mut writer = CaptureWriter::create(&path, &header()).unwrap();
    let small = records();
    writer.records(small.clone()).unwrap();
    // A command hands over the records gathered before it.
    writer.input(0.5, "quietall".into()).unwrap();
    // Records of about 150 KiB each (50,000 owners of a track, and a name of 100 KiB,
    // which goes in the name table): a hand-over of twenty is too long for a frame.
    let long = |i: u64| {
        let mut record = verdict(3000 + i, &VoiceTable::default(), false);
        record.event = Some(Arc::from(format!("{i}{}", "x".repeat(100 << 10)).as_str()));
        record.what = TraceEvent::Joined {
            object: 1,
            track: Arc::from("crowd"),
            voice: 3,
            owners: (1..50_000).collect(),
        };
        record
    };
    let mut big: Vec<TraceRecord> = (0..20).map(long).collect();
    big.insert(5, small[5].clone());
    writer.records(big.clone()).unwrap();
    writer.finish(SampleTime::from_samples(9000)).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let read = read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    let mut written = small;
    written.extend(big);
    assert_eq!(read.records, written);
    let frames = frames_of(&bytes);
    let batches: Vec<usize> = frames
        .iter()
        .filter_map(|frame| match frame {
            binary::Frame::Entries(entries) => Some(entries.len()),
            _ => None,
        })
        .collect();
    assert_eq!(batches, vec![records().len()]);
    let alone = frames
        .iter()
        .filter(|frame| matches!(frame, binary::Frame::Record(_)))
        .count();
    assert_eq!(alone, 21);
    // The verdict among the long ones saw the shorter table, after the full one.
    assert_eq!(deltas_of(&frames).len(), 6 + 1);
    // The twenty long names took more than one names frame.
    let names = frames
        .iter()
        .filter(|frame| matches!(frame, binary::Frame::Names(_)))
        .count();
    assert!(names >= 4, "{names} names frames");
}

/// The frames of a compact capture, decoded as a reader does.
fn frames_of(bytes: &[u8]) -> Vec<binary::Frame> {
    let names = crate::runtime::trace::names::Reading::start();
    let mut rest = &bytes[MAGIC.len()..];
    let mut frames = Vec::new();
    while rest.len() >= 4 {
        let len = u32::from_le_bytes(rest[..4].try_into().unwrap()) as usize;
        let frame: binary::Frame = postcard::from_bytes(&rest[4..4 + len]).unwrap();
        if let binary::Frame::Names(new) = &frame {
            names.define(new.clone());
        }
        frames.push(frame);
        rest = &rest[4 + len..];
    }
    frames
}

#[test]
fn each_name_is_written_once_whatever_shares_it() {
    let path = scratch("names");
    let mut writer = CaptureWriter::create(&path, &header()).unwrap();
    // Fresh allocations of the same names, over many batches, and names that come and
    // go (an address freed and used again for another name must not read back as the
    // first).
    let mut written = Vec::new();
    for batch in 0..50 {
        let records: Vec<TraceRecord> = (0..20)
            .map(|i| {
                let mut record = TraceRecord::new(
                    SampleTime::from_samples(batch * 20 + i),
                    TraceKind::Track,
                    TraceEvent::Ended(EndReason::Stolen),
                );
                record.event = Some(Arc::from(format!("event{}", i % 3).as_str()));
                record.track = Some(Arc::from(format!("track{batch}_{}", i % 2).as_str()));
                record
            })
            .collect();
        written.extend(records.iter().cloned());
        writer.records(records).unwrap();
    }
    writer.finish(SampleTime::from_samples(1000)).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let read = read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(read.records, written);
    let names: Vec<String> = frames_of(&bytes)
        .into_iter()
        .filter_map(|frame| match frame {
            binary::Frame::Names(names) => Some(names),
            _ => None,
        })
        .flatten()
        .collect();
    // 3 events and 2 tracks a batch, each once.
    assert_eq!(names.len(), 3 + 2 * 50);
    assert_eq!(names[..4], ["event0", "track0_0", "event1", "track0_1"]);
}

/// Adds a frame of these encoded bytes to a compact capture being put together by hand.
fn push_frame(bytes: &mut Vec<u8>, encoded: &[u8]) {
    bytes.extend_from_slice(&(encoded.len() as u32).to_le_bytes());
    bytes.extend_from_slice(encoded);
}

/// Pushes the frames `encode` gives (encoded with names by index and the records' own
/// tables left out, as the writer encodes), after a names frame with the names they use.
fn push_with_names(bytes: &mut Vec<u8>, encode: impl FnOnce() -> Vec<Vec<u8>>) {
    let names = crate::runtime::trace::names::Writing::start();
    let frames = crate::runtime::trace::without_tables(encode);
    let new = names.take_new();
    drop(names);
    push_frame(
        bytes,
        &postcard::to_allocvec(&binary::FrameRef::Names(&new)).unwrap(),
    );
    for frame in frames {
        push_frame(bytes, &frame);
    }
}

/// A capture of an older `version`, its header written: its path, header and bytes.
fn old_capture(version: u32) -> (PathBuf, Header, Vec<u8>) {
    let path = scratch(&format!("v{version}"));
    let old = Header {
        version,
        ..header()
    };
    let mut bytes = MAGIC.to_vec();
    let encoded = postcard::to_allocvec(&binary::FrameRef::Header(&old)).unwrap();
    push_frame(&mut bytes, &encoded);
    (path, old, bytes)
}

/// `bytes` written to `path` and read back (the file removed), with `header`.
fn read_back(path: &Path, bytes: &[u8], header: &Header) -> Capture {
    std::fs::write(path, bytes).unwrap();
    let read = read(path).unwrap();
    std::fs::remove_file(path).unwrap();
    assert_eq!(&read.header, header);
    read
}

#[test]
fn a_version_6_capture_with_names_in_full_still_reads() {
    let (path, old, mut bytes) = old_capture(6);
    let mut frame = |frame: &binary::FrameRef<'_>| {
        push_frame(&mut bytes, &postcard::to_allocvec(frame).unwrap());
    };
    let written = records();
    let ended = written[3].clone();
    frame(&binary::FrameRef::Record(&ended));
    frame(&binary::FrameRef::End {
        at: SampleTime::from_samples(2000),
    });
    let read = read_back(&path, &bytes, &old);
    // The track's name was in the record itself, and read back as such.
    assert_eq!(read.records, vec![ended]);
}

#[test]
fn the_text_form_reads_back_as_the_same_capture() {
    let (compact, text) = (scratch("c2"), scratch("t2"));
    let mut writer = CaptureWriter::create(&compact, &header()).unwrap();
    writer.input(0.25, "quietall".into()).unwrap();
    writer.records(records()).unwrap();
    writer.finish(SampleTime::from_samples(2000)).unwrap();
    let capture = read(&compact).unwrap();
    let mut out = Vec::new();
    write_text(&capture, &mut out).unwrap();
    std::fs::write(&text, &out).unwrap();
    let again = read(&text).unwrap();
    std::fs::remove_file(&compact).unwrap();
    std::fs::remove_file(&text).unwrap();
    assert_eq!(again, capture);
    assert!(out.starts_with(b"{\"line\":\"header\""));
}

#[test]
fn a_writer_dropped_without_finishing_leaves_a_capture_without_its_end() {
    let path = scratch("dropped");
    let mut writer = CaptureWriter::create(&path, &header()).unwrap();
    writer.records(records()).unwrap();
    drop(writer);
    let read = read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(read.records, records());
    assert_eq!(read.end, None);
}

#[test]
fn a_table_change_out_of_place_is_refused() {
    let mut tables = tables::Tables::default();
    let delta: tables::TableDelta = postcard::from_bytes(
        &postcard::to_allocvec(&(2usize, vec![(5usize, seat(0, "x", 1, 0))])).unwrap(),
    )
    .unwrap();
    assert!(tables.apply(delta).unwrap_err().contains("seat 5"));
}

/// A refusal of an event as a busy session makes them: the engine's shared names, the
/// table given, the seat `compared` of it compared.
fn refusal(
    names: &[Arc<str>; 2],
    table: &VoiceTable,
    time: u64,
    compared: usize,
    object: Option<i32>,
) -> TraceRecord {
    let time = SampleTime::from_samples(time);
    let mut record = TraceRecord::new(
        time,
        TraceKind::Voice,
        TraceEvent::Refused {
            track: Arc::clone(&names[1]),
            priority: 1,
            lowest: table.seats()[compared].at(time),
            occupants: table.clone(),
            capacity: table.seats().len(),
        },
    );
    record.event = Some(Arc::clone(&names[0]));
    record.track = Some(Arc::clone(&names[1]));
    record.object = object;
    record
}

/// Refusals of one event: its first seat compared (its last from 450 on), objects
/// taking turns, one every 10 samples.
fn refusals(names: &[Arc<str>; 2], table: &VoiceTable, times: Range<u64>) -> Vec<TraceRecord> {
    times
        .map(|i| {
            let compared = if i < 450 { 0 } else { 2 };
            refusal(names, table, 1000 + 10 * i, compared, Some((i % 5) as i32))
        })
        .collect()
}

/// The entries of a capture's records frames.
fn entries_of(frames: &[binary::Frame]) -> Vec<&Entry> {
    frames
        .iter()
        .flat_map(|frame| match frame {
            binary::Frame::Entries(entries) => entries.iter().collect(),
            _ => Vec::new(),
        })
        .collect()
}

/// The entries of a capture's records frames: how many repeats (written either way),
/// how many in full.
fn repeats_and_full(frames: &[binary::Frame]) -> (usize, usize) {
    let entries = entries_of(frames);
    let full = entries
        .iter()
        .filter(|entry| matches!(entry, Entry::Full(..)))
        .count();
    (entries.len() - full, full)
}

/// A record that repeats the last one about its event and track is written as a
/// reference to it — across hand-overs, after a change of the voice table, after
/// records written each in a frame of their own — and reads back exactly.
#[test]
fn repeats_are_written_as_references_and_read_back_exactly() {
    let path = scratch("repeats");
    let names: [Arc<str>; 2] = [Arc::from("footstep"), Arc::from("footstep_trk")];
    // The seats not taken share their names, as the engine's tables do.
    let (music, tv) = (seat(0, "music", 10, 0), seat(2, "tv", 30, 200));
    let seats =
        |second: &str| VoiceTable::new(vec![music.clone(), seat(1, second, 20, 100), tv.clone()]);
    let (table, changed) = (seats("dishwasher"), seats("shower"));
    let mut writer = CaptureWriter::create(&path, &header()).unwrap();
    let mut written = refusals(&names, &table, 0..300);
    // The table changes (not the seat compared): the repeats go on, with the change;
    // then another seat is compared: the repeats name it.
    written.extend(refusals(&names, &changed, 300..460));
    for record in &written {
        writer.record(record.clone()).unwrap();
    }
    // (A command hands over what was gathered before it.)
    writer.input(0.1, "quietall".into()).unwrap();
    // A hand-over too long for one frame (each record in a frame of its own: two of
    // about 600 KB), ending with refusals; the next hand-over repeats those.
    let long = |object| {
        let mut long = verdict(6000, &VoiceTable::default(), false);
        long.what = TraceEvent::Joined {
            object,
            track: Arc::from("crowd"),
            voice: 3,
            owners: (1..200_000).collect(),
        };
        long
    };
    let mut big = vec![long(1), long(2)];
    big.extend(refusals(&names, &changed, 500..510));
    written.extend(big.iter().cloned());
    writer.records(big).unwrap();
    writer.input(0.2, "quietall".into()).unwrap();
    let last = refusals(&names, &changed, 510..520);
    written.extend(last.iter().cloned());
    writer.records(last).unwrap();
    writer.finish(SampleTime::from_samples(9000)).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let read = read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(read.records, written);
    let frames = frames_of(&bytes);
    // In full: the first refusal, and the twelve written in frames of their own.
    assert_eq!(repeats_and_full(&frames), (459 + 10, 1));
    let seats: Vec<u32> = entries_of(&frames)
        .into_iter()
        .filter_map(|entry| match entry {
            Entry::Again(_, repeat) => repeat.seat,
            Entry::LikeAt(_, seat) => Some(*seat),
            Entry::Like(_) => None,
            Entry::Full(..) => None,
        })
        .collect();
    // Only the first to compare the last seat names it; the next ones repeat it.
    assert_eq!(seats, [2]);
    let alone = frames
        .iter()
        .filter(|frame| matches!(frame, binary::Frame::Record(_)))
        .count();
    assert_eq!(alone, 12);
    // The table as first written, and its change (with a repeat).
    assert_eq!(deltas_of(&frames).len(), 2);
}

#[test]
fn a_repeat_that_does_not_read_is_an_error_naming_the_frame() {
    let path = scratch("bad-repeat");
    let mut bytes = MAGIC.to_vec();
    let mut frame = |encoded: Vec<u8>| push_frame(&mut bytes, &encoded);
    frame(postcard::to_allocvec(&binary::FrameRef::Header(&header())).unwrap());
    // An entries frame (variant 8) of one repeat (variant 1) of the record 3 back.
    let repeat = |back, seat| Repeat {
        back,
        after: 10,
        object: None,
        seat,
    };
    let bad = |bytes: &[u8], frame: usize| {
        std::fs::write(&path, bytes).unwrap();
        let error = read(&path).unwrap_err().to_string();
        std::fs::remove_file(&path).unwrap();
        assert!(error.contains(&format!("frame {frame} ")), "{error}");
        error
    };
    let mut once = bytes.clone();
    let frame = |bytes: &mut Vec<u8>, encoded: Vec<u8>| push_frame(bytes, &encoded);
    frame(
        &mut once,
        postcard::to_allocvec(&(8u32, vec![(1u32, None::<()>, repeat(3, None))])).unwrap(),
    );
    assert!(bad(&once, 2).contains("3 back"));
    // (After a names frame) a record in full (variant 0), then a repeat of it
    // comparing a seat the table, empty, does not have.
    let refused = verdict(500, &VoiceTable::default(), false);
    let mut twice = bytes;
    push_with_names(&mut twice, || {
        let entries = (
            2u8,
            (0u32, None::<()>, &refused),
            (1u32, None::<()>, repeat(1, Some(4))),
        );
        vec![postcard::to_allocvec(&(8u32, entries)).unwrap()]
    });
    let error = bad(&twice, 3);
    assert!(
        error.contains("seat 4 of a voice table of 0 seats"),
        "{error}"
    );
}

#[test]
fn a_version_8_capture_with_every_record_in_full_still_reads() {
    let (path, old, mut bytes) = old_capture(8);
    let written = records();
    push_with_names(&mut bytes, || {
        let mut tables = tables::TableWriter::default();
        let batch = binary::FrameRef::Records(binary::RecordsRef {
            records: &written,
            tables: std::cell::RefCell::new(&mut tables),
        });
        vec![postcard::to_allocvec(&batch).unwrap()]
    });
    assert_eq!(read_back(&path, &bytes, &old).records, written);
}

/// The bytes of a capture at `path` of `records` handed over at once, which must read
/// back as they were (the file removed).
fn written_in_one(path: &Path, records: &[TraceRecord]) -> Vec<u8> {
    let mut writer = CaptureWriter::create(path, &header()).unwrap();
    writer.records(records.to_vec()).unwrap();
    let end = records.last().map_or(0, |r| r.time.samples()) + 1;
    writer.finish(SampleTime::from_samples(end)).unwrap();
    let bytes = std::fs::read(path).unwrap();
    let read = read(path).unwrap();
    std::fs::remove_file(path).unwrap();
    assert_eq!(read.records, records);
    bytes
}

/// Objects joining one copy of a track, one after another, are repeats of the join
/// before them; the first join of the next copy is written in full.
#[test]
fn joins_of_one_copy_are_repeats() {
    let path = scratch("joins");
    let name: Arc<str> = Arc::from("crowd_cheer");
    let join = |time, object, voice, owners: &[i32]| {
        crate::runtime::trace::joined(&name, time, object, voice, owners)
    };
    let written = vec![
        join(100, 5, 0, &[2, 5]),
        join(200, 3, 0, &[2, 3, 5]),
        join(300, 9, 0, &[2, 3, 5, 9]),
        // The next copy, on another voice.
        join(900, 4, 1, &[1, 4]),
        join(950, 7, 1, &[1, 4, 7]),
    ];
    let frames = frames_of(&written_in_one(&path, &written));
    assert_eq!(repeats_and_full(&frames), (3, 2));
}

/// Repeats as far back and as long after as the repeat before them (a session doing
/// the same things in the same order) are written as just their object and seat, and
/// read back exactly, whatever the objects (none, negative, the extremes).
#[test]
fn a_run_of_repeats_is_written_as_objects_alone() {
    let path = scratch("runs");
    let names: Vec<[Arc<str>; 2]> = (0..3)
        .map(|i| {
            [
                Arc::from(format!("step{i}")),
                Arc::from(format!("step{i}_trk")),
            ]
        })
        .collect();
    let table = VoiceTable::new(vec![seat(0, "music", 10, 0)]);
    let objects = [
        None,
        Some(-1),
        Some(0),
        Some(i32::MIN),
        Some(i32::MAX),
        Some(7),
    ];
    // Three events in turn, one every 10 samples, then (from the 60th) every 20: each
    // repeats the one three back, 30 samples after it, then 40, 50 and 60.
    let mut time = 1000;
    let written: Vec<TraceRecord> = (0..90)
        .map(|i| {
            time += if i < 60 { 10 } else { 20 };
            refusal(&names[i % 3], &table, time, 0, objects[i % objects.len()])
        })
        .collect();
    let frames = frames_of(&written_in_one(&path, &written));
    let entries = entries_of(&frames);
    let kinds: Vec<char> = entries
        .iter()
        .map(|entry| match entry {
            Entry::Full(..) => 'F',
            Entry::Again(..) => 'A',
            Entry::Like(..) | Entry::LikeAt(..) => 'L',
        })
        .collect();
    let expected = format!("FFFA{}AAA{}", "L".repeat(56), "L".repeat(27));
    assert_eq!(kinds.into_iter().collect::<String>(), expected);
    let backs: Vec<(u64, u64)> = entries
        .iter()
        .filter_map(|entry| match entry {
            Entry::Again(_, repeat) => Some((repeat.back, repeat.after)),
            _ => None,
        })
        .collect();
    assert_eq!(backs, [(3, 30), (3, 40), (3, 50), (3, 60)]);
}

/// A repeat like the one before it where none is before it in its frame, or with an
/// object out of range, is an error naming the frame.
#[test]
fn a_repeat_like_none_before_it_is_an_error_naming_the_frame() {
    let path = scratch("bad-like");
    let mut bytes = MAGIC.to_vec();
    push_frame(
        &mut bytes,
        &postcard::to_allocvec(&binary::FrameRef::Header(&header())).unwrap(),
    );
    let bad = |entries: &[u8], why: &str| {
        let mut bad = bytes.clone();
        push_frame(&mut bad, entries);
        std::fs::write(&path, &bad).unwrap();
        let error = read(&path).unwrap_err().to_string();
        assert!(error.contains("frame 2 ") && error.contains(why), "{error}");
    };
    // An entries frame (variant 8) of one repeat like the one before, for an object
    // (variant 2), or comparing a seat (variant 3).
    let none = "where there is none";
    bad(
        &postcard::to_allocvec(&(8u32, vec![(2u32, 0u64)])).unwrap(),
        none,
    );
    bad(
        &postcard::to_allocvec(&(8u32, vec![(3u32, 5u64, 1u32)])).unwrap(),
        none,
    );
    let beyond = u64::from(u32::MAX) + 2;
    let out = postcard::to_allocvec(&(8u32, vec![(2u32, beyond)])).unwrap();
    bad(&out, "object number");
    std::fs::remove_file(&path).unwrap();
}

/// A version 9 capture — records in full and repeats each naming how far back and how
/// long after — still reads.
#[test]
fn a_version_9_capture_still_reads() {
    let (path, old, mut bytes) = old_capture(9);
    let names: [Arc<str>; 2] = [Arc::from("footstep"), Arc::from("footstep_trk")];
    let table = VoiceTable::new(vec![seat(0, "music", 10, 0)]);
    let first = refusal(&names, &table, 1000, 0, Some(3));
    let repeat = |object| Repeat {
        back: 1,
        after: 10,
        object,
        seat: None,
    };
    // The table (as the frame before the entries), then three entries: the refusal in
    // full (variant 0) and two repeats (variant 1).
    push_with_names(&mut bytes, || {
        let mut tables = tables::TableWriter::default();
        let delta = tables.delta(&first).expect("a first table is a change");
        let entries = (
            3u8,
            (0u32, None::<()>, &first),
            (1u32, None::<()>, repeat(Some(4))),
            (1u32, None::<()>, repeat(None)),
        );
        vec![
            postcard::to_allocvec(&binary::FrameRef::Table(delta)).unwrap(),
            postcard::to_allocvec(&(8u32, entries)).unwrap(),
        ]
    });
    let read = read_back(&path, &bytes, &old);
    let second = first.again(SampleTime::from_samples(1010), Some(4));
    let third = second.again(SampleTime::from_samples(1020), None);
    assert_eq!(read.records, [first, second, third]);
}
