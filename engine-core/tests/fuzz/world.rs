//! The world's files: lot files (every statement, quoted names, fields, huge and odd
//! numbers) and `world.ini` (every section the world reads). Each case parses them,
//! writes the lot back and reads it again, and places every object in the view: volumes
//! and pans must stay in their documented ranges whatever the settings say.

use crate::harness::{Input, MIB, MemoryBound, Target};
use crate::mutate;
use crate::words::{comment, ending, join, number};
use engine_core::world::ambience::AmbienceSettings;
use engine_core::world::lot::Lot;
use engine_core::world::music::MusicSettings;
use engine_core::world::settings::WorldIni;
use engine_core::world::stations::station_defs;
use engine_core::world::view::{self, ViewSettings};
use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Memory bound of the world targets (text parsers, as [`crate::formats::TEXT_MEMORY`]).
pub const MEMORY: MemoryBound = MemoryBound {
    per_byte: 64,
    per_line: 1024,
    fixed: 16 * MIB,
};
/// Time limit of one case (debug build).
pub const TIME: Duration = Duration::from_secs(10);

const MUTATIONS: usize = 4;

/// The demo's lot and settings: real files.
const DEMO_LOT: &[u8] = include_bytes!("../../../projects/demo/demo.lot");
const DEMO_INI: &[u8] = include_bytes!("../../../projects/demo/world.ini");

fn float() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (-50.0f32..50.0).prop_map(|v| format!("{v}")),
        2 => (0u32..30).prop_map(|v| v.to_string()),
        1 => any::<f32>().prop_map(|v| format!("{v}")),
        1 => Just("16777217".to_string()),
        1 => number(),
    ]
}

fn small_int() -> impl Strategy<Value = String> {
    prop_oneof![6 => (-3i32..12).prop_map(|v| v.to_string()), 1 => number()]
}

fn object_line() -> impl Strategy<Value = String> {
    let kind = proptest::sample::select(
        &[
            "person", "tv", "radio", "stereo", "piano", "baby", "generic", "TV", "lamp",
        ][..],
    );
    let part = prop_oneof![
        3 => (float(), float()).prop_map(|(x, y)| format!("at {x} {y}")),
        1 => small_int().prop_map(|f| format!("floor {f}")),
        1 => Just("on".to_string()),
        1 => Just("off".to_string()),
        1 => number().prop_map(|s| format!("station={s}")),
        3 => (
            proptest::sample::select(&["gender", "age", "creativity", "neat", "playful", "0", "31", "32", "bogus"][..]),
            prop_oneof![small_int(), Just("male".to_string()), Just("child".to_string())],
        )
            .prop_map(|(f, v)| format!("{f}={v}")),
    ];
    (
        small_int(),
        kind,
        proptest::option::of("[A-Za-z \"\\\\]{0,12}"),
        proptest::collection::vec(part, 0..6),
    )
        .prop_map(|(id, kind, name, parts)| {
            let mut line = format!("object {id} {kind}");
            if let Some(name) = name {
                line.push_str(&format!(
                    " \"{}\"",
                    name.replace('\\', "\\\\").replace('"', "\\\"")
                ));
            }
            for p in parts {
                line.push(' ');
                line.push_str(&p);
            }
            line
        })
}

fn lot_line() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => float().prop_map(|h| format!("hour {h}")),
        1 => proptest::sample::select(&["live", "buy", "build", "load", "credits", "disco"][..])
            .prop_map(|m| format!("mode {m}")),
        2 => (float(), float(), proptest::collection::vec(
                (proptest::sample::select(&["zoom", "rotation", "floor"][..]), small_int()), 0..3))
            .prop_map(|(x, y, opts)| {
                let mut line = format!("camera {x} {y}");
                for (k, v) in opts {
                    line.push_str(&format!(" {k} {v}"));
                }
                line
            }),
        1 => (float(), float()).prop_map(|(w, h)| format!("screen {w} {h}")),
        1 => small_int().prop_map(|c| format!("controlled {c}")),
        1 => float().prop_map(|r| format!("room {r}")),
        1 => (
            proptest::sample::select(&["Hall", "Bath room", "Kitchen", "\\\"odd\\\""][..]),
            (float(), float(), float(), float()),
            proptest::option::of(small_int()),
        )
            .prop_map(|(name, (x1, y1, x2, y2), floor)| {
                let mut line = format!("room \"{name}\" {x1} {y1} {x2} {y2}");
                if let Some(floor) = floor {
                    line.push_str(&format!(" floor {floor}"));
                }
                line
            }),
        8 => object_line(),
        1 => comment(),
    ]
}

/// A lot file: header comments, then statements.
pub fn lot_document() -> impl Strategy<Value = Vec<u8>> {
    let generated = (
        proptest::collection::vec("# [a-z ]{0,20}", 0..3),
        proptest::collection::vec(lot_line(), 0..25),
        ending(),
    )
        .prop_map(|(mut head, body, e)| {
            head.extend(body);
            join(&head, e, true)
        });
    prop_oneof![5 => generated, 1 => Just(DEMO_LOT.to_vec())]
}

/// A `world.ini`: every section the world reads, with good and bad values.
pub fn ini_document(lot_name: &'static str) -> impl Strategy<Value = Vec<u8>> {
    let list = |n| proptest::collection::vec(float(), n).prop_map(|v| v.join(", "));
    let view = prop_oneof![
        (list(1..4)).prop_map(|v| format!("TileSize = {v}")),
        (list(1..3)).prop_map(|v| format!("Screen = {v}")),
        (list(1..3)).prop_map(|v| format!("FullVolumeArea = {v}")),
        float().prop_map(|v| format!("FadeDistance = {v}")),
        proptest::sample::select(&["linear", "equal-power", "smooth", "cubic"][..])
            .prop_map(|v| format!("FadeCurve = {v}")),
        (list(1..4)).prop_map(|v| format!("ZoomGain = {v}")),
        float().prop_map(|v| format!("FloorBelowGain = {v}")),
        float().prop_map(|v| format!("FloorAboveGain = {v}")),
        float().prop_map(|v| format!("PanRange = {v}")),
        float().prop_map(|v| format!("StationWeightPower = {v}")),
        float().prop_map(|v| format!("StationWeightNear = {v}")),
    ];
    let path = prop_oneof![
        Just("sounds/music".to_string()),
        Just("score.fsc".to_string()),
        Just("../outside".to_string()),
        Just("/".to_string()),
        Just("\"\"".to_string()),
        "[a-z/\\\\.]{0,12}",
    ];
    let stations = (
        number(),
        path.clone(),
        proptest::option::of(proptest::sample::select(&["fx", "music", "vox", ""][..])),
    )
        .prop_map(|(c, p, g)| match g {
            Some(g) => format!("{c} = {p}, {g}"),
            None => format!("{c} = {p}"),
        });
    let music = (
        proptest::sample::select(
            &[
                "Buy",
                "Build",
                "Load",
                "Neighborhood",
                "River",
                "FadeOut",
                "FadeIn",
                "Volume",
                "Nope",
            ][..],
        ),
        prop_oneof![path.clone(), float()],
    )
        .prop_map(|(k, v)| format!("{k} = {v}"));
    let ambience = (
        proptest::sample::select(
            &[
                "Score",
                "NightLoop",
                "NightStart",
                "NightEnd",
                "SmallRoom",
                "Reverb",
                "Volume",
                "Freshness",
                "Distance",
                "Fade",
                "Odd",
            ][..],
        ),
        prop_oneof![path, float()],
    )
        .prop_map(|(k, v)| format!("{k} = {v}"));
    let generated = (
        proptest::collection::vec(view, 0..6),
        proptest::collection::vec(stations, 0..4),
        proptest::collection::vec(music, 0..4),
        proptest::collection::vec(ambience, 0..4),
        ending(),
    )
        .prop_map(move |(view, stations, music, ambience, e)| {
            let mut lines = vec![
                "[Lot]".to_string(),
                format!("File = {lot_name}"),
                "[View]".to_string(),
            ];
            lines.extend(view);
            lines.push("[Stations]".to_string());
            lines.extend(stations);
            lines.push("[Music]".to_string());
            lines.extend(music);
            lines.push("[Ambience]".to_string());
            lines.extend(ambience);
            join(&lines, e, true)
        });
    prop_oneof![5 => generated, 1 => Just(DEMO_INI.to_vec())]
}

/// Places every object of `lot` under `settings` and checks the documented ranges.
fn place_everything(lot: &Lot, settings: &ViewSettings) -> Result<(), String> {
    let camera = lot.camera(settings);
    for (object, placement) in view::place_all(&lot.objects, &camera, settings) {
        if !(0..=1024).contains(&placement.volume)
            || !(0..=1024).contains(&placement.pan)
            || !placement.weight.is_finite()
        {
            return Err(format!(
                "object {} placed out of range: volume {}, pan {}, weight {}",
                object.id, placement.volume, placement.pan, placement.weight
            ));
        }
        if let Some(station) = object.station {
            let mix = view::station_mix(&lot.objects, station, &camera, settings);
            if !(0..=1024).contains(&mix.volume) || !(0..=1024).contains(&mix.pan) {
                return Err(format!(
                    "station {station} mixed out of range: volume {}, pan {}",
                    mix.volume, mix.pan
                ));
            }
        }
    }
    Ok(())
}

fn lot_run(input: &Input) -> Result<(), String> {
    let text = String::from_utf8_lossy(input.first()).into_owned();
    let (lot, _) = Lot::parse(&text, Path::new("fuzz.lot"));
    let written = lot.to_text();
    let (again, problems) = Lot::parse(&written, Path::new("written.lot"));
    if let Some(error) = problems.iter().find(|d| d.is_error()) {
        return Err(format!("the lot as written does not read back: {error}"));
    }
    if again != lot {
        return Err(format!(
            "the lot as written reads back differently:\n{written}"
        ));
    }
    place_everything(&lot, &ViewSettings::default())
}

fn lot_strategy() -> BoxedStrategy<Input> {
    mutate::mutated(lot_document(), MUTATIONS)
        .prop_map(|b| Input::single("fuzz.lot", b))
        .boxed()
}

/// Lot files.
pub const LOT: Target = Target {
    name: "lot",
    about: "lot text into Lot::parse, to_text and back, placement",
    cases: 1000,
    memory: MEMORY,
    time: TIME,
    strategy: lot_strategy,
    run: lot_run,
};

fn ini_run(input: &Input) -> Result<(), String> {
    let mut ini = WorldIni::default();
    ini.add(
        Path::new("data/world.ini"),
        Path::new("data"),
        input.get("world.ini").unwrap_or_default(),
    );
    let mut diagnostics = Vec::new();
    let settings = ViewSettings::from_ini(&ini, &mut diagnostics);
    let _ = Lot::file_in_settings(&ini, &mut diagnostics);
    let _ = station_defs(&ini);
    let _ = MusicSettings::from_ini(&ini, &[PathBuf::from("data")]);
    let _ = AmbienceSettings::from_ini(&ini);
    let _ = engine_core::world::cache_settings::CacheSettings::from_ini(&ini);
    let text = String::from_utf8_lossy(input.get("demo.lot").unwrap_or_default()).into_owned();
    let (lot, _) = Lot::parse(&text, Path::new("demo.lot"));
    place_everything(&lot, &settings)
}

fn ini_strategy() -> BoxedStrategy<Input> {
    (
        mutate::mutated(ini_document("demo.lot"), MUTATIONS),
        lot_document(),
    )
        .prop_map(|(ini, lot)| Input {
            files: vec![
                ("world.ini".to_string(), ini),
                ("demo.lot".to_string(), lot),
            ],
        })
        .boxed()
}

/// `world.ini` settings.
pub const WORLD_INI: Target = Target {
    name: "world-ini",
    about: "world.ini into WorldIni and every section reader, placement",
    cases: 1000,
    memory: MEMORY,
    time: TIME,
    strategy: ini_strategy,
    run: ini_run,
};

/// A Windows shortcut as Windows writes it: a relative path, a local path, or both.
fn shortcut_document() -> impl Strategy<Value = Vec<u8>> {
    let path = "[A-Za-z0-9 ._\\\\]{0,40}";
    (
        proptest::option::of(path),
        proptest::option::of(path.prop_map(|p| format!("C:\\{p}"))),
    )
        .prop_map(|(relative, local)| {
            engine_core::world::shortcut::build(relative.as_deref(), local.as_deref())
        })
}

fn shortcut_run(input: &Input) -> Result<(), String> {
    let bytes = input.get("a.lnk").unwrap_or_default();
    if let Ok(target) = engine_core::world::shortcut::parse(bytes) {
        if target.relative.is_none() && target.local.is_none() {
            return Err("a shortcut read as fine names no path".to_string());
        }
        let tried =
            engine_core::world::shortcut::candidates(&target, Path::new("/music/radio/a.lnk"));
        if tried.len() > 2 {
            return Err(format!("more than two candidates: {tried:?}"));
        }
    }
    Ok(())
}

fn shortcut_strategy() -> BoxedStrategy<Input> {
    mutate::mutated(shortcut_document(), MUTATIONS)
        .prop_map(|bytes| Input::single("a.lnk", bytes))
        .boxed()
}

/// Windows `.lnk` shortcuts of station and music folders.
pub const SHORTCUT: Target = Target {
    name: "shortcut",
    about: "Windows .lnk bytes into shortcut::parse and candidates",
    cases: 1000,
    memory: MEMORY,
    time: TIME,
    strategy: shortcut_strategy,
    run: shortcut_run,
};
