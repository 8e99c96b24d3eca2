//! Trace records: what the runtime decided and why, with sample-accurate timestamps.
//!
//! Events, samples and tracks are traced only while their switch is on (the game's
//! debug cheats kDebugEventsOn/Off, kDebugSamplesOn/Off, kDebugTracksOn/Off, event types 44–49); voice
//! decisions, hit-list picks, hooks, `printreg` output and errors are always recorded.
//!
//! What a record says is a typed [`TraceEvent`] (`event`): the runtime's own decisions,
//! and nested, those of the sound server ([`SampleEvent`], `sample`), the world director
//! ([`WorldEvent`], `world`) and hot reload ([`ReloadEvent`], `reload`) — plain data here,
//! since the runtime uses none of those layers; they convert their own types when they
//! record. A note's gain and pan, contribution by contribution, are [`GainParts`] and
//! [`PanParts`] (`levels`, with what the world's view hands the runtime,
//! [`ViewLevels`]). A data file's problem is a [`FileProblem`] (`problem`). Records serialize
//! (serde), so a capture of a session can be written and read back.

mod end;
mod event;
mod levels;
pub mod names;
mod problem;
mod reload;
mod repeat;
mod sample;
mod seats;
mod world;

pub use crate::runtime::levels::{BusVolumes, GivenLevels, ScreenArea, ViewLevels};
pub use event::{CodePlace, EndReason, TraceEvent};
pub use levels::{ExternalVolume, GainFactor, GainParts, MAX_NOTE_GAIN, PanParts, PanSource};
pub use problem::FileProblem;
pub use reload::{FileChange, FileRole, ReloadEvent, RunningTrack, SampleOutcome};
pub use repeat::Repetition;
#[cfg(test)]
pub(crate) use repeat::joined;
pub use sample::{LoadFailure, MissClass, SampleEvent};
pub(crate) use seats::without_tables;
pub use seats::{Occupant, Seat, VoiceTable};
pub use world::{
    AmbienceEvent, MusicEvent, MusicLoop, StationEvent, WorldEvent, WorldReply, format_hour,
};

use super::clock::SampleTime;
use super::sink::NoteId;
use crate::runtime::objects::ObjectId;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// What a record is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum TraceKind {
    /// An event was triggered.
    Event,
    /// A sample started (or could not).
    Sample,
    /// A track started, ended or was stopped.
    Track,
    /// A Box-X decision: start, join instance, steal, refuse, duck, quiet.
    Voice,
    /// A hit-list pick.
    Pick,
    /// An event handed to the world (TV, music mode, ambience).
    Hook,
    /// A track printed a register (`printreg`).
    Print,
    /// Something went wrong: a fault, an unknown event, a missing sample.
    Error,
    /// A hot reload: files changed, what was swapped in, restarted or dropped.
    Reload,
    /// The world: stations, music, ambience, the view.
    World,
}

impl TraceKind {
    /// Every kind, in display order.
    pub const ALL: [TraceKind; 10] = [
        TraceKind::Event,
        TraceKind::Sample,
        TraceKind::Track,
        TraceKind::Voice,
        TraceKind::Pick,
        TraceKind::Hook,
        TraceKind::Print,
        TraceKind::Error,
        TraceKind::Reload,
        TraceKind::World,
    ];

    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            TraceKind::Event => "event",
            TraceKind::Sample => "sample",
            TraceKind::Track => "track",
            TraceKind::Voice => "voice",
            TraceKind::Pick => "pick",
            TraceKind::Hook => "hook",
            TraceKind::Print => "print",
            TraceKind::Error => "error",
            TraceKind::Reload => "reload",
            TraceKind::World => "world",
        }
    }
}

/// One trace record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceRecord {
    /// When it happened, in samples.
    pub time: SampleTime,
    /// What it is about.
    pub kind: TraceKind,
    /// The event involved.
    #[serde(with = "crate::runtime::trace::names::option")]
    pub event: Option<Arc<str>>,
    /// The track involved.
    #[serde(with = "crate::runtime::trace::names::option")]
    pub track: Option<Arc<str>>,
    /// The object involved.
    pub object: Option<ObjectId>,
    /// The Box-X voice involved.
    pub voice: Option<usize>,
    /// The note involved.
    pub note: Option<NoteId>,
    /// What happened and why, with the numbers compared.
    pub what: TraceEvent,
}

impl TraceRecord {
    /// A record at `time` of `what`, about nothing in particular yet (set the fields
    /// that apply).
    pub fn new(time: SampleTime, kind: TraceKind, what: TraceEvent) -> Self {
        Self {
            time,
            kind,
            event: None,
            track: None,
            object: None,
            voice: None,
            note: None,
            what,
        }
    }

    /// The sentence a person reads: what happened and why.
    pub fn message(&self) -> String {
        self.what.to_string()
    }
}

impl fmt::Display for TraceRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:>10} {:<6}", self.time, self.kind.name())?;
        if let Some(event) = &self.event {
            write!(f, " event={event}")?;
        }
        if let Some(track) = &self.track {
            write!(f, " track={track}")?;
        }
        if let Some(object) = self.object {
            write!(f, " object={object}")?;
        }
        if let Some(voice) = self.voice {
            write!(f, " voice={voice}")?;
        }
        if let Some(note) = self.note {
            write!(f, " note={note}")?;
        }
        write!(f, " {}", self.what)
    }
}

/// Which optional traces are on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TraceSwitches {
    /// Echo events as they are triggered.
    pub events: bool,
    /// Echo samples as they are played.
    pub samples: bool,
    /// Echo tracks as they start and end.
    pub tracks: bool,
}

impl TraceSwitches {
    /// Everything on.
    pub const ALL: TraceSwitches = TraceSwitches {
        events: true,
        samples: true,
        tracks: true,
    };

    /// Whether records of `kind` are kept.
    pub fn allows(&self, kind: TraceKind) -> bool {
        match kind {
            TraceKind::Event => self.events,
            TraceKind::Sample => self.samples,
            TraceKind::Track => self.tracks,
            _ => true,
        }
    }
}

/// The records not yet taken, bounded so an undrained log cannot grow without end.
#[derive(Debug, Clone)]
pub struct TraceLog {
    records: Vec<TraceRecord>,
    /// Which optional traces are on.
    pub switches: TraceSwitches,
    capacity: usize,
    dropped: u64,
}

impl Default for TraceLog {
    fn default() -> Self {
        Self::with_capacity(1 << 20)
    }
}

impl TraceLog {
    /// A log keeping at most `capacity` records between two [`Self::take`]s.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            records: Vec::new(),
            switches: TraceSwitches::default(),
            capacity,
            dropped: 0,
        }
    }

    /// Adds a record if its kind is switched on.
    pub fn push(&mut self, record: TraceRecord) {
        if !self.switches.allows(record.kind) {
            return;
        }
        if self.records.len() >= self.capacity {
            self.dropped += 1;
            return;
        }
        self.records.push(record);
    }

    /// Takes every record kept so far.
    pub fn take(&mut self) -> Vec<TraceRecord> {
        // The next batch is likely as long as this one: room for it at once, instead of
        // growing from nothing again.
        let room = self.records.len().min(self.capacity);
        std::mem::replace(&mut self.records, Vec::with_capacity(room))
    }

    /// The records kept so far.
    pub fn records(&self) -> &[TraceRecord] {
        &self.records
    }

    /// Records dropped because nobody took them in time.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}
