//! Running the world each tick: the lot's start at the first tick, the runtime's world
//! requests (turning receivers on and off, music modes), ended notes routed to whoever
//! played them, the ambience's steps, and volume and pan following the view.

use super::WorldDirector;
use super::view_levels;
use crate::runtime::clock::SampleTime;
use crate::runtime::sink::{NoteId, SoundSink};
use crate::runtime::trace::WorldEvent;
use crate::runtime::voices::WorldVoice;
use crate::runtime::{Engine, HookEvent};
use crate::world::ObjectId;
use crate::world::music::MusicMode;
use crate::world::view::{Placement, place, station_mix};

impl WorldDirector {
    /// The hour the ambience hears: the lot's, or noon in a mode that is always day.
    pub(super) fn ambience_hour(&self) -> f32 {
        if self.music.mode().plan().daytime {
            12.0
        } else {
            self.lot.hour
        }
    }

    /// A music mode (`mode`, kSetMusicMode): the old mode's players give back the
    /// slots the new one does not want, the new one's ask for theirs (a refused part
    /// stays silent), then the music changes by its rules and the ambience follows.
    /// Asking for the mode already on lets parts that lost their slot ask again.
    pub(super) fn apply_mode(
        &mut self,
        mode: MusicMode,
        engine: &mut Engine,
        now: SampleTime,
        out: &mut dyn SoundSink,
    ) {
        let same = mode == self.music.mode();
        let wanted = self.music.voices_for(mode);
        for held in engine.world_voices() {
            let music = matches!(
                held,
                WorldVoice::Music | WorldVoice::LoadLoop | WorldVoice::River
            );
            if music && !wanted.contains(&held) {
                engine.release_world_voice(held);
            }
        }
        self.music.clear_blocks();
        self.ambience_voiceless = false;
        for who in wanted {
            if !self.claim_voice(engine, who, None, true) {
                self.music.block(who, now, out);
            }
        }
        if same {
            self.music.resume(now, out, &mut self.ids);
        } else {
            self.music.set_mode(mode, now, out, &mut self.ids);
        }
        self.lot.mode = mode.name().to_string();
        let plan = mode.plan();
        self.enable_ambience(plan.ambience, engine, now, out);
        let hour = self.ambience_hour();
        self.ambience.set_hour(hour, now, out, &mut self.ids);
        self.sync_voices(engine, now, out);
    }

    /// Starts what the lot says at the first tick: the music mode, the hour, the room.
    pub(super) fn begin(&mut self, engine: &mut Engine, now: SampleTime, out: &mut dyn SoundSink) {
        self.started = true;
        let problems: Vec<WorldEvent> = self
            .diagnostics
            .iter()
            .map(|d| WorldEvent::Problem(d.into()))
            .collect();
        for what in problems {
            self.say(None, what);
        }
        self.ambience.set_room(self.lot.room_size);
        self.ambience.set_listener(self.lot.camera.centre);
        let mode = MusicMode::by_name(&self.lot.mode).unwrap_or(MusicMode::Live);
        if mode == MusicMode::Live {
            // Live is where the player starts: the ambience runs, the hour counts.
            let plan = mode.plan();
            self.enable_ambience(plan.ambience, engine, now, out);
            let hour = self.ambience_hour();
            self.ambience.set_hour(hour, now, out, &mut self.ids);
        } else {
            self.apply_mode(mode, engine, now, out);
        }
        // Receivers the lot says are on start their stations.
        let tuned: Vec<(ObjectId, u32)> = engine
            .world()
            .objects()
            .filter_map(|o| o.tuned_station().map(|s| (o.id, s)))
            .collect();
        for (object, station) in tuned {
            if let Err(e) = self.tune(engine, station, object, now, out) {
                let what = WorldEvent::LotTuneFailed {
                    object,
                    station,
                    reason: e.to_string(),
                };
                self.say(Some(object), what);
            }
        }
        let began = WorldEvent::Began {
            objects: engine.world().len(),
            hour: self.lot.hour,
            mode: self.music.mode(),
            camera: self.lot.camera.centre,
            zoom: self.lot.camera.zoom,
        };
        self.say(None, began);
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
        self.follow_room(engine);
        self.ambience.set_listener(self.lot.camera.centre);
        self.ambience.update(from, until, out, &mut self.ids);
        self.sync_voices(engine, from, out);
        self.follow_view(engine, from, out);
    }

    /// The ambience's reverb follows the room of the lot the active character is in:
    /// when it enters another room (it moved, was dragged, or another character took
    /// control), the room's size becomes the reverb's, overriding a `room <tiles>` given
    /// at the console until then. A lot without rooms keeps its `room <tiles>`.
    fn follow_room(&mut self, engine: &Engine) {
        if self.lot.rooms.is_empty() {
            return;
        }
        let Some(object) = self.active.and_then(|id| engine.world().get(id)) else {
            return;
        };
        let room = self.lot.room_at(object.position, object.level);
        let name = room.map(|r| r.name.clone());
        if self.active_room.as_ref() == Some(&name) {
            return;
        }
        let tiles = room.map_or(self.lot.room_size, |r| r.tiles());
        let id = object.id;
        self.active_room = Some(name.clone());
        self.ambience.set_room(tiles);
        let reverb = self.ambience.reverb_level();
        self.say(
            Some(id),
            WorldEvent::EnteredRoom {
                object: id,
                room: name,
                tiles,
                reverb,
            },
        );
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
                    self.say(None, WorldEvent::NoReceiver { event, on: true });
                    return;
                };
                // A failure is already in the news.
                if let Ok(did) = self.turn_on(engine, object, station, now, out, &event) {
                    self.say(Some(object), WorldEvent::Hook { event, did });
                }
            }
            HookEvent::TurnOff {
                event,
                station,
                object,
            } => {
                let Some(object) = object else {
                    self.say(None, WorldEvent::NoReceiver { event, on: false });
                    return;
                };
                let what = match self.turn_off(engine, object, Some(station), now, out) {
                    Ok(did) => WorldEvent::Hook { event, did },
                    Err(e) => WorldEvent::Refused {
                        by: event,
                        object,
                        reason: e.to_string(),
                    },
                };
                self.say(Some(object), what);
            }
            HookEvent::MusicMode { event, mode } => match MusicMode::from_number(mode) {
                Some(mode) => self.apply_mode(mode, engine, now, out),
                None => self.say(None, WorldEvent::NotAMusicMode { event, mode }),
            },
        }
    }

    /// `NotifyViewChange`: if the view or an object moved, every object's tracks and
    /// every station get their new volume and pan (ramped by the mixer).
    pub(super) fn follow_view(
        &mut self,
        engine: &mut Engine,
        now: SampleTime,
        out: &mut dyn SoundSink,
    ) {
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
            let levels = view_levels(&p, &camera, &self.view);
            match self.sent.get(&id) {
                Some(&(volume, pan, reasons)) if (volume, pan) == (p.volume, p.pan) => {
                    // The same volume and pan for other reasons: nothing to send.
                    if reasons != levels {
                        engine.relabel_source(id, Some(levels));
                    }
                }
                _ => {
                    engine.update_source(id, p.volume, p.pan, Some(levels));
                }
            }
            self.sent.insert(id, (p.volume, p.pan, levels));
        }
        let codes: Vec<u32> = self.stations.all().map(|s| s.def.code).collect();
        for code in codes {
            let mix = station_mix(engine.world(), code, &camera, &self.view);
            let level = (mix.gain(), mix.stereo_pan());
            if self.station_levels.get(&code) != Some(&level) {
                self.station_levels.insert(code, level);
                self.stations.set_level(code, level.0, level.1, now, out);
            }
        }
    }
}
