//! XA: the Sims' Maxis 4-bit ADPCM sounds, decoded bit for bit as the reference decoder
//! does, whole from memory or block by block from disk.
//!
//! The layout (`docs/audio.md`): a 24-byte little-endian header — `X`, `A`, any byte, NUL;
//! the decoded PCM's size in bytes; then a WAVEFORMATEX's PCM fields (format tag, channels
//! 1–8, sample rate, bytes per second, block align = channels × 2, bits = 16) — and blocks of
//! 28 frames: one control byte per channel (filter, shift), then 14 rows of one byte per
//! channel, two frames a row. The last block holds only the rows its frames need.
//!
//! The header is checked before anything is decoded: no channels, more than 8, a rate
//! outside what HitBench plays, or a block align that does not match the channels is an
//! error, and so is data that ends before the frames the header promises (a cut-off
//! file). Sizes come from the header only after they are checked against the file, so a
//! few bytes can never make the decoder allocate more than the limits allow. A control
//! byte naming a filter XA does not have ends the audio there, as damage (`partial`).
//!
//! The parts: [`adpcm`] is the codec (a block into 16-bit samples); [`stream`] reads the
//! blocks from memory or disk a run at a time. Here: the header, and whole-file decoding.

mod adpcm;
mod stream;

use super::detect::io_err;
use super::mix::output_channels;
use super::output::Output;
use super::source::{ByteSource, SliceSource};
use super::{AudioFormat, AudioInfo, DecodeError, DecodeLimits, Decoded, check_rate};
use crate::sound::audio::{MemoryBudget, SampleBuffer};

pub(crate) use stream::XaReader;

/// The format's name in errors.
const FORMAT: &str = "XA";

/// Bytes of the header; the blocks follow it.
pub(crate) const HEADER_BYTES: u64 = 24;

/// Most channels an XA file may have.
pub(crate) const MAX_CHANNELS: u16 = 8;

/// An XA file that breaks the format, with what is wrong.
fn invalid(detail: impl Into<String>) -> DecodeError {
    DecodeError::Invalid {
        format: FORMAT,
        detail: detail.into(),
    }
}

/// What an XA header says, checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct XaHeader {
    /// Channels in the file (1–8).
    pub(crate) channels: u16,
    /// Frames per second.
    pub(crate) sample_rate: u32,
    /// Frames the header promises (decoded size / block align).
    pub(crate) frames: u64,
}

impl XaHeader {
    /// Reads and checks the 24-byte header at the start of `src`.
    pub(crate) fn read(src: &mut dyn ByteSource) -> Result<Self, DecodeError> {
        let Some(head) = src.array_at::<24>(0).map_err(io_err)? else {
            return Err(invalid(format!(
                "the file ends inside its {HEADER_BYTES}-byte header ({} bytes)",
                src.len()
            )));
        };
        let u16_at = |at: usize| u16::from_le_bytes([head[at], head[at + 1]]);
        let u32_at =
            |at: usize| u32::from_le_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]);
        let decoded_bytes = u32_at(4);
        let channels = u16_at(10);
        let sample_rate = u32_at(12);
        let block_align = u16_at(20);
        if channels == 0 || channels > MAX_CHANNELS {
            return Err(invalid(format!(
                "the header says {channels} channels; XA has 1 to {MAX_CHANNELS}"
            )));
        }
        check_rate(FORMAT, "the header", sample_rate)?;
        if block_align != channels * 2 {
            return Err(invalid(format!(
                "the header's block align is {block_align} bytes, but a frame of {channels} \
                 16-bit channel(s) is {} bytes",
                channels * 2
            )));
        }
        Ok(Self {
            channels,
            sample_rate,
            frames: u64::from(decoded_bytes / u32::from(block_align)),
        })
    }

    /// What the header says, as the decoders report it.
    pub(crate) fn info(&self) -> AudioInfo {
        AudioInfo {
            format: AudioFormat::Xa,
            sample_rate: self.sample_rate,
            channels: output_channels(self.channels),
            source_channels: self.channels,
            bits: Some(4),
            frames: Some(self.frames),
        }
    }

    /// Bytes of block data the promised frames take.
    pub(crate) fn data_bytes(&self) -> u64 {
        adpcm::data_bytes(self.frames, u64::from(self.channels))
    }

    /// Refuses a file of `len` bytes that ends before the frames the header promises.
    pub(crate) fn check_complete(&self, len: u64) -> Result<(), DecodeError> {
        let needed = self.data_bytes();
        let present = len.saturating_sub(HEADER_BYTES);
        if present >= needed {
            return Ok(());
        }
        Err(invalid(format!(
            "the data ends before the frames the header promises: {} frames of {} channel(s) \
             take {needed} bytes after the {HEADER_BYTES}-byte header, but the file holds only \
             {present} (cut short?)",
            self.frames, self.channels
        )))
    }
}

/// Reads the header of an XA file held (at least its first bytes) in memory.
pub(crate) fn probe_slice(bytes: &[u8]) -> Result<AudioInfo, DecodeError> {
    XaHeader::read(&mut SliceSource::new(bytes)).map(|h| h.info())
}

/// Decodes a whole XA file held in memory, reserving its samples from `budget`.
pub(crate) fn decode_slice(
    bytes: &[u8],
    limits: &DecodeLimits,
    budget: &mut dyn MemoryBudget,
) -> Result<Decoded, DecodeError> {
    let mut reader = XaReader::open(SliceSource::new(bytes))?;
    let info = reader.info();
    if reader.header().frames > limits.max_frames {
        return Err(DecodeError::TooLong {
            max_frames: limits.max_frames,
            sample_rate: info.sample_rate,
        });
    }
    // The length is known and the data checked to be there: the size is checked and
    // reserved before the one allocation.
    let mut output = Output::new(budget, limits);
    let total = reader
        .header()
        .frames
        .saturating_mul(u64::from(info.channels));
    output.expect(total)?;
    let max_frames = usize::try_from(reader.header().frames).unwrap_or(usize::MAX);
    while reader.read(output.samples(), max_frames)? > 0 {}
    let partial = reader.partial().map(str::to_owned);
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
mod tests;
