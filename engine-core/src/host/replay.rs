//! A capture's inputs run again, offline, against a project as it is now (or with a
//! setting changed), and its decisions compared with the capture's: what `hitbench
//! replay` and the workbench's "Diff against the project now" share.

use crate::host::capture::Capture;
use crate::host::command::{TimedCommand, parse};
use crate::host::offline::{self, RenderOptions, RenderReport};
use crate::runtime::{SampleTime, TraceRecord};
use crate::toolchain::project::Project;
use crate::tools::diff::{Difference, GAIN_THRESHOLD_DB, diff};
use crate::tools::why::decisions;
use std::path::Path;

/// What to change in a replay (`None`: as captured).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReplaySettings {
    /// Another random seed.
    pub seed: Option<u64>,
    /// Another Box-X voice limit.
    pub voices: Option<usize>,
    /// Another cache budget, bytes.
    pub cache_budget: Option<usize>,
}

/// A replay's outcome.
#[derive(Debug, Clone)]
pub struct Replay {
    /// What the run reported (length, notes).
    pub report: RenderReport,
    /// Every record it traced.
    pub records: Vec<TraceRecord>,
    /// How many inputs it ran.
    pub inputs: usize,
}

/// The capture's inputs as a script, each line parsed back into its command; an input
/// that no longer parses is an error naming the capture file `path` and the input.
pub fn inputs(capture: &Capture, path: &Path) -> Result<Vec<TimedCommand>, String> {
    capture
        .inputs
        .iter()
        .enumerate()
        .filter_map(|(index, (seconds, line))| match parse(line) {
            Ok(Some(command)) => Some(Ok(TimedCommand {
                time: *seconds,
                command,
                line: u32::try_from(index + 1).unwrap_or(u32::MAX),
            })),
            Ok(None) => None,
            Err(e) => Some(Err(format!(
                "{}: input {} `{line}` does not read as a command: {e}",
                path.display(),
                index + 1
            ))),
        })
        .collect()
}

/// Runs the inputs of the capture read from `path` against `project` with its seed,
/// rate and voice limit (or those of `settings`), for as long as the capture lasted.
pub fn replay(
    capture: &Capture,
    path: &Path,
    project: Project,
    settings: ReplaySettings,
) -> Result<Replay, String> {
    let script = inputs(capture, path)?;
    let rate = capture.header.sample_rate;
    let options = RenderOptions {
        sample_rate: rate,
        seed: settings.seed.unwrap_or(capture.header.seed),
        voices: settings.voices.unwrap_or(capture.header.voices),
        cache_budget: Some(settings.cache_budget.unwrap_or(capture.header.cache_budget)),
        duration: duration(capture),
        ..RenderOptions::default()
    };
    let mut records = Vec::new();
    let report = offline::run_without_file(project, &script, options, &mut |r| records.push(r))
        .map_err(|e| e.to_string())?;
    let inputs = match options.duration {
        Some(seconds) => script.iter().filter(|c| c.time <= seconds).count(),
        None => script.len(),
    };
    Ok(Replay {
        report,
        records,
        inputs,
    })
}

/// How long a replay runs, in seconds: as long as the capture reaches (a capture cut off,
/// to its last record: its inputs after that were given but never run to be recorded);
/// `None`, to the script's end, for a cut-off capture that recorded nothing.
fn duration(capture: &Capture) -> Option<f64> {
    let rate = f64::from(capture.header.sample_rate.max(1));
    capture.reaches().map(|at| at.samples() as f64 / rate)
}

/// The decisions of `replayed` that differ from the capture's. A live capture starts
/// when asked, with its first keyframe: what the replay decided before then is not
/// compared. Nor, in a capture cut off (no end), what was decided from the moment it
/// was cut off ([`Capture::cut_off_at`]): it holds nothing after that moment, and of
/// that moment perhaps only part.
pub fn differences(capture: &Capture, replayed: &[TraceRecord]) -> Vec<Difference> {
    let since = capture.keyframes.first().map_or(SampleTime::ZERO, |k| k.at);
    // Records, not decisions, are cut: a decision's notes may come after its trigger.
    let cut = capture.cut_off_at();
    let before = decisions(before_cut(&capture.records, cut));
    let mut after = decisions(before_cut(replayed, cut));
    after.retain(|d| d.time >= since);
    diff(&before, &after, GAIN_THRESHOLD_DB)
}

/// The records before `cut` (all of them if there is none), in time order.
fn before_cut(records: &[TraceRecord], cut: Option<SampleTime>) -> &[TraceRecord] {
    match cut {
        Some(cut) => &records[..records.partition_point(|r| r.time < cut)],
        None => records,
    }
}
