//! Targets for the text and table formats: `.hsm`, `.hot` (with its edit API), `.evt`,
//! hit lists (text and the three binary encodings), `.fsc`, `.sym` and `.hdb`. Each
//! generator writes mostly valid documents (or starts from a real file of the projects),
//! then mutates them.

use crate::harness::{Input, MIB, MemoryBound, Target};
use crate::mutate::{self, NUMBERS};
use crate::words::{comment, ending, id, join, name, number};
use engine_core::toolchain::formats::hitlist::HitList;
use engine_core::toolchain::formats::hot::HotDocument;
use engine_core::toolchain::formats::{evt, fsc, hdb, hsm, sym};
use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;
use std::path::Path;
use std::time::Duration;

/// Memory bound of the text-format targets: a parser keeps what it read and a diagnostic
/// or two per line.
pub const TEXT_MEMORY: MemoryBound = MemoryBound {
    per_byte: 64,
    per_line: 1024,
    fixed: 16 * MIB,
};
/// Time limit of one case of a text-format target (debug build).
pub const TEXT_TIME: Duration = Duration::from_secs(10);

/// Mutations per case for the text targets.
const MUTATIONS: usize = 4;

/// The seed examples' tables: a real `.hot` file.
const SEED_HOT: &[u8] = include_bytes!("../../../projects/seed-examples/seed_examples.hot");
/// The demo's settings, an INI file read by the same reader.
const DEMO_INI: &[u8] = include_bytes!("../../../projects/demo/world.ini");
/// The demo's ambience score.
const DEMO_FSC: &[u8] =
    include_bytes!("../../../projects/demo/sounds/ambience/score/neighborhood.fsc");

fn text(input: &Input) -> String {
    String::from_utf8_lossy(input.first()).into_owned()
}

fn lines(line: impl Strategy<Value = String>, max: usize) -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec(line, 0..max)
}

fn file(lines: Vec<String>, ending: &str, trailing: bool) -> Vec<u8> {
    join(&lines, ending, trailing)
}

fn document(line: impl Strategy<Value = String>, max: usize) -> impl Strategy<Value = Vec<u8>> {
    (lines(line, max), ending(), any::<bool>()).prop_map(|(l, e, t)| file(l, e, t))
}

// --- .hsm -------------------------------------------------------------------------------

fn hsm_line() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (name(), any::<i32>()).prop_map(|(n, v)| format!("{n} {v} (0x{v:x})")),
        2 => (name(), number()).prop_map(|(n, v)| format!("{n} {v}")),
        1 => (name(), any::<i32>(), any::<u32>()).prop_map(|(n, v, h)| format!("{n} {v} (0x{h:x})")),
        1 => comment(),
    ]
}

fn hsm_strategy() -> BoxedStrategy<Input> {
    mutate::mutated(document(hsm_line(), 40), MUTATIONS)
        .prop_map(|b| Input::single("fuzz.hsm", b))
        .boxed()
}

fn hsm_run(input: &Input) -> Result<(), String> {
    let (file, _) = hsm::HsmFile::parse(&text(input), Path::new("fuzz.hsm"));
    let _ = file.to_text();
    let _ = file.get("name_1");
    Ok(())
}

/// `.hsm` symbol files.
pub const HSM: Target = Target {
    name: "hsm",
    about: ".hsm text into HsmFile::parse",
    cases: 1000,
    memory: TEXT_MEMORY,
    time: TEXT_TIME,
    strategy: hsm_strategy,
    run: hsm_run,
};

// --- .hot -------------------------------------------------------------------------------

const SECTIONS: &[&str] = &[
    "EventMappingEquate",
    "Options",
    "TrackData",
    "EventMapping",
    "Track",
    "Patch",
    "GlobalHitList",
    "",
    "View",
    "odd ] name",
];

/// A hit list in the text grammar.
pub fn hit_list_text() -> impl Strategy<Value = String> {
    let entry = prop_oneof![
        4 => (0u32..3000).prop_map(|n| n.to_string()),
        2 => (0u32..3000, 0u32..70).prop_map(|(a, n)| format!("{a}-{}", a + n)),
        1 => (any::<u32>(), any::<u32>()).prop_map(|(a, b)| format!("{a}-{b}")),
        1 => name(),
        1 => proptest::sample::select(NUMBERS).prop_map(str::to_string),
    ];
    proptest::collection::vec(entry, 0..12).prop_map(|e| e.join(","))
}

fn hot_value(section: &str) -> BoxedStrategy<String> {
    match section {
        "EventMappingEquate" => number().boxed(),
        "Options" => number().boxed(),
        "TrackData" => number().boxed(),
        "EventMapping" => (id(), id())
            .prop_map(|(t, k)| format!("{t},{k},0,0,0,0"))
            .boxed(),
        "Track" => (id(), id(), id(), id(), any::<bool>(), id(), id())
            .prop_map(|(sub, vol, args, hl, at, patch, prio)| {
                let at = if at { "@" } else { "" };
                format!("0,{sub},{vol},{args},duckpri_normal,kGroupSfx,spl_normal,{at}{hl},{patch},{prio}")
            })
            .boxed(),
        "Patch" => (name(), "[a-z\\\\/.]{0,12}", any::<bool>(), any::<bool>())
            .prop_map(|(n, path, l, p)| format!("0,{n},\"{path}.wav\",{},{},0,0,0", u8::from(l), u8::from(p)))
            .boxed(),
        "GlobalHitList" => hit_list_text().boxed(),
        _ => "\\PC{0,16}".boxed(),
    }
}

fn hot_section() -> impl Strategy<Value = Vec<String>> {
    proptest::sample::select(SECTIONS).prop_flat_map(|section| {
        let entry = prop_oneof![
            8 => (id(), hot_value(section), proptest::sample::select(&[" ", "", "\t"][..]))
                .prop_map(|(k, v, s)| format!("{k}{s}={s}{v}")),
            1 => comment(),
            1 => (id(), hot_value(section)).prop_map(|(k, v)| format!("{k}={v} ; trailing")),
        ];
        proptest::collection::vec(entry, 0..12).prop_map(move |mut lines| {
            if !section.is_empty() {
                lines.insert(0, format!("[{section}]"));
            }
            lines
        })
    })
}

fn hot_document() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        6 => (proptest::collection::vec(hot_section(), 0..6), ending(), any::<bool>(), any::<bool>())
            .prop_map(|(sections, e, trailing, bom)| {
                let mut out = if bom { b"\xef\xbb\xbf".to_vec() } else { Vec::new() };
                out.extend(file(sections.concat(), e, trailing));
                out
            }),
        1 => Just(SEED_HOT.to_vec()),
        1 => Just(DEMO_INI.to_vec()),
    ]
}

/// An edit to try on a `.hot` document: `op`, section, key, value.
fn hot_edit() -> impl Strategy<Value = String> {
    let op = proptest::sample::select(&["set", "insert", "remove"][..]);
    let section = prop_oneof![4 => proptest::sample::select(SECTIONS).prop_map(str::to_string), 1 => "\\PC{0,8}"];
    let key = prop_oneof![4 => id(), 1 => "[ ;#\\[/=a-z]{0,6}"];
    let value = prop_oneof![
        4 => id(),
        2 => hit_list_text(),
        1 => "[ ;\"#a-z0-9=]{0,12}",
        1 => "\\PC{0,12}",
    ];
    (op, section, key, value).prop_map(|(o, s, k, v)| format!("{o}\t{s}\t{k}\t{v}"))
}

fn hot_strategy() -> BoxedStrategy<Input> {
    (
        mutate::mutated(hot_document(), MUTATIONS),
        proptest::collection::vec(hot_edit(), 0..4),
    )
        .prop_map(|(doc, edits)| Input {
            files: vec![
                ("fuzz.hot".to_string(), doc),
                ("edits.tsv".to_string(), edits.join("\n").into_bytes()),
            ],
        })
        .boxed()
}

/// Whether `before`'s lines appear, in order, among `after`'s (ignoring endings).
fn keeps_lines(before: &HotDocument, after: &HotDocument) -> bool {
    let after_lines = after.lines();
    let mut rest = after_lines.iter();
    before
        .lines()
        .iter()
        .all(|line| rest.any(|l| l.content == line.content))
}

fn hot_edit_run(doc: &mut HotDocument, edit: &str) -> Result<(), String> {
    let mut parts = edit.splitn(4, '\t');
    let (Some(op), Some(section), Some(key), Some(value)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Ok(());
    };
    let before = doc.clone();
    let done = match op {
        "set" => doc.set(section, key, value).is_ok(),
        "insert" => doc.insert(section, key, value).is_ok(),
        _ => {
            doc.remove(section, key);
            let again = HotDocument::parse(&doc.to_bytes());
            if again.get(section, key).is_some() {
                return Err(format!(
                    "after remove [{section}] {key:?} the key is still there"
                ));
            }
            return Ok(());
        }
    };
    if !done {
        if doc.to_bytes() != before.to_bytes() {
            return Err(format!("a refused {op} changed the document ({edit:?})"));
        }
        return Ok(());
    }
    let again = HotDocument::parse(&doc.to_bytes());
    if again.get(section, key) != Some(value) {
        return Err(format!(
            "after {op} [{section}] {key:?}={value:?} the file reads back {:?}",
            again.get(section, key)
        ));
    }
    let changed = doc.line_count().abs_diff(before.line_count());
    if op == "set" && changed > 3 {
        return Err(format!("{op} changed the line count by {changed}"));
    }
    if op == "insert" && !keeps_lines(&before, doc) {
        return Err(format!(
            "{op} [{section}] {key:?} rewrote lines it should have kept"
        ));
    }
    Ok(())
}

fn hot_run(input: &Input) -> Result<(), String> {
    let bytes = input.get("fuzz.hot").unwrap_or_default();
    let path = Path::new("fuzz.hot");
    let mut doc = HotDocument::parse(bytes);
    if doc.to_bytes() != bytes {
        return Err("parse → to_bytes did not give the input back".to_string());
    }
    let _ = doc.lines();
    let _ = doc.dominant_ending();
    let (tables, _) = doc.tables(path);
    for list in &tables.global_hit_lists {
        let (parsed, _) = HitList::parse_text(&list.list_text, path, list.line, list.value_column);
        let _ = parsed.id_count();
    }
    let edits = String::from_utf8_lossy(input.get("edits.tsv").unwrap_or_default()).into_owned();
    for edit in edits.lines() {
        hot_edit_run(&mut doc, edit)?;
    }
    Ok(())
}

/// `.hot` options tables: lossless parse, typed views, and the edit API.
pub const HOT: Target = Target {
    name: "hot",
    about: ".hot bytes into HotDocument (round trip, tables, set/insert/remove)",
    cases: 1000,
    memory: TEXT_MEMORY,
    time: TEXT_TIME,
    strategy: hot_strategy,
    run: hot_run,
};

// --- .evt -------------------------------------------------------------------------------

fn evt_line() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => (name(), id(), id(), proptest::sample::select(&[", ", ","][..]))
            .prop_map(|(n, t, k, s)| format!("{n}{s}{t}{s}{k}{s}0{s}0{s}0{s}0")),
        1 => (name(), id()).prop_map(|(n, t)| format!("{n},{t}")),
        1 => comment(),
    ]
}

fn evt_strategy() -> BoxedStrategy<Input> {
    mutate::mutated(document(evt_line(), 40), MUTATIONS)
        .prop_map(|b| Input::single("fuzz.evt", b))
        .boxed()
}

fn evt_run(input: &Input) -> Result<(), String> {
    let (file, _) = evt::EvtFile::parse(&text(input), Path::new("fuzz.evt"));
    let _ = file.to_text();
    let _ = file.get("name_1");
    Ok(())
}

/// `.evt` TSO event lists.
pub const EVT: Target = Target {
    name: "evt",
    about: ".evt text into EvtFile::parse",
    cases: 1000,
    memory: TEXT_MEMORY,
    time: TEXT_TIME,
    strategy: evt_strategy,
    run: evt_run,
};

// --- hit lists --------------------------------------------------------------------------

fn hitlist_text_strategy() -> BoxedStrategy<Input> {
    mutate::mutated(hit_list_text().prop_map(String::into_bytes), MUTATIONS)
        .prop_map(|b| Input::single("fuzz.hitlist", b))
        .boxed()
}

/// Runs everything a loader or editor does with a hit list: write it, resolve its
/// names, expand it into the version-1 encoding.
fn use_hit_list(list: &HitList) {
    let _ = list.to_text();
    let _ = list.to_bytes_text();
    let resolved = list.resolve_names(|name| u32::try_from(name.len()).ok());
    if let Ok(resolved) = resolved {
        let _ = resolved.to_bytes_v1();
    }
}

fn hitlist_text_run(input: &Input) -> Result<(), String> {
    let (list, _) = HitList::parse_text(&text(input), Path::new("fuzz.hot"), 1, 3);
    use_hit_list(&list);
    Ok(())
}

/// Hit lists in the text grammar.
pub const HITLIST_TEXT: Target = Target {
    name: "hitlist-text",
    about: "hit-list text into HitList::parse_text, resolve, encode",
    cases: 1000,
    memory: TEXT_MEMORY,
    time: TEXT_TIME,
    strategy: hitlist_text_strategy,
    run: hitlist_text_run,
};

/// One of the three binary encodings, with the count or length word sometimes lying.
fn hitlist_binary() -> impl Strategy<Value = Vec<u8>> {
    let words = proptest::collection::vec(any::<u32>(), 0..20);
    prop_oneof![
        (words.clone(), any::<i8>()).prop_map(|(ids, lie)| {
            let count = (ids.len() as u32).wrapping_add_signed(i32::from(lie % 3));
            let mut out = 1u32.to_le_bytes().to_vec();
            out.extend(count.to_le_bytes());
            ids.iter().for_each(|id| out.extend(id.to_le_bytes()));
            out
        }),
        (hit_list_text(), any::<i8>()).prop_map(|(text, lie)| {
            let len = (text.len() as u32).wrapping_add_signed(i32::from(lie % 3));
            let mut out = len.to_le_bytes().to_vec();
            out.extend(text.into_bytes());
            out
        }),
        (words, any::<i8>()).prop_map(|(ids, lie)| {
            let count = (ids.len() as u32).wrapping_add_signed(i32::from(lie % 3));
            let mut out = count.to_le_bytes().to_vec();
            ids.iter().for_each(|id| out.extend(id.to_le_bytes()));
            out
        }),
        proptest::collection::vec(any::<u8>(), 0..40),
    ]
}

fn hitlist_binary_strategy() -> BoxedStrategy<Input> {
    (
        hitlist_binary(),
        proptest::collection::vec((any::<u16>(), any::<u8>()), 0..3),
    )
        .prop_map(|(mut bytes, flips)| {
            for (at, value) in flips {
                if !bytes.is_empty() {
                    let at = usize::from(at) % bytes.len();
                    bytes[at] ^= value;
                }
            }
            Input::single("fuzz.hls", bytes)
        })
        .boxed()
}

fn hitlist_binary_run(input: &Input) -> Result<(), String> {
    if let Ok(list) = HitList::from_bytes(input.first()) {
        use_hit_list(&list);
    }
    Ok(())
}

/// Hit lists in the binary encodings.
pub const HITLIST_BINARY: Target = Target {
    name: "hitlist-binary",
    about: "hit-list bytes into HitList::from_bytes, resolve, encode",
    cases: 2000,
    memory: TEXT_MEMORY,
    time: TEXT_TIME,
    strategy: hitlist_binary_strategy,
    run: hitlist_binary_run,
};

// --- .fsc -------------------------------------------------------------------------------

fn fsc_field() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (0i32..1100).prop_map(|n| n.to_string()),
        1 => Just("-".to_string()),
        1 => Just("0.95".to_string()),
        1 => number(),
    ]
}

fn fsc_row() -> impl Strategy<Value = String> {
    (
        name(),
        proptest::collection::vec(fsc_field(), 15..20),
        name(),
    )
        .prop_map(|(label, mut fields, file)| {
            fields.insert(0, label);
            fields.push(file);
            fields.join("\t")
        })
}

fn fsc_document() -> impl Strategy<Value = Vec<u8>> {
    let generated = (
        proptest::sample::select(&["version 7", "version x", "version 99999999999", ""][..]),
        (name(), proptest::collection::vec(fsc_field(), 12..15)),
        lines(
            prop_oneof![6 => fsc_row(), 1 => comment(), 1 => Just("cells\t1\t2".to_string())],
            30,
        ),
        ending(),
    )
        .prop_map(|(version, (label, header), rows, e)| {
            let mut all = vec![
                version.to_string(),
                format!("{label}\t{}", header.join("\t")),
            ];
            all.extend(rows);
            file(all, e, true)
        });
    prop_oneof![4 => generated, 1 => Just(DEMO_FSC.to_vec())]
}

fn fsc_strategy() -> BoxedStrategy<Input> {
    mutate::mutated(fsc_document(), MUTATIONS)
        .prop_map(|b| Input::single("fuzz.fsc", b))
        .boxed()
}

fn fsc_run(input: &Input) -> Result<(), String> {
    let (score, _) = fsc::FscScore::parse(&text(input), Path::new("fuzz.fsc"));
    let written = score.to_text();
    let _ = fsc::FscScore::parse(&written, Path::new("again.fsc"));
    Ok(())
}

/// `.fsc` ambience scores.
pub const FSC: Target = Target {
    name: "fsc",
    about: ".fsc text into FscScore::parse and back",
    cases: 1000,
    memory: TEXT_MEMORY,
    time: TEXT_TIME,
    strategy: fsc_strategy,
    run: fsc_run,
};

// --- .sym and .hdb ----------------------------------------------------------------------

fn magic(kind: &'static str) -> impl Strategy<Value = String> {
    prop_oneof![
        8 => Just(format!("{kind} 1")),
        1 => Just(format!("{kind} 2")),
        1 => Just(kind.to_string()),
        1 => Just(format!("{kind} 99999999999999999999")),
    ]
}

fn records(
    kind: &'static str,
    record: impl Strategy<Value = String>,
) -> impl Strategy<Value = Vec<u8>> {
    (
        magic(kind),
        lines(prop_oneof![8 => record, 1 => comment()], 40),
        ending(),
    )
        .prop_map(|(magic, mut records, e)| {
            records.insert(0, magic);
            file(records, e, true)
        })
}

fn small() -> impl Strategy<Value = String> {
    prop_oneof![8 => (0u32..64).prop_map(|n| n.to_string()), 1 => number()]
}

fn sym_record() -> impl Strategy<Value = String> {
    let kind = proptest::sample::select(&["code", "value", "other"][..]);
    prop_oneof![
        2 => (small(), "[a-z/]{1,10}\\.src").prop_map(|(i, p)| format!("file\t{i}\t{p}")),
        4 => (name(), kind.clone(), number()).prop_map(|(n, k, v)| format!("export\t{n}\t{k}\t{v}")),
        4 => (name(), kind, small(), small(), small())
            .prop_map(|(n, k, o, f, l)| format!("import\t{n}\t{k}\t{o}\t{f}\t{l}")),
        1 => "[a-z\t]{0,20}",
    ]
}

fn sym_strategy() -> BoxedStrategy<Input> {
    mutate::mutated(records("HITBENCH-SYM", sym_record()), MUTATIONS)
        .prop_map(|b| Input::single("fuzz.sym", b))
        .boxed()
}

fn sym_run(input: &Input) -> Result<(), String> {
    let (file, _) = sym::SymFile::parse(&text(input), Path::new("fuzz.sym"));
    let written = file.to_text();
    let _ = sym::SymFile::parse(&written, Path::new("again.sym"));
    let _ = file.export("name_1");
    Ok(())
}

/// `.sym` linking interfaces.
pub const SYM: Target = Target {
    name: "sym",
    about: ".sym text into SymFile::parse and back",
    cases: 1000,
    memory: TEXT_MEMORY,
    time: TEXT_TIME,
    strategy: sym_strategy,
    run: sym_run,
};

fn hdb_record() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => (small(), "[a-z/]{1,10}\\.src").prop_map(|(i, p)| format!("file\t{i}\t{p}")),
        5 => (small(), small(), small(), small())
            .prop_map(|(s, e, f, l)| format!("line\t{s}\t{e}\t{f}\t{l}")),
        3 => (small(), name(), small(), small())
            .prop_map(|(a, n, f, l)| format!("label\t{a}\t{n}\t{f}\t{l}")),
        1 => "[a-z\t]{0,20}",
    ]
}

fn hdb_strategy() -> BoxedStrategy<Input> {
    mutate::mutated(records("HITBENCH-HDB", hdb_record()), MUTATIONS)
        .prop_map(|b| Input::single("fuzz.hdb", b))
        .boxed()
}

fn hdb_run(input: &Input) -> Result<(), String> {
    let (file, _) = hdb::HdbFile::parse(&text(input), Path::new("fuzz.hdb"));
    let written = file.to_text();
    let _ = hdb::HdbFile::parse(&written, Path::new("again.hdb"));
    for address in [0, 16, 17, 40, u32::MAX] {
        let _ = file.locate(address);
        let _ = file.label_at(address);
    }
    Ok(())
}

/// `.hdb` debug info.
pub const HDB: Target = Target {
    name: "hdb",
    about: ".hdb text into HdbFile::parse, locate, and back",
    cases: 1000,
    memory: TEXT_MEMORY,
    time: TEXT_TIME,
    strategy: hdb_strategy,
    run: hdb_run,
};
