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
                thread,
                priority,
            } => {
                let what = TraceEvent::Stole {
                    track: Arc::from(track.name.as_str()),
                    priority: track.priority,
                    victim: self.occupant(voice, thread, priority),
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
                self.kill(thread, EndReason::Stolen);
                Some(voice)
            }
            Allocation::Refuse {
                voice,
                thread,
                priority,
            } => {
                let what = TraceEvent::Refused {
                    track: Arc::from(track.name.as_str()),
                    priority: track.priority,
                    lowest: self.occupant(voice, thread, priority),
                    occupants: self.occupants(),
                    capacity: self.voices.capacity(),
                };
                let (event, source) = (start.event, start.source);
                self.record_event(TraceKind::Voice, event, Some(track), source, None, what);
                None
            }
        }
    }

    /// The track holding `voice` through `thread`, as Box-X compared it (`?` for a
    /// slot that is empty).
    fn occupant(&self, voice: usize, thread: usize, priority: i32) -> Occupant {
        let th = self.threads.get(thread).and_then(Option::as_ref);
        Occupant {
            voice,
            track: th.map_or_else(|| Arc::from("?"), |t| t.track_name.clone()),
            priority,
            age: th.map_or(0, |t| self.clock.now() - t.started_at),
        }
    }

    /// Every track holding a voice, in slot order, with its priority and when it
    /// started: the table the last verdict saw when no slot was taken or freed since
    /// and no priority changed, else a new one.
    fn occupants(&mut self) -> VoiceTable {
        let changes = self.voices.changes();
        if let Some((built, table)) = &self.seats
            && *built == changes
            && self.seats_still(table)
        {
            return table.clone();
        }
        let seats = self
            .voices
            .slots()
            .iter()
            .enumerate()
            .filter_map(|(voice, thread)| {
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

    /// Whether every seat of `table` still has its priority (a track may change its
    /// own).
    fn seats_still(&self, table: &VoiceTable) -> bool {
        let mut seats = table.seats().iter();
        self.voices
            .slots()
            .iter()
            .filter_map(|thread| self.threads.get((*thread)?).and_then(Option::as_ref))
            .all(|th| {
                seats
                    .next()
                    .is_some_and(|seat| seat.priority == th.priority())
            })
            && seats.next().is_none()
    }
}
