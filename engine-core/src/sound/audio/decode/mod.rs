//! Audio file decoding: WAV (own RIFF parser), MP3, Ogg Vorbis and FLAC (symphonia) and the
//! Sims' XA ADPCM (own decoder) into [`SampleBuffer`]s, whole-file or streamed from disk.
//!
//! The format is always decided by the file's content; a name or extension is only a hint
//! used to phrase errors. Output is interleaved `f32` in −1…1 at the file's own rate, with
//! one channel for mono files and two for everything else: files with more than two channels
//! are downmixed to stereo (see [`AudioInfo::source_channels`] and the `mix` module).
//!
//! Damaged input is handled as gently as it can be: a WAV whose `data` chunk runs past the end
//! of the file, or a compressed stream that breaks midway, yields the audio that is there,
//! with [`Decoded::partial`] saying what was wrong. Input that yields no audio at all is an
//! error. Nothing here trusts a header's sizes for allocation, and symphonia is only ever
//! called inside `catch_unwind`, so hostile bytes end in a [`DecodeError`], never a crash.
//!
//! **Limits.** Every decoder checks the header's sample rate against
//! [`MIN_SAMPLE_RATE`]`..=`[`MAX_SAMPLE_RATE`] (one check, `check_rate`, shared by probe,
//! playback, streaming and the cache). A whole-file decode holds the decoded size to
//! [`DecodeLimits::max_bytes`] ([`MAX_SAMPLE_BYTES`] by default): a few kilobytes of FLAC can
//! describe hundreds of megabytes of samples. When the headers tell the length (WAV, FLAC,
//! XA), the size is known, checked and reserved before anything is allocated; otherwise the
//! buffer grows step by step, each step reserved from a [`MemoryBudget`] first, and the
//! decode stops at the limit. Longer sounds are for [`StreamDecoder`], which holds one
//! block at a time.

mod compressed;
mod detect;
mod mix;
mod output;
mod source;
mod wav;
mod xa;

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use super::{BudgetError, MemoryBudget, SampleBuffer, Unmetered};
use crate::runtime::units::format_bytes;
use detect::Kind;
use source::{FileSource, SliceSource};

/// How the samples of a WAV file are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WavEncoding {
    /// Unsigned 8-bit PCM (128 is silence).
    PcmU8,
    /// Signed 16-bit little-endian PCM.
    PcmS16,
    /// Signed 24-bit little-endian PCM (also 17–24-bit samples in 3-byte containers).
    PcmS24,
    /// Signed 32-bit little-endian PCM (also 25–32-bit samples in 4-byte containers).
    PcmS32,
    /// IEEE 754 32-bit float.
    Float32,
    /// IEEE 754 64-bit float.
    Float64,
    /// ITU G.711 µ-law, 8 bits per sample (format tag 7).
    MuLaw,
    /// ITU G.711 A-law, 8 bits per sample (format tag 6).
    ALaw,
}

impl WavEncoding {
    /// Bytes one sample takes in the file.
    pub fn bytes_per_sample(self) -> u16 {
        match self {
            Self::PcmU8 | Self::MuLaw | Self::ALaw => 1,
            Self::PcmS16 => 2,
            Self::PcmS24 => 3,
            Self::PcmS32 | Self::Float32 => 4,
            Self::Float64 => 8,
        }
    }
}

/// The kind of audio file, as found from its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AudioFormat {
    /// RIFF WAVE with the given sample encoding.
    Wav {
        /// How the samples are stored.
        encoding: WavEncoding,
    },
    /// MPEG-1/2/2.5 Layer III.
    Mp3,
    /// Vorbis in an Ogg container.
    OggVorbis,
    /// Native FLAC.
    Flac,
    /// The Sims' XA: Maxis 4-bit ADPCM.
    Xa,
}

impl AudioFormat {
    /// A short human-readable name, e.g. `"WAV PCM s16le"`, `"Ogg Vorbis"`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Wav { encoding } => match encoding {
                WavEncoding::PcmU8 => "WAV PCM u8",
                WavEncoding::PcmS16 => "WAV PCM s16le",
                WavEncoding::PcmS24 => "WAV PCM s24le",
                WavEncoding::PcmS32 => "WAV PCM s32le",
                WavEncoding::Float32 => "WAV IEEE float32",
                WavEncoding::Float64 => "WAV IEEE float64",
                WavEncoding::MuLaw => "WAV mu-law",
                WavEncoding::ALaw => "WAV A-law",
            },
            Self::Mp3 => "MP3",
            Self::OggVorbis => "Ogg Vorbis",
            Self::Flac => "FLAC",
            Self::Xa => "XA ADPCM",
        }
    }
}

impl std::fmt::Display for AudioFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What the headers of an audio file say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AudioInfo {
    /// Container and encoding.
    pub format: AudioFormat,
    /// Frames per second (always > 0).
    pub sample_rate: u32,
    /// Channels of the decoded output: 1 for mono files, 2 for everything else.
    pub channels: u16,
    /// Channels stored in the file (more than 2 are downmixed to stereo).
    pub source_channels: u16,
    /// Bits per sample as stored, for formats that have such a thing (WAV, FLAC; 4 for XA).
    pub bits: Option<u16>,
    /// Length in frames as far as the headers tell: for WAV the whole frames actually present
    /// in the file, for FLAC and XA (and often Ogg and MP3) what the header claims, which a
    /// truncated file does not hold (an XA file that does not is refused when it is decoded
    /// or opened for streaming). `None` when unknown.
    pub frames: Option<u64>,
}

/// File extensions (lower case) of the audio files the decoders read: the sample loaders
/// register one per extension, and the reload worker decodes changed files of these kinds.
/// The content decides the format; an extension only says a file is meant to be audio.
pub const EXTENSIONS: &[&str] = &["wav", "mp3", "ogg", "oga", "flac", "xa"];

/// Lowest sample rate accepted, in Hz. A header below it is damaged or hostile (a "1 Hz"
/// file would stretch each frame over a second); real audio starts at 4 or 8 kHz.
pub const MIN_SAMPLE_RATE: u32 = 1_000;

/// Highest sample rate accepted, in Hz: the highest studio rate in use (DXD and "384 kHz"
/// masters).
pub const MAX_SAMPLE_RATE: u32 = 384_000;

/// Largest decoded size, in bytes, of a sample decoded whole into memory (the default of
/// [`DecodeLimits::max_bytes`]): 64 MiB, about 2 min 54 s of 48 kHz stereo `f32` or 6 min 20 s
/// of 44.1 kHz mono. Longer sounds are streamed (see `SoundServer`); a whole-file decode of
/// more is refused with [`DecodeError::TooLarge`], naming the size.
pub const MAX_SAMPLE_BYTES: usize = 64 << 20;

/// Bounds on what [`decode`] will produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeLimits {
    /// Longest audio, in frames, that [`decode`] accepts; longer input is a
    /// [`DecodeError::TooLong`] (stream it with [`StreamDecoder`] instead).
    pub max_frames: u64,
    /// Most bytes the decoded samples may take; more is a [`DecodeError::TooLarge`].
    pub max_bytes: usize,
}

impl Default for DecodeLimits {
    /// Ten minutes at 48 kHz (28 800 000 frames), and [`MAX_SAMPLE_BYTES`].
    fn default() -> Self {
        Self {
            max_frames: 10 * 60 * 48_000,
            max_bytes: MAX_SAMPLE_BYTES,
        }
    }
}

/// Refuses a sample rate outside [`MIN_SAMPLE_RATE`]`..=`[`MAX_SAMPLE_RATE`]: the one check of
/// the rate every decoder's header validation makes. `header` says where the rate was read,
/// e.g. "the fmt chunk".
pub(crate) fn check_rate(format: &'static str, header: &str, rate: u32) -> Result<(), DecodeError> {
    if (MIN_SAMPLE_RATE..=MAX_SAMPLE_RATE).contains(&rate) {
        return Ok(());
    }
    Err(DecodeError::Invalid {
        format,
        detail: format!(
            "{header} says the sample rate is {rate} Hz; HitBench plays {MIN_SAMPLE_RATE} to \
             {MAX_SAMPLE_RATE} Hz"
        ),
    })
}

/// A fully decoded file.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// What the headers said.
    pub info: AudioInfo,
    /// The samples (rate and channel count match `info`).
    pub buffer: SampleBuffer,
    /// `Some(why)` when the file is damaged and `buffer` holds only the part that could be
    /// decoded (e.g. "data chunk says 82000 bytes but only 20000 are in the file").
    pub partial: Option<String>,
}

/// Why a file could not be probed or decoded.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    /// The input has no bytes at all.
    #[error("the file is empty (0 bytes)")]
    Empty,
    /// The bytes are not in any audio format this decoder knows.
    #[error("{}", unrecognised_message(*.expected, .start))]
    Unrecognised {
        /// The format the file's name suggested, if any (e.g. `"WAV"` for `x.wav`).
        expected: Option<&'static str>,
        /// The first bytes, printable characters as-is and others as `\xNN`.
        start: String,
    },
    /// A format, or a variant of one, that this decoder does not decode.
    #[error("{what} is not supported")]
    Unsupported {
        /// What the file is, e.g. "WAV encoding 2 (Microsoft ADPCM)".
        what: String,
    },
    /// The file is malformed so badly that no audio can be taken from it.
    #[error("invalid {format} file: {detail}")]
    Invalid {
        /// The container, e.g. `"WAV"`.
        format: &'static str,
        /// What is wrong, e.g. "the file ends inside the fmt chunk".
        detail: String,
    },
    /// The headers are readable but not a single frame of audio could be decoded.
    #[error("no audio could be decoded from this {format} file: {detail}")]
    NoAudio {
        /// The format name, e.g. `"Ogg Vorbis"`.
        format: &'static str,
        /// Why, e.g. "data chunk says 45266 bytes but the file ends where it starts".
        detail: String,
    },
    /// The audio is longer than [`DecodeLimits::max_frames`].
    #[error(
        "the audio is longer than the limit of {max_frames} frames ({:.1} s at {sample_rate} Hz); \
         stream it instead",
        *.max_frames as f64 / f64::from((*.sample_rate).max(1))
    )]
    TooLong {
        /// The limit that was exceeded.
        max_frames: u64,
        /// The file's sample rate.
        sample_rate: u32,
    },
    /// The decoded samples would take more than [`DecodeLimits::max_bytes`].
    #[error("{}", too_large_message(*.decoded_bytes, *.max_bytes))]
    TooLarge {
        /// Bytes the decoded samples take, when the headers tell the length; `None` when
        /// the length was unknown and decoding stopped at the limit.
        decoded_bytes: Option<u64>,
        /// The limit that was exceeded.
        max_bytes: usize,
    },
    /// The memory budget (the resource cache's) refused the bytes the samples need.
    #[error("no memory left for the decoded samples: {why}")]
    Refused {
        /// Why the budget refused.
        why: BudgetError,
    },
    /// The third-party decoder panicked on this input (the panic was caught).
    #[error("the {format} decoder crashed on this file: {message}")]
    DecoderCrashed {
        /// The format name.
        format: &'static str,
        /// The panic message.
        message: String,
    },
    /// The file could not be opened or read.
    #[error("cannot read `{}`: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
}

fn too_large_message(decoded: Option<u64>, max: usize) -> String {
    let limit = format_bytes(max as u64);
    match decoded {
        Some(bytes) => format!(
            "it decodes to {bytes} bytes ({}), more than the {limit} a sample held in memory \
             may take; it can only be streamed",
            format_bytes(bytes)
        ),
        None => format!(
            "it decodes to more than {limit}, the most a sample held in memory may take; it \
             can only be streamed"
        ),
    }
}

fn unrecognised_message(expected: Option<&'static str>, start: &str) -> String {
    match expected {
        Some(name) => format!(
            "not a {name} file (nor any other supported audio format): starts with `{start}`"
        ),
        None => format!(
            "unrecognised audio format (expected WAV, MP3, Ogg Vorbis, FLAC or XA): starts \
             with `{start}`"
        ),
    }
}

/// Reads only the headers of `bytes` (named `name`, which is just a hint) and says what the
/// file is. Cheap: no audio is decoded.
pub fn probe(name: &str, bytes: &[u8]) -> Result<AudioInfo, DecodeError> {
    let mut src = SliceSource::new(bytes);
    match detect::detect(&mut src, name)? {
        Kind::Wav => Ok(wav::parse(&mut src)?.info()),
        Kind::Xa => xa::probe_slice(bytes),
        Kind::Compressed(kind) => compressed::probe_slice(bytes, kind),
    }
}

/// Decodes a whole file held in memory. `name` is only a hint (the content decides).
///
/// Returns [`DecodeError::TooLong`] rather than truncating when the audio is longer than
/// `limits.max_frames`. A damaged file whose beginning decodes comes back `Ok` with
/// [`Decoded::partial`] set.
pub fn decode(name: &str, bytes: &[u8], limits: &DecodeLimits) -> Result<Decoded, DecodeError> {
    decode_within(name, bytes, limits, &mut Unmetered)
}

/// [`decode`], reserving the memory of the decoded samples from `budget` before each
/// allocation. The reservation of the returned samples stays taken (it is theirs); whatever
/// was reserved for a decode that fails is given back.
pub fn decode_within(
    name: &str,
    bytes: &[u8],
    limits: &DecodeLimits,
    budget: &mut dyn MemoryBudget,
) -> Result<Decoded, DecodeError> {
    let mut src = SliceSource::new(bytes);
    match detect::detect(&mut src, name)? {
        Kind::Wav => wav::decode_slice(bytes, limits, budget),
        Kind::Xa => xa::decode_slice(bytes, limits, budget),
        Kind::Compressed(kind) => compressed::decode_slice(bytes, kind, limits, budget),
    }
}

/// Reads and decodes a whole file; see [`decode`].
pub fn decode_file(path: &Path, limits: &DecodeLimits) -> Result<Decoded, DecodeError> {
    use std::io::Read as _;
    let file =
        crate::toolchain::fsrules::open_regular(path).map_err(|r| io_error(path, r.into_io()))?;
    let mut bytes = Vec::new();
    file.take(crate::toolchain::fsrules::MAX_RESOURCE_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|source| io_error(path, source))?;
    decode(&path.to_string_lossy(), &bytes, limits)
}

fn io_error(path: &Path, source: io::Error) -> DecodeError {
    DecodeError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Decodes a file bit by bit from disk, for music and other long sounds: it never holds the
/// whole file (only the headers and one packet or block at a time).
pub struct StreamDecoder {
    path: PathBuf,
    info: AudioInfo,
    inner: StreamInner,
}

enum StreamInner {
    Wav(wav::WavStream),
    Xa(xa::XaReader<FileSource>),
    Compressed(Box<compressed::Compressed<'static>>),
}

impl std::fmt::Debug for StreamDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamDecoder")
            .field("path", &self.path)
            .field("info", &self.info)
            .field("partial", &self.partial())
            .finish_non_exhaustive()
    }
}

impl StreamDecoder {
    /// Opens `path` and reads its headers.
    pub fn open(path: &Path) -> Result<Self, DecodeError> {
        let (info, inner) = Self::open_inner(path)?;
        Ok(Self {
            path: path.to_path_buf(),
            info,
            inner,
        })
    }

    /// Reads the headers of `file`, opened already and `len` bytes long as whoever
    /// opened it saw it; `path` names it in errors. Reads stop at `len`.
    pub fn open_file(path: &Path, file: File, len: u64) -> Result<Self, DecodeError> {
        let (info, inner) = Self::from_file(path, file, len)?;
        Ok(Self {
            path: path.to_path_buf(),
            info,
            inner,
        })
    }

    fn open_inner(path: &Path) -> Result<(AudioInfo, StreamInner), DecodeError> {
        let (file, len) = crate::toolchain::fsrules::open_regular_len(path)
            .map_err(|r| io_error(path, r.into_io()))?;
        Self::from_file(path, file, len)
    }

    fn from_file(
        path: &Path,
        file: File,
        len: u64,
    ) -> Result<(AudioInfo, StreamInner), DecodeError> {
        let mut src = FileSource::opened(file, len);
        let kind =
            detect::detect(&mut src, &path.to_string_lossy()).map_err(|e| with_path(e, path))?;
        match kind {
            Kind::Wav => {
                let stream = wav::WavStream::new(src).map_err(|e| with_path(e, path))?;
                Ok((stream.info(), StreamInner::Wav(stream)))
            }
            Kind::Xa => {
                let stream = xa::XaReader::open(src).map_err(|e| with_path(e, path))?;
                Ok((stream.info(), StreamInner::Xa(stream)))
            }
            Kind::Compressed(kind) => {
                let file = src.into_file().map_err(|e| io_error(path, e))?;
                let stream = compressed::Compressed::open(Box::new(file), kind)?;
                Ok((
                    stream.info().clone(),
                    StreamInner::Compressed(Box::new(stream)),
                ))
            }
        }
    }

    /// What the file's headers say.
    pub fn info(&self) -> &AudioInfo {
        &self.info
    }

    /// The file being streamed.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `Some(why)` if the file is damaged: known from the start for a WAV whose `data` chunk
    /// is cut short, and once it happens for a compressed stream that breaks midway. The audio
    /// before the damage is delivered either way.
    pub fn partial(&self) -> Option<&str> {
        match &self.inner {
            StreamInner::Wav(s) => s.partial(),
            StreamInner::Xa(s) => s.partial(),
            StreamInner::Compressed(s) => s.partial(),
        }
    }

    /// Appends up to `max_frames` interleaved frames (`info().channels` samples each) to `out`
    /// and returns how many it appended; fewer than `max_frames` only at the end of the
    /// stream, and 0 once it is over.
    ///
    /// A damaged file ends the stream early (see [`partial`](Self::partial)); it is an
    /// error only if not a single frame could be decoded since opening or rewinding.
    pub fn read(&mut self, out: &mut Vec<f32>, max_frames: usize) -> Result<usize, DecodeError> {
        match &mut self.inner {
            StreamInner::Wav(s) => s
                .read(out, max_frames)
                .map_err(|e| with_path(e, &self.path)),
            StreamInner::Xa(s) => s
                .read(out, max_frames)
                .map_err(|e| with_path(e, &self.path)),
            StreamInner::Compressed(s) => s.read(out, max_frames),
        }
    }

    /// Goes back to the first frame (for looping).
    ///
    /// Compressed files are reopened rather than sought, so every pass yields exactly the
    /// same samples. Fails if the file has meanwhile changed its rate or channel count.
    pub fn rewind(&mut self) -> Result<(), DecodeError> {
        match &mut self.inner {
            StreamInner::Wav(s) => {
                s.rewind();
                Ok(())
            }
            StreamInner::Xa(s) => {
                s.rewind();
                Ok(())
            }
            StreamInner::Compressed(_) => {
                let (info, inner) = Self::open_inner(&self.path)?;
                if info.sample_rate != self.info.sample_rate || info.channels != self.info.channels
                {
                    return Err(DecodeError::Invalid {
                        format: info.format.name(),
                        detail: format!(
                            "the file changed while it was being streamed (was {} Hz, {} \
                             channels; now {} Hz, {} channels)",
                            self.info.sample_rate,
                            self.info.channels,
                            info.sample_rate,
                            info.channels
                        ),
                    });
                }
                self.info = info;
                self.inner = inner;
                Ok(())
            }
        }
    }
}

/// What [`scan_file`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct Scanned {
    /// What the headers said.
    pub info: AudioInfo,
    /// Frames decoded.
    pub frames: u64,
    /// Why the file is incomplete, if it is (see [`StreamDecoder::partial`]).
    pub partial: Option<String>,
}

/// Frames decoded at a time by [`scan_file`].
const SCAN_CHUNK_FRAMES: usize = 16_384;

/// Decodes the file at `path` from end to end, one block at a time (as it would be
/// streamed, so in little memory, however large it decodes), and says how long it is.
/// Audio longer than `max_frames` is a [`DecodeError::TooLong`].
pub fn scan_file(path: &Path, max_frames: u64) -> Result<Scanned, DecodeError> {
    scan(StreamDecoder::open(path)?, max_frames)
}

/// [`scan_file`] of a file opened already ([`StreamDecoder::open_file`]).
pub fn scan_opened(
    path: &Path,
    file: File,
    len: u64,
    max_frames: u64,
) -> Result<Scanned, DecodeError> {
    scan(StreamDecoder::open_file(path, file, len)?, max_frames)
}

fn scan(mut stream: StreamDecoder, max_frames: u64) -> Result<Scanned, DecodeError> {
    let channels = usize::from(stream.info().channels).max(1);
    let mut block = Vec::with_capacity(SCAN_CHUNK_FRAMES * channels);
    let mut frames = 0u64;
    loop {
        block.clear();
        let read = stream.read(&mut block, SCAN_CHUNK_FRAMES)?;
        if read == 0 {
            break;
        }
        frames += read as u64;
        if frames > max_frames {
            return Err(DecodeError::TooLong {
                max_frames,
                sample_rate: stream.info().sample_rate,
            });
        }
    }
    Ok(Scanned {
        info: stream.info().clone(),
        frames,
        partial: stream.partial().map(str::to_owned),
    })
}

/// Gives an IO error from the byte-level readers (which do not know it) the file's path.
fn with_path(e: DecodeError, path: &Path) -> DecodeError {
    match e {
        DecodeError::Io { source, .. } => io_error(path, source),
        other => other,
    }
}

#[cfg(test)]
mod tests;
