//! Hot reload: every data directory of a project is watched, and a change is loaded and
//! swapped into the running engine (`docs/reload.md`).
//!
//! - [`watch`] — the notify watcher over the directories, and the [`watch::Debouncer`]
//!   that turns an editor's burst of events into one change per file.
//! - `worker` — the `hitbench-reload` thread: once a file has been quiet for the
//!   debounce time, it loads the project again ([`Project::reload`]: a file that no
//!   longer parses keeps its last good version) and puts changed samples into the cache
//!   (`ResourceCache::reload`; one that no longer decodes keeps its last good version).
//!   The result is a [`Reload`], handed to a callback.
//! - applying is the session's (`crate::host::session`, on the engine thread): it swaps the
//!   new project in, restarts the tracks whose code was running (or drops them, if the
//!   new version no longer defines them), lets the runtime measure reloaded samples
//!   again, and traces all of it; [`ReloadStatus`] keeps what the workbench shows.
//!
//! Threads: notify's callback only forwards events into a channel; loading and decoding
//! happen on the reload thread; the engine thread only swaps. The audio thread is never
//! involved: voices already playing keep the sample data they hold. The offline renderer
//! never watches, so its output stays deterministic.

pub mod watch;
mod worker;

pub use watch::WatchStatus;

use crate::runtime::clock::SampleTime;
use crate::runtime::trace::ReloadEvent;
/// What happened to a changed sample file (the trace's type: a reload's records carry it).
pub use crate::runtime::trace::SampleOutcome;
use crate::sound::cache::ResourceCache;
use crate::toolchain::diag::Diagnostic;
use crate::toolchain::project::{Project, ReloadReport};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use worker::{Message, Worker};

/// Extensions of files in the data folders that the project does not read but that are
/// watched for whoever shows them (the workbench's QA tab): QA scripts. A change to one
/// reloads nothing; it is counted in [`ReloadStatus::noticed`].
pub const NOTICED_EXTENSIONS: &[&str] = &["qa"];

/// How reloading behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReloadConfig {
    /// A changed file is loaded once no event came for it for this long (an editor's
    /// save is several events)…
    pub debounce: Duration,
    /// …or this long after an event that ended its change (closed after writing,
    /// renamed into place, removed): the rest of the same save.
    pub settle: Duration,
    /// A file that keeps changing is loaded at the latest this long after its first
    /// event.
    pub max_wait: Duration,
    /// More files than this changing at once (a checkout, a copy) become one "read
    /// everything again".
    pub max_paths: usize,
    /// Restart the tracks whose code was running when new code is swapped in (with
    /// default event arguments); without it they stop and their notes play out.
    pub restart_tracks: bool,
}

impl Default for ReloadConfig {
    fn default() -> Self {
        Self {
            debounce: Duration::from_millis(40),
            settle: Duration::from_millis(3),
            max_wait: Duration::from_millis(1000),
            max_paths: 4096,
            restart_tracks: true,
        }
    }
}

/// The problems of one file now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileErrors {
    /// The file.
    pub path: PathBuf,
    /// True if its last good version is in use (the version on disk has these errors).
    pub kept: bool,
    /// The errors, each with file and line where known.
    pub diagnostics: Vec<Diagnostic>,
}

/// A changed sample file and what happened to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampleChange {
    /// The file.
    pub path: PathBuf,
    /// Its name in the resource cache.
    pub name: Option<String>,
    /// What happened.
    pub outcome: SampleOutcome,
}

impl SampleChange {
    /// What the trace says of it (named by its cache name, else its path).
    pub fn event(&self) -> ReloadEvent {
        ReloadEvent::Sample {
            name: self
                .name
                .clone()
                .unwrap_or_else(|| self.path.display().to_string()),
            outcome: self.outcome.clone(),
        }
    }

    /// True if the cache now holds different data for it (or none).
    pub fn changed_data(&self) -> bool {
        matches!(
            self.outcome,
            SampleOutcome::Reloaded | SampleOutcome::Added | SampleOutcome::Removed
        )
    }
}

/// One settled batch of changes, loaded on the reload thread and ready to be applied on
/// the engine thread ([`Session::apply_reload`](crate::host::session::Session::apply_reload)).
#[derive(Debug, Clone)]
pub struct Reload {
    /// The changed files the watcher reported (empty for a "read everything again").
    pub files: Vec<PathBuf>,
    /// True if everything was read again (events were lost, a folder changed, a burst).
    pub rescan: bool,
    /// The new project, when code, tables or the set of sample files changed.
    pub project: Option<Box<Project>>,
    /// What the project reload found (empty without one).
    pub report: ReloadReport,
    /// The samples whose files changed, and what happened to each.
    pub samples: Vec<SampleChange>,
    /// Every file problem now: errors of the project by file, samples that do not
    /// decode.
    pub errors: Vec<FileErrors>,
    /// What the watcher watches, and its problems.
    pub watch: WatchStatus,
    /// Files of [`NOTICED_EXTENSIONS`] that changed, appeared or went (nothing is
    /// loaded for them).
    pub noticed: Vec<PathBuf>,
    /// When the first event of the batch was seen.
    pub first_change: Instant,
    /// When the batch was loaded (the project assembled, the samples in the cache).
    pub ready_at: Instant,
}

impl Reload {
    fn new(batch: &watch::Batch, watch: WatchStatus) -> Self {
        Self {
            files: batch.paths.clone(),
            rescan: batch.rescan,
            project: None,
            report: ReloadReport::default(),
            samples: Vec::new(),
            errors: Vec::new(),
            watch,
            noticed: Vec::new(),
            first_change: batch.first,
            ready_at: batch.first,
        }
    }

    fn status_only(watch: WatchStatus, errors: Vec<FileErrors>) -> Self {
        let now = Instant::now();
        Self {
            files: Vec::new(),
            rescan: false,
            project: None,
            report: ReloadReport::default(),
            samples: Vec::new(),
            errors,
            watch,
            noticed: Vec::new(),
            first_change: now,
            ready_at: now,
        }
    }

    /// True if it only carries the watcher's state and what it noticed (nothing to swap
    /// or reload).
    pub fn is_status_only(&self) -> bool {
        self.project.is_none() && self.samples.is_empty() && self.files.is_empty() && !self.rescan
    }
}

/// What a reload did once applied.
#[derive(Debug, Clone, PartialEq)]
pub struct ReloadSummary {
    /// The changed files (empty when everything was read again).
    pub files: Vec<PathBuf>,
    /// What happened, step by step (also in the trace).
    pub events: Vec<ReloadEvent>,
    /// When the first event of the batch was seen.
    pub first_change: Instant,
    /// When it was loaded.
    pub ready_at: Instant,
    /// When the engine thread swapped it in: from then on it is live.
    pub applied_at: Instant,
    /// The engine's time when it was swapped in.
    pub time: SampleTime,
}

impl ReloadSummary {
    /// From the first event to live.
    pub fn latency(&self) -> Duration {
        self.applied_at.saturating_duration_since(self.first_change)
    }
}

/// What the live engine shows about reloading.
#[derive(Debug, Clone, Default)]
pub struct ReloadStatus {
    /// True while the data directories are watched.
    pub watching: bool,
    /// The watched directories and the watcher's problems.
    pub watch: WatchStatus,
    /// Reloads applied so far.
    pub applied: u64,
    /// The last one.
    pub last: Option<ReloadSummary>,
    /// Files with problems now; `kept` ones run their last good version.
    pub errors: Vec<FileErrors>,
    /// The project now live, after a reload swapped one in (for the workbench's panels).
    pub project: Option<Arc<Project>>,
    /// Batches in which files of [`NOTICED_EXTENSIONS`] (QA scripts) changed, appeared
    /// or went: whoever shows them looks again when it moves.
    pub noticed: u64,
}

/// Watches a project's data directories and loads what changes, on its own thread.
/// Dropping it stops the thread and the watcher.
pub struct Reloader {
    send: Sender<Message>,
    thread: Option<JoinHandle<()>>,
    watch: WatchStatus,
    config: ReloadConfig,
}

impl std::fmt::Debug for Reloader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reloader")
            .field("watch", &self.watch)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Reloader {
    /// Starts watching `project`'s data directories. Samples are put into `cache` (the
    /// session's); each settled batch goes to `deliver`, on the reload thread. A missing
    /// directory is reported in [`watch_status`](Self::watch_status) and watched once
    /// it appears.
    pub fn start(
        project: &Project,
        cache: Arc<ResourceCache>,
        config: ReloadConfig,
        deliver: impl FnMut(Reload) + Send + 'static,
    ) -> std::io::Result<Self> {
        let (send, receive) = mpsc::channel();
        let events = send.clone();
        let mut watcher = watch::DirWatcher::new(move |event| {
            // notify's thread: forward and return at once.
            let _ = events.send(Message::Fs(event));
        });
        let watched: Vec<PathBuf> = worker::watched_dirs(&project.dirs)
            .into_iter()
            .map(|(_, watched)| watched)
            .collect();
        watcher.set_dirs(&watched);
        let watch = watcher.status();
        let worker = Worker::new(project.clone(), cache, config, watcher, Box::new(deliver));
        let thread = std::thread::Builder::new()
            .name("hitbench-reload".into())
            .spawn(move || worker.run(&receive))?;
        Ok(Self {
            send,
            thread: Some(thread),
            watch,
            config,
        })
    }

    /// Like [`start`](Self::start), handing batches out through a channel (to apply
    /// with [`Session::apply_reload`](crate::host::session::Session::apply_reload) when it suits the caller).
    pub fn with_channel(
        project: &Project,
        cache: Arc<ResourceCache>,
        config: ReloadConfig,
    ) -> std::io::Result<(Self, Receiver<Reload>)> {
        let (send, receive) = mpsc::channel();
        let reloader = Self::start(project, cache, config, move |reload| {
            let _ = send.send(reload);
        })?;
        Ok((reloader, receive))
    }

    /// The engine now runs `project` (loaded by hand, a directory added): later reloads
    /// start from it, and its directories are watched.
    pub fn set_project(&self, project: &Project) {
        let _ = self.send.send(Message::Project(Box::new(project.clone())));
    }

    /// What was watched at start, and the problems then (later states come with each
    /// [`Reload`]).
    pub fn watch_status(&self) -> &WatchStatus {
        &self.watch
    }

    /// The configuration.
    pub fn config(&self) -> &ReloadConfig {
        &self.config
    }
}

impl Drop for Reloader {
    fn drop(&mut self) {
        let _ = self.send.send(Message::Stop);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
