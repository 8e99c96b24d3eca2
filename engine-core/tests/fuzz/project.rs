//! Whole projects: a generated data directory (sources with includes, tables naming
//! events, tracks, patches and nested hit lists, an event list, `world.ini`, a lot, a
//! score, samples, and now and then tracks that start each other) written to a scratch
//! folder, loaded with `Project::load`, checked with `check::findings`, then played: every
//! event triggered and the engine ticked with its default fuel. No input may hang the
//! load, the check or the engine.

use crate::asm;
use crate::harness::{Input, MIB, MemoryBound, Scratch, Target};
use crate::mutate;
use crate::world::{ini_document, lot_document};
use engine_core::runtime::{Engine, EngineConfig, EventArgs, NullSink, SampleInfo, UniformSamples};
use engine_core::toolchain::project::Project;
use engine_core::tools::check;
use engine_core::world::lot::Lot;
use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;
use std::path::Path;
use std::time::Duration;

/// Memory bound: everything loaded (units, tables, hit lists expanded), the check's
/// facts, and the engine with its threads and trace for the ticks played.
pub const MEMORY: MemoryBound = MemoryBound {
    per_byte: 256,
    per_line: 2048,
    fixed: 64 * MIB,
};
/// Time limit of one case (debug build).
pub const TIME: Duration = Duration::from_secs(20);

/// Engine ticks played per case (at the default 60 ticks a second).
pub const TICKS: usize = 20;

const MUTATIONS: usize = 2;

/// Plays `project`: every event as a UI sound and from object 1, then [`TICKS`] ticks
/// with the default fuel. The world holds the lot's objects when there is a lot.
pub fn play_with(project: Project, lot: Option<&Lot>) -> Result<(), String> {
    let samples = UniformSamples(SampleInfo {
        frames: 24_000,
        sample_rate: 48_000,
    });
    let events: Vec<String> = project.events.keys().cloned().collect();
    let mut engine = Engine::new(
        project,
        EngineConfig::default(),
        Box::new(NullSink),
        Box::new(samples),
    );
    if let Some(lot) = lot {
        *engine.world_mut() = lot.objects.clone();
    }
    for (i, name) in events.iter().enumerate() {
        let _ = engine.trigger(name, None, EventArgs::default());
        let _ = engine.trigger(name, Some(1), EventArgs::default());
        if i % 4 == 0 {
            engine.tick();
            let _ = engine.take_trace();
            let _ = engine.take_hooks();
        }
    }
    for _ in 0..TICKS {
        engine.tick();
        let _ = engine.take_trace();
        let _ = engine.take_hooks();
    }
    let _ = engine.active_tracks();
    Ok(())
}

/// [`play_with`] without a lot.
pub fn play(project: Project) -> Result<(), String> {
    play_with(project, None)
}

/// Tracks `event_0`…`event_5` (IDs 0x100…) that start each other with `play_trk`, some
/// allowing several instances: the chains a tick must still end on.
fn play_trk_mesh() -> impl Strategy<Value = (String, String)> {
    let track = (
        any::<bool>(),
        proptest::collection::vec(0u32..6, 0..3),
        prop_oneof![3 => Just(""), 1 => Just("\twait_samp\n")],
    );
    proptest::collection::vec(track, 1..6).prop_map(|tracks| {
        let mut code = "BINARY [\n".to_string();
        let mut table = "[Track]\n".to_string();
        for (i, (multiple, starts, wait)) in tracks.iter().enumerate() {
            code.push_str(&format!("event_{i}\n"));
            if *multiple {
                code.push_str("\tloadb MultipleInstances 1\n");
            }
            for target in starts {
                code.push_str(&format!("\tloadl v1 #{}\n\tplay_trk v1\n", 0x100 + target));
            }
            code.push_str(wait);
            code.push_str("\tend\n");
            table.push_str(&format!(
                "0x{:x}=0,event_{i},1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,0\n",
                0x100 + i
            ));
        }
        code.push_str("]\n");
        (code, table)
    })
}

/// Tables for the generated code: events for the labels, tracks, patches on the
/// generated samples, and hit lists that name patches, other lists and themselves.
fn tables() -> impl Strategy<Value = String> {
    let event = (
        0u32..6,
        0u32..8,
        proptest::sample::select(
            &[
                "kSndobPlay",
                "kSndobStop",
                "kPlayPiano",
                "kTurnOnTV",
                "kSetMusicMode",
                "99",
            ][..],
        ),
    )
        .prop_map(|(e, t, kind)| format!("event_{e}={kind},0x{:x},0,0,0,0", 0x100 + t));
    let track = (0u32..8, 0u32..8, 0u32..6, any::<bool>()).prop_map(|(t, sub, hl, at)| {
        let sub = if sub < 6 {
            format!("event_{sub}")
        } else {
            "0".to_string()
        };
        let at = if at { "@" } else { "" };
        format!(
            "0x{:x}=0,{sub},1024,kArgsIdVolPan,duckpri_normal,kGroupVox,spl_normal,{at}{},0",
            0x100 + t,
            900 + hl
        )
    });
    let patch = (0u32..6, 0u32..3, any::<bool>()).prop_map(|(p, s, looped)| {
        format!(
            "{}=0,patch_{p},\"sounds\\s{s}.wav\",{},0,0,0,0",
            100 + p,
            u8::from(looped)
        )
    });
    let entry = prop_oneof![
        4 => (0u32..6).prop_map(|p| (100 + p).to_string()),
        2 => (0u32..6).prop_map(|l| (900 + l).to_string()),
        1 => Just("100-105".to_string()),
        1 => Just("patch_0".to_string()),
        1 => Just("1-4294967295".to_string()),
    ];
    let list = (0u32..6, proptest::collection::vec(entry, 0..5))
        .prop_map(|(l, e)| format!("{}={}", 900 + l, e.join(",")));
    (
        proptest::collection::vec(event, 0..6),
        proptest::collection::vec(track, 0..6),
        proptest::collection::vec(patch, 0..6),
        proptest::collection::vec(list, 0..6),
    )
        .prop_map(|(events, tracks, patches, lists)| {
            let mut out = String::from("[EventMapping]\n");
            for section in [
                (events, ""),
                (tracks, "[Track]\n"),
                (patches, "[Patch]\n"),
                (lists, "[GlobalHitList]\n"),
            ] {
                out.push_str(section.1);
                for line in section.0 {
                    out.push_str(&line);
                    out.push('\n');
                }
            }
            out
        })
}

/// Many hit lists of long ranges, each within the per-range limit: a few bytes of text
/// each, a quarter of a megabyte expanded.
fn long_lists() -> impl Strategy<Value = String> {
    (1usize..300, 1usize..4).prop_map(|(lists, ranges)| {
        let mut out = String::from("[GlobalHitList]\n");
        for k in 0..lists {
            let entries = vec!["0-65535"; ranges];
            out.push_str(&format!("{}={}\n", 2000 + k, entries.join(",")));
        }
        out
    })
}

/// A chain of hit lists, each holding the next (the last one a patch, or the first:
/// a cycle), or a tangle (each holding the next two, round the end: every list's
/// shortest cycle is long), with a track whose list is the head: deep nesting for
/// everything that follows lists.
fn nested_lists() -> impl Strategy<Value = String> {
    (prop_oneof![4 => 1usize..100, 1 => 100usize..60_000], 0u8..3).prop_map(|(depth, shape)| {
        let mut out = String::from(
            "[Track]\n0x1ff=0,0,1024,kArgsNormal,duckpri_normal,kGroupVox,spl_normal,@3000,0\n\
                 [EventMapping]\nevent_deep=kSndobPlay,0x1ff,0,0,0,0\n[GlobalHitList]\n",
        );
        for k in 0..depth {
            let at = |d: usize| 3000 + (k + d) % depth;
            let entries = match shape {
                0 if k + 1 == depth => "100".to_string(),
                0 | 1 => at(1).to_string(),
                _ => format!("{},{}", at(1), at(2)),
            };
            out.push_str(&format!("{}={entries}\n", 3000 + k));
        }
        out
    })
}

fn evt() -> impl Strategy<Value = String> {
    proptest::collection::vec((0u32..8, 0u32..8), 0..5).prop_map(|events| {
        events
            .iter()
            .map(|(e, t)| format!("event_{e}, 1, 0x{:x}, 0, 0, 0, 0\r\n", 0x100 + t))
            .collect()
    })
}

/// A tiny valid WAV.
fn sample_wav(frames: u16) -> Vec<u8> {
    let data: Vec<u8> = (0..frames)
        .flat_map(|i| (i.wrapping_mul(997) as i16).to_le_bytes())
        .collect();
    let mut out = b"RIFF".to_vec();
    out.extend((36 + data.len() as u32).to_le_bytes());
    out.extend(b"WAVEfmt ");
    out.extend(16u32.to_le_bytes());
    out.extend(1u16.to_le_bytes());
    out.extend(1u16.to_le_bytes());
    out.extend(22_050u32.to_le_bytes());
    out.extend(44_100u32.to_le_bytes());
    out.extend(2u16.to_le_bytes());
    out.extend(16u16.to_le_bytes());
    out.extend(b"data");
    out.extend((data.len() as u32).to_le_bytes());
    out.extend(data);
    out
}

fn text(s: impl Strategy<Value = String>) -> impl Strategy<Value = Vec<u8>> {
    mutate::mutated(s.prop_map(String::into_bytes), MUTATIONS)
}

fn strategy() -> BoxedStrategy<Input> {
    (
        (
            text(prop_oneof![1 => asm::source(2, 25), 2 => asm::clean_source(40)]),
            proptest::collection::vec(text(asm::source(2, 10)), 0..2),
            proptest::option::weighted(0.3, play_trk_mesh()),
            asm::ladder_shape(),
        ),
        (
            text(tables()),
            proptest::option::weighted(0.3, text(evt())),
            mutate::mutated(ini_document("demo.lot"), MUTATIONS),
            mutate::mutated(lot_document(), MUTATIONS),
            mutate::mutated(
                Just(
                    include_bytes!("../../../projects/demo/sounds/ambience/score/neighborhood.fsc")
                        .to_vec(),
                ),
                MUTATIONS,
            ),
            proptest::collection::vec(0u16..2000, 0..3),
            prop_oneof![
                6 => Just(None),
                1 => long_lists().prop_map(Some),
                1 => nested_lists().prop_map(Some),
            ],
        ),
    )
        .prop_map(
            |(
                (main, includes, mesh, (depth, fanout)),
                (hot, evt, ini, lot, fsc, samples, lists),
            )| {
                let mut input = Input::single("main.src", main);
                for (i, inc) in includes.into_iter().enumerate() {
                    input.files.push((format!("inc_{i}.src"), inc));
                }
                if let Some((code, table)) = mesh {
                    input
                        .files
                        .push(("mesh.src".to_string(), code.into_bytes()));
                    input
                        .files
                        .push(("mesh.hot".to_string(), table.into_bytes()));
                }
                if fanout > 0 {
                    input.files.extend(asm::ladder(depth, fanout));
                }
                input.files.push(("tables.hot".to_string(), hot));
                if let Some(lists) = lists {
                    input
                        .files
                        .push(("lists.hot".to_string(), lists.into_bytes()));
                }
                if let Some(evt) = evt {
                    input.files.push(("events.evt".to_string(), evt));
                }
                input.files.push(("world.ini".to_string(), ini));
                input.files.push(("demo.lot".to_string(), lot));
                input.files.push(("score.fsc".to_string(), fsc));
                for (i, frames) in samples.into_iter().enumerate() {
                    input
                        .files
                        .push((format!("sounds/s{i}.wav"), sample_wav(frames)));
                }
                input
                    .files
                    .push(("sounds/music/a.wav".to_string(), sample_wav(100)));
                input
            },
        )
        .boxed()
}

fn run(input: &Input) -> Result<(), String> {
    let scratch = Scratch::new().map_err(|e| format!("cannot make a scratch folder: {e}"))?;
    input
        .write_to(scratch.path())
        .map_err(|e| format!("cannot write the input: {e}"))?;
    let project = Project::load(scratch.path());
    let _ = check::findings(&project);
    let lot_text = String::from_utf8_lossy(input.get("demo.lot").unwrap_or_default()).into_owned();
    let (lot, _) = Lot::parse(&lot_text, Path::new("demo.lot"));
    play_with(project, Some(&lot))
}

/// Whole projects, loaded, checked and played.
pub const TARGET: Target = Target {
    name: "project",
    about: "a generated data directory into Project::load, check::findings, Engine ticks",
    cases: 100,
    memory: MEMORY,
    time: TIME,
    strategy,
    run,
};
