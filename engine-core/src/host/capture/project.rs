//! The project folders a capture was made on: written as found (absolute, links
//! resolved), so a replay from any working folder finds them; found again for a replay
//! and checked against the files the capture lists before anything is walked, so the
//! folders a header names never decide alone what is read.

use super::{Capture, CaptureError};
use crate::toolchain::fsrules;
use std::path::{Component, Path, PathBuf};

/// `dirs` as a capture's header stores them: canonical where they exist, else absolute
/// by name.
pub fn stored_dirs(dirs: &[PathBuf]) -> Vec<PathBuf> {
    dirs.iter()
        .map(|dir| {
            dir.canonicalize()
                .unwrap_or_else(|_| fsrules::lexical_absolute(dir))
        })
        .collect()
}

/// The project folders of `capture` (read from `path`), found and checked for a replay
/// that names no project. An absolute folder is taken as it is; a relative one (an
/// older capture, or one moved with its project) is looked for beside the capture, then
/// in the working folder. Each must be a folder that holds at least one of the files
/// the capture lists for it (looked at by name, nothing walked or read); otherwise the
/// error names the folder and asks for the project (`--project DIR`).
pub fn project_dirs(capture: &Capture, path: &Path) -> Result<Vec<PathBuf>, CaptureError> {
    let beside = path.parent().unwrap_or(Path::new(""));
    let refuse = |why: String| CaptureError::Project {
        path: path.to_path_buf(),
        why: format!("{why}; name the project to replay against: --project DIR"),
    };
    let mut found_dirs = Vec::new();
    for stored in &capture.header.dirs {
        let candidates: Vec<PathBuf> = if stored.is_absolute() {
            vec![stored.clone()]
        } else {
            vec![beside.join(stored), stored.clone()]
        };
        let Some(found) = candidates.iter().find(|c| c.is_dir()) else {
            let looked: Vec<String> = candidates.iter().map(|c| c.display().to_string()).collect();
            return Err(refuse(format!(
                "the project folder `{}` it was made on is missing (looked for {})",
                stored.display(),
                looked.join(" and ")
            )));
        };
        let listed: Vec<&Path> = capture
            .header
            .files
            .iter()
            .filter(|file| file.dir == *stored)
            .map(|file| file.path.as_path())
            .collect();
        let present = listed
            .iter()
            .filter(|relative| is_plain_relative(relative))
            .filter(|relative| {
                std::fs::symlink_metadata(found.join(relative)).is_ok_and(|m| !m.is_dir())
            })
            .count();
        if present == 0 {
            return Err(refuse(format!(
                "`{}` holds none of the {} file(s) the capture lists for it, so it is not \
                 taken for the project the capture was made on",
                stored.display(),
                listed.len()
            )));
        }
        found_dirs.push(found.clone());
    }
    Ok(found_dirs)
}

/// A relative path that stays inside its folder by name (no root, no `..`).
fn is_plain_relative(path: &Path) -> bool {
    path.components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}
