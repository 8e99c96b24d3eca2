//! The audio thread's end of a stream: a long sound (music, radio, anything too large to
//! hold in memory) is decoded into a ring by the streamer (`crate::sound::streamer`, off
//! the audio thread), and the voice playing it reads the ring here. The audio thread
//! never touches a file.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// State both ends of a stream see.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    /// The source has no more frames.
    pub(crate) finished: AtomicBool,
    /// The reader was dropped or retired: stop decoding.
    pub(crate) abandoned: AtomicBool,
    /// Frames decoded so far.
    pub(crate) decoded: AtomicU64,
}

/// The audio thread's end of a stream.
#[derive(Debug)]
pub struct StreamReader {
    ring: rtrb::Consumer<f32>,
    shared: Arc<Shared>,
    /// Frames per second of the source.
    pub sample_rate: u32,
    /// 1 or 2.
    pub channels: u16,
}

impl StreamReader {
    /// The reading end of a ring the streamer fills, with the state both ends share.
    pub(crate) fn new(
        ring: rtrb::Consumer<f32>,
        shared: Arc<Shared>,
        sample_rate: u32,
        channels: u16,
    ) -> Self {
        Self {
            ring,
            shared,
            sample_rate,
            channels,
        }
    }

    /// Takes the next frame into `frame` (left, right); false if none is ready.
    #[inline]
    pub fn next_frame(&mut self, frame: &mut [f32; 2]) -> bool {
        let channels = usize::from(self.channels.max(1));
        if self.ring.slots() < channels {
            return false;
        }
        let Ok(left) = self.ring.pop() else {
            return false;
        };
        let right = if channels == 2 {
            self.ring.pop().unwrap_or(left)
        } else {
            left
        };
        *frame = [left, right];
        true
    }

    /// True once the source has ended and every frame has been read.
    pub fn drained(&self) -> bool {
        self.shared.finished.load(Ordering::Acquire) && self.ring.is_empty()
    }
}

impl Drop for StreamReader {
    fn drop(&mut self) {
        self.shared.abandoned.store(true, Ordering::Release);
    }
}
