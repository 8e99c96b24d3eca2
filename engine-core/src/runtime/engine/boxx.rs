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
                let message = format!(
                    "steal voice {voice} from `{}` (priority {priority}) for `{}` (priority {}): {} > {priority}, all {} voices busy, lowest priority and oldest loses",
                    self.track_name_of(thread),
                    track.name,
                    track.priority,
                    track.priority,
                    self.voices.capacity()
                );
                self.record_event(
                    TraceKind::Voice,
                    start.event,
                    Some(track),
                    start.source,
                    Some(voice),
                    message,
                );
                self.kill(thread, "its voice was stolen");
                Some(voice)
            }
            Allocation::Refuse {
                voice,
                thread,
                priority,
            } => {
                let message = format!(
                    "refuse `{}` (priority {}): all {} voices busy and the lowest priority playing is `{}` on voice {voice} with priority {priority} ({} <= {priority})",
                    track.name,
                    track.priority,
                    self.voices.capacity(),
                    self.track_name_of(thread),
                    track.priority
                );
                self.record_event(
                    TraceKind::Voice,
                    start.event,
                    Some(track),
                    start.source,
                    None,
                    message,
                );
                None
            }
        }
    }

    /// The name of the track a thread plays (`?` for a slot that is empty).
    fn track_name_of(&self, thread: usize) -> Arc<str> {
        self.threads
            .get(thread)
            .and_then(Option::as_ref)
            .map_or_else(|| Arc::from("?"), |t| t.track_name.clone())
    }
}
