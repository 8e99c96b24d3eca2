//! Capture files (`.hbcap`, `docs/capture.md`): what a session was given and what it
//! decided, to reopen, replay against the project as it is now, and compare.
//!
//! A capture is JSON lines, one [`Line`] each: a [`Header`] (format, version, seed,
//! settings, and a hash of every file of the project), the inputs (every command with
//! its time, as the console line that parses back to it), every typed trace record, and
//! an end. Writing streams line by line ([`CaptureWriter`]); reading ([`read`]) is
//! bounded, and a damaged line is an error naming the file and the line.

use crate::host::keyframe::Keyframe;
use crate::runtime::clock::SampleTime;
use crate::runtime::trace::TraceRecord;
use crate::toolchain::fsrules::{self, EntryKind, LinkPolicy, ReadRules, WalkOptions};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// The `format` of every capture header.
pub const FORMAT: &str = "hitbench-capture";
/// The version this build writes and reads.
pub const VERSION: u32 = 1;
/// The longest line a capture may hold, in bytes.
pub const MAX_LINE_BYTES: usize = 1 << 20;
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
    /// The project's data directories, in load order.
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
    /// A line is not a capture line.
    #[error("{}:{line}: {why}", path.display())]
    Bad {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong with it.
        why: String,
    },
}

/// Writes a capture as the session runs.
#[derive(Debug)]
pub struct CaptureWriter {
    out: BufWriter<File>,
    path: PathBuf,
}

impl CaptureWriter {
    /// Creates `path` and writes the header.
    pub fn create(path: &Path, header: &Header) -> Result<Self, CaptureError> {
        let file = File::create(path).map_err(|source| CaptureError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let mut writer = Self {
            out: BufWriter::new(file),
            path: path.to_path_buf(),
        };
        writer.line(&Line::Header(header.clone()))?;
        Ok(writer)
    }

    /// Writes a command given at `seconds`.
    pub fn input(&mut self, seconds: f64, command: String) -> Result<(), CaptureError> {
        self.line(&Line::Input { seconds, command })
    }

    /// Writes a record.
    pub fn record(&mut self, record: TraceRecord) -> Result<(), CaptureError> {
        self.line(&Line::Record(record))
    }

    /// Writes a keyframe.
    pub fn keyframe(&mut self, keyframe: Keyframe) -> Result<(), CaptureError> {
        self.line(&Line::Keyframe(Box::new(keyframe)))
    }

    /// Writes the end and flushes.
    pub fn finish(mut self, at: SampleTime) -> Result<(), CaptureError> {
        self.line(&Line::End { at })?;
        self.out.flush().map_err(|source| self.io(source))
    }

    fn line(&mut self, line: &Line) -> Result<(), CaptureError> {
        let io = |source: std::io::Error, path: &Path| CaptureError::Io {
            path: path.to_path_buf(),
            source,
        };
        serde_json::to_writer(&mut self.out, line)
            .map_err(|e| io(std::io::Error::other(e), &self.path))?;
        self.out.write_all(b"\n").map_err(|e| io(e, &self.path))
    }

    fn io(&self, source: std::io::Error) -> CaptureError {
        CaptureError::Io {
            path: self.path.clone(),
            source,
        }
    }
}

/// Reads the capture at `path`: a regular file of at most [`MAX_CAPTURE_BYTES`], whose
/// first line is a header of this format and version.
pub fn read(path: &Path) -> Result<Capture, CaptureError> {
    let file = fsrules::open_regular(path)?;
    let reader = BufReader::new(file.take(MAX_CAPTURE_BYTES));
    let bad = |line: usize, why: String| CaptureError::Bad {
        path: path.to_path_buf(),
        line,
        why,
    };
    let mut header = None;
    let mut capture_inputs = Vec::new();
    let mut records = Vec::new();
    let mut keyframes = Vec::new();
    let mut end = None;
    for (index, text) in reader.split(b'\n').enumerate() {
        let number = index + 1;
        let text = text.map_err(|source| CaptureError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        if text.len() > MAX_LINE_BYTES {
            return Err(bad(
                number,
                format!("a line of more than {MAX_LINE_BYTES} bytes"),
            ));
        }
        if text.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let line: Line = serde_json::from_slice(&text)
            .map_err(|e| bad(number, format!("not a capture line: {e}")))?;
        match (line, &header) {
            (Line::Header(h), None) => {
                if h.format != FORMAT || h.version != VERSION {
                    return Err(bad(
                        number,
                        format!(
                            "a `{}` version {} file; this HitBench reads `{FORMAT}` version {VERSION}",
                            h.format, h.version
                        ),
                    ));
                }
                header = Some(h);
            }
            (_, None) => return Err(bad(number, "the first line is not a capture header".into())),
            (Line::Header(_), Some(_)) => return Err(bad(number, "a second header".into())),
            (Line::Input { seconds, command }, Some(_)) => capture_inputs.push((seconds, command)),
            (Line::Record(record), Some(_)) => records.push(record),
            (Line::Keyframe(keyframe), Some(_)) => keyframes.push(*keyframe),
            (Line::End { at }, Some(_)) => end = Some(at),
        }
    }
    let header = header.ok_or_else(|| bad(1, "an empty file, not a capture".into()))?;
    Ok(Capture {
        header,
        inputs: capture_inputs,
        records,
        keyframes,
        end,
    })
}

/// Every file of the data directories `dirs`, with its size and SHA-256 (files that
/// cannot be read are left out: the project's own load reports them).
pub fn hash_files(dirs: &[PathBuf]) -> Vec<FileHash> {
    let mut out = Vec::new();
    let options = WalkOptions {
        links: LinkPolicy::StayInside,
        ..WalkOptions::default()
    };
    for dir in dirs {
        let Ok(walk) = fsrules::walk(dir, &options) else {
            continue;
        };
        let rules = ReadRules::within(std::slice::from_ref(dir))
            .with_max_bytes(fsrules::MAX_RESOURCE_BYTES);
        for entry in walk.entries {
            if entry.kind != EntryKind::File {
                continue;
            }
            let Ok(bytes) = rules.read(&entry.path) else {
                continue;
            };
            out.push(FileHash {
                dir: dir.clone(),
                path: entry.relative,
                bytes: bytes.len() as u64,
                sha256: hex(&Sha256::digest(&bytes)),
            });
        }
    }
    out.sort_by(|a, b| (&a.dir, &a.path).cmp(&(&b.dir, &b.path)));
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The files that differ between a capture's project and `now`: changed, gone or new
/// (by their path inside their data directory).
pub fn changed_files(then: &[FileHash], now: &[FileHash]) -> Vec<String> {
    let index = |files: &[FileHash]| -> BTreeMap<PathBuf, String> {
        files
            .iter()
            .map(|f| (f.path.clone(), f.sha256.clone()))
            .collect()
    };
    let (then, now) = (index(then), index(now));
    let mut out = Vec::new();
    for (path, hash) in &then {
        match now.get(path) {
            Some(new) if new != hash => out.push(format!("changed: {}", path.display())),
            Some(_) => {}
            None => out.push(format!("gone: {}", path.display())),
        }
    }
    out.extend(
        now.keys()
            .filter(|path| !then.contains_key(*path))
            .map(|path| format!("new: {}", path.display())),
    );
    out
}
