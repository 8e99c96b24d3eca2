//! The mixer: plays voices on the audio thread (the sound server's real-time half).
//!
//! The control side ([`MixerHandle`]) sends timed [`MixCommand`]s through a lock-free
//! single-producer ring (the sound server's FIFO); option volumes and meters are atomics in
//! [`MixerControls`]; telemetry and retired buffers come back through rings. The audio
//! side ([`Mixer`]) renders blocks: it resamples each voice from its sample's rate to
//! the output rate, applies gain and pan ramps, starts voices at their exact frame,
//! fades stopped voices, sums the FX / Music / VOX buses with their volumes and the
//! master, and soft-clips. Each [`voice`] owns its state — what it plays, its
//! [`playhead`] (position, rate, gain and pan ramps) and what is scheduled for it — and
//! renders itself a segment at a time; the inner loops that interpolate a sample into a
//! bus — linear or cubic, eight frames at a time with SIMD where they can — are in
//! [`kernel`]. Voices started with `reverb` also go through the
//! room [`reverb`] (its level is an atomic) on their way into the FX bus. [`stream`] feeds
//! long files from a streaming thread.

pub mod command;
pub mod controls;
pub mod kernel;
pub mod meters;
pub mod playhead;
pub mod render;
pub mod reverb;
pub mod stream;
pub mod voice;

pub use command::{MixCommand, MixEvent, Retired, VoiceSource};
pub use controls::{MixerControls, MixerSnapshot};
pub use kernel::Interpolation;
pub use render::Mixer;

use std::sync::Arc;

/// How a mixer is made.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MixerConfig {
    /// Output frames per second.
    pub sample_rate: u32,
    /// Voices that can sound at once (the runtime's Box-X limit is on tracks; a track
    /// may have several notes).
    pub max_voices: usize,
    /// Commands that can wait in the ring.
    pub command_capacity: usize,
    /// Largest block rendered at once (longer requests are split).
    pub max_block: usize,
    /// Length of the fade when a voice is stopped.
    pub stop_fade_ms: f32,
    /// How voices read between the frames of their samples: linear (the default) or
    /// cubic (4-point Catmull-Rom: smoother, about twice the work). Streams are always
    /// read linearly.
    pub interpolation: Interpolation,
}

impl Default for MixerConfig {
    fn default() -> Self {
        Self {
            sample_rate: 48_000,
            max_voices: 256,
            command_capacity: 8192,
            max_block: 2048,
            stop_fade_ms: 5.0,
            interpolation: Interpolation::Linear,
        }
    }
}

/// The control side of a mixer.
pub struct MixerHandle {
    commands: rtrb::Producer<MixCommand>,
    events: rtrb::Consumer<MixEvent>,
    retired: rtrb::Consumer<Retired>,
    /// Volumes, meters, position.
    pub controls: Arc<MixerControls>,
    sample_rate: u32,
}

/// Makes a mixer and its control handle.
pub fn mixer(config: MixerConfig) -> (MixerHandle, Mixer) {
    let capacity = config.command_capacity.max(16);
    let (command_in, command_out) = rtrb::RingBuffer::new(capacity);
    let (event_in, event_out) = rtrb::RingBuffer::new(capacity * 2);
    let (retire_in, retire_out) = rtrb::RingBuffer::new(config.max_voices.max(1) * 4 + capacity);
    let controls = Arc::new(MixerControls {
        voice_levels: (0..config.max_voices.max(1))
            .map(|_| controls::VoiceLevel::default())
            .collect(),
        ..MixerControls::default()
    });
    let mixer = Mixer::new(
        &config,
        command_out,
        event_in,
        retire_in,
        Arc::clone(&controls),
    );
    let handle = MixerHandle {
        commands: command_in,
        events: event_out,
        retired: retire_out,
        controls,
        sample_rate: config.sample_rate,
    };
    (handle, mixer)
}

impl MixerHandle {
    /// Sends a command; gives it back if the ring is full.
    pub fn send(&mut self, command: MixCommand) -> Result<(), MixCommand> {
        self.commands
            .push(command)
            .map_err(|rtrb::PushError::Full(c)| c)
    }

    /// Telemetry the mixer has sent since the last call.
    pub fn events(&mut self) -> Vec<MixEvent> {
        let mut out = Vec::new();
        while let Ok(event) = self.events.pop() {
            out.push(event);
        }
        out
    }

    /// Frees what the audio thread has finished with; returns how many.
    pub fn collect_retired(&mut self) -> usize {
        let mut n = 0;
        while self.retired.pop().is_ok() {
            n += 1;
        }
        n
    }

    /// Output frames per second.
    pub fn sample_rate(&self) -> u32 {
        self.sample_rate
    }

    /// Frames the mixer has rendered.
    pub fn position(&self) -> u64 {
        self.controls
            .position
            .load(std::sync::atomic::Ordering::Acquire)
    }
}
