//! The offline renderer's WAV file, and `hitbench decode`'s: 16-bit PCM (stereo for
//! renders; any channel count for a decoded sound), written deterministically, with
//! sizes that can never wrap — a write that would take the data past what the 32-bit
//! RIFF sizes hold ([`WAV_MAX_DATA_BYTES`]) is refused, and every IO error names the file.
//!
//! The header is written first with data size 0 and patched by [`WavWriter::complete`],
//! so a file whose render failed half way never looks like a complete WAV of that length.

use crate::toolchain::fsrules::{Output, OutputError};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Bytes of the canonical header: `RIFF` size `WAVE`, a 16-byte `fmt ` chunk, `data` size.
pub const WAV_HEADER_BYTES: u64 = 44;

/// The most sample data a WAV file can hold: its RIFF size field (the data plus 36 bytes
/// of header) is 32 bits. About 4 GiB: 6.2 hours of 48 kHz 16-bit stereo.
pub const WAV_MAX_DATA_BYTES: u64 = u32::MAX as u64 - (WAV_HEADER_BYTES - 8);

/// Bytes of one stereo 16-bit frame.
const FRAME_BYTES: u64 = 4;

/// Bytes of one 16-bit sample.
const SAMPLE_BYTES: u64 = 2;

/// The most frames a WAV file can hold ([`WAV_MAX_DATA_BYTES`] of 16-bit stereo).
pub const WAV_MAX_FRAMES: u64 = WAV_MAX_DATA_BYTES / FRAME_BYTES;

/// Bytes of a 16-bit stereo WAV file of `frames` frames, header included.
pub fn wav_file_bytes(frames: u64) -> u64 {
    frames
        .saturating_mul(FRAME_BYTES)
        .saturating_add(WAV_HEADER_BYTES)
}

/// Why a WAV file could not be written. Each names the file.
#[derive(Debug, thiserror::Error)]
pub enum WavError {
    /// The output rule refused the path (a device, a named pipe, a folder).
    #[error(transparent)]
    Refused(OutputError),
    /// The file could not be created.
    #[error("cannot create {}: {source}", path.display())]
    Create {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Writing failed (a full disk is `No space left on device`).
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// More frames than the file may hold.
    #[error(
        "cannot write {}: {frames} frames would be more than this WAV file may hold ({limit} frames; a WAV file holds at most 4 GiB)",
        path.display()
    )]
    TooLong {
        /// The file.
        path: PathBuf,
        /// Frames it would have held.
        frames: u64,
        /// Frames it may hold.
        limit: u64,
    },
}

/// How samples in −1…1 become 16-bit integers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Quantize {
    /// × 32767, rounded: full scale is ±32767 (the renders').
    #[default]
    Symmetric,
    /// × 32768, rounded and clamped to −32768…32767: the inverse of how the decoders read
    /// 16-bit PCM, so a 16-bit sound decoded and written again keeps every sample.
    Exact,
}

/// What a WAV file holds: its rate, its channels and how its samples are rounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WavSpec {
    /// Frames per second.
    pub sample_rate: u32,
    /// Channels of each frame (at least 1).
    pub channels: u16,
    /// How the samples become 16-bit integers.
    pub quantize: Quantize,
}

impl WavError {
    /// What the output rule said, for the file at `path`: a refusal as it is, a failed
    /// write as [`WavError::Write`].
    fn from_output(path: &Path, error: OutputError) -> Self {
        match error {
            OutputError::Io { source, .. } => WavError::Write {
                path: path.to_path_buf(),
                source,
            },
            refusal => WavError::Refused(refusal),
        }
    }
}

impl WavSpec {
    /// A render's: stereo at `sample_rate`, [`Quantize::Symmetric`].
    pub fn render(sample_rate: u32) -> Self {
        Self {
            sample_rate,
            channels: 2,
            quantize: Quantize::Symmetric,
        }
    }

    /// A decoded sound's: `channels` at `sample_rate`, [`Quantize::Exact`].
    pub fn decoded(sample_rate: u32, channels: u16) -> Self {
        Self {
            sample_rate,
            channels,
            quantize: Quantize::Exact,
        }
    }

    fn frame_bytes(&self) -> u64 {
        u64::from(self.channels.max(1)) * SAMPLE_BYTES
    }

    /// The most frames a file of this spec can hold ([`WAV_MAX_DATA_BYTES`] of data).
    pub fn max_frames(&self) -> u64 {
        WAV_MAX_DATA_BYTES / self.frame_bytes()
    }
}

/// Writes interleaved `f32` frames as 16-bit PCM WAV, deterministically (plain rounding,
/// no dither), so the same input always gives the same bytes.
pub struct WavWriter<W: Write + Seek = Output> {
    out: W,
    path: PathBuf,
    spec: WavSpec,
    frames: u64,
    max_frames: u64,
    /// Reused for the bytes of each block.
    bytes: Vec<u8>,
}

impl WavWriter<Output> {
    /// Starts the file for a stereo render; see [`create_with`](Self::create_with).
    pub fn create(path: &Path, sample_rate: u32) -> Result<Self, WavError> {
        Self::create_with(path, WavSpec::render(sample_rate))
    }

    /// Starts the file holding `spec` under the output rule (`fsrules::output`): only a
    /// regular file is replaced, and only by [`finish`](Self::finish); until then (and
    /// if anything fails) a file that was there stays as it was.
    pub fn create_with(path: &Path, spec: WavSpec) -> Result<Self, WavError> {
        let file = Output::create(path, &[]).map_err(|e| WavError::from_output(path, e))?;
        Self::new_with(file, path, spec, u64::MAX)
    }

    /// Patches the header, makes sure the data reached the disk (so a full disk is
    /// reported here rather than lost) and puts the file in its place; returns the frames
    /// written.
    pub fn finish(self) -> Result<u64, WavError> {
        let path = self.path.clone();
        let (frames, file) = self.complete()?;
        file.commit().map_err(|e| WavError::from_output(&path, e))?;
        Ok(frames)
    }
}

impl<W: Write + Seek> WavWriter<W> {
    /// Starts a stereo render's WAV in `out` (named `path` in errors) that may hold up to
    /// `max_frames` frames (at most [`WAV_MAX_FRAMES`]).
    pub fn new(out: W, path: &Path, sample_rate: u32, max_frames: u64) -> Result<Self, WavError> {
        Self::new_with(out, path, WavSpec::render(sample_rate), max_frames)
    }

    /// Starts a WAV of `spec` in `out` (named `path` in errors) that may hold up to
    /// `max_frames` frames (at most [`WavSpec::max_frames`]).
    pub fn new_with(out: W, path: &Path, spec: WavSpec, max_frames: u64) -> Result<Self, WavError> {
        let spec = WavSpec {
            channels: spec.channels.max(1),
            ..spec
        };
        let mut writer = Self {
            out,
            path: path.to_path_buf(),
            spec,
            frames: 0,
            max_frames: max_frames.min(spec.max_frames()),
            bytes: Vec::new(),
        };
        // Data size 0 until `complete`: a file cut short says it holds nothing.
        writer.header(0)?;
        Ok(writer)
    }

    fn write_error(&self, source: std::io::Error) -> WavError {
        WavError::Write {
            path: self.path.clone(),
            source,
        }
    }

    fn header(&mut self, data_bytes: u32) -> Result<(), WavError> {
        let channels = self.spec.channels;
        let bits: u16 = 16;
        let block_align = channels * bits / 8;
        let mut header = Vec::with_capacity(44);
        header.extend_from_slice(b"RIFF");
        header.extend_from_slice(&data_bytes.saturating_add(36).to_le_bytes());
        header.extend_from_slice(b"WAVEfmt ");
        header.extend_from_slice(&16u32.to_le_bytes());
        header.extend_from_slice(&1u16.to_le_bytes()); // PCM
        header.extend_from_slice(&channels.to_le_bytes());
        header.extend_from_slice(&self.spec.sample_rate.to_le_bytes());
        let byte_rate = self.spec.sample_rate.saturating_mul(u32::from(block_align));
        header.extend_from_slice(&byte_rate.to_le_bytes());
        header.extend_from_slice(&block_align.to_le_bytes());
        header.extend_from_slice(&bits.to_le_bytes());
        header.extend_from_slice(b"data");
        header.extend_from_slice(&data_bytes.to_le_bytes());
        self.out.write_all(&header).map_err(|e| self.write_error(e))
    }

    /// Appends frames (interleaved: left, right for stereo). Refused, writing nothing, if
    /// the file would then hold more than it may.
    pub fn write(&mut self, samples: &[f32]) -> Result<(), WavError> {
        let channels = usize::from(self.spec.channels);
        let frames = (samples.len() / channels) as u64;
        let total = self.frames.saturating_add(frames);
        if total > self.max_frames {
            return Err(WavError::TooLong {
                path: self.path.clone(),
                frames: total,
                limit: self.max_frames,
            });
        }
        self.bytes.clear();
        let whole = samples
            .get(..samples.len() / channels * channels)
            .unwrap_or(&[]);
        let quantize = self.spec.quantize;
        for &sample in whole {
            self.bytes
                .extend_from_slice(&to_i16(sample, quantize).to_le_bytes());
        }
        if let Err(e) = self.out.write_all(&self.bytes) {
            return Err(self.write_error(e));
        }
        self.frames = total;
        Ok(())
    }

    /// Frames written so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Writes the real sizes into the header and flushes; returns the frames written and
    /// the writer.
    pub fn complete(mut self) -> Result<(u64, W), WavError> {
        // `write` keeps the data within WAV_MAX_DATA_BYTES, so the size fits 32 bits.
        let data_bytes = u32::try_from(self.frames * self.spec.frame_bytes()).unwrap_or(u32::MAX);
        let patched = self
            .out
            .seek(SeekFrom::Start(0))
            .map_err(|e| self.write_error(e));
        patched?;
        self.header(data_bytes)?;
        let flushed = self.out.flush().map_err(|e| self.write_error(e));
        flushed?;
        Ok((self.frames, self.out))
    }
}

/// One sample as a 16-bit integer.
fn to_i16(sample: f32, quantize: Quantize) -> i16 {
    match quantize {
        Quantize::Symmetric => (sample.clamp(-1.0, 1.0) * 32767.0).round() as i16,
        // The cast saturates: 1.0 (32768) becomes 32767.
        Quantize::Exact => (sample.clamp(-1.0, 1.0) * 32768.0).round() as i16,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn u32_at(bytes: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
    }

    #[test]
    fn the_header_holds_the_sizes_once_complete() {
        let mut writer = WavWriter::new(Cursor::new(Vec::new()), Path::new("x.wav"), 48_000, 100)
            .expect("start");
        writer
            .write(&[0.0, 1.0, -1.0, 2.0, 0.5, -0.5])
            .expect("write");
        let (frames, out) = writer.complete().expect("complete");
        assert_eq!(frames, 3);
        let bytes = out.into_inner();
        assert_eq!(bytes.len(), 44 + 12);
        assert_eq!(&bytes[..4], b"RIFF");
        assert_eq!(u32_at(&bytes, 4), 36 + 12);
        assert_eq!(u32_at(&bytes, 24), 48_000);
        assert_eq!(u32_at(&bytes, 28), 48_000 * 4);
        assert_eq!(u32_at(&bytes, 40), 12);
        let samples: Vec<i16> = bytes[44..]
            .chunks_exact(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]))
            .collect();
        assert_eq!(samples, [0, 32767, -32767, 32767, 16384, -16384]);
    }

    #[test]
    fn a_decoded_sound_keeps_its_channels_and_every_16_bit_value() {
        let spec = WavSpec::decoded(22_050, 1);
        let mut writer =
            WavWriter::new_with(Cursor::new(Vec::new()), Path::new("x.wav"), spec, u64::MAX)
                .expect("start");
        let values = [0i16, 1, -1, 32767, -32768, 12345, -12345];
        let samples: Vec<f32> = values.iter().map(|&v| f32::from(v) / 32_768.0).collect();
        writer.write(&samples).expect("write");
        writer.write(&[1.0, -2.0]).expect("full scale and beyond");
        let (frames, out) = writer.complete().expect("complete");
        assert_eq!(frames, 9);
        let bytes = out.into_inner();
        assert_eq!(u16::from_le_bytes([bytes[22], bytes[23]]), 1, "mono");
        assert_eq!(u32_at(&bytes, 28), 22_050 * 2);
        assert_eq!(u16::from_le_bytes([bytes[32], bytes[33]]), 2, "block align");
        assert_eq!(u32_at(&bytes, 40), 18);
        let written: Vec<i16> = bytes[44..]
            .chunks_exact(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]))
            .collect();
        assert_eq!(&written[..7], values);
        assert_eq!(&written[7..], [32767, -32768]);
        assert_eq!(spec.max_frames(), WAV_MAX_DATA_BYTES / 2);
    }

    #[test]
    fn the_limit_is_what_32_bit_sizes_hold() {
        assert_eq!(WAV_MAX_DATA_BYTES + 36, u64::from(u32::MAX));
        const { assert!(WAV_MAX_FRAMES * FRAME_BYTES <= WAV_MAX_DATA_BYTES) };
        const { assert!((WAV_MAX_FRAMES + 1) * FRAME_BYTES > WAV_MAX_DATA_BYTES) };
        // 6.2 hours at 48 kHz.
        let hours = WAV_MAX_FRAMES as f64 / 48_000.0 / 3600.0;
        assert!((6.2..6.3).contains(&hours), "{hours}");
        assert_eq!(wav_file_bytes(3), 56);
        assert_eq!(wav_file_bytes(u64::MAX), u64::MAX);
    }

    #[test]
    fn a_write_past_the_limit_is_refused_and_writes_nothing() {
        let mut writer = WavWriter::new(Cursor::new(Vec::new()), Path::new("long.wav"), 8_000, 4)
            .expect("start");
        writer.write(&[0.1; 6]).expect("3 frames fit");
        let e = writer.write(&[0.1; 4]).expect_err("5 frames do not");
        let message = e.to_string();
        assert!(
            message.contains("long.wav") && message.contains("4 GiB"),
            "{message}"
        );
        assert_eq!(writer.frames(), 3);
        let (_, out) = writer.complete().expect("complete");
        let bytes = out.into_inner();
        assert_eq!(bytes.len(), 44 + 12);
        assert_eq!(u32_at(&bytes, 40), 12);
    }

    #[test]
    fn an_unfinished_file_says_it_holds_nothing() {
        let mut writer = WavWriter::new(Cursor::new(Vec::new()), Path::new("cut.wav"), 8_000, 100)
            .expect("start");
        writer.write(&[0.1; 8]).expect("write");
        let bytes = writer.out.get_ref().clone();
        assert_eq!(u32_at(&bytes, 40), 0, "data size 0 until complete");
    }

    #[test]
    fn a_full_disk_is_an_error_naming_the_file() {
        let full = Path::new("/dev/full");
        if !full.exists() {
            return; // not Linux
        }
        // A device is never a render's output…
        assert!(matches!(
            WavWriter::create(full, 48_000),
            Err(WavError::Refused(_))
        ));
        // …but every write to /dev/full fails with ENOSPC, as on a full disk.
        let block = vec![0.25f32; 2 * 4800];
        let file = std::fs::OpenOptions::new().write(true).open(full).unwrap();
        let result = WavWriter::new(file, full, 48_000, u64::MAX).and_then(|mut writer| {
            (0..10).try_for_each(|_| writer.write(&block))?;
            writer.complete()
        });
        let message = result.expect_err("ENOSPC").to_string();
        assert!(message.contains("/dev/full"), "{message}");
        assert!(message.contains("No space left"), "{message}");
    }
}
