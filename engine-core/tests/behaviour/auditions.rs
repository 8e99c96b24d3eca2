//! What the Box-X voice limit leaves alone, and how `play` finds a sample. An audition
//! (`play`, the Browser's, the hit-list editor's) is monitoring — what the designer
//! listens to — and the sound server's own sounds (`select`, `sound`) take a mixer
//! channel as the sound server design has them: neither takes a Box-X slot, steals one or
//! is refused one, while tracks and the world's players share the limit
//! (docs/world.md, "Voices"). `play` names a sample file in any case, with either slash.

use crate::support::{TempProject, constant_wav, looping_tracks};
use engine_core::host::session::{Session, SessionConfig};
use engine_core::runtime::trace::{SampleEvent, TraceEvent};
use engine_core::sound::mixer::{Mixer, MixerConfig, mixer};
use engine_core::sound::server::ServerConfig;
use engine_core::toolchain::project::Project;
use std::path::Path;
use std::sync::atomic::Ordering;

/// A session on `dir` whose mixer renders as it ticks.
fn session(dir: &Path, voices: usize) -> (Session, Mixer) {
    let project = Project::load(dir);
    assert!(!project.has_errors(), "{:#?}", project.diagnostics);
    let (handle, mixer) = mixer(MixerConfig::default());
    let mut config = SessionConfig {
        server: ServerConfig {
            blocking: true,
            ..ServerConfig::default()
        },
        ..SessionConfig::default()
    };
    config.engine.max_voices = voices;
    (Session::new(project, handle, config), mixer)
}

fn tick(s: &mut Session, mixer: &mut Mixer, ticks: usize) {
    for _ in 0..ticks {
        let start = s.now();
        s.tick();
        let mut out = vec![0.0; (s.now() - start) as usize * 2];
        mixer.render(&mut out);
    }
}

#[test]
fn auditions_and_server_sounds_take_no_box_x_voice() {
    let limit = 4;
    let p = looping_tracks("auditions", &[40; 5], 1024, "");
    constant_wav(&p.path().join("s.wav"), 5.0, 0.1);
    p.file(
        "world.ini",
        "[Lot]\nFile = home.lot\n[ServerSounds]\nSelect = hum\nhum = s.wav\n",
    )
    .file(
        "home.lot",
        "object 1 person \"Bob\" at 3 3\nobject 2 person \"Ann\" at 4 3\ncontrolled 1\n",
    );
    let (mut s, mut mixer) = session(p.path(), limit);
    tick(&mut s, &mut mixer, 1);
    for i in 0..limit {
        s.run_line(&format!("sev t{i} @1")).unwrap();
        tick(&mut s, &mut mixer, 1);
    }
    assert_eq!(s.engine.voices_in_use(), limit);
    // A track more is refused: the limit holds for tracks …
    s.run_line(&format!("sev t{limit} @1")).unwrap();
    tick(&mut s, &mut mixer, 1);
    let trace = s.take_trace();
    assert!(
        trace
            .iter()
            .any(|r| matches!(r.what, TraceEvent::Refused { .. })),
        "{trace:#?}"
    );
    // … not for what the designer auditions, nor for the sound server's own sounds.
    for line in ["play s.wav", "play hum", "sound hum @2", "select 1"] {
        let playing = mixer.controls().voices.load(Ordering::Relaxed);
        let reply = s.run_line(line);
        assert!(reply.is_ok(), "{line}: {reply:?}");
        tick(&mut s, &mut mixer, 2);
        let trace = s.take_trace();
        assert!(
            !trace.iter().any(|r| matches!(
                r.what,
                TraceEvent::Refused { .. } | TraceEvent::Stole { .. }
            )),
            "{line}: {trace:#?}"
        );
        assert!(
            !trace
                .iter()
                .any(|r| matches!(r.what, TraceEvent::Sample(SampleEvent::NoMixerVoice { .. }))),
            "{line}: {trace:#?}"
        );
        assert_eq!(s.engine.voices_in_use(), limit, "{line}");
        assert_eq!(
            mixer.controls().voices.load(Ordering::Relaxed),
            playing + 1,
            "{line}: one more mixer channel sounds"
        );
    }
}

#[test]
fn play_finds_a_sample_file_in_any_case_and_with_either_slash() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/demo");
    let (mut s, mut mixer) = session(&demo, 16);
    for form in [
        "sounds/ui/money.wav",
        "SOUNDS/UI/MONEY.WAV",
        "Sounds\\Ui\\Money.wav",
        "sounds\\ui\\money.WAV",
    ] {
        let reply = s.run_line(&format!("play {form}"));
        assert!(
            reply
                .as_ref()
                .is_ok_and(|r| r.contains("sample sounds/ui/money.wav")),
            "`play {form}`: {reply:?}"
        );
        tick(&mut s, &mut mixer, 1);
    }
    let reply = s.run_line("play sounds/ui/nothing.wav");
    assert!(reply.is_err(), "{reply:?}");

    // Inside a zip pack too (entries are served by their lower-case names).
    let p = TempProject::new("play-pack-case");
    let beep = p.path().join("beep.wav");
    constant_wav(&beep, 0.2, 0.1);
    let bytes = std::fs::read(&beep).unwrap();
    std::fs::remove_file(&beep).unwrap();
    {
        use std::io::Write as _;
        let mut zip =
            zip::ZipWriter::new(std::fs::File::create(p.path().join("extra.zip")).unwrap());
        zip.start_file("Sounds/Beep.wav", zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(&bytes).unwrap();
        zip.finish().unwrap();
    }
    let (mut s, _mixer) = session(p.path(), 16);
    for form in ["Sounds/Beep.wav", "SOUNDS/BEEP.WAV", "sounds\\beep.wav"] {
        let reply = s.run_line(&format!("play {form}"));
        assert!(
            reply
                .as_ref()
                .is_ok_and(|r| r.contains("sample sounds/beep.wav")),
            "`play {form}`: {reply:?}"
        );
    }
}
