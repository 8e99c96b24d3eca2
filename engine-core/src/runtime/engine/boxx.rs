//! Box-X: at most N tracks hold a voice. A new track takes a free voice, else steals the
//! voice of the lowest priority playing (the oldest on a tie) when its own priority is
//! strictly higher, else it is refused — and every verdict is traced with the track it
//! was compared against.

use super::dispatch::Start;
use super::*;

impl Engine {
    /// The voice `start` plays on: a free one, or one stolen from a lower priority
    /// (that track is stopped); `None` when Box-X refuses it.
    pub(super) fn allocate_voice(&mut self, start: &Start<'_>) -> Option<usize> {
        let track = start.track;
        match self.voices.allocate(track.priority, &self.threads) {
            Allocation::Free(voice) => Some(voice),
            Allocation::Steal {
                voice,
                holder,
                priority,
            } => {
                let what = TraceEvent::Stole {
                    track: track.name.clone(),
                    priority: track.priority,
                    victim: self.occupant(voice, holder, priority),
                    occupants: self.occupants(),
                    capacity: self.voices.capacity(),
                };
                let (event, source) = (start.event, start.source);
                self.record_event(
                    TraceKind::Voice,
                    event,
                    Some(track),
                    source,
                    Some(voice),
                    what,
                );
                self.evict(holder, EndReason::Stolen);
                Some(voice)
            }
            Allocation::Refuse {
                voice,
                holder,
                priority,
            } => {
                let what = TraceEvent::Refused {
                    track: track.name.clone(),
                    priority: track.priority,
                    lowest: self.occupant(voice, holder, priority),
                    occupants: self.occupants(),
                    capacity: self.voices.capacity(),
                };
                let (event, source) = (start.event, start.source);
                self.record_event(TraceKind::Voice, event, Some(track), source, None, what);
                None
            }
        }
    }

    /// Takes the voice from whoever holds it: a track is stopped, a world player loses
    /// its seat (the world director silences it at its next look,
    /// [`Engine::take_lost_world_voices`]).
    pub(super) fn evict(&mut self, holder: Holder, why: EndReason) {
        match holder {
            Holder::Thread(thread) => self.kill(thread, why),
            Holder::World(who) => self.unseat_world(who, why),
        }
    }

    /// The sound holding `voice`, as Box-X compared it (`?` for a slot that is empty).
    pub(super) fn occupant(&self, voice: usize, holder: Holder, priority: i32) -> Occupant {
        let now = self.clock.now();
        match holder {
            Holder::Thread(thread) => {
                let th = self.threads.get(thread).and_then(Option::as_ref);
                Occupant {
                    voice,
                    track: th.map_or_else(|| Arc::from("?"), |t| t.track_name.clone()),
                    priority,
                    age: th.map_or(0, |t| now - t.started_at),
                }
            }
            Holder::World(who) => {
                let since = self
                    .voices
                    .world_slots()
                    .get(voice)
                    .copied()
                    .flatten()
                    .map_or(now, |seat| seat.since);
                Occupant {
                    voice,
                    track: who.label(),
                    priority,
                    age: now - since,
                }
            }
        }
    }

    /// Every track holding a voice, in slot order, with its priority and when it
    /// started: the table the last verdict saw when no slot was taken or freed since
    /// and no priority changed, else a new one.
    pub(super) fn occupants(&mut self) -> VoiceTable {
        let changes = self.voices.changes();
        if let Some((built, table)) = &self.seats
            && *built == changes
        {
            return table.clone();
        }
        let world = self.voices.world_slots();
        let seats = self
            .voices
            .slots()
            .iter()
            .enumerate()
            .filter_map(|(voice, thread)| {
                if let Some(seat) = world.get(voice).copied().flatten() {
                    return Some(Seat {
                        voice,
                        track: seat.who.label(),
                        priority: seat.priority,
                        since: seat.since,
                    });
                }
                let th = self.threads.get((*thread)?).and_then(Option::as_ref)?;
                Some(Seat {
                    voice,
                    track: th.track_name.clone(),
                    priority: th.priority(),
                    since: th.started_at,
                })
            })
            .collect();
        let table = VoiceTable::new(seats);
        self.seats = Some((changes, table.clone()));
        table
    }

    /// Puts thread `index` in `voice`, with its Box-X key.
    pub(super) fn seat(&mut self, voice: usize, index: usize) {
        let key = self
            .threads
            .get(index)
            .and_then(Option::as_ref)
            .map_or((0, 0), |th| (th.priority(), th.started_seq));
        self.voices.occupy(voice, index, key);
    }

    /// Tells the voices thread `index`'s priority after a register of it was written
    /// from outside the VM (a track that runs is told when it is put back).
    pub(super) fn sync_priority(&mut self, index: usize) {
        if let Some(th) = self.threads.get(index).and_then(Option::as_ref) {
            self.voices.set_priority(th.voice, index, th.priority());
        }
    }
}
