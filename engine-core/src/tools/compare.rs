//! Comparing two renders: each file's loudness and peaks, and the first time the two
//! differ audibly.
//!
//! **The difference rule.** The difference signal is `a − b`, sample by sample, all
//! channels together. A window of [`CompareOptions::window_ms`] slides over it one frame
//! at a time; its level is the RMS of the difference over the window, in dB relative to
//! full scale (a full-scale square wave is 0 dBFS, a full-scale sine −3 dBFS). The files
//! differ when that level rises above [`CompareOptions::threshold_db`]; the time reported
//! is the first frame, inside that first window, where one sample of the difference is
//! itself above the threshold — where the difference starts, not where the window ends.
//! When one file is longer, its extra tail is a difference at the shorter one's end
//! (whatever the tail holds), unless the files already differed before.
//!
//! Files are read as the engine streams them ([`StreamDecoder`]: opened as regular files
//! only, never a device or a pipe, one block at a time), so any length takes little
//! memory; each may hold at most [`MAX_COMPARE_SECONDS`] of audio. A damaged file — one
//! the engine would play only up to where it breaks off — is an error rather than a
//! comparison of what is left. Every error names the file.

use crate::sound::audio::decode::{AudioInfo, DecodeError, StreamDecoder};
use crate::sound::output::{Level, Loudness, LoudnessError, LoudnessMeter};
use std::path::{Path, PathBuf};

/// The longest audio a compared file may hold, in seconds at its own rate (24 hours;
/// a rendered WAV file holds at most 6.2 h at 48 kHz).
pub const MAX_COMPARE_SECONDS: u64 = 86_400;

/// Frames read from each file at a time.
const BLOCK_FRAMES: usize = 16_384;

/// How two files are compared (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompareOptions {
    /// The RMS level of the difference, in dBFS, above which the files differ.
    pub threshold_db: f64,
    /// The length of the sliding window, in milliseconds.
    pub window_ms: f64,
}

impl CompareOptions {
    /// The default threshold: −60 dBFS, well above the rounding of 16-bit samples
    /// (about −101 dBFS) and well below anything one can hear over a mix.
    pub const DEFAULT_THRESHOLD_DB: f64 = -60.0;
    /// The default window: 10 ms.
    pub const DEFAULT_WINDOW_MS: f64 = 10.0;
    /// The shortest window allowed, in milliseconds.
    pub const MIN_WINDOW_MS: f64 = 0.1;
    /// The longest window allowed, in milliseconds.
    pub const MAX_WINDOW_MS: f64 = 1000.0;
}

impl Default for CompareOptions {
    fn default() -> Self {
        Self {
            threshold_db: Self::DEFAULT_THRESHOLD_DB,
            window_ms: Self::DEFAULT_WINDOW_MS,
        }
    }
}

/// One compared file.
#[derive(Debug, Clone, PartialEq)]
pub struct FileFigures {
    /// The file.
    pub path: PathBuf,
    /// What its headers say.
    pub info: AudioInfo,
    /// Frames decoded.
    pub frames: u64,
    /// Its loudness and peaks.
    pub loudness: Loudness,
}

impl FileFigures {
    /// Its length in seconds.
    pub fn seconds(&self) -> f64 {
        self.frames as f64 / f64::from(self.info.sample_rate.max(1))
    }
}

/// Why two files differ from some time on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DifferenceKind {
    /// The difference signal rose above the threshold.
    Signal,
    /// One file goes on after the other has ended.
    Length,
}

/// Where two files first differ.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Difference {
    /// The first frame that differs.
    pub frame: u64,
    /// The same in seconds.
    pub seconds: f64,
    /// The RMS level of the difference over the window that first rose above the
    /// threshold (silent for a difference of length).
    pub level: Level,
    /// Why.
    pub kind: DifferenceKind,
}

/// What [`compare`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The first file.
    pub a: FileFigures,
    /// The second file.
    pub b: FileFigures,
    /// The options used.
    pub options: CompareOptions,
    /// Where the files first differ beyond the threshold; `None` when they do not.
    pub first_difference: Option<Difference>,
    /// The loudest window of the difference over the time both files play, and the time
    /// its window starts, in seconds; silent when the files are identical there.
    pub largest: (Level, f64),
}

impl Comparison {
    /// True when the files differ beyond the threshold (or in length).
    pub fn differ(&self) -> bool {
        self.first_difference.is_some()
    }
}

/// Why two files could not be compared. Each names the file, or both.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// A file could not be opened, read or decoded.
    #[error("{}", decode_message(path, source))]
    Decode {
        /// The file.
        path: PathBuf,
        /// Why.
        source: DecodeError,
    },
    /// The files have different sample rates or channel counts.
    #[error(
        "cannot compare {} ({a_what}) with {} ({b_what}): {what} differ",
        a.display(), b.display()
    )]
    Mismatch {
        /// The first file.
        a: PathBuf,
        /// The second file.
        b: PathBuf,
        /// "sample rates" or "channel counts".
        what: &'static str,
        /// The first file's, e.g. "48000 Hz".
        a_what: String,
        /// The second file's.
        b_what: String,
    },
    /// A file is damaged: its audio breaks off before its end.
    #[error("{}: damaged: {why}", path.display())]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong, e.g. "data chunk says 82000 bytes but only 20000 are in the file".
        why: String,
    },
    /// A file holds more audio than is compared.
    #[error(
        "{}: longer than {MAX_COMPARE_SECONDS} s ({max_frames} frames at {rate} Hz), the most \
         compare reads",
        path.display()
    )]
    TooLong {
        /// The file.
        path: PathBuf,
        /// Its frames per second.
        rate: u32,
        /// The frames it may hold.
        max_frames: u64,
    },
    /// The file's format is outside what the loudness meter measures.
    #[error("{}: {source}", path.display())]
    Meter {
        /// The file.
        path: PathBuf,
        /// Why.
        source: LoudnessError,
    },
}

/// A decode error with the file's name in front, once (a read error names it already).
pub(super) fn decode_message(path: &Path, source: &DecodeError) -> String {
    match source {
        DecodeError::Io { .. } => source.to_string(),
        other => format!("{}: {other}", path.display()),
    }
}

/// One file being read: its stream, its meter and the block not yet compared.
struct Side {
    path: PathBuf,
    stream: StreamDecoder,
    meter: LoudnessMeter,
    channels: usize,
    block: Vec<f32>,
    /// Samples of `block` already compared.
    at: usize,
    frames: u64,
    max_frames: u64,
    done: bool,
}

impl Side {
    fn open(path: &Path) -> Result<Self, CompareError> {
        let decode = |source| CompareError::Decode {
            path: path.to_path_buf(),
            source,
        };
        let stream = StreamDecoder::open(path).map_err(decode)?;
        let info = stream.info();
        let meter = LoudnessMeter::new(info.channels, info.sample_rate).map_err(|source| {
            CompareError::Meter {
                path: path.to_path_buf(),
                source,
            }
        })?;
        let max_frames = MAX_COMPARE_SECONDS.saturating_mul(u64::from(info.sample_rate));
        let side = Self {
            path: path.to_path_buf(),
            channels: usize::from(info.channels.max(1)),
            stream,
            meter,
            block: Vec::with_capacity(BLOCK_FRAMES * 2),
            at: 0,
            frames: 0,
            max_frames,
            done: false,
        };
        side.refuse_damage()?;
        Ok(side)
    }

    /// The samples read but not yet compared, reading the next block when there are none.
    fn pending(&mut self) -> Result<&[f32], CompareError> {
        if self.at >= self.block.len() && !self.done {
            self.block.clear();
            self.at = 0;
            let read = self
                .stream
                .read(&mut self.block, BLOCK_FRAMES)
                .map_err(|source| CompareError::Decode {
                    path: self.path.clone(),
                    source,
                })?;
            self.block.truncate(read * self.channels);
            self.done = read == 0;
            self.frames += read as u64;
            if self.frames > self.max_frames {
                return Err(CompareError::TooLong {
                    path: self.path.clone(),
                    rate: self.stream.info().sample_rate,
                    max_frames: self.max_frames,
                });
            }
            self.meter.feed(&self.block);
            self.refuse_damage()?;
        }
        Ok(self.block.get(self.at..).unwrap_or_default())
    }

    /// An error once the stream knows the file is damaged.
    fn refuse_damage(&self) -> Result<(), CompareError> {
        match self.stream.partial() {
            None => Ok(()),
            Some(why) => Err(CompareError::Damaged {
                path: self.path.clone(),
                why: why.to_owned(),
            }),
        }
    }

    fn figures(self) -> FileFigures {
        FileFigures {
            info: self.stream.info().clone(),
            path: self.path,
            frames: self.frames,
            loudness: self.meter.loudness(),
        }
    }
}

/// The sliding window over the difference signal (see the module documentation).
struct Window {
    channels: usize,
    /// Per frame of the window: the sum of the squared differences of its channels.
    energy: Vec<f64>,
    /// Per frame of the window: its largest absolute difference.
    peak: Vec<f32>,
    /// Where the next frame goes in `energy` and `peak`.
    pos: usize,
    sum: f64,
    /// The threshold as a sum of squares over the window.
    threshold_sum: f64,
    /// The threshold as one sample's amplitude.
    threshold_amplitude: f32,
    /// Frames pushed so far.
    frame: u64,
    first: Option<(u64, f64)>,
    /// The largest sum over a window, and the frame after that window.
    largest: (f64, u64),
}

impl Window {
    fn new(frames: usize, channels: usize, threshold_db: f64) -> Self {
        let frames = frames.max(1);
        let power = 10f64.powf(threshold_db / 10.0);
        Self {
            channels,
            energy: vec![0.0; frames],
            peak: vec![0.0; frames],
            pos: 0,
            sum: 0.0,
            threshold_sum: power * (frames * channels) as f64,
            threshold_amplitude: 10f64.powf(threshold_db / 20.0) as f32,
            frame: 0,
            first: None,
            largest: (0.0, 0),
        }
    }

    /// Pushes the difference of whole frames of `a` and `b` (same length).
    fn push(&mut self, a: &[f32], b: &[f32]) {
        for (fa, fb) in a
            .chunks_exact(self.channels)
            .zip(b.chunks_exact(self.channels))
        {
            let mut energy = 0.0f64;
            let mut peak = 0.0f32;
            for (x, y) in fa.iter().zip(fb) {
                let d = x - y;
                energy += f64::from(d) * f64::from(d);
                peak = peak.max(d.abs());
            }
            self.sum += energy - self.energy[self.pos];
            self.energy[self.pos] = energy;
            self.peak[self.pos] = peak;
            self.pos += 1;
            self.frame += 1;
            if self.pos == self.energy.len() {
                self.pos = 0;
                // Sum afresh once per window, so rounding never builds up.
                self.sum = self.energy.iter().sum();
            }
            if self.sum > self.largest.0 {
                self.largest = (self.sum, self.frame);
            }
            if self.first.is_none() && self.sum > self.threshold_sum {
                self.first = Some((self.onset(), self.sum));
            }
        }
    }

    /// The first frame in the window whose difference is above the threshold on its own.
    fn onset(&self) -> u64 {
        let len = self.energy.len();
        let last = self.frame.saturating_sub(1);
        // Oldest first: the window's frames are `pos`, `pos + 1`, … (wrapping).
        (0..len)
            .find(|&i| self.peak[(self.pos + i) % len] > self.threshold_amplitude)
            .map_or(last, |i| (last + 1 + i as u64).saturating_sub(len as u64))
    }

    /// The level of a sum over the window.
    fn level(&self, sum: f64) -> Level {
        Level::from_power(sum / (self.energy.len() * self.channels) as f64)
    }
}

/// Compares the files `a` and `b` (see the module documentation).
pub fn compare(a: &Path, b: &Path, options: &CompareOptions) -> Result<Comparison, CompareError> {
    let mut side_a = Side::open(a)?;
    let mut side_b = Side::open(b)?;
    check_alike(&side_a, &side_b)?;
    let rate = side_a.stream.info().sample_rate;
    let window_ms = options
        .window_ms
        .clamp(CompareOptions::MIN_WINDOW_MS, CompareOptions::MAX_WINDOW_MS);
    let window_frames = (window_ms * f64::from(rate) / 1000.0).round() as usize;
    let mut window = Window::new(window_frames, side_a.channels, options.threshold_db);
    loop {
        let pa = side_a.pending()?;
        let pb = side_b.pending()?;
        let n = pa.len().min(pb.len());
        if n == 0 {
            break;
        }
        window.push(&pa[..n], &pb[..n]);
        side_a.at += n;
        side_b.at += n;
    }
    // Whichever is left is the longer one's tail: read it for its loudness.
    while !side_a.pending()?.is_empty() {
        side_a.at = side_a.block.len();
    }
    while !side_b.pending()?.is_empty() {
        side_b.at = side_b.block.len();
    }
    let seconds = |frame: u64| frame as f64 / f64::from(rate.max(1));
    let shorter = side_a.frames.min(side_b.frames);
    let first_difference = match window.first {
        Some((frame, sum)) => Some(Difference {
            frame,
            seconds: seconds(frame),
            level: window.level(sum),
            kind: DifferenceKind::Signal,
        }),
        None if side_a.frames != side_b.frames => Some(Difference {
            frame: shorter,
            seconds: seconds(shorter),
            level: Level::SILENT,
            kind: DifferenceKind::Length,
        }),
        None => None,
    };
    let (largest_sum, largest_end) = window.largest;
    let largest_start = largest_end.saturating_sub(window.energy.len() as u64);
    Ok(Comparison {
        largest: (window.level(largest_sum), seconds(largest_start)),
        a: side_a.figures(),
        b: side_b.figures(),
        options: CompareOptions {
            window_ms,
            ..*options
        },
        first_difference,
    })
}

/// Refuses files of different sample rates or channel counts.
fn check_alike(a: &Side, b: &Side) -> Result<(), CompareError> {
    let (ia, ib) = (a.stream.info(), b.stream.info());
    let mismatch = |what, a_what, b_what| CompareError::Mismatch {
        a: a.path.clone(),
        b: b.path.clone(),
        what,
        a_what,
        b_what,
    };
    if ia.sample_rate != ib.sample_rate {
        return Err(mismatch(
            "sample rates",
            format!("{} Hz", ia.sample_rate),
            format!("{} Hz", ib.sample_rate),
        ));
    }
    if ia.source_channels != ib.source_channels || ia.channels != ib.channels {
        return Err(mismatch(
            "channel counts",
            format!("{} channel(s)", ia.source_channels),
            format!("{} channel(s)", ib.source_channels),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
