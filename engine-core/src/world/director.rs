//! The world director: the lot, the camera, the stations, the music and the ambience,
//! driven together beside the runtime — the part of the seed's sound engine that is not
//! tracks.
//!
//! A [`Session`](crate::host::session::Session) owns one. Every tick it
//! 1. hands the runtime's world requests ([`HookEvent`]: kTurnOnTV, kTurnOffTV,
//!    kSetMusicMode) to the stations and the music,
//! 2. routes world notes that ended (the server's `take_ended`) to whoever played them,
//!    so a station's next item or the next song starts,
//! 3. lets the ambience schedule the freshness score for the tick,
//! 4. recomputes volume and pan of every object from its place on screen when the view
//!    or an object changed (`NotifyViewChange`): tracks an object plays follow it
//!    ([`Engine::update_source`]), stations follow the weighted mix of their receivers,
//! 5. says what it did as trace records of kind [`TraceKind::World`].
//!
//! The console's world commands (`view`, `scroll`, `zoom`, `rotate`, `floor`, `hour`,
//! `mode`, `move`, `room`, `turnon`, `turnoff`, `world`, `savelot`) act through
//! [`WorldDirector::execute`]. Everything runs on sample time: an offline render with the
//! same seed and script gives the same file.

use super::ambience::{Ambience, AmbienceSettings, AmbienceState};
use super::commands::{Turn, WorldCommand, ZoomStep};
use super::lot::Lot;
use super::lot_doc::LotDocument;
use super::lot_save::{SaveLotError, SaveLotPolicy, resolve_target, write_atomically};
use super::music::{Music, MusicMode, MusicSettings, MusicState};
use super::settings::WorldIni;
use super::sound::NoteIds;
use super::stations::Stations;
use super::view::{Camera, Placement, ViewSettings, ZOOM_FAR, ZOOM_NEAR, place, station_mix};
use super::{ObjectId, ObjectKind, WorldObject};
use crate::runtime::clock::SampleTime;
use crate::runtime::sink::{NoteId, SoundSink};
use crate::runtime::{Engine, EventArgs, HookEvent, TraceKind};
use crate::toolchain::diag::{Diagnostic, Severity};
use crate::toolchain::project::Project;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Something the director did, for the trace.
#[derive(Debug, Clone, PartialEq)]
pub struct WorldNews {
    /// World news, or an error.
    pub kind: TraceKind,
    /// The object it concerns.
    pub object: Option<ObjectId>,
    /// What happened.
    pub message: String,
}

/// One station as the workbench shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct StationView {
    /// Its code.
    pub code: u32,
    /// Its name (the directory's).
    pub name: String,
    /// The receivers tuned to it and on.
    pub receivers: Vec<ObjectId>,
    /// The file on air and the list it came from.
    pub on_air: Option<(PathBuf, String)>,
    /// Linear gain and pan (−1…1) it plays at.
    pub level: (f32, f32),
}

/// The world as the workbench shows it: plain data, built once per snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct WorldView {
    /// The camera.
    pub camera: Camera,
    /// The `[View]` settings (to draw the full-volume area and the fade band).
    pub settings: ViewSettings,
    /// Hour of day.
    pub hour: f32,
    /// Room size around the active character, in tiles.
    pub room: f32,
    /// Every object with its placement (volume, pan and why).
    pub objects: Vec<(WorldObject, Placement)>,
    /// The stations.
    pub stations: Vec<StationView>,
    /// The music.
    pub music: MusicState,
    /// The ambience.
    pub ambience: AmbienceState,
    /// The lot file, if the project names one.
    pub lot_file: Option<PathBuf>,
}

impl Default for WorldView {
    fn default() -> Self {
        Self {
            camera: Camera::default(),
            settings: ViewSettings::default(),
            hour: 12.0,
            room: 0.0,
            objects: Vec::new(),
            stations: Vec::new(),
            music: MusicState {
                mode: MusicMode::Live,
                song: None,
                load_loop: None,
                river: None,
                dying: 0,
                waiting: false,
            },
            ambience: AmbienceState::default(),
            lot_file: None,
        }
    }
}

/// What decides an object's placement and its station: ID, position, floor, station, on.
type Whereabouts = (ObjectId, [f32; 2], i32, Option<u32>, bool);

/// The lot, the view and the world's players.
pub struct WorldDirector {
    /// The lot: camera, hour, mode, room size, controlled character. Its objects are a
    /// copy made when it was loaded; the live objects are the engine's
    /// ([`Engine::world`]) and are copied back on save.
    pub lot: Lot,
    lot_file: Option<PathBuf>,
    view: ViewSettings,
    stations: Stations,
    music: Music,
    ambience: Ambience,
    ids: NoteIds,
    diagnostics: Vec<Diagnostic>,
    news: Vec<WorldNews>,
    /// Volume and pan last given to each object's tracks.
    sent: BTreeMap<ObjectId, (i32, i32)>,
    /// Gain and pan last given to each station.
    station_levels: BTreeMap<u32, (f32, f32)>,
    /// Objects as last placed (to notice a move or a field change).
    placed_world: Vec<Whereabouts>,
    view_changed: bool,
    started: bool,
    /// The text of the lot as this director last saved it (its own save is not a change).
    saved_lot: Option<String>,
    /// The lot file as read (or last saved), so a save rewrites only what changed.
    lot_document: Option<LotDocument>,
    /// Whether, and where, `savelot` may write.
    save_policy: SaveLotPolicy,
}

impl WorldDirector {
    /// Reads the project's world: `world.ini` of every data directory (later ones win),
    /// the lot file it names, the stations, music lists and ambience. Every problem is a
    /// diagnostic with file and line ([`WorldDirector::diagnostics`]); what is broken is
    /// left out and the rest works.
    pub fn load(project: &Project, sample_rate: u32, seed: u64) -> Self {
        let (ini, mut diagnostics) = WorldIni::load(&project.dirs);
        let view = ViewSettings::from_ini(&ini, &mut diagnostics);
        let lot_file = Lot::file_in_settings(&ini, &mut diagnostics);
        let (lot, lot_document) = match &lot_file {
            Some(path) => {
                let (lot, document, lot_diagnostics) = Lot::load_document(path);
                diagnostics.extend(lot_diagnostics);
                (lot, document)
            }
            None => (Lot::default(), None),
        };
        let (stations, station_diagnostics) = Stations::new(&ini, &project.dirs, seed, sample_rate);
        diagnostics.extend(station_diagnostics);
        let (music_settings, music_diagnostics) = MusicSettings::from_ini(&ini, &project.dirs);
        diagnostics.extend(music_diagnostics);
        let music = Music::new(music_settings, &project.dirs, seed, sample_rate);
        let (ambience_settings, ambience_diagnostics) = AmbienceSettings::from_ini(&ini);
        diagnostics.extend(ambience_diagnostics);
        let (ambience, ambience_diagnostics) =
            Ambience::new(ambience_settings, &project.dirs, seed, sample_rate);
        diagnostics.extend(ambience_diagnostics);
        Self {
            lot,
            lot_file,
            view,
            stations,
            music,
            ambience,
            ids: NoteIds::default(),
            diagnostics,
            news: Vec::new(),
            sent: BTreeMap::new(),
            station_levels: BTreeMap::new(),
            placed_world: Vec::new(),
            view_changed: true,
            started: false,
            saved_lot: None,
            lot_document,
            save_policy: SaveLotPolicy::default(),
        }
    }

    /// Sets whether, and where, `savelot` may write (refused until set).
    pub fn set_save_policy(&mut self, policy: SaveLotPolicy) {
        self.save_policy = policy;
    }

    /// Fades out everything the world plays (stations, music, ambience), before a new
    /// director built from changed files takes over.
    pub fn shutdown(&mut self, now: SampleTime, out: &mut dyn SoundSink) {
        self.stations.all_off(now, out);
        self.music.silence(now, out);
        self.ambience.set_enabled(false, now, out, &mut self.ids);
    }

    /// Carries over from the director this one replaces: its note IDs (its notes are
    /// still fading out) and, unless the lot file itself was read again, the lot as it
    /// is now (camera, hour, mode, room). The objects stay the engine's.
    pub fn take_over(&mut self, old: WorldDirector, keep_lot: bool) {
        self.ids = old.ids;
        self.save_policy = old.save_policy;
        if keep_lot {
            self.lot = old.lot;
            self.saved_lot = old.saved_lot;
            self.lot_document = old.lot_document;
        }
    }

    /// True if the lot file on disk is what this director saved last (so a watcher
    /// seeing the save is not a change to read back).
    pub fn lot_file_is_our_save(&self) -> bool {
        let (Some(path), Some(saved)) = (&self.lot_file, &self.saved_lot) else {
            return false;
        };
        std::fs::read_to_string(path).is_ok_and(|text| &text == saved)
    }

    /// Problems found reading `world.ini`, the lot, the score.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The lot file `world.ini` names, if any.
    pub fn lot_file(&self) -> Option<&Path> {
        self.lot_file.as_deref()
    }

    /// The `[View]` settings.
    pub fn view_settings(&self) -> &ViewSettings {
        &self.view
    }

    /// The camera, on the lot's screen (or the settings' screen).
    pub fn camera(&self) -> Camera {
        self.lot.camera(&self.view)
    }

    /// The stations.
    pub fn stations(&self) -> &Stations {
        &self.stations
    }

    /// The music player's state.
    pub fn music(&self) -> MusicState {
        self.music.state()
    }

    /// The ambience's state.
    pub fn ambience(&self) -> AmbienceState {
        self.ambience.describe()
    }

    /// The room reverb level the mixer should use now (0 outside a small room).
    pub fn reverb_level(&self) -> f32 {
        self.ambience.reverb_level()
    }

    /// Puts the lot's objects into the engine's world (what `getsrcdatafield` reads)
    /// and returns the lot's controlled character.
    pub fn install(&mut self, engine: &mut Engine) -> Option<ObjectId> {
        *engine.world_mut() = self.lot.objects.clone();
        self.view_changed = true;
        self.lot.controlled
    }

    /// Where `object` is in the view and how it sounds from there.
    pub fn placement(&self, engine: &Engine, object: ObjectId) -> Option<Placement> {
        let object = engine.world().get(object)?;
        Some(place(object, &self.camera(), &self.view))
    }

    /// Every object with its placement, by ID.
    pub fn placements(&self, engine: &Engine) -> Vec<(WorldObject, Placement)> {
        let camera = self.camera();
        engine
            .world()
            .objects()
            .map(|o| (o.clone(), place(o, &camera, &self.view)))
            .collect()
    }

    /// The event arguments a sound from `source` starts with: volume and pan from where
    /// it is on screen (defaults for an object that is not on the lot).
    pub fn event_args(&self, engine: &Engine, source: Option<ObjectId>) -> EventArgs {
        let mut args = EventArgs::default();
        if let Some(p) = source.and_then(|id| self.placement(engine, id)) {
            args.volume = p.volume;
            args.pan = p.pan;
        }
        args
    }

    /// The world as the workbench shows it.
    pub fn view(&self, engine: &Engine) -> WorldView {
        WorldView {
            camera: self.camera(),
            settings: self.view,
            hour: self.lot.hour,
            room: self.lot.room_size,
            objects: self.placements(engine),
            stations: self
                .stations
                .all()
                .map(|s| StationView {
                    code: s.def.code,
                    name: s.def.name(),
                    receivers: s.receivers.iter().copied().collect(),
                    on_air: s.on_air.as_ref().map(|o| (o.file.clone(), o.list.clone())),
                    level: s.level,
                })
                .collect(),
            music: self.music.state(),
            ambience: self.ambience.describe(),
            lot_file: self.lot_file.clone(),
        }
    }

    /// Takes what happened since the last call.
    pub fn take_news(&mut self) -> Vec<WorldNews> {
        for message in self.music.take_news() {
            self.news.push(WorldNews {
                kind: TraceKind::World,
                object: None,
                message,
            });
        }
        for news in self.stations.take_news() {
            self.news.push(WorldNews {
                kind: if news.error {
                    TraceKind::Error
                } else {
                    TraceKind::World
                },
                object: None,
                message: format!("station {}: {}", news.code, news.message),
            });
        }
        for message in self.ambience.take_news() {
            self.news.push(WorldNews {
                kind: TraceKind::World,
                object: None,
                message,
            });
        }
        std::mem::take(&mut self.news)
    }

    fn say(&mut self, object: Option<ObjectId>, message: String) {
        self.news.push(WorldNews {
            kind: TraceKind::World,
            object,
            message,
        });
    }

    fn fail(&mut self, object: Option<ObjectId>, message: String) {
        self.news.push(WorldNews {
            kind: TraceKind::Error,
            object,
            message,
        });
    }

    /// The hour the ambience hears: the lot's, or noon in a mode that is always day.
    fn ambience_hour(&self) -> f32 {
        if self.music.mode().plan().daytime {
            12.0
        } else {
            self.lot.hour
        }
    }

    fn apply_mode(&mut self, mode: MusicMode, now: SampleTime, out: &mut dyn SoundSink) {
        self.music.set_mode(mode, now, out, &mut self.ids);
        self.lot.mode = mode.name().to_string();
        let plan = mode.plan();
        self.ambience
            .set_enabled(plan.ambience, now, out, &mut self.ids);
        let hour = self.ambience_hour();
        self.ambience.set_hour(hour, now, out, &mut self.ids);
    }

    /// Starts what the lot says at the first tick: the music mode, the hour, the room.
    fn begin(&mut self, engine: &Engine, now: SampleTime, out: &mut dyn SoundSink) {
        self.started = true;
        for d in &self.diagnostics {
            let kind = if d.severity == Severity::Error {
                TraceKind::Error
            } else {
                TraceKind::World
            };
            self.news.push(WorldNews {
                kind,
                object: None,
                message: d.to_string(),
            });
        }
        self.ambience.set_room(self.lot.room_size);
        self.ambience.set_listener(self.lot.camera.centre);
        let mode = MusicMode::by_name(&self.lot.mode).unwrap_or(MusicMode::Live);
        if mode == MusicMode::Live {
            // Live is where the player starts: the ambience runs, the hour counts.
            let plan = mode.plan();
            self.ambience
                .set_enabled(plan.ambience, now, out, &mut self.ids);
            let hour = self.ambience_hour();
            self.ambience.set_hour(hour, now, out, &mut self.ids);
        } else {
            self.apply_mode(mode, now, out);
        }
        // Receivers the lot says are on start their stations.
        let tuned: Vec<(ObjectId, u32)> = engine
            .world()
            .objects()
            .filter_map(|o| o.tuned_station().map(|s| (o.id, s)))
            .collect();
        for (object, station) in tuned {
            if let Err(e) = self
                .stations
                .turn_on(station, object, now, out, &mut self.ids)
            {
                self.fail(Some(object), format!("lot: object {object}: {e}"));
            }
        }
        self.say(
            None,
            format!(
                "world: {} object(s), hour {}, mode {}, camera at ({}, {}) zoom {}",
                engine.world().len(),
                self.lot.hour,
                self.music.mode(),
                self.lot.camera.centre[0],
                self.lot.camera.centre[1],
                self.lot.camera.zoom
            ),
        );
    }

    /// One tick, `from` to `until` (sample time): world requests, ended notes, the
    /// ambience, the view (see the module documentation).
    pub fn tick(
        &mut self,
        engine: &mut Engine,
        ended: &[NoteId],
        from: SampleTime,
        until: SampleTime,
        out: &mut dyn SoundSink,
    ) {
        if !self.started {
            self.begin(engine, from, out);
        }
        for hook in engine.take_hooks() {
            self.hook(engine, hook, from, out);
        }
        for &note in ended {
            let ids = &mut self.ids;
            let _ = self.stations.note_ended(note, from, out, ids)
                || self.music.note_ended(note, from, out, ids)
                || self.ambience.note_ended(note, from, out, ids);
        }
        self.ambience.set_listener(self.lot.camera.centre);
        self.ambience.update(from, until, out, &mut self.ids);
        self.follow_view(engine, from, out);
    }

    /// A request from the runtime.
    fn hook(
        &mut self,
        engine: &mut Engine,
        hook: HookEvent,
        now: SampleTime,
        out: &mut dyn SoundSink,
    ) {
        match hook {
            HookEvent::TurnOn {
                event,
                station,
                object,
            } => {
                let Some(object) = object else {
                    self.fail(
                        None,
                        format!(
                            "`{event}` (kTurnOnTV) has no source object: a station needs a receiver"
                        ),
                    );
                    return;
                };
                // A failure is already in the news.
                if let Ok(message) = self.turn_on(engine, object, station, now, out, &event) {
                    self.say(Some(object), format!("{event}: {message}"));
                }
            }
            HookEvent::TurnOff {
                event,
                station,
                object,
            } => {
                let Some(object) = object else {
                    self.fail(None, format!("`{event}` (kTurnOffTV) has no source object"));
                    return;
                };
                match self.turn_off(engine, object, Some(station), now, out) {
                    Ok(message) => self.say(Some(object), format!("{event}: {message}")),
                    Err(e) => self.fail(Some(object), format!("{event}: {e}")),
                }
            }
            HookEvent::MusicMode { event, mode } => match MusicMode::from_number(mode) {
                Some(mode) => self.apply_mode(mode, now, out),
                None => self.fail(
                    None,
                    format!("`{event}`: {mode} is not a music mode (0 live … 8 family)"),
                ),
            },
        }
    }

    fn turn_on(
        &mut self,
        engine: &mut Engine,
        object: ObjectId,
        station: u32,
        now: SampleTime,
        out: &mut dyn SoundSink,
        why: &str,
    ) -> Result<String, String> {
        let kind = match engine.world().get(object) {
            Some(o) => o.kind,
            None => {
                let message = format!("{why}: there is no object {object} on the lot");
                self.fail(Some(object), message.clone());
                return Err(message);
            }
        };
        if !kind.can_receive() {
            let message = format!(
                "{why}: object {object} is a {kind}, not a receiver (a TV, radio, stereo or generic object); nothing was tuned"
            );
            self.fail(Some(object), message.clone());
            return Err(message);
        }
        if let Err(e) = self
            .stations
            .turn_on(station, object, now, out, &mut self.ids)
        {
            let message = format!("{why}: {e}");
            self.fail(Some(object), message.clone());
            return Err(message);
        }
        if let Some(o) = engine.world_mut().get_mut(object) {
            o.station = Some(station);
            o.on = true;
        }
        self.follow_view(engine, now, out);
        let name = self
            .stations
            .get(station)
            .map_or_else(|| station.to_string(), |s| s.def.name());
        Ok(format!("object {object} is on `{name}`"))
    }

    fn turn_off(
        &mut self,
        engine: &mut Engine,
        object: ObjectId,
        station: Option<u32>,
        now: SampleTime,
        out: &mut dyn SoundSink,
    ) -> Result<String, String> {
        let Some(code) = station.or_else(|| self.stations.tuned(object)) else {
            return Err(format!("object {object} is not playing a station"));
        };
        self.stations.turn_off(code, object, now, out);
        if let Some(o) = engine.world_mut().get_mut(object) {
            o.on = false;
        }
        self.follow_view(engine, now, out);
        Ok(format!("object {object} turned off"))
    }

    /// `NotifyViewChange`: if the view or an object moved, every object's tracks and
    /// every station get their new volume and pan (ramped by the mixer).
    fn follow_view(&mut self, engine: &mut Engine, now: SampleTime, out: &mut dyn SoundSink) {
        let world: Vec<_> = engine
            .world()
            .objects()
            .map(|o| (o.id, o.position, o.level, o.station, o.on))
            .collect();
        if !self.view_changed && world == self.placed_world {
            return;
        }
        self.view_changed = false;
        self.placed_world = world;
        let camera = self.camera();
        let placed: Vec<(ObjectId, Placement)> = engine
            .world()
            .objects()
            .map(|o| (o.id, place(o, &camera, &self.view)))
            .collect();
        for (id, p) in placed {
            if self.sent.get(&id) != Some(&(p.volume, p.pan)) {
                self.sent.insert(id, (p.volume, p.pan));
                engine.update_source(id, p.volume, p.pan);
            }
        }
        let codes: Vec<u32> = self.stations.all().map(|s| s.def.code).collect();
        for code in codes {
            let mix = station_mix(engine.world(), code, &camera, &self.view);
            let level = (mix.gain(), mix.pan_unit());
            if self.station_levels.get(&code) != Some(&level) {
                self.station_levels.insert(code, level);
                self.stations.set_level(code, level.0, level.1, now, out);
            }
        }
    }

    /// Copies the engine's objects into the lot and writes it to `path` (relative to the
    /// project's folder) or the lot file `world.ini` names, if the save policy allows that
    /// file ([`resolve_target`]). The file the lot was read from keeps its comments,
    /// layout and unparsed lines: only changed lines are rewritten ([`LotDocument`]).
    /// Returns the file written.
    pub fn save_lot(
        &mut self,
        engine: &Engine,
        controlled: Option<ObjectId>,
        path: Option<&Path>,
    ) -> Result<PathBuf, String> {
        if self.save_policy == SaveLotPolicy::Denied {
            return Err(SaveLotError::Denied.to_string());
        }
        let Some(path) = path
            .map(Path::to_path_buf)
            .or_else(|| self.lot_file.clone())
        else {
            return Err("this project names no lot file ([Lot] File = … in world.ini); give one: `savelot <file>`".into());
        };
        let project = engine.project();
        let target = resolve_target(self.save_policy, &path, project.root(), &project.dirs)
            .map_err(|e| e.to_string())?;
        let own_file = self
            .lot_file
            .as_ref()
            .and_then(|f| f.canonicalize().ok())
            .is_some_and(|f| f == target);
        if own_file
            && self
                .lot_document
                .as_ref()
                .is_some_and(LotDocument::is_lossy)
        {
            return Err(SaveLotError::NotUtf8 { path: target }.to_string());
        }
        self.lot.objects = engine.world().clone();
        self.lot.controlled = controlled;
        let text = match &self.lot_document {
            Some(document) => document.text_for(&self.lot),
            None => self.lot.to_text(),
        };
        write_atomically(&target, text.as_bytes()).map_err(|source| {
            SaveLotError::Io {
                path: target.clone(),
                source,
            }
            .to_string()
        })?;
        if own_file {
            let (_, document, _) = Lot::parse_document(&text, &target);
            self.lot_document = Some(document);
            self.saved_lot = Some(text);
        }
        Ok(target)
    }

    /// Runs a world command of the console.
    pub fn execute(
        &mut self,
        command: &WorldCommand,
        engine: &mut Engine,
        controlled: Option<ObjectId>,
        out: &mut dyn SoundSink,
    ) -> Result<String, String> {
        let now = engine.now();
        if !self.started {
            self.begin(engine, now, out);
        }
        let reply = match command {
            WorldCommand::View { x, y } => {
                self.lot.camera.centre = [*x, *y];
                self.view_changed = true;
                format!("camera at ({x}, {y})")
            }
            WorldCommand::Scroll { dx, dy } => {
                let camera = self.camera().scrolled(&self.view, [*dx, *dy]);
                self.lot.camera.centre = camera.centre;
                self.view_changed = true;
                format!(
                    "scrolled by ({dx}, {dy}) px: camera at ({:.2}, {:.2})",
                    camera.centre[0], camera.centre[1]
                )
            }
            WorldCommand::Zoom(step) => {
                let zoom = match step {
                    ZoomStep::In => self.lot.camera.zoom.saturating_sub(1),
                    ZoomStep::Out => self.lot.camera.zoom.saturating_add(1),
                    ZoomStep::Level(level) => *level,
                }
                .clamp(ZOOM_NEAR, ZOOM_FAR);
                self.lot.camera.zoom = zoom;
                self.view_changed = true;
                format!("zoom {zoom} (1 near … 3 far)")
            }
            WorldCommand::Rotate(turn) => {
                let r = i32::from(self.lot.camera.rotation);
                let rotation = match turn {
                    Turn::Left => r + 3,
                    Turn::Right => r + 1,
                    Turn::To(to) => i32::from(*to),
                }
                .rem_euclid(4);
                self.lot.camera.rotation = u8::try_from(rotation).unwrap_or(0);
                self.view_changed = true;
                format!("rotation {rotation} (quarter turns)")
            }
            WorldCommand::Floor(level) => {
                self.lot.camera.level = *level;
                self.view_changed = true;
                format!("camera on floor {level}")
            }
            WorldCommand::Hour(hour) => {
                self.lot.hour = *hour;
                let effective = self.ambience_hour();
                self.ambience.set_hour(effective, now, out, &mut self.ids);
                let state = self.ambience.describe();
                format!(
                    "hour {} ({})",
                    format_hour(*hour),
                    if state.night { "night" } else { "day" }
                )
            }
            WorldCommand::Mode(mode) => {
                self.apply_mode(*mode, now, out);
                format!("music mode {mode}")
            }
            WorldCommand::Move {
                object,
                x,
                y,
                floor,
            } => {
                let Some(o) = engine.world_mut().get_mut(*object) else {
                    return Err(format!("there is no object {object} on the lot"));
                };
                o.position = [*x, *y];
                if let Some(level) = floor {
                    o.level = *level;
                }
                format!("object {object} at ({x}, {y}) floor {}", o.level)
            }
            WorldCommand::Room(tiles) => {
                self.lot.room_size = *tiles;
                self.ambience.set_room(*tiles);
                let reverb = self.ambience.reverb_level();
                format!(
                    "room of {tiles} tiles: {}",
                    if reverb > 0.0 {
                        format!("small, ambience reverb {reverb:.2}")
                    } else {
                        "no reverb".to_string()
                    }
                )
            }
            WorldCommand::TurnOn { object, station } => {
                return self.turn_on(engine, *object, *station, now, out, "turnon");
            }
            WorldCommand::TurnOff { object } => {
                return self.turn_off(engine, *object, None, now, out);
            }
            WorldCommand::Describe => self.describe(engine),
            WorldCommand::SaveLot(path) => {
                let path = self.save_lot(engine, controlled, path.as_deref())?;
                format!("lot saved to {}", path.display())
            }
        };
        self.follow_view(engine, now, out);
        self.say(None, reply.clone());
        Ok(reply)
    }

    /// A few lines on the world: camera, hour, music, ambience, stations, objects with
    /// their volume and pan and why.
    pub fn describe(&self, engine: &Engine) -> String {
        let mut s = String::new();
        let c = self.camera();
        let _ = writeln!(
            s,
            "camera ({:.2}, {:.2}) zoom {} rotation {} floor {}; hour {}; room {} tiles",
            c.centre[0],
            c.centre[1],
            c.zoom,
            c.rotation,
            c.level,
            format_hour(self.lot.hour),
            self.lot.room_size
        );
        let music = self.music.state();
        let _ = writeln!(
            s,
            "music: mode {}, {}",
            music.mode,
            music.song.as_ref().map_or_else(
                || "no song".to_string(),
                |song| format!(
                    "{}{}",
                    song.file
                        .file_name()
                        .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
                    if song.parked { " (parked)" } else { "" }
                )
            )
        );
        let a = self.ambience.describe();
        let _ = writeln!(
            s,
            "ambience: {}, {}, night loop {}, reverb {:.2}",
            if a.enabled { "on" } else { "off" },
            if a.night { "night" } else { "day" },
            if a.night_loop_playing {
                "playing"
            } else {
                "silent"
            },
            a.reverb
        );
        for station in self.stations.all() {
            let _ = writeln!(
                s,
                "station {} `{}`: {} receiver(s), {}",
                station.def.code,
                station.def.name(),
                station.receivers.len(),
                station.on_air.as_ref().map_or_else(
                    || "off air".to_string(),
                    |on| format!(
                        "playing {} ({})",
                        on.file
                            .file_name()
                            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
                        on.list
                    )
                )
            );
        }
        for (o, p) in self.placements(engine) {
            let _ = writeln!(
                s,
                "{:>3} {:<7} {:<16} vol {:>4} pan {:>4}  {} fade {:.2} zoom {:.2} floor {:.2}{}",
                o.id,
                o.kind.to_string(),
                o.name,
                p.volume,
                p.pan,
                p.why.area,
                p.why.fade,
                p.why.zoom,
                p.why.floor,
                if o.kind == ObjectKind::Stereo || o.on {
                    o.station
                        .map(|st| format!(", station {st}{}", if o.on { " on" } else { "" }))
                        .unwrap_or_default()
                } else {
                    String::new()
                }
            );
        }
        s.trim_end().to_string()
    }
}

/// `14.5` as `14:30`.
pub fn format_hour(hour: f32) -> String {
    let minutes = (f64::from(hour.rem_euclid(24.0)) * 60.0).round() as u32;
    format!("{:02}:{:02}", (minutes / 60) % 24, minutes % 60)
}
