//! A capture's header is untrusted input: every number in it is checked when it is read,
//! in both encodings, and one out of its bounds is an error naming the file and the
//! field — never a panic or an allocation it asks for.

use super::*;

/// Each header number with values out of its bounds (and the bound it breaks).
fn bad_fields() -> Vec<(&'static str, u64)> {
    vec![
        ("voices", 0),
        ("voices", 1025),
        ("voices", 1 << 32),
        ("voices", u64::MAX),
        ("sample_rate", 0),
        ("sample_rate", 1),
        ("sample_rate", 7_999),
        ("sample_rate", 192_001),
        ("sample_rate", u64::from(u32::MAX)),
        ("cache_budget", 0),
        ("cache_budget", u64::MAX),
    ]
}

fn with_field(field: &str, value: u64) -> Header {
    let mut header = header();
    match field {
        "voices" => header.voices = usize::try_from(value).unwrap(),
        "sample_rate" => header.sample_rate = u32::try_from(value).unwrap(),
        "cache_budget" => header.cache_budget = usize::try_from(value).unwrap(),
        other => panic!("no field {other}"),
    }
    header
}

fn expect_refused(path: &Path, field: &str, value: u64) {
    let error = read(path).expect_err(&format!("{field} {value} was accepted"));
    let message = error.to_string();
    assert!(
        message.starts_with(&path.display().to_string()),
        "{field} {value}: {message}"
    );
    assert!(
        message.contains(&format!("the header's {field}, {value}, is out of range")),
        "{field} {value}: {message}"
    );
}

#[test]
fn every_header_number_out_of_bounds_is_refused_in_both_encodings() {
    for (field, value) in bad_fields() {
        let header = with_field(field, value);
        let compact = scratch(&format!("bad-{field}-{value}"));
        CaptureWriter::create(&compact, &header)
            .unwrap()
            .finish(SampleTime::from_samples(0))
            .unwrap();
        expect_refused(&compact, field, value);
        std::fs::remove_file(&compact).unwrap();

        let text = scratch(&format!("bad-{field}-{value}.jsonl"));
        let line = serde_json::to_string(&Line::Header(header)).unwrap();
        std::fs::write(&text, format!("{line}\n")).unwrap();
        expect_refused(&text, field, value);
        std::fs::remove_file(&text).unwrap();
    }
}

#[test]
fn the_bounds_themselves_are_accepted() {
    for (voices, sample_rate) in [(1, 8_000), (1024, 192_000)] {
        let header = Header {
            voices,
            sample_rate,
            ..header()
        };
        let path = scratch(&format!("bounds-{voices}"));
        CaptureWriter::create(&path, &header)
            .unwrap()
            .finish(SampleTime::from_samples(0))
            .unwrap();
        let read = read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(read.header, header);
    }
}
