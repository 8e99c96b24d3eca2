//! Stations and music modes on a recording sink: which files play, when, on which notes,
//! and how the music-mode rules move between them (no audio needed: the commands tell).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use engine_core::runtime::SampleTime;
use engine_core::runtime::sink::{ControlGroup, RecordingSink, SoundCommand};
use engine_core::world::music::{Music, MusicMode, MusicSettings};
use engine_core::world::settings::WorldIni;
use engine_core::world::sound::NoteIds;
use engine_core::world::stations::{Stations, station_code};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

const RATE: u32 = 48_000;

/// A temporary project folder.
struct Project(PathBuf);

impl Project {
    fn new(tag: &str, files: &[&str], ini: &str) -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "hitbench-world-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        for file in files {
            let path = dir.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, b"audio").unwrap();
        }
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("world.ini"), ini).unwrap();
        Self(dir)
    }
    fn ini(&self) -> WorldIni {
        let (ini, problems) = WorldIni::load(std::slice::from_ref(&self.0));
        assert!(problems.is_empty(), "{problems:?}");
        ini
    }
    fn dirs(&self) -> Vec<PathBuf> {
        vec![self.0.clone()]
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// (note, file name) of every Start.
fn starts(sink: &RecordingSink) -> Vec<(u64, String)> {
    sink.commands
        .iter()
        .filter_map(|c| match c {
            SoundCommand::Start { note, sample, .. } => Some((
                *note,
                Path::new(sample.path.as_ref())
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
            )),
            _ => None,
        })
        .collect()
}

fn stopped(sink: &RecordingSink, note: u64) -> bool {
    sink.commands
        .iter()
        .any(|c| matches!(c, SoundCommand::Stop { note: n, .. } if *n == note))
}

fn last_gain(sink: &RecordingSink, note: u64) -> Option<f32> {
    sink.commands.iter().rev().find_map(|c| match c {
        SoundCommand::SetGain { note: n, gain, .. } if *n == note => Some(gain.get()),
        _ => None,
    })
}

const TV_FILES: &[&str] = &[
    "stations/tv/ad_soap.wav",
    "stations/tv/ad_car.wav",
    "stations/tv/action/dialog/d1.wav",
    "stations/tv/action/dialog/d2.wav",
    "stations/tv/action/chase/c1.wav",
    "stations/tv/action/chase/c2.wav",
    "stations/radio/country/song1.ogg",
    "stations/radio/country/song2.ogg",
];

const TV_INI: &str = "[Stations]\n28 = stations/tv/action\nKCOU = stations/radio/country, music\n";

#[test]
fn station_codes_are_numbers_or_four_letters() {
    assert_eq!(station_code("28"), Some(28));
    assert_eq!(station_code("0x104"), Some(0x104));
    assert_eq!(station_code("KACT"), Some(u32::from_le_bytes(*b"KACT")));
    assert_eq!(station_code("action"), None);
}

#[test]
fn receivers_on_one_station_play_the_same_sound_in_sync() {
    let project = Project::new("sync", TV_FILES, TV_INI);
    let (mut stations, problems) = Stations::new(&project.ini(), &project.dirs(), 1, RATE);
    assert!(problems.is_empty(), "{problems:?}");
    let (mut sink, mut ids) = (RecordingSink::default(), NoteIds::default());
    stations
        .turn_on(28, 10, SampleTime::from_samples(1000), &mut sink, &mut ids)
        .unwrap();
    stations
        .turn_on(28, 11, SampleTime::from_samples(5000), &mut sink, &mut ids)
        .unwrap();
    let first = starts(&sink);
    assert_eq!(
        first.len(),
        1,
        "the second TV joins the note on air: {first:?}"
    );
    let station = stations.get(28).unwrap();
    assert_eq!(station.receivers.len(), 2);
    assert_eq!(station.on_air.as_ref().unwrap().note, first[0].0);
    assert!(
        sink.commands.iter().any(|c| matches!(
            c,
            SoundCommand::Start {
                group: ControlGroup::Fx,
                at,
                ..
            } if *at == SampleTime::from_samples(1000)
        )),
        "TV sound is FX and starts when the first TV turns on"
    );
    // One TV off: still on air. Both off: faded out and stopped.
    stations.turn_off(28, 10, SampleTime::from_samples(9000), &mut sink);
    assert!(!stopped(&sink, first[0].0));
    stations.turn_off(28, 11, SampleTime::from_samples(9000), &mut sink);
    assert!(stopped(&sink, first[0].0));
    assert_eq!(last_gain(&sink, first[0].0), Some(0.0), "a fade, not a cut");
    assert!(stations.get(28).unwrap().on_air.is_none());
}

#[test]
fn the_station_cycles_its_lists_and_commercials_come_from_the_parent() {
    let project = Project::new("cycle", TV_FILES, TV_INI);
    let (mut stations, _) = Stations::new(&project.ini(), &project.dirs(), 7, RATE);
    let lists: Vec<String> = stations
        .get(28)
        .unwrap()
        .lists
        .iter()
        .map(|l| l.name.clone())
        .collect();
    assert_eq!(lists, ["chase", "dialog", "commercials"]);
    let (mut sink, mut ids) = (RecordingSink::default(), NoteIds::default());
    stations
        .turn_on(28, 1, SampleTime::from_samples(0), &mut sink, &mut ids)
        .unwrap();
    for i in 0..9u64 {
        let note = stations.get(28).unwrap().on_air.as_ref().unwrap().note;
        assert!(stations.note_ended(
            note,
            SampleTime::from_samples(48_000 * (i + 1)),
            &mut sink,
            &mut ids
        ));
    }
    let names: Vec<String> = starts(&sink).into_iter().map(|(_, f)| f).collect();
    assert_eq!(names.len(), 10);
    for (i, name) in names.iter().enumerate() {
        let expected = ["c", "d", "ad_"][i % 3];
        assert!(
            name.starts_with(expected),
            "item {i} is {name}, expected {expected}…"
        );
    }
    // Back-to-back items follow each other with no gap.
    let ats: Vec<u64> = sink
        .commands
        .iter()
        .filter_map(|c| match c {
            SoundCommand::Start { at, .. } => Some(at.samples()),
            _ => None,
        })
        .collect();
    assert_eq!(ats[1], 48_000);
    // The radio station has no sub-directories and no commercials next to it… except
    // that `stations/radio` holds none: it plays its songs only, as Music.
    let radio = stations.get(station_code("KCOU").unwrap()).unwrap();
    assert_eq!(radio.lists.len(), 1);
    assert_eq!(radio.def.group, ControlGroup::Music);
}

#[test]
fn a_file_dropped_into_a_station_directory_joins_its_list() {
    let project = Project::new("drop", TV_FILES, TV_INI);
    let code = station_code("KCOU").unwrap();
    let (mut stations, _) = Stations::new(&project.ini(), &project.dirs(), 3, RATE);
    let (mut sink, mut ids) = (RecordingSink::default(), NoteIds::default());
    stations
        .turn_on(code, 5, SampleTime::from_samples(0), &mut sink, &mut ids)
        .unwrap();
    std::fs::write(
        project.0.join("stations/radio/country/my_song.mp3"),
        b"mine",
    )
    .unwrap();
    for i in 0..6u64 {
        let note = stations.get(code).unwrap().on_air.as_ref().unwrap().note;
        stations.note_ended(
            note,
            SampleTime::from_samples(i * 1000),
            &mut sink,
            &mut ids,
        );
    }
    let names: Vec<String> = starts(&sink).into_iter().map(|(_, f)| f).collect();
    assert!(names.contains(&"my_song.mp3".to_string()), "{names:?}");
}

#[test]
fn bad_station_lines_name_file_and_line() {
    let project = Project::new(
        "bad",
        TV_FILES,
        "[Stations]\n28 = stations/tv/action\nthe news = stations/tv/news\n29 = stations/tv/missing\n30 = stations/tv/action, loud\n",
    );
    let (stations, problems) = Stations::new(&project.ini(), &project.dirs(), 1, RATE);
    assert_eq!(stations.all().count(), 1);
    let lines: Vec<u32> = problems.iter().map(|d| d.line).collect();
    assert_eq!(lines, [3, 4, 5], "{problems:?}");
    assert!(problems[0].message.contains("not a station code"));
    assert!(problems[1].message.contains("does not exist"));
    assert!(problems[2].message.contains("fx (TV) or music (radio)"));
    let mut stations = stations;
    let err = stations
        .turn_on(
            99,
            1,
            SampleTime::from_samples(0),
            &mut RecordingSink::default(),
            &mut NoteIds::default(),
        )
        .unwrap_err()
        .to_string();
    assert!(err.contains("no station 99"), "{err}");
}

// ---------------------------------------------------------------------------
// Music modes
// ---------------------------------------------------------------------------

const MUSIC_FILES: &[&str] = &[
    "music/buy/b1.ogg",
    "music/buy/b2.ogg",
    "music/build/u1.ogg",
    "music/build/u2.ogg",
    "music/hood/h1.ogg",
    "music/hood/h2.ogg",
    "music/load_loop.ogg",
    "ambience/river.ogg",
];

const MUSIC_INI: &str = "[Music]\nBuy = music/buy\nBuild = music/build\nNeighborhood = music/hood\nLoad = music/load_loop.ogg\nRiver = ambience/river.ogg\n";

struct Player {
    music: Music,
    sink: RecordingSink,
    ids: NoteIds,
    _project: Project,
}

impl Player {
    fn new() -> Self {
        let project = Project::new("music", MUSIC_FILES, MUSIC_INI);
        let (settings, problems) = MusicSettings::from_ini(&project.ini(), &project.dirs());
        assert!(problems.is_empty(), "{problems:?}");
        Self {
            music: Music::new(settings, &project.dirs(), 5, RATE),
            sink: RecordingSink::default(),
            ids: NoteIds::default(),
            _project: project,
        }
    }
    fn mode(&mut self, mode: MusicMode, at: u64) {
        self.music.set_mode(
            mode,
            SampleTime::from_samples(at),
            &mut self.sink,
            &mut self.ids,
        );
    }
    fn end(&mut self, note: u64, at: u64) {
        self.music.note_ended(
            note,
            SampleTime::from_samples(at),
            &mut self.sink,
            &mut self.ids,
        );
    }
    fn song(&self) -> Option<(u64, String)> {
        self.music.state().song.map(|s| {
            (
                s.note,
                s.file.file_name().unwrap().to_string_lossy().into_owned(),
            )
        })
    }
    fn starts(&self) -> Vec<(u64, String)> {
        starts(&self.sink)
    }
}

#[test]
fn modes_have_numbers_names_and_plans() {
    assert_eq!(MusicMode::from_number(1), Some(MusicMode::Buy));
    assert_eq!(
        MusicMode::by_name("Neighbourhood"),
        Some(MusicMode::Neighborhood)
    );
    assert_eq!(MusicMode::by_name("5"), Some(MusicMode::Load));
    for mode in MusicMode::ALL {
        assert_eq!(MusicMode::by_name(mode.name()), Some(mode));
    }
    let hood = MusicMode::Neighborhood.plan();
    assert!(hood.ambience && hood.river && hood.daytime && hood.list.is_some());
    for quiet in [MusicMode::Family, MusicMode::Credits] {
        let plan = quiet.plan();
        assert!(
            plan.list.is_some() && !plan.ambience && !plan.river,
            "{quiet}: like the neighbourhood without stream or ambience"
        );
    }
    for silent in [MusicMode::Live, MusicMode::Options, MusicMode::Publish] {
        assert!(silent.plan().list.is_none());
    }
}

#[test]
fn buy_and_build_do_not_cut_each_other_off() {
    let mut p = Player::new();
    p.mode(MusicMode::Buy, 0);
    let (note, file) = p.song().unwrap();
    assert!(file.starts_with('b'));
    p.mode(MusicMode::Build, 48_000);
    assert_eq!(
        p.song().unwrap().0,
        note,
        "the buy song plays on in build mode"
    );
    assert!(!stopped(&p.sink, note));
    assert_eq!(last_gain(&p.sink, note), None, "not even faded");
    // It finishes; the next song comes from the build list.
    p.end(note, 480_000);
    let (_, next) = p.song().unwrap();
    assert!(next.starts_with('u'), "{next}");
    assert_eq!(p.starts().len(), 2);
}

#[test]
fn leaving_buy_and_coming_back_fades_the_same_song_back_up() {
    let mut p = Player::new();
    p.mode(MusicMode::Buy, 0);
    let (note, _) = p.song().unwrap();
    p.mode(MusicMode::Live, 48_000);
    assert_eq!(
        last_gain(&p.sink, note),
        Some(0.0),
        "faded down in live mode"
    );
    assert!(!stopped(&p.sink, note), "but still playing");
    p.mode(MusicMode::Build, 96_000);
    assert_eq!(p.song().unwrap().0, note, "the same song");
    assert_eq!(last_gain(&p.sink, note), Some(1.0), "faded back up");
    assert_eq!(p.starts().len(), 1, "no new song");
    // If it ended while away, coming back starts a new one.
    p.mode(MusicMode::Live, 144_000);
    p.end(note, 200_000);
    p.mode(MusicMode::Buy, 300_000);
    assert_ne!(p.song().unwrap().0, note);
    assert_eq!(p.starts().len(), 2);
}

#[test]
fn other_changes_fade_the_old_music_out_before_the_new_starts() {
    let mut p = Player::new();
    p.mode(MusicMode::Buy, 0);
    let (buy, _) = p.song().unwrap();
    p.mode(MusicMode::Neighborhood, 48_000);
    assert!(stopped(&p.sink, buy) && last_gain(&p.sink, buy) == Some(0.0));
    assert_eq!(
        p.starts().len(),
        1,
        "the neighbourhood waits for the buy song to die"
    );
    assert!(p.music.state().waiting);
    p.end(buy, 48_000 + 3 * 48_000);
    let starts = p.starts();
    let names: Vec<&str> = starts.iter().map(|(_, f)| f.as_str()).collect();
    assert!(
        names.contains(&"river.ogg"),
        "the river loop joins in the neighbourhood: {names:?}"
    );
    assert!(names.iter().any(|n| n.starts_with('h')), "{names:?}");
    // Family keeps the neighbourhood's song (same list) but drops the river.
    let (hood, _) = p.song().unwrap();
    let river = p.music.state().river.unwrap();
    p.mode(MusicMode::Family, 500_000);
    assert_eq!(p.song().unwrap().0, hood);
    assert!(stopped(&p.sink, river));
    assert!(p.music.state().river.is_none());
    // The song ends while the river is still fading: the river is FX, not music, so
    // the next family song starts at once.
    let songs = p.starts().len();
    p.end(hood, 510_000);
    assert_eq!(p.starts().len(), songs + 1, "no wait for the river's fade");
    assert_ne!(p.song().unwrap().0, hood);
}

#[test]
fn a_waiting_change_is_replaced_by_the_next_one() {
    let mut p = Player::new();
    p.mode(MusicMode::Neighborhood, 0);
    let (hood, _) = p.song().unwrap();
    p.mode(MusicMode::Buy, 48_000); // waits for the neighbourhood song to die…
    p.mode(MusicMode::Build, 60_000); // …and now build is wanted instead.
    let river = p.sink.commands.iter().find_map(|c| match c {
        SoundCommand::Start {
            note,
            looping: true,
            ..
        } => Some(*note),
        _ => None,
    });
    p.end(hood, 200_000);
    if let Some(river) = river {
        p.end(river, 200_000);
    }
    let (_, file) = p.song().unwrap();
    assert!(file.starts_with('u'), "build's song, not buy's: {file}");
}

#[test]
fn the_load_loop_never_overlaps_other_music() {
    let mut p = Player::new();
    p.mode(MusicMode::Neighborhood, 0);
    let (hood, _) = p.song().unwrap();
    let river = p.music.state().river.unwrap();
    p.mode(MusicMode::Load, 48_000);
    assert!(
        p.music.state().load_loop.is_none(),
        "not while the neighbourhood music sounds"
    );
    p.end(hood, 200_000);
    assert!(
        p.music.state().load_loop.is_none(),
        "not while the river sounds"
    );
    p.end(river, 210_000);
    let looped = p
        .music
        .state()
        .load_loop
        .expect("the load loop once all else is dead");
    assert!(p.sink.commands.iter().any(|c| matches!(c,
        SoundCommand::Start { note, looping: true, group: ControlGroup::Fx, at, .. } if *note == looped && at.samples() == 210_000)),
        "looped, outside the Music option");
    // Leaving load: the loop dies before the buy music starts.
    p.mode(MusicMode::Buy, 300_000);
    assert!(stopped(&p.sink, looped));
    assert!(
        p.song().is_none(),
        "buy music waits for the load loop to die"
    );
    p.end(looped, 450_000);
    assert!(p.song().unwrap().1.starts_with('b'));
}

#[test]
fn bad_music_settings_name_file_and_line() {
    let project = Project::new(
        "badmusic",
        MUSIC_FILES,
        "[Music]\nBuy = music/nowhere\nFadeOut = slow\nLoad = music/load_loop.ogg\nTempo = 3\n",
    );
    let (settings, problems) = MusicSettings::from_ini(&project.ini(), &project.dirs());
    let lines: Vec<u32> = problems.iter().map(|d| d.line).collect();
    assert_eq!(lines, [2, 3, 5], "{problems:?}");
    assert!(settings.load.is_some());
    assert_eq!(settings.fade_out, 3.0, "the default stays");
}
