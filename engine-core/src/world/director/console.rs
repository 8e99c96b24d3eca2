//! The console's world commands: the camera, the hour, the music mode, moving objects,
//! the room, turning receivers on and off, describing the world and saving the lot.

use super::{WorldDirector, WorldError};
use crate::runtime::Engine;
use crate::runtime::clock::SampleTime;
use crate::runtime::sink::SoundSink;
use crate::runtime::trace::{WorldEvent, WorldReply};
use crate::runtime::voices::WorldVoice;
use crate::world::ObjectId;
use crate::world::commands::{Turn, WorldCommand, ZoomStep};
use crate::world::lot::Lot;
use crate::world::lot::doc::LotDocument;
use crate::world::lot::save::{SaveLotError, SaveLotPolicy, resolve_target, write_atomically};
use crate::world::view::{ZOOM_FAR, ZOOM_NEAR};
use std::path::{Path, PathBuf};

impl WorldDirector {
    /// Runs a world command of the console; the reply is a line for the console.
    pub fn execute(
        &mut self,
        command: &WorldCommand,
        engine: &mut Engine,
        controlled: Option<ObjectId>,
        out: &mut dyn SoundSink,
    ) -> Result<String, WorldError> {
        let now = engine.now();
        if !self.started {
            self.begin(engine, now, out);
        }
        let reply = match command {
            WorldCommand::View { x, y } => self.centre_camera(*x, *y),
            WorldCommand::Scroll { dx, dy } => self.scroll_camera(*dx, *dy),
            WorldCommand::Zoom(step) => self.zoom_camera(*step),
            WorldCommand::Rotate(turn) => self.rotate_camera(*turn),
            WorldCommand::Floor(level) => self.show_floor(*level),
            WorldCommand::Hour(hour) => self.set_hour(*hour, now, out),
            WorldCommand::Mode(mode) => {
                self.apply_mode(*mode, engine, now, out);
                WorldReply::Mode(*mode)
            }
            WorldCommand::Move {
                object,
                x,
                y,
                floor,
            } => move_object(engine, *object, *x, *y, *floor)?,
            WorldCommand::Room(tiles) => self.set_room(*tiles),
            WorldCommand::TurnOn { object, station } => {
                let reply = self.turn_on(engine, *object, *station, now, out, "turnon")?;
                return Ok(reply.to_string());
            }
            WorldCommand::TurnOff { object } => {
                let reply = self.turn_off(engine, *object, None, now, out)?;
                return Ok(reply.to_string());
            }
            WorldCommand::Select(_) | WorldCommand::Sound { .. } => {
                return Err(WorldError::ServerSound);
            }
            WorldCommand::Describe => WorldReply::Described {
                text: self.describe(engine),
            },
            WorldCommand::SaveLot(path) => WorldReply::LotSaved {
                path: self.save_lot(engine, controlled, path.as_deref())?,
            },
        };
        self.follow_view(engine, now, out);
        let text = reply.to_string();
        self.say(None, WorldEvent::Command(reply));
        Ok(text)
    }

    /// `view x y`: centres the camera on a lot tile.
    fn centre_camera(&mut self, x: f32, y: f32) -> WorldReply {
        self.lot.camera.centre = [x, y];
        self.view_changed = true;
        WorldReply::CameraAt { centre: [x, y] }
    }

    /// `scroll dx dy`: scrolls the view by pixels.
    fn scroll_camera(&mut self, dx: f32, dy: f32) -> WorldReply {
        let camera = self.camera().scrolled(&self.view, [dx, dy]);
        self.lot.camera.centre = camera.centre;
        self.view_changed = true;
        WorldReply::Scrolled {
            by: [dx, dy],
            centre: camera.centre,
        }
    }

    /// `zoom in|out|1…3`.
    fn zoom_camera(&mut self, step: ZoomStep) -> WorldReply {
        let zoom = match step {
            ZoomStep::In => self.lot.camera.zoom.saturating_sub(1),
            ZoomStep::Out => self.lot.camera.zoom.saturating_add(1),
            ZoomStep::Level(level) => level,
        }
        .clamp(ZOOM_NEAR, ZOOM_FAR);
        self.lot.camera.zoom = zoom;
        self.view_changed = true;
        WorldReply::Zoom { level: zoom }
    }

    /// `rotate left|right|0…3`.
    fn rotate_camera(&mut self, turn: Turn) -> WorldReply {
        let r = i32::from(self.lot.camera.rotation);
        let rotation = match turn {
            Turn::Left => r + 3,
            Turn::Right => r + 1,
            Turn::To(to) => i32::from(to),
        }
        .rem_euclid(4);
        self.lot.camera.rotation = u8::try_from(rotation).unwrap_or(0);
        self.view_changed = true;
        WorldReply::Rotation {
            quarter_turns: self.lot.camera.rotation,
        }
    }

    /// `floor n`: shows another floor.
    fn show_floor(&mut self, level: i32) -> WorldReply {
        self.lot.camera.level = level;
        self.view_changed = true;
        WorldReply::Floor { level }
    }

    /// `hour h`: the lot's hour; the ambience hears it (or noon in an always-day mode).
    fn set_hour(&mut self, hour: f32, now: SampleTime, out: &mut dyn SoundSink) -> WorldReply {
        self.lot.hour = hour;
        let effective = self.ambience_hour();
        self.ambience.set_hour(effective, now, out, &mut self.ids);
        let night = self.ambience.describe().night;
        WorldReply::Hour { hour, night }
    }

    /// `room tiles`: the size of the room around the active character (its reverb).
    fn set_room(&mut self, tiles: f32) -> WorldReply {
        self.lot.room_size = tiles;
        self.ambience.set_room(tiles);
        WorldReply::Room {
            tiles,
            reverb: self.ambience.reverb_level(),
        }
    }

    pub(super) fn turn_on(
        &mut self,
        engine: &mut Engine,
        object: ObjectId,
        station: u32,
        now: SampleTime,
        out: &mut dyn SoundSink,
        why: &str,
    ) -> Result<WorldReply, WorldError> {
        let kind = match engine.world().get(object) {
            Some(o) => o.kind,
            None => return Err(self.refuse(object, why, WorldError::NoObject { object })),
        };
        if !kind.can_receive() {
            let error = WorldError::NotReceiver { object, kind };
            return Err(self.refuse(object, why, error));
        }
        if let Err(e) = self.tune(engine, station, object, now, out) {
            return Err(self.refuse(object, why, e));
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
        Ok(WorldReply::TurnedOn {
            object,
            station,
            name,
        })
    }

    /// Tunes `object` to `station`: a station going on air first asks Box-X for a voice
    /// slot (refused: nothing is tuned); one already on air takes the receiver in.
    pub(super) fn tune(
        &mut self,
        engine: &mut Engine,
        station: u32,
        object: ObjectId,
        now: SampleTime,
        out: &mut dyn SoundSink,
    ) -> Result<(), WorldError> {
        let silent = self
            .stations
            .get(station)
            .is_some_and(|s| s.receivers.is_empty());
        let who = WorldVoice::Station(station);
        if silent && !self.claim_voice(engine, who, Some(object), false) {
            let priority = self.voice_settings.priority(who);
            return Err(WorldError::NoVoice { station, priority });
        }
        let tuned = self
            .stations
            .turn_on(station, object, now, out, &mut self.ids);
        // The station it left may have gone silent; a refused one gives its slot back.
        self.sync_voices(engine, now, out);
        tuned.map_err(WorldError::from)
    }

    /// Says in the news that `why` (a command or event) was refused for `error` about
    /// `object`, and gives the error back.
    fn refuse(&mut self, object: ObjectId, why: &str, error: WorldError) -> WorldError {
        let what = match &error {
            // Box-X refusing a station its slot is a voice decision (the engine traces
            // it), not a fault in the data: its news is the world's, not an error.
            WorldError::NoVoice { station, priority } => WorldEvent::NoVoice {
                who: WorldVoice::Station(*station),
                priority: *priority,
            },
            _ => WorldEvent::Refused {
                by: why.to_owned(),
                object,
                reason: error.to_string(),
            },
        };
        self.say(Some(object), what);
        WorldError::Refused {
            by: why.to_owned(),
            source: Box::new(error),
        }
    }

    pub(super) fn turn_off(
        &mut self,
        engine: &mut Engine,
        object: ObjectId,
        station: Option<u32>,
        now: SampleTime,
        out: &mut dyn SoundSink,
    ) -> Result<WorldReply, WorldError> {
        let Some(code) = station.or_else(|| self.stations.tuned(object)) else {
            return Err(WorldError::NotPlaying { object });
        };
        self.stations.turn_off(code, object, now, out);
        if let Some(o) = engine.world_mut().get_mut(object) {
            o.on = false;
        }
        self.sync_voices(engine, now, out);
        self.follow_view(engine, now, out);
        Ok(WorldReply::TurnedOff { object })
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
    ) -> Result<PathBuf, WorldError> {
        if self.save_policy == SaveLotPolicy::Denied {
            return Err(SaveLotError::Denied.into());
        }
        let project = engine.project();
        // A file given is relative to the project's folder; the lot file `world.ini`
        // names was found already (relative to where HitBench runs, like the folder).
        let path = match path {
            Some(path) => project.root().join(path),
            None => self.lot_file.clone().ok_or(WorldError::NoLotFile)?,
        };
        let target = resolve_target(self.save_policy, &path, &project.dirs)?;
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
            return Err(SaveLotError::NotUtf8 { path: target }.into());
        }
        self.lot.objects = engine.world().clone();
        self.lot.controlled = controlled;
        let text = match &self.lot_document {
            Some(document) => document.text_for(&self.lot),
            None => self.lot.to_text(),
        };
        write_atomically(&target, text.as_bytes()).map_err(|source| SaveLotError::Io {
            path: target.clone(),
            source,
        })?;
        if own_file {
            let (_, document, _) = Lot::parse_document(&text, &target);
            self.lot_document = Some(document);
            self.saved_lot = Some(text);
        }
        Ok(target)
    }
}

/// `move object x y [floor]`: moves an object of the engine's world.
fn move_object(
    engine: &mut Engine,
    object: ObjectId,
    x: f32,
    y: f32,
    floor: Option<i32>,
) -> Result<WorldReply, WorldError> {
    let Some(o) = engine.world_mut().get_mut(object) else {
        return Err(WorldError::NoObject { object });
    };
    o.position = [x, y];
    if let Some(level) = floor {
        o.level = level;
    }
    Ok(WorldReply::Moved {
        object,
        position: [x, y],
        floor: o.level,
    })
}
