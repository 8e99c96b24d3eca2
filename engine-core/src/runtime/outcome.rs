//! [`Outcome`] and [`TriggerError`]: what triggering an event did, or why it could not.
//! Their own module so the trace (a reload restarting a track says how that went) can
//! carry them without depending on the engine.

use serde::{Deserialize, Serialize};

/// What a trigger did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// A new track started on this voice.
    Started {
        /// The voice.
        voice: usize,
    },
    /// The track was already playing; the source joined it as an owner.
    Joined {
        /// The voice it plays on.
        voice: usize,
    },
    /// The track was already playing (no source to join).
    AlreadyPlaying {
        /// The voice it plays on.
        voice: usize,
    },
    /// The new track waits for an interrupted one to finish.
    Interrupting {
        /// The voice it will play on.
        voice: usize,
    },
    /// Box-X refused the track: every voice holds a track of at least its priority.
    Refused,
    /// Tracks were stopped, killed or quieted.
    Stopped(usize),
    /// A trace switch changed.
    TraceSwitched,
    /// Handed to the world (TV, radio, music mode).
    Hook,
    /// Volume and pan updated on this many tracks.
    Updated(usize),
    /// The event type does nothing here.
    Ignored,
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Started { voice } => write!(f, "started on voice {voice}"),
            Outcome::Joined { voice } => {
                write!(f, "already playing on voice {voice}; joined as an owner")
            }
            Outcome::AlreadyPlaying { voice } => write!(f, "already playing on voice {voice}"),
            Outcome::Interrupting { voice } => {
                write!(f, "waits on voice {voice} for the interrupted track to end")
            }
            Outcome::Refused => write!(
                f,
                "refused: every voice holds a track of at least its priority"
            ),
            Outcome::Stopped(n) => write!(f, "{n} track(s) stopped"),
            Outcome::TraceSwitched => write!(f, "trace switched"),
            Outcome::Hook => write!(f, "handed to the world"),
            Outcome::Updated(n) => write!(f, "volume and pan updated on {n} track(s)"),
            Outcome::Ignored => write!(f, "nothing to do for this event type"),
        }
    }
}

/// Why a trigger failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum TriggerError {
    /// No event has that name.
    #[error("unknown event `{0}`")]
    UnknownEvent(String),
    /// The event's track is not defined.
    #[error("event `{event}` refers to track {track}, which is not defined")]
    NoTrack {
        /// The event.
        event: String,
        /// Its track ID.
        track: u32,
    },
    /// The track's code could not be found.
    #[error("track `{0}` has no code at its entry address")]
    NoCode(String),
}
