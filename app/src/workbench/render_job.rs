//! Rendering a script to a WAV file in the background (File → Export render…).
//!
//! **Renders run on a background thread** (`hitbench-render`) with a copy of the open
//! project. The render reports its progress through [`offline::Taps::progress`] into a
//! [`RenderShare`] the window reads: the status bar shows a progress bar with the share
//! done and the time left, and a **Cancel** button, which the render sees at its next
//! engine tick (it stops, and the unfinished file is deleted). When it ends the status
//! bar says what it wrote, or the script's problems with their `file:line`.

use super::Workbench;
use engine_core::host::command::{parse_script, savelot_refusals};
use engine_core::host::offline::{self, Flow, RenderOptions, RenderProgress, Taps};
use engine_core::runtime::{TraceKind, TraceRecord};
use engine_core::toolchain::project::Project;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::{Duration, Instant};

/// What the render thread and the window share: how far it has got, and whether the
/// user asked it to stop.
#[derive(Debug, Default)]
pub struct RenderShare {
    frames: AtomicU64,
    total_frames: AtomicU64,
    cancel: AtomicBool,
}

impl RenderShare {
    /// The share done, 0–1 (0 until the render has started).
    pub fn fraction(&self) -> f64 {
        let total = self.total_frames.load(Ordering::Relaxed);
        if total == 0 {
            return 0.0;
        }
        RenderProgress {
            frames: self.frames.load(Ordering::Relaxed),
            total_frames: total,
        }
        .fraction()
    }

    /// The render's progress callback: notes how far it has got; cancels when asked.
    fn report(&self, at: RenderProgress) -> Flow {
        self.total_frames.store(at.total_frames, Ordering::Relaxed);
        self.frames.store(at.frames, Ordering::Relaxed);
        if self.cancel.load(Ordering::Relaxed) {
            Flow::Cancel
        } else {
            Flow::Continue
        }
    }
}

/// A render running on its thread.
#[derive(Debug)]
pub struct RenderJob {
    /// What the status bar says while it runs.
    label: String,
    started: Instant,
    share: Arc<RenderShare>,
    /// The sentence for the status bar when it ends.
    done: Receiver<String>,
}

/// A render under way, as the status bar shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderStatus {
    /// What is rendered to where.
    pub label: String,
    /// The share done, 0–1.
    pub fraction: f64,
    /// Time since it started.
    pub elapsed: Duration,
    /// Cancel was pressed; it stops at its next tick.
    pub cancelling: bool,
}

impl Workbench {
    /// Renders the timed script `script` (the `hitbench render` format) against the open
    /// project into the WAV file `out`, on a background thread; the status bar follows it
    /// with a progress bar and a Cancel button. One render at a time.
    pub fn export_render(&mut self, script: &Path, out: &Path) {
        if self.files.render.is_some() {
            self.status = "a render is already running; wait for it to finish".into();
            return;
        }
        // The output rule (`fsrules::output`), said before the render rather than after.
        if let Err(e) = engine_core::toolchain::fsrules::check_output(out, &[script]) {
            self.status = format!("nothing rendered: {e}");
            return;
        }
        let label = format!("rendering {} to {}", script.display(), out.display());
        let (send, done) = channel();
        let project = self.project.clone();
        let share = Arc::new(RenderShare::default());
        let shared = Arc::clone(&share);
        let (script, out) = (script.to_path_buf(), out.to_path_buf());
        let spawned = std::thread::Builder::new()
            .name("hitbench-render".into())
            .spawn(move || {
                // The receiver may be gone (the window closed): nobody to tell then.
                let _ = send.send(render(project, &script, &out, &shared));
            });
        match spawned {
            Ok(_) => {
                self.status = format!("{label}…");
                self.files.render = Some(RenderJob {
                    label,
                    started: Instant::now(),
                    share,
                    done,
                });
            }
            Err(e) => self.status = format!("cannot start the render thread: {e}"),
        }
    }

    /// The render under way, if any: what it renders, how far it has got, for how long.
    pub fn render_status(&self) -> Option<RenderStatus> {
        self.files.render.as_ref().map(|job| RenderStatus {
            label: job.label.clone(),
            fraction: job.share.fraction(),
            elapsed: job.started.elapsed(),
            cancelling: job.share.cancel.load(Ordering::Relaxed),
        })
    }

    /// Asks the render under way to stop (it does at its next engine tick; its file is
    /// deleted). Nothing when none runs.
    pub fn cancel_render(&mut self) {
        if let Some(job) = &self.files.render {
            job.share.cancel.store(true, Ordering::Relaxed);
            self.status = format!("{}: cancelling…", job.label);
        }
    }

    /// Takes the end of a render (called every frame, and by tests while waiting).
    pub(super) fn poll_render(&mut self) {
        let Some(job) = &self.files.render else {
            return;
        };
        match job.done.try_recv() {
            Ok(message) => {
                self.status = message;
                self.files.render = None;
            }
            Err(TryRecvError::Empty) => {}
            Err(TryRecvError::Disconnected) => {
                self.status = format!("{}: the render thread stopped", job.label);
                self.files.render = None;
            }
        }
    }

    /// The status bar's progress bar and Cancel button while a render runs; true when
    /// one is shown.
    pub(super) fn render_progress_ui(&mut self, ui: &mut egui::Ui) -> bool {
        let Some(status) = self.render_status() else {
            return false;
        };
        let cancel = panels::progress::bar_with_cancel(
            ui,
            status.fraction,
            status.elapsed,
            &format!(
                "{} (the unfinished file is deleted if stopped)",
                status.label
            ),
            "Cancel render",
            status.cancelling,
        );
        if cancel {
            self.cancel_render();
        }
        ui.separator();
        true
    }
}

/// Reads, checks and renders a script, reporting progress into `share`; the sentence for
/// the status bar.
fn render(project: Project, script: &Path, out: &Path, share: &RenderShare) -> String {
    let text = match engine_core::host::command::read_script(script) {
        Ok(text) => text,
        Err(e) => return format!("cannot read the script {e}"),
    };
    let (commands, mut problems) = parse_script(&text, script);
    // A script chosen to render was not asked to save the lot.
    problems.extend(savelot_refusals(&commands, script));
    let errors: Vec<String> = problems
        .iter()
        .filter(|d| d.is_error())
        .map(ToString::to_string)
        .collect();
    if let Some(first) = errors.first() {
        let more = match errors.len() {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        return format!("nothing rendered: {first}{more}");
    }
    let options = RenderOptions::default();
    // Only the errors are kept (a long render's trace would fill memory): their count
    // and the first, for the status bar.
    let mut errors = (0usize, None);
    let mut on_record = |record: TraceRecord| {
        if record.kind == TraceKind::Error {
            errors.0 += 1;
            errors.1.get_or_insert(record.message());
        }
    };
    let mut on_progress = |at: RenderProgress| share.report(at);
    let taps = Taps {
        progress: Some(&mut on_progress),
        ..Taps::records(&mut on_record)
    };
    match offline::render_tapped(project, &commands, out, options, taps) {
        Ok(report) => {
            let faults = match errors {
                (0, _) => String::new(),
                (n, first) => format!(
                    "; {n} runtime error(s), the first: {}",
                    first.unwrap_or_default()
                ),
            };
            format!(
                "rendered {} to {}: {:.2} s, {} note(s) played, {} dropped{faults}",
                script.display(),
                out.display(),
                report.seconds,
                report.started,
                report.dropped
            )
        }
        Err(e) => format!("cannot render {}: {e}", script.display()),
    }
}
