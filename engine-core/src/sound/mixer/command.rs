//! What travels between the control side and the audio thread: timed commands in
//! (the sound server's FIFO), telemetry out, and retired buffers out so the audio thread
//! does not free memory (a buffer is dropped there only when both the return ring and
//! the spare list built with the mixer are full; `MixerControls::dropped` counts it).

use super::stream::StreamReader;
use crate::runtime::sink::{ControlGroup, NoteId};
use crate::runtime::units::{Gain, Pan};
use crate::sound::cache::Handle;

/// Where a voice's audio comes from.
#[derive(Debug)]
pub enum VoiceSource {
    /// A decoded sample held in memory: the resource cache's handle, so the cache
    /// counts the memory as in use while the voice plays.
    Sample(Handle),
    /// A stream decoded on the streaming thread into a ring.
    Stream(StreamReader),
}

/// A command for the mixer, effective at sample time `at` (the mixer's frame count).
#[derive(Debug)]
pub enum MixCommand {
    /// Start a voice.
    Start {
        /// The note it plays.
        note: NoteId,
        /// When to start.
        at: u64,
        /// What to play.
        source: VoiceSource,
        /// Linear gain.
        gain: Gain,
        /// Where it sits between the speakers.
        pan: Pan,
        /// Playback-rate factor.
        pitch: f32,
        /// Loop until stopped.
        looping: bool,
        /// Option group.
        group: ControlGroup,
        /// Also feed the room reverb (its level is [`super::MixerControls::reverb`]).
        reverb: bool,
    },
    /// Fade a voice out and end it.
    Stop {
        /// The note.
        note: NoteId,
        /// When the fade starts.
        at: u64,
    },
    /// Ramp a voice's gain.
    SetGain {
        /// The note.
        note: NoteId,
        /// When the ramp starts.
        at: u64,
        /// Target gain.
        gain: Gain,
        /// Ramp length in frames.
        ramp: u32,
    },
    /// Ramp a voice's pan.
    SetPan {
        /// The note.
        note: NoteId,
        /// When the ramp starts.
        at: u64,
        /// Target pan.
        pan: Pan,
        /// Ramp length in frames.
        ramp: u32,
    },
}

/// What the mixer reports back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MixEvent {
    /// A voice started sounding at this frame (later than asked if the command came
    /// late: `late` frames).
    Started {
        /// The note.
        note: NoteId,
        /// The frame it started at.
        at: u64,
        /// How many frames after its scheduled time.
        late: u64,
    },
    /// A voice ended (played out, or faded after a stop).
    Ended {
        /// The note.
        note: NoteId,
        /// The frame it ended at.
        at: u64,
    },
    /// A start found no free voice and was dropped.
    NoVoice {
        /// The note.
        note: NoteId,
    },
    /// A stream ran dry (its decoder fell behind).
    Starved {
        /// The note.
        note: NoteId,
    },
}

/// Something the audio thread hands back to be freed elsewhere.
#[derive(Debug)]
pub enum Retired {
    /// A sample handle.
    Sample(Handle),
    /// A stream's ring.
    Stream(StreamReader),
}
