//! Decoding a whole compressed file: within the length and size limits, reserving the
//! samples from a memory budget before each allocation (at once for FLAC, which says how
//! long it is; step by step otherwise).

use std::io::Cursor;

use super::super::detect::CompressedKind;
use super::super::output::Output;
use super::super::{AudioInfo, DecodeError, DecodeLimits, Decoded};
use super::Compressed;
use crate::sound::audio::{MemoryBudget, SampleBuffer};

/// Frames moved per step of a whole-file decode.
const DECODE_CHUNK_FRAMES: u64 = 1 << 16;

impl Compressed<'_> {
    /// Decodes everything that is left, up to `limits.max_frames` and `limits.max_bytes`,
    /// reserving the samples from `budget` before each allocation.
    pub(super) fn decode_all(
        mut self,
        limits: &DecodeLimits,
        budget: &mut dyn MemoryBudget,
    ) -> Result<Decoded, DecodeError> {
        let channels = usize::from(self.info.channels).max(1);
        let too_long = DecodeError::TooLong {
            max_frames: limits.max_frames,
            sample_rate: self.info.sample_rate,
        };
        let mut output = Output::new(budget, limits);
        // FLAC says how long it is: a size over the limit is refused before decoding, and
        // the samples are allocated once.
        let mut promised = self.promised_frames;
        if let Some(frames) = promised {
            if frames > limits.max_frames {
                return Err(too_long);
            }
            output.expect(frames.saturating_mul(channels as u64))?;
        }
        loop {
            let frames_left = limits.max_frames.saturating_sub(self.frames_out);
            let mut want = DECODE_CHUNK_FRAMES
                .min(frames_left)
                .min((output.room() / channels) as u64);
            // Up to the promised length, the room made for it is enough.
            let promised_left = promised.map(|p| p.saturating_sub(self.frames_out));
            if let Some(left) = promised_left.filter(|&left| left > 0) {
                want = want.min(left);
            }
            let want = usize::try_from(want).unwrap_or(0);
            if want == 0 || promised_left == Some(0) {
                // At a limit or at the promised end: is there more?
                let mut one = Vec::with_capacity(channels);
                if self.read(&mut one, 1)? == 0 {
                    break;
                }
                if want == 0 {
                    return Err(if frames_left == 0 {
                        too_long
                    } else {
                        output.too_large()
                    });
                }
                // Longer than the header said: grow step by step from here.
                promised = None;
                output.room_for(one.len())?;
                output.samples().extend_from_slice(&one);
                continue;
            }
            output.room_for(want * channels)?;
            if self.read(output.samples(), want)? == 0 {
                break;
            }
        }
        let data = output.finish();
        let info = self.info.clone();
        Ok(Decoded {
            buffer: SampleBuffer {
                sample_rate: info.sample_rate,
                channels: info.channels,
                data,
            },
            info,
            partial: self.partial,
        })
    }
}

/// Reads the headers of an in-memory file of `kind`.
pub(crate) fn probe_slice(bytes: &[u8], kind: CompressedKind) -> Result<AudioInfo, DecodeError> {
    Compressed::open(Box::new(Cursor::new(bytes)), kind).map(|c| c.info)
}

/// Decodes a whole in-memory file of `kind`, reserving its samples from `budget`.
pub(crate) fn decode_slice(
    bytes: &[u8],
    kind: CompressedKind,
    limits: &DecodeLimits,
    budget: &mut dyn MemoryBudget,
) -> Result<Decoded, DecodeError> {
    Compressed::open(Box::new(Cursor::new(bytes)), kind)?.decode_all(limits, budget)
}
