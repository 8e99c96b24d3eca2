//! Resource loaders: turn the raw bytes of a resource file entry into what the engine
//! keeps (raw bytes, or decoded samples). A loader is chosen by wildcard pattern over the
//! resource name, most specific pattern first (see [`super::pattern`]), with the default
//! loader (`*`, keeps the bytes as they are) last.
//!
//! A loader runs within a [`MemoryBudget`]: the cache's reservation for the resource. What
//! it allocates for the resource is reserved first, so that the cache's budget bounds the
//! memory of loads in progress too (see the cache's module docs).

use std::sync::Arc;

use super::pattern::{Pattern, PatternTable};
use crate::sound::audio::decode::DecodeError;
use crate::sound::audio::{BudgetError, MemoryBudget, SampleBuffer};

/// What a loader made of a resource's bytes.
#[derive(Debug, Clone, PartialEq)]
pub enum ResourceData {
    /// The bytes as they are in the resource file.
    Raw(Vec<u8>),
    /// Decoded audio, ready for the mixer.
    Sample(SampleBuffer),
}

impl ResourceData {
    /// Bytes of memory the data takes: what the cache counts against its budget.
    pub fn size_bytes(&self) -> usize {
        match self {
            Self::Raw(bytes) => bytes.len(),
            Self::Sample(buffer) => buffer.size_bytes(),
        }
    }
}

/// Why a loader could not make a resource.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The bytes cannot be made into the resource: damaged, or in the wrong format (in the
    /// loader's words).
    #[error("{0}")]
    Failed(String),
    /// The audio could not be decoded (a decoded size over the limit says the resource is
    /// [too large](LoadError::too_large) to hold: a sound that long is streamed instead).
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// The memory budget refused what the resource needs.
    #[error(transparent)]
    Refused(#[from] BudgetError),
}

impl LoadError {
    /// True if the resource would take more memory (or more frames) than any one
    /// resource may: a sound that long is streamed instead.
    pub fn too_large(&self) -> bool {
        matches!(
            self,
            Self::Decode(DecodeError::TooLarge { .. } | DecodeError::TooLong { .. })
        )
    }
}

/// Turns raw resource bytes into [`ResourceData`] for the names its pattern matches.
///
/// Loaders run on whichever thread loads the resource (the engine thread for `get`, the
/// loader thread for background loads and preloads), never with the cache locked. A
/// loader must not ask the cache for the very resource it is loading.
pub trait ResourceLoader: Send + Sync {
    /// Wildcard pattern of the names this loader handles (`*.wav`, `music/*.ogg`).
    fn pattern(&self) -> &str;

    /// Makes the resource `name` (normalised) from its raw bytes, or says why it cannot.
    fn load(&self, name: &str, raw: Vec<u8>) -> Result<ResourceData, LoadError>;

    /// [`load`](Self::load) within `budget`: what the loader allocates for the resource is
    /// reserved from `budget` before it is allocated; a refusal ends the load. What the
    /// returned data was reserved with stays taken (it is the data's).
    ///
    /// The default loads first and then reserves the size of what it made (the memory
    /// exists for a moment before it is counted); loaders whose output can be much larger
    /// than their input (the sample loader's decoders) reserve ahead instead.
    fn load_within(
        &self,
        name: &str,
        raw: Vec<u8>,
        budget: &mut dyn MemoryBudget,
    ) -> Result<ResourceData, LoadError> {
        let data = self.load(name, raw)?;
        budget.reserve(data.size_bytes())?;
        Ok(data)
    }
}

/// The loader of last resort: pattern `*`, keeps the bytes unchanged.
#[derive(Debug, Clone, Copy, Default)]
pub struct DefaultLoader;

impl ResourceLoader for DefaultLoader {
    fn pattern(&self) -> &str {
        "*"
    }

    fn load(&self, _name: &str, raw: Vec<u8>) -> Result<ResourceData, LoadError> {
        Ok(ResourceData::Raw(raw))
    }
}

/// The registered loaders and the default one.
pub(crate) struct LoaderTable {
    table: PatternTable<Arc<dyn ResourceLoader>>,
    fallback: Arc<dyn ResourceLoader>,
}

impl Default for LoaderTable {
    fn default() -> Self {
        Self {
            table: PatternTable::default(),
            fallback: Arc::new(DefaultLoader),
        }
    }
}

impl LoaderTable {
    /// Adds a loader; a loader with the same pattern as an earlier one replaces it.
    pub(crate) fn register(&mut self, loader: Arc<dyn ResourceLoader>) {
        let pattern = Pattern::new(loader.pattern());
        self.table.set(pattern, loader);
    }

    /// The loader for `name` and the pattern it was chosen by.
    pub(crate) fn choose(&self, name: &str) -> (Arc<dyn ResourceLoader>, String) {
        match self.table.best(name) {
            Some((pattern, loader)) => (Arc::clone(loader), pattern.as_str().to_owned()),
            None => (Arc::clone(&self.fallback), "*".to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Tagged(&'static str, u8);

    impl ResourceLoader for Tagged {
        fn pattern(&self) -> &str {
            self.0
        }
        fn load(&self, _name: &str, _raw: Vec<u8>) -> Result<ResourceData, LoadError> {
            Ok(ResourceData::Raw(vec![self.1]))
        }
    }

    fn tag(table: &LoaderTable, name: &str) -> Option<u8> {
        let (loader, _) = table.choose(name);
        match loader.load(name, vec![0xEE]) {
            Ok(ResourceData::Raw(bytes)) => bytes.first().copied(),
            _ => None,
        }
    }

    #[test]
    fn most_specific_loader_wins_then_latest_then_default() {
        let mut table = LoaderTable::default();
        table.register(Arc::new(Tagged("*.wav", 1)));
        table.register(Arc::new(Tagged("music/*.wav", 2)));
        table.register(Arc::new(Tagged("*.WAV", 3))); // same pattern as 1: replaces it
        table.register(Arc::new(Tagged("sfx/????.ogg", 4)));
        table.register(Arc::new(Tagged("sfx/*oom.ogg", 5))); // ties with 4, later
        assert_eq!(tag(&table, "sfx/boom.wav"), Some(3));
        assert_eq!(tag(&table, "music/theme.wav"), Some(2));
        assert_eq!(tag(&table, "sfx/boom.ogg"), Some(5));
        assert_eq!(tag(&table, "sfx/bang.ogg"), Some(4));
        // Nothing registered matches: the default keeps the bytes.
        assert_eq!(tag(&table, "readme.txt"), Some(0xEE));
        assert_eq!(table.choose("readme.txt").1, "*");
    }

    #[test]
    fn sizes() {
        assert_eq!(ResourceData::Raw(vec![0; 7]).size_bytes(), 7);
        let buffer = SampleBuffer {
            sample_rate: 22_050,
            channels: 2,
            data: vec![0.0; 10],
        };
        assert_eq!(ResourceData::Sample(buffer).size_bytes(), 40);
    }
}
