//! A plug-in folder added and removed while a session plays, as the game's download
//! directories were: the session goes on (same clock, the world and its voices kept),
//! the cache serves the plug-in's files (its sample overrides the project's), its
//! `world.ini` is read, and a removal restores the project's own.

use crate::support::{TempProject, constant_wav, looping_tracks};
use engine_core::host::session::{Session, SessionConfig, replace_project};
use engine_core::runtime::trace::ReloadEvent;
use engine_core::sound::mixer::{Mixer, MixerConfig, mixer};
use engine_core::sound::server::ServerConfig;
use engine_core::toolchain::project::Project;

/// Plays `ui t0` for half a second; the output's peak.
fn play(session: &mut Session, mixer: &mut Mixer) -> f32 {
    session.run_line("ui t0").unwrap();
    let mut peak = 0.0f32;
    for _ in 0..30 {
        let start = session.now();
        session.tick();
        let mut buffer = vec![0.0; (session.now() - start) as usize * 2];
        mixer.render(&mut buffer);
        peak = buffer.iter().fold(peak, |p, s| p.max(s.abs()));
    }
    session.run_line("quietall").unwrap();
    for _ in 0..5 {
        let start = session.now();
        session.tick();
        let mut buffer = vec![0.0; (session.now() - start) as usize * 2];
        mixer.render(&mut buffer);
    }
    peak
}

#[test]
fn a_plugin_folder_goes_live_and_leaves_without_a_restart() {
    let base = looping_tracks("plugin-base", &[40], 1024, "");
    constant_wav(&base.path().join("s.wav"), 1.0, 0.25);
    let plugin = TempProject::new("plugin-dir");
    constant_wav(&plugin.path().join("s.wav"), 1.0, 0.5);
    plugin.file("world.ini", "[ServerSounds]\nhum = s.wav\n");
    let centre = std::f32::consts::FRAC_1_SQRT_2;

    let (handle, mut mixer) = mixer(MixerConfig::default());
    let config = SessionConfig {
        server: ServerConfig {
            blocking: true,
            ..ServerConfig::default()
        },
        ..SessionConfig::default()
    };
    let mut s = Session::new(Project::load(base.path()), handle, config);
    let peak = play(&mut s, &mut mixer);
    assert!(
        (peak - 0.25 * centre).abs() < 0.01,
        "the project's own: {peak}"
    );
    assert!(s.run_line("sound hum").is_err(), "no such sound yet");
    let before = s.now();

    // Added (s.wav and world.ini served): the plug-in's s.wav overrides, its world.ini
    // is read.
    let dirs = vec![base.path().to_path_buf(), plugin.path().to_path_buf()];
    let events = replace_project(&mut s, Project::load_dirs(&dirs), true);
    assert!(
        events.iter().any(|e| matches!(
            e,
            ReloadEvent::DirAdded { dir, resources } if dir == plugin.path() && *resources == 2
        )),
        "{events:#?}"
    );
    assert!(s.now() >= before, "the same session goes on");
    let peak = play(&mut s, &mut mixer);
    assert!(
        (peak - 0.5 * centre).abs() < 0.01,
        "the plug-in's sample: {peak}"
    );
    assert!(
        s.world.server_sounds.names().any(|n| n == "hum"),
        "its world.ini was read"
    );

    // Removed: the project's own again.
    let events = replace_project(&mut s, Project::load(base.path()), true);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, ReloadEvent::DirRemoved { dir } if dir == plugin.path())),
        "{events:#?}"
    );
    let peak = play(&mut s, &mut mixer);
    assert!(
        (peak - 0.25 * centre).abs() < 0.01,
        "the project's own again: {peak}"
    );
    assert!(
        s.run_line("sound hum").is_err(),
        "its world.ini is gone too"
    );
}

/// `plugin add|remove <folder>` in a script or at a session's console: the folder is
/// the project folder's (relative to it) and must lie inside it; it goes live and leaves
/// as File → Add plug-in folder does; each mistake is refused, saying so.
#[test]
fn a_script_adds_and_removes_a_plugin_folder_inside_the_project() {
    let base = looping_tracks("plugin-cmd", &[40], 1024, "");
    constant_wav(&base.path().join("s.wav"), 1.0, 0.25);
    let plugin = base.path().join("plugins/loud");
    std::fs::create_dir_all(&plugin).unwrap();
    constant_wav(&plugin.join("s.wav"), 1.0, 0.5);
    std::fs::write(base.path().join("plugins/file.txt"), "not a folder").unwrap();
    let outside = TempProject::new("plugin-outside");
    let centre = std::f32::consts::FRAC_1_SQRT_2;
    let (handle, mut mixer) = mixer(MixerConfig::default());
    let config = SessionConfig {
        server: ServerConfig {
            blocking: true,
            ..ServerConfig::default()
        },
        ..SessionConfig::default()
    };
    let mut s = Session::new(Project::load(base.path()), handle, config);
    let reply = s.run_line("plugin add plugins/loud").unwrap();
    assert!(reply.contains("added plug-in folder"), "{reply}");
    assert_eq!(s.engine.project().dirs.len(), 2);
    let peak = play(&mut s, &mut mixer);
    assert!((peak - 0.5 * centre).abs() < 0.01, "the plug-in's: {peak}");
    let outside_line = format!("plugin add {}", outside.path().display());
    for (line, says) in [
        ("plugin add plugins/loud", "already"),
        ("plugin add plugins/none", "cannot add"),
        ("plugin add plugins/file.txt", "not a folder"),
        ("plugin add .", "the project itself"),
        (outside_line.as_str(), "outside the project's folder"),
        ("plugin remove plugins", "not a plug-in folder"),
    ] {
        let error = s.run_line(line).unwrap_err();
        assert!(error.contains(says), "{line}: {error}");
        assert_eq!(s.engine.project().dirs.len(), 2, "{line}");
    }
    let reply = s.run_line("plugin remove plugins/loud").unwrap();
    assert!(reply.contains("removed plug-in folder"), "{reply}");
    assert_eq!(s.engine.project().dirs.len(), 1);
    let peak = play(&mut s, &mut mixer);
    assert!(
        (peak - 0.25 * centre).abs() < 0.01,
        "the project's own: {peak}"
    );
}
