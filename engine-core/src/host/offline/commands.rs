//! The script's commands as an offline run reaches them: run at their time (the paused
//! debugger's lines at once), their log, `why` answered from the records so far, and the
//! records handed to the caller and the probe.

use super::{Output, OutputSoFar, Probe};
use crate::host::command::{Command, TimedCommand, WorldCommand};
use crate::host::session::Session;
use crate::runtime::{SampleTime, TraceRecord};
use crate::sound::output::LoudnessMeter;
use crate::tools::why::{Subject, WhyLog};

/// The script's commands as the render reaches them, their log, and where the trace
/// records go: to the caller, and to the [`WhyLog`] the script's `why` lines read.
pub(super) struct Commands<'a> {
    pub(super) script: &'a [TimedCommand],
    pub(super) next: usize,
    pub(super) log: Vec<String>,
    pub(super) why: WhyLog,
    pub(super) on_record: &'a mut dyn FnMut(TraceRecord),
    pub(super) probe: Option<&'a mut dyn Probe>,
    /// The pause the debugger holds has been said in the log.
    pub(super) pause_logged: bool,
    /// The engine ticked since the last line ran.
    pub(super) ticked: bool,
    /// `savelot` lines that could not save.
    pub(super) failed_saves: Vec<String>,
}

/// True for a debugger line that only means something while the engine is paused.
fn needs_pause(command: &Command) -> bool {
    use crate::host::command::DebugCommand as D;
    matches!(
        command,
        Command::Debug(D::GoOn(_) | D::Regs | D::Set { .. })
    )
}

impl<'a> Commands<'a> {
    pub(super) fn new(
        script: &'a [TimedCommand],
        on_record: &'a mut dyn FnMut(TraceRecord),
    ) -> Self {
        let asked = script.iter().filter_map(|timed| match &timed.command {
            Command::Why(subject) => Some(subject.clone()),
            _ => None,
        });
        Self {
            script,
            next: 0,
            log: Vec::new(),
            why: WhyLog::new(asked),
            on_record,
            probe: None,
            pause_logged: false,
            ticked: true,
            failed_saves: Vec::new(),
        }
    }

    /// Lets the probe look wherever it asked to by `until` (the records so far handed
    /// to it first).
    pub(super) fn looks_due(
        &mut self,
        session: &mut Session,
        output: &Output,
        peak: f32,
        until: SampleTime,
    ) {
        let due = |probe: &Option<&mut dyn Probe>| {
            probe
                .as_ref()
                .and_then(|p| p.next_look())
                .is_some_and(|at| at <= until)
        };
        if !due(&self.probe) {
            return;
        }
        self.take_trace(session);
        let so_far = OutputSoFar {
            peak,
            loudness: output.meter.as_ref().map(LoudnessMeter::loudness),
        };
        while due(&self.probe) {
            let looked = self
                .probe
                .as_mut()
                .is_some_and(|probe| probe.look(session, &so_far));
            if !looked {
                break;
            }
        }
    }

    /// Runs the commands due by the start of the next tick (they run before it). While
    /// the debugger holds the engine paused, the lines that follow run at once, in order,
    /// as if typed at the paused debugger, until one lets it go on; a script that ends
    /// while paused goes on without breakpoints (said in the log).
    pub(super) fn run_due(&mut self, session: &mut Session, rate: f64) {
        loop {
            let paused = session.engine.paused().is_some();
            let Some(timed) = self.script.get(self.next) else {
                if paused {
                    self.log.push(format!(
                        "{:>8.3}  the script ended while paused: going on without breakpoints",
                        session.now().samples() as f64 / rate
                    ));
                    session.engine.disarm_debugger();
                    let _ = session.engine.go_on(crate::runtime::engine::GoOn::Continue);
                }
                break;
            };
            let at = SampleTime::from_samples((timed.time * rate).round() as u64);
            if at > session.now() && !paused {
                break;
            }
            // A line that needs the paused debugger (`regs`, `next`, …) lets the engine
            // run the tick the lines before it started, which may pause it, first.
            if !paused && !self.ticked && needs_pause(&timed.command) {
                break;
            }
            self.ticked = false;
            let result = match &timed.command {
                Command::Why(subject) => self.why(session, subject),
                command => session.execute(command),
            };
            if let Some(probe) = self.probe.as_mut() {
                probe.ran(timed, result.as_deref().map_err(String::as_str));
            }
            if let (Command::World(WorldCommand::SaveLot(_)), Err(why)) = (&timed.command, &result)
            {
                self.failed_saves
                    .push(format!("line {}: {why}", timed.line));
            }
            self.log.push(match result {
                Ok(message) => format!("{:>8.3}  line {}: {message}", timed.time, timed.line),
                Err(message) => {
                    format!("{:>8.3}  line {}: error: {message}", timed.time, timed.line)
                }
            });
            self.next += 1;
            if session.engine.paused().is_none() {
                // The next pause is another one.
                self.pause_logged = false;
            }
        }
    }

    /// Says in the log where the engine paused, once per pause.
    pub(super) fn note_pause(&mut self, session: &Session, rate: f64) {
        let engine = &session.engine;
        let Some(paused) = engine.paused() else {
            self.pause_logged = false;
            return;
        };
        if self.pause_logged {
            return;
        }
        self.pause_logged = true;
        if let Some(view) = engine.debug_view().paused {
            self.log.push(format!(
                "{:>8.3}  {view}",
                paused.at.samples() as f64 / rate
            ));
        }
    }

    /// `why`: the explanation of the subject's latest decisions from the records so far
    /// (those of the commands just run included).
    fn why(&mut self, session: &mut Session, subject: &Subject) -> Result<String, String> {
        let on_lot: Vec<_> = session.engine.world().objects().map(|o| o.id).collect();
        subject
            .check(session.engine.project(), &on_lot)
            .map_err(|e| e.to_string())?;
        self.take_trace(session);
        Ok(self
            .why
            .answer(subject, session.engine.config().sample_rate))
    }

    /// Hands the session's new trace records on, keeping those `why` will ask about.
    pub(super) fn take_trace(&mut self, session: &mut Session) {
        for record in session.take_trace() {
            if self.why.is_asking() {
                self.why.keep(&record);
            }
            if let Some(probe) = self.probe.as_mut() {
                probe.record(&record);
            }
            (self.on_record)(record);
        }
    }
}
