//! Tests of the hit-list text grammar and its three binary encodings.

use super::*;
use crate::toolchain::diag::Severity;
use proptest::prelude::*;

fn parse(text: &str) -> (HitList, Vec<Diagnostic>) {
    HitList::parse_text(text, Path::new("g.hot"), 7, 0)
}

fn ids(list: &HitList) -> Vec<u32> {
    list.ids().map(Iterator::collect).unwrap_or_default()
}

fn words(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

#[test]
fn a_list_expanding_past_the_limit_is_refused_not_expanded() {
    // Each range is bounded, but a list of many ranges was not: a line of a few bytes
    // per entry expanded to a quarter of a megabyte per entry.
    let (list, _) = parse("0-65535,0-65535");
    assert_eq!(
        list.id_count(),
        Err(HitListError::ListTooLong { count: 2 * 65_536 })
    );
    assert!(list.ids().is_err());
    assert!(list.to_bytes_v1().is_err());
    let (fits, _) = parse("0-65534,7");
    assert_eq!(fits.id_count(), Ok(MAX_LIST_IDS));
}

#[test]
fn parses_global_hit_list_value() {
    let (list, diags) = parse(" 1025-1035, 20016 ,0x4F85,sulsaxj_way_aa\r\n");
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(
        list.entries,
        vec![
            HitEntry::Range {
                first: 1025,
                last: 1035
            },
            HitEntry::Id(20016),
            HitEntry::Id(0x4F85),
            HitEntry::Name("sulsaxj_way_aa".into()),
        ]
    );
    assert_eq!(list.to_text(), "1025-1035,20016,20357,sulsaxj_way_aa");
}

#[test]
fn ranges_tolerate_spaces_and_single_id_ranges() {
    let (list, diags) = parse("5 - 9,3-3");
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(
        list.entries,
        vec![
            HitEntry::Range { first: 5, last: 9 },
            HitEntry::Range { first: 3, last: 3 }
        ]
    );
    assert_eq!(ids(&list), vec![5, 6, 7, 8, 9, 3]);
    assert_eq!(list.id_count(), Ok(6));
}

#[test]
fn empty_text_is_an_empty_list() {
    for text in ["", "  ", "\n", "\r\n"] {
        let (list, diags) = parse(text);
        assert!(list.entries.is_empty() && diags.is_empty(), "{text:?}");
    }
}

fn only(diags: &[Diagnostic]) -> &Diagnostic {
    assert_eq!(diags.len(), 1, "{diags:?}");
    &diags[0]
}

#[test]
fn empty_entry_is_a_warning_with_column() {
    let (list, diags) = parse("1,,2,");
    assert_eq!(list.entries, vec![HitEntry::Id(1), HitEntry::Id(2)]);
    assert_eq!(diags.len(), 2);
    assert_eq!(
        (diags[0].severity, diags[0].line, diags[0].column),
        (Severity::Warning, 7, 3)
    );
    assert_eq!(diags[1].column, 6);
    assert!(diags[0].message.contains("empty"));
}

#[test]
fn backward_range_is_an_error_and_skipped() {
    let (list, diags) = parse("1, 9-5, 2");
    assert_eq!(list.entries, vec![HitEntry::Id(1), HitEntry::Id(2)]);
    let d = only(&diags);
    assert_eq!((d.severity, d.line, d.column), (Severity::Error, 7, 4));
    assert!(d.message.contains("backwards"), "{}", d.message);
}

#[test]
fn bad_range_bound_points_at_the_bound() {
    let (_, diags) = parse("10-x1");
    let d = only(&diags);
    assert_eq!(d.column, 4);
    assert!(d.message.contains("`x1` is not a number"), "{}", d.message);
    let (_, diags) = parse("10-");
    assert!(only(&diags).message.contains("missing its last"));
    let (_, diags) = parse("-3");
    assert_eq!(only(&diags).column, 1);
}

#[test]
fn bad_token_and_out_of_range_id() {
    let (list, diags) = parse("3,$x,4294967296,4294967295");
    assert_eq!(list.entries, vec![HitEntry::Id(3), HitEntry::Id(u32::MAX)]);
    assert_eq!(diags.len(), 2);
    assert_eq!(diags[0].column, 3);
    assert!(diags[0].message.contains("not an ID"));
    assert_eq!(diags[1].column, 6);
    assert!(diags[1].message.contains("32-bit"));
}

#[test]
fn column_offset_shifts_columns() {
    // As the .hot reader would call it for the line `12=1,,2`.
    let (_, diags) = HitList::parse_text("1,,2", Path::new("a.hot"), 3, 3);
    assert_eq!((only(&diags).line, only(&diags).column), (3, 6));
}

#[test]
fn long_range_is_kept_with_a_warning_but_never_expanded() {
    let (list, diags) = parse("1-65536,0-65536");
    let d = only(&diags);
    assert_eq!((d.severity, d.column), (Severity::Warning, 9));
    assert_eq!(list.entries.len(), 2);
    assert_eq!(
        list.ids().err(),
        Some(HitListError::RangeTooLong {
            first: 0,
            last: 65536
        })
    );
    let ok = HitList {
        entries: vec![HitEntry::Range {
            first: 1,
            last: 65536,
        }],
    };
    assert_eq!(ok.id_count(), Ok(65536));
    let huge = HitList {
        entries: vec![HitEntry::Range {
            first: 0,
            last: u32::MAX,
        }],
    };
    assert!(matches!(
        huge.to_bytes_v1(),
        Err(HitListError::RangeTooLong { .. })
    ));
}

#[test]
fn names_must_be_resolved_before_expansion() {
    let (list, _) = parse("1,sulsaxj_way_aa,3-4");
    assert_eq!(
        list.ids().err(),
        Some(HitListError::UnresolvedName {
            name: "sulsaxj_way_aa".into()
        })
    );
    let resolved = list
        .resolve_names(|n| (n.eq_ignore_ascii_case("SULSAXJ_WAY_AA")).then_some(20016))
        .unwrap();
    assert_eq!(ids(&resolved), vec![1, 20016, 3, 4]);
    assert_eq!(
        list.resolve_names(|_| None),
        Err(HitListError::UnknownName {
            name: "sulsaxj_way_aa".into()
        })
    );
}

#[test]
fn binary_v1() {
    let mut bytes = words(&[1, 3, 0x4F85, 10, 11]);
    assert_eq!(
        ids(&HitList::from_bytes(&bytes).unwrap()),
        vec![0x4F85, 10, 11]
    );
    bytes.pop();
    // Truncated: 19 bytes fit nothing.
    let err = HitList::from_bytes(&bytes).unwrap_err();
    assert!(
        matches!(err, HitListError::Unrecognized { len: 19, .. }),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("version 1 with count 3 it would need 20 bytes"),
        "{err}"
    );
}

#[test]
fn binary_text() {
    let text = b"1025-1035,7,sulsaxj_way_aa\n";
    let mut bytes = u32::try_from(text.len()).unwrap().to_le_bytes().to_vec();
    bytes.extend_from_slice(text);
    let list = HitList::from_bytes(&bytes).unwrap();
    assert_eq!(list.to_text(), "1025-1035,7,sulsaxj_way_aa");
    assert_eq!(list.to_bytes_text(), bytes);
}

#[test]
fn binary_text_whose_length_field_is_one() {
    // First word 1 looks like version 1 to FreeSO, but 5 bytes cannot hold a count.
    let list = HitList::from_bytes(&[1, 0, 0, 0, b'7']).unwrap();
    assert_eq!(list.entries, vec![HitEntry::Id(7)]);
    let empty = HitList::from_bytes(&[1, 0, 0, 0, b'\n']).unwrap();
    assert!(empty.entries.is_empty());
    assert_eq!(HitList::default().to_bytes_text(), vec![1, 0, 0, 0, b'\n']);
}

#[test]
fn binary_text_with_grammar_error() {
    let err = HitList::from_bytes(&[5, 0, 0, 0, b'1', b',', b'9', b'-', b'5']).unwrap_err();
    assert!(
        matches!(err, HitListError::BadText { column: 3, .. }),
        "{err}"
    );
}

#[test]
fn binary_length_matching_non_text_falls_through() {
    let err = HitList::from_bytes(&[2, 0, 0, 0, 0xFF, 0x00]).unwrap_err();
    assert!(
        err.to_string()
            .contains("not hit-list text (byte 0xff at offset 4)"),
        "{err}"
    );
}

#[test]
fn binary_v3_fallback() {
    let bytes = words(&[2, 0x4F85, 0x4F86]);
    assert_eq!(
        ids(&HitList::from_bytes(&bytes).unwrap()),
        vec![0x4F85, 0x4F86]
    );
}

#[test]
fn binary_v3_whose_count_is_one() {
    // First word 1 but the second is an ID, not a count that fits.
    let bytes = words(&[1, 0x4F85]);
    assert_eq!(ids(&HitList::from_bytes(&bytes).unwrap()), vec![0x4F85]);
    // The one truly ambiguous input: read as an empty version-1 list.
    assert!(
        HitList::from_bytes(&words(&[1, 0]))
            .unwrap()
            .entries
            .is_empty()
    );
}

#[test]
fn binary_oversized_count_is_refused_without_allocating() {
    for bytes in [
        words(&[1, u32::MAX, 5]),
        words(&[u32::MAX, 1, 2]),
        words(&[0x4000_0000]),
    ] {
        let err = HitList::from_bytes(&bytes).unwrap_err();
        assert!(matches!(err, HitListError::Unrecognized { .. }), "{err}");
    }
    assert_eq!(
        HitList::from_bytes(&[1, 0]),
        Err(HitListError::TooShort { len: 2 })
    );
    assert_eq!(HitList::from_bytes(&[0, 0, 0, 0]), Ok(HitList::default()));
}

#[test]
fn v1_writer_expands_and_refuses_names() {
    let (list, _) = parse("7,1-3");
    assert_eq!(list.to_bytes_v1().unwrap(), words(&[1, 4, 7, 1, 2, 3]));
    let (named, _) = parse("x");
    assert!(matches!(
        named.to_bytes_v1(),
        Err(HitListError::UnresolvedName { .. })
    ));
}

fn entry() -> impl Strategy<Value = HitEntry> {
    prop_oneof![
        any::<u32>().prop_map(HitEntry::Id),
        (any::<u32>(), 0u32..70_000).prop_map(|(first, span)| HitEntry::Range {
            first,
            last: first.saturating_add(span)
        }),
        "[A-Za-z_][A-Za-z0-9_]{0,12}".prop_map(HitEntry::Name),
    ]
}

fn numeric_entry() -> impl Strategy<Value = HitEntry> {
    prop_oneof![
        any::<u32>().prop_map(HitEntry::Id),
        (any::<u32>(), 0u32..50).prop_map(|(first, span)| HitEntry::Range {
            first,
            last: first.saturating_add(span)
        }),
    ]
}

proptest! {
    #[test]
    fn text_parser_never_panics(text in "\\PC*", line in any::<u32>(), offset in any::<u32>()) {
        let _ = HitList::parse_text(&text, Path::new("x"), line, offset);
    }

    #[test]
    fn grammar_like_text_never_panics(text in "[0-9a-z_,\\- x\r\n]{0,40}") {
        let _ = parse(&text);
    }

    #[test]
    fn binary_reader_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        let _ = HitList::from_bytes(&bytes);
    }

    #[test]
    fn binary_reader_never_panics_on_small_headers(
        first in 0u32..12, rest in proptest::collection::vec(any::<u8>(), 0..48)
    ) {
        let mut bytes = first.to_le_bytes().to_vec();
        bytes.extend(rest);
        let _ = HitList::from_bytes(&bytes);
    }

    #[test]
    fn text_round_trips(entries in proptest::collection::vec(entry(), 0..12)) {
        let list = HitList { entries };
        let (back, diags) = parse(&list.to_text());
        prop_assert!(!crate::toolchain::diag::has_errors(&diags), "{:?}", diags);
        prop_assert_eq!(&back, &list);
        prop_assert_eq!(HitList::from_bytes(&list.to_bytes_text()), Ok(list));
    }

    #[test]
    fn v1_round_trips(entries in proptest::collection::vec(numeric_entry(), 0..8)) {
        let list = HitList { entries };
        let bytes = list.to_bytes_v1().unwrap();
        let back = HitList::from_bytes(&bytes).unwrap();
        prop_assert_eq!(ids(&back), ids(&list));
    }

    #[test]
    fn v3_round_trips(values in proptest::collection::vec(any::<u32>(), 0..16)) {
        let mut bytes = u32::try_from(values.len()).unwrap().to_le_bytes().to_vec();
        bytes.extend(words(&values));
        let back = HitList::from_bytes(&bytes).unwrap();
        // A single ID 0 is the ambiguous case: it reads as an empty version-1 list.
        if values != [0] {
            prop_assert_eq!(ids(&back), values);
        }
    }
}
