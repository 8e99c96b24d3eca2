//! Captures read back exactly as written, in both encodings; the voice table of
//! consecutive verdicts is written once.

use super::*;
use crate::runtime::clock::SampleTime;
use crate::runtime::trace::{EndReason, Occupant, Seat, TraceEvent, TraceKind, VoiceTable};
use std::sync::Arc;

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
fn deltas_of(frames: &[binary::Frame]) -> Vec<&binary::TableDelta> {
    frames
        .iter()
        .flat_map(|frame| match frame {
            binary::Frame::Table(delta) => vec![delta],
            binary::Frame::Records(records) => records
                .iter()
                .filter_map(|(delta, _)| delta.as_ref())
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
            binary::Frame::Records(records) => Some(records.len()),
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

#[test]
fn a_version_6_capture_with_names_in_full_still_reads() {
    let path = scratch("v6");
    let old = Header {
        version: 6,
        ..header()
    };
    let mut bytes = MAGIC.to_vec();
    let mut frame = |frame: &binary::FrameRef<'_>| {
        let encoded = postcard::to_allocvec(frame).unwrap();
        bytes.extend_from_slice(&(encoded.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&encoded);
    };
    let written = records();
    let ended = written[3].clone();
    frame(&binary::FrameRef::Header(&old));
    frame(&binary::FrameRef::Record(&ended));
    frame(&binary::FrameRef::End {
        at: SampleTime::from_samples(2000),
    });
    std::fs::write(&path, &bytes).unwrap();
    let read = read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(read.header, old);
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
    let mut tables = binary::Tables::default();
    let delta: binary::TableDelta = postcard::from_bytes(
        &postcard::to_allocvec(&(2usize, vec![(5usize, seat(0, "x", 1, 0))])).unwrap(),
    )
    .unwrap();
    assert!(tables.apply(delta).unwrap_err().contains("seat 5"));
}
