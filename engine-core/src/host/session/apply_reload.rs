//! Applying a loaded [`Reload`] on the engine thread: swap the project in, restart or
//! drop the tracks whose code was running, let the runtime measure reloaded samples
//! again, and trace every step (kind `reload`; file problems as `error`).

use super::Session;
use crate::host::reload::{Reload, ReloadConfig, ReloadStatus, ReloadSummary};
use crate::runtime::{EventArgs, TraceKind};
use crate::toolchain::project::Project;
use crate::world::ObjectId;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

/// Swaps `project` into `session`'s engine. Voices already sounding keep the sample data
/// they hold. Tracks whose code was running cannot go on (the engine rebuilds its
/// program, so their code may have moved): with `restart`, each one the new project
/// still defines is cut (its notes fade out at once, so the old and the new version do
/// not sound together) and starts again from the top for the same objects, with default
/// event arguments; without `restart`, or if the new project no longer defines it, it
/// stops and its current notes play out. Returns one sentence per track restarted,
/// stopped or dropped (also traced).
pub fn swap_project(session: &mut Session, project: Project, restart: bool) -> Vec<String> {
    let running: Vec<_> = session
        .engine
        .active_tracks()
        .into_iter()
        .filter(|t| !t.finished)
        .collect();
    session.server.warm_up(&project);
    session.engine.replace_project(project);
    let mut lines = Vec::new();
    let mut restarts = Vec::new();
    let mut stopped = BTreeSet::new();
    for track in running {
        let new = session.engine.project();
        let event_defined = new.event(&track.event).is_some();
        let track_defined = new.track(track.track).is_some();
        let owners = if track.owners.is_empty() {
            String::new()
        } else {
            let list: Vec<String> = track.owners.iter().map(ToString::to_string).collect();
            format!(" for object(s) {}", list.join(", "))
        };
        let line = if !event_defined && !track_defined {
            if stopped.insert(track.track) {
                session.engine.stop_track_id(track.track, false);
            }
            format!(
                "track `{}` (event `{}`{owners}) dropped: the new version does not define it; its current notes play out",
                track.track_name, track.event
            )
        } else if !restart {
            if stopped.insert(track.track) {
                session.engine.stop_track_id(track.track, false);
            }
            format!(
                "track `{}` (event `{}`{owners}) stopped by the reload: its current notes play out; trigger it again to hear the new version",
                track.track_name, track.event
            )
        } else {
            restarts.push((track, event_defined, owners));
            continue;
        };
        session.record(TraceKind::Reload, line.clone());
        lines.push(line);
    }
    // Stop every copy first, so a restarted copy is not stopped again by the next one.
    for (track, _, _) in &restarts {
        if stopped.insert(track.track) {
            session.engine.stop_track_id(track.track, true);
        }
    }
    for (track, event_defined, owners) in restarts {
        let mut result = Err(String::new());
        let sources: Vec<Option<ObjectId>> = if track.owners.is_empty() {
            vec![None]
        } else {
            track.owners.iter().copied().map(Some).collect()
        };
        for source in sources {
            let outcome = if event_defined {
                session
                    .engine
                    .trigger(&track.event, source, EventArgs::default())
            } else {
                session
                    .engine
                    .play_track(track.track, source, EventArgs::default())
            };
            if result.is_err() {
                result = outcome.map_err(|e| e.to_string());
            }
        }
        let (kind, line) = match result {
            Ok(outcome) => (
                TraceKind::Reload,
                format!(
                    "track `{}` (event `{}`{owners}) restarted with the new version (default arguments): {outcome}",
                    track.track_name, track.event
                ),
            ),
            Err(why) => (
                TraceKind::Error,
                format!(
                    "track `{}` (event `{}`{owners}) dropped: restarting it failed: {why}",
                    track.track_name, track.event
                ),
            ),
        };
        session.record(kind, line.clone());
        lines.push(line);
    }
    lines
}

/// Applies `reload` to `session`; `None` if it only carried the watcher's state.
pub(crate) fn apply(
    session: &mut Session,
    reload: Reload,
    config: &ReloadConfig,
) -> Option<ReloadSummary> {
    if reload.is_status_only() {
        return None;
    }
    let mut lines = Vec::new();
    let say = |session: &mut Session, lines: &mut Vec<String>, kind: TraceKind, line: String| {
        session.record(kind, line.clone());
        lines.push(line);
    };
    let files = if reload.rescan {
        "everything read again (events were lost or a folder changed)".to_string()
    } else {
        let names: Vec<String> = reload
            .files
            .iter()
            .map(|f| f.display().to_string())
            .collect();
        format!("{} file(s) changed: {}", names.len(), names.join(", "))
    };
    say(
        session,
        &mut lines,
        TraceKind::Reload,
        format!("reload: {files}"),
    );
    let world_files: Vec<&std::path::PathBuf> =
        reload.files.iter().filter(|f| is_world_file(f)).collect();
    if !world_files.is_empty() || reload.rescan {
        let lot = session.world.lot_file().map(Path::to_path_buf);
        let lot_touched = lot.is_some_and(|lot| world_files.iter().any(|f| same_file(f, &lot)));
        let only_our_save = lot_touched
            && world_files.len() == 1
            && !reload.rescan
            && session.world.lot_file_is_our_save();
        if only_our_save {
            say(
                session,
                &mut lines,
                TraceKind::Reload,
                "the lot file changed because it was saved here: nothing to read back".into(),
            );
        }
        let lot_changed = lot_touched && !session.world.lot_file_is_our_save();
        let world_lines = if only_our_save {
            Vec::new()
        } else {
            session.reload_world(lot_changed)
        };
        for line in world_lines {
            let kind = if line.contains(": error:") {
                TraceKind::Error
            } else {
                TraceKind::Reload
            };
            say(session, &mut lines, kind, line);
        }
    }
    for line in reload.report.lines() {
        say(session, &mut lines, TraceKind::Reload, line);
    }
    for kept in &reload.report.kept {
        for d in kept.diagnostics.iter().filter(|d| d.is_error()) {
            say(
                session,
                &mut lines,
                TraceKind::Error,
                format!(
                    "{d} (the last good version of {} stays in use)",
                    kept.path.display()
                ),
            );
        }
    }
    if reload
        .samples
        .iter()
        .any(crate::host::reload::SampleChange::changed_data)
    {
        session.forget_sample_lengths();
    }
    for change in &reload.samples {
        let kind = match change.outcome {
            crate::host::reload::SampleOutcome::Kept(_)
            | crate::host::reload::SampleOutcome::Failed(_) => TraceKind::Error,
            _ => TraceKind::Reload,
        };
        say(session, &mut lines, kind, change.describe());
    }
    if let Some(project) = reload.project {
        let new_errors = project
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .filter(|d| !reload.report.kept.iter().any(|k| k.diagnostics.contains(d)))
            .count();
        if new_errors > 0 {
            say(
                session,
                &mut lines,
                TraceKind::Error,
                format!(
                    "the project has {new_errors} other error(s) (the problems list shows them)"
                ),
            );
        }
        lines.extend(swap_project(session, *project, config.restart_tracks));
    }
    let applied_at = Instant::now();
    let summary = ReloadSummary {
        files: reload.files,
        lines,
        first_change: reload.first_change,
        ready_at: reload.ready_at,
        applied_at,
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
