//! How long samples are, for the runtime's `wait_samp`: [`CacheSamples`] asks the file's
//! header, else the decoded sample in the cache, else decodes a stream once.

use crate::runtime::samples::{SampleInfo, SampleLibrary};
use crate::runtime::sink::SampleRef;
use crate::sound::audio::decode;
use crate::sound::cache::{CacheError, ResourceCache};
use std::collections::HashMap;
use std::path::Path;
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

/// How long samples are, for the runtime (`wait_samp`): from the file's header when it
/// says, else from the decoded sample in the cache, else by decoding a stream once.
pub struct CacheSamples {
    cache: Arc<ResourceCache>,
    known: Mutex<HashMap<Arc<str>, Result<SampleInfo, String>>>,
}

impl CacheSamples {
    /// Lengths of samples served by `cache`.
    pub fn new(cache: Arc<ResourceCache>) -> Self {
        Self {
            cache,
            known: Mutex::new(HashMap::new()),
        }
    }

    fn measure(&self, sample: &SampleRef) -> Result<SampleInfo, String> {
        let path = Path::new(sample.path.as_ref());
        let head = read_head(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let info = decode::probe(&sample.name, &head).map_err(|e| e.to_string())?;
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
                    let buffer = handle
                        .samples()
                        .ok_or_else(|| format!("`{}` is not audio", sample.name))?;
                    return Ok(SampleInfo {
                        frames: buffer.frames() as u64,
                        sample_rate: buffer.sample_rate,
                    });
                }
                Err(CacheError::TooLarge { .. } | CacheError::OverBudget { .. }) => {}
                Err(e) => return Err(e.to_string()),
            }
        }
        // Long files (music) stream: count their frames once without keeping them.
        let scanned = decode::scan_file(path, u64::MAX).map_err(|e| e.to_string())?;
        Ok(SampleInfo {
            frames: scanned.frames,
            sample_rate: scanned.info.sample_rate,
        })
    }
}

impl SampleLibrary for CacheSamples {
    fn info(&mut self, sample: &SampleRef) -> Result<SampleInfo, String> {
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
