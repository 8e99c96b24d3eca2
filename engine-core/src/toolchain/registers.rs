//! Variable (register) numbering: args, v1–v8, h1–h3, the two track-register layouts
//! (TS1 and TSO, hit-reference §1.3) and the globals.
//!
//! A variable operand is one byte. The names here are what the assembler accepts and the
//! disassembler prints; both layouts share everything outside 0x10–0x45.

use std::fmt;
use std::str::FromStr;

/// Which game's track-register layout a `.hit` uses (hit-reference §1.3).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub enum Layout {
    /// The Sims 1 (Niotso `TS1Variables`).
    Ts1,
    /// The Sims Online (Niotso `TSOVariables`); the default for `.hit` files with an
    /// ENTP table.
    #[default]
    Tso,
}

impl Layout {
    /// How prose names the layout: `"TS1"` or `"TSO"`.
    pub fn title(self) -> &'static str {
        match self {
            Layout::Ts1 => "TS1",
            Layout::Tso => "TSO",
        }
    }

    /// `"ts1"` or `"tso"`, as directives and options spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Layout::Ts1 => "ts1",
            Layout::Tso => "tso",
        }
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Layout {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.to_ascii_lowercase().as_str() {
            "ts1" => Ok(Layout::Ts1),
            "tso" => Ok(Layout::Tso),
            _ => Err(format!(
                "unknown register layout `{text}` (expected ts1 or tso)"
            )),
        }
    }
}

/// First global variable (`SimSpeed`).
pub const FIRST_GLOBAL: u8 = 0x64;
/// Last global variable.
pub const LAST_GLOBAL: u8 = 0x87;
/// Number of global slots shared by all threads.
pub const GLOBAL_COUNT: usize = (LAST_GLOBAL - FIRST_GLOBAL + 1) as usize;

/// Names shared by both layouts: (number, name).
const COMMON: &[(u8, &str)] = &[
    (0x00, "arg0"),
    (0x01, "arg1"),
    (0x02, "arg2"),
    (0x03, "arg3"),
    (0x04, "arg4"),
    (0x05, "v1"),
    (0x06, "v2"),
    (0x07, "v3"),
    (0x08, "v4"),
    (0x09, "v5"),
    (0x0A, "v6"),
    (0x0B, "v7"),
    (0x0C, "v8"),
    (0x0D, "h1"),
    (0x0E, "h2"),
    (0x0F, "h3"),
    (0x64, "SimSpeed"),
    (0x65, "test_g1"),
    (0x66, "test_g2"),
    (0x67, "test_g3"),
    (0x68, "test_g4"),
    (0x69, "test_g5"),
    (0x6A, "test_g6"),
    (0x6B, "test_g7"),
    (0x6C, "test_g8"),
    (0x6D, "test_g9"),
    (0x6E, "main_songnum"),
    (0x6F, "main_musichitlistid"),
    (0x70, "campfire_nexttrack"),
    (0x71, "campfire_busy"),
    (0x7B, "main_duckpri"),
    (0x7C, "main_vol"),
    (0x7D, "main_fxtype"),
    (0x7E, "main_fxlevel"),
    (0x7F, "main_pause"),
];

/// TSO track registers (Niotso `TSOVariables`, confirmed by FreeSO). 0x33 is called
/// `loop` in the older list; HitBench names it `IsLooped` (as TS1 does) because `loop`
/// is also a mnemonic.
const TSO: &[(u8, &str)] = &[
    (0x10, "argstype"),
    (0x11, "trackdatasource"),
    (0x12, "patch"),
    (0x13, "priority"),
    (0x14, "vol"),
    (0x15, "extvol"),
    (0x16, "pan"),
    (0x17, "pitch"),
    (0x18, "paused"),
    (0x19, "fxtype"),
    (0x1A, "fxlevel"),
    (0x1B, "duckpri"),
    (0x1C, "Is3d"),
    (0x1D, "IsHeadRelative"),
    (0x1E, "MinDistance"),
    (0x1F, "MaxDistance"),
    (0x20, "X"),
    (0x21, "Y"),
    (0x22, "Z"),
    (0x23, "attack"),
    (0x24, "decay"),
    (0x25, "IsStreamed"),
    (0x26, "bufsizemult"),
    (0x27, "fade_dest"),
    (0x28, "fade_var"),
    (0x29, "fade_speed"),
    (0x2A, "fade_on"),
    (0x2B, "Preload"),
    (0x2C, "isplaying"),
    (0x2D, "whattodowithupdate"),
    (0x2E, "tempo"),
    (0x2F, "target"),
    (0x30, "ctrlgroup"),
    (0x31, "interrupt"),
    (0x32, "ispositioned"),
    (0x33, "IsLooped"),
    (0x34, "source"),
    (0x35, "callbackarg"),
    (0x36, "pitchrandmin"),
    (0x37, "pitchrandmax"),
    (0x38, "spl"),
    (0x39, "sem"),
    (0x3A, "starttrackid"),
    (0x3B, "endtrackid"),
    (0x3C, "startdelay"),
    (0x3D, "fadeinspeed"),
    (0x3E, "fadeoutspeed"),
    (0x3F, "hitlist"),
    (0x40, "velocx"),
    (0x41, "velocy"),
    (0x42, "velocz"),
    (0x43, "orientx"),
    (0x44, "orienty"),
    (0x45, "orientz"),
    // HitBench: TSO has no register for this TS1 attribute; the first unmapped slot
    // holds it so TSO tracks can allow multiple instances too.
    (0x46, "MultipleInstances"),
];

/// Aliases accepted in TSO source but never printed.
const TSO_ALIASES: &[(u8, &str)] = &[(0x34, "AppObjectId")];

/// TS1 track registers (Niotso `TS1Variables`).
const TS1: &[(u8, &str)] = &[
    (0x11, "priority"),
    (0x12, "vol"),
    (0x13, "extvol"),
    (0x14, "pan"),
    (0x15, "pitch"),
    (0x16, "paused"),
    (0x17, "fxtype"),
    (0x18, "fxlevel"),
    (0x19, "duckpri"),
    (0x1A, "Is3d"),
    (0x1B, "IsHeadRelative"),
    (0x1C, "MinDistance"),
    (0x1D, "MaxDistance"),
    (0x1E, "X"),
    (0x1F, "Y"),
    (0x20, "Z"),
    (0x21, "filter_type"),
    (0x22, "filter_cutoff"),
    (0x23, "filter_level"),
    (0x24, "attack"),
    (0x25, "decay"),
    (0x26, "IsStreamed"),
    (0x27, "BufSizeMult"),
    (0x28, "fade_dest"),
    (0x29, "fade_var"),
    (0x2A, "fade_speed"),
    (0x2B, "Preload"),
    (0x2C, "IsLooped"),
    (0x2D, "fade_on"),
    (0x2E, "isplaying"),
    (0x2F, "source"),
    (0x32, "patch"),
    (0x33, "WhatToDoWithUpdate"),
    (0x34, "tempo"),
    (0x35, "target"),
    (0x36, "mutegroup"),
    (0x37, "interrupt"),
    (0x38, "IsPositioned"),
    (0x39, "Spl"),
    (0x3A, "MultipleInstances"),
    (0x3B, "AssociatedTrack1"),
    (0x3C, "AssociatedTrack2"),
    (0x3D, "AssociatedTrack3"),
    (0x3E, "AssociatedTrack4"),
    (0x3F, "AssociatedTrack5"),
    (0x40, "AssociatedTrack6"),
    (0x41, "AssociatedTrack7"),
    (0x42, "AssociatedTrack8"),
];

fn layout_table(layout: Layout) -> &'static [(u8, &'static str)] {
    match layout {
        Layout::Ts1 => TS1,
        Layout::Tso => TSO,
    }
}

/// Every (number, name) pair of a layout, common names first, without aliases.
pub fn all(layout: Layout) -> impl Iterator<Item = (u8, &'static str)> {
    COMMON
        .iter()
        .chain(layout_table(layout))
        .map(|&(number, name)| (number, name))
}

/// The printed name of a variable, if it has one in this layout.
pub fn name(layout: Layout, var: u8) -> Option<&'static str> {
    all(layout).find(|&(n, _)| n == var).map(|(_, name)| name)
}

/// The variable number of a name in this layout (case-insensitive; aliases accepted).
pub fn lookup(layout: Layout, name: &str) -> Option<u8> {
    let aliases: &[(u8, &str)] = match layout {
        Layout::Tso => TSO_ALIASES,
        Layout::Ts1 => &[],
    };
    all(layout)
        .chain(aliases.iter().copied())
        .find(|(_, n)| n.eq_ignore_ascii_case(name))
        .map(|(number, _)| number)
}

/// The registers that hold a volume on the HIT scale (0 silent – 1024 full): the
/// track's `vol` and `extvol` (either layout) and the global `main_vol`.
pub const VOLUME_REGISTERS: [&str; 3] = ["vol", "extvol", "main_vol"];

/// True if the register named `name` holds a volume on the HIT scale.
pub fn holds_volume(name: &str) -> bool {
    VOLUME_REGISTERS
        .iter()
        .any(|volume| volume.eq_ignore_ascii_case(name))
}

/// True if `var` is one of the global variables (0x64–0x87).
pub fn is_global(var: u8) -> bool {
    (FIRST_GLOBAL..=LAST_GLOBAL).contains(&var)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_listing_numbers_hold() {
        // Maxis' source listing: v1 = 5. arg1 is the source ID in the design document's
        // tracks.
        assert_eq!(lookup(Layout::Tso, "v1"), Some(5));
        assert_eq!(lookup(Layout::Ts1, "V8"), Some(0x0C));
        assert_eq!(lookup(Layout::Tso, "arg1"), Some(1));
    }

    #[test]
    fn layouts_differ_where_the_reference_says() {
        assert_eq!(lookup(Layout::Tso, "patch"), Some(0x12));
        assert_eq!(lookup(Layout::Ts1, "patch"), Some(0x32));
        assert_eq!(lookup(Layout::Ts1, "vol"), Some(0x12));
        assert_eq!(lookup(Layout::Tso, "interrupt"), Some(0x31));
        assert_eq!(lookup(Layout::Ts1, "interrupt"), Some(0x37));
        assert_eq!(lookup(Layout::Ts1, "MultipleInstances"), Some(0x3A));
        assert_eq!(lookup(Layout::Tso, "MultipleInstances"), Some(0x46));
        assert_eq!(lookup(Layout::Tso, "mutegroup"), None);
        assert_eq!(lookup(Layout::Tso, "appobjectid"), Some(0x34));
        assert_eq!(name(Layout::Tso, 0x34), Some("source"));
    }

    #[test]
    fn the_volume_registers_exist_in_both_layouts() {
        for layout in [Layout::Ts1, Layout::Tso] {
            for volume in VOLUME_REGISTERS {
                assert!(lookup(layout, volume).is_some(), "{layout}: {volume}");
            }
        }
        assert!(holds_volume("VOL") && !holds_volume("v1"));
    }

    #[test]
    fn names_are_unique_per_layout() {
        for layout in [Layout::Ts1, Layout::Tso] {
            let mut seen = std::collections::HashSet::new();
            let mut numbers = std::collections::HashSet::new();
            for (number, name) in all(layout) {
                assert!(seen.insert(name.to_ascii_lowercase()), "{layout} {name}");
                assert!(numbers.insert(number), "{layout} {number}");
                assert_eq!(lookup(layout, name), Some(number));
            }
        }
        assert!(is_global(0x64) && is_global(0x87) && !is_global(0x88));
        assert_eq!(GLOBAL_COUNT, 36);
    }
}
