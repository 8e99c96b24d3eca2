//! How long samples are, for the runtime's `wait_samp`: [`CacheSamples`] asks the file's
//! header, else the decoded sample in the cache, else decodes a stream once.

use crate::runtime::hash::FastMap;
use crate::runtime::samples::{SampleInfo, SampleLibrary};
use crate::runtime::sink::SampleRef;
use crate::sound::audio::decode;
use crate::sound::cache::{CacheError, ResourceCache};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

fn read_head(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut file = crate::toolchain::fsrules::open_regular(path)
        .map_err(crate::toolchain::fsrules::Refusal::into_io)?;
    let mut head = vec![0u8; 64 * 1024];
    let n = file.read(&mut head)?;
    head.truncate(n);
    Ok(head)
}

/// The pack a sample's path leads into (`data/extra.zip/s.wav`: `data/extra.zip`), if it
/// is one: a file above it on the path. Looked for only when the sample cannot be opened.
pub(super) fn packed_in(path: &Path) -> Option<&Path> {
    path.ancestors().skip(1).find(|above| above.is_file())
}

/// Why the length of a sample could not be measured.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LengthError {
    /// The file could not be read.
    #[error("cannot read {}: {message}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        message: String,
    },
    /// Its headers are not those of audio the engine plays.
    #[error("`{name}`: {message}")]
    Headers {
        /// The sample.
        name: String,
        /// What the decoder said.
        message: String,
    },
    /// The cache holds it, but not as audio.
    #[error("`{name}` is not audio")]
    NotAudio {
        /// The sample.
        name: String,
    },
    /// The cache could not load it (the error names it).
    #[error(transparent)]
    Cache(#[from] CacheError),
    /// A sample in a zip pack the cache could not load (encrypted, damaged, not audio).
    #[error("`{name}` in the pack {}: {why}", pack.display())]
    Packed {
        /// The sample.
        name: String,
        /// The pack.
        pack: PathBuf,
        /// What the cache said.
        why: String,
    },
    /// A sample in a zip pack too long to decode whole: it would have to stream, and a
    /// pack's samples are not streamed.
    #[error(
        "`{name}` in the pack {} is too long to decode whole and would have to be streamed, \
         and a sample in a pack is never streamed: unpack it into the data folder",
        pack.display()
    )]
    PackedTooLong {
        /// The sample.
        name: String,
        /// The pack.
        pack: PathBuf,
    },
    /// Decoding it from end to end failed.
    #[error("`{name}`: {message}")]
    Scan {
        /// The sample.
        name: String,
        /// What the decoder said.
        message: String,
    },
}

/// How long samples are, for the runtime (`wait_samp`): from the file's header when it
/// says, else from the decoded sample in the cache, else by decoding a stream once.
pub struct CacheSamples {
    cache: Arc<ResourceCache>,
    known: Mutex<FastMap<Arc<str>, Result<SampleInfo, LengthError>>>,
}

impl CacheSamples {
    /// Lengths of samples served by `cache`.
    pub fn new(cache: Arc<ResourceCache>) -> Self {
        Self {
            cache,
            known: Mutex::new(FastMap::default()),
        }
    }

    fn measure(&self, sample: &SampleRef) -> Result<SampleInfo, LengthError> {
        let path = Path::new(sample.path.as_ref());
        let head = match read_head(path) {
            Ok(head) => head,
            Err(e) => {
                // Not a file on disk: a sample inside a zip pack, which the cache reads
                // and decodes (whole: a packed sample does not stream).
                if let Some(pack) = packed_in(path) {
                    return self.packed_length(sample, pack);
                }
                return Err(LengthError::Read {
                    path: path.to_path_buf(),
                    message: e.to_string(),
                });
            }
        };
        let info = decode::probe(&sample.name, &head).map_err(|e| LengthError::Headers {
            name: sample.name.to_string(),
            message: e.to_string(),
        })?;
        if let Some(frames) = info.frames {
            // Trust a header length only as far as the file holds it (damaged files).
            if !matches!(info.format, decode::AudioFormat::Wav { .. }) {
                return Ok(SampleInfo {
                    frames,
                    sample_rate: info.sample_rate,
                });
            }
        }
        // Small files: decode through the cache (they will be played from it anyway),
        // unless they turn out too large to hold there.
        let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        if size <= 4_000_000 {
            match self.cache.get(&sample.name) {
                Ok(handle) => {
                    let buffer = handle.samples().ok_or_else(|| LengthError::NotAudio {
                        name: sample.name.to_string(),
                    })?;
                    return Ok(SampleInfo {
                        frames: buffer.frames() as u64,
                        sample_rate: buffer.sample_rate,
                    });
                }
                Err(CacheError::TooLarge { .. } | CacheError::OverBudget { .. }) => {}
                Err(e) => return Err(e.into()),
            }
        }
        // Long files (music) stream: count their frames once without keeping them.
        let scanned = decode::scan_file(path, u64::MAX).map_err(|e| LengthError::Scan {
            name: sample.name.to_string(),
            message: e.to_string(),
        })?;
        Ok(SampleInfo {
            frames: scanned.frames,
            sample_rate: scanned.info.sample_rate,
        })
    }
}

impl CacheSamples {
    /// The length of `sample`, inside the zip pack `pack`: decoded whole by the cache.
    fn packed_length(&self, sample: &SampleRef, pack: &Path) -> Result<SampleInfo, LengthError> {
        match self.cache.get(&sample.name) {
            Ok(handle) => {
                let buffer = handle.samples().ok_or_else(|| LengthError::NotAudio {
                    name: sample.name.to_string(),
                })?;
                Ok(SampleInfo {
                    frames: buffer.frames() as u64,
                    sample_rate: buffer.sample_rate,
                })
            }
            Err(CacheError::TooLarge { .. }) => Err(LengthError::PackedTooLong {
                name: sample.name.to_string(),
                pack: pack.to_path_buf(),
            }),
            Err(e) => Err(LengthError::Packed {
                name: sample.name.to_string(),
                pack: pack.to_path_buf(),
                why: e.to_string(),
            }),
        }
    }

    /// The length of `sample`, measured once and remembered (a failure too).
    pub fn length(&self, sample: &SampleRef) -> Result<SampleInfo, LengthError> {
        if let Ok(known) = self.known.lock()
            && let Some(result) = known.get(&sample.name)
        {
            return result.clone();
        }
        let result = self.measure(sample);
        if let Ok(mut known) = self.known.lock() {
            known.insert(Arc::clone(&sample.name), result.clone());
        }
        result
    }
}

impl SampleLibrary for CacheSamples {
    /// [`CacheSamples::length`] in words: the runtime puts the reason in its trace.
    fn info(&mut self, sample: &SampleRef) -> Result<SampleInfo, String> {
        self.length(sample).map_err(|e| e.to_string())
    }
}
