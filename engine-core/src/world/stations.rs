//! Stations (the audio technical document's "receivers"): radio and TV channels built from
//! directories.
//!
//! A station is given a directory in `world.ini` (`[Stations]`, `<code> = <dir>[, fx|music]`).
//! Its files form one playlist, each sub-directory its own (an action channel alternates
//! `dialog/` and `chase/`), and the files of the directory above are the commercials
//! shared by every station beside it. The station plays one item from each list in turn
//! — main files, each sub-directory, commercials — round and round.
//!
//! Radios and TVs that turn on (`kTurnOnTV`, the event's track ID is the station code)
//! become the station's receivers. However many there are, the station plays one note at
//! a time, so every receiver tuned to it sounds the same thing at the same moment. The
//! director sets the note's volume and pan from the receivers' screen placements
//! ([`super::view`]'s weighted average); the last receiver turning off fades it out.
//! A station nobody listens to is silent and keeps no voice.

use super::playlist::{Playlist, PlaylistError, audio_files, has_audio, is_trusted, sub_dirs};
use super::settings::{Setting, WorldIni};
use super::sound::{NoteIds, playlist_sample};
use crate::runtime::clock::SampleTime;
use crate::runtime::rng::Rng;
use crate::runtime::sink::{ControlGroup, NoteId, SoundCommand, SoundSink, WORLD_PRIORITY};
use crate::runtime::trace::StationEvent;
use crate::runtime::units::{Gain, Pan};
use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::toolchain::fsrules::ReadRules;
use crate::world::ObjectId;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Samples over which a station fades in when it starts and out when switched off.
pub const FADE_SECONDS: f64 = 0.25;

/// A station as `world.ini` defines it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StationDef {
    /// The code `kTurnOnTV` events carry as their track ID.
    pub code: u32,
    /// The key as written (`28`, `KACT`).
    pub key: String,
    /// The station's directory.
    pub dir: PathBuf,
    /// Option group: FX for TV (as the audio technical document has it), Music for radio.
    pub group: ControlGroup,
    /// Where it was defined.
    pub file: PathBuf,
    /// Line of the definition.
    pub line: u32,
}

impl StationDef {
    /// A readable name: the directory's last component.
    pub fn name(&self) -> String {
        self.dir
            .file_name()
            .map_or_else(|| self.key.clone(), |n| n.to_string_lossy().into_owned())
    }
}

/// A station code from a `[Stations]` key: a number (`28`, `0x104`) or four letters
/// read as little-endian ASCII (`KACT`), as the original engine read track IDs.
pub fn station_code(key: &str) -> Option<u32> {
    if let Some(n) = crate::toolchain::formats::number::parse_int(key) {
        return u32::try_from(n).ok();
    }
    let bytes = key.as_bytes();
    (bytes.len() == 4 && bytes.iter().all(u8::is_ascii_alphanumeric))
        .then(|| u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
}

/// Reads `[Stations]`; every bad line is a diagnostic and is skipped.
pub fn station_defs(ini: &WorldIni) -> (Vec<StationDef>, Vec<Diagnostic>) {
    let mut defs = Vec::new();
    let mut diagnostics = Vec::new();
    for setting in ini.section("Stations") {
        match station_def(setting) {
            Ok(def) => defs.push(def),
            Err(d) => diagnostics.push(d),
        }
    }
    (defs, diagnostics)
}

fn station_def(setting: &Setting) -> Result<StationDef, Diagnostic> {
    let code = station_code(&setting.key).ok_or_else(|| {
        setting.error(DiagCode::UnknownValue, format!(
            "`{}` is not a station code (a number such as 28 or 0x104, or four letters such as KACT)",
            setting.key
        ))
    })?;
    let mut parts = setting.value.split(',').map(str::trim);
    let dir_text = parts.next().unwrap_or("");
    if dir_text.is_empty() {
        return Err(setting.error(
            DiagCode::MissingField,
            format!(
                "station {} needs a directory: `{} = stations/tv/action`",
                setting.key, setting.key
            ),
        ));
    }
    let group = match parts.next().map(str::to_ascii_lowercase).as_deref() {
        None | Some("fx") => ControlGroup::Fx,
        Some("music") => ControlGroup::Music,
        Some(other) => {
            return Err(setting.error(
                DiagCode::UnknownValue,
                format!("`{other}`: a station's group is fx (TV) or music (radio)"),
            ));
        }
    };
    if let Some(extra) = parts.next() {
        return Err(setting.error(
            DiagCode::ExtraField,
            format!("unexpected `{extra}` after the group"),
        ));
    }
    let dir = Setting {
        value: dir_text.to_string(),
        ..setting.clone()
    }
    .path();
    if !dir.is_dir() {
        return Err(setting.error(
            DiagCode::FileNotFound,
            format!(
                "station {}: the directory {} does not exist",
                setting.key,
                dir.display()
            ),
        ));
    }
    Ok(StationDef {
        code,
        key: setting.key.clone(),
        dir,
        group,
        file: setting.file.clone(),
        line: setting.line,
    })
}

/// The note a station is playing.
#[derive(Debug, Clone, PartialEq)]
pub struct OnAir {
    /// The note.
    pub note: NoteId,
    /// The file.
    pub file: PathBuf,
    /// The list it came from.
    pub list: String,
    /// When it started.
    pub started: SampleTime,
}

/// A station and what it is doing.
#[derive(Debug, Clone)]
pub struct Station {
    /// Its definition.
    pub def: StationDef,
    /// Its lists in playing order: main files, sub-directories, commercials.
    pub lists: Vec<Playlist>,
    next_list: usize,
    /// Objects tuned to it and turned on.
    pub receivers: BTreeSet<ObjectId>,
    /// What is on air.
    pub on_air: Option<OnAir>,
    /// Linear gain and pan the director last set.
    pub level: (Gain, Pan),
    /// A note fading out after the last receiver turned off.
    fading: Option<NoteId>,
}

impl Station {
    /// Builds the lists from the directory (see the module documentation). A `trusted`
    /// station (one of the project's own folders, [`is_trusted`]) follows links and
    /// `.lnk` shortcuts to sound files anywhere.
    pub fn new(def: StationDef, trusted: bool) -> Self {
        let mut lists = Vec::new();
        if has_audio(&def.dir, trusted) {
            lists.push(Playlist::new(def.name(), &def.dir).trusting(trusted));
        }
        for dir in sub_dirs(&def.dir) {
            let name = dir
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            lists.push(Playlist::new(name, dir).trusting(trusted));
        }
        if let Some(parent) = def.dir.parent()
            && audio_files(parent).is_ok_and(|f| !f.is_empty())
        {
            lists.push(Playlist::new("commercials", parent));
        }
        if lists.is_empty() {
            // An empty directory still makes a list: a file dropped in later plays.
            lists.push(Playlist::new(def.name(), &def.dir).trusting(trusted));
        }
        Self {
            def,
            lists,
            next_list: 0,
            receivers: BTreeSet::new(),
            on_air: None,
            level: (Gain::UNITY, Pan::CENTRE),
            fading: None,
        }
    }

    /// Picks the next item: the next list in turn that has a file.
    fn pick(&mut self, rng: &mut Rng) -> Result<Option<Picked>, PlaylistError> {
        let count = self.lists.len();
        let mut problem = None;
        for _ in 0..count {
            let index = self.next_list % count.max(1);
            self.next_list = (index + 1) % count.max(1);
            let Some(list) = self.lists.get_mut(index) else {
                continue;
            };
            match list.pick(rng) {
                Ok(Some(file)) => {
                    let via = list.via(&file).map(Path::to_path_buf);
                    return Ok(Some(Picked {
                        file,
                        list: list.name.clone(),
                        via,
                    }));
                }
                Ok(None) => {}
                Err(e) => problem = Some(e),
            }
        }
        problem.map_or(Ok(None), Err)
    }
}

/// A station's next item: the file (the real one, for a link), its list, and the link
/// or shortcut it came through.
struct Picked {
    file: PathBuf,
    list: String,
    via: Option<PathBuf>,
}

/// Why a receiver could not be tuned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StationError {
    /// No station of that code is defined.
    #[error(
        "no station {code} in world.ini [Stations] (defined: {})",
        keys_or_none(.defined)
    )]
    Unknown {
        /// The code asked for.
        code: u32,
        /// The keys of the stations that are defined.
        defined: Vec<String>,
    },
}

/// `a, b, c`, or `none`.
fn keys_or_none(keys: &[String]) -> String {
    if keys.is_empty() {
        "none".to_string()
    } else {
        keys.join(", ")
    }
}

/// Something a station did, for the trace.
#[derive(Debug, Clone, PartialEq)]
pub struct StationNews {
    /// The station code.
    pub code: u32,
    /// What happened (problems say so: [`StationEvent::is_error`]).
    pub what: StationEvent,
}

/// Every station of the project.
#[derive(Debug, Clone)]
pub struct Stations {
    stations: BTreeMap<u32, Station>,
    dirs: Vec<PathBuf>,
    rng: Rng,
    fade: u32,
    news: Vec<StationNews>,
}

impl Stations {
    /// The stations `world.ini` defines; `dirs` are the project's data directories (to
    /// name files for the cache); `sample_rate` times the fades.
    pub fn new(
        ini: &WorldIni,
        dirs: &[PathBuf],
        seed: u64,
        sample_rate: u32,
    ) -> (Self, Vec<Diagnostic>) {
        let (defs, mut diagnostics) = station_defs(ini);
        // A folder outside the data folders could never play (the cache serves only
        // files inside them): say so now rather than at each turn-on.
        let rules = ReadRules::within(dirs);
        let stations = defs
            .into_iter()
            .filter(|def| match rules.contains(&def.dir) {
                Ok(_) => true,
                Err(refusal) => {
                    diagnostics.push(Diagnostic::error(
                        refusal.code(),
                        &def.file,
                        def.line,
                        0,
                        format!(
                            "station {}: {refusal}; a station plays only files inside the \
                             project's data folders",
                            def.key
                        ),
                    ));
                    false
                }
            })
            .map(|def| {
                let trusted = is_trusted(&def.dir, dirs);
                (def.code, Station::new(def, trusted))
            })
            .collect();
        (
            Self {
                stations,
                dirs: dirs.to_vec(),
                rng: Rng::new(0x57A7_1045 ^ seed),
                fade: (FADE_SECONDS * f64::from(sample_rate)) as u32,
                news: Vec::new(),
            },
            diagnostics,
        )
    }

    /// A station.
    pub fn get(&self, code: u32) -> Option<&Station> {
        self.stations.get(&code)
    }

    /// Every station.
    pub fn all(&self) -> impl Iterator<Item = &Station> {
        self.stations.values()
    }

    /// The station an object is tuned to and on, if any.
    pub fn tuned(&self, object: ObjectId) -> Option<u32> {
        self.stations
            .values()
            .find(|s| s.receivers.contains(&object))
            .map(|s| s.def.code)
    }

    /// Takes what happened since the last call.
    pub fn take_news(&mut self) -> Vec<StationNews> {
        std::mem::take(&mut self.news)
    }

    fn say(&mut self, code: u32, what: StationEvent) {
        self.news.push(StationNews { code, what });
    }

    /// `kTurnOnTV`: `object` tunes to `code` (leaving any other station) and the station
    /// goes on air if it was silent.
    pub fn turn_on(
        &mut self,
        code: u32,
        object: ObjectId,
        now: SampleTime,
        out: &mut dyn SoundSink,
        ids: &mut NoteIds,
    ) -> Result<(), StationError> {
        if !self.stations.contains_key(&code) {
            let defined = self.stations.values().map(|s| s.def.key.clone()).collect();
            return Err(StationError::Unknown { code, defined });
        }
        if let Some(previous) = self.tuned(object).filter(|p| *p != code) {
            self.turn_off(previous, object, now, out);
        }
        let Some(station) = self.stations.get_mut(&code) else {
            return Ok(());
        };
        station.receivers.insert(object);
        let what = StationEvent::Tuned {
            name: station.def.name(),
            object,
            receivers: station.receivers.len(),
        };
        self.say(code, what);
        if self.stations.get(&code).is_some_and(|s| s.on_air.is_none()) {
            self.start_next(code, now, out, ids, true);
        }
        Ok(())
    }

    /// `kTurnOffTV`: `object` stops listening; the last receiver off fades the station out.
    pub fn turn_off(
        &mut self,
        code: u32,
        object: ObjectId,
        now: SampleTime,
        out: &mut dyn SoundSink,
    ) {
        let fade = self.fade;
        let Some(station) = self.stations.get_mut(&code) else {
            return;
        };
        if !station.receivers.remove(&object) {
            return;
        }
        let name = station.def.name();
        let mut quiet = false;
        if station.receivers.is_empty()
            && let Some(on_air) = station.on_air.take()
        {
            out.send(SoundCommand::SetGain {
                note: on_air.note,
                at: now,
                gain: Gain::SILENT,
                ramp: fade,
            });
            out.send(SoundCommand::Stop {
                note: on_air.note,
                at: now + u64::from(fade),
            });
            station.fading = Some(on_air.note);
            quiet = true;
        }
        self.say(
            code,
            StationEvent::TurnedOff {
                name,
                object,
                quiet,
            },
        );
    }

    /// Turns every receiver of every station off (QuietAll, a new lot).
    pub fn all_off(&mut self, now: SampleTime, out: &mut dyn SoundSink) {
        let pairs: Vec<(u32, ObjectId)> = self
            .stations
            .values()
            .flat_map(|s| s.receivers.iter().map(|o| (s.def.code, *o)))
            .collect();
        for (code, object) in pairs {
            self.turn_off(code, object, now, out);
        }
    }

    /// Sets a station's linear gain and pan (from its receivers' placements), ramped.
    pub fn set_level(
        &mut self,
        code: u32,
        gain: Gain,
        pan: Pan,
        now: SampleTime,
        out: &mut dyn SoundSink,
    ) {
        let fade = self.fade;
        let Some(station) = self.stations.get_mut(&code) else {
            return;
        };
        let changed = (station.level.0.get() - gain.get()).abs() > 1e-4
            || (station.level.1.get() - pan.get()).abs() > 1e-4;
        station.level = (gain, pan);
        if let (true, Some(on_air)) = (changed, &station.on_air) {
            let ramp = fade / 4;
            out.send(SoundCommand::SetGain {
                note: on_air.note,
                at: now,
                gain,
                ramp,
            });
            out.send(SoundCommand::SetPan {
                note: on_air.note,
                at: now,
                pan,
                ramp,
            });
        }
    }

    /// A world note ended: if it was a station's item, the next one goes on air.
    pub fn note_ended(
        &mut self,
        note: NoteId,
        now: SampleTime,
        out: &mut dyn SoundSink,
        ids: &mut NoteIds,
    ) -> bool {
        let mut next = None;
        for station in self.stations.values_mut() {
            if station.fading == Some(note) {
                station.fading = None;
                return true;
            }
            if station.on_air.as_ref().is_some_and(|a| a.note == note) {
                station.on_air = None;
                next = Some(station.def.code);
                break;
            }
        }
        match next {
            Some(code) => {
                if self
                    .stations
                    .get(&code)
                    .is_some_and(|s| !s.receivers.is_empty())
                {
                    self.start_next(code, now, out, ids, false);
                }
                true
            }
            None => false,
        }
    }

    /// Puts the next item on air (fading in when the station was silent).
    fn start_next(
        &mut self,
        code: u32,
        now: SampleTime,
        out: &mut dyn SoundSink,
        ids: &mut NoteIds,
        fade_in: bool,
    ) {
        let fade = self.fade;
        let Some(station) = self.stations.get_mut(&code) else {
            return;
        };
        let picked = station.pick(&mut self.rng);
        let name = station.def.name();
        let broken: Vec<_> = station
            .lists
            .iter_mut()
            .flat_map(Playlist::take_broken)
            .collect();
        for b in broken {
            self.say(
                code,
                StationEvent::BrokenLink {
                    name: name.clone(),
                    link: b.link,
                    reason: b.reason,
                },
            );
        }
        let Some(station) = self.stations.get_mut(&code) else {
            return;
        };
        let Picked { file, list, via } = match picked {
            Ok(Some(item)) => item,
            Ok(None) => {
                let dir = station.def.dir.clone();
                self.say(code, StationEvent::Empty { dir });
                return;
            }
            Err(PlaylistError::Unreadable { dir, reason }) => {
                self.say(code, StationEvent::Unreadable { dir, reason });
                return;
            }
        };
        let Some(sample) = playlist_sample(&file, via.as_deref(), &self.dirs) else {
            self.say(code, StationEvent::Outside { file });
            return;
        };
        let note = ids.fresh();
        let (gain, pan) = station.level;
        out.send(SoundCommand::Start {
            note,
            voice: usize::MAX,
            at: now,
            sample,
            gain: if fade_in { Gain::SILENT } else { gain },
            pan,
            pitch: 1.0,
            looping: false,
            group: station.def.group,
            reverb: false,
            priority: WORLD_PRIORITY,
        });
        if fade_in {
            out.send(SoundCommand::SetGain {
                note,
                at: now,
                gain,
                ramp: fade,
            });
        }
        station.on_air = Some(OnAir {
            note,
            file: file.clone(),
            list: list.clone(),
            started: now,
        });
        self.say(
            code,
            StationEvent::Plays {
                name,
                file,
                list,
                via,
            },
        );
    }

    /// Names of files in the station's lists, for the workbench (rescans).
    pub fn contents(&mut self, code: u32) -> Vec<(String, Vec<PathBuf>)> {
        let Some(station) = self.stations.get_mut(&code) else {
            return Vec::new();
        };
        station
            .lists
            .iter_mut()
            .map(|l| {
                let _ = l.rescan();
                (l.name.clone(), l.files())
            })
            .collect()
    }
}
