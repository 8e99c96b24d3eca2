//! A project's QA suite: its `qa/*.qa` files found, each read and run, all of them on as
//! many threads as the machine has cores with every result reported as it comes — what
//! `hitbench test` and the workbench's QA panel both run.

use super::names::KnownNames;
use super::parse_qa;
use super::run::{QaError, QaReport, run_qa_with};
use crate::host::capture::Capture;
use crate::host::offline::RenderOptions;
use crate::toolchain::project::Project;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// How one script went.
#[derive(Debug, Clone)]
pub enum ScriptRun {
    /// It ran: every expectation checked; with the run as a capture when one was asked
    /// for and an expectation failed.
    Ran(QaReport, Option<Box<Capture>>),
    /// It could not run: its problems, each `file:line:col: …`.
    Broken(Vec<String>),
}

impl ScriptRun {
    /// True when it ran and every expectation held.
    pub fn passed(&self) -> bool {
        matches!(self, ScriptRun::Ran(report, _) if report.passed())
    }
}

/// The project's `qa/*.qa` scripts in `dir`, sorted by name. A missing `qa` folder is
/// an error naming it.
pub fn suite_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let qa = dir.join("qa");
    let entries = std::fs::read_dir(&qa).map_err(|e| format!("{}: {e}", qa.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "qa") && p.is_file())
        .collect();
    files.sort();
    Ok(files)
}

/// Reads and runs the script in `file` against `project`, its names checked against
/// `known` (what the project has, [`KnownNames::of`]). With `capture`, a run in which
/// an expectation failed comes back with its capture (to be shown at the failure).
/// `cache_budget` (`--cache-mb`) is the cache's budget unless the script sets one.
pub fn run_file(
    project: Project,
    known: &KnownNames,
    file: &Path,
    capture: bool,
    cache_budget: Option<usize>,
) -> ScriptRun {
    let text = match crate::host::command::read_script(file) {
        Ok(text) => text,
        Err(unreadable) => return ScriptRun::Broken(vec![unreadable.to_string()]),
    };
    let (script, problems) = parse_qa(&text, file);
    if !problems.is_empty() {
        return ScriptRun::Broken(problems.iter().map(ToString::to_string).collect());
    }
    let options = RenderOptions {
        cache_budget,
        ..RenderOptions::default()
    };
    match run_qa_with(project, &script, file, options, known, capture) {
        Ok((report, capture)) => {
            let capture = capture.filter(|_| !report.passed()).map(Box::new);
            ScriptRun::Ran(report, capture)
        }
        Err(QaError::UnknownNames(problems)) => {
            ScriptRun::Broken(problems.iter().map(ToString::to_string).collect())
        }
        Err(e) => ScriptRun::Broken(vec![format!("{}: {e}", file.display())]),
    }
}

/// Runs every file on as many threads as the machine has cores (at most one per file),
/// handing each result to `done` with its index in `files` as soon as it is known (in
/// the order they finish). Stops taking new files once `cancel` is set.
pub fn run_files(
    project: &Project,
    files: &[PathBuf],
    capture: bool,
    cache_budget: Option<usize>,
    cancel: &AtomicBool,
    done: &(dyn Fn(usize, ScriptRun) + Sync),
) {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(files.len())
        .max(1);
    let next = AtomicUsize::new(0);
    let known = KnownNames::of(project);
    let known = &known;
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while !cancel.load(Ordering::Relaxed) {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(file) = files.get(index) else {
                        break;
                    };
                    done(
                        index,
                        run_file(project.clone(), known, file, capture, cache_budget),
                    );
                }
            });
        }
    });
}
