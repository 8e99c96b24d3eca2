//! The Box-X voice limit changed while the engine runs (`voices <n>`): more slots are
//! free at once; fewer stop what Box-X would let go first — the lowest priority, the
//! oldest on a tie, tracks and world players alike — until what plays fits, each traced
//! as ended by the voice limit, and the holders of slots past the new end move to free
//! slots before it.

use super::*;

/// The most voice slots the engine may have (`voices`, `--voices`, a QA script's
/// `set voices`).
pub const MAX_VOICES: usize = 1024;

/// What changing the voice limit did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoiceLimitChange {
    /// The limit before.
    pub from: usize,
    /// The limit now.
    pub to: usize,
    /// What lost its voice, in the order Box-X let it go (track names, world players'
    /// labels).
    pub stopped: Vec<Arc<str>>,
}

impl Engine {
    /// Sets the Box-X voice limit to `count` (1 to [`MAX_VOICES`]; other values are
    /// brought into that range). With fewer voices than are in use, the lowest
    /// priorities stop (a track's notes fade at once, a world player is silenced by the
    /// director at its next look), each traced: a track with
    /// [`TraceEvent::LimitStopped`], a world player with [`TraceEvent::WorldVoiceLeft`];
    /// both end with [`EndReason::VoiceLimit`].
    pub fn set_voice_limit(&mut self, count: usize) -> VoiceLimitChange {
        let count = count.clamp(1, MAX_VOICES);
        let from = self.voices.capacity();
        let mut stopped = Vec::new();
        // Each round frees a slot or hands it to a thread waiting for it (which a later
        // round may take): at most one round per thread and world player.
        let mut rounds = self.threads.len() + self.voices.capacity();
        while self.voices.in_use() > count && rounds > 0 {
            rounds -= 1;
            let Some((voice, holder, priority)) = self.voices.lowest(&self.threads) else {
                break;
            };
            let victim = self.occupant(voice, holder, priority);
            stopped.push(Arc::clone(&victim.track));
            if let Holder::Thread(thread) = holder {
                let what = TraceEvent::LimitStopped {
                    victim,
                    capacity: count,
                };
                self.record_thread(TraceKind::Voice, thread, what);
            }
            self.evict(holder, EndReason::VoiceLimit);
        }
        for (_, to) in self.voices.set_capacity(count) {
            let holder = self.voices.slots().get(to).copied().flatten();
            if let Some(th) = holder.and_then(|t| self.threads.get_mut(t)?.as_mut()) {
                th.voice = to;
            }
        }
        self.config.max_voices = self.voices.capacity();
        VoiceLimitChange {
            from,
            to: self.voices.capacity(),
            stopped,
        }
    }
}
