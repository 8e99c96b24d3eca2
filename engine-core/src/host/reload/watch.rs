//! Watching data directories with `notify` (inotify on Linux), and coalescing the bursts
//! of events an editor's save makes (write a temporary file, rename it over the old one:
//! several events for one change) into one batch. An event that ends a change — a file
//! closed after writing, renamed into place, removed — makes its path ready after a
//! short settle (a few milliseconds: the rest of the same save), any other event after a
//! quiet spell, since more is coming.
//!
//! The watcher's callback runs on notify's own thread; it only forwards each event
//! through a channel. The [`Debouncer`] is plain data driven with explicit times, so it
//! is tested without a clock.

use notify::event::{
    AccessKind, AccessMode, CreateKind, EventKind, ModifyKind, RemoveKind, RenameMode,
};
use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What the watcher is doing: the directories it watches and what went wrong.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WatchStatus {
    /// Directories watched (recursively).
    pub watching: Vec<PathBuf>,
    /// Problems: a directory that does not exist, a watch the system refused, events
    /// lost. Each names the directory where there is one.
    pub problems: Vec<String>,
}

/// What one file-system event means for reloading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Signal {
    /// These paths are changing (created, written to): more events will follow.
    Paths(Vec<PathBuf>),
    /// These paths' change is complete: closed after writing, renamed into place,
    /// removed.
    Settled(Vec<PathBuf>),
    /// A folder appeared (created): the files already in it came without events of
    /// their own.
    NewFolder(Vec<PathBuf>),
    /// Events were lost or a folder went: read everything again.
    Rescan,
    /// Nothing to do (opened, read, closed without writing).
    Nothing,
}

/// Reads a notify event.
pub fn signal(event: &notify::Event) -> Signal {
    if event.need_rescan() {
        return Signal::Rescan;
    }
    match event.kind {
        // Only "closed after writing" says something changed (and is done changing).
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => {
            Signal::Settled(event.paths.clone())
        }
        EventKind::Access(_) => Signal::Nothing,
        // inotify may miss files written straight into a new folder (the reader looks
        // inside it), and a removed folder takes its files without an event each: read
        // everything again.
        EventKind::Create(CreateKind::Folder) => Signal::NewFolder(event.paths.clone()),
        EventKind::Remove(RemoveKind::Folder) => Signal::Rescan,
        _ if event.paths.is_empty() => Signal::Nothing,
        // A rename is atomic and a removal final: the file is as it will be.
        EventKind::Modify(ModifyKind::Name(RenameMode::To | RenameMode::Both))
        | EventKind::Remove(RemoveKind::File) => Signal::Settled(event.paths.clone()),
        _ => Signal::Paths(event.paths.clone()),
    }
}

/// The notify watcher over a project's data directories.
pub struct DirWatcher {
    watcher: Option<RecommendedWatcher>,
    watched: Vec<PathBuf>,
    missing: Vec<PathBuf>,
    problems: Vec<String>,
}

impl std::fmt::Debug for DirWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DirWatcher")
            .field("watched", &self.watched)
            .field("missing", &self.missing)
            .field("problems", &self.problems)
            .finish_non_exhaustive()
    }
}

impl DirWatcher {
    /// A watcher calling `handler` (on notify's thread) for every event. If the system
    /// has no watcher to give, the problem is reported and nothing is watched.
    pub fn new(handler: impl FnMut(notify::Result<notify::Event>) + Send + 'static) -> Self {
        let (watcher, problems) = match notify::recommended_watcher(handler) {
            Ok(watcher) => (Some(watcher), Vec::new()),
            Err(e) => (
                None,
                vec![format!("cannot watch files: {e}; changes are not reloaded")],
            ),
        };
        Self {
            watcher,
            watched: Vec::new(),
            missing: Vec::new(),
            problems,
        }
    }

    /// Watches exactly `dirs` (recursively): stops watching the ones no longer wanted and
    /// starts on the new ones. A directory that does not exist is reported and tried
    /// again by [`retry_missing`](Self::retry_missing).
    pub fn set_dirs(&mut self, dirs: &[PathBuf]) {
        let Some(watcher) = &mut self.watcher else {
            return;
        };
        for old in std::mem::take(&mut self.watched) {
            if dirs.contains(&old) {
                self.watched.push(old);
            } else {
                let _ = watcher.unwatch(&old);
            }
        }
        self.missing.retain(|d| dirs.contains(d));
        self.problems.retain(|p| !p.starts_with("data directory"));
        for dir in dirs {
            if self.watched.contains(dir) || self.missing.contains(dir) {
                continue;
            }
            self.missing.push(dir.clone());
        }
        self.retry_missing();
        self.describe_missing();
    }

    /// Tries again to watch the directories that were missing; returns the ones that
    /// are watched now.
    pub fn retry_missing(&mut self) -> Vec<PathBuf> {
        let Some(watcher) = &mut self.watcher else {
            return Vec::new();
        };
        let mut found = Vec::new();
        let mut still = Vec::new();
        for dir in std::mem::take(&mut self.missing) {
            if !dir.is_dir() {
                still.push(dir);
                continue;
            }
            match watcher.watch(&dir, RecursiveMode::Recursive) {
                Ok(()) => {
                    self.watched.push(dir.clone());
                    found.push(dir);
                }
                Err(e) => {
                    // Not a missing folder: the system refused (too many watches…).
                    self.problems.push(format!(
                        "cannot watch `{}`: {e}; its changes are not reloaded",
                        dir.display()
                    ));
                }
            }
        }
        self.missing = still;
        if !found.is_empty() {
            self.describe_missing();
        }
        found
    }

    fn describe_missing(&mut self) {
        self.problems.retain(|p| !p.starts_with("data directory"));
        for dir in &self.missing {
            self.problems.push(format!(
                "data directory `{}` does not exist (or is not a folder): not watched until it appears",
                dir.display()
            ));
        }
    }

    /// True if some directory waits to appear.
    pub fn has_missing(&self) -> bool {
        !self.missing.is_empty()
    }

    /// Records a problem the watcher reported while running (kept to the last 20).
    pub fn problem(&mut self, message: String) {
        if self.problems.contains(&message) {
            return;
        }
        if self.problems.len() >= 20 {
            self.problems.remove(0);
        }
        self.problems.push(message);
    }

    /// What is watched and what went wrong.
    pub fn status(&self) -> WatchStatus {
        WatchStatus {
            watching: self.watched.clone(),
            problems: self.problems.clone(),
        }
    }
}

/// The first and the last event seen for something not yet reloaded, and whether the
/// last one ended the change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pending {
    first: Instant,
    last: Instant,
    settled: bool,
}

impl Pending {
    fn new(now: Instant) -> Self {
        Self {
            first: now,
            last: now,
            settled: false,
        }
    }

    fn touch(&mut self, now: Instant, settled: bool) {
        if now >= self.last {
            self.settled = settled;
        }
        self.last = self.last.max(now);
    }

    fn merge(&mut self, other: Pending) {
        self.first = self.first.min(other.first);
        self.last = self.last.max(other.last);
        self.settled = false;
    }

    fn due(&self, quiet: Duration, settle: Duration, max_wait: Duration) -> Instant {
        let wait = if self.settled { settle } else { quiet };
        (self.last + wait).min(self.first + max_wait)
    }
}

/// Changes that have settled and can be reloaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    /// The paths, sorted.
    pub paths: Vec<PathBuf>,
    /// Everything must be read again (events were lost, a folder changed, too many
    /// paths at once).
    pub rescan: bool,
    /// When the first event of the batch was seen.
    pub first: Instant,
}

/// Coalesces events per path: a path is ready `settle` after an event that ended its
/// change, or once no event came for it for `quiet` (or, if it never stops changing,
/// `max_wait` after its first event). More than `max_paths` paths waiting at once turn
/// into one "read everything again".
#[derive(Debug, Clone)]
pub struct Debouncer {
    quiet: Duration,
    settle: Duration,
    max_wait: Duration,
    max_paths: usize,
    paths: HashMap<PathBuf, Pending>,
    rescan: Option<Pending>,
}

impl Debouncer {
    /// A debouncer with these windows.
    pub fn new(quiet: Duration, max_wait: Duration, max_paths: usize) -> Self {
        Self {
            quiet,
            settle: quiet,
            max_wait: max_wait.max(quiet),
            max_paths: max_paths.max(1),
            paths: HashMap::new(),
            rescan: None,
        }
    }

    /// The same, ready `settle` after an event that ended a change (no longer than
    /// `quiet`).
    pub fn with_settle(mut self, settle: Duration) -> Self {
        self.settle = settle.min(self.quiet);
        self
    }

    /// An event for `path` at `now`: more will follow.
    pub fn path(&mut self, path: &Path, now: Instant) {
        self.event(path, now, false);
    }

    /// An event that ended `path`'s change at `now` (closed after writing, renamed into
    /// place, removed).
    pub fn settled(&mut self, path: &Path, now: Instant) {
        self.event(path, now, true);
    }

    fn event(&mut self, path: &Path, now: Instant, settled: bool) {
        if let Some(rescan) = &mut self.rescan {
            // Everything is read again anyway; only the time matters.
            rescan.touch(now, false);
            return;
        }
        match self.paths.get_mut(path) {
            Some(pending) => pending.touch(now, settled),
            None => {
                let mut pending = Pending::new(now);
                pending.settled = settled;
                self.paths.insert(path.to_path_buf(), pending);
                if self.paths.len() > self.max_paths {
                    self.rescan(now);
                }
            }
        }
    }

    /// Everything must be read again (from `now`'s point of view).
    pub fn rescan(&mut self, now: Instant) {
        let mut pending = self.rescan.unwrap_or_else(|| Pending::new(now));
        pending.touch(now, false);
        for (_, p) in self.paths.drain() {
            pending.merge(p);
        }
        self.rescan = Some(pending);
    }

    /// True if nothing waits.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty() && self.rescan.is_none()
    }

    /// When the next batch is due, if anything waits.
    pub fn deadline(&self) -> Option<Instant> {
        let (quiet, settle, max_wait) = (self.quiet, self.settle, self.max_wait);
        match &self.rescan {
            Some(r) => Some(r.due(quiet, settle, max_wait)),
            None => self
                .paths
                .values()
                .map(|p| p.due(quiet, settle, max_wait))
                .min(),
        }
    }

    /// Takes what has settled by `now`: the rescan if one is due, else every path due.
    pub fn take(&mut self, now: Instant) -> Option<Batch> {
        let (quiet, settle, max_wait) = (self.quiet, self.settle, self.max_wait);
        if let Some(rescan) = self.rescan {
            if rescan.due(quiet, settle, max_wait) > now {
                return None;
            }
            self.rescan = None;
            return Some(Batch {
                paths: Vec::new(),
                rescan: true,
                first: rescan.first,
            });
        }
        let due: Vec<PathBuf> = self
            .paths
            .iter()
            .filter(|(_, p)| p.due(quiet, settle, max_wait) <= now)
            .map(|(path, _)| path.clone())
            .collect();
        if due.is_empty() {
            return None;
        }
        let mut first = now;
        let mut paths = Vec::with_capacity(due.len());
        for path in due {
            if let Some(p) = self.paths.remove(&path) {
                first = first.min(p.first);
            }
            paths.push(path);
        }
        paths.sort();
        Some(Batch {
            paths,
            rescan: false,
            first,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;

    const MS: Duration = Duration::from_millis(1);

    fn debouncer() -> Debouncer {
        Debouncer::new(40 * MS, 500 * MS, 8)
    }

    #[test]
    fn a_burst_on_one_path_is_one_batch_after_the_quiet_time() {
        let t0 = Instant::now();
        let mut d = debouncer();
        let path = Path::new("a/ui.src");
        for i in 0..10 {
            d.path(path, t0 + i * 3 * MS);
        }
        // Last event at 27 ms: due at 67 ms.
        assert_eq!(d.deadline(), Some(t0 + 67 * MS));
        assert!(d.take(t0 + 60 * MS).is_none());
        let batch = d.take(t0 + 67 * MS).unwrap();
        assert_eq!(batch.paths, vec![PathBuf::from("a/ui.src")]);
        assert!(!batch.rescan);
        assert_eq!(batch.first, t0);
        assert!(d.is_empty());
        assert!(d.take(t0 + 200 * MS).is_none());
    }

    #[test]
    fn paths_settle_separately() {
        let t0 = Instant::now();
        let mut d = debouncer();
        d.path(Path::new("x.wav"), t0);
        d.path(Path::new("y.hot"), t0 + 30 * MS);
        let first = d.take(t0 + 45 * MS).unwrap();
        assert_eq!(first.paths, vec![PathBuf::from("x.wav")]);
        assert!(d.take(t0 + 60 * MS).is_none());
        let second = d.take(t0 + 70 * MS).unwrap();
        assert_eq!(second.paths, vec![PathBuf::from("y.hot")]);
    }

    #[test]
    fn a_path_that_never_settles_waits_at_most_max_wait() {
        let t0 = Instant::now();
        let mut d = debouncer();
        let path = Path::new("long.wav");
        let mut t = t0;
        while t < t0 + 490 * MS {
            d.path(path, t);
            t += 10 * MS;
        }
        assert_eq!(d.deadline(), Some(t0 + 500 * MS));
        assert!(d.take(t0 + 500 * MS).is_some());
    }

    #[test]
    fn too_many_paths_become_one_rescan() {
        let t0 = Instant::now();
        let mut d = debouncer();
        for i in 0..5000u32 {
            d.path(&PathBuf::from(format!("f{i}.src")), t0 + MS * (i / 100));
        }
        // The last event came at 49 ms.
        assert!(d.take(t0 + 80 * MS).is_none());
        let batch = d.take(t0 + 89 * MS).unwrap();
        assert!(batch.rescan);
        assert!(batch.paths.is_empty());
        assert_eq!(batch.first, t0);
        assert!(d.is_empty());
    }

    #[test]
    fn a_finished_write_is_ready_after_the_settle_and_a_write_in_progress_after_the_quiet() {
        let mut d = debouncer().with_settle(3 * MS);
        let t0 = Instant::now();
        d.path(Path::new("d/a.src"), t0);
        d.settled(Path::new("d/a.src"), t0 + MS);
        assert_eq!(d.deadline(), Some(t0 + 4 * MS));
        assert!(d.take(t0 + 3 * MS).is_none());
        let batch = d.take(t0 + 4 * MS).unwrap();
        assert_eq!(batch.paths, [PathBuf::from("d/a.src")]);
        assert_eq!(batch.first, t0);
        // Written to again after being closed: more is coming, the quiet window applies.
        d.settled(Path::new("d/b.src"), t0);
        d.path(Path::new("d/b.src"), t0 + MS);
        assert_eq!(d.deadline(), Some(t0 + 41 * MS));
        // The settle never exceeds the quiet window.
        assert_eq!(debouncer().with_settle(900 * MS).settle, 40 * MS);
    }

    #[test]
    fn events_are_read_by_kind() {
        use notify::event::{DataChange, ModifyKind, RenameMode};
        let event = |kind| notify::Event::new(kind).add_path(PathBuf::from("d/a.src"));
        assert_eq!(
            signal(&event(EventKind::Access(AccessKind::Open(AccessMode::Any)))),
            Signal::Nothing
        );
        assert_eq!(
            signal(&event(EventKind::Access(AccessKind::Close(
                AccessMode::Write
            )))),
            Signal::Settled(vec![PathBuf::from("d/a.src")])
        );
        assert_eq!(
            signal(&event(EventKind::Modify(ModifyKind::Data(DataChange::Any)))),
            Signal::Paths(vec![PathBuf::from("d/a.src")])
        );
        assert_eq!(
            signal(&event(EventKind::Modify(ModifyKind::Name(RenameMode::To)))),
            Signal::Settled(vec![PathBuf::from("d/a.src")])
        );
        assert_eq!(
            signal(&event(EventKind::Create(CreateKind::Folder))),
            Signal::NewFolder(vec![PathBuf::from("d/a.src")])
        );
        assert_eq!(
            signal(&event(EventKind::Remove(RemoveKind::Folder))),
            Signal::Rescan
        );
        assert_eq!(
            signal(&notify::Event::new(EventKind::Other).set_flag(notify::event::Flag::Rescan)),
            Signal::Rescan
        );
    }
}
