//! Audio data: decoded sample buffers and the decoders that make them.
//!
//! [`SampleBuffer`] is what the resource cache keeps and the mixer plays: interleaved
//! `f32` frames at the file's own rate. [`decode`] turns file bytes (WAV, MP3, Ogg
//! Vorbis, FLAC) into buffers and streams. [`MemoryBudget`] is how a decode asks for the
//! memory of its samples before it allocates them (the resource cache's reservations).

pub mod decode;

/// Memory asked for before it is allocated: a decoder reserves the bytes of the samples it
/// is about to allocate, and gives back what it frees again. The resource cache implements
/// it with a reservation against its budget, so decoded audio never outgrows the budget.
pub trait MemoryBudget {
    /// Asks for `bytes` more. An error refuses: the caller must not allocate them.
    fn reserve(&mut self, bytes: usize) -> Result<(), BudgetError>;
    /// Gives back `bytes` reserved earlier that are no longer allocated.
    fn release(&mut self, bytes: usize);
}

/// Why a [`MemoryBudget`] refused a reservation, with the sizes that decided it. (The
/// resource it was for is named by whoever asked: the cache's
/// [`OverBudget`](crate::sound::cache::CacheError::OverBudget).)
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum BudgetError {
    /// The request alone is more than the cache's whole budget.
    #[error(
        "it needs {} of memory, more than the cache's whole budget of {}",
        size(*.needed),
        size(*.budget)
    )]
    OverWholeBudget {
        /// Bytes asked for.
        needed: usize,
        /// The whole budget.
        budget: usize,
    },
    /// Even after evicting what nobody holds, the cache's budget is taken by sounds in use.
    #[error(
        "it needs {} more of memory and the cache's budget of {} is taken by sounds in \
         use: {} cached ({} of it playing or otherwise held), {} evicted but still held, \
         {} being loaded",
        size(*.needed),
        size(*.budget),
        size(*.cached),
        size(*.in_use),
        size(*.pinned),
        size(*.loading)
    )]
    TakenByUse {
        /// Bytes asked for.
        needed: usize,
        /// The whole budget.
        budget: usize,
        /// Bytes the cache holds.
        cached: usize,
        /// The part of `cached` that someone else holds too.
        in_use: usize,
        /// Evicted bytes still held (pinned).
        pinned: usize,
        /// Bytes reserved by loads in progress.
        loading: usize,
    },
    /// A budget that keeps only a count of bytes has fewer left than asked for.
    #[error("only {} left", size(*.left))]
    Exhausted {
        /// Bytes left.
        left: usize,
    },
}

/// A byte count for a message ("812 bytes", "3.5 KiB").
fn size(bytes: usize) -> String {
    crate::runtime::units::format_bytes(bytes as u64)
}

/// A budget that grants everything (only the decoder's own limits apply).
#[derive(Debug, Clone, Copy, Default)]
pub struct Unmetered;

impl MemoryBudget for Unmetered {
    fn reserve(&mut self, _bytes: usize) -> Result<(), BudgetError> {
        Ok(())
    }

    fn release(&mut self, _bytes: usize) {}
}

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
