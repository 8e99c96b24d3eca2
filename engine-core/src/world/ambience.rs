//! The ambience (seed "Ambience"): a freshness score — birds, dogs, cars driving by,
//! planes — played as a step sequencer in 3D around the listener, and a night loop
//! (crickets) from `NightStart` to `NightEnd`.
//!
//! Everything is set in `world.ini` `[Ambience]` ([`AmbienceSettings`]); `docs/ambience.md`
//! explains it for audio designers. In short:
//!
//! - **Tempo.** A score's header gives the tempo (beats per minute) and beats per bar; its
//!   `cols` divide the bar into steps (`cols` ≤ 0: one step per beat). A step lasts
//!   `60 / tempo × beats_per_bar / cols` seconds; step `k` starts at sample
//!   `round(k × step)` counted from sample 0, so steps never drift and a render is
//!   repeatable. Each [`Ambience::update`] schedules every step in `[now, until)` at its
//!   exact sample.
//! - **Rows are sound kinds, columns are steps.** Each note row of the `.fsc` is one lane:
//!   it plays on step `delay` of every bar (taken modulo the steps per bar) and, if
//!   `quantise` > 0, again every `quantise` steps after that within the bar. A row plays
//!   with its `probability` in percent (0 never, 100 or more always). `rand3` delays a
//!   start by a random 0–`rand3` ms. A row that plays is busy for `loop_count + 1` steps
//!   and does not start again meanwhile; with a non-zero `loop_flag` its sample loops and
//!   is held exactly that long, then fades out over `fade_out` ms. `fade_in` ms ramps
//!   every start up from silence. Pitch is drawn uniformly from `pitch_low`–`pitch_high`
//!   (playback-rate factors; 0 means 1). A row whose label (field 0) starts with `day`
//!   plays only by day, `night` only at night.
//! - **Samples.** A row's file name is a sample label: an audio file of that name next to
//!   the score, or else every audio file next to the score — or in a sub-directory named
//!   like the label — whose stem starts with the label (`bird` → `bird_1.wav`,
//!   `bird_2.ogg`, `bird/chirp.wav`). `NONE` is a rest.
//! - **Freshness.** Rows with the same non-zero `group_id` are one kind (alternatives: on
//!   a step at most one of them plays); every other row is a kind of its own. A pick
//!   avoids the last `Freshness` samples picked for its kind, as far as the row has other
//!   files (when all are recent, the least recently picked ones come back first).
//!   Randomness is one seeded [`Rng`], so the same seed and calls give the same commands.
//! - **3D.** The score is the one part positioned in 3D. `pan_lr` and `pan_fb` (0–1024,
//!   512 the centre) place a note `(value − 512) / 512 × Distance` tiles right and behind
//!   the listener (the camera's centre, [`Ambience::set_listener`]); `rand2` scatters it
//!   by up to `rand2` more of the same units. The note stays there: its gain falls
//!   linearly from 1 at the listener to 0 at `Distance` tiles and its pan is the x offset
//!   over half of `Distance`, both followed as the listener moves. A note placed at or
//!   beyond `Distance` is not started. A row with a non-zero `stereo` flag is not placed:
//!   full gain, pan `pan_lr / 512 − 1`.
//! - **Gain** = row volume / 1024 × header master volume / 1024 × `Volume` × 3D gain.
//! - **EAX.** Score notes start with `reverb: true` in the FX group; the mixer's reverb
//!   control decides how much is heard, and [`Ambience::reverb_level`] is what the director
//!   writes to it: `Reverb` while the active character is in a room of at most
//!   `SmallRoom` tiles, else 0 (0 tiles means outdoors).
//! - **The night loop** plays (looping, FX, fading in over `Fade` seconds) while the hour
//!   ([`Ambience::set_hour`], the seed's `NotifyHourChange`) is in
//!   `[NightStart, 24) ∪ [0, NightEnd)` and the ambience is on; it fades out and stops
//!   when the hour leaves. Hour changes act at once, with or without updates between.
//! - **On and off.** The mode plan turns the ambience on (live, neighbourhood…) or off
//!   (edit family, credits, load…): off fades every ambience note out over `Fade` seconds
//!   and the score stops scheduling; on resumes on the same step grid.

use super::playlist::{audio_files, is_audio};
use super::settings::{Setting, WorldIni, read_section};
use super::sound::{NoteIds, sample_ref};
use crate::runtime::clock::SampleTime;
use crate::runtime::rng::Rng;
use crate::runtime::sink::{ControlGroup, NoteId, SoundCommand, SoundSink};
use crate::toolchain::diag::{Diagnostic, Severity};
use crate::toolchain::formats::fsc::{FULL_SCALE, FscHeader, FscScore};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

/// Most steps one [`Ambience::update`] schedules; a longer jump skips ahead.
const MAX_STEPS_PER_UPDATE: u32 = 4096;
/// Ramp in seconds for gain and pan changes when the listener moves.
const FOLLOW_SECONDS: f64 = 0.05;
/// How many recent picks [`AmbienceState::recent`] shows.
const RECENT_SHOWN: usize = 8;
/// Tempo used when a score's is not positive.
const DEFAULT_TEMPO: i32 = 60;
/// Beats per bar used when a score's are not positive.
const DEFAULT_BEATS_PER_BAR: i32 = 4;

/// `world.ini` `[Ambience]`.
#[derive(Debug, Clone, PartialEq)]
pub struct AmbienceSettings {
    /// `Score`: the `.fsc` file (relative to the data directory holding `world.ini`).
    pub score: Option<PathBuf>,
    /// `NightLoop`: the audio file looped at night (crickets).
    pub night_loop: Option<PathBuf>,
    /// `NightStart`: the hour night begins, default 18.
    pub night_start: f32,
    /// `NightEnd`: the hour night ends, default 6.
    pub night_end: f32,
    /// `SmallRoom`: a room of at most this many tiles is small and gets reverb; default 12.
    pub small_room: f32,
    /// `Reverb`: the reverb send level (0–1) in a small room; default 0.6.
    pub reverb: f32,
    /// `Volume`: gain (0–1) of the whole ambience; default 0.8.
    pub volume: f32,
    /// `Freshness`: how many recent picks of a kind are avoided; default 3.
    pub freshness: usize,
    /// `Distance`: tiles at which a score sound is silent; default 40.
    pub distance: f32,
    /// `Fade`: seconds of the fades on and off and of the night loop; default 2.
    pub fade: f32,
}

impl Default for AmbienceSettings {
    fn default() -> Self {
        Self {
            score: None,
            night_loop: None,
            night_start: 18.0,
            night_end: 6.0,
            small_room: 12.0,
            reverb: 0.6,
            volume: 0.8,
            freshness: 3,
            distance: 40.0,
            fade: 2.0,
        }
    }
}

/// The `[Ambience]` keys.
const KEYS: [&str; 10] = [
    "Score",
    "NightLoop",
    "NightStart",
    "NightEnd",
    "SmallRoom",
    "Reverb",
    "Volume",
    "Freshness",
    "Distance",
    "Fade",
];

impl AmbienceSettings {
    /// Reads `[Ambience]`; a bad value or a missing file is a diagnostic naming the
    /// `world.ini` line, and the default (no file) is used instead.
    pub fn from_ini(ini: &WorldIni) -> (Self, Vec<Diagnostic>) {
        let mut settings = AmbienceSettings::default();
        let mut diagnostics = Vec::new();
        read_section(ini, "Ambience", &KEYS, &mut diagnostics, |s, d| {
            let key = s.key.to_ascii_lowercase();
            let (lo, hi) = match key.as_str() {
                "score" => {
                    settings.score = existing_file(s, "score", d);
                    return true;
                }
                "nightloop" => {
                    settings.night_loop = existing_file(s, "night loop", d);
                    return true;
                }
                "nightstart" | "nightend" => (0.0, 24.0),
                "smallroom" => (0.0, 1.0e6),
                "reverb" | "volume" => (0.0, 1.0),
                "freshness" => (0.0, 64.0),
                "distance" => (0.001, 1.0e6),
                "fade" => (0.0, 600.0),
                _ => return false,
            };
            match s.number() {
                Ok(v) if (lo..=hi).contains(&v) => {
                    if key == "freshness" && v.fract() != 0.0 {
                        d.push(s.error(format!("`{}` must be a whole number, not {v}", s.key)));
                        return true;
                    }
                    let f = v as f32;
                    match key.as_str() {
                        "nightstart" => settings.night_start = f,
                        "nightend" => settings.night_end = f,
                        "smallroom" => settings.small_room = f,
                        "reverb" => settings.reverb = f,
                        "volume" => settings.volume = f,
                        "freshness" => settings.freshness = v as usize,
                        "distance" => settings.distance = f,
                        _ => settings.fade = f,
                    }
                }
                Ok(v) => d.push(s.error(format!(
                    "`{}` = {v} is out of range ({lo}–{hi}); the default is used",
                    s.key
                ))),
                Err(e) => d.push(e),
            }
            true
        });
        (settings, diagnostics)
    }

    /// True if `hour` (any number; taken modulo 24) is night: in
    /// `[night_start, 24) ∪ [0, night_end)` when night spans midnight, in
    /// `[night_start, night_end)` otherwise, never when the two are equal.
    pub fn is_night(&self, hour: f32) -> bool {
        let h = hour.rem_euclid(24.0);
        let (start, end) = (self.night_start, self.night_end);
        if start > end {
            h >= start || h < end
        } else {
            h >= start && h < end
        }
    }
}

/// A file setting that must name a regular file.
fn existing_file(setting: &Setting, what: &str, d: &mut Vec<Diagnostic>) -> Option<PathBuf> {
    let path = setting.path();
    let problem = match std::fs::metadata(&path) {
        Ok(meta) if meta.is_file() => return Some(path),
        Ok(_) => "is not a regular file (a folder, a named pipe or a device)",
        Err(_) => "does not exist",
    };
    d.push(setting.error(format!(
        "`{}`: the {what} file {} {problem}; the ambience plays without it",
        setting.key,
        path.display()
    )));
    None
}

/// The score as [`AmbienceState`] shows it.
#[derive(Debug, Clone, PartialEq)]
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
#[derive(Debug, Clone, PartialEq, Default)]
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

/// When a row may play.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Daytime {
    Always,
    Day,
    Night,
}

/// Whose freshness memory a pick uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    /// Rows sharing a non-zero group ID.
    Group(i32),
    /// A row of its own.
    Row(usize),
}

/// A note row, read for playback.
#[derive(Debug, Clone)]
struct Row {
    /// Field 0.
    name: String,
    /// The sample label (file name field).
    files: Vec<PathBuf>,
    kind: Kind,
    group: i32,
    volume: f32,
    pan_lr: f32,
    pan_fb: f32,
    scatter: f32,
    fade_in_ms: u32,
    fade_out_ms: u32,
    step: u32,
    every: u32,
    jitter_ms: u32,
    hold: u64,
    looping: bool,
    probability: i32,
    pitch: (f32, f32),
    stereo: bool,
    daytime: Daytime,
}

/// A loaded score.
#[derive(Debug, Clone)]
struct Score {
    summary: ScoreSummary,
    master: f32,
    rows: Vec<Row>,
    grid: Grid,
}

/// The step grid: step `k` starts at `round(k × num / den)` samples.
#[derive(Debug, Clone, Copy)]
struct Grid {
    num: u128,
    den: u128,
}

impl Grid {
    fn step_time(&self, k: u64) -> SampleTime {
        let t = (u128::from(k) * self.num + self.den / 2) / self.den;
        SampleTime::try_from(t).unwrap_or(SampleTime::MAX)
    }

    /// The first step starting at or after `t`.
    fn first_step_at(&self, t: SampleTime) -> u64 {
        let guess = u128::from(t) * self.den / self.num;
        let mut k = u64::try_from(guess).unwrap_or(u64::MAX / 2);
        while k > 0 && self.step_time(k - 1) >= t {
            k -= 1;
        }
        while self.step_time(k) < t {
            k += 1;
        }
        k
    }
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
    news: Vec<String>,
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
                    file,
                    0,
                    0,
                    "the night loop file does not exist; no night loop",
                ));
            } else if sample_ref(file, dirs).is_none() {
                diagnostics.push(Diagnostic::error(
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
                rng: Rng::new(seed ^ 0xA3B1_E4CE),
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
    pub fn take_news(&mut self) -> Vec<String> {
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
            gain: 0.0,
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
            self.news.push("ambience on".into());
        } else {
            let notes: Vec<NoteId> = self.sounding.keys().copied().collect();
            self.sounding.clear();
            for note in notes {
                self.fade_out(note, now, out);
            }
            for busy in &mut self.busy_until {
                *busy = 0;
            }
            self.news.push(format!(
                "ambience off (fading out over {} s)",
                self.settings.fade
            ));
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
            self.news
                .push(format!("ambience: hour {hour} ignored (not a number)"));
            return;
        }
        let night = self.settings.is_night(hour);
        if self.hour.is_none() || night != self.night {
            self.news.push(format!(
                "{} ({})",
                if night { "night" } else { "day" },
                format_hour(hour)
            ));
        }
        self.hour = Some(hour);
        self.night = night;
        self.follow_night(now, out, ids);
    }

    /// Starts or stops the night loop to match the hour and the on/off state.
    fn follow_night(&mut self, now: SampleTime, out: &mut dyn SoundSink, ids: &mut NoteIds) {
        let want = self.enabled && self.night;
        let when = self.hour.map_or_else(String::new, format_hour);
        match (want, self.night_loop) {
            (true, None) => {
                let Some(file) = self.settings.night_loop.clone() else {
                    return;
                };
                let Some(sample) = sample_ref(&file, &self.dirs).filter(|_| file.is_file()) else {
                    self.news.push(format!(
                        "night loop {} cannot play (missing or outside the data directories)",
                        file.display()
                    ));
                    return;
                };
                let note = ids.fresh();
                out.send(SoundCommand::Start {
                    note,
                    voice: usize::MAX,
                    at: now,
                    sample,
                    gain: 0.0,
                    pan: 0.0,
                    pitch: 1.0,
                    looping: true,
                    group: ControlGroup::Fx,
                    reverb: false,
                });
                out.send(SoundCommand::SetGain {
                    note,
                    at: now,
                    gain: self.settings.volume,
                    ramp: self.frames(f64::from(self.settings.fade)),
                });
                self.night_loop = Some(note);
                self.news.push(format!("night loop on ({when})"));
            }
            (false, Some(note)) => {
                self.night_loop = None;
                self.fade_out(note, now, out);
                self.news.push(format!("night loop off ({when})"));
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

    /// 3D gain and pan of a lot position heard from the listener.
    fn hear(&self, position: [f32; 2]) -> (f32, f32) {
        let distance = self.settings.distance.max(1.0e-3);
        let dx = position[0] - self.listener[0];
        let dy = position[1] - self.listener[1];
        let d = dx.hypot(dy);
        let gain = (1.0 - d / distance).clamp(0.0, 1.0);
        let pan = (dx / (distance / 2.0)).clamp(-1.0, 1.0);
        (gain, pan)
    }

    /// Once per tick: sounding notes follow the listener, and every score step in
    /// `[now, until)` is played at its exact sample.
    pub fn update(
        &mut self,
        now: SampleTime,
        until: SampleTime,
        out: &mut dyn SoundSink,
        ids: &mut NoteIds,
    ) {
        if self.listener != self.applied_listener {
            self.applied_listener = self.listener;
            let ramp = self.frames(FOLLOW_SECONDS);
            let updates: Vec<(NoteId, f32, f32)> = self
                .sounding
                .iter()
                .filter_map(|(note, s)| {
                    let (g, pan) = self.hear(s.position?);
                    Some((*note, s.gain * g, pan))
                })
                .collect();
            for (note, gain, pan) in updates {
                out.send(SoundCommand::SetGain {
                    note,
                    at: now,
                    gain,
                    ramp,
                });
                out.send(SoundCommand::SetPan {
                    note,
                    at: now,
                    pan,
                    ramp,
                });
            }
        }
        if !self.enabled || until <= now {
            return;
        }
        let Some(grid) = self.score.as_ref().map(|s| s.grid) else {
            return;
        };
        let mut k = self.next_step.max(grid.first_step_at(now));
        let mut steps = 0;
        while grid.step_time(k) < until {
            if steps == MAX_STEPS_PER_UPDATE {
                k = grid.first_step_at(until);
                self.news
                    .push("ambience: too many steps in one update; skipped ahead".into());
                break;
            }
            self.play_step(k, out, ids);
            k += 1;
            steps += 1;
        }
        self.next_step = k;
    }

    /// Plays the rows due on step `k`.
    fn play_step(&mut self, k: u64, out: &mut dyn SoundSink, ids: &mut NoteIds) {
        let Some(score) = &self.score else {
            return;
        };
        let steps = u64::from(score.summary.steps_per_bar.max(1));
        let column = (k % steps) as u32;
        let night = self.night;
        let due: Vec<(usize, i32, i32)> = score
            .rows
            .iter()
            .enumerate()
            .filter(|(i, row)| {
                let on_step = if row.every > 0 {
                    column >= row.step && (column - row.step).is_multiple_of(row.every)
                } else {
                    column == row.step
                };
                let time_ok = match row.daytime {
                    Daytime::Always => true,
                    Daytime::Day => !night,
                    Daytime::Night => night,
                };
                on_step
                    && time_ok
                    && self.busy_until.get(*i).is_none_or(|b| *b <= k)
                    && row.probability > 0
            })
            .map(|(i, row)| (i, row.probability, row.group))
            .collect();
        let mut passed = Vec::new();
        for (i, probability, group) in due {
            if probability >= 100 || self.rng.below(100) < probability.unsigned_abs() {
                passed.push((i, group));
            }
        }
        // Rows of one group are alternatives: one of those that passed plays.
        let mut chosen = Vec::new();
        let mut groups_done = BTreeSet::new();
        for &(i, group) in &passed {
            if group == 0 {
                chosen.push(i);
            } else if groups_done.insert(group) {
                let members: Vec<usize> = passed
                    .iter()
                    .filter(|(_, g)| *g == group)
                    .map(|(j, _)| *j)
                    .collect();
                let pick = self
                    .rng
                    .below(u32::try_from(members.len()).unwrap_or(u32::MAX))
                    as usize;
                if let Some(j) = members.get(pick) {
                    chosen.push(*j);
                }
            }
        }
        for i in chosen {
            self.play_row(i, k, out, ids);
        }
    }

    /// Starts row `i` on step `k`.
    fn play_row(&mut self, i: usize, k: u64, out: &mut dyn SoundSink, ids: &mut NoteIds) {
        let Some(score) = &self.score else {
            return;
        };
        let Some(row) = score.rows.get(i).cloned() else {
            return;
        };
        let master = score.master;
        let step_at = score.grid.step_time(k);
        let hold_end = score.grid.step_time(k + row.hold);
        let distance = self.settings.distance;
        // Where: an offset from the listener, scattered.
        let mut offset = [
            (row.pan_lr - 512.0) / 512.0 * distance,
            (row.pan_fb - 512.0) / 512.0 * distance,
        ];
        if row.scatter > 0.0 {
            for v in &mut offset {
                *v += (self.rng.unit() * 2.0 - 1.0) * row.scatter / 512.0 * distance;
            }
        }
        let position = [self.listener[0] + offset[0], self.listener[1] + offset[1]];
        let (gain_3d, pan) = if row.stereo {
            (1.0, (row.pan_lr / 512.0 - 1.0).clamp(-1.0, 1.0))
        } else {
            self.hear(position)
        };
        if gain_3d <= 0.0 {
            self.news.push(format!(
                "ambience: {} at ({:.1}, {:.1}) is out of earshot ({:.1} tiles, Distance {distance})",
                row.name,
                position[0],
                position[1],
                offset[0].hypot(offset[1])
            ));
            return;
        }
        let Some((file, skipped)) = self.pick(&row) else {
            return;
        };
        let Some(sample) = sample_ref(&file, &self.dirs) else {
            self.news.push(format!(
                "ambience: {} is outside the project's data directories",
                file.display()
            ));
            return;
        };
        let base = (row.volume * master * self.settings.volume).max(0.0);
        let gain = (base * gain_3d).clamp(0.0, 1.0);
        let (lo, hi) = row.pitch;
        let pitch = if (hi - lo).abs() > f32::EPSILON {
            lo + self.rng.unit() * (hi - lo)
        } else {
            lo
        };
        let jitter = if row.jitter_ms > 0 {
            u64::from(self.rng.below(self.ms(row.jitter_ms).saturating_add(1)))
        } else {
            0
        };
        let at = step_at + jitter;
        let note = ids.fresh();
        let fade_in = self.ms(row.fade_in_ms);
        out.send(SoundCommand::Start {
            note,
            voice: usize::MAX,
            at,
            sample,
            gain: if fade_in > 0 { 0.0 } else { gain },
            pan,
            pitch,
            looping: row.looping,
            group: ControlGroup::Fx,
            reverb: true,
        });
        if fade_in > 0 {
            out.send(SoundCommand::SetGain {
                note,
                at,
                gain,
                ramp: fade_in,
            });
        }
        if row.looping {
            let end = hold_end + jitter;
            let fade_out = self.ms(row.fade_out_ms);
            out.send(SoundCommand::SetGain {
                note,
                at: end,
                gain: 0.0,
                ramp: fade_out,
            });
            out.send(SoundCommand::Stop {
                note,
                at: end + u64::from(fade_out),
            });
        }
        if let Some(busy) = self.busy_until.get_mut(i) {
            *busy = k + row.hold;
        }
        self.sounding.insert(
            note,
            Sounding {
                position: (!row.stereo).then_some(position),
                gain: base,
            },
        );
        let name = stem(&file);
        self.recent.push_back(name.clone());
        while self.recent.len() > RECENT_SHOWN {
            self.recent.pop_front();
        }
        let mut line = format!(
            "ambience: {name} at ({:.1}, {:.1}) gain {gain:.2} pan {pan:.2}",
            position[0], position[1]
        );
        if !skipped.is_empty() {
            let names: Vec<String> = skipped.iter().map(|f| stem(f)).collect();
            line.push_str(&format!(" (freshness skipped {})", names.join(", ")));
        }
        self.news.push(line);
    }

    /// Picks a file for a row, avoiding the kind's last `Freshness` picks as far as the
    /// row has alternatives. Returns the file and the recent files it avoided.
    fn pick(&mut self, row: &Row) -> Option<(PathBuf, Vec<PathBuf>)> {
        if row.files.is_empty() {
            return None;
        }
        let freshness = self.settings.freshness;
        let memory = self.memory.entry(row.kind).or_default();
        // Recent picks, newest first, that this row could pick.
        let recent: Vec<PathBuf> = memory
            .iter()
            .rev()
            .take(freshness)
            .filter(|f| row.files.contains(f))
            .cloned()
            .collect();
        let mut avoid = recent.len().min(row.files.len().saturating_sub(1));
        let allowed = loop {
            let avoided = &recent[..avoid];
            let allowed: Vec<&PathBuf> =
                row.files.iter().filter(|f| !avoided.contains(f)).collect();
            if !allowed.is_empty() || avoid == 0 {
                break allowed;
            }
            avoid -= 1;
        };
        let index = self
            .rng
            .below(u32::try_from(allowed.len()).unwrap_or(u32::MAX)) as usize;
        let file = allowed.get(index).map(|f| (*f).clone())?;
        let skipped = recent[..avoid].to_vec();
        memory.push_back(file.clone());
        while memory.len() > freshness.max(1) {
            memory.pop_front();
        }
        Some((file, skipped))
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
            self.news.push("the night loop ended by itself".into());
            ours = true;
        }
        ours
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

/// `19:00`, `6:30`.
fn format_hour(hour: f32) -> String {
    let h = hour.rem_euclid(24.0);
    let minutes = (h * 60.0).round() as u32;
    format!("{:02}:{:02}", (minutes / 60) % 24, minutes % 60)
}

/// A file's stem, for traces.
fn stem(file: &Path) -> String {
    file.file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
}

/// Reads, parses and prepares a score; `None` (with diagnostics) if it cannot be used.
fn load_score(
    file: &Path,
    dirs: &[PathBuf],
    rate: u32,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Score> {
    let bytes = match crate::toolchain::fsrules::ReadRules::within(dirs).read(file) {
        Ok(bytes) => bytes,
        Err(e) => {
            diagnostics.push(Diagnostic::error(
                file,
                0,
                0,
                format!(
                    "cannot read the ambience score: it {}; the ambience plays no score",
                    e.reason()
                ),
            ));
            return None;
        }
    };
    let text = String::from_utf8_lossy(&bytes);
    let (fsc, problems) = FscScore::parse(&text, file);
    let broken_header = fsc.header == FscHeader::default()
        && problems.iter().any(|d| d.severity == Severity::Error);
    diagnostics.extend(problems);
    if broken_header {
        diagnostics.push(Diagnostic::error(
            file,
            0,
            0,
            "the score has no usable header line; the ambience plays no score",
        ));
        return None;
    }
    let header = &fsc.header;
    let tempo = if header.tempo_bpm > 0 {
        header.tempo_bpm
    } else {
        diagnostics.push(Diagnostic::warning(
            file,
            header_line(&text),
            0,
            format!(
                "tempo {} is not positive; {DEFAULT_TEMPO} beats per minute is used",
                header.tempo_bpm
            ),
        ));
        DEFAULT_TEMPO
    };
    let beats = if header.beats_per_bar > 0 {
        header.beats_per_bar
    } else {
        diagnostics.push(Diagnostic::warning(
            file,
            header_line(&text),
            0,
            format!(
                "{} beats per bar is not positive; {DEFAULT_BEATS_PER_BAR} are used",
                header.beats_per_bar
            ),
        ));
        DEFAULT_BEATS_PER_BAR
    };
    let steps = u32::try_from(header.cols)
        .ok()
        .filter(|c| *c > 0)
        .unwrap_or(beats.unsigned_abs());
    let score_dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let lines = row_lines(&text, &fsc);
    let mut rows = Vec::new();
    for (index, (row, line)) in fsc.rows.iter().zip(lines).enumerate() {
        if row.is_rest() {
            continue;
        }
        let files = label_files(&score_dir, &row.filename);
        if files.is_empty() {
            diagnostics.push(Diagnostic::warning(
                file,
                line,
                0,
                format!(
                    "row `{}`: no audio file matches `{}` in {}; the row rests",
                    row.label,
                    row.filename,
                    score_dir.display()
                ),
            ));
            continue;
        }
        let outside: Vec<&PathBuf> = files
            .iter()
            .filter(|f| sample_ref(f, dirs).is_none())
            .collect();
        if let Some(first) = outside.first() {
            diagnostics.push(Diagnostic::warning(
                file,
                line,
                0,
                format!(
                    "row `{}`: {} is outside the project's data directories and cannot play",
                    row.label,
                    first.display()
                ),
            ));
        }
        let pitch = |p: f32| if p > 0.0 && p.is_finite() { p } else { 0.0 };
        let (mut lo, mut hi) = (pitch(row.pitch_low), pitch(row.pitch_high));
        if lo == 0.0 {
            lo = if hi > 0.0 { hi } else { 1.0 };
        }
        if hi == 0.0 {
            hi = lo;
        }
        let lower = row.label.to_ascii_lowercase();
        let ms = |v: i32| u32::try_from(v).unwrap_or(0);
        rows.push(Row {
            name: if row.label.is_empty() {
                row.filename.clone()
            } else {
                row.label.clone()
            },
            files,
            kind: if row.group_id != 0 {
                Kind::Group(row.group_id)
            } else {
                Kind::Row(index)
            },
            group: row.group_id,
            volume: row.volume as f32 / FULL_SCALE as f32,
            pan_lr: row.pan_lr as f32,
            pan_fb: row.pan_fb as f32,
            scatter: row.rand2.max(0) as f32,
            fade_in_ms: ms(row.fade_in),
            fade_out_ms: ms(row.fade_out),
            step: u32::try_from(i64::from(row.delay).rem_euclid(i64::from(steps))).unwrap_or(0),
            every: ms(row.quantise),
            jitter_ms: ms(row.rand3),
            hold: u64::from(ms(row.loop_count)) + 1,
            looping: row.loop_flag != 0,
            probability: row.probability,
            pitch: (lo.min(hi), lo.max(hi)),
            stereo: row.stereo != 0,
            daytime: if lower.starts_with("night") {
                Daytime::Night
            } else if lower.starts_with("day") {
                Daytime::Day
            } else {
                Daytime::Always
            },
        });
    }
    let step_num = u128::from(rate) * 60 * u128::from(beats.unsigned_abs());
    let step_den = u128::from(tempo.unsigned_abs()) * u128::from(steps);
    Some(Score {
        summary: ScoreSummary {
            file: file.to_path_buf(),
            label: header.label.clone(),
            tempo_bpm: tempo,
            beats_per_bar: beats,
            steps_per_bar: steps,
            step_seconds: 60.0 * f64::from(beats) / (f64::from(tempo) * f64::from(steps)),
            rows: rows.len(),
        },
        master: header.master_volume as f32 / FULL_SCALE as f32,
        rows,
        grid: Grid {
            num: step_num,
            den: step_den,
        },
    })
}

/// Fields of a text line, tab-separated, without a trailing `\r`.
fn line_fields(line: &str) -> Vec<&str> {
    line.trim_end_matches('\r').split('\t').collect()
}

/// The 1-based line of the header data line (0 if not found).
fn header_line(text: &str) -> u32 {
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with('#') && !t.to_ascii_lowercase().starts_with("version")
        })
        .map(|(n, _)| u32::try_from(n + 1).unwrap_or(0))
        .next()
        .unwrap_or(0)
}

/// The 1-based line of each parsed row (rows come in file order; 0 if not found).
fn row_lines(text: &str, score: &FscScore) -> Vec<u32> {
    let lines: Vec<&str> = text.lines().collect();
    let mut cursor = usize::try_from(header_line(text)).unwrap_or(0);
    score
        .rows
        .iter()
        .map(|row| {
            let found = lines.iter().enumerate().skip(cursor).find(|(_, l)| {
                let fields = line_fields(l);
                fields.first() == Some(&row.label.as_str())
                    && fields.get(19) == Some(&row.filename.as_str())
            });
            match found {
                Some((n, _)) => {
                    cursor = n + 1;
                    u32::try_from(n + 1).unwrap_or(0)
                }
                None => 0,
            }
        })
        .collect()
}

/// The audio files a sample label names, sorted: the file itself if it exists next to
/// the score; else the files next to it whose stem starts with the label (any case), and
/// every audio file of a sub-directory named like the label.
fn label_files(score_dir: &Path, label: &str) -> Vec<PathBuf> {
    let relative = label.trim().replace('\\', "/");
    if relative.is_empty() {
        return Vec::new();
    }
    let exact = score_dir.join(&relative);
    if exact.is_file() && is_audio(&exact) {
        return vec![exact];
    }
    let path = Path::new(&relative);
    let parent = path
        .parent()
        .map_or_else(|| score_dir.to_path_buf(), |p| score_dir.join(p));
    let prefix = path
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().to_ascii_lowercase());
    if prefix.is_empty() {
        return Vec::new();
    }
    let mut files: Vec<PathBuf> = audio_files(&parent)
        .unwrap_or_default()
        .into_iter()
        .filter(|f| stem(f).to_ascii_lowercase().starts_with(&prefix))
        .collect();
    if let Some(dir_name) = path.file_stem() {
        let sub = parent.join(dir_name);
        if sub.is_dir() {
            files.extend(audio_files(&sub).unwrap_or_default());
        }
    }
    files.sort();
    files.dedup();
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn night_spans_midnight() {
        let s = AmbienceSettings::default();
        assert!(!s.is_night(17.99));
        assert!(s.is_night(18.0));
        assert!(s.is_night(23.5));
        assert!(s.is_night(0.0));
        assert!(s.is_night(5.99));
        assert!(!s.is_night(6.0));
        assert!(s.is_night(24.0 + 2.0));
        let day_night = AmbienceSettings {
            night_start: 1.0,
            night_end: 4.0,
            ..AmbienceSettings::default()
        };
        assert!(day_night.is_night(2.0) && !day_night.is_night(4.0) && !day_night.is_night(23.0));
    }

    #[test]
    fn hours_format_as_clock_times() {
        assert_eq!(format_hour(19.0), "19:00");
        assert_eq!(format_hour(6.5), "06:30");
        assert_eq!(format_hour(24.0), "00:00");
    }

    #[test]
    fn steps_do_not_drift() {
        let score = Grid {
            num: 44_100 * 60 * 3,
            den: 7 * 5,
        };
        for t in [0, 1, 226_799, 226_800, 226_801, 10_000_000] {
            let k = score.first_step_at(t);
            assert!(score.step_time(k) >= t);
            assert!(k == 0 || score.step_time(k - 1) < t);
        }
        // 35 steps = 7 bars of 3 beats at 7 bpm = 3 minutes exactly.
        assert_eq!(score.step_time(35), 44_100 * 180);
    }
}
