//! Capturing a live session (`docs/capture.md`): while a capture runs, the engine thread
//! writes every command it runs (with its time), every trace record and a keyframe
//! every [`KEYFRAME_SECONDS`](crate::host::keyframe::KEYFRAME_SECONDS), with every
//! trace on; stopping writes the end and puts the traces back as they were.

use crate::host::capture::CaptureWriter;
use crate::host::keyframe::Keyframer;
use crate::host::session::Session;
use crate::runtime::{SampleTime, TraceRecord, TraceSwitches};
use std::path::PathBuf;

/// Where a live capture stands, for the UI.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum CaptureStatus {
    /// No capture was started.
    #[default]
    Off,
    /// Capturing into `path` since `since`.
    Recording {
        /// The capture file.
        path: PathBuf,
        /// When it began (session time).
        since: SampleTime,
    },
    /// The capture was written whole.
    Saved {
        /// The capture file.
        path: PathBuf,
        /// How many seconds it holds.
        seconds: f64,
    },
    /// Writing failed; the capture stopped (what was written reads as a capture cut
    /// off).
    Failed {
        /// What went wrong, naming the file.
        error: String,
    },
}

/// A capture being written on the engine thread.
pub(super) struct Capturing {
    writer: CaptureWriter,
    keyframer: Keyframer,
    path: PathBuf,
    since: SampleTime,
    /// The traces as they were before the capture switched them all on.
    switches: TraceSwitches,
}

impl Capturing {
    /// Starts capturing `session` into `writer` (its header already written): every
    /// trace on, a first keyframe now.
    pub(super) fn start(
        writer: CaptureWriter,
        path: PathBuf,
        session: &mut Session,
    ) -> Result<(Self, CaptureStatus), CaptureStatus> {
        let switches = session.engine.trace_switches();
        session.engine.set_trace_switches(TraceSwitches::ALL);
        let since = session.now();
        let mut capturing = Self {
            writer,
            keyframer: Keyframer::new(session.engine.config().sample_rate),
            path: path.clone(),
            since,
            switches,
        };
        match capturing.keyframe(session) {
            Ok(()) => Ok((capturing, CaptureStatus::Recording { path, since })),
            Err(status) => {
                session.engine.set_trace_switches(switches);
                Err(status)
            }
        }
    }

    /// Writes a command run now, as its console line; a keyframe follows after the tick.
    pub(super) fn input(&mut self, session: &Session, line: String) -> Result<(), CaptureStatus> {
        self.keyframer.soon();
        let rate = f64::from(session.engine.config().sample_rate.max(1));
        let seconds = session.now().samples() as f64 / rate;
        self.writer
            .input(seconds, line)
            .map_err(|e| failed(&e.to_string()))
    }

    /// Writes the records taken from the session.
    pub(super) fn records(&mut self, records: &[TraceRecord]) -> Result<(), CaptureStatus> {
        self.writer
            .records(records.to_vec())
            .map_err(|e| failed(&e.to_string()))
    }

    /// Writes a keyframe when one is due (after a tick).
    pub(super) fn after_tick(&mut self, session: &Session) -> Result<(), CaptureStatus> {
        if self.keyframer.due(session.now()) {
            self.keyframe(session)?;
        }
        Ok(())
    }

    fn keyframe(&mut self, session: &Session) -> Result<(), CaptureStatus> {
        let key = self.keyframer.take(session);
        self.writer
            .keyframe(key)
            .map_err(|e| failed(&e.to_string()))
    }

    /// Ends the capture now (a last keyframe, the end), the traces back as they were.
    pub(super) fn stop(mut self, session: &mut Session) -> CaptureStatus {
        session.engine.set_trace_switches(self.switches);
        if let Err(status) = self.keyframe(session) {
            return status;
        }
        let now = session.now();
        let rate = f64::from(session.engine.config().sample_rate.max(1));
        match self.writer.finish(now) {
            Ok(_) => CaptureStatus::Saved {
                path: self.path,
                seconds: (now - self.since) as f64 / rate,
            },
            Err(e) => failed(&e.to_string()),
        }
    }

    /// Gives up after a failed write: the traces go back as they were.
    pub(super) fn abandon(self, session: &mut Session) {
        session.engine.set_trace_switches(self.switches);
    }
}

fn failed(error: &str) -> CaptureStatus {
    CaptureStatus::Failed {
        error: format!("the capture stopped: {error}"),
    }
}
