//! Running a QA script: its commands rendered offline (no file, loudness measured) with
//! a [`Probe`] that keeps every record and checks each expectation at its time.

use super::check::{Moment, Outcome, check};
use super::{Assertion, Expectation, QaScript};
use crate::host::capture::{Capture, Header};
use crate::host::keyframe::Keyframe;
use crate::host::offline::{OutputSoFar, Probe, RenderError, RenderOptions, run_probed};
use crate::host::session::Session;
use crate::runtime::{SampleTime, TraceRecord};
use crate::toolchain::project::Project;

/// One expectation checked.
#[derive(Debug, Clone, PartialEq)]
pub struct QaResult {
    /// The expectation.
    pub expectation: Expectation,
    /// When it was checked (the first tick at or after its time).
    pub at: SampleTime,
    /// Whether it held, what actually was, and the decision behind it.
    pub outcome: Outcome,
}

/// What a QA script's run found.
#[derive(Debug, Clone, Default)]
pub struct QaReport {
    /// Every expectation, in the script's time order.
    pub results: Vec<QaResult>,
    /// One line per command, as a render logs it.
    pub log: Vec<String>,
    /// Samples per second.
    pub rate: u32,
}

impl QaReport {
    /// The expectations that did not hold.
    pub fn failures(&self) -> impl Iterator<Item = &QaResult> {
        self.results.iter().filter(|r| !r.outcome.passed)
    }

    /// True when every expectation held.
    pub fn passed(&self) -> bool {
        self.failures().next().is_none()
    }
}

/// Runs `script` against `project` and checks its expectations.
pub fn run_qa(
    project: Project,
    script: &QaScript,
    options: RenderOptions,
) -> Result<QaReport, RenderError> {
    run_qa_with(project, script, options, false).map(|(report, _)| report)
}

/// Runs `script` as [`run_qa`] does; with `capture`, the run comes back as a capture too
/// (its header, the script's commands, every record and keyframes), to be shown in the
/// workbench's capture view.
pub fn run_qa_with(
    project: Project,
    script: &QaScript,
    options: RenderOptions,
    capture: bool,
) -> Result<(QaReport, Option<Capture>), RenderError> {
    let rate = options.sample_rate.max(1);
    let mut expectations: Vec<(SampleTime, &Expectation)> = script
        .expectations
        .iter()
        .map(|e| {
            // `started … within <ms>ms` is checked when that time is up.
            let wait = match e.assertion {
                Assertion::Started {
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
    };
    let header = capture.then(|| Header::for_render(&project, &options));
    let mut keyframes = Vec::new();
    let mut keep = |keyframe: Keyframe| keyframes.push(keyframe);
    let tap: Option<&mut dyn FnMut(Keyframe)> = if capture { Some(&mut keep) } else { None };
    let report = run_probed(project, &script.commands, options, &mut checker, tap)?;
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
            results: checker.results,
            log: report.log,
            rate,
        },
        capture,
    ))
}

/// The probe: keeps the records and checks the expectations in order.
struct Checker<'s> {
    expectations: Vec<(SampleTime, &'s Expectation)>,
    next: usize,
    records: Vec<TraceRecord>,
    results: Vec<QaResult>,
    rate: u32,
}

impl Probe for Checker<'_> {
    fn next_look(&self) -> Option<SampleTime> {
        self.expectations.get(self.next).map(|(at, _)| *at)
    }

    fn record(&mut self, record: &TraceRecord) {
        self.records.push(record.clone());
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
