//! A temporary folder for a benchmark's generated files, removed when dropped.

use anyhow::Context as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh, empty folder under the system's temporary directory, removed (with what it
/// holds) when dropped.
pub struct Scratch(PathBuf);

impl Scratch {
    /// A new empty folder, named after `tag`, the process and a counter (benchmarks in
    /// one process, or tests running them side by side, never share one).
    pub fn new(tag: &str) -> anyhow::Result<Self> {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("hitbench-bench-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(Self(dir))
    }

    /// A new folder holding `files` (name, contents).
    pub fn with_files(tag: &str, files: &[(&str, &[u8])]) -> anyhow::Result<Self> {
        let scratch = Self::new(tag)?;
        for (name, contents) in files {
            std::fs::write(scratch.file(name), contents)
                .with_context(|| format!("cannot write {name}"))?;
        }
        Ok(scratch)
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// A file (or folder) in it.
    pub fn file(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
