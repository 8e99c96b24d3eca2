//! Running a QA script: its names checked against the project, then its commands
//! rendered offline (no file, loudness measured) with a [`Probe`] that keeps every
//! record, checks each expectation at its time, follows how loud each note was at the
//! output (`expect heard`), and reports trouble the script did not expect — an error
//! record none of its expectations looks at — at the line that caused it.

use super::check::{Moment, Outcome, check, counts};
use super::heard::HeardNotes;
use super::names::{KnownNames, check_names};
use super::{Assertion, Counted, Expectation, QaScript};
use crate::host::capture::{Capture, Header};
use crate::host::command::{Command, TimedCommand};
use crate::host::keyframe::Keyframe;
use crate::host::offline::{OutputSoFar, Probe, RenderError, RenderOptions, run_probed};
use crate::host::session::Session;
use crate::runtime::trace::{TraceEvent, WorldEvent};
use crate::runtime::{SampleTime, TraceKind, TraceRecord};
use crate::sound::mixer::MixerControls;
use crate::toolchain::diag::Diagnostic;
use crate::toolchain::project::Project;
use crate::tools::why::decisions;
use std::collections::HashMap;
use std::path::Path;

/// One expectation checked — or trouble the script did not expect
/// ([`Assertion::Untroubled`]), at the line that caused it.
#[derive(Debug, Clone, PartialEq)]
pub struct QaResult {
    /// The expectation.
    pub expectation: Expectation,
    /// When it was checked (the first tick at or after its time), or when the trouble
    /// happened.
    pub at: SampleTime,
    /// Whether it held, what actually was, and the decision behind it.
    pub outcome: Outcome,
}

impl QaResult {
    /// What was checked, as a person reads it: `expect <assertion>`, or for trouble the
    /// line that caused it and what kind of trouble.
    pub fn label(&self) -> String {
        match self.expectation.assertion {
            Assertion::Untroubled => format!("{}: unexpected error", self.expectation.text),
            _ => format!("expect {}", self.expectation.text),
        }
    }

    /// True for trouble the script did not expect (not an expectation of its own).
    pub fn is_trouble(&self) -> bool {
        self.expectation.assertion == Assertion::Untroubled
    }
}

/// What a QA script's run found.
#[derive(Debug, Clone, Default)]
pub struct QaReport {
    /// Every expectation, in the script's time order, then the trouble it did not
    /// expect, in the order it happened.
    pub results: Vec<QaResult>,
    /// One line per command, as a render logs it.
    pub log: Vec<String>,
    /// Samples per second.
    pub rate: u32,
}

impl QaReport {
    /// The expectations that did not hold, and the trouble.
    pub fn failures(&self) -> impl Iterator<Item = &QaResult> {
        self.results.iter().filter(|r| !r.outcome.passed)
    }

    /// True when every expectation held and nothing unexpected went wrong.
    pub fn passed(&self) -> bool {
        self.failures().next().is_none()
    }

    /// The script's own expectations (not the trouble).
    pub fn expectations(&self) -> impl Iterator<Item = &QaResult> {
        self.results.iter().filter(|r| !r.is_trouble())
    }

    /// The trouble the script did not expect.
    pub fn trouble(&self) -> impl Iterator<Item = &QaResult> {
        self.results.iter().filter(|r| r.is_trouble())
    }

    /// `N of M expectation(s) failed`, `, K unexpected error(s)`, or
    /// `M expectation(s) held`.
    pub fn summary(&self) -> String {
        let total = self.expectations().count();
        let failed = self.expectations().filter(|r| !r.outcome.passed).count();
        let trouble = self.trouble().count();
        let mut text = if failed > 0 {
            format!("{failed} of {total} expectation(s) failed")
        } else {
            format!("{total} expectation(s) held")
        };
        if trouble > 0 {
            text.push_str(&format!(", {trouble} unexpected error(s)"));
        }
        text
    }
}

/// Why a QA script could not run.
#[derive(Debug, thiserror::Error)]
pub enum QaError {
    /// Its expectations name things the project does not have (each an error at its
    /// line and column).
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    UnknownNames(Vec<Diagnostic>),
    /// The render failed.
    #[error(transparent)]
    Render(#[from] RenderError),
}

/// Checks the names of `script` (read from `file`) against `project`, then runs it
/// and checks its expectations.
pub fn run_qa(
    project: Project,
    script: &QaScript,
    file: &Path,
    options: RenderOptions,
) -> Result<QaReport, QaError> {
    let known = KnownNames::of(&project);
    run_qa_with(project, script, file, options, &known, false).map(|(report, _)| report)
}

/// Runs `script` as [`run_qa`] does, its names checked against `known` (what the
/// project has); with `capture`, the run comes back as a capture too (its header, the
/// script's commands, every record and keyframes), to be shown in the workbench's
/// capture view.
pub fn run_qa_with(
    project: Project,
    script: &QaScript,
    file: &Path,
    options: RenderOptions,
    known: &KnownNames,
    capture: bool,
) -> Result<(QaReport, Option<Capture>), QaError> {
    let unknown = check_names(script, file, known);
    if !unknown.is_empty() {
        return Err(QaError::UnknownNames(unknown));
    }
    let rate = options.sample_rate.max(1);
    let mut expectations: Vec<(SampleTime, &Expectation)> = script
        .expectations
        .iter()
        .map(|e| {
            // `started`/`heard … within <ms>ms` is checked when that time is up.
            let wait = match e.assertion {
                Assertion::Started {
                    within_ms: Some(ms),
                    ..
                }
                | Assertion::Heard {
                    within_ms: Some(ms),
                    ..
                } => ms / 1000.0,
                _ => 0.0,
            };
            let at = SampleTime::from_samples(((e.time + wait) * f64::from(rate)).round() as u64);
            (at, e)
        })
        .collect();
    expectations.sort_by_key(|(at, e)| (*at, e.line));
    // The render lasts until the last expectation too.
    let last = expectations
        .last()
        .map_or(0.0, |(at, _)| at.samples() as f64 / f64::from(rate));
    let options = RenderOptions {
        voices: script.voices.unwrap_or(options.voices),
        cache_budget: script.cache_budget.or(options.cache_budget),
        duration: Some(options.duration.unwrap_or_else(|| {
            script.commands.last().map_or(0.0, |c| c.time).max(last) + options.tail_seconds
        })),
        ..options
    };
    let mut checker = Checker {
        expectations,
        next: 0,
        records: Vec::new(),
        results: Vec::new(),
        rate,
        heard: HeardNotes::default(),
        judged: Judged::of(script),
        stand_ins: stand_ins(&project),
        ran: Vec::new(),
        trouble: Vec::new(),
    };
    let header = capture.then(|| Header::for_render(&project, &options));
    let mut keyframes = Vec::new();
    let mut keep = |keyframe: Keyframe| keyframes.push(keyframe);
    let tap: Option<&mut dyn FnMut(Keyframe)> = if capture { Some(&mut keep) } else { None };
    let report = run_probed(project, &script.commands, options, &mut checker, tap)?;
    let mut results = std::mem::take(&mut checker.results);
    results.extend(checker.trouble_results());
    let capture = header.map(|header| Capture {
        header,
        inputs: script
            .commands
            .iter()
            .map(|c| (c.time, c.command.to_string()))
            .collect(),
        records: std::mem::take(&mut checker.records),
        keyframes,
        end: Some(SampleTime::from_samples(report.frames)),
    });
    Ok((
        QaReport {
            results,
            log: report.log,
            rate,
        },
        capture,
    ))
}

/// Which error records the script's own expectations look at: those are not trouble.
#[derive(Debug, Clone, Default)]
struct Judged {
    /// What its `count` expectations count.
    counted: Vec<Counted>,
    /// It has a `fault`, `no fault` or `count faults` expectation.
    faults: bool,
}

impl Judged {
    fn of(script: &QaScript) -> Self {
        let mut judged = Self::default();
        for expectation in &script.expectations {
            match &expectation.assertion {
                Assertion::Count { what, .. } => judged.counted.push(*what),
                Assertion::Fault { .. } | Assertion::NoFault => judged.faults = true,
                _ => {}
            }
        }
        judged
    }

    /// True when an expectation of the script judges `record`.
    fn judges(&self, record: &TraceRecord) -> bool {
        (self.faults && matches!(record.what, TraceEvent::Fault { .. }))
            || self.counted.iter().any(|what| counts(*what, record))
    }
}

/// The patches whose path with folders is not there and whose sample was found by file
/// name elsewhere: a note of one plays a stand-in, which the script did not expect.
fn stand_ins(project: &Project) -> HashMap<u32, String> {
    project
        .patches
        .values()
        .filter(|p| p.found_by_name)
        .map(|p| {
            let found = p.resource.as_deref().unwrap_or_default();
            let said = format!(
                "patch {} ({}): `{}` is not there; `{found}`, found by its file name alone, \
                 played instead",
                p.id, p.name, p.path_text
            );
            (p.id, said)
        })
        .collect()
}

/// A line that ran: its place and the command.
struct Ran {
    line: u32,
    time: f64,
    command: Command,
}

/// Trouble found: what caused it (the index of the line in `ran`, if any), when, the
/// record — and how many times the same came again from the same line.
struct Trouble {
    cause: Option<usize>,
    at: SampleTime,
    what: String,
    record: TraceRecord,
    again: usize,
}

/// The probe: keeps the records, checks the expectations in order, follows the notes'
/// levels and collects the trouble.
struct Checker<'s> {
    expectations: Vec<(SampleTime, &'s Expectation)>,
    next: usize,
    records: Vec<TraceRecord>,
    results: Vec<QaResult>,
    rate: u32,
    heard: HeardNotes,
    judged: Judged,
    /// Patches whose sample was found by file name elsewhere than their path says, with
    /// the sentence that says so.
    stand_ins: HashMap<u32, String>,
    ran: Vec<Ran>,
    trouble: Vec<Trouble>,
}

impl Checker<'_> {
    /// The line that caused `record`: for a problem in a data file, the last `reload`
    /// (none before one: the project was loaded so); else the last line run that
    /// triggered its event, else the last line run.
    fn cause(&self, record: &TraceRecord) -> Option<usize> {
        if matches!(record.what, TraceEvent::World(WorldEvent::Problem(_))) {
            return self
                .ran
                .iter()
                .rposition(|ran| matches!(ran.command, Command::Reload));
        }
        let triggered = |ran: &Ran| match (&ran.command, record.event.as_deref()) {
            (Command::SoundEvent { name, .. } | Command::UiSound { name }, Some(event)) => {
                name.eq_ignore_ascii_case(event)
            }
            _ => false,
        };
        self.ran
            .iter()
            .rposition(triggered)
            .or_else(|| self.ran.len().checked_sub(1))
    }

    /// Notes trouble, or counts it again when the same came from the same line before.
    fn add_trouble(&mut self, trouble: Trouble) {
        if let Some(same) = self
            .trouble
            .iter_mut()
            .find(|t| t.cause == trouble.cause && t.what == trouble.what)
        {
            same.again += 1;
            return;
        }
        self.trouble.push(trouble);
    }

    /// The trouble as results, each at the line that caused it.
    fn trouble_results(&self) -> Vec<QaResult> {
        let all = decisions(&self.records);
        self.trouble
            .iter()
            .map(|t| {
                let ran = t.cause.and_then(|i| self.ran.get(i));
                let again = match t.again {
                    0 => String::new(),
                    n => format!(" ({} times in all)", n + 1),
                };
                // The decision the troubled record belongs to, for "why".
                let r = &t.record;
                let decision = all
                    .iter()
                    .rev()
                    .find(|d| {
                        d.time <= r.time && r.event.as_deref().is_some_and(|e| *d.event == *e)
                    })
                    .cloned();
                QaResult {
                    expectation: Expectation {
                        time: ran.map_or(0.0, |r| r.time),
                        line: ran.map_or(0, |r| r.line),
                        text: ran.map_or_else(
                            || "(the project as loaded)".to_string(),
                            |r| r.command.to_string(),
                        ),
                        assertion: Assertion::Untroubled,
                        names: Vec::new(),
                    },
                    at: t.at,
                    outcome: Outcome {
                        passed: false,
                        actual: format!("{}{again}", t.what),
                        decision,
                    },
                }
            })
            .collect()
    }
}

impl Probe for Checker<'_> {
    fn next_look(&self) -> Option<SampleTime> {
        self.expectations.get(self.next).map(|(at, _)| *at)
    }

    fn record(&mut self, record: &TraceRecord) {
        self.heard.record(record);
        if let TraceEvent::NoteStarted { patch, .. } = &record.what
            && let Some(said) = self.stand_ins.get(patch)
        {
            self.add_trouble(Trouble {
                cause: self.cause(record),
                at: record.time,
                what: said.clone(),
                record: record.clone(),
                again: 0,
            });
        }
        if record.kind == TraceKind::Error && !self.judged.judges(record) {
            self.add_trouble(Trouble {
                cause: self.cause(record),
                at: record.time,
                what: record.message(),
                record: record.clone(),
                again: 0,
            });
        }
        self.records.push(record.clone());
    }

    fn ran(&mut self, line: &TimedCommand, _result: Result<&str, &str>) {
        // A refusal may be a decision the script tests (noise reduction, a full house
        // of voices): what went wrong shows as error records, which come next.
        self.ran.push(Ran {
            line: line.line,
            time: line.time,
            command: line.command.clone(),
        });
    }

    fn rendered(&mut self, at: SampleTime, controls: &MixerControls) {
        self.heard.block(at, controls);
    }

    fn look(&mut self, session: &Session, output: &OutputSoFar) -> bool {
        let Some(&(at, expectation)) = self.expectations.get(self.next) else {
            return false;
        };
        self.next += 1;
        let tracks = session.engine.active_tracks();
        let world = session.world.view(&session.engine);
        let moment = Moment {
            records: &self.records,
            project: session.engine.project(),
            rate: self.rate,
            busy: session.engine.voices_in_use(),
            tracks: &tracks,
            world: &world,
            output,
            heard: &self.heard,
        };
        let outcome = check(&expectation.assertion, &moment);
        self.results.push(QaResult {
            expectation: expectation.clone(),
            at: at.max(session.now()),
            outcome,
        });
        true
    }
}
