//! Tests of the typed views of a TS1-style table: each section's values, bad entries,
//! duplicates, and edits read back through the views.

use super::super::fields::id_ref;
use super::*;
use crate::toolchain::diag::{Diagnostic, Severity};
use std::path::PathBuf;

/// A TS1-style table. Line numbers matter to the tests below.
const SAMPLE: &str = "\
; HIT options table for a TS1-style object\r
[Options]\r
Version=1\r
LoadPriority=2\r
Author=someone\r
\r
[EventMappingEquate]\r
kSndobPlay=1\r
kSndobStop=2\r
kSetMusicMode=0x24\r
\r
[EventMapping]\r
vox_laugh=kSndobPlay,0x2001,0,0,0,0\r
Vox_Stop=2,0x2001,0,0,0,0\r
music_mode=kSetMusicMode,buy_music,0,0,0,0\r
\r
[TrackData]\r
0xb0f4=0x10\r
8193=0x2A0\r
0x2002=bad\r
0x2003=0x30\r
\r
[Track]\r
0x2001=0,vox_laugh_sub,1024,0,32,1,0,@hl_laugh,0\r
0x2002=0,music_sub,1024\r
0x2003=0,x,1,2,3,4,5,@6,7,8\r
\r
[Patch]\r
0x3001=0,Laugh,\"sounds\\vox\\laugh.wav\",0,0,0,0,0\r
0x3002=0,Radio,\"music\\radio, loop.mp3\",1,0,0,0,0\r
\r
[GlobalHitList]\r
0x4001=1,2,5-9\r
hl_laugh=0x3001\r
";

/// `IdRef::Name` of `s`.
fn name(s: &str) -> IdRef {
    IdRef::Name(s.to_owned())
}

#[test]
fn sample_options_and_equates() {
    let doc = HotDocument::parse(SAMPLE.as_bytes());
    assert_eq!(doc.to_bytes(), SAMPLE.as_bytes());

    let (options, d) = doc.options(file());
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(
        options,
        HotOptions {
            version: Some(1),
            load_priority: Some(2),
            other: vec![("Author".into(), "someone".into(), 5)],
        }
    );

    let (equates, d) = doc.equates(file());
    assert!(d.is_empty(), "{d:?}");
    let equates: Vec<_> = equates
        .iter()
        .map(|e| (e.name.as_str(), e.value, e.line))
        .collect();
    assert_eq!(
        equates,
        [
            ("kSndobPlay", 1, 8),
            ("kSndobStop", 2, 9),
            ("kSetMusicMode", 0x24, 10)
        ]
    );
    assert_eq!(equate_value(&doc, "ksndobplay"), Some(1));
    assert_eq!(equate_value(&doc, "nope"), None);
}

#[test]
fn sample_event_mappings() {
    let doc = HotDocument::parse(SAMPLE.as_bytes());
    let (events, d) = doc.event_mappings(file());
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(
        events[0],
        EventMapping {
            name: "vox_laugh".into(),
            event_type: name("kSndobPlay"),
            track_id: IdRef::Number(0x2001),
            extra: vec![IdRef::Number(0); 4],
            line: 13,
            field_columns: vec![11, 22, 29, 31, 33, 35],
        }
    );
    assert_eq!(events[1].name, "Vox_Stop");
    assert_eq!(events[1].event_type, IdRef::Number(2));
    assert_eq!(events[2].track_id, name("buy_music"));
    assert_eq!(resolve_equate(&doc, &events[0].event_type), Some(1));
    assert_eq!(resolve_equate(&doc, &events[2].event_type), Some(0x24));
}

#[test]
fn sample_track_data() {
    let doc = HotDocument::parse(SAMPLE.as_bytes());
    let (data, d) = doc.track_data(file());
    assert_eq!(
        data,
        [
            TrackDataEntry {
                id: 0xb0f4,
                address: 0x10,
                line: 18
            },
            TrackDataEntry {
                id: 8193,
                address: 0x2A0,
                line: 19
            },
            TrackDataEntry {
                id: 0x2003,
                address: 0x30,
                line: 21
            },
        ]
    );
    assert_eq!(d.len(), 1);
    assert_eq!(
        (d[0].severity, d[0].line, d[0].column),
        (Severity::Error, 20, 8)
    );
    assert!(d[0].message.contains("`bad`"), "{}", d[0].message);
}

#[test]
fn sample_tracks() {
    let doc = HotDocument::parse(SAMPLE.as_bytes());
    let (tracks, d) = doc.tracks(file());
    assert_eq!(tracks.len(), 3);
    assert_eq!(
        tracks[0],
        TrackDef {
            id: IdRef::Number(0x2001),
            reserved: Some(IdRef::Number(0)),
            subroutine: Some(name("vox_laugh_sub")),
            volume: Some(IdRef::Number(1024)),
            arguments: Some(IdRef::Number(0)),
            ducking_priority: Some(IdRef::Number(32)),
            control_group: Some(IdRef::Number(1)),
            sound_pressure_level: Some(IdRef::Number(0)),
            hitlist: Some(name("hl_laugh")),
            hitlist_at: true,
            patch: Some(IdRef::Number(0)),
            priority: None,
            line: 24,
            field_columns: vec![8, 10, 24, 29, 31, 34, 36, 38, 48],
        }
    );
    assert_eq!(tracks[1].subroutine, Some(name("music_sub")));
    assert_eq!(tracks[1].volume, Some(IdRef::Number(1024)));
    assert_eq!(tracks[1].arguments, None);
    assert_eq!(tracks[1].patch, None);
    assert_eq!(tracks[2].hitlist, Some(IdRef::Number(6)));
    assert_eq!(tracks[2].patch, Some(IdRef::Number(7)));
    // The 10th field is HitBench's optional priority, not an extra field.
    assert_eq!(tracks[2].priority, Some(IdRef::Number(8)));
    let found: Vec<_> = d.iter().map(|d| (d.severity, d.line, d.column)).collect();
    assert_eq!(found, [(Severity::Warning, 25, 24)]);
    assert!(d[0].message.contains("arguments"), "{}", d[0].message);
}

#[test]
fn sample_patches() {
    let doc = HotDocument::parse(SAMPLE.as_bytes());
    let (patches, d) = doc.patches(file());
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(
        patches[0],
        PatchDef {
            id: IdRef::Number(0x3001),
            reserved: Some(IdRef::Number(0)),
            name: "Laugh".into(),
            path: "sounds\\vox\\laugh.wav".into(),
            looped: false,
            piano: false,
            extra: vec![IdRef::Number(0); 3],
            line: 29,
            field_columns: vec![8, 10, 16, 39, 41, 43, 45, 47],
        }
    );
    assert_eq!(
        patches[0].relative_path(),
        PathBuf::from("sounds/vox/laugh.wav")
    );
    assert_eq!(&*patches[1].path, "music\\radio, loop.mp3");
    assert!(patches[1].looped);
}

#[test]
fn sample_global_hit_lists() {
    let doc = HotDocument::parse(SAMPLE.as_bytes());
    let (lists, d) = doc.global_hit_lists(file());
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(
        lists,
        [
            GlobalHitListDef {
                id: IdRef::Number(0x4001),
                list_text: "1,2,5-9".into(),
                line: 33,
                value_column: 8,
            },
            GlobalHitListDef {
                id: name("hl_laugh"),
                list_text: "0x3001".into(),
                line: 34,
                value_column: 10,
            },
        ]
    );
}

#[test]
fn sample_all_tables_at_once() {
    let doc = HotDocument::parse(SAMPLE.as_bytes());
    let (patches, _) = doc.patches(file());
    let (tables, all) = doc.tables(file());
    assert_eq!(tables.tracks.len(), 3);
    assert_eq!(tables.patches, patches);
    assert_eq!(all.len(), 2);
    assert!(all.windows(2).all(|w| w[0].line <= w[1].line));
}

#[test]
fn bad_entries_are_reported_and_skipped() {
    let text = "\
[EventMappingEquate]
good=5
bad=five
[EventMapping]
ok=1,2,0,0,0,0
short=1
badtype=1x,2
[Track]
1=0,sub,1024,0,32,1,0,@hl,0
2=0,sub,12q
[Patch]
1=0,Name,\"open.wav,0,0
2=0,Name
3=0,Name,\"a.wav\",maybe,0
4=0,Name,\"b.wav\"
this line is junk
[GlobalHitList]
1 0=1
";
    let doc = HotDocument::parse(text.as_bytes());
    let where_ = |d: &[Diagnostic]| -> Vec<(Severity, u32, u32)> {
        d.iter().map(|d| (d.severity, d.line, d.column)).collect()
    };

    let (equates, d) = doc.equates(file());
    assert_eq!(equates.len(), 1);
    assert_eq!(where_(&d), [(Severity::Error, 3, 5)]);

    let (events, d) = doc.event_mappings(file());
    assert_eq!(events.len(), 1);
    assert_eq!(
        where_(&d),
        [(Severity::Error, 6, 8), (Severity::Error, 7, 9)]
    );

    let (tracks, d) = doc.tracks(file());
    assert_eq!(tracks.len(), 1);
    assert_eq!(where_(&d), [(Severity::Error, 10, 9)]);

    let (patches, d) = doc.patches(file());
    assert_eq!(patches.len(), 1);
    assert_eq!(&*patches[0].path, "b.wav");
    assert_eq!(
        where_(&d),
        [
            (Severity::Error, 12, 10),
            (Severity::Error, 13, 9),
            (Severity::Error, 14, 18),
            (Severity::Warning, 15, 17),
            (Severity::Warning, 16, 1),
        ]
    );

    let (lists, d) = doc.global_hit_lists(file());
    assert!(lists.is_empty());
    assert_eq!(where_(&d), [(Severity::Error, 18, 1)]);
}

#[test]
fn duplicate_definitions_warn_and_last_wins() {
    let doc = HotDocument::parse(b"[TrackData]\n0x10=1\n16=2\n0x10=3\n[Options]\nVersion=2\n");
    let (data, d) = doc.track_data(file());
    assert_eq!(
        data,
        [TrackDataEntry {
            id: 16,
            address: 3,
            line: 4
        }]
    );
    let lines: Vec<_> = d.iter().map(|d| (d.severity, d.line)).collect();
    assert_eq!(lines, [(Severity::Warning, 2), (Severity::Warning, 3)]);
    let (options, d) = doc.options(file());
    assert_eq!(options.version, Some(2));
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].severity, Severity::Warning);
}

#[test]
fn edits_then_reparse_give_typed_values() {
    let mut doc = HotDocument::parse(SAMPLE.as_bytes());
    doc.set("TrackData", "0x2002", "0x20").unwrap();
    doc.set("EventMappingEquate", "kSndobStop", "0x3").unwrap();
    doc.insert("EventMapping", "vox_new", "kSndobStop,0x2003,0,0,0,0")
        .unwrap();
    assert_eq!(doc.remove("Patch", "0x3002"), 1);
    doc.insert("Patch", "0x3003", "0,Piano,\"piano\\c4.wav\",0,1,0,0,0")
        .unwrap();
    let bytes = doc.to_bytes();
    assert!(
        !bytes
            .windows(2)
            .any(|w| w != b"\r\n" && w[1] == b'\n' && w[0] != b'\r')
    );
    let doc = HotDocument::parse(&bytes);
    let (data, d) = doc.track_data(file());
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(data[2].id, 0x2002);
    assert_eq!(data[2].address, 0x20);
    let (events, _) = doc.event_mappings(file());
    let new = events.last().unwrap();
    assert_eq!((new.name.as_str(), new.line), ("vox_new", 16));
    assert_eq!(resolve_equate(&doc, &new.event_type), Some(3));
    let (patches, _) = doc.patches(file());
    assert_eq!(patches.len(), 2);
    assert!(patches[1].piano);
    assert_eq!(patches[1].relative_path(), PathBuf::from("piano/c4.wav"));
}

#[test]
fn relative_paths() {
    assert_eq!(hot_path_to_relative("a\\b.wav"), PathBuf::from("a/b.wav"));
    assert_eq!(
        hot_path_to_relative("C:\\x\\.\\y//z.mp3"),
        PathBuf::from("x/y/z.mp3")
    );
    assert_eq!(hot_path_to_relative("\\..\\q.xa"), PathBuf::from("../q.xa"));
}

#[test]
fn id_refs() {
    assert_eq!(id_ref("0x10", "v"), Ok(IdRef::Number(16)));
    assert_eq!(id_ref("-3", "v"), Ok(IdRef::Number(-3)));
    assert_eq!(id_ref("kName", "v"), Ok(IdRef::Name("kName".into())));
    for bad in ["", "12ab", "-1x", "two words", "\"q\""] {
        assert!(id_ref(bad, "v").is_err(), "{bad:?}");
    }
    assert_eq!(IdRef::Number(5).to_string(), "5");
    assert_eq!(IdRef::Name("x".into()).as_name(), Some("x"));
    assert_eq!(IdRef::Name("x".into()).resolve(|_| Some(4)), Some(4));
    assert_eq!(IdRef::Number(7).as_number(), Some(7));
}
