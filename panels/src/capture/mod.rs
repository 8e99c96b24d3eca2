//! The capture view: a capture file shown in every panel with no engine running.
//!
//! The app opens a capture into a [`CaptureView`] (its [`Timeline`], the time shown,
//! the project files changed since, the diff against the project now) and feeds every
//! panel the snapshot and the records of the time shown. [`timeline_bar`] is the strip
//! under the menu that scrubs it: the time, play and pause, a step to the previous or
//! next decision, the steals, refusals and faults as marks; the [`CapturePanel`] tab
//! shows what the capture was made with and the decisions that differ when its inputs
//! run against the project now, each a click away from its moment or its Why.

mod panel;
mod timeline;

pub use panel::CapturePanel;
pub use timeline::timeline_bar;

use engine_core::host::timeline::Timeline;
use engine_core::runtime::SampleTime;
use engine_core::tools::diff::Difference;
use std::path::PathBuf;

/// An open capture, as the panels see it.
#[derive(Debug)]
pub struct CaptureView {
    /// The capture file.
    pub path: PathBuf,
    /// Its records and keyframes, ready to show at any time.
    pub timeline: Timeline,
    /// The time shown.
    pub at: SampleTime,
    /// Playing: the time shown moves on in real time.
    pub playing: bool,
    /// The project files changed, gone or new since the capture (`changed: ui.src`).
    pub changed_files: Vec<String>,
    /// The diff against the project now.
    pub diff: DiffState,
}

impl CaptureView {
    /// `timeline` from `path`, shown at its start.
    pub fn new(path: PathBuf, timeline: Timeline, changed_files: Vec<String>) -> Self {
        let at = timeline.start();
        Self {
            path,
            timeline,
            at,
            playing: false,
            changed_files,
            diff: DiffState::NotRun,
        }
    }

    /// `time` in seconds of the capture.
    pub fn seconds(&self, time: SampleTime) -> f64 {
        time.samples() as f64 / f64::from(self.timeline.sample_rate().max(1))
    }

    /// The time `seconds` into the capture.
    pub fn time(&self, seconds: f64) -> SampleTime {
        let rate = f64::from(self.timeline.sample_rate().max(1));
        SampleTime::from_samples((seconds.max(0.0) * rate).round() as u64)
    }

    /// The file's name.
    pub fn name(&self) -> String {
        crate::file_name(&self.path)
    }
}

/// Where the diff against the project now stands.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum DiffState {
    /// Not asked for.
    #[default]
    NotRun,
    /// The inputs are running against the project, in the background.
    Running,
    /// The decisions that differ (none: the project decides the same).
    Done(Vec<Difference>),
    /// The replay could not run.
    Failed(String),
}
