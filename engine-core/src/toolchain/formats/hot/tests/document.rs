//! Tests of the lossless document: round trips, line classes, queries and edits.

use super::*;

#[test]
fn round_trips_hand_written_inputs() {
    let inputs: &[&[u8]] = &[
        b"",
        b"\n",
        b"\r\n",
        b"\r",
        b"; comment\n# other\n\n[Options]\nVersion=1\n",
        b"[Options]\r\nVersion=1\r\nLoadPriority=2\r\n",
        b"[A]\nk=v\r\nj=w\n\r\n[B]\r\nx=y",
        b"[A]\nkey = value\nkey2=  value  \n\tkey3\t=\tv\t\n",
        b"[A]\nk=1\nk=2\nK=3\n[a]\nk=4\n",
        b"[Unknown]\nwhatever=1\nnot an entry\n[]\n=novalue\n",
        b"\xEF\xBB\xBF[Options]\nVersion=1\n",
        b"\xEF\xBB\xBF",
        b"\xEF\xBB",
        b"[A]\nk=v",
        b"[A]\nk=\xFF\xFEbad utf8\n\xC3(\n",
        b"[A]\nk=a\rb\n\r\r\n\0\0=\0\n",
        b"[A] ; header comment\nk=v ; trailing\nq=\"a ;b\" ;c\n// slashes\n",
    ];
    for input in inputs {
        round_trip(input);
    }
}

#[test]
fn classifies_lines() {
    let doc = HotDocument::parse(
        b"\xEF\xBB\xBF[First] ; c\npre\n; c\n# c\n// c\n\n  [ Second ]\t\nk = v\n[x]y\n[]\n",
    );
    let kinds: Vec<_> = doc.lines().iter().map(|l| l.kind).collect();
    use HotLineKind::*;
    assert_eq!(
        kinds,
        [
            Section, Unparsed, Comment, Comment, Comment, Blank, Section, Entry, Unparsed, Unparsed
        ]
    );
    assert!(doc.has_bom());
    assert_eq!(doc.sections(), ["First", "Second"]);
    assert_eq!(doc.lines()[8].section, "Second");
    assert_eq!(doc.line_count(), 10);
}

#[test]
fn entries_trim_and_drop_trailing_comments() {
    let doc = HotDocument::parse(
        b"top=1\n[S]\n  key  =  some value  ; note\nq=\"a ;b\" ; c\nsemi=a;b\nempty=\n\
          tab\t=\tx\n",
    );
    let e = doc.entries("s");
    let got: Vec<_> = e
        .iter()
        .map(|e| {
            (
                e.key.as_str(),
                e.value.as_str(),
                e.line,
                e.key_column,
                e.value_column,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("key", "some value", 3, 3, 11),
            ("q", "\"a ;b\"", 4, 1, 3),
            ("semi", "a;b", 5, 1, 6),
            ("empty", "", 6, 1, 7),
            ("tab", "x", 7, 1, 7),
        ]
    );
    assert_eq!(doc.get("", "TOP"), Some("1"));
    assert_eq!(doc.get("S", "missing"), None);
}

#[test]
fn columns_count_characters_not_bytes() {
    let doc = HotDocument::parse("[S]\nnäme=wért\n".as_bytes());
    let e = &doc.entries("S")[0];
    assert_eq!((e.key_column, e.value_column), (1, 6));
    // The BOM is not a column.
    let doc = HotDocument::parse(b"\xEF\xBB\xBFk=v\n");
    assert_eq!(doc.entries("")[0].key_column, 1);
}

#[test]
fn duplicates_last_wins_and_sections_continue() {
    let doc = HotDocument::parse(b"[A]\nk=1\nother=x\n[B]\nk=9\n[a]\nK=2\n");
    assert_eq!(doc.get("a", "k"), Some("2"));
    assert_eq!(doc.get("B", "k"), Some("9"));
    assert_eq!(doc.entries("A").len(), 3);
    assert_eq!(doc.sections(), ["A", "B"]);
}

#[test]
fn set_on_crlf_file_changes_only_one_line() {
    let input = b"; header\r\n[Options]\r\nVersion = 1\r\nLoadPriority  =\t2   ; why\r\n\r\n";
    let mut doc = HotDocument::parse(input);
    doc.set("options", "loadpriority", "7").unwrap();
    let out = doc.to_bytes();
    assert_eq!(differing_lines(input, &out), [3]);
    assert_eq!(raw_lines(&out)[3], b"LoadPriority  =\t7   ; why\r\n");
    assert_eq!(
        HotDocument::parse(&out).get("Options", "LoadPriority"),
        Some("7")
    );
}

#[test]
fn set_on_duplicate_changes_last_occurrence_only() {
    let input = b"[A]\nk=1\nk = 2\n[B]\nk=3\n[A]\nk=4 ;x\nz=0\n";
    let mut doc = HotDocument::parse(input);
    doc.set("A", "K", "five").unwrap();
    let out = doc.to_bytes();
    assert_eq!(differing_lines(input, &out), [6]);
    assert_eq!(raw_lines(&out)[6], b"k=five ;x\n");
    assert_eq!(doc.get("A", "k"), Some("five"));
}

#[test]
fn set_fills_empty_values_keeping_comments() {
    let mut doc = HotDocument::parse(b"[A]\na=\nb= ;c\nc =  ;c\nd=   \n");
    for key in ["a", "b", "c", "d"] {
        doc.set("A", key, "v").unwrap();
    }
    assert_eq!(doc.to_bytes(), b"[A]\na=v\nb=v ;c\nc = v ;c\nd= v  \n");
    doc.set("A", "a", "").unwrap();
    assert_eq!(doc.get("A", "a"), Some(""));
}

#[test]
fn set_keeps_missing_final_newline() {
    let mut doc = HotDocument::parse(b"[A]\nk=1");
    doc.set("A", "k", "22").unwrap();
    assert_eq!(doc.to_bytes(), b"[A]\nk=22");
}

#[test]
fn set_inserts_absent_key() {
    let mut doc = HotDocument::parse(b"[A]\nx=1\n");
    doc.set("A", "y", "2").unwrap();
    assert_eq!(doc.to_bytes(), b"[A]\nx=1\ny=2\n");
}

#[test]
fn insert_into_existing_section_adds_one_line() {
    let input = b"[A]\r\nfirst = 1\r\nsecond = 2\r\n; trailing comment\r\n\r\n[B]\r\nb=1\r\n";
    let mut doc = HotDocument::parse(input);
    doc.insert("a", "third", "3").unwrap();
    let out = doc.to_bytes();
    let (old, new) = (raw_lines(input), raw_lines(&out));
    assert_eq!(new.len(), old.len() + 1);
    assert_eq!(new[3], b"third = 3\r\n");
    assert_eq!(&new[..3], &old[..3]);
    assert_eq!(&new[4..], &old[3..]);
    assert_eq!(doc.get("A", "third"), Some("3"));
}

#[test]
fn insert_into_empty_section_goes_after_header() {
    let mut doc = HotDocument::parse(b"x=1\n[A]\n; nothing yet\n[B]\nb=2\n");
    doc.insert("A", "k", "v").unwrap();
    assert_eq!(doc.to_bytes(), b"x=1\n[A]\nk=v\n; nothing yet\n[B]\nb=2\n");
    doc.insert("", "top", "t").unwrap();
    assert_eq!(
        doc.to_bytes(),
        b"x=1\ntop=t\n[A]\nk=v\n; nothing yet\n[B]\nb=2\n"
    );
}

#[test]
fn insert_new_section_at_end() {
    let mut doc = HotDocument::parse(b"[A]\r\nk = 1\r\nj=2\n\r\n[B]\r\nb=1");
    doc.insert("New", "key", "value").unwrap();
    assert_eq!(
        doc.to_bytes(),
        b"[A]\r\nk = 1\r\nj=2\n\r\n[B]\r\nb=1\r\n\r\n[New]\r\nkey=value\r\n"
    );
    // A file ending in a blank line gets no second one.
    let mut doc = HotDocument::parse(b"[A]\nk=1\n\n");
    doc.insert("B", "x", "y").unwrap();
    assert_eq!(doc.to_bytes(), b"[A]\nk=1\n\n[B]\nx=y\n");
}

#[test]
fn build_from_empty_document() {
    let mut doc = HotDocument::default();
    doc.insert("Options", "Version", "1").unwrap();
    doc.insert("Options", "LoadPriority", "2").unwrap();
    doc.insert("TrackData", "0xb0f4", "0x10").unwrap();
    assert_eq!(
        doc.to_bytes(),
        b"[Options]\nVersion=1\nLoadPriority=2\n\n[TrackData]\n0xb0f4=0x10\n"
    );
    let (data, diagnostics) = HotDocument::parse(&doc.to_bytes()).track_data(file());
    assert!(diagnostics.is_empty());
    assert_eq!(
        data,
        [TrackDataEntry {
            id: 0xb0f4,
            address: 0x10,
            line: 6
        }]
    );
    let mut doc = HotDocument::default();
    doc.insert("", "k", "v").unwrap();
    assert_eq!(doc.to_bytes(), b"k=v\n");
}

#[test]
fn insert_edge_cases() {
    // Header without final newline: it gets the ending, the entry follows.
    let mut doc = HotDocument::parse(b"[A]");
    doc.insert("a", "k", "v").unwrap();
    assert_eq!(doc.to_bytes(), b"[A]\nk=v\n");
    // A BOM stays first, even when inserting at the top.
    let mut doc = HotDocument::parse(b"\xEF\xBB\xBF");
    doc.insert("S", "k", "v").unwrap();
    assert_eq!(doc.to_bytes(), b"\xEF\xBB\xBF[S]\nk=v\n");
    let mut doc = HotDocument::parse(b"\xEF\xBB\xBF[S]\r\nk = v\r\n");
    doc.insert("", "top", "1").unwrap();
    assert_eq!(doc.to_bytes(), b"\xEF\xBB\xBFtop = 1\r\n[S]\r\nk = v\r\n");
    // An existing invalid UTF-8 value can be replaced; the rest of the line stays.
    let mut doc = HotDocument::parse(b"[S]\nk=\xFF\xFE ;\xFF\n");
    doc.set("S", "k", "ok").unwrap();
    assert_eq!(doc.to_bytes(), b"[S]\nk=ok ;\xFF\n");
}

#[test]
fn remove_every_occurrence_in_section() {
    let mut doc = HotDocument::parse(b"[A]\nk=1\nx=0\n[B]\nk=2\n[a]\nK=3\n");
    assert_eq!(doc.remove("A", "k"), 2);
    assert_eq!(doc.to_bytes(), b"[A]\nx=0\n[B]\nk=2\n[a]\n");
    assert_eq!(doc.remove("A", "k"), 0);
    assert_eq!(doc.remove("Nope", "x"), 0);
}

#[test]
fn edits_reject_unwritable_text() {
    let mut doc = HotDocument::parse(b"[A]\nk=1 ;c\n");
    let before = doc.clone();
    assert!(matches!(
        doc.insert("A", "a\nb", "1"),
        Err(HotEditError::LineBreak { what: "key", .. })
    ));
    assert!(matches!(
        doc.set("A", "k", "1\r2"),
        Err(HotEditError::LineBreak { what: "value", .. })
    ));
    assert!(matches!(
        doc.insert("A\n", "k", "1"),
        Err(HotEditError::LineBreak { .. })
    ));
    assert_eq!(doc.insert("A", "", "1"), Err(HotEditError::EmptyKey));
    assert!(matches!(
        doc.insert("A", "a=b", "1"),
        Err(HotEditError::KeyContainsEquals(_))
    ));
    for key in ["[x]", ";x", "#x", "//x"] {
        assert!(matches!(
            doc.insert("A", key, "1"),
            Err(HotEditError::KeyLooksLikeMarker(_))
        ));
    }
    assert!(matches!(
        doc.insert("A", " padded", "1"),
        Err(HotEditError::NotRepresentable { what: "key", .. })
    ));
    assert!(matches!(
        doc.insert("A", "k2", "a ;b"),
        Err(HotEditError::NotRepresentable { what: "value", .. })
    ));
    // An unbalanced quote would swallow the trailing comment.
    assert!(matches!(
        doc.set("A", "k", "\"open"),
        Err(HotEditError::NotRepresentable { what: "value", .. })
    ));
    assert!(matches!(
        doc.insert("Bad]Name", "k", "1"),
        Err(HotEditError::NotRepresentable {
            what: "section name",
            ..
        })
    ));
    assert_eq!(doc, before);
    assert!(!HotEditError::EmptyKey.to_string().is_empty());
}
