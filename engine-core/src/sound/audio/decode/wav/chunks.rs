//! The RIFF chunk walker: finds the `fmt ` and `data` chunks wherever they are, however
//! the sizes around them are wrong, and resolves the `fmt ` chunk (16, 18 or 40 bytes,
//! `WAVE_FORMAT_EXTENSIBLE` through its sub-format GUID) into a [`WavLayout`].

use super::super::detect::{io_err, printable};
use super::super::mix::{Mix, output_channels};
use super::super::source::ByteSource;
use super::super::{AudioFormat, AudioInfo, DecodeError, WavEncoding, check_rate};
use super::invalid;
use super::tags::encoding_for;

/// Format tag of `WAVE_FORMAT_EXTENSIBLE`.
pub(super) const TAG_EXTENSIBLE: u16 = 0xFFFE;
/// Chunks walked before giving up (a real file has a handful; this bounds hostile input).
const MAX_CHUNKS: u32 = 10_000;
/// Bytes converted per step, so that scratch buffers stay small.
const BLOCK_BYTES: usize = 256 * 1024;

/// The `fmt ` chunk, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WavFmt {
    pub(super) encoding: WavEncoding,
    pub(super) channels: u16,
    pub(super) sample_rate: u32,
    /// Significant bits per sample (the valid bits of an extensible header, if it gives them).
    bits: u16,
    /// Speaker positions from an extensible header, 0 if none.
    channel_mask: u32,
}

impl WavFmt {
    /// Bytes per frame: whole samples, ignoring the header's (often wrong) block align.
    pub(super) fn frame_bytes(&self) -> u64 {
        u64::from(self.channels) * u64::from(self.encoding.bytes_per_sample())
    }

    /// Whole frames per conversion step (at least one).
    pub(super) fn block_frames(&self) -> usize {
        let frame_bytes =
            usize::from(self.channels) * usize::from(self.encoding.bytes_per_sample());
        (BLOCK_BYTES / frame_bytes.max(1)).max(1)
    }
}

/// Where the audio is in a WAV file, and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WavLayout {
    pub(super) fmt: WavFmt,
    /// Offset of the first sample byte.
    pub(super) data_start: u64,
    /// Length the `data` chunk header claims.
    declared: u64,
    /// Bytes of it actually in the file.
    present: u64,
    /// The header said 0 bytes but audio follows (a recording that was never finalised).
    unfinalised: bool,
    /// Whole frames present.
    pub(super) frames: u64,
}

impl WavLayout {
    pub(crate) fn info(&self) -> AudioInfo {
        AudioInfo {
            format: AudioFormat::Wav {
                encoding: self.fmt.encoding,
            },
            sample_rate: self.fmt.sample_rate,
            channels: output_channels(self.fmt.channels),
            source_channels: self.fmt.channels,
            bits: Some(self.fmt.bits),
            frames: Some(self.frames),
        }
    }

    /// Why the audio is shorter than the header says, if it is.
    pub(super) fn partial_message(&self) -> Option<String> {
        if self.unfinalised {
            return Some(format!(
                "data chunk says 0 bytes but {} follow it (a recording that was never \
                 finalised?); they were decoded",
                self.present
            ));
        }
        (self.present < self.declared).then(|| {
            format!(
                "data chunk says {} bytes but only {} are in the file",
                self.declared, self.present
            )
        })
    }

    pub(super) fn mix(&self) -> Mix {
        Mix::new(
            usize::from(self.fmt.channels),
            usize::from(output_channels(self.fmt.channels)),
            u64::from(self.fmt.channel_mask),
        )
    }

    /// Error for a file whose data chunk is cut off before its first whole frame.
    pub(super) fn no_audio(&self) -> DecodeError {
        DecodeError::NoAudio {
            format: "WAV",
            detail: self.partial_message().unwrap_or_default(),
        }
    }
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    match b.get(at..at + 2) {
        Some(&[x, y]) => u16::from_le_bytes([x, y]),
        _ => 0,
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    match b.get(at..at + 4) {
        Some(&[a, b2, c, d]) => u32::from_le_bytes([a, b2, c, d]),
        _ => 0,
    }
}

/// Chunk ids are four printable ASCII characters; anything else is stray bytes.
fn plausible_id(id: &[u8]) -> bool {
    id.len() == 4 && id.iter().all(|b| (0x20..0x7F).contains(b))
}

/// Walks the chunks of a RIFF WAVE file and finds its format and audio.
pub(crate) fn parse(src: &mut dyn ByteSource) -> Result<WavLayout, DecodeError> {
    let len = src.len();
    if len < 12 {
        return Err(invalid(format!(
            "the file is only {len} bytes; a WAV header needs 12"
        )));
    }
    let mut fmt: Option<WavFmt> = None;
    let mut data: Option<(u64, u64)> = None;
    // Why the walk ended before finding both chunks, for the error message.
    let mut stop_reason = format!("the file ends after {len} bytes");
    let mut pos: u64 = 12;
    for _ in 0..MAX_CHUNKS {
        if fmt.is_some() && data.is_some() {
            break;
        }
        let Some(header) = src.array_at::<8>(pos).map_err(io_err)? else {
            break;
        };
        let [i0, i1, i2, i3, s0, s1, s2, s3] = header;
        let id = [i0, i1, i2, i3];
        if !plausible_id(&id) {
            stop_reason = format!(
                "the bytes at offset {pos} are not a chunk (`{}`)",
                printable(&id)
            );
            break;
        }
        let size = u64::from(u32::from_le_bytes([s0, s1, s2, s3]));
        let body = pos + 8;
        let available = len.saturating_sub(body);
        match &id {
            b"fmt " if fmt.is_none() => fmt = Some(parse_fmt(src, body, size, available)?),
            b"data" if data.is_none() => data = Some((body, size)),
            _ => {}
        }
        if body + size > len {
            stop_reason = format!(
                "the `{}` chunk at offset {pos} runs past the end of the file",
                printable(&id)
            );
        }
        pos = next_chunk(src, body, size)?;
    }
    let fmt = match (fmt, data) {
        (Some(fmt), _) => fmt,
        (None, Some(_)) => {
            return Err(invalid(
                "it has a data chunk but no fmt chunk to describe it",
            ));
        }
        (None, None) => return Err(invalid(format!("no fmt chunk ({stop_reason})"))),
    };
    let Some((data_start, declared)) = data else {
        return Err(invalid(format!("no data chunk ({stop_reason})")));
    };
    let after = len.saturating_sub(data_start);
    let mut present = declared.min(after);
    // A size of 0 with bytes after it that are not another chunk: the writer never came back
    // to fill in the size, so the rest of the file is the audio.
    let unfinalised = declared == 0
        && after >= fmt.frame_bytes()
        && !src
            .array_at::<4>(data_start)
            .map_err(io_err)?
            .is_some_and(|id| plausible_id(&id));
    if unfinalised {
        present = after;
    }
    let frames = present / fmt.frame_bytes().max(1);
    Ok(WavLayout {
        fmt,
        data_start,
        declared,
        present,
        unfinalised,
        frames,
    })
}

/// Where the chunk after one at `body` of `size` bytes starts: after the pad byte of an
/// odd-sized chunk, unless the next id is only found where it would be without one.
fn next_chunk(src: &mut dyn ByteSource, body: u64, size: u64) -> Result<u64, DecodeError> {
    let end = body + size;
    if size.is_multiple_of(2) {
        return Ok(end);
    }
    let padded = end + 1;
    let id_at = |src: &mut dyn ByteSource, at: u64| -> Result<bool, DecodeError> {
        Ok(src
            .array_at::<4>(at)
            .map_err(io_err)?
            .is_some_and(|id| plausible_id(&id)))
    };
    if !id_at(src, padded)? && id_at(src, end)? {
        return Ok(end);
    }
    Ok(padded)
}

/// Reads and resolves a `fmt ` chunk.
fn parse_fmt(
    src: &mut dyn ByteSource,
    body: u64,
    size: u64,
    available: u64,
) -> Result<WavFmt, DecodeError> {
    if size < 16 {
        return Err(invalid(format!(
            "the fmt chunk is only {size} bytes; it needs at least 16"
        )));
    }
    let mut raw = [0u8; 40];
    let want = size.min(40);
    let got = src
        .read_at(body, raw.get_mut(..want as usize).unwrap_or(&mut []))
        .map_err(io_err)?;
    let tag = u16_at(&raw, 0);
    let needed = if tag == TAG_EXTENSIBLE { 40 } else { 16 };
    if (got as u64) < needed.min(want) {
        return Err(invalid(format!(
            "the fmt chunk is cut short: it says {size} bytes but only {} are in the file",
            available.min(size)
        )));
    }
    let channels = u16_at(&raw, 2);
    let sample_rate = u32_at(&raw, 4);
    let container_bits = u16_at(&raw, 14);
    let (tag, bits, channel_mask) = if tag == TAG_EXTENSIBLE {
        if size < 40 {
            return Err(invalid(format!(
                "a WAVE_FORMAT_EXTENSIBLE fmt chunk needs 40 bytes but this one has {size}"
            )));
        }
        let valid_bits = u16_at(&raw, 18);
        let bits = if (1..=container_bits).contains(&valid_bits) {
            valid_bits
        } else {
            container_bits
        };
        // The sub-format GUID starts with the real format tag.
        (u16_at(&raw, 24), bits, u32_at(&raw, 20))
    } else {
        (tag, container_bits, 0)
    };
    if channels == 0 {
        return Err(invalid("the fmt chunk says the file has 0 channels"));
    }
    check_rate("WAV", "the fmt chunk", sample_rate)?;
    let encoding = encoding_for(tag, container_bits)?;
    Ok(WavFmt {
        encoding,
        channels,
        sample_rate,
        bits,
        channel_mask,
    })
}
