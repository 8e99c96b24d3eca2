//! Why a track ended (or a world player left its voice slot).

use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a track ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EndReason {
    /// Its code and its notes are done.
    Ended,
    /// A new trigger interrupted it.
    Interrupted,
    /// Box-X gave its voice to a higher priority.
    Stolen,
    /// Its last owner was quieted.
    LastOwnerQuieted,
    /// Quiet all.
    QuietAll,
    /// `stop`: the auditions (UI sounds) were stopped.
    AuditionStopped,
    /// A kill or stop event.
    KilledByEvent,
    /// Its own code killed its track.
    KilledItself,
    /// Another track's `seqgroup_kill`.
    SequenceGroupKill,
    /// It faulted.
    Fault,
    /// The `play_trk` chain it belonged to was stopped.
    ChainStopped,
    /// The voice limit was lowered below the voices in use, and Box-X let it go first
    /// (the lowest priority, the oldest on a tie).
    VoiceLimit,
}

impl EndReason {
    /// The words the trace uses.
    pub fn words(self) -> &'static str {
        match self {
            EndReason::Ended => "ended",
            EndReason::Interrupted => "interrupted by a new trigger",
            EndReason::Stolen => "its voice was stolen",
            EndReason::LastOwnerQuieted => "its last owner was quieted",
            EndReason::QuietAll => "quiet all",
            EndReason::AuditionStopped => "the auditions were stopped",
            EndReason::KilledByEvent => "killed by an event",
            EndReason::KilledItself => "its own track killed it",
            EndReason::SequenceGroupKill => "seqgroup_kill",
            EndReason::Fault => "fault",
            EndReason::ChainStopped => "its play_trk chain was stopped",
            EndReason::VoiceLimit => "the voice limit was lowered",
        }
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.words())
    }
}
