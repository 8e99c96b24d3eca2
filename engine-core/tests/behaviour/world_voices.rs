//! Stations, music, the load loop, the river and the ambience hold Box-X voice slots
//! like tracks: the 16-voice limit covers everything playing. A TV turned on with every
//! voice busy is refused (or steals, at a higher `[Voices] Station` priority); a track
//! of higher priority steals a station's slot and the station goes silent; `quietall`
//! silences stations and music; `quiet` of the last receiver turns its station off.

use crate::support::{TempProject, constant_wav, looping_tracks};
use engine_core::host::session::{Session, SessionConfig};
use engine_core::runtime::trace::{EndReason, TraceEvent, WorldEvent};
use engine_core::runtime::voices::WorldVoice;
use engine_core::runtime::{TraceKind, TraceRecord};
use engine_core::sound::mixer::{MixerConfig, mixer};
use engine_core::toolchain::project::Project;

/// Tracks `t0`… at `priorities` (each a 20 s note), a TV (object 1, station 28), a
/// radio (object 2), a person (object 3), a buy-mode music list and `more` in
/// `world.ini`.
pub(crate) fn project(tag: &str, priorities: &[i32], more: &str) -> TempProject {
    let p = looping_tracks(tag, priorities, 1024, "");
    constant_wav(&p.path().join("s.wav"), 20.0, 0.05);
    std::fs::create_dir_all(p.path().join("tv")).unwrap();
    constant_wav(&p.path().join("tv/show.wav"), 20.0, 0.05);
    std::fs::create_dir_all(p.path().join("music/buy")).unwrap();
    constant_wav(&p.path().join("music/buy/song.wav"), 20.0, 0.05);
    p.file(
        "world.ini",
        &format!(
            "[Lot]\nFile = home.lot\n[Stations]\n28 = tv\n[Music]\nBuy = music/buy\n{more}"
        ),
    )
    .file(
        "home.lot",
        "object 1 tv \"TV\" at 2 2\nobject 2 radio \"Radio\" at 3 2\nobject 3 person \"Bob\" at 3 3\n",
    );
    p
}

pub(crate) fn session(p: &TempProject) -> Session {
    let project = Project::load(p.path());
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    let (handle, _mixer) = mixer(MixerConfig::default());
    let mut session = Session::new(project, handle, SessionConfig::default());
    session.tick();
    session
}

/// Starts `t<from>`…`t<to - 1>` on object 3, a tick apart.
fn start_tracks(session: &mut Session, range: std::ops::Range<usize>) {
    for i in range {
        session.run_line(&format!("sev t{i} @3")).unwrap();
        session.tick();
    }
}

fn voice_records(trace: &[TraceRecord]) -> Vec<&TraceRecord> {
    trace
        .iter()
        .filter(|r| r.kind == TraceKind::Voice)
        .collect()
}

#[test]
fn a_tv_turned_on_with_every_voice_busy_is_refused() {
    let p = project("wv-refused", &[40; 16], "");
    let mut s = session(&p);
    start_tracks(&mut s, 0..16);
    assert_eq!(s.engine.voices_in_use(), 16);
    s.take_trace();

    let error = s.run_line("turnon 1 28").unwrap_err();
    assert!(error.contains("station 28 gets no voice"), "{error}");
    assert!(error.contains("priority 32"), "{error}");
    let trace = s.take_trace();
    let refused = voice_records(&trace)
        .into_iter()
        .find_map(|r| match &r.what {
            TraceEvent::Refused {
                track,
                priority,
                lowest,
                capacity,
                ..
            } => Some((track.to_string(), *priority, lowest.priority, *capacity)),
            _ => None,
        })
        .expect("a refusal record");
    assert_eq!(refused, ("[station 28]".to_string(), 32, 40, 16));
    // Nothing was tuned: the receiver is off, no station is on air, no slot is held.
    assert!(!s.engine.world().get(1).unwrap().on);
    assert!(s.world.stations().get(28).unwrap().receivers.is_empty());
    assert!(s.engine.world_voices().is_empty());
    assert_eq!(s.engine.voices_in_use(), 16);
}

#[test]
fn a_tv_of_higher_priority_steals_the_oldest_lowest_track() {
    let p = project("wv-steal", &[40; 16], "[Voices]\nStation = 100\n");
    let mut s = session(&p);
    start_tracks(&mut s, 0..16);
    s.take_trace();

    s.run_line("turnon 1 28").unwrap();
    let trace = s.take_trace();
    let stole = trace
        .iter()
        .find_map(|r| match &r.what {
            TraceEvent::Stole { track, victim, .. } => {
                Some((track.to_string(), victim.track.to_string(), victim.voice))
            }
            _ => None,
        })
        .expect("a steal record");
    assert_eq!(stole, ("[station 28]".to_string(), "t0".to_string(), 0));
    assert!(trace.iter().any(|r| matches!(
        r.what,
        TraceEvent::WorldVoiceTaken {
            who: WorldVoice::Station(28),
            voice: 0,
            priority: 100,
            in_use: 16,
            capacity: 16,
        }
    )));
    let playing: Vec<String> = s
        .engine
        .active_tracks()
        .iter()
        .map(|t| t.track_name.to_string())
        .collect();
    assert!(
        !playing.contains(&"t0".to_string()),
        "t0 was stopped: {playing:?}"
    );
    assert_eq!(playing.len(), 15);
    assert_eq!(s.engine.world_voice(WorldVoice::Station(28)), Some(0));
    assert_eq!(s.engine.voices_in_use(), 16, "still 16 voices in all");
    // The Voices panel's view: slot 0 is the station's.
    let slots = engine_core::tools::inspect::voices(&s.engine);
    let world = slots[0].world.as_ref().expect("a world occupant");
    assert_eq!((world.who, world.priority), (WorldVoice::Station(28), 100));
    assert!(slots[0].occupant.is_none());
}

#[test]
fn a_track_of_higher_priority_steals_a_station_which_goes_silent() {
    let mut priorities = vec![40; 15];
    priorities.push(60);
    let p = project("wv-stolen", &priorities, "");
    let mut s = session(&p);
    start_tracks(&mut s, 0..15);
    s.run_line("turnon 1 28").unwrap();
    s.tick();
    assert_eq!(s.engine.world_voice(WorldVoice::Station(28)), Some(15));
    assert!(s.world.stations().get(28).unwrap().on_air.is_some());
    s.take_trace();

    // t15 (priority 60) finds every voice busy; the station (32) is the lowest.
    start_tracks(&mut s, 15..16);
    s.tick();
    let trace = s.take_trace();
    let stole = trace.iter().find_map(|r| match &r.what {
        TraceEvent::Stole { track, victim, .. } => {
            Some((track.to_string(), victim.track.to_string()))
        }
        _ => None,
    });
    assert_eq!(stole, Some(("t15".into(), "[station 28]".into())));
    assert!(trace.iter().any(|r| matches!(
        &r.what,
        TraceEvent::World(WorldEvent::LostVoice {
            who: WorldVoice::Station(28),
            why: EndReason::Stolen
        })
    )));
    // The station went silent and its receiver is off.
    let station = s.world.stations().get(28).unwrap();
    assert!(station.receivers.is_empty() && station.on_air.is_none());
    assert!(!s.engine.world().get(1).unwrap().on);
    assert!(s.engine.world_voices().is_empty());
    let slots = engine_core::tools::inspect::voices(&s.engine);
    assert_eq!(
        slots[15]
            .occupant
            .as_ref()
            .map(|o| o.track_name.to_string()),
        Some("t15".into())
    );
}

#[test]
fn quietall_silences_stations_and_music_until_asked_again() {
    let p = project("wv-quietall", &[40], "");
    let mut s = session(&p);
    s.run_line("turnon 1 28").unwrap();
    s.run_line("turnon 2 28").unwrap();
    s.run_line("mode buy").unwrap();
    s.tick();
    assert!(s.world.music().song.is_some());
    let held = s.engine.world_voices();
    assert!(held.contains(&WorldVoice::Station(28)), "{held:?}");
    assert!(held.contains(&WorldVoice::Music), "{held:?}");
    assert_eq!(
        held.len(),
        2,
        "one slot per station, however many receivers"
    );

    let reply = s.run_line("quietall").unwrap();
    assert!(reply.contains("2 world sound(s) silenced"), "{reply}");
    for _ in 0..50 {
        s.tick();
    }
    assert!(s.engine.world_voices().is_empty());
    let station = s.world.stations().get(28).unwrap();
    assert!(station.receivers.is_empty() && station.on_air.is_none());
    assert!(s.world.music().song.is_none(), "the music stays silent");
    let trace = s.take_trace();
    let lost: Vec<WorldVoice> = trace
        .iter()
        .filter_map(|r| match &r.what {
            TraceEvent::World(WorldEvent::LostVoice {
                who,
                why: EndReason::QuietAll,
            }) => Some(*who),
            _ => None,
        })
        .collect();
    assert_eq!(lost, [WorldVoice::Station(28), WorldVoice::Music]);

    // Asking for the mode again brings the music back (with a slot).
    s.run_line("mode buy").unwrap();
    s.tick();
    assert!(s.world.music().song.is_some());
    assert_eq!(s.engine.world_voices(), [WorldVoice::Music]);
}

#[test]
fn quiet_of_the_last_receiver_turns_its_station_off() {
    let p = project("wv-quiet", &[40], "");
    let mut s = session(&p);
    s.run_line("turnon 1 28").unwrap();
    s.run_line("turnon 2 28").unwrap();
    s.tick();
    let reply = s.run_line("quiet 1").unwrap();
    assert!(
        reply.contains("receiver turned off (station 28)"),
        "{reply}"
    );
    assert!(
        s.engine.world_voice(WorldVoice::Station(28)).is_some(),
        "the radio still listens"
    );
    s.run_line("quiet 2").unwrap();
    s.tick();
    assert!(s.engine.world_voices().is_empty());
    assert!(s.world.stations().get(28).unwrap().on_air.is_none());
}

#[test]
fn the_ambience_and_music_give_their_slots_back_when_the_mode_changes() {
    let p = project("wv-modes", &[40], "");
    let mut s = session(&p);
    s.run_line("mode buy").unwrap();
    s.tick();
    assert_eq!(s.engine.world_voices(), [WorldVoice::Music]);
    s.run_line("mode live").unwrap();
    s.tick();
    assert!(
        s.engine.world_voices().is_empty(),
        "live mode plays no music (and this project has no ambience)"
    );
}
