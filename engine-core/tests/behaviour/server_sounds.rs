//! The sound server's own sounds from project data (`world.ini [ServerSounds]`): sample
//! groups, the "two groups" selection rule driven by `select <object…>`, noise reduction
//! by origin, and volume from distance with a range — each traced as a typed record;
//! bad lines name their file and line.

use crate::support::{TempProject, constant_wav};
use engine_core::host::session::{Session, SessionConfig};
use engine_core::runtime::trace::{SampleEvent, TraceEvent};
use engine_core::sound::mixer::{Mixer, MixerConfig, mixer};
use engine_core::sound::server::ServerConfig;
use engine_core::toolchain::project::Project;
use engine_core::world::server_sounds::ServerSounds;
use engine_core::world::settings::WorldIni;

const SOUNDS: &str = "[ServerSounds]
MaxRange = 40
Select = selected
look = v/look_1.wav, v/look_2.wav, v/look_3.wav, range 20
greet = v/greet_1.wav, v/greet_2.wav
selected = two look, greet
";

fn project(tag: &str, sounds: &str) -> TempProject {
    let p = TempProject::new(tag);
    std::fs::create_dir_all(p.path().join("v")).unwrap();
    for name in ["look_1", "look_2", "look_3", "greet_1", "greet_2"] {
        // Short: each has ended by the next request a second later.
        constant_wav(&p.path().join(format!("v/{name}.wav")), 0.2, 0.1);
    }
    p.file(
        "world.ini",
        &format!("[Lot]\nFile = home.lot\n[View]\nScreen = 1024, 768\n{sounds}"),
    )
    .file(
        "home.lot",
        "camera 0 0 zoom 1\nobject 1 person \"Bob\" at 0 0\nobject 2 person \"Betty\" at 10 0\nobject 3 person \"Far\" at 30 0\n",
    );
    p
}

/// A session whose mixer renders as it ticks (notes end, so origins are free again).
struct Rendered {
    session: Session,
    mixer: Mixer,
}

impl std::ops::Deref for Rendered {
    type Target = Session;
    fn deref(&self) -> &Session {
        &self.session
    }
}

impl std::ops::DerefMut for Rendered {
    fn deref_mut(&mut self) -> &mut Session {
        &mut self.session
    }
}

impl Rendered {
    fn tick(&mut self) {
        let start = self.session.now();
        self.session.tick();
        let frames = (self.session.now() - start) as usize;
        let mut buffer = vec![0.0; frames * 2];
        self.mixer.render(&mut buffer);
    }
}

fn session(p: &TempProject) -> Rendered {
    let project = Project::load(p.path());
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    let (handle, mixer) = mixer(MixerConfig::default());
    let config = SessionConfig {
        server: ServerConfig {
            blocking: true,
            ..ServerConfig::default()
        },
        ..SessionConfig::default()
    };
    let mut s = Rendered {
        session: Session::new(project, handle, config),
        mixer,
    };
    s.tick();
    assert!(
        s.world.diagnostics().is_empty(),
        "{:#?}",
        s.world.diagnostics()
    );
    s
}

/// Runs `line`, then a second of ticks; the server sounds recorded meanwhile.
fn run(s: &mut Rendered, line: &str) -> (Result<String, String>, Vec<SampleEvent>) {
    let reply = s.run_line(line);
    for _ in 0..60 {
        s.tick();
    }
    let records = s
        .take_trace()
        .into_iter()
        .filter_map(|r| match r.what {
            TraceEvent::Sample(
                what @ (SampleEvent::ServerSound { .. }
                | SampleEvent::ServerSoundRefused { .. }
                | SampleEvent::OriginBusy { .. }),
            ) => Some(what),
            _ => None,
        })
        .collect();
    (reply, records)
}

/// (group, sample file stem) of a played server sound.
fn played(events: &[SampleEvent]) -> Option<(String, String)> {
    events.iter().find_map(|e| match e {
        SampleEvent::ServerSound { group, sample, .. } => Some((
            group.as_deref().unwrap_or("").to_string(),
            sample.rsplit('/').next().unwrap_or("").to_string(),
        )),
        _ => None,
    })
}

#[test]
fn select_follows_the_two_groups_rule_per_selection() {
    let p = project("ss-select", SOUNDS);
    let mut s = session(&p);
    let mut groups = Vec::new();
    let mut seconds = Vec::new();
    for _ in 0..7 {
        let (reply, events) = run(&mut s, "select 1");
        assert!(reply.is_ok(), "{reply:?}");
        let (group, sample) = played(&events).expect("a server sound record");
        if group == "greet" {
            seconds.push(sample.clone());
        }
        groups.push(group);
    }
    // Three from the first group, then the second group in order, then back.
    assert_eq!(
        groups,
        ["look", "look", "look", "greet", "greet", "look", "look"]
    );
    assert_eq!(seconds, ["greet_1.wav", "greet_2.wav"]);
    // Another selection starts the cycle again.
    let (_, events) = run(&mut s, "select 1 2");
    assert_eq!(played(&events).unwrap().0, "look");
}

#[test]
fn a_selection_is_the_same_origin_in_any_order() {
    let p = project("ss-order", SOUNDS);
    for (first, again) in [
        ("select 1 2", "select 2 1"),
        ("select 1 2 3", "select 3 1 2"),
        ("select 2", "select 2 2"),
        ("select 1 2", "select 2 1 1"),
    ] {
        let mut s = session(&p);
        // Noise reduction: the same selection, still playing, is held back …
        s.run_line(first).unwrap();
        let error = s.run_line(again).unwrap_err();
        assert!(
            error.contains("noise reduction"),
            "{first} / {again}: {error}"
        );
        // … and, once it has played, goes on with its cycle (three of the first group,
        // then the second) whatever the order.
        for _ in 0..60 {
            s.tick();
        }
        let mut groups = Vec::new();
        for line in [again, first, again] {
            let (reply, events) = run(&mut s, line);
            assert!(reply.is_ok(), "{line}: {reply:?}");
            groups.push(played(&events).unwrap().0);
        }
        assert_eq!(groups, ["look", "look", "greet"], "{first} / {again}");
    }
}

#[test]
fn a_group_picks_among_its_files_and_noise_reduction_holds_an_origin_back() {
    let p = project("ss-group", SOUNDS);
    let mut s = session(&p);
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..30 {
        let (reply, events) = run(&mut s, "sound look @1");
        assert!(reply.is_ok(), "{reply:?}");
        seen.insert(played(&events).unwrap().1);
    }
    assert_eq!(seen.len(), 3, "every file of the group plays: {seen:?}");

    // Two requests from one object in the same moment: the second is dropped.
    s.run_line("sound look @1").unwrap();
    let error = s.run_line("sound greet @1").unwrap_err();
    assert!(error.contains("noise reduction"), "{error}");
    let trace = s.take_trace();
    assert!(trace.iter().any(|r| matches!(
        &r.what,
        TraceEvent::Sample(SampleEvent::OriginBusy { sound, origin: 1 }) if &**sound == "greet"
    )));
    // Another object is not held back.
    assert!(s.run_line("sound greet @2").is_ok());
}

#[test]
fn volume_falls_with_distance_to_silence_at_the_range() {
    let p = project("ss-range", SOUNDS);
    let mut s = session(&p);
    let volume = |events: &[SampleEvent]| {
        events.iter().find_map(|e| match e {
            SampleEvent::ServerSound {
                volume,
                distance,
                range,
                ..
            } => Some((*volume, distance.unwrap(), *range)),
            _ => None,
        })
    };
    // Bob at the view point: full; Betty 10 tiles away with a 20-tile range: half.
    let (_, near) = run(&mut s, "sound look @1");
    assert_eq!(volume(&near), Some((1.0, 0.0, 20.0)));
    let (_, half) = run(&mut s, "sound look @2");
    let (v, d, _) = volume(&half).unwrap();
    assert!(
        (v - 0.5).abs() < 1e-4 && (d - 10.0).abs() < 1e-4,
        "{v} at {d}"
    );
    // 30 tiles: beyond `look`'s 20 — refused; `greet` has MaxRange 40: heard.
    let (reply, far) = run(&mut s, "sound look @3");
    assert!(reply.unwrap_err().contains("out of range"));
    assert!(matches!(
        far.as_slice(),
        [SampleEvent::ServerSoundRefused { reason, .. }] if reason.contains("out of its range of 20 tiles")
    ));
    let (_, heard) = run(&mut s, "sound greet @3");
    let (v, _, range) = volume(&heard).unwrap();
    assert!((v - 0.25).abs() < 1e-4 && range == 40.0, "{v} of {range}");
    // Unknown sounds and objects are errors, not sounds from nowhere.
    let error = s.run_line("sound nope @1").unwrap_err();
    assert!(
        error.contains("no server sound `nope` (defined: greet, look, selected)"),
        "{error}"
    );
    let error = s.run_line("select 99").unwrap_err();
    assert!(error.contains("no object 99"), "{error}");
}

#[test]
fn bad_lines_name_their_file_and_line_and_are_left_out() {
    let p = project(
        "ss-bad",
        "[ServerSounds]\nMaxRange = -3\nyes = v/missing.wav\nfar = v/look_1.wav, range far\nboth = two look\nsel = two look, nothing\nSelect = ghost\nlook = v/greet_1.wav\n",
    );
    let (ini, _) = WorldIni::load(&[p.path().to_path_buf()]);
    let (sounds, problems) = ServerSounds::from_ini(&ini, &[p.path().to_path_buf()]);
    let lines: Vec<(u32, String)> = problems
        .iter()
        .map(|d| (d.line, d.message.clone()))
        .collect();
    assert_eq!(lines.len(), 6, "{lines:#?}");
    // world.ini's first four lines are the lot and the view.
    for (line, words) in [
        (6, "must be more than 0"),
        (7, "does not exist"),
        (8, "a range is a number of tiles"),
        (
            9,
            "a selection sound is `two <first sound>, <second sound>`",
        ),
        (10, "`nothing` is not a sound of [ServerSounds]"),
        (11, "`Select` = ghost: no such sound"),
    ] {
        assert!(
            lines.iter().any(|(l, m)| *l == line && m.contains(words)),
            "line {line}: {words}\n{lines:#?}"
        );
    }
    assert_eq!(sounds.names().collect::<Vec<_>>(), ["look"]);
    assert!(sounds.select.is_none());
}
