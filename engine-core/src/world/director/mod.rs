//! The world director: the lot, the camera, the stations, the music and the ambience,
//! driven together beside the runtime — the part of the HIT sound engine that is not
//! tracks.
//!
//! A [`Session`](crate::host::session::Session) owns one. Every tick it
//! 1. hands the runtime's world requests ([`HookEvent`](crate::runtime::HookEvent):
//!    kTurnOnTV, kTurnOffTV, kSetMusicMode) to the stations and the music,
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
//!
//! The parts: `ticks` runs the world each tick; `console` carries out the console's
//! world commands; `snapshot` is what the workbench and `world` show. Here: loading the
//! world, handing over to a reloaded director, and the news.
//!
//! [`TraceKind::World`]: crate::runtime::trace::TraceKind::World

mod console;
mod error;
mod snapshot;
mod ticks;
mod voices;

pub use error::WorldError;
pub use snapshot::{StationView, WorldView, format_hour};

use super::ambience::{Ambience, AmbienceSettings, AmbienceState};
use super::cache_settings::CacheSettings;
use super::lot::Lot;
use super::lot::doc::LotDocument;
use super::lot::save::SaveLotPolicy;
use super::music::{Music, MusicSettings, MusicState};
use super::server_sounds::ServerSounds;
use super::settings::WorldIni;
use super::sound::NoteIds;
use super::stations::Stations;
use super::view::{Area, Camera, Placement, ViewSettings, place};
use super::voice_settings::VoiceSettings;
use super::{ObjectId, WorldObject};
use crate::runtime::clock::SampleTime;
use crate::runtime::sink::SoundSink;
use crate::runtime::trace::{ScreenArea, ViewLevels, WorldEvent};
use crate::runtime::units::{Gain, Pan};
use crate::runtime::{Engine, EventArgs};
use crate::toolchain::diag::Diagnostic;
use crate::toolchain::project::Project;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Something the director did, for the trace (its kind is the event's:
/// [`WorldEvent::kind`]).
#[derive(Debug, Clone, PartialEq)]
pub struct WorldNews {
    /// The object it concerns.
    pub object: Option<ObjectId>,
    /// What happened.
    pub what: WorldEvent,
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
    /// `[Cache]`: the cache budget and from which priority a note waits for its sample
    /// (the session applies them when it is made).
    pub cache: CacheSettings,
    /// `[Voices]`: the Box-X priority of each kind of world player.
    voice_settings: VoiceSettings,
    /// `[ServerSounds]`: the sound server's own sounds (the session registers them).
    pub server_sounds: ServerSounds,
    /// The ambience lost its voice slot (or got none): it stays off until the next mode.
    ambience_voiceless: bool,
    /// The character the player controls (the session's), whose room sets the reverb.
    active: Option<ObjectId>,
    /// The room the active character was last found in: `Some(None)` in no room of the
    /// lot, `None` not looked at yet.
    active_room: Option<Option<String>>,
    ids: NoteIds,
    diagnostics: Vec<Diagnostic>,
    news: Vec<WorldNews>,
    /// Volume and pan last given to each object's tracks, with the view's reasons.
    sent: BTreeMap<ObjectId, (i32, i32, ViewLevels)>,
    /// Gain and pan last given to each station.
    station_levels: BTreeMap<u32, (Gain, Pan)>,
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
        let (cache, cache_diagnostics) = CacheSettings::from_ini(&ini);
        diagnostics.extend(cache_diagnostics);
        let (voice_settings, voice_diagnostics) = VoiceSettings::from_ini(&ini);
        diagnostics.extend(voice_diagnostics);
        let (server_sounds, sound_diagnostics) = ServerSounds::from_ini(&ini, &project.dirs);
        diagnostics.extend(sound_diagnostics);
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
            cache,
            voice_settings,
            server_sounds,
            ambience_voiceless: false,
            active: None,
            active_room: None,
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

    /// The character the player controls now: the ambience's reverb follows the room
    /// of the lot it is in (checked at every tick).
    pub fn set_active(&mut self, object: Option<ObjectId>) {
        self.active = object;
    }

    /// Sets whether, and where, `savelot` may write (refused until set).
    pub fn set_save_policy(&mut self, policy: SaveLotPolicy) {
        self.save_policy = policy;
    }

    /// Fades out everything the world plays (stations, music, ambience) and gives their
    /// voice slots back, before a new director built from changed files takes over.
    pub fn shutdown(&mut self, engine: &mut Engine, now: SampleTime, out: &mut dyn SoundSink) {
        self.stations.all_off(now, out);
        self.music.silence(now, out);
        self.ambience.set_enabled(false, now, out, &mut self.ids);
        for who in engine.world_voices() {
            engine.release_world_voice(who);
        }
    }

    /// `[Voices]`: each kind of world player's priority.
    pub fn voice_settings(&self) -> &VoiceSettings {
        &self.voice_settings
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
            args.view = Some(view_levels(&p, &self.camera(), &self.view));
        }
        args
    }

    /// Takes what happened since the last call.
    pub fn take_news(&mut self) -> Vec<WorldNews> {
        for what in self.music.take_news() {
            self.say(None, WorldEvent::Music(what));
        }
        for news in self.stations.take_news() {
            let what = WorldEvent::Station {
                code: news.code,
                what: news.what,
            };
            self.say(None, what);
        }
        for what in self.ambience.take_news() {
            self.say(None, WorldEvent::Ambience(what));
        }
        std::mem::take(&mut self.news)
    }

    fn say(&mut self, object: Option<ObjectId>, what: WorldEvent) {
        self.news.push(WorldNews { object, what });
    }
}

/// What a placement tells the runtime about an object's volume and pan: the view's
/// factors and the screen position (non-finite numbers, which no lot gives, as 0).
pub fn view_levels(p: &Placement, camera: &Camera, settings: &ViewSettings) -> ViewLevels {
    let finite = |v: f32| if v.is_finite() { v } else { 0.0 };
    ViewLevels {
        area: match p.why.area {
            Area::Inside => ScreenArea::Inside,
            Area::Fading => ScreenArea::Fading,
            Area::Silent => ScreenArea::Silent,
            Area::Exempt => ScreenArea::Exempt,
        },
        fade: Gain::new(p.why.fade),
        zoom: Gain::new(p.why.zoom),
        floor: Gain::new(p.why.floor),
        screen_x: finite(p.screen[0]),
        screen_width: finite(camera.screen_size()[0]),
        pan_range: finite(settings.pan_range.clamp(0.0, 1.0)),
    }
}
