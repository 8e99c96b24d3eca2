//! [`ReloadEvent`]: what a hot reload did — the files that changed, what was read again
//! or swapped in, the running tracks restarted, stopped or dropped, and the errors with
//! their files — as data. The session (in `host`) converts its own types into these
//! plain ones; `Display` gives the sentence the trace has always printed.

use crate::runtime::objects::ObjectId;
use crate::runtime::outcome::{Outcome, TriggerError};
use crate::runtime::trace::TraceKind;
use crate::runtime::trace::problem::FileProblem;
use crate::toolchain::project::{Changes, PieceKind, ReloadReport};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// What a changed file is to the project.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FileRole {
    /// A source or a built set.
    Source,
    /// A `.hot` or `.evt` table file.
    Tables,
    /// A sample file.
    Sample,
}

impl FileRole {
    /// The word the trace uses.
    pub fn word(self) -> &'static str {
        match self {
            FileRole::Source => "source",
            FileRole::Tables => "tables",
            FileRole::Sample => "sample",
        }
    }
}

/// How a file changed since the previous load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FileChange {
    /// It is new.
    Added,
    /// Its size or modification time changed.
    Changed,
    /// It is gone.
    Removed,
}

impl FileChange {
    /// The word the trace uses.
    pub fn word(self) -> &'static str {
        match self {
            FileChange::Added => "added",
            FileChange::Changed => "changed",
            FileChange::Removed => "removed",
        }
    }
}

/// What happened to a changed sample file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum SampleOutcome {
    /// The cache holds the new data; the next play uses it.
    Reloaded,
    /// A new file; the cache now serves it.
    Added,
    /// The file is gone; the cache let go of it.
    Removed,
    /// The new file does not load (why); the last good version stays in use.
    Kept(String),
    /// The new file does not load (why) and no earlier version is in memory.
    Failed(String),
    /// Not a sample the cache serves (why).
    Ignored(String),
}

/// A track that was running when new code was swapped in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunningTrack {
    /// Its name.
    #[serde(with = "crate::runtime::trace::names")]
    pub track: Arc<str>,
    /// Its ID.
    pub track_id: u32,
    /// The event that started it.
    #[serde(with = "crate::runtime::trace::names")]
    pub event: Arc<str>,
    /// The objects saying it (none: a UI sound).
    pub owners: Vec<ObjectId>,
}

impl fmt::Display for RunningTrack {
    /// ``track `tv_loop` (event `tv_on` for object(s) 4, 5)``.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "track `{}` (event `{}`", self.track, self.event)?;
        if !self.owners.is_empty() {
            let owners: Vec<String> = self.owners.iter().map(ToString::to_string).collect();
            write!(f, " for object(s) {}", owners.join(", "))?;
        }
        f.write_str(")")
    }
}

/// One step of a hot reload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReloadEvent {
    /// A reload begins: which files changed.
    Changed {
        /// The files the watcher reported (empty when everything was read again).
        files: Vec<PathBuf>,
        /// Everything was read again (events were lost or a folder changed).
        rescan: bool,
    },
    /// The lot file changed only because this session saved it: nothing to read back.
    OwnLotSave,
    /// The lot was read again: its objects replace the old ones.
    LotReadAgain {
        /// Objects on the new lot.
        objects: usize,
    },
    /// `world.ini` and the ambience score were read again; the world restarts.
    WorldReadAgain,
    /// A problem of a world file read again.
    WorldProblem(FileProblem),
    /// A file of the project was added, changed or removed.
    File {
        /// What it is.
        role: FileRole,
        /// The file.
        path: PathBuf,
        /// How it changed.
        change: FileChange,
    },
    /// A file whose new version has errors: its last good version is kept.
    KeptLastGood {
        /// What it is.
        kind: PieceKind,
        /// The file.
        path: PathBuf,
    },
    /// An error of a file whose last good version stays in use.
    KeptError {
        /// The error.
        problem: FileProblem,
        /// The file kept.
        file: PathBuf,
    },
    /// A changed sample file, and what happened to it.
    Sample {
        /// Its name in the resource cache (else its path).
        name: String,
        /// What happened.
        outcome: SampleOutcome,
    },
    /// The new project has errors besides those of kept files.
    OtherErrors {
        /// How many.
        count: usize,
    },
    /// A running track the new version no longer defines: stopped, its notes play out.
    TrackDropped(RunningTrack),
    /// A running track stopped by the reload (restarting is off): its notes play out.
    TrackStopped(RunningTrack),
    /// A running track started again with the new version.
    TrackRestarted {
        /// The track.
        track: RunningTrack,
        /// What starting it did.
        outcome: Outcome,
    },
    /// A running track could not be started again: it is dropped.
    RestartFailed {
        /// The track.
        track: RunningTrack,
        /// Why.
        error: TriggerError,
    },
    /// The reload is live.
    Live {
        /// From the first change seen to live.
        latency: Duration,
        /// From the first change seen to loaded.
        loading: Duration,
    },
    /// A new project replaced the running one (a directory added).
    ProjectReplaced {
        /// Its data directories.
        dirs: usize,
        /// Problems found loading it.
        problems: usize,
    },
    /// A data directory (a plug-in folder) now loads with the project: its files and
    /// packs are served, its definitions override.
    DirAdded {
        /// The directory.
        dir: PathBuf,
        /// Files the resource cache serves from it (loose and in packs).
        resources: usize,
    },
    /// A data directory no longer loads with the project.
    DirRemoved {
        /// The directory.
        dir: PathBuf,
    },
    /// A data directory could not be served.
    DirFailed {
        /// The directory.
        dir: PathBuf,
        /// Why.
        reason: String,
    },
}

impl ReloadEvent {
    /// The kind of record it makes: `error` for errors (kept files, samples that do not
    /// load, failed restarts), `reload` for the rest.
    pub fn kind(&self) -> TraceKind {
        let error = match self {
            ReloadEvent::WorldProblem(problem) => problem.error,
            ReloadEvent::KeptError { .. }
            | ReloadEvent::OtherErrors { .. }
            | ReloadEvent::RestartFailed { .. } => true,
            ReloadEvent::Sample { outcome, .. } => {
                matches!(outcome, SampleOutcome::Kept(_) | SampleOutcome::Failed(_))
            }
            ReloadEvent::Changed { .. }
            | ReloadEvent::OwnLotSave
            | ReloadEvent::LotReadAgain { .. }
            | ReloadEvent::WorldReadAgain
            | ReloadEvent::File { .. }
            | ReloadEvent::KeptLastGood { .. }
            | ReloadEvent::TrackDropped(_)
            | ReloadEvent::TrackStopped(_)
            | ReloadEvent::TrackRestarted { .. }
            | ReloadEvent::Live { .. }
            | ReloadEvent::ProjectReplaced { .. }
            | ReloadEvent::DirAdded { .. }
            | ReloadEvent::DirRemoved { .. } => false,
            ReloadEvent::DirFailed { .. } => true,
        };
        if error {
            TraceKind::Error
        } else {
            TraceKind::Reload
        }
    }

    /// What a project reload found, one event per change: sources, tables and samples
    /// added, changed or removed, then the files kept at their last good version.
    pub fn report(report: &ReloadReport) -> Vec<ReloadEvent> {
        let mut out = Vec::new();
        for (role, changes) in [
            (FileRole::Source, &report.sources),
            (FileRole::Tables, &report.tables),
            (FileRole::Sample, &report.samples),
        ] {
            file_changes(role, changes, &mut out);
        }
        for kept in &report.kept {
            out.push(ReloadEvent::KeptLastGood {
                kind: kept.kind,
                path: kept.path.clone(),
            });
        }
        out
    }
}

/// The changes of one role, added then changed then removed.
fn file_changes(role: FileRole, changes: &Changes, out: &mut Vec<ReloadEvent>) {
    for (list, change) in [
        (&changes.added, FileChange::Added),
        (&changes.changed, FileChange::Changed),
        (&changes.removed, FileChange::Removed),
    ] {
        for path in list {
            out.push(ReloadEvent::File {
                role,
                path: path.clone(),
                change,
            });
        }
    }
}

impl fmt::Display for ReloadEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ReloadEvent as R;
        match self {
            R::Changed { rescan: true, .. } => {
                f.write_str("reload: everything read again (events were lost or a folder changed)")
            }
            R::Changed { files, .. } => {
                let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
                write!(
                    f,
                    "reload: {} file(s) changed: {}",
                    names.len(),
                    names.join(", ")
                )
            }
            R::OwnLotSave => f.write_str(
                "the lot file changed because it was saved here: nothing to read back",
            ),
            R::LotReadAgain { objects } => {
                write!(f, "world: the lot was read again ({objects} object(s))")
            }
            R::WorldReadAgain => f.write_str(
                "world: world.ini and the ambience score read again; stations, music and ambience restart",
            ),
            R::WorldProblem(problem) => write!(f, "{problem}"),
            R::File { role, path, change } => {
                write!(f, "{} {} {}", role.word(), path.display(), change.word())
            }
            R::KeptLastGood { kind, path } => write!(
                f,
                "{} {} has errors: its last good version is kept",
                kind.name(),
                path.display()
            ),
            R::KeptError { problem, file } => write!(
                f,
                "{problem} (the last good version of {} stays in use)",
                file.display()
            ),
            R::Sample { name, outcome } => fmt_sample(f, name, outcome),
            R::OtherErrors { count } => write!(
                f,
                "the project has {count} other error(s) (the problems list shows them)"
            ),
            R::TrackDropped(track) => write!(
                f,
                "{track} dropped: the new version does not define it; its current notes play out"
            ),
            R::TrackStopped(track) => write!(
                f,
                "{track} stopped by the reload: its current notes play out; trigger it again to hear the new version"
            ),
            R::TrackRestarted { track, outcome } => write!(
                f,
                "{track} restarted with the new version (default arguments): {outcome}"
            ),
            R::RestartFailed { track, error } => {
                write!(f, "{track} dropped: restarting it failed: {error}")
            }
            R::Live { latency, loading } => write!(
                f,
                "reload live {:.1} ms after the first change ({:.1} ms loading)",
                latency.as_secs_f64() * 1e3,
                loading.as_secs_f64() * 1e3
            ),
            R::ProjectReplaced { dirs, problems } => write!(
                f,
                "project replaced: {dirs} data director(ies), {problems} problem(s)"
            ),
            R::DirAdded { dir, resources } => write!(
                f,
                "data directory {} added: {resources} file(s) served from it",
                dir.display()
            ),
            R::DirRemoved { dir } => {
                write!(f, "data directory {} removed", dir.display())
            }
            R::DirFailed { dir, reason } => {
                write!(f, "data directory {} not served: {reason}", dir.display())
            }
        }
    }
}

/// A changed sample's sentence.
fn fmt_sample(f: &mut fmt::Formatter<'_>, name: &str, outcome: &SampleOutcome) -> fmt::Result {
    match outcome {
        SampleOutcome::Reloaded => write!(
            f,
            "sample `{name}` reloaded: the next play uses the new data, voices playing keep the old"
        ),
        SampleOutcome::Added => write!(f, "sample `{name}` added"),
        SampleOutcome::Removed => write!(f, "sample `{name}` removed"),
        SampleOutcome::Kept(why) => {
            write!(
                f,
                "sample `{name}`: {why}; its last good version stays in use"
            )
        }
        SampleOutcome::Failed(why) => {
            write!(
                f,
                "sample `{name}`: {why}; there is no earlier version to keep"
            )
        }
        SampleOutcome::Ignored(why) => write!(f, "sample `{name}` not reloaded: {why}"),
    }
}
