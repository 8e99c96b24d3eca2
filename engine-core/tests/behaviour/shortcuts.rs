//! Shortcuts in station and music folders: the project's own folders follow symbolic
//! links and Windows `.lnk` shortcuts to sound files anywhere (the user's music need not
//! be copied), play the real file, name it in the trace, and report a broken one once
//! without ever announcing it as playing; plug-in folders follow none of them; the
//! cache serves a linked file from its path.

#![cfg(unix)]

use engine_core::runtime::SampleTime;
use engine_core::runtime::sink::{RecordingSink, SoundCommand};
use engine_core::runtime::trace::{MusicEvent, StationEvent};
use engine_core::sound::cache::ResourceCache;
use engine_core::world::music::{Music, MusicMode, MusicSettings};
use engine_core::world::settings::WorldIni;
use engine_core::world::shortcut;
use engine_core::world::sound::NoteIds;
use engine_core::world::stations::Stations;
use std::path::{Path, PathBuf};

const RATE: u32 = 48_000;

/// A fresh folder for `tag`.
fn temp(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hitbench-shortcuts-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A real one-second WAV at `path`.
fn wav(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let frames = 22_050u32;
    let mut bytes = Vec::new();
    bytes.extend_from_slice(b"RIFF");
    bytes.extend_from_slice(&(36 + frames * 2).to_le_bytes());
    bytes.extend_from_slice(b"WAVEfmt ");
    bytes.extend_from_slice(&16u32.to_le_bytes());
    bytes.extend_from_slice(&1u16.to_le_bytes());
    bytes.extend_from_slice(&1u16.to_le_bytes());
    bytes.extend_from_slice(&22_050u32.to_le_bytes());
    bytes.extend_from_slice(&44_100u32.to_le_bytes());
    bytes.extend_from_slice(&2u16.to_le_bytes());
    bytes.extend_from_slice(&16u16.to_le_bytes());
    bytes.extend_from_slice(b"data");
    bytes.extend_from_slice(&(frames * 2).to_le_bytes());
    for i in 0..frames {
        let v = ((i as f32 * 0.05).sin() * 8000.0) as i16;
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    std::fs::write(path, bytes).unwrap();
}

/// A user's music folder outside the project, and a project whose radio station holds
/// a symbolic link and a shortcut to two of its songs, a shortcut to a file that is not
/// there, a dangling link, and a shortcut to a text file.
struct Setup {
    root: PathBuf,
    project: PathBuf,
    music: PathBuf,
}

impl Setup {
    fn new(tag: &str) -> Self {
        let root = temp(tag);
        let music = root.join("My Music");
        wav(&music.join("linked song.wav"));
        wav(&music.join("shortcut song.wav"));
        std::fs::write(music.join("notes.txt"), b"not a sound").unwrap();
        let project = root.join("project");
        let radio = project.join("stations/radio/pop");
        std::fs::create_dir_all(&radio).unwrap();
        std::os::unix::fs::symlink(music.join("linked song.wav"), radio.join("a.wav")).unwrap();
        // Relative, with Windows separators, as Windows writes it; the local path is a
        // drive this machine does not have.
        std::fs::write(
            radio.join("b.lnk"),
            shortcut::build(
                Some("..\\..\\..\\..\\My Music\\shortcut song.wav"),
                Some("C:\\Users\\me\\My Music\\shortcut song.wav"),
            ),
        )
        .unwrap();
        std::fs::write(
            radio.join("gone.lnk"),
            shortcut::build(None, Some("C:\\Users\\me\\My Music\\deleted.mp3")),
        )
        .unwrap();
        std::fs::write(
            radio.join("notes.lnk"),
            shortcut::build(Some("..\\..\\..\\..\\My Music\\notes.txt"), None),
        )
        .unwrap();
        std::os::unix::fs::symlink(music.join("nothing.ogg"), radio.join("dangling.ogg")).unwrap();
        std::fs::create_dir_all(project.join("music/buy")).unwrap();
        std::fs::write(
            project.join("music/buy/song.lnk"),
            shortcut::build(Some("..\\..\\..\\My Music\\shortcut song.wav"), None),
        )
        .unwrap();
        std::fs::write(
            project.join("world.ini"),
            "[Stations]\n260 = stations/radio/pop, music\n[Music]\nBuy = music/buy\n",
        )
        .unwrap();
        Self {
            root,
            project,
            music,
        }
    }

    fn ini(&self, dirs: &[PathBuf]) -> WorldIni {
        let (ini, problems) = WorldIni::load(dirs);
        assert!(problems.is_empty(), "{problems:?}");
        ini
    }
}

impl Drop for Setup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// Every Start's sample as (name, path, linked).
fn started(sink: &RecordingSink) -> Vec<(String, PathBuf, bool)> {
    sink.commands
        .iter()
        .filter_map(|c| match c {
            SoundCommand::Start { sample, .. } => Some((
                sample.name.to_string(),
                PathBuf::from(sample.path.as_ref()),
                sample.linked,
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn a_station_of_the_project_plays_the_real_files_its_links_and_shortcuts_lead_to() {
    let setup = Setup::new("station");
    let dirs = vec![setup.project.clone()];
    let (mut stations, problems) = Stations::new(&setup.ini(&dirs), &dirs, 3, RATE);
    assert!(problems.is_empty(), "{problems:?}");
    let (mut sink, mut ids) = (RecordingSink::default(), NoteIds::default());
    let mut now = SampleTime::from_samples(0);
    stations.turn_on(260, 7, now, &mut sink, &mut ids).unwrap();
    // Play six items: each ends and the next goes on air.
    for _ in 0..5 {
        let note = stations.get(260).unwrap().on_air.as_ref().unwrap().note;
        now = SampleTime::from_samples(now.samples() + 48_000);
        stations.note_ended(note, now, &mut sink, &mut ids);
    }
    let real_linked = std::fs::canonicalize(setup.music.join("linked song.wav")).unwrap();
    let real_shortcut = std::fs::canonicalize(setup.music.join("shortcut song.wav")).unwrap();
    let played = started(&sink);
    assert_eq!(played.len(), 6, "{played:?}");
    for (name, path, linked) in &played {
        assert!(
            *linked,
            "{name}: files outside the project are linked samples"
        );
        assert!(
            *path == real_linked || *path == real_shortcut,
            "only the two real songs play: {path:?}"
        );
        assert!(name.starts_with("linked/"), "{name}");
    }
    assert!(played.iter().any(|(_, p, _)| *p == real_linked));
    assert!(played.iter().any(|(_, p, _)| *p == real_shortcut));

    let news = stations.take_news();
    let plays: Vec<String> = news
        .iter()
        .filter(|n| matches!(n.what, StationEvent::Plays { .. }))
        .map(|n| n.what.to_string())
        .collect();
    assert_eq!(plays.len(), 6);
    assert!(
        plays.iter().any(
            |p| p.contains(&real_shortcut.display().to_string()) && p.contains("through b.lnk")
        ),
        "the trace names the real file and the shortcut: {plays:#?}"
    );
    assert!(
        plays
            .iter()
            .all(|p| !p.contains("gone") && !p.contains("notes") && !p.contains("dangling")),
        "a broken shortcut is never announced as playing: {plays:#?}"
    );
    let broken: Vec<(PathBuf, String)> = news
        .iter()
        .filter_map(|n| match &n.what {
            StationEvent::BrokenLink { link, reason, .. } => Some((link.clone(), reason.clone())),
            _ => None,
        })
        .collect();
    let names: Vec<String> = broken
        .iter()
        .map(|(l, _)| l.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names.len(),
        3,
        "each broken link is reported once, not at every pick: {broken:#?}"
    );
    for name in ["gone.lnk", "notes.lnk", "dangling.ogg"] {
        assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
    }
    let gone = &broken
        .iter()
        .find(|(l, _)| l.ends_with("gone.lnk"))
        .unwrap()
        .1;
    assert!(
        gone.contains("not on this machine")
            && gone.contains("C:\\Users\\me\\My Music\\deleted.mp3"),
        "{gone}"
    );
    let notes = &broken
        .iter()
        .find(|(l, _)| l.ends_with("notes.lnk"))
        .unwrap()
        .1;
    assert!(notes.contains("not a sound file"), "{notes}");
    assert!(
        news.iter()
            .filter(|n| matches!(n.what, StationEvent::BrokenLink { .. }))
            .all(|n| n.what.is_error())
    );
}

#[test]
fn a_station_in_a_plug_in_folder_follows_no_links_or_shortcuts() {
    let setup = Setup::new("plugin");
    // The same folder loaded as a plug-in of another project: not trusted.
    let own = setup.root.join("own");
    std::fs::create_dir_all(&own).unwrap();
    let dirs = vec![own, setup.project.clone()];
    let (mut stations, problems) = Stations::new(&setup.ini(&dirs), &dirs, 3, RATE);
    assert!(problems.is_empty(), "{problems:?}");
    let (mut sink, mut ids) = (RecordingSink::default(), NoteIds::default());
    stations
        .turn_on(260, 7, SampleTime::from_samples(0), &mut sink, &mut ids)
        .unwrap();
    assert!(started(&sink).is_empty(), "{:?}", started(&sink));
    let news: Vec<String> = stations
        .take_news()
        .iter()
        .map(|n| n.what.to_string())
        .collect();
    assert!(
        news.iter().any(|n| n.contains("has no sound files")),
        "{news:#?}"
    );
}

#[test]
fn a_music_list_plays_a_song_through_a_shortcut() {
    let setup = Setup::new("music");
    let dirs = vec![setup.project.clone()];
    let (settings, problems) = MusicSettings::from_ini(&setup.ini(&dirs), &dirs);
    assert!(problems.is_empty(), "{problems:?}");
    let mut music = Music::new(settings, &dirs, 5, RATE);
    let (mut sink, mut ids) = (RecordingSink::default(), NoteIds::default());
    music.set_mode(
        MusicMode::Buy,
        SampleTime::from_samples(0),
        &mut sink,
        &mut ids,
    );
    let real = std::fs::canonicalize(setup.music.join("shortcut song.wav")).unwrap();
    let played = started(&sink);
    assert_eq!(played.len(), 1, "{played:?}");
    assert_eq!(played[0].1, real);
    assert!(played[0].2);
    let songs: Vec<String> = music
        .take_news()
        .iter()
        .filter(|e| matches!(e, MusicEvent::Song { .. }))
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        songs,
        [format!("Buy song: {} (through song.lnk)", real.display())]
    );
}

#[test]
fn the_cache_serves_a_linked_file_from_its_path() {
    let setup = Setup::new("cache");
    let real = std::fs::canonicalize(setup.music.join("linked song.wav")).unwrap();
    let cache = ResourceCache::new();
    let name = format!("linked{}", real.display());
    assert!(cache.get(&name).is_err(), "not served before it is linked");
    cache.add_linked(&name, &real).unwrap();
    cache.add_linked(&name, &real).unwrap();
    assert_eq!(cache.sources().len(), 1, "linking twice adds one source");
    let handle = cache.get(&name).unwrap();
    assert_eq!(
        handle.bytes().unwrap(),
        std::fs::read(&real).unwrap().as_slice()
    );
}

#[test]
fn loading_says_nothing_of_the_links_its_own_stations_play_and_warns_of_the_rest() {
    use engine_core::toolchain::diag::DiagCode;
    use engine_core::toolchain::project::Project;
    let setup = Setup::new("load-links");
    // A link leaving the project that is not a sound file, beside the station's.
    std::os::unix::fs::symlink(
        setup.music.join("notes.txt"),
        setup.project.join("stations/radio/pop/notes.src"),
    )
    .unwrap();
    let warned = |project: &Project| -> Vec<String> {
        project
            .diagnostics
            .iter()
            .filter(|d| d.code == DiagCode::LinkOutside)
            .map(|d| d.file.file_name().unwrap().to_string_lossy().into_owned())
            .collect()
    };
    // The project's own folder: its station plays `a.wav`, which the load used to call
    // "not read: a link leading outside" though it played; the source link is warned.
    let own = Project::load(&setup.project);
    assert_eq!(warned(&own), ["notes.src"], "{:#?}", own.diagnostics);
    // The same folder as a plug-in: nothing there follows a link out, so each is warned.
    let first = setup.root.join("own");
    std::fs::create_dir_all(&first).unwrap();
    let plugged = Project::load_dirs(&[first, setup.project.clone()]);
    let mut names = warned(&plugged);
    names.sort();
    assert_eq!(names, ["a.wav", "notes.src"], "{:#?}", plugged.diagnostics);
}
