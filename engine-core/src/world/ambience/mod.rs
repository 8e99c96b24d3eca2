//! The ambience ("Ambience" in the audio technical document): a freshness score — birds,
//! dogs, cars driving by, planes — played as a step sequencer in 3D around the listener,
//! and a night loop (crickets) from `NightStart` to `NightEnd`.
//!
//! Everything is set in `world.ini` `[Ambience]` ([`AmbienceSettings`]). Steps are counted
//! in samples from sample 0, so they never drift and a render is repeatable; every pick is
//! drawn from one seeded [`Rng`]. Each [`Ambience::update`] schedules every step in
//! `[now, until)` at its exact sample; the score is the one part positioned in 3D around
//! the listener ([`Ambience::set_listener`]); [`Ambience::reverb_level`] is what the
//! director writes to the mixer's reverb (the active character in a small room); the
//! hour ([`Ambience::set_hour`]) starts and stops the night loop. The exact rules —
//! tempo, rows and steps, samples, freshness, 3D, gain, EAX, the night loop, on and off —
//! are in `docs/ambience.md` ("The rules, exactly").
//!
//! The parts: `settings` reads `[Ambience]`; `score` reads and prepares the score;
//! `steps` plays it. Here: the player's state, on and off, the hour and the night
//! loop, the room, the listener, and what the UI sees.

mod score;
mod settings;
mod steps;

pub use settings::AmbienceSettings;

use super::sound::{NoteIds, sample_ref};
use crate::runtime::clock::SampleTime;
use crate::runtime::rng::Rng;
use crate::runtime::sink::{ControlGroup, NoteId, SoundCommand, SoundSink, WORLD_PRIORITY};
use crate::runtime::trace::AmbienceEvent;
use crate::runtime::units::{Gain, Pan};
use crate::toolchain::diag::{DiagCode, Diagnostic};
use score::{Kind, Score, load_score};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

/// The score as [`AmbienceState`] shows it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScoreSummary {
    /// The `.fsc` file.
    pub file: PathBuf,
    /// The header's label.
    pub label: String,
    /// Tempo in beats per minute (after defaults).
    pub tempo_bpm: i32,
    /// Beats per bar (after defaults).
    pub beats_per_bar: i32,
    /// Steps per bar.
    pub steps_per_bar: u32,
    /// Seconds per step.
    pub step_seconds: f64,
    /// Note rows that can sound (rests and rows without files excluded).
    pub rows: usize,
}

/// A snapshot of the ambience for the UI and the console.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct AmbienceState {
    /// The mode plan has the ambience on.
    pub enabled: bool,
    /// The last hour given is night.
    pub night: bool,
    /// The last hour given, if any.
    pub hour: Option<f32>,
    /// The night loop is sounding.
    pub night_loop_playing: bool,
    /// The reverb send level for the current room ([`Ambience::reverb_level`]).
    pub reverb: f32,
    /// The room size given, in tiles (`None`: none yet, outdoors).
    pub room_tiles: Option<f32>,
    /// Where the listener is, in lot tiles.
    pub listener: [f32; 2],
    /// The most recent score picks, newest last (file stems).
    pub recent: Vec<String>,
    /// Score notes sounding (started and not yet reported ended).
    pub sounding: usize,
    /// The score, if one loaded.
    pub score: Option<ScoreSummary>,
}

/// A score note that is sounding.
#[derive(Debug, Clone)]
struct Sounding {
    /// Where it is on the lot (`None` for a stereo row: not placed).
    position: Option<[f32; 2]>,
    /// Gain before the 3D gain.
    gain: f32,
}

/// The ambience player.
#[derive(Debug, Clone)]
pub struct Ambience {
    settings: AmbienceSettings,
    dirs: Vec<PathBuf>,
    rng: Rng,
    rate: f64,
    score: Option<Score>,
    enabled: bool,
    hour: Option<f32>,
    night: bool,
    night_loop: Option<NoteId>,
    room_tiles: Option<f32>,
    listener: [f32; 2],
    applied_listener: [f32; 2],
    next_step: u64,
    busy_until: Vec<u64>,
    memory: BTreeMap<Kind, VecDeque<PathBuf>>,
    recent: VecDeque<String>,
    sounding: BTreeMap<NoteId, Sounding>,
    dying: BTreeSet<NoteId>,
    news: Vec<AmbienceEvent>,
}

impl Ambience {
    /// An ambience for the project (`dirs` name files for the cache; `sample_rate` times
    /// the score and the fades). Loads and parses the score: its problems are diagnostics
    /// naming the file and line, bad rows are left out, and a score that cannot be read or
    /// has no usable header means no score — the night loop still plays. It starts off
    /// (silent) until [`Ambience::set_enabled`].
    pub fn new(
        settings: AmbienceSettings,
        dirs: &[PathBuf],
        seed: u64,
        sample_rate: u32,
    ) -> (Self, Vec<Diagnostic>) {
        let mut diagnostics = Vec::new();
        let rate = sample_rate.max(1);
        let score = settings
            .score
            .as_deref()
            .and_then(|file| load_score(file, dirs, rate, &mut diagnostics));
        if let Some(file) = &settings.night_loop {
            if !file.is_file() {
                diagnostics.push(Diagnostic::error(
                    DiagCode::FileNotFound,
                    file,
                    0,
                    0,
                    "the night loop file does not exist; no night loop",
                ));
            } else if sample_ref(file, dirs).is_none() {
                diagnostics.push(Diagnostic::error(
                    DiagCode::SampleOutsideData,
                    file,
                    0,
                    0,
                    "the night loop is outside the project's data directories; no night loop",
                ));
            }
        }
        let rows = score.as_ref().map_or(0, |s| s.rows.len());
        (
            Self {
                settings,
                dirs: dirs.to_vec(),
                rng: Rng::new(0xA3B1_E4CE ^ seed),
                rate: f64::from(rate),
                score,
                enabled: false,
                hour: None,
                night: false,
                night_loop: None,
                room_tiles: None,
                listener: [0.0; 2],
                applied_listener: [0.0; 2],
                next_step: 0,
                busy_until: vec![0; rows],
                memory: BTreeMap::new(),
                recent: VecDeque::new(),
                sounding: BTreeMap::new(),
                dying: BTreeSet::new(),
                news: Vec::new(),
            },
            diagnostics,
        )
    }

    /// The settings.
    pub fn settings(&self) -> &AmbienceSettings {
        &self.settings
    }

    /// Takes what happened since the last call (for the trace).
    pub fn take_news(&mut self) -> Vec<AmbienceEvent> {
        std::mem::take(&mut self.news)
    }

    fn frames(&self, seconds: f64) -> u32 {
        (seconds * self.rate)
            .round()
            .clamp(0.0, f64::from(u32::MAX)) as u32
    }

    fn ms(&self, ms: u32) -> u32 {
        self.frames(f64::from(ms) / 1000.0)
    }

    /// Fades a note out over `Fade` and stops it.
    fn fade_out(&mut self, note: NoteId, now: SampleTime, out: &mut dyn SoundSink) {
        let fade = self.frames(f64::from(self.settings.fade));
        out.send(SoundCommand::SetGain {
            note,
            at: now,
            gain: Gain::SILENT,
            ramp: fade,
        });
        out.send(SoundCommand::Stop {
            note,
            at: now + u64::from(fade),
        });
        self.dying.insert(note);
    }

    /// The mode plan turns the ambience on or off. Off fades every ambience note out and
    /// the score stops scheduling; on starts the night loop if it is night and lets the
    /// score resume at the next step.
    pub fn set_enabled(
        &mut self,
        on: bool,
        now: SampleTime,
        out: &mut dyn SoundSink,
        ids: &mut NoteIds,
    ) {
        if on == self.enabled {
            return;
        }
        self.enabled = on;
        if on {
            self.news.push(AmbienceEvent::On);
        } else {
            let notes: Vec<NoteId> = self.sounding.keys().copied().collect();
            self.sounding.clear();
            for note in notes {
                self.fade_out(note, now, out);
            }
            for busy in &mut self.busy_until {
                *busy = 0;
            }
            self.news.push(AmbienceEvent::Off {
                fade: self.settings.fade,
            });
        }
        self.follow_night(now, out, ids);
    }

    /// `NotifyHourChange`: starts the night loop when the hour enters night and fades it
    /// out when it leaves; rows marked `day`/`night` follow. Acts at once.
    pub fn set_hour(
        &mut self,
        hour: f32,
        now: SampleTime,
        out: &mut dyn SoundSink,
        ids: &mut NoteIds,
    ) {
        if !hour.is_finite() {
            self.news.push(AmbienceEvent::HourIgnored {
                hour: hour.to_string(),
            });
            return;
        }
        let night = self.settings.is_night(hour);
        if self.hour.is_none() || night != self.night {
            self.news.push(AmbienceEvent::DayOrNight { night, hour });
        }
        self.hour = Some(hour);
        self.night = night;
        self.follow_night(now, out, ids);
    }

    /// Starts or stops the night loop to match the hour and the on/off state.
    fn follow_night(&mut self, now: SampleTime, out: &mut dyn SoundSink, ids: &mut NoteIds) {
        let want = self.enabled && self.night;
        let hour = self.hour;
        match (want, self.night_loop) {
            (true, None) => {
                let Some(file) = self.settings.night_loop.clone() else {
                    return;
                };
                let Some(sample) = sample_ref(&file, &self.dirs).filter(|_| file.is_file()) else {
                    self.news.push(AmbienceEvent::NightLoopUnplayable { file });
                    return;
                };
                let note = ids.fresh();
                out.send(SoundCommand::Start {
                    note,
                    voice: usize::MAX,
                    at: now,
                    sample,
                    gain: Gain::SILENT,
                    pan: Pan::CENTRE,
                    pitch: 1.0,
                    looping: true,
                    group: ControlGroup::Fx,
                    reverb: false,
                    priority: WORLD_PRIORITY,
                });
                out.send(SoundCommand::SetGain {
                    note,
                    at: now,
                    gain: Gain::new(self.settings.volume),
                    ramp: self.frames(f64::from(self.settings.fade)),
                });
                self.night_loop = Some(note);
                self.news.push(AmbienceEvent::NightLoop { on: true, hour });
            }
            (false, Some(note)) => {
                self.night_loop = None;
                self.fade_out(note, now, out);
                self.news.push(AmbienceEvent::NightLoop { on: false, hour });
            }
            _ => {}
        }
    }

    /// The size of the room around the active character, in tiles (0: outdoors).
    pub fn set_room(&mut self, room_tiles: f32) {
        self.room_tiles = Some(room_tiles).filter(|t| t.is_finite() && *t >= 0.0);
    }

    /// The reverb send level for the mixer's reverb control: `Reverb` in a small room
    /// (more than 0 and at most `SmallRoom` tiles), else 0.
    pub fn reverb_level(&self) -> f32 {
        match self.room_tiles {
            Some(t) if t > 0.0 && t <= self.settings.small_room => self.settings.reverb,
            _ => 0.0,
        }
    }

    /// Where the camera looks, in lot tiles: new score notes are placed around it, and
    /// sounding ones follow it at the next update.
    pub fn set_listener(&mut self, position: [f32; 2]) {
        if position.iter().all(|v| v.is_finite()) {
            self.listener = position;
        }
    }

    /// A world note ended. Returns true if it was the ambience's.
    pub fn note_ended(
        &mut self,
        note: NoteId,
        _now: SampleTime,
        _out: &mut dyn SoundSink,
        _ids: &mut NoteIds,
    ) -> bool {
        let mut ours = self.dying.remove(&note);
        ours |= self.sounding.remove(&note).is_some();
        if self.night_loop == Some(note) {
            // A loop only ends on its own if it could not play; do not retry forever.
            self.night_loop = None;
            self.news.push(AmbienceEvent::NightLoopEnded);
            ours = true;
        }
        ours
    }

    /// Whether the mode plan has it on.
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// Whether it has anything to play (a score or a night loop): only then does it
    /// take a voice slot.
    pub fn has_sounds(&self) -> bool {
        self.score.is_some() || self.settings.night_loop.is_some()
    }

    /// A snapshot for the UI and the console.
    pub fn describe(&self) -> AmbienceState {
        AmbienceState {
            enabled: self.enabled,
            night: self.night,
            hour: self.hour,
            night_loop_playing: self.night_loop.is_some(),
            reverb: self.reverb_level(),
            room_tiles: self.room_tiles,
            listener: self.listener,
            recent: self.recent.iter().cloned().collect(),
            sounding: self.sounding.len(),
            score: self.score.as_ref().map(|s| s.summary.clone()),
        }
    }
}

/// A file's stem: the recent list's names, and how score rows name their files.
fn stem(file: &Path) -> String {
    file.file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
}
