//! Watching a project load: how many files it has found and read so far, and a way to
//! stop it. A load of a large project (100,000 samples, thousands of sources) takes long
//! enough that the workbench shows a progress bar with a Cancel button for it; the load
//! counts every file it finds and every file it reads into a [`LoadWatch`] another thread
//! reads, and stops reading once [`LoadWatch::cancel`] was called
//! ([`Project::load_dirs_watched`](super::Project::load_dirs_watched) then gives
//! nothing).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// A load's progress and its cancel switch, shared between the loading thread and the
/// one that shows it.
#[derive(Debug, Default)]
pub struct LoadWatch {
    found: AtomicU64,
    read: AtomicU64,
    cancel: AtomicBool,
}

impl LoadWatch {
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
