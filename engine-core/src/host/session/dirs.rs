//! Data directories added or removed while a session plays — a plug-in folder, as the
//! game's download directories were: the resource cache starts (or stops) serving the
//! folder and its zip packs, the project with (or without) it is swapped in like a hot
//! reload (tracks whose code changed restart, the others play on), and the world is read
//! again (a plug-in may bring its own `world.ini`). No engine restart: the audio, the
//! voices, the lot and the trace go on.

use super::Session;
use super::apply_reload::swap_project;
use crate::runtime::trace::ReloadEvent;
use crate::toolchain::project::Project;
use crate::toolchain::project::packs::packs_in;
use std::sync::Arc;

/// Replaces the session's project with `project` (a reload, or the same project with a
/// data directory more or less); returns what happened, one event each, and records it.
pub fn replace_project(session: &mut Session, project: Project, restart: bool) -> Vec<ReloadEvent> {
    let old_dirs = session.engine.project().dirs.clone();
    let new_dirs = project.dirs.clone();
    let mut events = vec![ReloadEvent::ProjectReplaced {
        dirs: new_dirs.len(),
        problems: project.diagnostics.len(),
    }];
    let cache = Arc::clone(session.server.cache());
    for dir in old_dirs.iter().filter(|d| !new_dirs.contains(d)) {
        cache.remove_directory(dir);
        events.push(ReloadEvent::DirRemoved { dir: dir.clone() });
    }
    for dir in new_dirs.iter().filter(|d| !old_dirs.contains(d)) {
        // Packs first: the folder's loose files, searched before them, win.
        let mut resources = 0;
        let mut failed = None;
        for pack in packs_in(dir) {
            match cache.add_zip(&pack) {
                Ok(info) => resources += info.resources,
                Err(e) => failed = Some(e.to_string()),
            }
        }
        match cache.add_directory(dir) {
            Ok(info) => resources += info.resources,
            Err(e) => failed = Some(e.to_string()),
        }
        events.push(match failed {
            Some(reason) => ReloadEvent::DirFailed {
                dir: dir.clone(),
                reason,
            },
            None => ReloadEvent::DirAdded {
                dir: dir.clone(),
                resources,
            },
        });
    }
    for event in &events {
        session.record(event.clone());
    }
    let swapped = swap_project(session, project, restart);
    events.extend(swapped);
    if old_dirs != new_dirs {
        for event in session.reload_world(false) {
            session.record(event.clone());
            events.push(event);
        }
    }
    events
}
