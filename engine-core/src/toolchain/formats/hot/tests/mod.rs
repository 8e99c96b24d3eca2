//! Tests of the `.hot` document: its round trip, its queries and its typed views
//! (`document`: lines, queries and edits; `views`: the typed sections).

mod document;
mod views;

use super::*;
use proptest::prelude::*;
use std::path::Path;

fn round_trip(input: &[u8]) {
    let doc = HotDocument::parse(input);
    assert_eq!(
        doc.to_bytes(),
        input,
        "input {:?}",
        String::from_utf8_lossy(input)
    );
}

/// Splits bytes into lines keeping their endings, to compare documents line by line.
fn raw_lines(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes
        .split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect()
}

fn differing_lines(a: &[u8], b: &[u8]) -> Vec<usize> {
    let (a, b) = (raw_lines(a), raw_lines(b));
    assert_eq!(a.len(), b.len(), "line counts differ");
    (0..a.len()).filter(|&i| a[i] != b[i]).collect()
}

fn file() -> &'static Path {
    Path::new("sample.hot")
}

/// Fragments that make INI-like text with every awkward case nearby.
fn ini_ish() -> impl Strategy<Value = String> {
    let fragment = prop::sample::select(vec![
        "[",
        "]",
        "=",
        ";",
        "#",
        "//",
        "\r\n",
        "\n",
        "\r",
        "\"",
        ",",
        " ",
        "\t",
        "@",
        "a",
        "K",
        "z",
        "0",
        "1",
        "9",
        "0x",
        "-",
        "Track",
        "Patch",
        "TrackData",
        "Options",
        "EventMapping",
        "GlobalHitList",
        "EventMappingEquate",
        "\u{FEFF}",
        "é",
    ]);
    prop::collection::vec(fragment, 0..80).prop_map(|parts| parts.concat())
}

proptest! {
    #[test]
    fn any_bytes_round_trip(input in prop::collection::vec(any::<u8>(), 0..400)) {
        let doc = HotDocument::parse(&input);
        prop_assert_eq!(doc.to_bytes(), input);
    }

    #[test]
    fn ini_ish_text_round_trips_and_views_never_panic(text in ini_ish()) {
        let doc = HotDocument::parse(text.as_bytes());
        prop_assert_eq!(doc.to_bytes(), text.as_bytes());
        let (_, diagnostics) = doc.tables(file());
        for d in diagnostics {
            prop_assert!(d.line >= 1 && d.column >= 1);
        }
        let _ = doc.sections();
        let _ = doc.lines();
    }

    #[test]
    fn set_then_get_reads_back(
        text in ini_ish(),
        section in prop::sample::select(vec!["", "Track", "a", "New"]),
        key in prop::sample::select(vec!["a", "K", "0x1", "z z"]),
        value in "[a-z0-9 ;\",]{0,8}",
    ) {
        let mut doc = HotDocument::parse(text.as_bytes());
        let before = doc.to_bytes();
        match doc.set(section, key, &value) {
            Ok(()) => {
                let reparsed = HotDocument::parse(&doc.to_bytes());
                prop_assert_eq!(reparsed.get(section, key), Some(value.as_str()));
            }
            Err(_) => prop_assert_eq!(doc.to_bytes(), before),
        }
    }
}
