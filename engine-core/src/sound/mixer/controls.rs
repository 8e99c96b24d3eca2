//! Values shared between the control side and the audio thread without locks: option
//! volumes the mixer reads (the sound server design's "global variable the server reads")
//! and meters, position and load it writes back.

use crate::runtime::sink::ControlGroup;
use crate::runtime::trace::BusVolumes;
use crate::runtime::units::Gain;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};

/// An `f32` in an `AtomicU32`.
#[derive(Debug, Default)]
pub struct AtomicF32(AtomicU32);

impl AtomicF32 {
    /// A new value.
    pub fn new(value: f32) -> Self {
        Self(AtomicU32::new(value.to_bits()))
    }

    /// Reads it.
    pub fn get(&self) -> f32 {
        f32::from_bits(self.0.load(Ordering::Relaxed))
    }

    /// Writes it.
    pub fn set(&self, value: f32) {
        self.0.store(value.to_bits(), Ordering::Relaxed);
    }
}

/// Index of a group's bus (0 FX, 1 Music, 2 VOX).
pub fn group_index(group: ControlGroup) -> usize {
    match group {
        ControlGroup::Fx => 0,
        ControlGroup::Music => 1,
        ControlGroup::Vox => 2,
    }
}

/// The shared values.
#[derive(Debug)]
pub struct MixerControls {
    /// Master volume, 0…1 (more amplifies).
    pub master: AtomicF32,
    /// Option volumes of FX, Music and VOX.
    pub groups: [AtomicF32; 3],
    /// Wet level of the room reverb, 0 (off) to 1.
    pub reverb: AtomicF32,
    /// Peak of the last block per group bus (after its volume), then the master output.
    pub peaks: [AtomicF32; 4],
    /// Frames rendered since the mixer started.
    pub position: AtomicU64,
    /// Nanoseconds the last block took to render.
    pub render_ns: AtomicU64,
    /// Render time of the last block as a share of its duration (×1000).
    pub load_permille: AtomicU32,
    /// Voices playing now.
    pub voices: AtomicUsize,
    /// Blocks the output could not get in time (counted by the output).
    pub underruns: AtomicU64,
    /// Commands that found no free voice, events and retirements that found a full ring.
    pub dropped: AtomicU64,
    /// Samples the soft clipper had to bend (output hotter than full scale).
    pub clipped: AtomicU64,
    /// Hold: output silence and stand still (the debugger paused the engine).
    pub hold: AtomicBool,
    /// Loudness, RMS and overs per group bus (after its volume), then the output
    /// (`mixer::meters`).
    pub levels: [BusLevels; 4],
    /// Per mixer voice: the note it plays ([`FREE_VOICE`] when free) and its level in
    /// the last block, written by the audio thread at the end of every block.
    pub voice_levels: Vec<VoiceLevel>,
}

/// The loudness shown for silence (and before anything was measured), in LUFS: far
/// below anything audible, and a plain number wherever the value is written.
pub const SILENT_LUFS: f32 = -120.0;

/// A mixer voice slot's note in [`VoiceLevel::note`] when it plays nothing.
pub const FREE_VOICE: u64 = u64::MAX;

/// What one mixer voice played in the last block, and how loud.
#[derive(Debug)]
pub struct VoiceLevel {
    /// The note, or [`FREE_VOICE`].
    pub note: AtomicU64,
    /// Its output level (linear RMS estimate: the source's level where it played, times
    /// its gain and pan).
    pub level: AtomicF32,
}

impl Default for VoiceLevel {
    fn default() -> Self {
        Self {
            note: AtomicU64::new(FREE_VOICE),
            level: AtomicF32::new(0.0),
        }
    }
}

/// The meters of one bus, written every 100 ms by the audio thread.
#[derive(Debug)]
pub struct BusLevels {
    /// EBU R 128 momentary loudness (400 ms), LUFS.
    pub momentary: AtomicF32,
    /// EBU R 128 short-term loudness (3 s), LUFS.
    pub short_term: AtomicF32,
    /// RMS level over 300 ms (linear, 1 = full scale).
    pub rms: AtomicF32,
    /// Samples at or over full scale so far.
    pub overs: AtomicU64,
}

impl Default for BusLevels {
    fn default() -> Self {
        Self {
            momentary: AtomicF32::new(SILENT_LUFS),
            short_term: AtomicF32::new(SILENT_LUFS),
            rms: AtomicF32::new(0.0),
            overs: AtomicU64::new(0),
        }
    }
}

impl Default for MixerControls {
    fn default() -> Self {
        Self {
            master: AtomicF32::new(1.0),
            groups: [
                AtomicF32::new(1.0),
                AtomicF32::new(1.0),
                AtomicF32::new(1.0),
            ],
            reverb: AtomicF32::new(0.0),
            peaks: Default::default(),
            position: AtomicU64::new(0),
            render_ns: AtomicU64::new(0),
            load_permille: AtomicU32::new(0),
            voices: AtomicUsize::new(0),
            underruns: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
            clipped: AtomicU64::new(0),
            hold: AtomicBool::new(false),
            levels: Default::default(),
            voice_levels: Vec::new(),
        }
    }
}

impl MixerControls {
    /// Sets an option volume.
    pub fn set_group_volume(&self, group: ControlGroup, volume: f32) {
        if let Some(g) = self.groups.get(group_index(group)) {
            g.set(volume.max(0.0));
        }
    }

    /// An option volume.
    pub fn group_volume(&self, group: ControlGroup) -> f32 {
        self.groups
            .get(group_index(group))
            .map_or(1.0, AtomicF32::get)
    }

    /// Sets the master volume.
    pub fn set_master(&self, volume: f32) {
        self.master.set(volume.max(0.0));
    }

    /// The option group and master volumes, as the runtime records them with a note.
    pub fn bus_volumes(&self) -> BusVolumes {
        BusVolumes {
            groups: [
                Gain::new(self.groups[0].get()),
                Gain::new(self.groups[1].get()),
                Gain::new(self.groups[2].get()),
            ],
            master: Gain::new(self.master.get()),
        }
    }

    /// The level of each note the mixer played in its last block.
    pub fn note_levels(&self) -> std::collections::HashMap<u64, f32> {
        self.voice_levels
            .iter()
            .map(|v| (v.note.load(Ordering::Relaxed), v.level.get()))
            .filter(|&(note, _)| note != FREE_VOICE)
            .collect()
    }

    /// A snapshot for people and panels.
    pub fn snapshot(&self) -> MixerSnapshot {
        MixerSnapshot {
            master: self.master.get(),
            reverb: self.reverb.get(),
            groups: [
                self.groups[0].get(),
                self.groups[1].get(),
                self.groups[2].get(),
            ],
            peaks: [
                self.peaks[0].get(),
                self.peaks[1].get(),
                self.peaks[2].get(),
                self.peaks[3].get(),
            ],
            position: self.position.load(Ordering::Relaxed),
            render_ns: self.render_ns.load(Ordering::Relaxed),
            load: self.load_permille.load(Ordering::Relaxed) as f32 / 1000.0,
            voices: self.voices.load(Ordering::Relaxed),
            underruns: self.underruns.load(Ordering::Relaxed),
            dropped: self.dropped.load(Ordering::Relaxed),
            clipped: self.clipped.load(Ordering::Relaxed),
            momentary: self.levels.each_ref().map(|l| l.momentary.get()),
            short_term: self.levels.each_ref().map(|l| l.short_term.get()),
            rms: self.levels.each_ref().map(|l| l.rms.get()),
            overs: self
                .levels
                .each_ref()
                .map(|l| l.overs.load(Ordering::Relaxed)),
        }
    }
}

/// A copy of the shared values.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MixerSnapshot {
    /// Master volume.
    pub master: f32,
    /// FX, Music, VOX volumes.
    pub groups: [f32; 3],
    /// Room reverb wet level.
    pub reverb: f32,
    /// Peaks: FX, Music, VOX, master.
    pub peaks: [f32; 4],
    /// Frames rendered.
    pub position: u64,
    /// Last block's render time.
    pub render_ns: u64,
    /// Last block's render time over its duration.
    pub load: f32,
    /// Voices playing.
    pub voices: usize,
    /// Output underruns.
    pub underruns: u64,
    /// Dropped commands or telemetry.
    pub dropped: u64,
    /// Soft-clipped samples.
    pub clipped: u64,
    /// EBU R 128 momentary loudness (LUFS): FX, Music, VOX, output.
    pub momentary: [f32; 4],
    /// EBU R 128 short-term loudness (LUFS): FX, Music, VOX, output.
    pub short_term: [f32; 4],
    /// RMS over 300 ms (linear): FX, Music, VOX, output.
    pub rms: [f32; 4],
    /// Samples at or over full scale so far: FX, Music, VOX bus, output (before the
    /// soft clip).
    pub overs: [u64; 4],
}

impl Default for MixerSnapshot {
    /// Full volumes, silent meters.
    fn default() -> Self {
        Self {
            master: 1.0,
            groups: [1.0; 3],
            reverb: 0.0,
            peaks: [0.0; 4],
            position: 0,
            render_ns: 0,
            load: 0.0,
            voices: 0,
            underruns: 0,
            dropped: 0,
            clipped: 0,
            momentary: [SILENT_LUFS; 4],
            short_term: [SILENT_LUFS; 4],
            rms: [0.0; 4],
            overs: [0; 4],
        }
    }
}
