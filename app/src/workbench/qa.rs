//! QA in the workbench (`docs/qa.md`): the project's suite listed in the QA panel, run
//! offline on a background thread (`hitbench-qa`, every core, as `hitbench test` runs
//! it) with each script's result as it comes; a failed run is kept as a capture, so a
//! failed expectation opens in the capture view at its time with the Why panel on the
//! decision behind it; a script saved from the console history is written into `qa/`
//! and joins the list.
//!
//! Like the other workbench actions each is a method, so tests call them directly:
//! [`run_qa`](Workbench::run_qa), [`show_qa_failure`](Workbench::show_qa_failure),
//! [`save_qa_script`](Workbench::save_qa_script).

use super::Workbench;
use super::dock::{self, Pane};
use engine_core::host::capture::Capture;
use engine_core::host::command::read_script;
use engine_core::host::qa::{ScriptRun, run_files, suite_files};
use engine_core::tools::why::grouped;
use panels::{QaData, QaScriptState, QaState, WhyTarget};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError, channel};

/// The suite, the run under way and the failed runs' captures.
#[derive(Default)]
pub(super) struct QaRuns {
    /// What the QA panel shows.
    pub(super) data: QaData,
    /// Results as they come: the script's index in `data.scripts`, and its run.
    results: Option<Receiver<(usize, ScriptRun)>>,
    /// Set to stop the run.
    cancel: Arc<AtomicBool>,
    /// The scripts of the run under way (indices in `data.scripts`).
    running: Vec<usize>,
    /// Each failed run as a capture, by script.
    captures: HashMap<PathBuf, Capture>,
    /// Each script's text when its shown result's run began (to tell a change on disk).
    ran: HashMap<PathBuf, String>,
}

impl QaRuns {
    /// True while a run is under way.
    pub(super) fn busy(&self) -> bool {
        self.results.is_some()
    }

    /// Lists the suite of the project in `root` again — scripts added, renamed or removed
    /// on disk included — keeping the results of the scripts still there, each marked
    /// when its file changed since the run it shows.
    pub(super) fn list(&mut self, root: &Path) {
        let mut old: HashMap<PathBuf, QaState> = self
            .data
            .scripts
            .drain(..)
            .map(|s| (s.file, s.state))
            .collect();
        match suite_files(root) {
            Ok(files) => {
                self.data.problem = None;
                let ran = &self.ran;
                self.data.scripts = files
                    .into_iter()
                    .map(|file| QaScriptState {
                        state: old.remove(&file).unwrap_or_default(),
                        changed: ran
                            .get(&file)
                            .is_some_and(|text| read_script(&file).ok().as_ref() != Some(text)),
                        file,
                    })
                    .collect();
            }
            Err(e) => {
                self.data.problem = Some(format!(
                    "no QA scripts: {e} (save the console history as a script to start one)"
                ));
            }
        }
        self.captures.retain(|file, _| !old.contains_key(file));
        self.ran.retain(|file, _| !old.contains_key(file));
    }
}

impl Workbench {
    /// The QA suite and its runs, as the QA panel shows them.
    pub fn qa(&self) -> &QaData {
        &self.qa.data
    }

    /// True while a QA run is under way.
    pub fn qa_running(&self) -> bool {
        self.qa.results.is_some()
    }

    /// Runs `files` of the suite (none: all of it) offline on a background thread, on
    /// every core; results come in with [`poll_qa`](Self::poll_qa).
    pub fn run_qa(&mut self, files: &[PathBuf]) {
        if self.qa_running() {
            return;
        }
        self.qa.list(self.project.root());
        let chosen: Vec<usize> = self
            .qa
            .data
            .scripts
            .iter()
            .enumerate()
            .filter(|(_, s)| files.is_empty() || files.contains(&s.file))
            .map(|(i, _)| i)
            .collect();
        if chosen.is_empty() {
            self.status = "no QA script to run".into();
            return;
        }
        let paths: Vec<PathBuf> = chosen
            .iter()
            .map(|&i| self.qa.data.scripts[i].file.clone())
            .collect();
        for &i in &chosen {
            let script = &mut self.qa.data.scripts[i];
            script.state = QaState::Running;
            script.changed = false;
            self.qa.captures.remove(&script.file);
            match read_script(&script.file) {
                Ok(text) => self.qa.ran.insert(script.file.clone(), text),
                Err(_) => self.qa.ran.remove(&script.file),
            };
        }
        let (send, receive) = channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let project = self.project.clone();
        let cache_budget = self.options.cache_budget;
        let stop = Arc::clone(&cancel);
        let spawned = std::thread::Builder::new()
            .name("hitbench-qa".into())
            .spawn(move || {
                let send = std::sync::Mutex::new(send);
                let done = |index: usize, run: ScriptRun| {
                    if let Ok(send) = send.lock() {
                        // The window may be gone: nobody to tell then.
                        let _ = send.send((index, run));
                    }
                };
                run_files(&project, &paths, true, cache_budget, &stop, &done);
            });
        match spawned {
            Ok(_) => {
                self.qa.data.progress = Some((0, chosen.len()));
                self.qa.results = Some(receive);
                self.qa.cancel = cancel;
                self.qa.running = chosen;
                self.status = format!("running {} QA script(s)", self.qa.running.len());
            }
            Err(e) => {
                for &i in &chosen {
                    self.qa.data.scripts[i].state = QaState::NotRun;
                }
                self.status = format!("cannot start the QA run: {e}");
            }
        }
        dock::show_pane(&mut self.tree, Pane::Qa);
    }

    /// Stops the QA run: the scripts under way finish, the others stay not run.
    pub fn stop_qa(&mut self) {
        self.qa.cancel.store(true, Ordering::Relaxed);
    }

    /// Takes the results that came in. Called every frame (tests call it while waiting).
    pub fn poll_qa(&mut self) {
        let Some(receive) = &self.qa.results else {
            return;
        };
        let mut finished = false;
        loop {
            match receive.try_recv() {
                Ok((index, run)) => {
                    let Some(&script) = self.qa.running.get(index) else {
                        continue;
                    };
                    let run = match run {
                        ScriptRun::Ran(report, capture) => {
                            if let Some(capture) = capture {
                                let file = self.qa.data.scripts[script].file.clone();
                                self.qa.captures.insert(file, *capture);
                            }
                            ScriptRun::Ran(report, None)
                        }
                        broken => broken,
                    };
                    self.qa.data.scripts[script].state = QaState::Done(run);
                    if let Some((done, _)) = &mut self.qa.data.progress {
                        *done += 1;
                    }
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    finished = true;
                    break;
                }
            }
        }
        if !finished {
            return;
        }
        // Scripts a stop left behind are not run.
        for &i in &self.qa.running {
            if matches!(self.qa.data.scripts[i].state, QaState::Running) {
                self.qa.data.scripts[i].state = QaState::NotRun;
            }
        }
        let (passed, failed) = self.qa.data.tally();
        self.status = format!("QA: {passed} passed, {failed} failed");
        self.qa.results = None;
        self.qa.running.clear();
        self.qa.data.progress = None;
    }

    /// Shows a failed expectation: its script's run in the capture view at the time it
    /// was checked, the Traces up to then, and the Why panel on the decision behind it.
    pub fn show_qa_failure(&mut self, file: &Path, result: usize) {
        let Some(script) = self.qa.data.scripts.iter().find(|s| s.file == file) else {
            return;
        };
        let QaState::Done(ScriptRun::Ran(report, _)) = &script.state else {
            return;
        };
        let rate = report.rate;
        let Some(result) = report.results.get(result).cloned() else {
            return;
        };
        let Some(capture) = self.qa.captures.get(file).cloned() else {
            self.status = format!("{}: its run was not kept; run it again", file.display());
            return;
        };
        self.show_capture(file, capture);
        let at = self.show_at(result.at);
        let place = format!(
            "{}:{}",
            file.file_name().map_or_else(
                || file.display().to_string(),
                |n| n.to_string_lossy().into()
            ),
            result.expectation.line
        );
        self.status = format!(
            "{place}: expect {} — actually {}; showing its run at {:.3} s (File > Close capture \
             returns to the live engine)",
            result.expectation.text,
            result.outcome.actual,
            at.samples() as f64 / f64::from(rate.max(1))
        );
        dock::show_pane(&mut self.tree, Pane::Traces);
        // The decision's own record: the first record that belongs to it.
        let record = result.outcome.decision.as_ref().and_then(|decision| {
            let records: Vec<_> = self.shown_trace().iter().cloned().collect();
            let (all, owners) = grouped(&records);
            let index = all
                .iter()
                .rposition(|d| d.time == decision.time && d.event == decision.event)?;
            owners.iter().position(|owner| *owner == Some(index))
        });
        match (record, &result.outcome.decision) {
            (Some(number), _) => self.open_why(WhyTarget::Record(number as u64)),
            (None, Some(decision)) => self.open_why(WhyTarget::Event(decision.event.to_string())),
            (None, None) => {}
        }
    }

    /// Writes `text` to `path` (inside the project's `qa` folder, made if missing) unless
    /// a file is there already, and lists the suite again with it.
    pub fn save_qa_script(&mut self, path: &Path, text: &str) {
        let write = || -> Result<(), String> {
            if path.exists() {
                return Err(format!(
                    "{} exists already: choose another name",
                    path.display()
                ));
            }
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)
                    .map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
            }
            engine_core::toolchain::fsrules::write_output(path, &[], text.as_bytes())
                .map_err(|e| e.to_string())
        };
        let outcome = write().map(|()| path.to_path_buf());
        self.status = match &outcome {
            Ok(path) => format!("saved the QA script {}", path.display()),
            Err(problem) => problem.clone(),
        };
        self.qa.data.saved = Some(outcome);
        self.qa.list(self.project.root());
        dock::show_pane(&mut self.tree, Pane::Qa);
    }
}
