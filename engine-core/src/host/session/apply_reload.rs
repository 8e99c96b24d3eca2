//! Applying a loaded [`Reload`] on the engine thread: swap the project in, restart or
//! drop the tracks whose code was running, let the runtime measure reloaded samples
//! again, and trace every step (kind `reload`; file problems as `error`).

use super::Session;
use crate::host::reload::{
    Reload, ReloadConfig, ReloadStatus, ReloadSummary, SampleChange, SampleOutcome,
};
use crate::runtime::{ActiveTrack, EventArgs, TraceKind};
use crate::toolchain::project::Project;
use crate::world::ObjectId;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// What a reload did, one line at a time: each line is traced on the session and kept
/// for the [`ReloadSummary`].
struct ReloadLog<'s> {
    session: &'s mut Session,
    lines: Vec<String>,
}

impl<'s> ReloadLog<'s> {
    fn new(session: &'s mut Session) -> Self {
        Self {
            session,
            lines: Vec::new(),
        }
    }

    fn say(&mut self, kind: TraceKind, line: String) {
        self.session.record(kind, line.clone());
        self.lines.push(line);
    }
}

/// A running track the new project still defines, to be started again.
struct Restart {
    track: ActiveTrack,
    /// Its event is still defined (else the track is started by ID).
    event_defined: bool,
    /// " for object(s) …", or nothing for a UI sound.
    owners: String,
}

/// Swaps `project` into `session`'s engine. Voices already sounding keep the sample data
/// they hold. Tracks whose code was running cannot go on (the engine rebuilds its
/// program, so their code may have moved): with `restart`, each one the new project
/// still defines is cut (its notes fade out at once, so the old and the new version do
/// not sound together) and starts again from the top for the same objects, with default
/// event arguments; without `restart`, or if the new project no longer defines it, it
/// stops and its current notes play out. Returns one sentence per track restarted,
/// stopped or dropped (also traced).
pub fn swap_project(session: &mut Session, project: Project, restart: bool) -> Vec<String> {
    let running: Vec<ActiveTrack> = session
        .engine
        .active_tracks()
        .into_iter()
        .filter(|t| !t.finished)
        .collect();
    session.server.warm_up(&project);
    session.engine.replace_project(project);
    let mut log = ReloadLog::new(session);
    let mut stopped = BTreeSet::new();
    let restarts = stop_running(&mut log, running, restart, &mut stopped);
    // Stop every copy first, so a restarted copy is not stopped again by the next one.
    for r in &restarts {
        if stopped.insert(r.track.track) {
            log.session.engine.stop_track_id(r.track.track, true);
        }
    }
    for r in restarts {
        start_again(&mut log, r);
    }
    log.lines
}

/// Stops the running tracks the new project no longer defines, and all of them without
/// `restart` (their notes play out); returns the ones to restart.
fn stop_running(
    log: &mut ReloadLog<'_>,
    running: Vec<ActiveTrack>,
    restart: bool,
    stopped: &mut BTreeSet<u32>,
) -> Vec<Restart> {
    let mut restarts = Vec::new();
    for track in running {
        let new = log.session.engine.project();
        let event_defined = new.event(&track.event).is_some();
        let track_defined = new.track(track.track).is_some();
        let owners = if track.owners.is_empty() {
            String::new()
        } else {
            let list: Vec<String> = track.owners.iter().map(ToString::to_string).collect();
            format!(" for object(s) {}", list.join(", "))
        };
        let line = if !event_defined && !track_defined {
            format!(
                "track `{}` (event `{}`{owners}) dropped: the new version does not define it; its current notes play out",
                track.track_name, track.event
            )
        } else if !restart {
            format!(
                "track `{}` (event `{}`{owners}) stopped by the reload: its current notes play out; trigger it again to hear the new version",
                track.track_name, track.event
            )
        } else {
            restarts.push(Restart {
                track,
                event_defined,
                owners,
            });
            continue;
        };
        if stopped.insert(track.track) {
            log.session.engine.stop_track_id(track.track, false);
        }
        log.say(TraceKind::Reload, line);
    }
    restarts
}

/// Starts a stopped track again for each of its objects (once for a UI sound), with
/// default arguments; says whether it worked.
fn start_again(log: &mut ReloadLog<'_>, restart: Restart) {
    let Restart {
        track,
        event_defined,
        owners,
    } = restart;
    let sources: Vec<Option<ObjectId>> = if track.owners.is_empty() {
        vec![None]
    } else {
        track.owners.iter().copied().map(Some).collect()
    };
    // The first start that works, else the last failure.
    let mut result = None;
    for source in sources {
        let engine = &mut log.session.engine;
        let outcome = if event_defined {
            engine.trigger(&track.event, source, EventArgs::default())
        } else {
            engine.play_track(track.track, source, EventArgs::default())
        };
        if !matches!(result, Some(Ok(_))) {
            result = Some(outcome);
        }
    }
    let (kind, line) = match result {
        Some(Ok(outcome)) => (
            TraceKind::Reload,
            format!(
                "track `{}` (event `{}`{owners}) restarted with the new version (default arguments): {outcome}",
                track.track_name, track.event
            ),
        ),
        Some(Err(why)) => (
            TraceKind::Error,
            format!(
                "track `{}` (event `{}`{owners}) dropped: restarting it failed: {why}",
                track.track_name, track.event
            ),
        ),
        None => return,
    };
    log.say(kind, line);
}

/// Applies `reload` to `session`; `None` if it only carried the watcher's state.
pub(crate) fn apply(
    session: &mut Session,
    mut reload: Reload,
    config: &ReloadConfig,
) -> Option<ReloadSummary> {
    if reload.is_status_only() {
        return None;
    }
    let mut log = ReloadLog::new(session);
    log.say(
        TraceKind::Reload,
        format!("reload: {}", changed_files(&reload)),
    );
    reload_world(&mut log, &reload);
    report_files(&mut log, &reload);
    report_samples(&mut log, &reload);
    if let Some(project) = reload.project.take() {
        swap_in(&mut log, *project, &reload, config);
    }
    let ReloadLog { session, lines } = log;
    let summary = ReloadSummary {
        files: reload.files,
        lines,
        first_change: reload.first_change,
        ready_at: reload.ready_at,
        applied_at: Instant::now(),
        time: session.now(),
    };
    session.record(
        TraceKind::Reload,
        format!(
            "reload live {:.1} ms after the first change ({:.1} ms loading)",
            summary.latency().as_secs_f64() * 1e3,
            summary
                .ready_at
                .saturating_duration_since(summary.first_change)
                .as_secs_f64()
                * 1e3
        ),
    );
    Some(summary)
}

/// What changed, for the reload's first line.
fn changed_files(reload: &Reload) -> String {
    if reload.rescan {
        "everything read again (events were lost or a folder changed)".to_string()
    } else {
        let names: Vec<String> = reload
            .files
            .iter()
            .map(|f| f.display().to_string())
            .collect();
        format!("{} file(s) changed: {}", names.len(), names.join(", "))
    }
}

/// Reads the world again when one of its files changed (or everything was read again) —
/// unless the only change is the lot file this session saved itself.
fn reload_world(log: &mut ReloadLog<'_>, reload: &Reload) {
    let world_files: Vec<&PathBuf> = reload.files.iter().filter(|f| is_world_file(f)).collect();
    if world_files.is_empty() && !reload.rescan {
        return;
    }
    let world = &log.session.world;
    let lot = world.lot_file().map(Path::to_path_buf);
    let lot_touched = lot.is_some_and(|lot| world_files.iter().any(|f| same_file(f, &lot)));
    let our_save = world.lot_file_is_our_save();
    if lot_touched && world_files.len() == 1 && !reload.rescan && our_save {
        log.say(
            TraceKind::Reload,
            "the lot file changed because it was saved here: nothing to read back".into(),
        );
        return;
    }
    let lot_changed = lot_touched && !our_save;
    for line in log.session.reload_world(lot_changed) {
        let kind = if line.contains(": error:") {
            TraceKind::Error
        } else {
            TraceKind::Reload
        };
        log.say(kind, line);
    }
}

/// The project reload's report, and the errors of files whose last good version stays.
fn report_files(log: &mut ReloadLog<'_>, reload: &Reload) {
    for line in reload.report.lines() {
        log.say(TraceKind::Reload, line);
    }
    for kept in &reload.report.kept {
        for d in kept.diagnostics.iter().filter(|d| d.is_error()) {
            log.say(
                TraceKind::Error,
                format!(
                    "{d} (the last good version of {} stays in use)",
                    kept.path.display()
                ),
            );
        }
    }
}

/// What happened to each changed sample; remembered lengths are forgotten when sample
/// data changed.
fn report_samples(log: &mut ReloadLog<'_>, reload: &Reload) {
    if reload.samples.iter().any(SampleChange::changed_data) {
        log.session.forget_sample_lengths();
    }
    for change in &reload.samples {
        let kind = match change.outcome {
            SampleOutcome::Kept(_) | SampleOutcome::Failed(_) => TraceKind::Error,
            _ => TraceKind::Reload,
        };
        log.say(kind, change.describe());
    }
}

/// Swaps the reloaded project in, first saying how many other errors it has.
fn swap_in(log: &mut ReloadLog<'_>, project: Project, reload: &Reload, config: &ReloadConfig) {
    let new_errors = project
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .filter(|d| !reload.report.kept.iter().any(|k| k.diagnostics.contains(d)))
        .count();
    if new_errors > 0 {
        log.say(
            TraceKind::Error,
            format!("the project has {new_errors} other error(s) (the problems list shows them)"),
        );
    }
    let lines = swap_project(log.session, project, config.restart_tracks);
    log.lines.extend(lines);
}

/// True for the files the world director reads (`world.ini`, ambience scores, lot
/// files), which [`Session::reload_world`] applies.
fn is_world_file(path: &Path) -> bool {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    ext == "fsc"
        || ext == crate::world::lot::EXTENSION
        || path
            .file_name()
            .is_some_and(|n| n.eq_ignore_ascii_case(crate::world::settings::FILE_NAME))
}

/// True if two paths name the same file (compared canonically when both exist).
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

impl ReloadStatus {
    /// Applies `reload` to `session` and records what it did.
    pub fn apply(&mut self, session: &mut Session, reload: Reload, config: &ReloadConfig) {
        self.watch = reload.watch.clone();
        self.errors = reload.errors.clone();
        let project = reload.project.is_some();
        if let Some(summary) = session.apply_reload(reload, config) {
            self.applied += 1;
            self.last = Some(summary);
            if project {
                self.project = Some(Arc::new(session.engine.project().clone()));
            }
        }
    }
}
