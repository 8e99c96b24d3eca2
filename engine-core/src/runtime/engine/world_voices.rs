//! World players in Box-X: a station on air, the music, the load loop, the river and
//! the ambience each hold a voice slot while they sound, at the priority of their kind
//! (`world.ini [Voices]`). The world director claims a slot before its player starts
//! and gives it back when the player goes silent; a track of higher priority may steal
//! it, and `QuietAll` takes every one back. A player that lost its slot is listed for
//! the director ([`Engine::take_lost_world_voices`]), which silences it.

use super::*;

impl Engine {
    /// Asks Box-X for a voice for `who` at `priority`: a free one, or one stolen from a
    /// lower priority (a track is stopped, a world player loses it). Returns the slot,
    /// or `None` when refused; every verdict is traced. A player that already holds a
    /// slot keeps it.
    pub fn claim_world_voice(
        &mut self,
        who: WorldVoice,
        priority: i32,
        object: Option<ObjectId>,
    ) -> Option<usize> {
        if let Some(voice) = self.voices.world_voice(who) {
            return Some(voice);
        }
        let label = who.label();
        let voice = match self.voices.allocate(priority, &self.threads) {
            Allocation::Free(voice) => voice,
            Allocation::Steal {
                voice,
                holder,
                priority: lowest,
            } => {
                let what = TraceEvent::Stole {
                    track: Arc::clone(&label),
                    priority,
                    victim: self.occupant(voice, holder, lowest),
                    occupants: self.occupants(),
                    capacity: self.voices.capacity(),
                };
                self.record_world(who, object, Some(voice), what);
                self.evict(holder, EndReason::Stolen);
                voice
            }
            Allocation::Refuse {
                voice,
                holder,
                priority: lowest,
            } => {
                let what = TraceEvent::Refused {
                    track: Arc::clone(&label),
                    priority,
                    lowest: self.occupant(voice, holder, lowest),
                    occupants: self.occupants(),
                    capacity: self.voices.capacity(),
                };
                self.record_world(who, object, None, what);
                return None;
            }
        };
        self.seq += 1;
        let seat = WorldSeat {
            who,
            priority,
            seq: self.seq,
            since: self.clock.now(),
        };
        self.voices.seat_world(voice, seat);
        let what = TraceEvent::WorldVoiceTaken {
            who,
            voice,
            priority,
            in_use: self.voices.in_use(),
            capacity: self.voices.capacity(),
        };
        self.record_world(who, object, Some(voice), what);
        Some(voice)
    }

    /// `who` went silent: its slot is free again (nothing if it holds none).
    pub fn release_world_voice(&mut self, who: WorldVoice) {
        if let Some(voice) = self.voices.unseat_world(who) {
            let what = TraceEvent::WorldVoiceLeft {
                who,
                voice,
                why: EndReason::Ended,
            };
            self.record_world(who, None, Some(voice), what);
        }
    }

    /// `who` loses its slot for `why` (stolen, quiet all, its last receiver quieted):
    /// the director is told ([`Engine::take_lost_world_voices`]).
    pub(super) fn unseat_world(&mut self, who: WorldVoice, why: EndReason) {
        if let Some(voice) = self.voices.unseat_world(who) {
            let what = TraceEvent::WorldVoiceLeft { who, voice, why };
            self.record_world(who, None, Some(voice), what);
            self.lost_world.push((who, why));
        }
    }

    /// `quiet` of the last receiver of a station: it loses its slot, like a track whose
    /// last owner was quieted.
    pub fn quiet_world_voice(&mut self, who: WorldVoice) {
        self.unseat_world(who, EndReason::LastOwnerQuieted);
    }

    /// World players that lost their slot since the last call, and why (in order).
    pub fn take_lost_world_voices(&mut self) -> Vec<(WorldVoice, EndReason)> {
        std::mem::take(&mut self.lost_world)
    }

    /// The slot `who` holds, if any.
    pub fn world_voice(&self, who: WorldVoice) -> Option<usize> {
        self.voices.world_voice(who)
    }

    /// Every world player holding a slot, in slot order.
    pub fn world_voices(&self) -> Vec<WorldVoice> {
        self.voices
            .world_slots()
            .iter()
            .flatten()
            .map(|seat| seat.who)
            .collect()
    }

    /// Every world player's seat, by slot.
    pub fn world_seats(&self) -> &[Option<WorldSeat>] {
        self.voices.world_slots()
    }

    /// Takes every world player's slot back (`QuietAll`).
    pub(super) fn unseat_all_world(&mut self) {
        for who in self.world_voices() {
            self.unseat_world(who, EndReason::QuietAll);
        }
    }

    fn record_world(
        &mut self,
        who: WorldVoice,
        object: Option<ObjectId>,
        voice: Option<usize>,
        what: TraceEvent,
    ) {
        let record = TraceRecord {
            time: self.clock.now(),
            kind: TraceKind::Voice,
            event: Some(Arc::from(who.key())),
            track: Some(who.label()),
            object,
            voice,
            note: None,
            what,
        };
        self.trace.push(record);
    }
}
