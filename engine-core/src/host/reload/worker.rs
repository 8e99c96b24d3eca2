//! The reload thread (`hitbench-reload`): takes the watcher's events, waits for them to
//! settle, then does the slow part off the engine thread — loads the project again (with
//! the last-good fallback per file) and puts changed samples into the cache — and hands
//! a finished [`Reload`] to whoever applies it.

use super::watch::{Batch, Debouncer, DirWatcher, Signal, WatchStatus};
use super::{FileErrors, NOTICED_EXTENSIONS, Reload, ReloadConfig, SampleChange, SampleOutcome};
use crate::sound::audio::decode::{self, DecodeLimits};
use crate::sound::cache::{CacheError, Handle, ResourceCache};
use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::toolchain::fsrules::ReadRules;
use crate::toolchain::project::{
    PROJECT_EXTENSIONS, Piece, Project, ReloadReport, SAMPLE_EXTENSIONS, resource_name,
};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Messages to the reload thread.
pub enum Message {
    /// A file-system event (from notify's thread).
    Fs(notify::Result<notify::Event>),
    /// The engine now runs this project (loaded by hand, a directory added): reload
    /// from it, and watch its directories.
    Project(Box<Project>),
    /// Stop.
    Stop,
}

/// How long the thread sleeps when nothing waits (it then looks for data directories
/// that were missing).
const IDLE: Duration = Duration::from_secs(1);

/// Files larger than this are checked by their header only (music streams from disk).
const FULL_CHECK_BYTES: u64 = 4_000_000;

/// Extensions the sample loaders decode (others are served raw).
const DECODED: &[&str] = decode::EXTENSIONS;

/// Entries looked at in a folder that appeared before it is read as everything changed.
const FOLDER_ENTRIES: usize = 100_000;

fn extension(path: &Path) -> String {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

/// The state of the reload thread.
pub struct Worker {
    base: Project,
    includes: HashSet<PathBuf>,
    cache: Arc<ResourceCache>,
    watcher: DirWatcher,
    debouncer: Debouncer,
    /// The last good version of samples whose file no longer decodes, held so the
    /// cache revives it rather than reading the broken file.
    kept: HashMap<String, Handle>,
    sample_errors: BTreeMap<PathBuf, FileErrors>,
    deliver: Box<dyn FnMut(Reload) + Send>,
    status_sent: WatchStatus,
    /// Each data directory as the project spells it and as it is watched (canonical):
    /// notify reports paths under the watched form, the project knows the other.
    roots: Vec<(PathBuf, PathBuf)>,
}

/// The directories as watched: canonical (absolute, no `..`, links resolved), so the
/// paths notify reports can be matched whatever the project was opened as (`proj`,
/// `./proj`, `../x/proj`). A directory that does not exist yet stays as given.
pub fn watched_dirs(dirs: &[PathBuf]) -> Vec<(PathBuf, PathBuf)> {
    dirs.iter()
        .map(|d| (d.clone(), d.canonicalize().unwrap_or_else(|_| d.clone())))
        .collect()
}

impl Worker {
    /// A worker reloading `base`, watching through `watcher`.
    pub fn new(
        base: Project,
        cache: Arc<ResourceCache>,
        config: ReloadConfig,
        watcher: DirWatcher,
        deliver: Box<dyn FnMut(Reload) + Send>,
    ) -> Self {
        let mut worker = Self {
            includes: HashSet::new(),
            base,
            cache,
            status_sent: watcher.status(),
            watcher,
            debouncer: Debouncer::new(config.debounce, config.max_wait, config.max_paths)
                .with_settle(config.settle),
            kept: HashMap::new(),
            sample_errors: BTreeMap::new(),
            deliver,
            roots: Vec::new(),
        };
        worker.roots = watched_dirs(&worker.base.dirs);
        worker.includes = worker.base.files().into_iter().collect();
        worker
    }

    /// Runs until told to stop.
    pub fn run(mut self, receive: &Receiver<Message>) {
        let mut last_retry = Instant::now();
        loop {
            let now = Instant::now();
            let timeout = self
                .debouncer
                .deadline()
                .map_or(IDLE, |d| d.saturating_duration_since(now));
            let first = match receive.recv_timeout(timeout) {
                Ok(message) => Some(message),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => return,
            };
            // Take the whole burst before deciding anything.
            for message in first
                .into_iter()
                .chain(std::iter::from_fn(|| receive.try_recv().ok()))
            {
                match message {
                    Message::Stop => return,
                    Message::Fs(event) => self.on_event(event, Instant::now()),
                    Message::Project(project) => self.set_base(*project),
                }
            }
            if self.watcher.has_missing() && last_retry.elapsed() >= IDLE {
                last_retry = Instant::now();
                if !self.watcher.retry_missing().is_empty() {
                    self.debouncer.rescan(Instant::now());
                }
            }
            if let Some(batch) = self.debouncer.take(Instant::now()) {
                if let Some(reload) = self.process(&batch) {
                    self.status_sent = reload.watch.clone();
                    (self.deliver)(reload);
                }
            } else if self.debouncer.is_empty() && self.watcher.status() != self.status_sent {
                // Nothing to reload, but the watcher's state changed: say so.
                let reload = Reload::status_only(self.watcher.status(), self.errors());
                self.status_sent = reload.watch.clone();
                (self.deliver)(reload);
            }
        }
    }

    fn set_base(&mut self, project: Project) {
        if project.dirs != self.base.dirs {
            self.roots = watched_dirs(&project.dirs);
            let watched: Vec<PathBuf> = self.roots.iter().map(|(_, w)| w.clone()).collect();
            self.watcher.set_dirs(&watched);
        }
        self.includes = project.files().into_iter().collect();
        self.base = project;
    }

    /// `path` as the project spells it (under the data directory's own spelling).
    fn localize(&self, path: PathBuf) -> PathBuf {
        for (spelled, watched) in &self.roots {
            if let Ok(rest) = path.strip_prefix(watched)
                && spelled != watched
            {
                return spelled.join(rest);
            }
        }
        path
    }

    fn on_event(&mut self, event: notify::Result<notify::Event>, now: Instant) {
        let event = match event {
            Ok(mut event) => {
                let paths = std::mem::take(&mut event.paths);
                event.paths = paths.into_iter().map(|p| self.localize(p)).collect();
                event
            }
            Err(e) => {
                let message = match e.paths.first() {
                    Some(path) => format!("watching `{}`: {e}", path.display()),
                    None => format!("watching: {e}"),
                };
                self.watcher.problem(message);
                return;
            }
        };
        match super::watch::signal(&event) {
            Signal::Nothing => {}
            Signal::Rescan => {
                if event.paths.iter().all(|p| self.in_data_dir(p, true)) {
                    self.debouncer.rescan(now);
                }
            }
            Signal::NewFolder(folders) => {
                for folder in folders {
                    if self.in_data_dir(&folder, true) {
                        self.folder_appeared(&folder, now);
                    }
                }
            }
            Signal::Paths(paths) => self.changed(paths, now, false),
            Signal::Settled(paths) => self.changed(paths, now, true),
        }
    }

    /// Paths an event named: each relevant one waits in the debouncer (`settled`: its
    /// change is complete); a folder renamed into the tree brings the files in it.
    fn changed(&mut self, paths: Vec<PathBuf>, now: Instant, settled: bool) {
        for path in paths {
            if !self.relevant(&path) {
                if self.in_data_dir(&path, true) && path.is_dir() {
                    // A folder renamed into the tree: its files came without events.
                    self.folder_appeared(&path, now);
                }
            } else if settled {
                self.debouncer.settled(&path, now);
            } else {
                self.debouncer.path(&path, now);
            }
        }
    }

    /// A folder that appeared in a data directory: the files in it the project reads
    /// wait in the debouncer as changed; one with none changes nothing (a folder for
    /// captures or renders does not reload the project). One holding more than
    /// [`FOLDER_ENTRIES`] entries means reading everything again.
    fn folder_appeared(&mut self, folder: &Path, now: Instant) {
        let mut files = Vec::new();
        let mut folders = vec![folder.to_path_buf()];
        let mut entries = 0;
        while let Some(dir) = folders.pop() {
            let Ok(read) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in read.flatten() {
                entries += 1;
                if entries > FOLDER_ENTRIES {
                    self.debouncer.rescan(now);
                    return;
                }
                let path = entry.path();
                // Links are not followed into folders (the loader does not either).
                match entry.file_type() {
                    Ok(kind) if kind.is_dir() && self.in_data_dir(&path, true) => {
                        folders.push(path);
                    }
                    Ok(_) if self.relevant(&path) => files.push(path),
                    _ => {}
                }
            }
        }
        for file in files {
            self.debouncer.path(&file, now);
        }
    }

    /// True if `path` is inside a data directory and not in a hidden folder (the loader
    /// skips those); with `folder`, `path` itself must not be hidden either.
    fn in_data_dir(&self, path: &Path, folder: bool) -> bool {
        self.base.dirs.iter().any(|dir| {
            path.strip_prefix(dir).is_ok_and(|rest| {
                let parts: Vec<_> = rest.components().collect();
                let checked = if folder {
                    parts.len()
                } else {
                    parts.len().saturating_sub(1)
                };
                parts
                    .iter()
                    .take(checked)
                    .all(|c| !c.as_os_str().to_string_lossy().starts_with('.'))
            })
        })
    }

    /// True for files the project or the cache reads — samples, project files, and the
    /// files sources include — and the files noticed for others ([`Self::noticed`]).
    fn relevant(&self, path: &Path) -> bool {
        if !self.in_data_dir(path, false) {
            return false;
        }
        let ext = extension(path);
        SAMPLE_EXTENSIONS.contains(&ext.as_str())
            || PROJECT_EXTENSIONS.contains(&ext.as_str())
            || NOTICED_EXTENSIONS.contains(&ext.as_str())
            || self.includes.contains(path)
            || self.is_pack(path)
    }

    /// True for a file the project does not read but whose changes are passed on
    /// ([`NOTICED_EXTENSIONS`]: QA scripts).
    fn noticed(&self, path: &Path) -> bool {
        NOTICED_EXTENSIONS.contains(&extension(path).as_str()) && !self.includes.contains(path)
    }

    /// A zip pack: a `*.zip` at the top of a data folder.
    fn is_pack(&self, path: &Path) -> bool {
        extension(path) == "zip"
            && self
                .base
                .dirs
                .iter()
                .any(|d| path.parent() == Some(d.as_path()))
    }

    fn is_sample(path: &Path) -> bool {
        SAMPLE_EXTENSIONS.contains(&extension(path).as_str())
    }

    /// Loads what a batch changed.
    fn process(&mut self, batch: &Batch) -> Option<Reload> {
        let known: HashSet<&Path> = self.base.samples.iter().map(|s| &**s).collect();
        let mut samples: BTreeSet<PathBuf> = BTreeSet::new();
        let mut packs = Vec::new();
        let mut project = batch.rescan;
        let (noticed, paths): (Vec<PathBuf>, Vec<PathBuf>) =
            batch.paths.iter().cloned().partition(|p| self.noticed(p));
        for path in &paths {
            if self.is_pack(path) {
                // A pack added, replaced or removed changes which patches find their file.
                packs.push(path.clone());
                project = true;
            } else if Self::is_sample(path) {
                // A sample that appeared or went changes which patches find their file.
                if path.is_file() != known.contains(path.as_path()) {
                    project = true;
                }
                samples.insert(path.clone());
            } else {
                project = true;
            }
        }
        if !project && samples.is_empty() {
            return (!noticed.is_empty()).then(|| Reload {
                noticed,
                ..Reload::status_only(self.watcher.status(), self.errors())
            });
        }
        let mut reload = Reload::new(batch, self.watcher.status());
        reload.files = paths;
        reload.noticed = noticed;
        if project {
            let (new, report) = self.base.reload();
            samples.extend(report.samples.all().cloned());
            // A batch whose project files all turned out broken (each keeps the
            // version the engine already runs), or that no piece reads, changes nothing
            // the engine plays: swapping would only restart the tracks playing. Its
            // errors still go out.
            let unchanged = !batch.rescan && nothing_to_swap(batch, &new, &report);
            if !unchanged {
                reload.project = Some(Box::new(new.clone()));
            }
            self.set_base(new);
            reload.report = report;
        }
        for path in &samples {
            if self.is_pack(path) {
                continue;
            }
            let change = self.sample(path);
            reload.samples.push(change);
        }
        for pack in packs.iter().filter(|p| p.is_file()) {
            // Mounted (again): its sounds are served from now on.
            let outcome = match self.cache.add_zip(pack) {
                Ok(_) => SampleOutcome::Added,
                Err(e) => SampleOutcome::Failed(e.to_string()),
            };
            reload.samples.push(SampleChange {
                path: pack.clone(),
                name: resource_name(pack, &self.base.dirs),
                outcome,
            });
        }
        if !project {
            // Keep the base's stamps current so the next project reload does not see
            // these samples as changed again.
            let inputs = Arc::make_mut(&mut self.base.inputs);
            for stamp in &mut inputs.samples {
                if samples.contains(&*stamp.path) {
                    *stamp = crate::toolchain::project::FileStamp::of(&stamp.path);
                }
            }
        }
        reload.errors = self.errors();
        reload.ready_at = Instant::now();
        Some(reload)
    }

    /// Puts a changed sample into the cache, keeping the last good version of one that
    /// no longer decodes.
    fn sample(&mut self, path: &Path) -> SampleChange {
        let Some(name) = resource_name(path, &self.base.dirs) else {
            return SampleChange {
                path: path.to_path_buf(),
                name: None,
                outcome: SampleOutcome::Ignored(SampleError::OutsideDataDirs.to_string()),
            };
        };
        let change = |outcome| SampleChange {
            path: path.to_path_buf(),
            name: Some(name.clone()),
            outcome,
        };
        if !path.is_file() {
            self.cache.evict(&name);
            self.kept.remove(&name);
            self.sample_errors.remove(path);
            return change(SampleOutcome::Removed);
        }
        let new_file = !self.cache_serves(&name);
        if new_file && let Err(e) = self.add_to_cache(path) {
            return change(self.failed(path, &name, &e));
        }
        if let Err(e) = check(path, &name) {
            return change(self.failed(path, &name, &e));
        }
        match self.cache.reload(&name) {
            Ok(_) => {
                self.kept.remove(&name);
                self.sample_errors.remove(path);
                change(if new_file {
                    SampleOutcome::Added
                } else {
                    SampleOutcome::Reloaded
                })
            }
            Err(e) => change(self.failed(path, &name, &SampleError::Cache(e))),
        }
    }

    /// A sample that does not load: keeps the version in memory if there is one.
    fn failed(&mut self, path: &Path, name: &str, error: &SampleError) -> SampleOutcome {
        let error = error.to_string();
        if !self.kept.contains_key(name)
            && self.cache.is_cached(name)
            && let Ok(handle) = self.cache.get(name)
        {
            self.kept.insert(name.to_string(), handle);
        }
        let kept = self.kept.contains_key(name);
        let (code, message) = if kept {
            (
                DiagCode::KeptLastGood,
                format!("{error}; its last good version stays in use"),
            )
        } else {
            (
                DiagCode::BadSample,
                format!("{error}; no earlier version is in memory, so it cannot play"),
            )
        };
        self.sample_errors.insert(
            path.to_path_buf(),
            FileErrors {
                path: path.to_path_buf(),
                kept,
                diagnostics: vec![Diagnostic::error(code, path, 0, 0, message)],
            },
        );
        if kept {
            SampleOutcome::Kept(error)
        } else {
            SampleOutcome::Failed(error)
        }
    }

    /// True if the cache's index has `name` (a file added after the cache indexed its
    /// directory is not there yet).
    fn cache_serves(&self, name: &str) -> bool {
        if name.contains(['*', '?']) {
            return false;
        }
        !self.cache.names(name).is_empty()
    }

    /// Indexes again the data directory holding `path`, so the cache serves a new file.
    fn add_to_cache(&self, path: &Path) -> Result<(), SampleError> {
        let dir = self
            .base
            .dirs
            .iter()
            .rev()
            .find(|d| path.starts_with(d))
            .ok_or(SampleError::OutsideDataDirs)?;
        self.cache
            .add_directory(dir)
            .map(|_| ())
            .map_err(SampleError::Cache)
    }

    /// Every file problem now: the project's errors by file (marking files whose last
    /// good version is in use) and samples that do not decode.
    fn errors(&self) -> Vec<FileErrors> {
        let kept: HashSet<&Path> = self
            .base
            .inputs
            .kept()
            .flat_map(|p| {
                std::iter::once(p.path.as_path())
                    .chain(p.kept_because.iter().map(|d| d.file.as_path()))
            })
            .collect();
        let mut by_file: BTreeMap<PathBuf, FileErrors> = BTreeMap::new();
        for d in self.base.diagnostics.iter().filter(|d| d.is_error()) {
            by_file
                .entry(d.file.clone())
                .or_insert_with(|| FileErrors {
                    path: d.file.clone(),
                    kept: kept.contains(d.file.as_path()),
                    diagnostics: Vec::new(),
                })
                .diagnostics
                .push(d.clone());
        }
        by_file
            .into_values()
            .chain(self.sample_errors.values().cloned())
            .collect()
    }
}

/// True if reloading for `batch` changed nothing the engine runs: no source, table or
/// sample file was added, changed or removed, and every project file of the batch is
/// either a file of a piece kept at its last good version (the one the engine runs
/// already) or a file no piece is made from (a `.fsc`, a `world.ini`, a built set's
/// side file that a source beside it shadows). A file some piece in use is made from
/// counts as changed even if its stamp did not move (two saves within one tick of the
/// file system's clock).
fn nothing_to_swap(batch: &Batch, new: &Project, report: &ReloadReport) -> bool {
    if !report.sources.is_empty()
        || !report.tables.is_empty()
        || !report.samples.added.is_empty()
        || !report.samples.removed.is_empty()
    {
        return false;
    }
    let made_of = |piece: &Piece, path: &Path| {
        piece.path == path
            || piece.stamps.iter().any(|s| *s.path == *path)
            || piece.kept_because.iter().any(|d| d.file == path)
    };
    batch
        .paths
        .iter()
        .filter(|path| !Worker::is_sample(path))
        .all(|path| {
            new.inputs
                .pieces
                .iter()
                .filter(|piece| made_of(piece, path))
                .all(Piece::is_kept)
        })
}

/// Why a changed sample cannot be put into the cache. The reload's messages name the
/// sample and its file, so these say only what is wrong with it.
#[derive(Debug, thiserror::Error)]
enum SampleError {
    /// The file is in none of the data directories.
    #[error("it is outside the data directories")]
    OutsideDataDirs,
    /// The data folders' rule refuses it (not a regular file, too large, …).
    #[error("cannot read: it {0}")]
    Refused(String),
    /// Reading it failed.
    #[error("cannot read: {0}")]
    Read(#[from] std::io::Error),
    /// It does not decode.
    #[error("does not decode: {0}")]
    Undecodable(#[from] decode::DecodeError),
    /// The cache could not index its directory, or load it.
    #[error(transparent)]
    Cache(CacheError),
}

/// Checks that a sample file decodes (large files: that their header reads).
fn check(path: &Path, name: &str) -> Result<(), SampleError> {
    if !DECODED.contains(&extension(path).as_str()) {
        return Ok(());
    }
    // The cache's own rule for sample files (regular, at most its size limit), so a pipe
    // or device dropped into a data folder never blocks the reload thread.
    let rules =
        ReadRules::for_file(path).with_max_bytes(crate::toolchain::fsrules::MAX_RESOURCE_BYTES);
    let checked = rules
        .check(path)
        .map_err(|r| SampleError::Refused(r.reason()))?;
    if checked.len > FULL_CHECK_BYTES {
        use std::io::Read;
        let mut head = vec![0u8; 64 * 1024];
        let n = rules
            .open(path)
            .map_err(crate::toolchain::fsrules::Refusal::into_io)
            .and_then(|mut f| f.read(&mut head))?;
        head.truncate(n);
        decode::probe(name, &head)?;
        return Ok(());
    }
    let bytes = rules
        .read(path)
        .map_err(|r| SampleError::Refused(r.reason()))?;
    match decode::decode(name, &bytes, &DecodeLimits::default()) {
        // Too large to hold in memory is no damage: such a sound is streamed.
        Ok(_) | Err(decode::DecodeError::TooLarge { .. }) => Ok(()),
        Err(e) => Err(e.into()),
    }
}
