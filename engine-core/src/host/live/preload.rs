//! A cache preload followed by the engine thread: the pattern's progress as the
//! resource cache's loader thread reports it, and how it ended, for the cache panel.

use crate::sound::cache::{PreloadJob, PreloadProgress, ResourceCache};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// A preload's progress, for the cache panel.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PreloadStatus {
    /// The pattern.
    pub pattern: String,
    /// Names dealt with so far.
    pub done: usize,
    /// Names the pattern matched (0 until the loader thread starts on it).
    pub total: usize,
    /// The name dealt with last.
    pub current: String,
    /// Names that failed to load.
    pub errors: usize,
    /// It has ended (all done, cancelled or failed).
    pub finished: bool,
    /// It was cancelled before the end.
    pub cancelled: bool,
    /// Wall-clock time since it started, in milliseconds (for the time left).
    pub elapsed_ms: u64,
}

/// The preload the engine thread is following.
pub(super) struct Preloading {
    pub(super) job: PreloadJob,
    status: Arc<Mutex<PreloadStatus>>,
    started: Instant,
    /// When it ended, once it has.
    ended: Option<Instant>,
}

impl Preloading {
    pub(super) fn start(cache: &ResourceCache, pattern: String) -> Self {
        let status = Arc::new(Mutex::new(PreloadStatus {
            pattern: pattern.clone(),
            ..PreloadStatus::default()
        }));
        let shared = Arc::clone(&status);
        let progress = Box::new(move |step: PreloadProgress| {
            if let Ok(mut s) = shared.lock() {
                s.done = step.done;
                s.total = step.total;
                s.current = step.current;
                s.errors = step.errors;
                s.cancelled = step.cancelled;
            }
        });
        let job = cache.preload(&pattern, progress, Arc::new(AtomicBool::new(false)));
        Self {
            job,
            status,
            started: Instant::now(),
            ended: None,
        }
    }

    /// The progress so far; finished once the loader thread is done with it.
    pub(super) fn status(&mut self) -> PreloadStatus {
        let ended = self.job.try_wait();
        let mut status = self.status.lock().map(|s| s.clone()).unwrap_or_default();
        match ended {
            Some(Ok(summary)) => {
                status.finished = true;
                status.total = summary.total;
                status.done = summary.loaded + summary.failed;
                status.errors = summary.failed;
                status.cancelled = summary.cancelled;
            }
            Some(Err(_)) => status.finished = true,
            None => {}
        }
        if status.finished {
            self.ended.get_or_insert_with(Instant::now);
        }
        let now = self.ended.unwrap_or_else(Instant::now);
        status.elapsed_ms = now.duration_since(self.started).as_millis() as u64;
        status
    }
}
