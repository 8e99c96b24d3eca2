//! Audio data: decoded sample buffers and the decoders that make them.
//!
//! [`SampleBuffer`] is what the resource cache keeps and the mixer plays: interleaved
//! `f32` frames at the file's own rate. [`decode`] turns file bytes (WAV, MP3, Ogg
//! Vorbis, FLAC) into buffers and streams.

pub mod decode;

/// Decoded audio: interleaved `f32` samples in −1…1, one or two channels, at the file's
/// sample rate.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SampleBuffer {
    /// Frames per second.
    pub sample_rate: u32,
    /// 1 (mono) or 2 (stereo).
    pub channels: u16,
    /// Interleaved samples: `frames() × channels` values.
    pub data: Vec<f32>,
}

impl SampleBuffer {
    /// Number of frames.
    pub fn frames(&self) -> usize {
        self.data.len() / usize::from(self.channels.max(1))
    }

    /// Length in seconds.
    pub fn seconds(&self) -> f64 {
        self.frames() as f64 / f64::from(self.sample_rate.max(1))
    }

    /// Bytes of memory the samples take (what the cache budgets).
    pub fn size_bytes(&self) -> usize {
        self.data.len() * size_of::<f32>()
    }
}
