//! Applying a loaded [`Reload`] on the engine thread: swap the project in, restart or
//! drop the tracks whose code was running, let the runtime measure reloaded samples
//! again, and trace every step (kind `reload`; file problems as `error`).

use super::Session;
use crate::host::reload::{
    Reload, ReloadConfig, ReloadStatus, ReloadSummary, SampleChange, WatchStatus,
};
use crate::runtime::trace::SampleOutcome;
use crate::runtime::trace::{ReloadEvent, RunningTrack};
use crate::runtime::{ActiveTrack, EventArgs};
use crate::toolchain::project::Project;
use crate::toolchain::project::resource_name;
use crate::world::ObjectId;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// What a reload did, one step at a time: each step is traced on the session and kept
/// for the [`ReloadSummary`].
struct ReloadLog<'s> {
    session: &'s mut Session,
    events: Vec<ReloadEvent>,
}

impl<'s> ReloadLog<'s> {
    fn new(session: &'s mut Session) -> Self {
        Self {
            session,
            events: Vec::new(),
        }
    }

    fn say(&mut self, what: ReloadEvent) {
        self.session.record(what.clone());
        self.events.push(what);
    }
}

/// A running track the new project still defines, to be started again.
struct Restart {
    track: ActiveTrack,
    /// Its event is still defined (else the track is started by ID).
    event_defined: bool,
}

/// A running track as the trace names it.
fn traced(track: &ActiveTrack) -> RunningTrack {
    RunningTrack {
        track: Arc::clone(&track.track_name),
        track_id: track.track,
        event: Arc::clone(&track.event),
        owners: track.owners.clone(),
    }
}

/// Swaps `project` into `session`'s engine. Voices already sounding keep the sample data
/// they hold. A running track plays on when the new project changes nothing it runs by
/// from what the engine has now — its code, its track's fields (a value tuned live and
/// then saved is no change), the patches, hit lists and event mappings
/// ([`crate::runtime::Engine::replace_project`]). Any other track whose code was
/// running cannot go on (its code may have moved): with `restart`, each one the new
/// project still defines is cut (its notes fade out at once, so the old and the new
/// version do not sound together) and starts again from the top for the same objects,
/// with default event arguments; without `restart`, or if the new project no longer
/// defines it, it stops and its current notes play out. Returns one event per track
/// restarted, stopped or dropped (also traced).
pub fn swap_project(session: &mut Session, project: Project, restart: bool) -> Vec<ReloadEvent> {
    let mut running: Vec<ActiveTrack> = session
        .engine
        .active_tracks()
        .into_iter()
        .filter(|t| !t.finished)
        .collect();
    session.server.warm_up(&project);
    let playing_on = session.engine.replace_project(project);
    running.retain(|t| !playing_on.contains(&t.track));
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
    log.events
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
        let what = if !event_defined && !track_defined {
            ReloadEvent::TrackDropped(traced(&track))
        } else if !restart {
            ReloadEvent::TrackStopped(traced(&track))
        } else {
            restarts.push(Restart {
                track,
                event_defined,
            });
            continue;
        };
        if stopped.insert(track.track) {
            log.session.engine.stop_track_id(track.track, false);
        }
        log.say(what);
    }
    restarts
}

/// Starts a stopped track again for each of its objects (once for a UI sound), with
/// default arguments; says whether it worked.
fn start_again(log: &mut ReloadLog<'_>, restart: Restart) {
    let Restart {
        track,
        event_defined,
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
    let what = match result {
        Some(Ok(outcome)) => ReloadEvent::TrackRestarted {
            track: traced(&track),
            outcome,
        },
        Some(Err(error)) => ReloadEvent::RestartFailed {
            track: traced(&track),
            error,
        },
        None => return,
    };
    log.say(what);
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
    log.say(ReloadEvent::Changed {
        files: reload.files.clone(),
        rescan: reload.rescan,
    });
    reload_world(&mut log, &reload);
    report_files(&mut log, &reload);
    report_samples(&mut log, &reload);
    if let Some(project) = reload.project.take() {
        swap_in(&mut log, *project, &reload, config);
    }
    let ReloadLog { session, events } = log;
    let summary = ReloadSummary {
        files: reload.files,
        events,
        first_change: reload.first_change,
        ready_at: reload.ready_at,
        applied_at: Instant::now(),
        time: session.now(),
    };
    session.record(ReloadEvent::Live {
        latency: summary.latency(),
        loading: summary
            .ready_at
            .saturating_duration_since(summary.first_change),
    });
    Some(summary)
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
        log.say(ReloadEvent::OwnLotSave);
        return;
    }
    let lot_changed = lot_touched && !our_save;
    for what in log.session.reload_world(lot_changed) {
        log.say(what);
    }
}

/// The project reload's report, and the errors of files whose last good version stays.
fn report_files(log: &mut ReloadLog<'_>, reload: &Reload) {
    for what in ReloadEvent::report(&reload.report) {
        log.say(what);
    }
    for kept in &reload.report.kept {
        for d in kept.diagnostics.iter().filter(|d| d.is_error()) {
            log.say(ReloadEvent::KeptError {
                problem: d.into(),
                file: kept.path.clone(),
            });
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
        log.say(change.event());
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
        log.say(ReloadEvent::OtherErrors { count: new_errors });
    }
    let events = swap_project(log.session, project, config.restart_tracks);
    log.events.extend(events);
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
        if !reload.noticed.is_empty() {
            self.noticed += 1;
        }
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

/// `reload`: reads the session's project again from its folders (each file matched with
/// the version in use, a broken one keeping its last good version) and applies it as a
/// hot reload that read everything again would — changed sample files read again into
/// the cache, the project swapped in (the tracks whose code was running restart), the
/// world read again. The reply says what changed.
pub(crate) fn reload_from_disk(session: &mut Session) -> String {
    let (project, report) = session.engine.project().reload();
    let cache = Arc::clone(session.server.cache());
    let mut samples = Vec::new();
    for path in report.samples.all() {
        let Some(name) = resource_name(path, &project.dirs) else {
            continue;
        };
        let pack = path.is_file()
            && project
                .dirs
                .iter()
                .any(|d| path.parent() == Some(d.as_path()))
            && path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("zip"));
        if pack {
            // A new or replaced pack is mounted (again): its sounds are served from now.
            let outcome = match cache.add_zip(path) {
                Ok(_) => SampleOutcome::Added,
                Err(e) => SampleOutcome::Failed(e.to_string()),
            };
            samples.push(SampleChange {
                path: path.clone(),
                name: Some(name),
                outcome,
            });
            continue;
        }
        let outcome = if !path.is_file() {
            cache.evict(&name);
            SampleOutcome::Removed
        } else if cache.names(&name).is_empty() {
            let dir = project.dirs.iter().rev().find(|d| path.starts_with(d));
            match dir.map(|d| cache.add_directory(d)) {
                Some(Ok(_)) => SampleOutcome::Added,
                Some(Err(e)) => SampleOutcome::Failed(e.to_string()),
                None => continue,
            }
        } else {
            match cache.reload(&name) {
                Ok(_) => SampleOutcome::Reloaded,
                Err(e) => SampleOutcome::Failed(e.to_string()),
            }
        };
        samples.push(SampleChange {
            path: path.clone(),
            name: Some(name),
            outcome,
        });
    }
    let changed = report.sources.all().count() + report.tables.all().count() + samples.len();
    let kept = report.kept.len();
    let now = Instant::now();
    let reload = Reload {
        files: Vec::new(),
        rescan: true,
        project: Some(Box::new(project)),
        report,
        samples,
        errors: Vec::new(),
        watch: WatchStatus::default(),
        noticed: Vec::new(),
        first_change: now,
        ready_at: now,
    };
    let restarted = apply(session, reload, &ReloadConfig::default()).map_or(0, |summary| {
        summary
            .events
            .iter()
            .filter(|e| matches!(e, ReloadEvent::TrackRestarted { .. }))
            .count()
    });
    format!(
        "read the project again: {changed} file(s) changed{}, {restarted} track(s) restarted",
        match kept {
            0 => String::new(),
            n => format!(", {n} broken (their last good version stays in use)"),
        }
    )
}
