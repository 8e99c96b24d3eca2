//! The world director inside a session: sounds from lot objects start at the volume and
//! pan of their place on screen and follow the view; TV events tune receivers to one
//! station stream whose pan is the mix of its receivers; music-mode events play the
//! mode's list; the lot saves; world commands and world.ini mistakes are reported.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use engine_core::host::command::{self, Command, WorldCommand};
use engine_core::host::offline::{RenderOptions, render};
use engine_core::host::session::{SaveLotPolicy, Session, SessionConfig};
use engine_core::runtime::TraceKind;
use engine_core::sound::mixer::{Mixer, MixerConfig, mixer};
use engine_core::sound::server::ServerConfig;
use engine_core::toolchain::project::Project;
use engine_core::world::lot::Lot;
use engine_core::world::music::MusicMode;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

const RATE: u32 = 48_000;

/// A temporary project with a voice event, TV and music-mode events, stations, music
/// lists and a lot.
struct Demo(PathBuf);

fn tone(path: &Path, seconds: f64, level: f32) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: RATE,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut w = hound::WavWriter::create(path, spec).unwrap();
    let frames = (seconds * f64::from(RATE)) as usize;
    for i in 0..frames {
        let v = (i as f32 * 440.0 * std::f32::consts::TAU / RATE as f32).sin() * level;
        w.write_sample((v * 32_767.0) as i16).unwrap();
    }
    w.finalize().unwrap();
}

const SOURCE: &str = r#"LAYOUT ts1
LIST [Patch] 301=0,hello,"sounds\hello.wav",0,0,0,0,0
LIST [EventMapping] vox_hello=kSndobPlay,0x3000,0,0,0,0
LIST [EventMapping] tv_on=kTurnOnTV,28,0,0,0,0
LIST [EventMapping] tv_off=kTurnOffTV,28,0,0,0,0
LIST [EventMapping] music_buy=kSetMusicMode,1,0,0,0,0
LIST [EventMapping] music_live=kSetMusicMode,0,0,0,0,0
LIST [Track] 0x3000=0,vox_hello,1024,kArgsNormal,duckpri_normal,kGroupVox,spl_normal,@0,301,60

BINARY [
vox_hello
	loadl patch #301
	note_on v1
	wait_samp
	end
]
"#;

const WORLD: &str = "[Lot]
File = home.lot

[Stations]
28 = stations/tv/news, fx

[Music]
Buy = music/buy
Build = music/build
FadeOut = 1
FadeIn = 1
";

const LOT: &str = r#"# a test lot
hour 14
mode live
camera 10 10 zoom 1 rotation 0
controlled 1
room 20

object 1 person "Left" at 8 12 gender=male
object 2 person "Right" at 12 8 gender=female
object 4 tv "TV left" at 8 12 station=28
object 5 tv "TV right" at 12 8 station=28
"#;

impl Demo {
    fn new(tag: &str) -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "hitbench-director-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("voices.src"), SOURCE).unwrap();
        std::fs::write(dir.join("world.ini"), WORLD).unwrap();
        std::fs::write(dir.join("home.lot"), LOT).unwrap();
        tone(&dir.join("sounds/hello.wav"), 2.0, 0.5);
        tone(&dir.join("stations/tv/news/report.wav"), 3.0, 0.3);
        tone(&dir.join("stations/tv/news/weather.wav"), 3.0, 0.3);
        tone(&dir.join("stations/tv/soap_ad.wav"), 1.0, 0.3);
        tone(&dir.join("music/buy/shopping.wav"), 4.0, 0.3);
        tone(&dir.join("music/build/hammer.wav"), 4.0, 0.3);
        Self(dir)
    }

    fn project(&self) -> Project {
        let project = Project::load(&self.0);
        assert!(!project.has_errors(), "{:#?}", project.diagnostics);
        project
    }

    fn session(&self) -> (Session, Mixer) {
        let (handle, mixer) = mixer(MixerConfig::default());
        let config = SessionConfig {
            server: ServerConfig {
                blocking: true,
                ..ServerConfig::default()
            },
            // `savelot` as the workbench's console may: inside the project.
            save_lot: SaveLotPolicy::InsideProject,
            ..SessionConfig::default()
        };
        (Session::new(self.project(), handle, config), mixer)
    }
}

impl Drop for Demo {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `seconds` of ticks, rendering as the live engine would.
fn run(session: &mut Session, mixer: &mut Mixer, seconds: f64) {
    let end = session.now() + (seconds * f64::from(RATE)) as u64;
    let mut buffer = vec![0.0f32; 4096];
    while session.now() < end {
        let start = session.now();
        session.tick();
        let mut frames = (session.now() - start) as usize;
        while frames > 0 {
            let n = frames.min(buffer.len() / 2);
            mixer.render(&mut buffer[..n * 2]);
            frames -= n;
        }
    }
}

fn line(session: &mut Session, text: &str) -> String {
    session
        .run_line(text)
        .unwrap_or_else(|e| panic!("`{text}`: {e}"))
}

/// Energy of the left and right channels between two times of a rendered WAV.
fn energy(path: &Path, from: f64, to: f64) -> (f64, f64) {
    let mut reader = hound::WavReader::open(path).unwrap();
    let spec = reader.spec();
    let samples: Vec<f32> = match spec.sample_format {
        hound::SampleFormat::Float => reader.samples::<f32>().map(Result::unwrap).collect(),
        hound::SampleFormat::Int => reader
            .samples::<i32>()
            .map(|s| s.unwrap() as f32 / 32_768.0)
            .collect(),
    };
    let rate = f64::from(spec.sample_rate);
    let (a, b) = ((from * rate) as usize, (to * rate) as usize);
    let (mut left, mut right) = (0.0, 0.0);
    for frame in samples.chunks(2).skip(a).take(b - a) {
        left += f64::from(frame[0]).powi(2);
        right += f64::from(frame[1]).powi(2);
    }
    (left, right)
}

fn render_script(demo: &Demo, script: &str, seconds: f64) -> PathBuf {
    let (commands, problems) = command::parse_script(script, Path::new("tour.txt"));
    assert!(problems.is_empty(), "{problems:?}");
    let out = demo.0.join("out.wav");
    let report = render(
        demo.project(),
        &commands,
        &out,
        RenderOptions {
            duration: Some(seconds),
            ..RenderOptions::default()
        },
    )
    .unwrap();
    assert!(
        report.log.iter().all(|l| !l.contains("error")),
        "{:#?}",
        report.log
    );
    out
}

#[test]
fn a_sound_starts_where_its_object_is_on_screen() {
    let demo = Demo::new("start-pan");
    let wav = render_script(&demo, "0.0 sev vox hello @1\n2.5 sev vox hello @2\n", 5.0);
    let (l, r) = energy(&wav, 0.2, 1.8);
    assert!(
        l > 2.0 * r,
        "object 1 is left of centre: left {l:.1}, right {r:.1}"
    );
    let (l, r) = energy(&wav, 2.7, 4.3);
    assert!(
        r > 2.0 * l,
        "object 2 is right of centre: left {l:.1}, right {r:.1}"
    );
}

#[test]
fn a_playing_sound_follows_the_view() {
    let demo = Demo::new("follow");
    // Object 1 starts left of centre; scrolling the view left brings it to the right.
    let wav = render_script(&demo, "0.0 sev vox hello @1\n0.9 scroll -600 0\n", 2.0);
    let (l0, r0) = energy(&wav, 0.2, 0.8);
    let (l1, r1) = energy(&wav, 1.2, 1.9);
    assert!(l0 > r0, "before: left {l0:.1}, right {r0:.1}");
    assert!(r1 > l1, "after scrolling: left {l1:.1}, right {r1:.1}");
}

#[test]
fn tv_events_tune_receivers_to_one_stream_and_the_mix_follows_the_view() {
    let demo = Demo::new("tv");
    let (mut session, mut mixer) = demo.session();
    line(&mut session, "sev tv on @4");
    line(&mut session, "sev tv on @5");
    run(&mut session, &mut mixer, 0.2);
    let station = session.world.stations().get(28).unwrap();
    assert_eq!(
        station.receivers.iter().copied().collect::<Vec<_>>(),
        [4, 5]
    );
    let on_air = station.on_air.clone().expect("the station plays");
    assert!(
        station.level.1.get().abs() < 0.05,
        "two TVs mirrored left and right give the centre: {:?}",
        station.level
    );
    // Scroll right: the left TV leaves the full-volume area for the fade band, the right
    // one nears the centre and takes over: the station moves right.
    line(&mut session, "scroll 120 0");
    run(&mut session, &mut mixer, 0.1);
    let station = session.world.stations().get(28).unwrap();
    assert!(station.level.1.get() > 0.1, "{:?}", station.level);
    assert_eq!(station.on_air.as_ref().map(|o| o.note), Some(on_air.note));
    // The trace says what the world did.
    let trace = session.take_trace();
    assert!(
        trace
            .iter()
            .any(|r| r.kind == TraceKind::World && r.message().contains("tuned")),
        "{trace:#?}"
    );
    // Both off: the station goes quiet.
    line(&mut session, "sev tv off @4");
    line(&mut session, "turnoff 5");
    run(&mut session, &mut mixer, 0.1);
    let station = session.world.stations().get(28).unwrap();
    assert!(station.receivers.is_empty() && station.on_air.is_none());
    assert!(!session.engine.world().get(5).unwrap().on);
}

#[test]
fn a_music_mode_event_plays_the_modes_list() {
    let demo = Demo::new("music");
    let (mut session, mut mixer) = demo.session();
    line(&mut session, "ui music buy");
    run(&mut session, &mut mixer, 0.2);
    let music = session.world.music();
    assert_eq!(music.mode, MusicMode::Buy);
    let song = music.song.expect("a buy song plays");
    assert!(song.file.ends_with("music/buy/shopping.wav"), "{song:?}");
    line(&mut session, "mode live");
    run(&mut session, &mut mixer, 0.2);
    assert_eq!(session.world.music().mode, MusicMode::Live);
    assert!(session.world.music().song.is_none_or(|s| s.parked));
}

#[test]
fn the_lot_loads_into_the_engine_and_saves_what_moved() {
    let demo = Demo::new("save");
    let (mut session, _mixer) = demo.session();
    assert_eq!(session.controlled, Some(1));
    assert_eq!(session.engine.world().len(), 4);
    assert_eq!(
        session.engine.world().get(2).unwrap().fields[0],
        1,
        "gender=female is field 0 = 1"
    );
    line(&mut session, "move 1 3 4");
    line(&mut session, "hour 21:30");
    line(&mut session, "zoom 2");
    let saved = demo.0.join("saved.lot");
    line(&mut session, &format!("savelot {}", saved.display()));
    let (lot, problems) = Lot::load(&saved);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(lot.objects.get(1).unwrap().position, [3.0, 4.0]);
    assert_eq!(lot.hour, 21.5);
    assert_eq!(lot.camera.zoom, 2);
    assert_eq!(lot.controlled, Some(1));
    assert_eq!(lot.objects.len(), 4);
}

#[test]
fn world_describes_volume_pan_and_why() {
    let demo = Demo::new("describe");
    let (mut session, _mixer) = demo.session();
    let text = line(&mut session, "world");
    assert!(text.contains("camera (10.00, 10.00) zoom 1"), "{text}");
    assert!(text.contains("station 28"), "{text}");
    let left = text.lines().find(|l| l.contains("Left")).unwrap();
    assert!(left.contains("inside"), "{left}");
    let p = session.world.placement(&session.engine, 1).unwrap();
    assert!(p.pan < 512 && p.volume == 1024, "{p:?}");
    // Zooming out attenuates what the placement reports.
    line(&mut session, "zoom 3");
    let far = session.world.placement(&session.engine, 1).unwrap();
    assert!(far.volume < p.volume && far.why.zoom < 1.0, "{far:?}");
}

#[test]
fn world_commands_parse_and_bad_ones_say_why() {
    let parse = |l: &str| command::parse(l).unwrap().unwrap();
    assert_eq!(
        parse("view 3 4.5"),
        Command::World(WorldCommand::View { x: 3.0, y: 4.5 })
    );
    assert_eq!(
        parse("hour 18:30"),
        Command::World(WorldCommand::Hour(18.5))
    );
    assert_eq!(
        parse("mode neighborhood"),
        Command::World(WorldCommand::Mode(MusicMode::Neighborhood))
    );
    assert_eq!(
        parse("move 3 1 2 1"),
        Command::World(WorldCommand::Move {
            object: 3,
            x: 1.0,
            y: 2.0,
            floor: Some(1)
        })
    );
    for (bad, says) in [
        ("hour 25", "not an hour"),
        ("mode disco", "not a music mode"),
        ("zoom 7", "zoom in, out"),
        ("view 3", "missing a number"),
        ("turnon 4", "needs an object and a station"),
        ("rotate 9", "rotate left, right"),
    ] {
        let e = command::parse(bad).unwrap_err();
        assert!(e.message.contains(says), "{bad}: {e}");
    }
}

#[test]
fn mistakes_in_world_ini_and_the_lot_are_reported_and_the_rest_works() {
    let demo = Demo::new("mistakes");
    std::fs::write(
        demo.0.join("world.ini"),
        "[Lot]\nFile = home.lot\n\n[Stations]\n28 = stations/tv/news\nbogus = nowhere\n",
    )
    .unwrap();
    std::fs::write(
        demo.0.join("home.lot"),
        format!("{LOT}object 9 spaceship \"UFO\" at 1 1\n"),
    )
    .unwrap();
    let (mut session, mut mixer) = demo.session();
    let problems: Vec<String> = session
        .world
        .diagnostics()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert!(
        problems.iter().any(|p| p.contains("world.ini:6")),
        "{problems:#?}"
    );
    assert!(
        problems.iter().any(|p| p.contains("home.lot:12")),
        "{problems:#?}"
    );
    // The good parts work.
    line(&mut session, "sev tv on @4");
    run(&mut session, &mut mixer, 0.1);
    assert!(session.world.stations().get(28).unwrap().on_air.is_some());
    assert_eq!(session.engine.world().len(), 4);
    // A station that does not exist is a clear error, traced.
    let e = session.run_line("turnon 5 99").unwrap_err();
    assert!(e.contains("no station 99"), "{e}");
}

#[test]
fn sev_without_a_controlled_character_says_what_to_do() {
    let demo = Demo::new("no-control");
    let (mut session, _mixer) = demo.session();
    session.controlled = None;
    let e = session.run_line("sev vox hello").unwrap_err();
    assert!(e.contains("no controlled character"), "{e}");
    assert!(
        e.contains("control <object>") && e.contains("ui vox_hello"),
        "{e}"
    );
    // Naming the source, or choosing one, works.
    line(&mut session, "sev vox hello @2");
    line(&mut session, "control 2");
    line(&mut session, "sev vox hello");
    assert!(
        session
            .run_line("control 99")
            .unwrap_err()
            .contains("no object 99")
    );
}

#[test]
fn a_sound_from_an_object_that_is_not_on_the_lot_is_an_error() {
    let demo = Demo::new("no-object");
    let (mut session, mut mixer) = demo.session();
    for missing in ["-1", "3", "99"] {
        let e = session
            .run_line(&format!("sev vox hello @{missing}"))
            .unwrap_err();
        assert!(
            e.contains(&format!("no object {missing} on the lot")),
            "@{missing}: {e}"
        );
    }
    run(&mut session, &mut mixer, 0.1);
    assert!(
        session.engine.active_tracks().is_empty(),
        "nothing plays from nowhere"
    );
    line(&mut session, "sev vox hello @2");
}

#[test]
fn only_receivers_can_be_tuned_to_a_station() {
    let demo = Demo::new("tune-person");
    let (mut session, mut mixer) = demo.session();
    // Object 1 is a person: neither `turnon` nor a kTurnOnTV event from it tunes it.
    let e = session.run_line("turnon 1 28").unwrap_err();
    assert!(e.contains("object 1 is a person, not a receiver"), "{e}");
    let _ = session.run_line("sev tv on @1");
    run(&mut session, &mut mixer, 0.1);
    let station = session.world.stations().get(28).unwrap();
    assert!(station.on_air.is_none(), "no receiver, nothing on air");
    assert!(session.engine.world().get(1).unwrap().station.is_none());
    let trace = session.take_trace();
    assert!(
        trace
            .iter()
            .any(|r| r.kind == TraceKind::Error && r.message().contains("not a receiver")),
        "{trace:#?}"
    );
    // A TV still can.
    line(&mut session, "turnon 4 28");
}
