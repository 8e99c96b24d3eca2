//! Small generators the document generators share: names, numbers, line endings, and
//! joining generated lines into a file.

use proptest::prelude::*;

/// Built-in names worth using as values (constants, registers, mnemonics).
pub const BUILTINS: &[&str] = &[
    "kSndobPlay",
    "kSndobStop",
    "kSndobKill",
    "kPlayPiano",
    "kTurnOnTV",
    "kSetMusicMode",
    "kArgsNormal",
    "kArgsIdVolPan",
    "kArgsXYZ",
    "kGroupSfx",
    "kGroupMusic",
    "kGroupVox",
    "duckpri_normal",
    "duckpri_never",
    "spl_normal",
    "Instance",
    "kFieldGender",
    "v1",
    "patch",
    "note_on",
];

/// A name: mostly identifiers, from a small pool so that definitions and uses meet,
/// sometimes a built-in or something odd.
pub fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (0u8..12).prop_map(|i| format!("name_{i}")),
        2 => proptest::sample::select(BUILTINS).prop_map(str::to_string),
        1 => "[A-Za-z_][A-Za-z0-9_]{0,12}",
        1 => "[a-f]{1,4}",
        1 => "\\PC{0,6}",
    ]
}

/// A number as text: mostly small, sometimes hex, huge or negative.
pub fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (0u32..2000).prop_map(|n| n.to_string()),
        2 => any::<u32>().prop_map(|n| format!("0x{n:x}")),
        1 => any::<i64>().prop_map(|n| n.to_string()),
        1 => proptest::sample::select(crate::mutate::NUMBERS).prop_map(str::to_string),
    ]
}

/// An ID as text: a number or a name.
pub fn id() -> impl Strategy<Value = String> {
    prop_oneof![3 => number(), 1 => name()]
}

/// A line ending: mostly LF, sometimes CRLF.
pub fn ending() -> impl Strategy<Value = &'static str> {
    prop_oneof![4 => Just("\n"), 1 => Just("\r\n")]
}

/// Lines joined with `ending`, with a final ending unless `trailing` is false.
pub fn join(lines: &[String], ending: &str, trailing: bool) -> Vec<u8> {
    let mut out = lines.join(ending);
    if trailing && !lines.is_empty() {
        out.push_str(ending);
    }
    out.into_bytes()
}

/// A comment line in `;` or `#` style.
pub fn comment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("; a comment".to_string()),
        Just("# a comment".to_string()),
        Just(String::new()),
        "; \\PC{0,20}",
    ]
}
