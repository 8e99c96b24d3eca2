//! Decoding audio files for the resource cache: the [`SampleLoader`] for every audio
//! extension, and [`project_cache`], a cache over a project's data folders with them.

use crate::sound::audio::MemoryBudget;
use crate::sound::audio::decode::{self, DecodeLimits};
use crate::sound::cache::{LoadError, ResourceCache, ResourceData, ResourceLoader};
use std::sync::Arc;

/// Decodes audio files for the resource cache.
#[derive(Debug, Clone)]
pub struct SampleLoader {
    pattern: String,
    limits: DecodeLimits,
}

impl SampleLoader {
    /// A loader for names matching `pattern` (e.g. `*.wav`).
    pub fn new(pattern: &str, limits: DecodeLimits) -> Self {
        Self {
            pattern: pattern.to_string(),
            limits,
        }
    }

    /// Loaders for every audio extension the engine plays.
    pub fn all(limits: DecodeLimits) -> Vec<Arc<dyn ResourceLoader>> {
        decode::EXTENSIONS
            .iter()
            .map(|ext| {
                Arc::new(SampleLoader::new(&format!("*.{ext}"), limits)) as Arc<dyn ResourceLoader>
            })
            .collect()
    }
}

impl ResourceLoader for SampleLoader {
    fn pattern(&self) -> &str {
        &self.pattern
    }

    fn load(&self, name: &str, raw: Vec<u8>) -> Result<ResourceData, LoadError> {
        let decoded = decode::decode(name, &raw, &self.limits)?;
        Ok(ResourceData::Sample(decoded.buffer))
    }

    /// Decodes with every allocation of samples reserved from `budget` first.
    fn load_within(
        &self,
        name: &str,
        raw: Vec<u8>,
        budget: &mut dyn MemoryBudget,
    ) -> Result<ResourceData, LoadError> {
        let decoded = decode::decode_within(name, &raw, &self.limits, budget)?;
        Ok(ResourceData::Sample(decoded.buffer))
    }
}

/// A resource cache serving the samples of a project's data directories (later
/// directories first; in each, its loose files before its `*.zip` packs), with the audio
/// loaders registered.
pub fn project_cache(
    dirs: &[std::path::PathBuf],
    budget: usize,
) -> (Arc<ResourceCache>, Vec<String>) {
    let cache = Arc::new(ResourceCache::with_budget(budget));
    let mut problems = Vec::new();
    for loader in SampleLoader::all(DecodeLimits::default()) {
        cache.register_loader(loader);
    }
    for dir in dirs {
        // A folder's zip packs first: its loose files, searched before them, win.
        for pack in crate::toolchain::project::packs::packs_in(dir) {
            if let Err(e) = cache.add_zip(&pack) {
                problems.push(e.to_string());
            }
        }
        if let Err(e) = cache.add_directory(dir) {
            problems.push(e.to_string());
        }
    }
    (cache, problems)
}
