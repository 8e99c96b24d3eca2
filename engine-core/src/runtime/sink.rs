//! The boundary between the runtime and sound: a stream of timed commands. The runtime
//! decides what plays and when; a [`SoundSink`] (the sound server, or a recorder in tests)
//! carries it out. Every command carries the sample time it takes effect at, so a late
//! caller never moves a sound.

use super::clock::SampleTime;
use super::units::{Gain, Pan};
use std::path::Path;
use std::sync::Arc;

/// Identifies one playing note (one mixer voice) for its whole life.
pub type NoteId = u64;

/// The first note ID of the server's own requests (runtime notes count up from 1).
pub const SERVER_NOTES: NoteId = 1 << 62;

/// The first note ID of the world's own sounds (stations, music, ambience); below
/// [`SERVER_NOTES`].
pub const WORLD_NOTES: NoteId = 1 << 61;

/// A note ID as a person reads it: `note 5` for a track's note, `world note 8` and
/// `server note 3` for the world's and the server's own (whose IDs start at
/// [`WORLD_NOTES`] and [`SERVER_NOTES`]: nobody should have to read 2305843009213693960).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoteName(pub NoteId);

impl std::fmt::Display for NoteName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            n if n >= SERVER_NOTES => write!(f, "server note {}", n - SERVER_NOTES),
            n if n >= WORLD_NOTES => write!(f, "world note {}", n - WORLD_NOTES),
            n => write!(f, "note {n}"),
        }
    }
}

pub use crate::toolchain::project::ControlGroup;

/// What to play: a sample file, named as the resource cache knows it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SampleRef {
    /// The patch that chose it.
    pub patch: u32,
    /// Resource name: the file's path relative to its data directory, as the resource
    /// cache knows it (a later directory's file of the same name wins).
    pub name: Arc<str>,
    /// The file itself.
    pub path: Arc<Path>,
    /// A file outside the data folders that a trusted station or music folder links to
    /// (a symbolic link or a `.lnk` shortcut, `world::playlist`): the cache serves it
    /// from `path` under `name`. Never set for a track's samples.
    pub linked: bool,
}

/// The priority of the world's own sounds (stations, music, ambience): a track's
/// default.
pub const WORLD_PRIORITY: i32 = 32;
/// The priority of an audition (`play`): the highest, it always waits for its sample.
pub const AUDITION_PRIORITY: i32 = 127;

/// One timed command for the sound side.
#[derive(Debug, Clone, PartialEq)]
pub enum SoundCommand {
    /// Start a note.
    Start {
        /// The new note.
        note: NoteId,
        /// The Box-X voice (track slot) the note belongs to.
        voice: usize,
        /// When it starts.
        at: SampleTime,
        /// The sample.
        sample: SampleRef,
        /// Linear gain, 0 to 1 (before group and master volumes).
        gain: Gain,
        /// Where it sits between the speakers.
        pan: Pan,
        /// Playback-rate factor (1 = as recorded).
        pitch: f32,
        /// Loop until stopped.
        looping: bool,
        /// Option group.
        group: ControlGroup,
        /// Sent through the room reverb ("EAX"; the ambience score uses it).
        reverb: bool,
        /// The priority of what plays it (a track's `priority`, 0–127;
        /// [`WORLD_PRIORITY`] for stations, music and ambience, [`AUDITION_PRIORITY`] for
        /// an audition). The cache keeps samples of higher priorities longer, and a note
        /// of a priority at or above the server's `wait_priority` waits for a sample that
        /// misses the cache instead of being dropped late ("important sounds take the
        /// miss").
        priority: i32,
    },
    /// Stop a note with a short fade.
    Stop {
        /// The note.
        note: NoteId,
        /// When the fade starts.
        at: SampleTime,
    },
    /// Move a note's gain to a new value over a ramp.
    SetGain {
        /// The note.
        note: NoteId,
        /// When the ramp starts.
        at: SampleTime,
        /// Target linear gain.
        gain: Gain,
        /// Ramp length in samples.
        ramp: u32,
    },
    /// Move a note's pan to a new value over a ramp.
    SetPan {
        /// The note.
        note: NoteId,
        /// When the ramp starts.
        at: SampleTime,
        /// Target pan.
        pan: Pan,
        /// Ramp length in samples.
        ramp: u32,
    },
}

impl SoundCommand {
    /// The note the command is about.
    pub fn note(&self) -> NoteId {
        match self {
            SoundCommand::Start { note, .. }
            | SoundCommand::Stop { note, .. }
            | SoundCommand::SetGain { note, .. }
            | SoundCommand::SetPan { note, .. } => *note,
        }
    }

    /// When the command takes effect.
    pub fn at(&self) -> SampleTime {
        match self {
            SoundCommand::Start { at, .. }
            | SoundCommand::Stop { at, .. }
            | SoundCommand::SetGain { at, .. }
            | SoundCommand::SetPan { at, .. } => *at,
        }
    }
}

/// Where the runtime sends its commands.
pub trait SoundSink: Send {
    /// Carries out (or queues) one command.
    fn send(&mut self, command: SoundCommand);
}

/// A sink that keeps every command, for tests and for inspecting a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecordingSink {
    /// The commands in the order sent.
    pub commands: Vec<SoundCommand>,
}

impl SoundSink for RecordingSink {
    fn send(&mut self, command: SoundCommand) {
        self.commands.push(command);
    }
}

/// A sink that drops everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct NullSink;

impl SoundSink for NullSink {
    fn send(&mut self, _command: SoundCommand) {}
}

/// A sink shared between the engine and an observer (tests read what was sent while
/// the engine owns the sink).
#[derive(Debug, Clone, Default)]
pub struct SharedSink(pub Arc<std::sync::Mutex<Vec<SoundCommand>>>);

impl SharedSink {
    /// A copy of everything sent so far.
    pub fn commands(&self) -> Vec<SoundCommand> {
        self.0.lock().map(|c| c.clone()).unwrap_or_default()
    }

    /// Takes everything sent so far (the sink becomes empty).
    pub fn take(&self) -> Vec<SoundCommand> {
        self.0
            .lock()
            .map(|mut c| std::mem::take(&mut *c))
            .unwrap_or_default()
    }
}

impl SoundSink for SharedSink {
    fn send(&mut self, command: SoundCommand) {
        if let Ok(mut commands) = self.0.lock() {
            commands.push(command);
        }
    }
}

#[cfg(test)]
mod note_name_tests {
    use super::*;

    #[test]
    fn notes_read_by_their_own_numbers() {
        assert_eq!(NoteName(5).to_string(), "note 5");
        assert_eq!(NoteName(WORLD_NOTES + 42).to_string(), "world note 42");
        assert_eq!(NoteName(SERVER_NOTES + 3).to_string(), "server note 3");
    }
}
