//! Music modes (`kSetMusicMode`, the event's track ID is the mode number): what plays in
//! each part of the game, and the audio technical document's rules for moving between them.
//!
//! | mode | number | music | also |
//! |---|---|---|---|
//! | live | 0 | none (stereos and radios are stations) | lot ambience |
//! | buy | 1 | the buy list | lot ambience |
//! | build | 2 | the build list | lot ambience |
//! | neighborhood | 3 | the neighbourhood list | daytime ambience, the river loop |
//! | publish (web publishing) | 4 | none | lot ambience |
//! | load | 5 | the load loop | nothing else |
//! | credits | 6 | the credits list (default: neighbourhood's) | no river, no ambience |
//! | options | 7 | none | lot ambience |
//! | family (edit family) | 8 | the family list (default: neighbourhood's) | no river, no ambience |
//!
//! Rules (the audio technical document's "Music Modes", hit-reference §3.6):
//! - buy and build don't cut each other off: the current song finishes, and the next one
//!   comes from the list of the mode you are in;
//! - leaving buy or build and coming back fades the same song back up (it kept playing,
//!   silent) instead of starting a new one — unless it ended meanwhile;
//! - any other change of music fades the old music out (to silence over two thirds of
//!   `FadeOut`, stopped at `FadeOut`) and starts the new music only once the old is dead,
//!   so nothing overlaps; a change that arrives while waiting replaces the waiting one;
//! - the load loop never overlaps other music: it starts only when every other music note
//!   (and the river) has died, and other music starts only after it has died;
//! - the river plays as FX, not music: a song never waits for its fade (leaving the
//!   neighbourhood for family, the next song starts when the current one ends).
//!
//! Lists are [`Playlist`]s over directories named in `world.ini` `[Music]`; users may drop
//! files in. Music plays in the Music option group, except the load loop (the audio
//! technical document: "Music controls all music except the load loop") and the river,
//! which play as FX.

use super::playlist::{Playlist, PlaylistError, is_trusted};
use super::settings::{Setting, WorldIni, read_section};
use super::sound::{NoteIds, playlist_sample, sample_ref};
use crate::runtime::clock::SampleTime;
use crate::runtime::rng::Rng;
use crate::runtime::sink::{ControlGroup, NoteId, SoundCommand, SoundSink, WORLD_PRIORITY};
use crate::runtime::trace::{MusicEvent, MusicLoop};
use crate::runtime::units::{Gain, Pan};
use crate::runtime::voices::WorldVoice;
use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::toolchain::fsrules::ReadRules;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub use crate::runtime::hooks::MusicMode;

/// What each mode plays ([`MusicMode`] itself is the runtime's: `kSetMusicMode` carries it,
/// and the trace names it).
impl MusicMode {
    /// What the mode plays.
    pub fn plan(self) -> ModePlan {
        let (list, ambience, river) = match self {
            MusicMode::Live | MusicMode::Options | MusicMode::Publish => (None, true, false),
            MusicMode::Buy => (Some(List::Buy), true, false),
            MusicMode::Build => (Some(List::Build), true, false),
            MusicMode::Neighborhood => (Some(List::Neighborhood), true, true),
            MusicMode::Load => (None, false, false),
            MusicMode::Credits => (Some(List::Credits), false, false),
            MusicMode::Family => (Some(List::Family), false, false),
        };
        ModePlan {
            list,
            ambience,
            river,
            daytime: self == MusicMode::Neighborhood,
            load_loop: self == MusicMode::Load,
        }
    }
}

/// The music lists.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum List {
    /// Buy mode songs.
    Buy,
    /// Build mode songs.
    Build,
    /// Neighbourhood songs.
    Neighborhood,
    /// Edit-family songs.
    Family,
    /// Credits songs.
    Credits,
}

impl List {
    /// The `[Music]` key naming its directory.
    pub fn key(self) -> &'static str {
        match self {
            List::Buy => "Buy",
            List::Build => "Build",
            List::Neighborhood => "Neighborhood",
            List::Family => "Family",
            List::Credits => "Credits",
        }
    }
}

/// What a mode plays besides (or instead of) a list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModePlan {
    /// The song list, if the mode has music.
    pub list: Option<List>,
    /// Ambience (freshness score, night loop) on.
    pub ambience: bool,
    /// The river loop on.
    pub river: bool,
    /// Always daytime (the neighbourhood).
    pub daytime: bool,
    /// The load loop.
    pub load_loop: bool,
}

/// `[Music]` of `world.ini`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MusicSettings {
    /// Directories of the lists.
    pub lists: BTreeMap<List, PathBuf>,
    /// The load loop.
    pub load: Option<PathBuf>,
    /// The neighbourhood's river loop.
    pub river: Option<PathBuf>,
    /// Seconds over which old music dies (hit-reference: silent after two thirds, killed
    /// at the end). Default 3.
    pub fade_out: f64,
    /// Seconds over which a song fades back up or the river fades in. Default 2.
    pub fade_in: f64,
    /// Gain of the songs, 0–1. Default 1.
    pub volume: f32,
}

const KEYS: [&str; 10] = [
    "Buy",
    "Build",
    "Neighborhood",
    "Family",
    "Credits",
    "Load",
    "River",
    "FadeOut",
    "FadeIn",
    "Volume",
];

impl MusicSettings {
    /// Reads `[Music]`; bad values are diagnostics and keep the default. Folders and
    /// files must be inside the project's data folders `dirs` (what the cache serves).
    pub fn from_ini(ini: &WorldIni, dirs: &[PathBuf]) -> (Self, Vec<Diagnostic>) {
        let rules = ReadRules::within(dirs);
        let mut settings = MusicSettings {
            fade_out: 3.0,
            fade_in: 2.0,
            volume: 1.0,
            ..MusicSettings::default()
        };
        let mut diagnostics = Vec::new();
        read_section(ini, "Music", &KEYS, &mut diagnostics, |s, d| {
            let key = s.key.to_ascii_lowercase();
            let list = [
                List::Buy,
                List::Build,
                List::Neighborhood,
                List::Family,
                List::Credits,
            ]
            .into_iter()
            .find(|l| {
                l.key().eq_ignore_ascii_case(&key)
                    || (key == "neighbourhood" && *l == List::Neighborhood)
            });
            if let Some(list) = list {
                if let Some(dir) = existing(s, true, &rules, d) {
                    settings.lists.insert(list, dir);
                }
                return true;
            }
            match key.as_str() {
                "load" => settings.load = existing(s, false, &rules, d),
                "river" => settings.river = existing(s, false, &rules, d),
                "fadeout" | "fadein" | "volume" => match s.number() {
                    Ok(v) if v >= 0.0 && (key != "volume" || v <= 4.0) && v <= 600.0 => {
                        match key.as_str() {
                            "fadeout" => settings.fade_out = v,
                            "fadein" => settings.fade_in = v,
                            _ => settings.volume = v as f32,
                        }
                    }
                    Ok(v) => d.push(s.error(
                        DiagCode::NumberOutOfRange,
                        format!("`{}` = {v} is out of range", s.key),
                    )),
                    Err(e) => d.push(e),
                },
                _ => return false,
            }
            true
        });
        (settings, diagnostics)
    }

    /// The directory of a list (family and credits fall back to the neighbourhood's).
    pub fn list_dir(&self, list: List) -> Option<&PathBuf> {
        self.lists.get(&list).or_else(|| match list {
            List::Family | List::Credits => self.lists.get(&List::Neighborhood),
            _ => None,
        })
    }
}

/// A path setting that must exist (a directory or a file) inside the data folders.
fn existing(
    setting: &Setting,
    dir: bool,
    rules: &ReadRules,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<PathBuf> {
    let path = setting.path();
    let ok = if dir { path.is_dir() } else { path.is_file() };
    if !ok {
        diagnostics.push(setting.error(
            DiagCode::FileNotFound,
            format!(
                "`{}`: the {} {} does not exist",
                setting.key,
                if dir { "directory" } else { "file" },
                path.display()
            ),
        ));
        return None;
    }
    match rules.contains(&path) {
        Ok(_) => Some(path),
        Err(refusal) => {
            diagnostics.push(setting.error(
                refusal.code(),
                format!(
                    "`{}`: {refusal}; music plays only files inside the project's data folders",
                    setting.key
                ),
            ));
            None
        }
    }
}

/// The song playing.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Song {
    /// Its note.
    pub note: NoteId,
    /// The list it came from.
    pub list: List,
    /// The file.
    pub file: PathBuf,
    /// Faded to silence while the mode has no music (it comes back up on return).
    pub parked: bool,
}

/// A snapshot for people and panels.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MusicState {
    /// The mode.
    pub mode: MusicMode,
    /// The song, if any.
    pub song: Option<Song>,
    /// The load loop's note.
    pub load_loop: Option<NoteId>,
    /// The river loop's note.
    pub river: Option<NoteId>,
    /// Notes fading out to death.
    pub dying: usize,
    /// New music waits for the old to die.
    pub waiting: bool,
}

/// The music player.
#[derive(Debug, Clone)]
pub struct Music {
    settings: MusicSettings,
    playlists: BTreeMap<PathBuf, Playlist>,
    dirs: Vec<PathBuf>,
    rng: Rng,
    rate: f64,
    mode: MusicMode,
    song: Option<Song>,
    load_loop: Option<NoteId>,
    river: Option<NoteId>,
    /// Music fading out: the next music waits for these to die.
    dying: BTreeSet<NoteId>,
    /// The river fading out. It plays as FX, not music: songs do not wait for it (the
    /// load loop, which overlaps nothing, does).
    river_dying: BTreeSet<NoteId>,
    waiting: bool,
    /// Parts that have no voice slot (refused, stolen, quieted): they stay silent until
    /// the next mode.
    blocked: BTreeSet<WorldVoice>,
    news: Vec<MusicEvent>,
}

impl Music {
    /// A player for the project (`dirs` name files for the cache; `sample_rate` times
    /// the fades). It starts in live mode, silent.
    pub fn new(settings: MusicSettings, dirs: &[PathBuf], seed: u64, sample_rate: u32) -> Self {
        Self {
            settings,
            playlists: BTreeMap::new(),
            dirs: dirs.to_vec(),
            rng: Rng::new(0x0305_1C00 ^ seed),
            rate: f64::from(sample_rate.max(1)),
            mode: MusicMode::Live,
            song: None,
            load_loop: None,
            river: None,
            dying: BTreeSet::new(),
            river_dying: BTreeSet::new(),
            waiting: false,
            blocked: BTreeSet::new(),
            news: Vec::new(),
        }
    }

    /// The mode.
    pub fn mode(&self) -> MusicMode {
        self.mode
    }

    /// The settings.
    pub fn settings(&self) -> &MusicSettings {
        &self.settings
    }

    /// What is playing.
    pub fn state(&self) -> MusicState {
        MusicState {
            mode: self.mode,
            song: self.song.clone(),
            load_loop: self.load_loop,
            river: self.river,
            dying: self.dying.len() + self.river_dying.len(),
            waiting: self.waiting,
        }
    }

    /// Takes what happened since the last call (for the trace).
    pub fn take_news(&mut self) -> Vec<MusicEvent> {
        std::mem::take(&mut self.news)
    }

    fn frames(&self, seconds: f64) -> u32 {
        (seconds * self.rate)
            .round()
            .clamp(0.0, f64::from(u32::MAX)) as u32
    }

    /// Fades a note to silence and kills it when the fade-out time is up.
    fn kill(&mut self, note: NoteId, now: SampleTime, out: &mut dyn SoundSink) {
        let total = self.frames(self.settings.fade_out);
        out.send(SoundCommand::SetGain {
            note,
            at: now,
            gain: Gain::SILENT,
            ramp: total * 2 / 3,
        });
        out.send(SoundCommand::Stop {
            note,
            at: now + u64::from(total),
        });
        self.dying.insert(note);
    }

    /// Fades the river out ([`kill`](Self::kill)'s fade) without holding songs back.
    fn kill_river(&mut self, note: NoteId, now: SampleTime, out: &mut dyn SoundSink) {
        self.kill(note, now, out);
        self.dying.remove(&note);
        self.river_dying.insert(note);
    }

    /// Fades out everything music plays (the song, the load loop, the river) and forgets
    /// what was waiting to start: the project's world is being read again.
    pub fn silence(&mut self, now: SampleTime, out: &mut dyn SoundSink) {
        let notes: Vec<NoteId> = [self.song.take().map(|s| s.note), self.load_loop.take()]
            .into_iter()
            .flatten()
            .collect();
        for note in notes {
            self.kill(note, now, out);
        }
        if let Some(river) = self.river.take() {
            self.kill_river(river, now, out);
        }
        self.waiting = false;
        self.news.push(MusicEvent::FadesOut);
    }

    /// The voice slots the mode wants: [`WorldVoice::Music`] while it plays a list that
    /// is set, [`WorldVoice::LoadLoop`] and [`WorldVoice::River`] while it plays those
    /// loops and they are set — whether or not a note sounds this instant (between two
    /// songs the slot stays taken). Music fading out after a mode change holds none.
    pub fn wanted_voices(&self) -> Vec<WorldVoice> {
        let mut wanted = self.voices_for(self.mode);
        wanted.retain(|who| !self.blocked.contains(who));
        wanted
    }

    /// The voice slots the mode `mode` would want (see [`Music::wanted_voices`]),
    /// blocked parts included.
    pub fn voices_for(&self, mode: MusicMode) -> Vec<WorldVoice> {
        let plan = mode.plan();
        let mut wanted = Vec::new();
        if plan
            .list
            .is_some_and(|list| self.settings.list_dir(list).is_some())
        {
            wanted.push(WorldVoice::Music);
        }
        if plan.load_loop && self.settings.load.is_some() {
            wanted.push(WorldVoice::LoadLoop);
        }
        if plan.river && self.settings.river.is_some() {
            wanted.push(WorldVoice::River);
        }
        wanted
    }

    /// A part got no voice or lost its own: it stops at once (nothing fades: its slot
    /// is another's now) and starts nothing until the next mode.
    pub fn block(&mut self, part: WorldVoice, now: SampleTime, out: &mut dyn SoundSink) {
        self.blocked.insert(part);
        let note = match part {
            WorldVoice::Music => self.song.take().map(|s| s.note),
            WorldVoice::LoadLoop => self.load_loop.take(),
            WorldVoice::River => self.river.take(),
            _ => None,
        };
        if let Some(note) = note {
            out.send(SoundCommand::Stop { note, at: now });
        }
    }

    /// The parts without a voice.
    pub fn blocked(&self) -> &BTreeSet<WorldVoice> {
        &self.blocked
    }

    /// The mode asked for again: what it wants and is not playing (a part that lost its
    /// voice and now has one) starts as usual.
    pub fn resume(&mut self, now: SampleTime, out: &mut dyn SoundSink, ids: &mut NoteIds) {
        self.waiting = true;
        self.start_wanted(now, out, ids);
    }

    /// Forgets the blocks without starting anything (the director asks again).
    pub fn clear_blocks(&mut self) {
        self.blocked.clear();
    }

    /// `kSetMusicMode`.
    pub fn set_mode(
        &mut self,
        mode: MusicMode,
        now: SampleTime,
        out: &mut dyn SoundSink,
        ids: &mut NoteIds,
    ) {
        let old = self.mode;
        self.mode = mode;
        if old == mode {
            return;
        }
        self.news.push(MusicEvent::ModeChanged {
            from: old,
            to: mode,
        });
        let plan = mode.plan();
        // The river plays only in the neighbourhood (and never with the load loop).
        if !plan.river
            && let Some(river) = self.river.take()
        {
            self.kill_river(river, now, out);
        }
        if let Some(looped) = self.load_loop.take().filter(|_| !plan.load_loop) {
            self.kill(looped, now, out);
        }
        if let Some(song) = self.song.clone() {
            let same_list = plan
                .list
                .is_some_and(|l| self.settings.list_dir(l) == self.settings.list_dir(song.list));
            let buy_build = |l: List| matches!(l, List::Buy | List::Build);
            match plan.list {
                // Buy ↔ build, or the same directory: the song plays on.
                Some(list) if same_list || (buy_build(list) && buy_build(song.list)) => {
                    if song.parked {
                        self.unpark(now, out);
                    }
                }
                // No music here: a buy/build song waits, silent, for the return.
                None if buy_build(song.list) && !plan.load_loop => {
                    if !song.parked {
                        let ramp = self.frames(self.settings.fade_out) * 2 / 3;
                        out.send(SoundCommand::SetGain {
                            note: song.note,
                            at: now,
                            gain: Gain::SILENT,
                            ramp,
                        });
                        if let Some(s) = &mut self.song {
                            s.parked = true;
                        }
                        self.news.push(MusicEvent::SongParked);
                    }
                }
                _ => {
                    self.song = None;
                    self.kill(song.note, now, out);
                }
            }
        }
        self.waiting = true;
        self.start_wanted(now, out, ids);
    }

    fn unpark(&mut self, now: SampleTime, out: &mut dyn SoundSink) {
        let ramp = self.frames(self.settings.fade_in);
        let gain = self.settings.volume;
        if let Some(song) = &mut self.song {
            song.parked = false;
            out.send(SoundCommand::SetGain {
                note: song.note,
                at: now,
                gain: Gain::new(gain),
                ramp,
            });
            self.news.push(MusicEvent::SongUnparked);
        }
    }

    /// Starts what the mode wants once nothing it must not overlap is still sounding.
    fn start_wanted(&mut self, now: SampleTime, out: &mut dyn SoundSink, ids: &mut NoteIds) {
        if !self.waiting {
            return;
        }
        let plan = self.mode.plan();
        let parked_song = self.song.as_ref().is_some_and(|s| s.parked);
        if plan.load_loop && self.blocked.contains(&WorldVoice::LoadLoop) {
            self.waiting = false;
            return;
        }
        if plan.load_loop {
            // Nothing else may sound: every other music note must be dead.
            if !self.dying.is_empty()
                || !self.river_dying.is_empty()
                || (self.song.is_some() && !parked_song)
                || self.river.is_some()
            {
                return;
            }
            if let Some(song) = self.song.take() {
                self.kill(song.note, now, out);
                return;
            }
            if self.load_loop.is_none() {
                self.load_loop = self.start_loop(
                    self.settings.load.clone(),
                    MusicLoop::Load,
                    now,
                    out,
                    ids,
                    false,
                );
            }
            self.waiting = false;
            return;
        }
        if !self.dying.is_empty() {
            return;
        }
        if plan.river && self.river.is_none() && !self.blocked.contains(&WorldVoice::River) {
            self.river = self.start_loop(
                self.settings.river.clone(),
                MusicLoop::River,
                now,
                out,
                ids,
                true,
            );
        }
        if let Some(list) = plan.list
            && self.song.is_none()
            && !self.blocked.contains(&WorldVoice::Music)
        {
            self.start_song(list, now, out, ids);
        }
        self.waiting = false;
    }

    fn start_loop(
        &mut self,
        file: Option<PathBuf>,
        what: MusicLoop,
        now: SampleTime,
        out: &mut dyn SoundSink,
        ids: &mut NoteIds,
        fade_in: bool,
    ) -> Option<NoteId> {
        let Some(file) = file else {
            self.news.push(MusicEvent::NoLoop(what));
            return None;
        };
        let Some(sample) = sample_ref(&file, &self.dirs) else {
            self.news.push(MusicEvent::Outside { file });
            return None;
        };
        let note = ids.fresh();
        let gain = 1.0;
        out.send(SoundCommand::Start {
            note,
            voice: usize::MAX,
            at: now,
            sample,
            gain: if fade_in {
                Gain::SILENT
            } else {
                Gain::new(gain)
            },
            pan: Pan::CENTRE,
            pitch: 1.0,
            looping: true,
            group: ControlGroup::Fx,
            reverb: false,
            priority: WORLD_PRIORITY,
        });
        if fade_in {
            let ramp = self.frames(self.settings.fade_in);
            out.send(SoundCommand::SetGain {
                note,
                at: now,
                gain: Gain::new(gain),
                ramp,
            });
        }
        self.news.push(MusicEvent::LoopStarts(what));
        Some(note)
    }

    fn start_song(
        &mut self,
        list: List,
        now: SampleTime,
        out: &mut dyn SoundSink,
        ids: &mut NoteIds,
    ) {
        let Some(dir) = self.settings.list_dir(list).cloned() else {
            self.news.push(MusicEvent::NoList {
                list: list.key().to_string(),
            });
            return;
        };
        let playlist = self.playlists.entry(dir.clone()).or_insert_with(|| {
            let trusted = is_trusted(&dir, &self.dirs);
            Playlist::new(list.key(), &dir).trusting(trusted)
        });
        let picked = playlist.pick(&mut self.rng);
        for broken in playlist.take_broken() {
            self.news.push(MusicEvent::BrokenLink {
                link: broken.link,
                reason: broken.reason,
            });
        }
        let via = match &picked {
            Ok(Some(file)) => playlist.via(file).map(Path::to_path_buf),
            _ => None,
        };
        let file = match picked {
            Ok(Some(file)) => file,
            Ok(None) => {
                self.news.push(MusicEvent::ListEmpty {
                    list: list.key().to_string(),
                    dir,
                });
                return;
            }
            Err(PlaylistError::Unreadable { dir, reason }) => {
                self.news.push(MusicEvent::ListUnreadable { dir, reason });
                return;
            }
        };
        let Some(sample) = playlist_sample(&file, via.as_deref(), &self.dirs) else {
            self.news.push(MusicEvent::Outside { file });
            return;
        };
        let note = ids.fresh();
        out.send(SoundCommand::Start {
            note,
            voice: usize::MAX,
            at: now,
            sample,
            gain: Gain::new(self.settings.volume),
            pan: Pan::CENTRE,
            pitch: 1.0,
            looping: false,
            group: ControlGroup::Music,
            reverb: false,
            priority: WORLD_PRIORITY,
        });
        self.news.push(MusicEvent::Song {
            list: list.key().to_string(),
            file: file.clone(),
            via,
        });
        self.song = Some(Song {
            note,
            list,
            file,
            parked: false,
        });
    }

    /// A world note ended. Returns true if it was music's.
    pub fn note_ended(
        &mut self,
        note: NoteId,
        now: SampleTime,
        out: &mut dyn SoundSink,
        ids: &mut NoteIds,
    ) -> bool {
        let mut ours = self.dying.remove(&note) | self.river_dying.remove(&note);
        if self.load_loop == Some(note) {
            self.load_loop = None;
            ours = true;
        }
        if self.river == Some(note) {
            self.river = None;
            ours = true;
        }
        if let Some(song) = self.song.clone().filter(|s| s.note == note) {
            ours = true;
            self.song = None;
            // The next song comes from the list of the mode we are in now (a song that
            // ended while parked is simply gone).
            if !song.parked && self.mode.plan().list.is_some() {
                self.waiting = true;
            }
        }
        if ours {
            if self.mode.plan().list.is_some()
                || self.mode.plan().load_loop
                || self.mode.plan().river
            {
                self.waiting = true;
            }
            self.start_wanted(now, out, ids);
        }
        ours
    }
}
