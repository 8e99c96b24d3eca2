//! Capture files (`.hbcap`, `docs/capture.md`): what a session was given and what it
//! decided, to reopen, replay against the project as it is now, and compare.
//!
//! A capture is a sequence of [`Line`]s: a [`Header`] (format, version, seed, settings,
//! and a hash of every file of the project), the inputs (every command with its time,
//! as the console line that parses back to it), every typed trace record, keyframes of
//! the inspectors' views (`host::keyframe`), and an end.
//! It is written compactly (`binary`: postcard frames, Box-X occupant lists as changes
//! of the voice table) on a thread of its own ([`CaptureWriter`]); the same lines as
//! JSON ([`write_text`], `hitbench capture-text`) read back too. Reading ([`read`]) is
//! bounded, and a damaged frame or line is an error naming the file and where.

mod binary;
mod files;
mod project;
mod repeats;
mod tables;
mod text;
mod writer;

pub use binary::MAGIC;
pub use files::{changed_files, hash_files};
pub use project::{project_dirs, stored_dirs};
pub use text::write_text;
pub use writer::{CaptureWriter, Finished};

use crate::host::keyframe::Keyframe;
use crate::host::offline::RenderOptions;
use crate::runtime::clock::SampleTime;
use crate::runtime::trace::TraceRecord;
use crate::toolchain::fsrules;
use crate::toolchain::project::Project;
use crate::world::cache_settings::CacheSettings;
use serde::{Deserialize, Serialize};
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

/// The `format` of every capture header.
pub const FORMAT: &str = "hitbench-capture";
/// The version this build writes (3: a note's gain and pan carry their named
/// contributions; 4: a station item or song names the link or shortcut it came through;
/// 5: world players hold voice slots — new voice records, and a voice slot's keyframe
/// names the world player in it; 6: a keyframe's mixer part holds the meters' loudness,
/// RMS and overs; 7: a compact capture writes each name once, in a name table, and
/// refers to it by index; 8: a compact capture writes the records handed over together
/// in one frame; 9: a compact capture writes a record that repeats an earlier one as a
/// reference to it; 10: a repeat as far back and as long after as the one before it is
/// written as its object and seat alone).
pub const VERSION: u32 = 10;
/// The oldest version this build reads (version 6's compact captures write names in
/// full, which a reader still takes): version 5's keyframes lack the meters (a compact
/// capture's keyframes would not decode), version 4's voice slots lack the world player
/// (a compact capture's keyframes would not decode), version 3's station items and songs
/// the link they came through, and earlier captures' note records had three gain
/// factors and a bare pan.
pub const OLDEST_VERSION: u32 = 6;
/// The longest line or frame a capture may hold after its header, in bytes.
pub const MAX_FRAME_BYTES: usize = 1 << 20;
/// The longest header (it lists every file of the project), in bytes.
pub const MAX_HEADER_BYTES: usize = 1 << 26;
/// The largest capture file read, in bytes.
pub const MAX_CAPTURE_BYTES: u64 = 1 << 30;

/// One project file as it was: its path inside its data directory, size and SHA-256.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileHash {
    /// The data directory (as given).
    pub dir: PathBuf,
    /// The path inside it.
    pub path: PathBuf,
    /// Bytes.
    pub bytes: u64,
    /// SHA-256, lower-case hex.
    pub sha256: String,
}

/// What a capture was made with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`VERSION`] when written.
    pub version: u32,
    /// The project's data directories, in load order: absolute, links resolved, as
    /// [`stored_dirs`] writes them (older captures may hold relative ones).
    pub dirs: Vec<PathBuf>,
    /// Random seed.
    pub seed: u64,
    /// Samples per second.
    pub sample_rate: u32,
    /// Box-X voice limit.
    pub voices: usize,
    /// Resource cache budget, bytes.
    pub cache_budget: usize,
    /// Every file of the project when the capture began.
    pub files: Vec<FileHash>,
}

impl Header {
    /// The header of an offline render of `project` with `options` (the cache budget is
    /// `options`', else the project's `world.ini [Cache]`, else the default), with the
    /// hash of every project file now.
    pub fn for_render(project: &Project, options: &RenderOptions) -> Self {
        Self {
            format: FORMAT.to_string(),
            version: VERSION,
            dirs: stored_dirs(&project.dirs),
            seed: options.seed,
            sample_rate: options.sample_rate,
            voices: options.voices,
            cache_budget: CacheSettings::load(&project.dirs)
                .0
                .budget_or(options.cache_budget),
            files: hash_files(&stored_dirs(&project.dirs)),
        }
    }
}

impl Header {
    /// Checks every number against its bounds (a capture is untrusted input): the voice
    /// limit ([`VOICE_LIMITS`]), the sample rate ([`SAMPLE_RATES`]) and the cache
    /// budget (1 byte to [`MAX_CACHE_MB`] MiB).
    ///
    /// [`VOICE_LIMITS`]: crate::host::offline::VOICE_LIMITS
    /// [`SAMPLE_RATES`]: crate::host::offline::SAMPLE_RATES
    /// [`MAX_CACHE_MB`]: crate::world::cache_settings::MAX_CACHE_MB
    fn check(&self) -> Result<(), String> {
        use crate::host::offline::{SAMPLE_RATES, VOICE_LIMITS};
        use crate::world::cache_settings::{MAX_CACHE_MB, megabytes};
        let out_of_range = |field: &str, value: u64, low: u64, high: u64| {
            format!("the header's {field}, {value}, is out of range ({low} to {high})")
        };
        if !VOICE_LIMITS.contains(&self.voices) {
            let (low, high) = (*VOICE_LIMITS.start() as u64, *VOICE_LIMITS.end() as u64);
            return Err(out_of_range("voices", self.voices as u64, low, high));
        }
        if !SAMPLE_RATES.contains(&self.sample_rate) {
            let (low, high) = (*SAMPLE_RATES.start(), *SAMPLE_RATES.end());
            let rate = u64::from(self.sample_rate);
            return Err(out_of_range("sample_rate", rate, low.into(), high.into()));
        }
        let most = megabytes(MAX_CACHE_MB);
        if !(1..=most).contains(&self.cache_budget) {
            let budget = self.cache_budget as u64;
            return Err(out_of_range("cache_budget", budget, 1, most as u64));
        }
        Ok(())
    }
}

/// One line of a capture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "line", rename_all = "snake_case")]
pub enum Line {
    /// The first line.
    Header(Header),
    /// A command given at a time.
    Input {
        /// Seconds from the start (as the script said).
        seconds: f64,
        /// The command as a console line.
        command: String,
    },
    /// A decision.
    Record(TraceRecord),
    /// What the inspectors showed at a moment (`host::keyframe`).
    Keyframe(Box<Keyframe>),
    /// The last line: when the capture ended.
    End {
        /// The sample time it ended at.
        at: SampleTime,
    },
}

/// A capture read back.
#[derive(Debug, Clone, PartialEq)]
pub struct Capture {
    /// Its header.
    pub header: Header,
    /// The inputs, in order: seconds and command line.
    pub inputs: Vec<(f64, String)>,
    /// The records, in order.
    pub records: Vec<TraceRecord>,
    /// The keyframes, in time order.
    pub keyframes: Vec<Keyframe>,
    /// When it ended (`None`: the capture was cut off).
    pub end: Option<SampleTime>,
}

impl Capture {
    /// How far it reaches: its end, else (cut off) its latest record or keyframe; `None`
    /// for a cut-off capture that holds neither. A capture is written as the session
    /// runs, its inputs as they are given (a script's all at once, ahead of their
    /// times), so one cut off holds inputs beyond what it recorded.
    pub fn reaches(&self) -> Option<SampleTime> {
        let last_record = self.records.last().map(|r| r.time);
        let last_key = self.keyframes.last().map(|k| k.at);
        self.end.or(last_record.max(last_key))
    }

    /// Where a capture without its end was cut off: its latest record or keyframe (0 if
    /// it holds neither). What it holds of that moment may be only part of it; after it,
    /// it holds nothing. `None` for a capture with its end.
    pub fn cut_off_at(&self) -> Option<SampleTime> {
        match self.end {
            Some(_) => None,
            None => Some(self.reaches().unwrap_or(SampleTime::ZERO)),
        }
    }
}

/// Why a capture could not be written or read. Each names the file.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// The file could not be created, written or opened.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not one HitBench may read.
    #[error(transparent)]
    Refused(#[from] fsrules::Refusal),
    /// The project folders the capture names cannot be taken for its project.
    #[error("{}: {why}", path.display())]
    Project {
        /// The capture.
        path: PathBuf,
        /// Which folder, and why.
        why: String,
    },
    /// The file is not one HitBench may write (a device, a named pipe, an input).
    #[error(transparent)]
    NotWritable(fsrules::OutputError),
    /// A line of a capture in JSON lines is not a capture line.
    #[error("{}:{line}: {why}", path.display())]
    Bad {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong with it.
        why: String,
    },
    /// A frame of a compact capture is not a capture frame.
    #[error("{}: frame {frame} (at byte {offset}): {why}", path.display())]
    BadFrame {
        /// The file.
        path: PathBuf,
        /// 1-based frame (the header is frame 1).
        frame: usize,
        /// Where it starts in the file.
        offset: u64,
        /// What is wrong with it.
        why: String,
    },
}

impl CaptureError {
    /// What the output rule said of the capture at `path`: a refusal as it is, a failed
    /// write as [`CaptureError::Io`].
    pub(crate) fn from_output(path: &Path, error: fsrules::OutputError) -> Self {
        match error {
            fsrules::OutputError::Io { source, .. } => CaptureError::Io {
                path: path.to_path_buf(),
                source,
            },
            refusal => CaptureError::NotWritable(refusal),
        }
    }
}

/// Reads the capture at `path` — compact or JSON lines —: a regular file of at most
/// [`MAX_CAPTURE_BYTES`] whose first line is a header of this format and a version this
/// build reads.
pub fn read(path: &Path) -> Result<Capture, CaptureError> {
    let file = fsrules::open_regular(path)?;
    let mut reader = BufReader::with_capacity(1 << 16, file.take(MAX_CAPTURE_BYTES));
    let io = |source| CaptureError::Io {
        path: path.to_path_buf(),
        source,
    };
    let compact = std::io::BufRead::fill_buf(&mut reader)
        .map_err(io)?
        .starts_with(MAGIC);
    if compact {
        std::io::BufRead::consume(&mut reader, MAGIC.len());
        binary::read(path, reader)
    } else {
        text::read(path, reader)
    }
}

/// Puts a capture together line by line, in the order the format requires; both
/// encodings read through it.
#[derive(Default)]
struct Assembler {
    header: Option<Header>,
    inputs: Vec<(f64, String)>,
    records: Vec<TraceRecord>,
    keyframes: Vec<Keyframe>,
    end: Option<SampleTime>,
}

impl Assembler {
    fn push(&mut self, line: Line) -> Result<(), String> {
        match (line, &self.header) {
            (Line::Header(h), None) => {
                if h.format != FORMAT || !(OLDEST_VERSION..=VERSION).contains(&h.version) {
                    return Err(format!(
                        "a `{}` version {} file; this HitBench reads `{FORMAT}` versions {OLDEST_VERSION} to {VERSION}",
                        h.format, h.version
                    ));
                }
                h.check()?;
                self.header = Some(h);
            }
            (_, None) => return Err("the first line is not a capture header".into()),
            (Line::Header(_), Some(_)) => return Err("a second header".into()),
            (Line::Input { seconds, command }, Some(_)) => self.inputs.push((seconds, command)),
            (Line::Record(record), Some(_)) => self.records.push(record),
            (Line::Keyframe(keyframe), Some(_)) => self.keyframes.push(*keyframe),
            (Line::End { at }, Some(_)) => self.end = Some(at),
        }
        Ok(())
    }

    /// The record `back` records before the next one (1: the last), if there is one.
    fn earlier(&self, back: u64) -> Option<&TraceRecord> {
        let back = usize::try_from(back).ok().filter(|&back| back > 0)?;
        self.records
            .len()
            .checked_sub(back)
            .map(|i| &self.records[i])
    }

    /// The capture, if it had a header.
    fn finish(self) -> Option<Capture> {
        Some(Capture {
            header: self.header?,
            inputs: self.inputs,
            records: self.records,
            keyframes: self.keyframes,
            end: self.end,
        })
    }
}

#[cfg(test)]
mod tests;
