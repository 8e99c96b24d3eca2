//! A project: a data directory whose MakeTrax sources are assembled on load.
//!
//! Every `*.src` file under the directory is a source; files that another source
//! `INCLUDE`s are part of that unit rather than units of their own. Loading never fails:
//! a missing directory or a broken file becomes a diagnostic and the rest still loads.

use crate::asm::{self, AsmOptions, Assembly, DiskFiles};
use crate::diag::{self, Diagnostic};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// File extension of MakeTrax sources.
pub const SOURCE_EXTENSION: &str = "src";

/// One assembled source file (with everything it includes).
#[derive(Debug, Clone)]
pub struct Unit {
    /// The source file that was assembled.
    pub source: PathBuf,
    /// The result.
    pub assembly: Assembly,
}

/// A loaded project.
#[derive(Debug, Clone, Default)]
pub struct Project {
    /// The data directory.
    pub root: PathBuf,
    /// Assembled sources, in path order.
    pub units: Vec<Unit>,
    /// Problems that belong to no unit (unreadable directories).
    pub diagnostics: Vec<Diagnostic>,
}

impl Project {
    /// Loads the project in `root`.
    pub fn load(root: &Path) -> Self {
        let mut project = Project {
            root: root.to_path_buf(),
            ..Self::default()
        };
        let mut sources = Vec::new();
        if root.is_dir() {
            find_sources(root, &mut sources, &mut project.diagnostics);
        } else {
            project.diagnostics.push(Diagnostic::error(
                root,
                0,
                0,
                "project folder not found (or not a folder)",
            ));
        }
        sources.sort();
        let options = AsmOptions::default();
        let assembled: Vec<Unit> = sources
            .into_iter()
            .map(|source| Unit {
                assembly: asm::assemble(&source, &options, &DiskFiles),
                source,
            })
            .collect();
        let included: HashSet<PathBuf> = assembled
            .iter()
            .flat_map(|u| u.assembly.sources.iter().skip(1).cloned())
            .collect();
        project.units = assembled
            .into_iter()
            .filter(|u| !included.contains(&u.source))
            .collect();
        project
    }

    /// Every diagnostic of the project: its own, then each unit's.
    pub fn all_diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .chain(self.units.iter().flat_map(|u| &u.assembly.diagnostics))
    }

    /// True if anything failed to load.
    pub fn has_errors(&self) -> bool {
        diag::has_errors(&self.diagnostics) || self.units.iter().any(|u| u.assembly.has_errors())
    }
}

fn find_sources(dir: &Path, out: &mut Vec<PathBuf>, diagnostics: &mut Vec<Diagnostic>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            diagnostics.push(Diagnostic::error(
                dir,
                0,
                0,
                format!("cannot read folder: {e}"),
            ));
            return;
        }
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => find_sources(&path, out, diagnostics),
            Ok(kind)
                if kind.is_file()
                    && path
                        .extension()
                        .is_some_and(|e| e.eq_ignore_ascii_case(SOURCE_EXTENSION)) =>
            {
                out.push(path);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_examples_load_as_one_unit() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/seed-examples");
        let project = Project::load(&root);
        assert!(
            !project.has_errors(),
            "{:#?}",
            project.all_diagnostics().collect::<Vec<_>>()
        );
        let names: Vec<_> = project
            .units
            .iter()
            .map(|u| {
                u.source
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert_eq!(names, ["seed_tracks.src"]);
    }

    #[test]
    fn missing_folder_is_a_diagnostic() {
        let project = Project::load(Path::new("/no/such/hitbench/project"));
        assert!(project.has_errors());
        assert!(project.units.is_empty());
        let first = project.all_diagnostics().next().map(|d| d.message.clone());
        assert_eq!(
            first.as_deref(),
            Some("project folder not found (or not a folder)")
        );
    }
}
