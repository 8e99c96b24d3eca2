//! The HIT runtime: events in, timed sound commands out.
//!
//! - [`engine`] — the [`Engine`]: event dispatch, Box-X voices and the instance map,
//!   ticking threads on a sample-time [`clock`], ducking, quieting.
//! - [`program`] predecodes the project's code; [`vm`] interprets it one thread at a
//!   time; `engine::host` is what instructions do outside their thread.
//! - [`hooks`] are the events handed to the world instead of played; [`outcome`] is what
//!   a trigger did, and [`DecisionKind`] the one word for each kind of decision.
//! - [`hash`] is the one fast hasher of the engine's own tables.
//! - [`picks`] hit-list picks without immediate repetition; [`rng`] is the seeded generator.
//! - [`sink`] is the boundary to sound ([`SoundSink`], [`SoundCommand`]); [`samples`]
//!   tells the runtime how long samples are; [`levels`] is what the world and the mixer
//!   tell it about volumes and pans; [`trace`] records every decision;
//!   [`units`] and [`clock`] give pans, gains and sample times their own types.
//!
//! Deterministic: the same project, seed and timed inputs give the same commands and
//! the same trace.

pub mod clock;
pub mod debug;
pub mod engine;
pub mod hash;
pub mod hooks;
pub mod levels;
pub mod objects;
pub mod outcome;
pub mod picks;
pub mod program;
mod queue;
pub mod rng;
pub mod samples;
pub mod sink;
pub mod thread;
pub mod trace;
pub mod units;
pub mod vm;
pub mod voices;

pub use clock::{Clock, SampleTime};
pub use engine::MAX_LIST_DEPTH;
pub use engine::{ActiveTrack, Engine, EngineConfig, EventArgs, HookEvent, Outcome, TriggerError};
pub use outcome::DecisionKind;
pub use samples::{FixedSamples, SampleInfo, SampleLibrary, UniformSamples};
pub use sink::{
    ControlGroup, NoteId, NullSink, RecordingSink, SampleRef, SharedSink, SoundCommand, SoundSink,
};
pub use trace::{TraceKind, TraceRecord, TraceSwitches};
pub use units::{Gain, Pan};
