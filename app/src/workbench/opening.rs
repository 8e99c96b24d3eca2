//! Opening a project in the background (File → Open project…, a folder dropped on the
//! window, File → Recent): the project loads on a thread (`hitbench-load`) while the
//! open one goes on showing and playing; the status bar shows a progress bar (files read
//! of files found, with the time left) and a **Cancel** button. When the load is done the
//! engine restarts on the new project; a cancelled load leaves the open project as it
//! was. The first project (at start-up) loads before the window shows.

use super::Workbench;
use engine_core::toolchain::project::{LoadWatch, Project};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::{Duration, Instant};

/// A project loading on its thread.
#[derive(Debug)]
pub struct OpenJob {
    /// The folder (canonical).
    dir: PathBuf,
    started: Instant,
    watch: Arc<LoadWatch>,
    /// The project, or `None` when the load was cancelled.
    done: Receiver<Option<Project>>,
}

/// A project load under way, as the status bar shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenStatus {
    /// The project folder.
    pub dir: PathBuf,
    /// Files read so far.
    pub read: u64,
    /// Files found so far (the count grows while the folders are walked).
    pub found: u64,
    /// Time since the load started.
    pub elapsed: Duration,
    /// Cancel was pressed.
    pub cancelling: bool,
}

impl OpenStatus {
    /// The share of the files found that has been read, 0–1.
    pub fn fraction(&self) -> f64 {
        if self.found == 0 {
            0.0
        } else {
            (self.read as f64 / self.found as f64).min(1.0)
        }
    }
}

impl Workbench {
    /// Loads the project in `dir` (with its plug-in directories) on a background thread;
    /// once loaded, it is shown and the engine restarts on it. A load already under way
    /// is cancelled first.
    pub fn open_in_background(&mut self, dir: &Path) {
        self.cancel_open();
        let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        let dirs = self.settings.project_dirs(&dir);
        let watch = Arc::new(LoadWatch::default());
        let shared = Arc::clone(&watch);
        let (send, done) = channel();
        let spawned = std::thread::Builder::new()
            .name("hitbench-load".into())
            .spawn(move || {
                // The receiver may be gone (the window closed): nobody to tell then.
                let _ = send.send(Project::load_dirs_watched(&dirs, &shared));
            });
        match spawned {
            Ok(_) => {
                self.status = format!("opening {}…", dir.display());
                self.files.open = Some(OpenJob {
                    dir,
                    started: Instant::now(),
                    watch,
                    done,
                });
            }
            // No thread to load on: load here.
            Err(_) => self.open_project(&dir),
        }
    }

    /// True while a project loads in the background.
    pub fn opening(&self) -> bool {
        self.files.open.is_some()
    }

    /// The project load under way, if any.
    pub fn open_status(&self) -> Option<OpenStatus> {
        self.files.open.as_ref().map(|job| OpenStatus {
            dir: job.dir.clone(),
            read: job.watch.read(),
            found: job.watch.found(),
            elapsed: job.started.elapsed(),
            cancelling: job.watch.cancelled(),
        })
    }

    /// Stops the project load under way (the open project stays); nothing when none runs.
    pub fn cancel_open(&mut self) {
        if let Some(job) = self.files.open.take() {
            job.watch.cancel();
            self.status = format!(
                "opening {} cancelled; {} stays open",
                job.dir.display(),
                self.project.root().display()
            );
        }
    }

    /// Takes a project that finished loading (called every frame, and by tests while
    /// waiting).
    pub(super) fn poll_open(&mut self) {
        let Some(job) = &self.files.open else {
            return;
        };
        match job.done.try_recv() {
            Ok(Some(project)) => {
                let dir = job.dir.clone();
                self.files.open = None;
                self.start_project(&dir, project);
            }
            Ok(None) | Err(TryRecvError::Disconnected) => {
                let dir = job.dir.clone();
                self.files.open = None;
                self.status = format!("{} did not load", dir.display());
            }
            Err(TryRecvError::Empty) => {}
        }
    }

    /// The status bar's progress bar and Cancel button while a project loads.
    pub(super) fn open_progress_ui(&mut self, ui: &mut egui::Ui) {
        let Some(status) = self.open_status() else {
            return;
        };
        let hover = format!(
            "opening {}: {} of {} file(s) read",
            status.dir.display(),
            status.read,
            status.found
        );
        if panels::progress::bar_with_cancel(
            ui,
            status.fraction(),
            status.elapsed,
            &hover,
            "Cancel opening",
            status.cancelling,
        ) {
            self.cancel_open();
        }
        ui.separator();
    }
}
