//! The loader thread: one named thread that serves a queue of background loads and
//! preloads, so the engine thread never waits on the disk unless it asks to (`get`).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::thread::{self, JoinHandle};

use super::error::CacheError;
use super::{Core, Origin};

/// Name of the loader thread (shows in debuggers and profilers).
pub(crate) const THREAD_NAME: &str = "hitbench-loader";

/// Work for the loader thread.
pub(crate) enum Job {
    /// Load one resource (queued by `try_get` or `request`).
    Load(Arc<str>),
    /// Load every resource matching a pattern.
    Preload(PreloadRequest),
    /// Stop; sent when the cache is dropped.
    Shutdown,
}

/// A preload waiting on the queue.
pub(crate) struct PreloadRequest {
    pub(crate) pattern: String,
    pub(crate) progress: Box<dyn FnMut(PreloadProgress) + Send>,
    pub(crate) cancel: Arc<AtomicBool>,
    pub(crate) done: Sender<PreloadSummary>,
}

/// One step of a preload, reported after each name (and once more on cancel).
#[derive(Debug, Clone, PartialEq)]
pub struct PreloadProgress {
    /// Names dealt with so far (loaded, already cached, or failed).
    pub done: usize,
    /// Names the pattern matched.
    pub total: usize,
    /// The name just dealt with; on cancel, the first name left undone.
    pub current: String,
    /// Failures so far.
    pub errors: usize,
    /// Why `current` failed, if it did.
    pub error: Option<CacheError>,
    /// The preload stopped here because it was cancelled (or the cache is shutting down).
    pub cancelled: bool,
}

/// How a preload ended.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PreloadSummary {
    /// Names the pattern matched.
    pub total: usize,
    /// Names that are now loaded (including those that already were).
    pub loaded: usize,
    /// Names that failed to load.
    pub failed: usize,
    /// It stopped before the end.
    pub cancelled: bool,
    /// Each failure, in order.
    pub errors: Vec<(String, CacheError)>,
}

/// A preload queued on the loader thread.
#[derive(Debug)]
pub struct PreloadJob {
    pattern: String,
    done: Receiver<PreloadSummary>,
    cancel: Arc<AtomicBool>,
    finished: Option<PreloadSummary>,
}

impl PreloadJob {
    pub(crate) fn new(
        pattern: String,
        done: Receiver<PreloadSummary>,
        cancel: Arc<AtomicBool>,
    ) -> Self {
        Self {
            pattern,
            done,
            cancel,
            finished: None,
        }
    }

    /// Asks the preload to stop before its next name (same as setting its cancel flag).
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Release);
    }

    /// The summary if the preload has finished, without waiting.
    pub fn try_wait(&mut self) -> Option<Result<PreloadSummary, CacheError>> {
        if let Some(summary) = &self.finished {
            return Some(Ok(summary.clone()));
        }
        match self.done.try_recv() {
            Ok(summary) => {
                self.finished = Some(summary.clone());
                Some(Ok(summary))
            }
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(Err(self.stopped())),
        }
    }

    /// Waits for the preload to finish and returns its summary; an error when the
    /// loader thread stopped before finishing it.
    pub fn wait(mut self) -> Result<PreloadSummary, CacheError> {
        if let Some(summary) = self.finished.take() {
            return Ok(summary);
        }
        self.done.recv().map_err(|_| self.stopped())
    }

    fn stopped(&self) -> CacheError {
        CacheError::LoaderStopped {
            name: self.pattern.clone(),
        }
    }
}

/// Starts the loader thread.
pub(crate) fn spawn(core: Arc<Core>, jobs: Receiver<Job>) -> std::io::Result<JoinHandle<()>> {
    thread::Builder::new()
        .name(THREAD_NAME.to_owned())
        .spawn(move || run(&core, &jobs))
}

fn run(core: &Core, jobs: &Receiver<Job>) {
    while let Ok(job) = jobs.recv() {
        match job {
            Job::Shutdown => break,
            Job::Load(name) => {
                if core.shutting_down() {
                    core.unqueue(&name);
                } else {
                    // Loader panics are already turned into errors; this keeps the
                    // thread alive should anything else go wrong in one job.
                    let _ = catch_unwind(AssertUnwindSafe(|| core.background_load(&name)));
                }
            }
            Job::Preload(request) => preload(core, request),
        }
    }
}

/// Loads every name matching the request's pattern, in source order, reporting after
/// each; stops early on cancel or shutdown.
fn preload(core: &Core, request: PreloadRequest) {
    let PreloadRequest {
        pattern,
        mut progress,
        cancel,
        done,
    } = request;
    let names = core.names(&pattern);
    let total = names.len();
    let mut summary = PreloadSummary {
        total,
        ..PreloadSummary::default()
    };
    // A progress callback that panics is not called again and ends the preload.
    let mut report =
        |step: PreloadProgress| catch_unwind(AssertUnwindSafe(|| progress(step))).is_ok();
    for (index, name) in names.iter().enumerate() {
        if cancel.load(Ordering::Acquire) || core.shutting_down() {
            summary.cancelled = true;
            report(PreloadProgress {
                done: index,
                total,
                current: name.clone(),
                errors: summary.failed,
                error: None,
                cancelled: true,
            });
            break;
        }
        let error = match core.obtain(name, Origin::Preload) {
            Ok(_) => {
                summary.loaded += 1;
                None
            }
            Err(error) => {
                summary.failed += 1;
                summary.errors.push((name.clone(), error.clone()));
                Some(error)
            }
        };
        let reported = report(PreloadProgress {
            done: index + 1,
            total,
            current: name.clone(),
            errors: summary.failed,
            error,
            cancelled: false,
        });
        if !reported {
            summary.cancelled = index + 1 < total;
            break;
        }
    }
    // The job may have been dropped by its owner: nobody to tell, nothing to do.
    let _ = done.send(summary);
}

/// Makes the one-shot channel a preload reports its summary on.
pub(crate) fn summary_channel() -> (Sender<PreloadSummary>, Receiver<PreloadSummary>) {
    mpsc::channel()
}
