//! Watching a project load: how many files it has found and read so far, and a way to
//! stop it. A load of a large project (100,000 samples, thousands of sources) takes long
//! enough that the workbench shows a progress bar with a Cancel button for it; the load
//! counts every file it finds and every file it reads into a [`LoadWatch`] another thread
//! reads, and stops reading once [`LoadWatch::cancel`] was called
//! ([`Project::load_dirs_watched`](super::Project::load_dirs_watched) then gives
//! nothing).
//!
//! A watch may also carry a [`SamplesFound`] hook: the load hands it the sample files
//! once it has found and looked at them, before it resolves the tables, so work on the
//! samples (`check` decoding every one) runs on another core while the load goes on.

use crate::toolchain::fsrules::SeenMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// Given the sample files a load found (every folder's, in load order) and what it saw
/// at each that is not a link, once, before the load resolves its tables.
pub type SamplesFound = Box<dyn FnOnce(&[Arc<Path>], &Arc<SeenMap>) + Send>;

/// A load's progress and its cancel switch, shared between the loading thread and the
/// one that shows it.
#[derive(Default)]
pub struct LoadWatch {
    found: AtomicU64,
    read: AtomicU64,
    cancel: AtomicBool,
    samples_found: Mutex<Option<SamplesFound>>,
}

impl std::fmt::Debug for LoadWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadWatch")
            .field("found", &self.found())
            .field("read", &self.read())
            .field("cancelled", &self.cancelled())
            .finish_non_exhaustive()
    }
}

impl LoadWatch {
    /// A watch whose load hands its samples to `hook` ([`SamplesFound`]).
    pub fn with_samples_hook(hook: SamplesFound) -> Self {
        Self {
            samples_found: Mutex::new(Some(hook)),
            ..Self::default()
        }
    }

    /// Hands the samples to the hook, if there is one (and it was not called yet);
    /// `samples` lists them only then.
    pub(super) fn samples_found(
        &self,
        samples: impl FnOnce() -> Vec<Arc<Path>>,
        seen: &Arc<SeenMap>,
    ) {
        let hook = self
            .samples_found
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(hook) = hook {
            hook(&samples(), seen);
        }
    }

    /// Files found so far (sources, tables, event lists, built sets, samples); the count
    /// grows while the folders are walked.
    pub fn found(&self) -> u64 {
        self.found.load(Ordering::Relaxed)
    }

    /// Files read (or, for samples, looked at) so far.
    pub fn read(&self) -> u64 {
        self.read.load(Ordering::Relaxed)
    }

    /// The share of the files found that has been read, 0–1 (0 until files are found).
    pub fn fraction(&self) -> f64 {
        match self.found() {
            0 => 0.0,
            found => (self.read() as f64 / found as f64).min(1.0),
        }
    }

    /// Asks the load to stop: it reads no further file.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// True once [`cancel`](Self::cancel) was called.
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// `n` more files found.
    pub(super) fn add_found(&self, n: usize) {
        self.found.fetch_add(n as u64, Ordering::Relaxed);
    }

    /// `n` more files read.
    pub(super) fn add_read(&self, n: usize) {
        self.read.fetch_add(n as u64, Ordering::Relaxed);
    }
}
