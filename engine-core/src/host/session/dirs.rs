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
use std::path::{Path, PathBuf};
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

impl Session {
    /// `plugin add|remove <folder>`: the project with the folder added last (it overrides
    /// the project and the plug-ins before it) or taken out, loaded, and what to say of
    /// it — for the caller to swap in ([`replace_project`]). The folder is the project
    /// folder's when relative, and must lie inside it: a script shared between testers
    /// loads only what the project holds (the workbench's File → Add plug-in folder, which
    /// the user chooses, takes any folder).
    pub fn plugin_project(&self, add: bool, dir: &Path) -> Result<(Project, String), String> {
        let project = self.engine.project();
        let root = project.root().to_path_buf();
        let given = root.join(dir);
        let verb = if add { "add" } else { "remove" };
        let real = given
            .canonicalize()
            .map_err(|e| format!("cannot {verb} plug-in folder {}: {e}", given.display()))?;
        if !real.is_dir() {
            return Err(format!("{} is not a folder", given.display()));
        }
        let real_root = root.canonicalize().unwrap_or_else(|_| root.clone());
        if real == real_root {
            return Err(format!("{} is the project itself", given.display()));
        }
        if !real.starts_with(&real_root) {
            return Err(format!(
                "{} is outside the project's folder {}: a plug-in folder a command loads lies \
                 inside it (File → Add plug-in folder takes any folder)",
                given.display(),
                real_root.display()
            ));
        }
        let real_of = |d: &PathBuf| d.canonicalize().unwrap_or_else(|_| d.clone());
        let mut dirs = project.dirs.clone();
        let at = dirs.iter().skip(1).position(|d| real_of(d) == real);
        match (add, at) {
            (true, Some(_)) => {
                return Err(format!("{} is a plug-in folder already", given.display()));
            }
            (true, None) => dirs.push(real),
            (false, Some(index)) => {
                dirs.remove(index + 1);
            }
            (false, None) => {
                return Err(format!("{} is not a plug-in folder", given.display()));
            }
        }
        let project = Project::load_dirs(&dirs);
        let said = format!(
            "{} plug-in folder {}: {} definition(s) overridden, {} problem(s)",
            if add { "added" } else { "removed" },
            given.display(),
            project.overrides.len(),
            project.diagnostics.len()
        );
        Ok((project, said))
    }
}
