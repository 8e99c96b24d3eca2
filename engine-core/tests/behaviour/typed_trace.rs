//! Every trace record is a typed decision: the sound server, the world director and hot
//! reload record variants of their own (`SampleEvent`, `WorldEvent`, `ReloadEvent`)
//! whose sentences are the ones the trace has always printed, and every record goes
//! through JSON and back unchanged (a capture file format builds on it).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use engine_core::host::command::parse_script;
use engine_core::host::offline::{RenderOptions, render};
use engine_core::host::session::{Session, SessionConfig, swap_project};
use engine_core::runtime::sink::NoteName;
use engine_core::runtime::trace::{
    AmbienceEvent, CodePlace, EndReason, ExternalVolume, FileChange, FileProblem, FileRole,
    GainParts, MissClass, MusicEvent, Occupant, PanParts, PanSource, ReloadEvent, RunningTrack,
    SampleEvent, SampleOutcome, ScreenArea, StationEvent, TraceEvent, ViewLevels, VoiceTable,
    WorldEvent, WorldReply,
};
use engine_core::runtime::vm::FaultKind;
use engine_core::runtime::{
    ControlGroup, EventArgs, Gain, HookEvent, Outcome, Pan, SampleTime, TraceKind, TraceRecord,
    TraceSwitches, TriggerError,
};
use engine_core::sound::mixer::{MixerConfig, mixer};
use engine_core::sound::server::ServerConfig;
use engine_core::toolchain::project::{DebugTrace, Origin, PieceKind, Project};
use engine_core::world::music::MusicMode;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/demo")
}

/// The demo's tour rendered offline: its trace.
fn tour_trace() -> Vec<TraceRecord> {
    let demo = demo();
    let project = Project::load(&demo);
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    let text = std::fs::read_to_string(demo.join("tour.txt")).unwrap();
    let (script, problems) = parse_script(&text, &demo.join("tour.txt"));
    assert!(problems.is_empty(), "{problems:#?}");
    let out = std::env::temp_dir().join(format!("hitbench-typed-tour-{}.wav", std::process::id()));
    let report = render(project, &script, &out, RenderOptions::default()).unwrap();
    let _ = std::fs::remove_file(&out);
    report.trace
}

/// A record's JSON and back.
fn round_trip(record: &TraceRecord) -> TraceRecord {
    let json = serde_json::to_string(record).unwrap();
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"))
}

#[test]
fn the_demo_tour_records_typed_decisions_with_the_sentences_they_always_had() {
    let trace = tour_trace();
    // The server's, the world's and the reload's records are their own variants, and a
    // record's kind is its event's.
    for r in &trace {
        match &r.what {
            TraceEvent::Sample(what) => assert_eq!(what.kind(), r.kind, "{r}"),
            TraceEvent::World(what) => assert_eq!(what.kind(), r.kind, "{r}"),
            TraceEvent::Reload(what) => assert_eq!(what.kind(), r.kind, "{r}"),
            _ => assert_ne!(r.kind, TraceKind::World, "{r}"),
        }
        assert_eq!(&round_trip(r), r);
    }
    let sentences: Vec<String> = trace.iter().map(TraceRecord::message).collect();
    for want in [
        // The world's notes read by their own number (2^61 + 42 once).
        "world note 42: streaming `sounds/stations/radio/pop/seahorse_adventures_1a.ogg` from disk",
        "world: 9 object(s), hour 14, mode live, camera at (10, 10) zoom 1",
        "ambience: bird_2 at (-7.2, -1.7) gain 0.25 pan -0.86",
        "ambience: bird_1 at (-3.2, -1.7) gain 0.29 pan -0.66 (freshness skipped bird_2)",
        "tv_on_action: object 4 is on `action`",
        "station 28: object 5 tuned to `action` (2 receiver(s))",
        "station 28: `action` plays chase_drums.ogg (chase)",
        "station 28: object 5 turned off `action`; nobody is listening, the station goes quiet",
        "scrolled by (500, 0) px: camera at (13.91, 6.09)",
        "zoom 3 (1 near … 3 far)",
        "music mode live → buy",
        "Buy song: funny_boat_b.ogg",
        "the song fades down and waits for buy or build mode",
        "river loop starts",
        "ambience off (fading out over 2 s)",
        "hour 18:00 (night)",
        "night (18:00)",
        "night loop on (18:00)",
        "room of 8 tiles: small, ambience reverb 0.60",
        "room of 24 tiles: no reverb",
        "night loop off (06:00)",
    ] {
        assert!(sentences.iter().any(|s| s == want), "{want}");
    }
    // The facts, without reading a sentence.
    assert!(trace.iter().any(|r| matches!(
        &r.what,
        TraceEvent::World(WorldEvent::Station { code: 28, what: StationEvent::Plays { list, .. } })
            if list == "commercials"
    )));
    assert!(trace.iter().any(|r| matches!(
        &r.what,
        TraceEvent::World(WorldEvent::Music(MusicEvent::ModeChanged {
            from: MusicMode::Buy,
            to: MusicMode::Neighborhood
        }))
    )));
    assert!(trace.iter().any(|r| matches!(
        &r.what,
        TraceEvent::World(WorldEvent::Ambience(AmbienceEvent::NightLoop { on: true, hour: Some(h) }))
            if *h == 18.0
    )));
    assert!(trace.iter().any(|r| matches!(
        &r.what,
        TraceEvent::Sample(SampleEvent::Streaming { note, sample })
            if r.note == Some(*note) && sample.ends_with("tavern_a.ogg")
    )));
}

/// Every note's sample says where it came from: in a render the runtime has already
/// asked the cache for the sample's length when the note starts, so the server finds it
/// in memory (a hit); a sample loaded for the note says its kind of miss.
#[test]
fn a_render_traces_every_fetch_as_a_hit_or_a_miss_loaded_for_it() {
    let trace = tour_trace();
    let mut samples = std::collections::HashSet::new();
    let mut hits = 0;
    for r in &trace {
        if let TraceEvent::Sample(SampleEvent::Fetched { note, sample, miss }) = &r.what {
            assert_eq!(r.note, Some(*note));
            assert_eq!(r.kind, TraceKind::Sample);
            samples.insert(sample.clone());
            match miss {
                None => {
                    assert!(r.message().ends_with("from the cache (hit)"), "{r}");
                    hits += 1;
                }
                Some(class) => assert!(
                    r.message()
                        .ends_with(&format!("loaded for it ({} miss)", class.name())),
                    "{r}"
                ),
            }
        }
    }
    assert!(samples.len() >= 10, "{} samples fetched", samples.len());
    assert!(hits >= 20, "{hits} hits");
    // Every note that started from memory was fetched first.
    let fetched: std::collections::HashSet<u64> = trace
        .iter()
        .filter_map(|r| match &r.what {
            TraceEvent::Sample(SampleEvent::Fetched { note, .. }) => Some(*note),
            _ => None,
        })
        .collect();
    let streamed: std::collections::HashSet<u64> = trace
        .iter()
        .filter_map(|r| match &r.what {
            TraceEvent::Sample(SampleEvent::Streaming { note, .. }) => Some(*note),
            _ => None,
        })
        .collect();
    for r in &trace {
        if let TraceEvent::NoteStarted { note, .. } = &r.what {
            assert!(
                fetched.contains(note) || streamed.contains(note),
                "note {note} played without a fetch: {r}"
            );
        }
    }
}

/// A live session on the demo: its first plays miss the cache.
fn live_demo() -> (Session, engine_core::sound::mixer::Mixer) {
    let (handle, mixer) = mixer(MixerConfig::default());
    let config = SessionConfig {
        server: ServerConfig {
            blocking: false,
            ..ServerConfig::default()
        },
        ..SessionConfig::default()
    };
    let mut session = Session::new(Project::load(&demo()), handle, config);
    session.engine.set_trace_switches(TraceSwitches::ALL);
    (session, mixer)
}

#[test]
fn a_cache_miss_and_a_reload_say_their_facts_and_their_sentences() {
    let (mut session, _mixer) = live_demo();
    session
        .engine
        .trigger("piano_play", Some(1), EventArgs::default())
        .unwrap();
    session.tick();
    let trace = session.take_trace();
    let miss = trace
        .iter()
        .find(|r| matches!(r.what, TraceEvent::Sample(SampleEvent::CacheMiss { .. })))
        .unwrap_or_else(|| panic!("no miss: {trace:#?}"));
    let TraceEvent::Sample(SampleEvent::CacheMiss {
        note,
        sample,
        class,
    }) = &miss.what
    else {
        unreachable!()
    };
    assert_eq!((miss.kind, miss.note), (TraceKind::Sample, Some(*note)));
    assert_eq!(*class, Some(MissClass::Compulsory), "never loaded before");
    assert_eq!(
        miss.message(),
        format!(
            "{}: cache miss for `{sample}`; it starts when the data arrives",
            NoteName(*note)
        )
    );

    // The project with another piano volume swapped in while the piano plays: the track
    // starts again. (The same project again would change nothing it plays by: it plays
    // on, `reload_live`.)
    let mut changed = Project::load(&demo());
    changed
        .tune(
            &engine_core::tools::properties::PropertyTarget::Track(0x2200),
            engine_core::tools::properties::Property::Volume,
            900,
        )
        .unwrap();
    let events = swap_project(&mut session, changed, true);
    let restarted = RunningTrack {
        track: Arc::from("piano_play"),
        track_id: 0x2200,
        event: Arc::from("piano_play"),
        owners: vec![1],
    };
    assert_eq!(
        events,
        [ReloadEvent::TrackRestarted {
            track: restarted,
            outcome: Outcome::Started { voice: 0 },
        }]
    );
    assert_eq!(
        events[0].to_string(),
        "track `piano_play` (event `piano_play` for object(s) 1) restarted with the new version (default arguments): started on voice 0"
    );
    let traced = session.take_trace();
    assert!(
        traced
            .iter()
            .any(|r| r.kind == TraceKind::Reload && r.what == TraceEvent::Reload(events[0].clone())),
        "{traced:#?}"
    );
}

/// A track as a reload names it.
fn running(owners: Vec<i32>) -> RunningTrack {
    RunningTrack {
        track: Arc::from("tv_loop"),
        track_id: 0x300,
        event: Arc::from("tv_on"),
        owners,
    }
}

#[test]
fn server_world_and_reload_sentences_are_unchanged() {
    let cases: Vec<(TraceEvent, &str)> = vec![
        (
            TraceEvent::Sample(SampleEvent::Arrived {
                note: 7,
                sample: Arc::from("sfx/boom.wav"),
                late: 24_000,
                rate: 48_000,
                dropped: true,
                waited: None,
            }),
            "note 7: `sfx/boom.wav` arrived 500 ms late; dropped (a one-shot that late would be out of place)",
        ),
        (
            TraceEvent::Sample(SampleEvent::Arrived {
                note: 7,
                sample: Arc::from("sfx/boom.wav"),
                late: 480,
                rate: 48_000,
                dropped: false,
                waited: None,
            }),
            "note 7: `sfx/boom.wav` arrived; starting 480 samples late",
        ),
        (
            TraceEvent::Sample(SampleEvent::OriginBusy {
                sound: Arc::from("select"),
                origin: 7,
            }),
            "`select` from origin 7 dropped: that origin is already playing",
        ),
        (
            TraceEvent::Sample(SampleEvent::StoppedWaiting { note: 3 }),
            "note 3 stopped before its sample arrived",
        ),
        (
            TraceEvent::Sample(SampleEvent::NoMixerVoice { note: 3 }),
            "note 3: no free mixer voice; dropped",
        ),
        (
            TraceEvent::World(WorldEvent::NoReceiver {
                event: "tv_on".into(),
                on: true,
            }),
            "`tv_on` (kTurnOnTV) has no source object: a station needs a receiver",
        ),
        (
            TraceEvent::World(WorldEvent::NotAMusicMode {
                event: "music_x".into(),
                mode: 12,
            }),
            "`music_x`: 12 is not a music mode (0 live … 8 family)",
        ),
        (
            TraceEvent::World(WorldEvent::Ambience(AmbienceEvent::OutOfEarshot {
                row: "right".into(),
                position: [50.0, 20.0],
                distance: 40.0,
                limit: 30.0,
            })),
            "ambience: right at (50.0, 20.0) is out of earshot (40.0 tiles, Distance 30)",
        ),
        (
            TraceEvent::World(WorldEvent::Ambience(AmbienceEvent::HourIgnored {
                hour: f32::INFINITY.to_string(),
            })),
            "ambience: hour inf ignored (not a number)",
        ),
        (
            TraceEvent::Reload(ReloadEvent::Changed {
                files: vec![PathBuf::from("a/tone.src"), PathBuf::from("a/tables.hot")],
                rescan: false,
            }),
            "reload: 2 file(s) changed: a/tone.src, a/tables.hot",
        ),
        (
            TraceEvent::Reload(ReloadEvent::File {
                role: FileRole::Tables,
                path: PathBuf::from("a/tables.hot"),
                change: FileChange::Changed,
            }),
            "tables a/tables.hot changed",
        ),
        (
            TraceEvent::Reload(ReloadEvent::KeptLastGood {
                kind: PieceKind::Source,
                path: PathBuf::from("a/tone.src"),
            }),
            "source a/tone.src has errors: its last good version is kept",
        ),
        (
            TraceEvent::Reload(ReloadEvent::Sample {
                name: "tone_b.wav".into(),
                outcome: SampleOutcome::Kept("not a WAV".into()),
            }),
            "sample `tone_b.wav`: not a WAV; its last good version stays in use",
        ),
        (
            TraceEvent::Reload(ReloadEvent::TrackDropped(running(vec![4, 5]))),
            "track `tv_loop` (event `tv_on` for object(s) 4, 5) dropped: the new version does not define it; its current notes play out",
        ),
        (
            TraceEvent::Reload(ReloadEvent::TrackStopped(running(Vec::new()))),
            "track `tv_loop` (event `tv_on`) stopped by the reload: its current notes play out; trigger it again to hear the new version",
        ),
        (
            TraceEvent::Reload(ReloadEvent::RestartFailed {
                track: running(vec![4]),
                error: TriggerError::UnknownEvent("tv_on".into()),
            }),
            "track `tv_loop` (event `tv_on` for object(s) 4) dropped: restarting it failed: unknown event `tv_on`",
        ),
        (
            TraceEvent::Reload(ReloadEvent::Live {
                latency: Duration::from_micros(52_340),
                loading: Duration::from_micros(41_000),
            }),
            "reload live 52.3 ms after the first change (41.0 ms loading)",
        ),
    ];
    for (what, sentence) in cases {
        assert_eq!(what.to_string(), sentence);
    }
}

/// One record of each kind, with the kinds of facts records carry.
fn one_of_each_kind() -> Vec<TraceRecord> {
    let at = |n: u64, kind, what| TraceRecord::new(SampleTime::from_samples(n), kind, what);
    let occupant = Occupant {
        voice: 0,
        track: Arc::from("t0"),
        priority: 10,
        age: 480,
    };
    let place = CodePlace {
        address: 0x12,
        origin: Some(Origin::new("piano.src", 31)),
        unit: None,
    };
    let view = ViewLevels {
        area: ScreenArea::Fading,
        fade: Gain::new(0.625),
        zoom: Gain::new(0.8),
        floor: Gain::UNITY,
        screen_x: 353.28,
        screen_width: 1024.0,
        pan_range: 1.0,
    };
    let mut event = at(
        0,
        TraceKind::Event,
        TraceEvent::TraceSwitched {
            trace: DebugTrace::Samples,
            on: true,
        },
    );
    event.event = Some(Arc::from("debug_samples_on"));
    event.object = Some(3);
    vec![
        event,
        at(
            1,
            TraceKind::Sample,
            TraceEvent::NoteStarted {
                note: 1,
                patch: 0x2041,
                patch_name: Arc::from("greet_03"),
                sample: Arc::from("vox/greet_03.wav"),
                gain: Box::new(GainParts {
                    track_volume: Gain::new(0.8),
                    external: ExternalVolume::View {
                        factors: view,
                        volume: Gain::new(0.5),
                    },
                    ducking: Gain::UNITY,
                    group: ControlGroup::Vox,
                    group_volume: Gain::new(0.75),
                    master: Gain::UNITY,
                }),
                pan: Box::new(PanParts {
                    value: Pan::new(-0.31),
                    source: PanSource::Screen(view),
                }),
                looping: true,
                cents: -100,
            },
        ),
        at(2, TraceKind::Track, TraceEvent::Ended(EndReason::Stolen)),
        at(
            3,
            TraceKind::Voice,
            TraceEvent::Stole {
                track: Arc::from("t5"),
                priority: 15,
                victim: occupant.clone(),
                occupants: VoiceTable::of(&[occupant], SampleTime::from_samples(3)),
                capacity: 4,
            },
        ),
        at(
            4,
            TraceKind::Pick,
            TraceEvent::Pick {
                list: 230,
                index: 2,
                value: 2203,
                excluded: vec![2201],
            },
        ),
        at(
            5,
            TraceKind::Hook,
            TraceEvent::HandedToWorld(HookEvent::TurnOn {
                event: "tv_on".into(),
                station: 28,
                object: Some(4),
            }),
        ),
        at(
            6,
            TraceKind::Print,
            TraceEvent::Print {
                name: "v1".into(),
                value: -5,
                place: Some(place.clone()),
            },
        ),
        at(
            7,
            TraceKind::Error,
            TraceEvent::Fault {
                event: Arc::from("grower"),
                track: Arc::from("grower"),
                place: Some(place),
                kind: FaultKind::ChainOutOfFuel { used: 9, starts: 2 },
            },
        ),
        at(
            8,
            TraceKind::Reload,
            TraceEvent::Reload(ReloadEvent::TrackRestarted {
                track: running(vec![4]),
                outcome: Outcome::Joined { voice: 2 },
            }),
        ),
        at(
            9,
            TraceKind::Error,
            TraceEvent::Reload(ReloadEvent::KeptError {
                problem: FileProblem {
                    file: PathBuf::from("a/tone.src"),
                    line: 5,
                    column: 2,
                    error: true,
                    text: "a/tone.src:5:2: error: unknown instruction `plya`".into(),
                },
                file: PathBuf::from("a/tone.src"),
            }),
        ),
        at(
            10,
            TraceKind::Reload,
            TraceEvent::Reload(ReloadEvent::Live {
                latency: Duration::from_micros(52_340),
                loading: Duration::from_micros(41_000),
            }),
        ),
        at(
            11,
            TraceKind::World,
            TraceEvent::World(WorldEvent::Command(WorldReply::Room {
                tiles: 8.0,
                reverb: 0.6,
            })),
        ),
        at(
            12,
            TraceKind::World,
            TraceEvent::World(WorldEvent::Ambience(AmbienceEvent::HourIgnored {
                hour: f32::NAN.to_string(),
            })),
        ),
        at(
            13,
            TraceKind::World,
            TraceEvent::World(WorldEvent::Ambience(AmbienceEvent::Played {
                file: PathBuf::from("amb/bird_2.wav"),
                position: [-7.2, -1.7],
                gain: Gain::new(0.25),
                pan: Pan::new(-0.86),
                skipped: vec![PathBuf::from("amb/bird_1.wav")],
            })),
        ),
    ]
}

#[test]
fn a_record_of_each_kind_round_trips_through_json() {
    let records = one_of_each_kind();
    for kind in TraceKind::ALL {
        assert!(records.iter().any(|r| r.kind == kind), "{kind:?}");
    }
    for record in &records {
        let back = round_trip(record);
        assert_eq!(&back, record);
        assert_eq!(back.to_string(), record.to_string());
    }
}

#[test]
fn the_debug_cheats_are_built_in_events_of_every_project() {
    // The demo defines none of the six; they switch the traces anyway.
    let (mut session, _mixer) = live_demo();
    assert!(
        session
            .engine
            .project()
            .events
            .keys()
            .all(|name| !name.starts_with("debug"))
    );
    session.engine.set_trace_switches(TraceSwitches::default());
    for (line, trace, on) in [
        ("ui debugeventson", DebugTrace::Events, true),
        ("ui debugsampleson", DebugTrace::Samples, true),
        ("ui debugtrackson", DebugTrace::Tracks, true),
        ("ui debugtracksoff", DebugTrace::Tracks, false),
    ] {
        let reply = session.run_line(line).unwrap();
        assert!(!reply.is_empty(), "{line}");
        let switched = session.take_trace().into_iter().any(|r| {
            matches!(r.what, TraceEvent::TraceSwitched { trace: t, on: o } if t == trace && o == on)
        });
        assert!(switched, "{line}");
    }
    let switches = session.engine.trace_switches();
    assert!(switches.events && switches.samples && !switches.tracks);
}
