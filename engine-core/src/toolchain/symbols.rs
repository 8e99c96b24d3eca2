//! Built-in symbols: what Maxis' `defaultsyms.txt` gave every MakeTrax source — the 96
//! mnemonics, the register names of the chosen layout and the named constants of
//! hit-reference §3.1 (event types, args types, control groups, ducking priorities, SPL,
//! sequence groups, music modes, object data fields).
//!
//! Names are case-insensitive. `docs/asm.md` lists every constant.

use crate::toolchain::isa;
use crate::toolchain::registers::{self, Layout};
use std::collections::HashMap;
use std::sync::LazyLock;

/// What a built-in name stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuiltinKind {
    /// An instruction mnemonic; the value is its opcode.
    Opcode,
    /// A variable; the value is its number.
    Register,
    /// A named constant.
    Constant,
}

/// One built-in symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Builtin {
    /// The name as documented.
    pub name: &'static str,
    /// Its value.
    pub value: i64,
    /// What it is.
    pub kind: BuiltinKind,
}

/// Named constants (hit-reference §3.1, the seed's track examples, and HitBench's object
/// data field numbering).
pub const CONSTANTS: &[(&str, i64)] = &[
    // Event types (Niotso spells them kSndob…; FreeSO kSoundob…).
    ("kSndobPlay", 1),
    ("kSndobStop", 2),
    ("kSndobKill", 3),
    ("kSndobUpdate", 4),
    ("kSndobSetVolume", 5),
    ("kSndobSetPitch", 6),
    ("kSndobSetPan", 7),
    ("kSndobSetPosition", 8),
    ("kSndobSetFxType", 9),
    ("kSndobSetFxLevel", 10),
    ("kSndobPause", 11),
    ("kSndobUnpause", 12),
    ("kSndobLoad", 13),
    ("kSndobUnload", 14),
    ("kSndobCache", 15),
    ("kSndobUncache", 16),
    ("kSndobCancelNote", 19),
    ("kSoundobPlay", 1),
    ("kSoundobStop", 2),
    ("kSoundobKill", 3),
    ("kKillAll", 20),
    ("kPause", 21),
    ("kUnpause", 22),
    ("kKillInstance", 23),
    ("kTurnOnTV", 30),
    ("kTurnOffTV", 31),
    ("kUpdateSourceVolPan", 32),
    ("kSetMusicMode", 36),
    ("kPlayPiano", 43),
    ("kDebugEventsOn", 44),
    ("kDebugEventsOff", 45),
    ("kDebugSamplesOn", 46),
    ("kDebugSamplesOff", 47),
    ("kDebugTracksOn", 48),
    ("kDebugTracksOff", 49),
    // Track argument types.
    ("kArgsNormal", 0),
    ("kArgsVolPan", 1),
    ("kArgsIdVolPan", 2),
    ("kArgsXYZ", 3),
    // Control groups (Niotso), and the alternative naming also found in the data.
    ("kGroupSfx", 1),
    ("kGroupMusic", 2),
    ("kGroupVox", 3),
    ("GroupMusic", 1),
    ("GroupDialogMain", 2),
    ("GroupDialogOverlay", 3),
    // Ducking priorities (Niotso and the console dump say low = 10).
    ("duckpri_always", 0),
    ("duckpri_low", 10),
    ("duckpri_normal", 20),
    ("duckpri_high", 30),
    ("duckpri_higher", 40),
    ("duckpri_evenhigher", 50),
    ("duckpri_never", 100),
    // Sound pressure levels.
    ("spl_infinite", 0),
    ("spl_loud", 10),
    ("spl_normal", 20),
    ("spl_quiet", 100),
    // Sequence groups (seqgroup_kill Instance = this actor's vocals).
    ("Instance", 0),
    ("Gender", 1),
    // Music modes.
    ("kLive", 0),
    ("kBuy", 1),
    ("kBuild", 2),
    ("kHood", 3),
    ("kFrontEnd", 4),
    // TV/radio channels (only the two ends of the range are known by name).
    ("kAction", 1000),
    ("kClassical", 1007),
    // TS1 radio track IDs.
    ("TrkRadioStationCountry", 0x104),
    ("TrkRadioStationClassical", 0x10D),
    ("TrkRadioStationBossaNova", 0x10E),
    ("TrkRadioStationRock", 0x118),
    // Object data fields read by getsrcdatafield (the seed's tracks use 0 = gender,
    // 5 = creativity, 18 = playfulness, 20 = neatness; the rest follow FreeSO's table).
    ("kFieldGender", 0),
    ("kFieldCooking", 2),
    ("kFieldCreativity", 5),
    ("kFieldMechanical", 7),
    ("kFieldBody", 11),
    ("kFieldAge", 14),
    ("kFieldNice", 15),
    ("kFieldActive", 16),
    ("kFieldGenerous", 17),
    ("kFieldPlayful", 18),
    ("kFieldOutgoing", 19),
    ("kFieldNeat", 20),
    // Gender values a gender field holds.
    ("kGenderMale", 0),
    ("kGenderFemale", 1),
    ("kGenderChild", 2),
];

struct Table {
    by_name: HashMap<String, Builtin>,
    ordered: Vec<Builtin>,
}

fn build(layout: Layout) -> Table {
    let mut ordered = Vec::new();
    for info in &isa::OPCODES {
        ordered.push(Builtin {
            name: info.mnemonic,
            value: i64::from(info.opcode),
            kind: BuiltinKind::Opcode,
        });
    }
    for (number, name) in registers::all(layout) {
        ordered.push(Builtin {
            name,
            value: i64::from(number),
            kind: BuiltinKind::Register,
        });
    }
    for &(name, value) in CONSTANTS {
        ordered.push(Builtin {
            name,
            value,
            kind: BuiltinKind::Constant,
        });
    }
    let mut by_name = HashMap::new();
    for builtin in &ordered {
        by_name
            .entry(builtin.name.to_ascii_lowercase())
            .or_insert(*builtin);
    }
    // Register aliases resolve but are not listed.
    if layout == Layout::Tso
        && let Some(number) = registers::lookup(layout, "AppObjectId")
    {
        by_name.insert(
            "appobjectid".to_string(),
            Builtin {
                name: "AppObjectId",
                value: i64::from(number),
                kind: BuiltinKind::Register,
            },
        );
    }
    Table { by_name, ordered }
}

static TS1_TABLE: LazyLock<Table> = LazyLock::new(|| build(Layout::Ts1));
static TSO_TABLE: LazyLock<Table> = LazyLock::new(|| build(Layout::Tso));

fn table(layout: Layout) -> &'static Table {
    match layout {
        Layout::Ts1 => &TS1_TABLE,
        Layout::Tso => &TSO_TABLE,
    }
}

/// Looks a built-in name up (case-insensitive) in the given layout.
pub fn lookup(layout: Layout, name: &str) -> Option<Builtin> {
    let by_name = &table(layout).by_name;
    if name.bytes().any(|b| b.is_ascii_uppercase()) {
        by_name.get(&name.to_ascii_lowercase()).copied()
    } else {
        by_name.get(name).copied()
    }
}

/// Every built-in of a layout: mnemonics, then registers, then constants.
pub fn all(layout: Layout) -> &'static [Builtin] {
    &table(layout).ordered
}

/// Looks up a constant by exact (case-insensitive) name, ignoring opcodes and registers.
pub fn constant(name: &str) -> Option<i64> {
    CONSTANTS
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|&(_, value)| value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_do_not_collide() {
        for layout in [Layout::Ts1, Layout::Tso] {
            let mut seen = HashMap::new();
            for builtin in all(layout) {
                let key = builtin.name.to_ascii_lowercase();
                if let Some(previous) = seen.insert(key, builtin) {
                    panic!("{layout}: {} defined twice ({previous:?})", builtin.name);
                }
            }
        }
    }

    #[test]
    fn lookups() {
        let b = lookup(Layout::Tso, "NOTE_ON");
        assert_eq!(b.map(|b| (b.value, b.kind)), Some((2, BuiltinKind::Opcode)));
        let r = lookup(Layout::Ts1, "patch");
        assert_eq!(
            r.map(|b| (b.value, b.kind)),
            Some((0x32, BuiltinKind::Register))
        );
        let c = lookup(Layout::Ts1, "instance");
        assert_eq!(
            c.map(|b| (b.value, b.kind)),
            Some((0, BuiltinKind::Constant))
        );
        assert_eq!(constant("kTurnOnTV"), Some(30));
        assert_eq!(constant("kDebugTracksOff"), Some(49));
        assert!(lookup(Layout::Tso, "appobjectid").is_some());
        assert!(lookup(Layout::Tso, "no_such_name").is_none());
    }
}
