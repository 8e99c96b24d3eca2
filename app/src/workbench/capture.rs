//! Captures in the workbench (`docs/capture.md`): File → Start capture records the live
//! session into a capture file (the engine thread writes it; the status bar says where
//! while it runs); File → Open capture shows one in every panel — the workbench enters
//! the capture view: the panels read the snapshot and the records of the time the
//! timeline shows ([`Timeline`]), the live engine's commands are off (the console says
//! so), and "Diff against the project now" runs the capture's inputs against the
//! project as it is on disk on a background thread (`hitbench-diff`, the same replay as
//! `hitbench replay --diff`). Close capture returns to the live engine.
//!
//! Like the other file actions, each is a function taking a path, so tests open no
//! dialog: [`open_capture`](Workbench::open_capture),
//! [`start_capture`](Workbench::start_capture), [`stop_capture`](Workbench::stop_capture).

use super::Workbench;
use engine_core::host::capture;
use engine_core::host::live::{CaptureStatus, LiveCommand, LiveSnapshot};
use engine_core::host::replay::{self, ReplaySettings};
use engine_core::host::timeline::Timeline;
use engine_core::runtime::{SampleTime, TraceRecord};
use engine_core::toolchain::project::Project;
use panels::{CaptureView, DiffState};
use std::collections::VecDeque;
use std::path::Path;
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::Instant;

/// The open capture and what the panels read of it.
pub(super) struct OpenCapture {
    /// What the panels see of it.
    pub(super) view: CaptureView,
    /// Its records up to the time shown.
    pub(super) trace: VecDeque<TraceRecord>,
    /// Its snapshot at the time shown.
    pub(super) snapshot: LiveSnapshot,
    /// Playing: the real instant and the capture time it started from.
    played_from: Option<(Instant, SampleTime)>,
    /// The diff running in the background.
    diff: Option<Receiver<DiffState>>,
}

impl OpenCapture {
    /// True while it plays or its diff runs.
    pub(super) fn busy(&self) -> bool {
        self.played_from.is_some() || self.diff.is_some()
    }
}

impl Workbench {
    /// The open capture, if any.
    pub fn capture(&self) -> Option<&CaptureView> {
        self.capture.as_ref().map(|c| &c.view)
    }

    /// What the panels show: the open capture's snapshot at its time, else the live
    /// engine's latest.
    pub fn shown(&self) -> &LiveSnapshot {
        self.capture
            .as_ref()
            .map_or(&self.live_state, |c| &c.snapshot)
    }

    /// The trace the panels show: the open capture's records up to its time, else the
    /// live trace.
    pub fn shown_trace(&self) -> &VecDeque<TraceRecord> {
        self.capture.as_ref().map_or(&self.trace, |c| &c.trace)
    }

    /// Opens the capture at `path` in the capture view, at its start. A file that is not
    /// a capture is said in the status bar (naming the file and the line) and the
    /// workbench stays as it was.
    pub fn open_capture(&mut self, path: &Path) {
        self.open_read_capture(path, capture::read(path));
    }

    /// Opens the capture read from `path` as [`open_capture`](Self::open_capture) does
    /// (`hitbench open` has read it already to find its project).
    pub fn open_read_capture(
        &mut self,
        path: &Path,
        read: Result<capture::Capture, capture::CaptureError>,
    ) {
        match read {
            Ok(read) => self.show_capture(path, read),
            Err(e) => self.status = format!("cannot open the capture: {e}"),
        }
    }

    /// Shows `read` (from `path`: a file, or the QA script whose run it is) in the
    /// capture view, at its start.
    pub(super) fn show_capture(&mut self, path: &Path, read: capture::Capture) {
        // Compared with the project open (the user's), never a folder the capture names.
        let changed =
            capture::changed_files(&read.header.files, &capture::hash_files(&self.project.dirs));
        let rate = read.header.sample_rate;
        let view = CaptureView::new(path.to_path_buf(), Timeline::new(read), changed);
        let start = view.at;
        self.capture = Some(OpenCapture {
            snapshot: view.timeline.snapshot_at(start),
            trace: view.timeline.records_until(start).iter().cloned().collect(),
            view,
            played_from: None,
            diff: None,
        });
        self.forget_shown_choices();
        self.set_sample_rate(rate);
        let Some(open) = &self.capture else {
            return;
        };
        let view = &open.view;
        self.status = format!(
            "showing the capture {}: {:.1} s, {} record(s){}; the live engine's commands are \
             off until File > Close capture",
            path.display(),
            view.seconds(view.timeline.end()) - view.seconds(view.timeline.start()),
            view.timeline.capture.records.len(),
            match view.changed_files.len() {
                0 => String::new(),
                n => format!(", {n} project file(s) changed since"),
            }
        );
    }

    /// Leaves the capture view: the panels show the live engine again, and nothing chosen
    /// in the capture stays — no record selected or paused at in Traces, nothing the Why
    /// panel explains, no voice or object selected.
    pub fn close_capture(&mut self) {
        if let Some(open) = self.capture.take() {
            self.forget_shown_choices();
            let rate = self.live.as_ref().map_or(48_000, |l| l.output.sample_rate);
            self.set_sample_rate(rate);
            self.status = format!("closed the capture {}", open.view.path.display());
        }
    }

    /// Shows the open capture at `at` (kept within its start and end); playing, it plays
    /// on from there.
    pub fn seek(&mut self, at: SampleTime) {
        let at = self.show_at(at);
        if let Some(open) = &mut self.capture
            && open.played_from.is_some()
        {
            open.played_from = Some((Instant::now(), at));
        }
    }

    /// Shows the open capture at `at` (kept within its start and end), and says where.
    pub(super) fn show_at(&mut self, at: SampleTime) -> SampleTime {
        let Some(open) = &mut self.capture else {
            return at;
        };
        let timeline = &open.view.timeline;
        let at = at.max(timeline.start()).min(timeline.end());
        let records = timeline.records_until(at);
        if records.len() < open.trace.len() {
            // Back in time: the records after it leave, the panels index again.
            open.trace.truncate(records.len());
            self.trace_epoch += 1;
        } else {
            let new = records.get(open.trace.len()..).unwrap_or_default();
            open.trace.extend(new.iter().cloned());
        }
        open.snapshot = timeline.snapshot_at(at);
        open.view.at = at;
        at
    }

    /// Plays the open capture on in real time from the time shown, or pauses it.
    pub fn play_capture(&mut self, play: bool) {
        if let Some(open) = &mut self.capture {
            open.view.playing = play;
            open.played_from = play.then(|| (Instant::now(), open.view.at));
        }
    }

    /// Runs the open capture's inputs against the project on disk now, on a background
    /// thread; the differences show in the Capture tab.
    pub fn diff_capture(&mut self) {
        let dirs = self.project.dirs.clone();
        let Some(open) = &mut self.capture else {
            return;
        };
        let (send, receive) = channel();
        let capture = open.view.timeline.capture.clone();
        let path = open.view.path.clone();
        let spawned = std::thread::Builder::new()
            .name("hitbench-diff".into())
            .spawn(move || {
                let project = Project::load_dirs(&dirs);
                let state =
                    match replay::replay(&capture, &path, project, ReplaySettings::default()) {
                        Ok(replayed) => {
                            DiffState::Done(replay::differences(&capture, &replayed.records))
                        }
                        Err(e) => {
                            DiffState::Failed(format!("cannot replay {}: {e}", path.display()))
                        }
                    };
                // The window may be gone: nobody to tell then.
                let _ = send.send(state);
            });
        match spawned {
            Ok(_) => {
                open.view.diff = DiffState::Running;
                open.diff = Some(receive);
            }
            Err(e) => open.view.diff = DiffState::Failed(format!("cannot start the diff: {e}")),
        }
        super::dock::show_pane(&mut self.tree, super::dock::Pane::Capture);
    }

    /// True while a diff runs.
    pub fn diffing(&self) -> bool {
        self.capture.as_ref().is_some_and(|c| c.diff.is_some())
    }

    /// Moves a playing capture on and takes a finished diff. Called every frame (tests
    /// call it while waiting).
    pub fn poll_capture(&mut self) {
        let Some(open) = &mut self.capture else {
            return;
        };
        if let Some(receive) = &open.diff {
            match receive.try_recv() {
                Ok(state) => {
                    open.view.diff = state;
                    open.diff = None;
                }
                Err(TryRecvError::Empty) => {}
                Err(TryRecvError::Disconnected) => {
                    open.view.diff = DiffState::Failed("the diff thread stopped".into());
                    open.diff = None;
                }
            }
        }
        if let Some((since, from)) = open.played_from {
            let at = from + open.view.time(since.elapsed().as_secs_f64()).samples();
            if at >= open.view.timeline.end() {
                open.view.playing = false;
                open.played_from = None;
            }
            self.show_at(at);
        }
    }

    /// Starts capturing the live session into `path`; the status bar follows it.
    pub fn start_capture(&mut self, path: &Path) {
        let Some(live) = &self.live else {
            self.status = "cannot capture: the engine is not running".into();
            return;
        };
        self.status = match live.start_capture(path) {
            Ok(()) => format!("capturing to {}", path.display()),
            Err(e) => format!("cannot capture: {e}"),
        };
    }

    /// Ends the live capture; the status bar says where it was written.
    pub fn stop_capture(&mut self) {
        if let Some(live) = &self.live {
            live.send(LiveCommand::StopCapture);
        }
    }

    /// True while the live engine captures.
    pub fn capturing(&self) -> bool {
        matches!(self.live_state.capture, CaptureStatus::Recording { .. })
    }

    /// Says in the status bar how a live capture ended, once.
    pub(super) fn capture_news(&mut self, before: &CaptureStatus) {
        let now = &self.live_state.capture;
        if now == before {
            return;
        }
        match now {
            CaptureStatus::Saved { path, seconds } => {
                self.status = format!("captured {} ({seconds:.1} s)", path.display());
            }
            CaptureStatus::Failed { error } => self.status = error.clone(),
            CaptureStatus::Off | CaptureStatus::Recording { .. } => {}
        }
    }

    /// What the status bar says of a live capture running, if one is.
    pub(super) fn capture_label(&self) -> Option<String> {
        match &self.live_state.capture {
            CaptureStatus::Recording { path, since } => {
                let rate = f64::from(self.live.as_ref().map_or(48_000, |l| l.output.sample_rate));
                Some(format!(
                    "capturing to {} · {:.1} s",
                    path.display(),
                    (self.live_state.now - *since) as f64 / rate
                ))
            }
            _ => None,
        }
    }

    /// The reply to an engine command while a capture is open.
    pub(super) fn capture_refusal(&self) -> Option<String> {
        self.capture.as_ref().map(|open| {
            format!(
                "a capture is open ({}): the live engine's commands are off; File > Close \
                 capture returns to it",
                open.view.name()
            )
        })
    }

    /// The panels show another trace and state (a capture opened or closed): what was
    /// chosen in the one before — a record selected or paused at, what Why explains, a
    /// voice or object selected — goes.
    fn forget_shown_choices(&mut self) {
        self.trace_epoch += 1;
        self.panels.traces.trace_replaced();
        self.panels.why.target = None;
        self.selection = None;
    }

    /// Every panel that shows times in seconds, at `rate` (the live engine's, or the open
    /// capture's): all of them read the same samples the same way.
    pub(super) fn set_sample_rate(&mut self, rate: u32) {
        let panels = &mut self.panels;
        panels.traces.sample_rate = rate;
        panels.lot.sample_rate = rate;
        panels.mixer.sample_rate = rate;
        panels.why.sample_rate = rate;
        panels.voices.sample_rate = rate;
        panels.threads.sample_rate = rate;
        panels.cache.sample_rate = rate;
        panels.qa.sample_rate = rate;
    }
}
