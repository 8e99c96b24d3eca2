//! WAV: our own tolerant RIFF chunk walker and sample decoder, for whole files in memory and
//! for streaming the `data` chunk from disk.
//!
//! Real files break the rules in ways a strict reader rejects, so the walker:
//! * ignores the RIFF size (it is often the file size, 8 too large, or too small) and walks
//!   chunks to the end of the file, stopping quietly at stray bytes that are not a chunk;
//! * accepts odd-sized chunks with or without their pad byte (it looks for the next chunk id
//!   at both places);
//! * takes `fmt ` and `data` wherever they are, skipping `LIST`, `fact`, `cue `, `id3 ` …;
//! * reads `fmt ` chunks of 16, 18 or 40 bytes, with `WAVE_FORMAT_EXTENSIBLE` resolved through
//!   the sub-format GUID (whose first two bytes are the real format tag);
//! * clamps a `data` chunk that claims more bytes than the file has to what is there, and marks
//!   the result partial; a trailing partial frame is dropped.
//!
//! The parts: [`chunks`] walks the file and resolves its `fmt ` chunk into a layout,
//! [`tags`] says which encoding a format tag means, [`encoding`] converts samples to `f32`, [`stream`] reads
//! the `data` chunk from disk piece by piece; whole files in memory are decoded here.

mod chunks;
mod encoding;
mod stream;
mod tags;

use super::output::Output;
use super::source::SliceSource;
use super::{DecodeError, DecodeLimits, Decoded};
use crate::sound::audio::{MemoryBudget, SampleBuffer};
use chunks::WavLayout;
use encoding::decode_frames;

pub(crate) use chunks::parse;
pub(crate) use stream::WavStream;

/// A WAV file that breaks the format beyond repair, with what is wrong.
pub(super) fn invalid(detail: impl Into<String>) -> DecodeError {
    DecodeError::Invalid {
        format: "WAV",
        detail: detail.into(),
    }
}

fn too_long(layout: &WavLayout, limits: &DecodeLimits) -> Option<DecodeError> {
    (layout.frames > limits.max_frames).then_some(DecodeError::TooLong {
        max_frames: limits.max_frames,
        sample_rate: layout.fmt.sample_rate,
    })
}

/// Decodes a whole WAV file held in memory, reserving its samples from `budget`.
pub(crate) fn decode_slice(
    bytes: &[u8],
    limits: &DecodeLimits,
    budget: &mut dyn MemoryBudget,
) -> Result<Decoded, DecodeError> {
    let layout = parse(&mut SliceSource::new(bytes))?;
    if let Some(e) = too_long(&layout, limits) {
        return Err(e);
    }
    let partial = layout.partial_message();
    if layout.frames == 0 && partial.is_some() {
        return Err(layout.no_audio());
    }
    let info = layout.info();
    let audio = usize::try_from(layout.data_start)
        .ok()
        .zip(usize::try_from(layout.frames * layout.fmt.frame_bytes()).ok())
        .and_then(|(start, n)| bytes.get(start..start.checked_add(n)?))
        .ok_or_else(|| invalid("the data chunk lies outside the file"))?;
    // The length is known: the size is checked and reserved before the one allocation.
    let mut output = Output::new(budget, limits);
    output.expect(layout.frames.saturating_mul(u64::from(info.channels)))?;
    let mut scratch = Vec::new();
    decode_frames(
        &layout.fmt,
        &layout.mix(),
        audio,
        &mut scratch,
        output.samples(),
    );
    let data = output.finish();
    Ok(Decoded {
        buffer: SampleBuffer {
            sample_rate: info.sample_rate,
            channels: info.channels,
            data,
        },
        info,
        partial,
    })
}

#[cfg(test)]
pub(crate) mod tests;
