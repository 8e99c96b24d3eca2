//! [`Outcome`] and [`TriggerError`]: what triggering an event did, or why it could not;
//! [`DecisionKind`]: the kinds of decision about a trigger, one word each. Their own
//! module so the trace (a reload restarting a track says how that went) can carry them
//! without depending on the engine.

use serde::{Deserialize, Serialize};

/// What Box-X and the one-copy rule decided about a trigger, by kind. [`name`](Self::name)
/// is its one word, the same wherever a decision is shown: the trace's sentence starts
/// with it, the Why panel tags a decision with it, QA's `actually:` says it, the Traces
/// panel filters by it and the console's reply to a trigger uses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum DecisionKind {
    /// A free voice.
    Started,
    /// A voice taken from a track of lower priority.
    Stole,
    /// No voice: every track playing had at least its priority.
    Refused,
    /// The object joined the copy already playing.
    Joined,
    /// The track was already playing for this object, or as a UI sound.
    AlreadyPlaying,
    /// It took over an interruptible copy's voice.
    TookOver,
    /// Its track does not exist, or has no code where it should start.
    NoTrack,
    /// Nobody defines the event.
    UnknownEvent,
    /// Handed to the world (a station or music mode), not played as a track.
    World,
}

impl DecisionKind {
    /// Every kind, in the order the panels list them.
    pub const ALL: [DecisionKind; 9] = [
        DecisionKind::Started,
        DecisionKind::Stole,
        DecisionKind::Refused,
        DecisionKind::Joined,
        DecisionKind::AlreadyPlaying,
        DecisionKind::TookOver,
        DecisionKind::NoTrack,
        DecisionKind::UnknownEvent,
        DecisionKind::World,
    ];

    /// The decision's one word (or two).
    pub fn name(self) -> &'static str {
        match self {
            DecisionKind::Started => "started",
            DecisionKind::Stole => "stole",
            DecisionKind::Refused => "refused",
            DecisionKind::Joined => "joined",
            DecisionKind::AlreadyPlaying => "already playing",
            DecisionKind::TookOver => "took over",
            DecisionKind::NoTrack => "no track",
            DecisionKind::UnknownEvent => "unknown event",
            DecisionKind::World => "handed to the world",
        }
    }
}

impl std::fmt::Display for DecisionKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

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

impl Outcome {
    /// The kind of decision it was, for a trigger Box-X or the one-copy rule decided
    /// about (a steal's outcome is [`Outcome::Started`]: the trace tells the steal).
    pub fn decision(&self) -> Option<DecisionKind> {
        Some(match self {
            Outcome::Started { .. } => DecisionKind::Started,
            Outcome::Joined { .. } => DecisionKind::Joined,
            Outcome::AlreadyPlaying { .. } => DecisionKind::AlreadyPlaying,
            Outcome::Interrupting { .. } => DecisionKind::TookOver,
            Outcome::Refused => DecisionKind::Refused,
            Outcome::Hook => DecisionKind::World,
            _ => return None,
        })
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use DecisionKind as D;
        match self {
            Outcome::Started { voice } => write!(f, "{} on voice {voice}", D::Started),
            Outcome::Joined { voice } => {
                write!(
                    f,
                    "{} the copy playing on voice {voice} as an owner",
                    D::Joined
                )
            }
            Outcome::AlreadyPlaying { voice } => {
                write!(f, "{} on voice {voice}", D::AlreadyPlaying)
            }
            Outcome::Interrupting { voice } => write!(
                f,
                "{} voice {voice}: waits for the interrupted track to end",
                D::TookOver
            ),
            Outcome::Refused => write!(
                f,
                "{}: every voice holds a track of at least its priority",
                D::Refused
            ),
            Outcome::Stopped(n) => write!(f, "{n} track(s) stopped"),
            Outcome::TraceSwitched => write!(f, "trace switched"),
            Outcome::Hook => write!(f, "{}", D::World),
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
