//! What the runtime needs to know about samples: how long they are, so `wait_samp`
//! knows when a note ends. The resource cache answers in the real engine; tests give
//! fixed lengths.

use super::sink::SampleRef;
use std::collections::HashMap;

/// Length and rate of a sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampleInfo {
    /// Sample frames.
    pub frames: u64,
    /// Frames per second.
    pub sample_rate: u32,
}

impl SampleInfo {
    /// How long the sample plays at `engine_rate` samples a second, at its own pitch
    /// (0 for a sample without a rate).
    pub fn length_at(self, engine_rate: u32) -> u64 {
        if self.sample_rate == 0 {
            return 0;
        }
        let samples =
            u128::from(self.frames) * u128::from(engine_rate) / u128::from(self.sample_rate);
        u64::try_from(samples).unwrap_or(u64::MAX)
    }
}

/// Answers "how long is this sample?".
pub trait SampleLibrary: Send {
    /// The sample's length, or why it cannot be played.
    fn info(&mut self, sample: &SampleRef) -> Result<SampleInfo, String>;
}

/// Every sample has the same length (tests).
#[derive(Debug, Clone, Copy)]
pub struct UniformSamples(pub SampleInfo);

impl SampleLibrary for UniformSamples {
    fn info(&mut self, _sample: &SampleRef) -> Result<SampleInfo, String> {
        Ok(self.0)
    }
}

/// Lengths by sample name; unknown names are missing (tests).
#[derive(Debug, Clone, Default)]
pub struct FixedSamples {
    /// Lengths by resource name.
    pub lengths: HashMap<String, SampleInfo>,
    /// Length of any sample not listed (`None`: not listed means missing).
    pub default: Option<SampleInfo>,
}

impl SampleLibrary for FixedSamples {
    fn info(&mut self, sample: &SampleRef) -> Result<SampleInfo, String> {
        self.lengths
            .get(sample.name.as_ref())
            .copied()
            .or(self.default)
            .ok_or_else(|| format!("no sample `{}`", sample.name))
    }
}
