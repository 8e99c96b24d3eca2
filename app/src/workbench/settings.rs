//! What the workbench remembers between runs: the open project, recent projects, each
//! project's plug-in directories and the panel layout, as one JSON file in the configuration directory
//! (`$HITBENCH_CONFIG_DIR`, else `$XDG_CONFIG_HOME/hitbench`, else
//! `~/.config/hitbench`).
//!
//! A missing file is a first run; a damaged one is reported once (and kept beside as
//! `workbench.json.bad`) and the defaults are used — a bad settings file never stops the
//! window from opening.

use super::dock::Pane;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The settings file's name in the configuration directory.
pub const FILE_NAME: &str = "workbench.json";

/// How many recent projects are kept.
pub const RECENT_LIMIT: usize = 10;

/// What the workbench keeps of a project besides its plug-ins, like the layout: the
/// mixer's volumes and which engine traces are on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ProjectState {
    /// The master volume.
    pub master: f32,
    /// FX, Music and VOX volumes.
    pub groups: [f32; 3],
    /// Events, samples and tracks traces on.
    pub traces: [bool; 3],
}

/// The remembered state.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Settings {
    /// The project open when the window closed.
    #[serde(default)]
    pub project: Option<PathBuf>,
    /// Projects opened, most recent first.
    #[serde(default)]
    pub recent: Vec<PathBuf>,
    /// The panel layout.
    #[serde(default)]
    pub layout: Option<egui_tiles::Tree<Pane>>,
    /// Each project's plug-in directories (by the project's folder), loaded after it in
    /// this order: later ones override earlier ones.
    #[serde(default)]
    pub plugins: BTreeMap<PathBuf, Vec<PathBuf>>,
    /// Each project's monitoring state as it was left: the mixer's volumes and the
    /// engine traces switched on.
    #[serde(default)]
    pub projects: BTreeMap<PathBuf, ProjectState>,
}

impl Settings {
    /// Reads the settings from `dir`. A problem (unreadable or damaged file) comes back
    /// as a sentence with the defaults.
    pub fn load(dir: &Path) -> (Self, Option<String>) {
        let path = dir.join(FILE_NAME);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return (Self::default(), None);
            }
            Err(e) => {
                return (
                    Self::default(),
                    Some(format!(
                        "cannot read {}: {e}; using the default layout",
                        path.display()
                    )),
                );
            }
        };
        match serde_json::from_str(&text) {
            Ok(settings) => (settings, None),
            Err(e) => {
                let bad = path.with_extension("json.bad");
                let kept = std::fs::rename(&path, &bad).is_ok();
                (
                    Self::default(),
                    Some(format!(
                        "{}:{}:{}: damaged settings ({e}); using the defaults{}",
                        path.display(),
                        e.line(),
                        e.column(),
                        if kept {
                            format!(", the old file is kept as {}", bad.display())
                        } else {
                            String::new()
                        }
                    )),
                )
            }
        }
    }

    /// Writes the settings to `dir` (created if needed) under the output rule
    /// (`fsrules::output`: through a temporary file, so a crash never leaves half a file,
    /// and never over a pipe or device).
    pub fn save(&self, dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        engine_core::toolchain::fsrules::write_output(&dir.join(FILE_NAME), &[], text.as_bytes())
            .map_err(|e| e.into_io())
    }

    /// Notes that `project` was opened: it becomes the current project and the first of
    /// the recent ones.
    pub fn opened(&mut self, project: &Path) {
        let project = project
            .canonicalize()
            .unwrap_or_else(|_| project.to_path_buf());
        self.recent.retain(|p| p != &project);
        self.recent.insert(0, project.clone());
        self.recent.truncate(RECENT_LIMIT);
        self.project = Some(project);
    }

    /// The data directories of the project in `root`: `root`, then its plug-in
    /// directories.
    pub fn project_dirs(&self, root: &Path) -> Vec<PathBuf> {
        std::iter::once(root.to_path_buf())
            .chain(self.plugins.get(root).into_iter().flatten().cloned())
            .collect()
    }

    /// Adds `dir` as the last plug-in directory of the project in `root`; false if it
    /// already is one.
    pub fn add_plugin(&mut self, root: &Path, dir: &Path) -> bool {
        let list = self.plugins.entry(root.to_path_buf()).or_default();
        if list.iter().any(|d| d == dir) {
            return false;
        }
        list.push(dir.to_path_buf());
        true
    }

    /// Removes `dir` from the plug-in directories of the project in `root`; false if it
    /// was not one.
    pub fn remove_plugin(&mut self, root: &Path, dir: &Path) -> bool {
        let Some(list) = self.plugins.get_mut(root) else {
            return false;
        };
        let before = list.len();
        list.retain(|d| d != dir);
        let removed = list.len() != before;
        if list.is_empty() {
            self.plugins.remove(root);
        }
        removed
    }
}

/// The configuration directory: `$HITBENCH_CONFIG_DIR`, else `$XDG_CONFIG_HOME/hitbench`,
/// else `$HOME/.config/hitbench`; `None` if none can be found.
pub fn config_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    var("HITBENCH_CONFIG_DIR")
        .map(PathBuf::from)
        .or_else(|| var("XDG_CONFIG_HOME").map(|d| PathBuf::from(d).join("hitbench")))
        .or_else(|| var("HOME").map(|d| PathBuf::from(d).join(".config/hitbench")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(tag: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("hitbench-settings-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn settings_survive_a_round_trip_with_the_layout() {
        let dir = temp("round");
        let mut settings = Settings::default();
        settings.opened(Path::new("/no/such/project"));
        settings.opened(Path::new("/another"));
        settings.opened(Path::new("/no/such/project"));
        settings.layout = Some(super::super::dock::default_layout());
        assert!(settings.add_plugin(Path::new("/p"), Path::new("/p-extra")));
        assert!(!settings.add_plugin(Path::new("/p"), Path::new("/p-extra")));
        settings.save(&dir).unwrap();
        let (back, problem) = Settings::load(&dir);
        assert!(problem.is_none(), "{problem:?}");
        assert_eq!(back.project, Some(PathBuf::from("/no/such/project")));
        assert_eq!(
            back.recent,
            [PathBuf::from("/no/such/project"), PathBuf::from("/another")]
        );
        assert_eq!(
            back.project_dirs(Path::new("/p")),
            [PathBuf::from("/p"), PathBuf::from("/p-extra")]
        );
        let mut back = back;
        assert!(back.remove_plugin(Path::new("/p"), Path::new("/p-extra")));
        assert!(back.plugins.is_empty());
        let panes = |tree: &egui_tiles::Tree<Pane>| {
            let mut panes: Vec<Pane> = tree
                .tiles
                .tiles()
                .filter_map(|t| match t {
                    egui_tiles::Tile::Pane(p) => Some(*p),
                    egui_tiles::Tile::Container(_) => None,
                })
                .collect();
            panes.sort();
            panes
        };
        assert_eq!(
            panes(back.layout.as_ref().unwrap()),
            panes(&super::super::dock::default_layout())
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_damaged_file_gives_defaults_and_says_where() {
        let dir = temp("bad");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(FILE_NAME), "{ \"project\": 12,\n oops").unwrap();
        let (settings, problem) = Settings::load(&dir);
        assert!(settings.project.is_none());
        let problem = problem.unwrap();
        assert!(problem.contains("workbench.json:"), "{problem}");
        assert!(dir.join("workbench.json.bad").is_file());
        let (_, again) = Settings::load(&dir);
        assert!(again.is_none(), "the bad file was moved aside");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
