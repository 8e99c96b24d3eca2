//! The world's players in Box-X: the director claims a voice slot for each player
//! before it starts sounding (a station going on air, the music, the load loop and the
//! river of a mode, the ambience), gives the slot back when the player goes silent, and
//! silences a player that lost its slot (a track of higher priority stole it,
//! `quietall`, `quiet` of a station's last receiver). A player refused a slot stays
//! silent: a station's receiver stays off; the music, the loops and the ambience wait
//! for the next mode change (or `mode` of the same mode) to ask again.

use super::WorldDirector;
use crate::runtime::Engine;
use crate::runtime::clock::SampleTime;
use crate::runtime::sink::SoundSink;
use crate::runtime::trace::{EndReason, WorldEvent};
use crate::runtime::voices::WorldVoice;
use crate::world::ObjectId;
use std::collections::BTreeSet;

impl WorldDirector {
    /// The world players that should hold a slot now: every station with a receiver on,
    /// the music's parts that the mode plays (and that have one), the ambience while it
    /// is on and has something to play.
    pub(super) fn wanted_voices(&self) -> BTreeSet<WorldVoice> {
        let mut wanted: BTreeSet<WorldVoice> = self
            .stations
            .all()
            .filter(|s| !s.receivers.is_empty())
            .map(|s| WorldVoice::Station(s.def.code))
            .collect();
        wanted.extend(self.music.wanted_voices());
        if self.ambience.is_enabled() && self.ambience.has_sounds() {
            wanted.insert(WorldVoice::Ambience);
        }
        wanted
    }

    /// Asks Box-X for a slot for `who` (kept if it holds one). A refusal is traced by
    /// the engine; `say` adds the world's news of it.
    pub(super) fn claim_voice(
        &mut self,
        engine: &mut Engine,
        who: WorldVoice,
        object: Option<ObjectId>,
        say: bool,
    ) -> bool {
        let priority = self.voice_settings.priority(who);
        if engine.claim_world_voice(who, priority, object).is_some() {
            return true;
        }
        if say {
            self.say(object, WorldEvent::NoVoice { who, priority });
        }
        false
    }

    /// Brings the slots in line with what plays: players that lost theirs are silenced,
    /// players gone silent give theirs back, players that started sounding without one
    /// ask (and are silenced if refused).
    pub(super) fn sync_voices(
        &mut self,
        engine: &mut Engine,
        now: SampleTime,
        out: &mut dyn SoundSink,
    ) {
        self.handle_lost_voices(engine, now, out);
        let wanted = self.wanted_voices();
        for held in engine.world_voices() {
            if !wanted.contains(&held) {
                engine.release_world_voice(held);
            }
        }
        for who in wanted {
            if engine.world_voice(who).is_none() && !self.claim_voice(engine, who, None, true) {
                self.silence_player(engine, who, now, out);
            }
        }
    }

    /// Silences every player whose slot the engine took back since the last look.
    pub(super) fn handle_lost_voices(
        &mut self,
        engine: &mut Engine,
        now: SampleTime,
        out: &mut dyn SoundSink,
    ) {
        for (who, why) in engine.take_lost_world_voices() {
            if why != EndReason::LastOwnerQuieted {
                self.say(None, WorldEvent::LostVoice { who, why });
            }
            self.silence_player(engine, who, now, out);
        }
    }

    /// Makes `who` silent and keeps it so: a station's receivers turn off; the music's
    /// part stops and waits for the next mode; the ambience goes off until then.
    fn silence_player(
        &mut self,
        engine: &mut Engine,
        who: WorldVoice,
        now: SampleTime,
        out: &mut dyn SoundSink,
    ) {
        match who {
            WorldVoice::Station(code) => {
                let receivers: Vec<ObjectId> = self
                    .stations
                    .get(code)
                    .map(|s| s.receivers.iter().copied().collect())
                    .unwrap_or_default();
                for object in receivers {
                    self.stations.turn_off(code, object, now, out);
                    if let Some(o) = engine.world_mut().get_mut(object) {
                        o.on = false;
                    }
                }
            }
            WorldVoice::Music | WorldVoice::LoadLoop | WorldVoice::River => {
                self.music.block(who, now, out);
            }
            WorldVoice::Ambience => {
                self.ambience_voiceless = true;
                self.ambience.set_enabled(false, now, out, &mut self.ids);
            }
        }
    }

    /// Turns the ambience on (with a slot: refused, it stays off) or off.
    pub(super) fn enable_ambience(
        &mut self,
        on: bool,
        engine: &mut Engine,
        now: SampleTime,
        out: &mut dyn SoundSink,
    ) {
        let mut on = on && !self.ambience_voiceless;
        if on
            && self.ambience.has_sounds()
            && engine.world_voice(WorldVoice::Ambience).is_none()
            && !self.claim_voice(engine, WorldVoice::Ambience, None, true)
        {
            self.ambience_voiceless = true;
            on = false;
        }
        self.ambience.set_enabled(on, now, out, &mut self.ids);
    }

    /// `quiet <object>` of a receiver: it turns off (its station stops when it was the
    /// last receiver on, which gives the station's slot back). Returns the station it
    /// was tuned to, if it was on.
    pub fn quiet_receiver(
        &mut self,
        engine: &mut Engine,
        object: ObjectId,
        out: &mut dyn SoundSink,
    ) -> Option<u32> {
        let now = engine.now();
        let code = self.stations.tuned(object)?;
        self.stations.turn_off(code, object, now, out);
        if let Some(o) = engine.world_mut().get_mut(object) {
            o.on = false;
        }
        if self
            .stations
            .get(code)
            .is_some_and(|s| s.receivers.is_empty())
        {
            engine.quiet_world_voice(WorldVoice::Station(code));
        }
        self.sync_voices(engine, now, out);
        self.follow_view(engine, now, out);
        Some(code)
    }

    /// After `quietall`: every player that lost its slot goes silent.
    pub fn after_quiet_all(&mut self, engine: &mut Engine, out: &mut dyn SoundSink) {
        let now = engine.now();
        self.sync_voices(engine, now, out);
        self.follow_view(engine, now, out);
    }
}
