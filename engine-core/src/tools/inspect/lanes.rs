//! What a voice history keeps: lanes (one track's time on a slot and how it left),
//! refusals and faults.

use crate::runtime::clock::SampleTime;
use crate::runtime::trace::Occupant;
use crate::runtime::vm::FaultKind;
use crate::world::ObjectId;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

/// How a track left its voice slot.
#[derive(Debug, Clone, PartialEq)]
pub enum LaneEnd {
    /// Its code and notes ended.
    Finished,
    /// A track of higher priority took the voice.
    Stolen {
        /// The event that took it.
        by_event: Arc<str>,
        /// The track that took it.
        by_track: Arc<str>,
        /// Why, as the engine put it (the priorities compared).
        reason: String,
    },
    /// A new trigger of the same track interrupted it (interrupt handoff).
    Interrupted {
        /// The event of the new trigger.
        by_event: Arc<str>,
    },
    /// Its last owner was quieted, or everything was (quiet all).
    Quieted {
        /// What the engine said.
        reason: String,
    },
    /// Stopped by an event, another track, a reload or a sequence group.
    Killed {
        /// What the engine said.
        reason: String,
    },
    /// Its code faulted (the message names `file:line`).
    Faulted {
        /// The fault message.
        message: String,
    },
    /// It left the slot between two snapshots and no record said why (the track
    /// trace was off): most often it was killed by an event or another track.
    Ended,
}

impl fmt::Display for LaneEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LaneEnd::Finished => write!(f, "finished"),
            LaneEnd::Stolen {
                by_track, reason, ..
            } => write!(f, "stolen by `{by_track}` ({reason})"),
            LaneEnd::Interrupted { by_event } => write!(f, "interrupted by `{by_event}`"),
            LaneEnd::Quieted { reason } => write!(f, "quieted ({reason})"),
            LaneEnd::Killed { reason } => write!(f, "killed ({reason})"),
            LaneEnd::Faulted { message } => write!(f, "faulted: {message}"),
            LaneEnd::Ended => write!(f, "ended (reason not traced)"),
        }
    }
}

/// One track's time on a voice slot.
#[derive(Debug, Clone, PartialEq)]
pub struct Lane {
    /// The voice slot.
    pub slot: usize,
    /// Track name.
    pub track_name: Arc<str>,
    /// The event that started it.
    pub event: Arc<str>,
    /// The object that started it (`None`: a UI sound).
    pub object: Option<ObjectId>,
    /// When it took the slot.
    pub started_at: SampleTime,
    /// When it left the slot (`None`: still there).
    pub ended_at: Option<SampleTime>,
    /// How it left (`None`: still there).
    pub end: Option<LaneEnd>,
}

/// A track Box-X refused: every voice held a track of at least its priority.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// When.
    pub time: SampleTime,
    /// The event.
    pub event: Arc<str>,
    /// The track refused.
    pub track_name: Option<Arc<str>>,
    /// The object that triggered it.
    pub object: Option<ObjectId>,
    /// The refused track's priority.
    pub priority: i32,
    /// The lowest priority playing, which it would have had to beat.
    pub lowest: Occupant,
    /// Every track that held a voice then.
    pub occupants: Vec<Occupant>,
    /// The voice limit.
    pub capacity: usize,
}

impl Refusal {
    /// Why, in words: the voices were busy and the lowest priority was not below it.
    pub fn reason(&self) -> String {
        format!(
            "all {} voices busy and the lowest priority playing is `{}` on voice {} with priority {} ({} <= {})",
            self.capacity,
            self.lowest.track,
            self.lowest.voice,
            self.lowest.priority,
            self.priority,
            self.lowest.priority
        )
    }
}

/// A thread stopped by a fault.
#[derive(Debug, Clone, PartialEq)]
pub struct FaultView {
    /// When.
    pub time: SampleTime,
    /// The event that started the thread.
    pub event: Option<Arc<str>>,
    /// Its track.
    pub track_name: Option<Arc<str>>,
    /// Its object.
    pub object: Option<ObjectId>,
    /// Its voice slot.
    pub voice: Option<usize>,
    /// Byte address of the faulting instruction (`None`: the track's sound failed).
    pub address: Option<u32>,
    /// Source file of the faulting instruction.
    pub file: Option<PathBuf>,
    /// 1-based source line of the faulting instruction.
    pub line: Option<u32>,
    /// What went wrong.
    pub kind: FaultKind,
    /// The whole sentence (event, track, `address (file:line)`, what went wrong).
    pub message: String,
}
