//! What the world's own sound makers (stations, music, ambience) share: note IDs of
//! their own range, and naming a file so the resource cache and the sound server find
//! it.

use crate::runtime::sink::{NoteId, SampleRef};
use crate::sound::server::WORLD_NOTES;
use crate::toolchain::project::resource_name;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Hands out the world's note IDs (from [`WORLD_NOTES`] up, so they never meet the
/// runtime's or those of the sound server's own requests).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteIds(NoteId);

impl Default for NoteIds {
    fn default() -> Self {
        Self(WORLD_NOTES)
    }
}

impl NoteIds {
    /// A fresh note ID.
    pub fn fresh(&mut self) -> NoteId {
        let id = self.0;
        self.0 += 1;
        id
    }

    /// True if `note` is one of the world's.
    pub fn owns(note: NoteId) -> bool {
        (WORLD_NOTES..crate::sound::server::SERVER_NOTES).contains(&note)
    }
}

/// The sample reference for a file inside one of the project's data directories
/// (`None` if it is in none of them: the cache could not serve it).
pub fn sample_ref(file: &Path, dirs: &[PathBuf]) -> Option<SampleRef> {
    let name = resource_name(file, dirs)?;
    Some(SampleRef {
        patch: 0,
        name: Arc::from(name.as_str()),
        path: Arc::from(file),
        linked: false,
    })
}

/// The resource names of files reached through links: `linked/` and the real path.
pub const LINKED_PREFIX: &str = "linked/";

/// The sample reference for an item of a playlist: a file inside the data directories
/// as [`sample_ref`] names it; a file outside them that a trusted folder's link or
/// shortcut (`via`) leads to as a *linked* sample the cache serves from its path
/// (`linked/<real path>`); anything else `None`.
pub fn playlist_sample(file: &Path, via: Option<&Path>, dirs: &[PathBuf]) -> Option<SampleRef> {
    if let Some(sample) = sample_ref(file, dirs) {
        return Some(sample);
    }
    via?;
    let path = file.to_string_lossy().replace('\\', "/");
    Some(SampleRef {
        patch: 0,
        name: Arc::from(format!("{LINKED_PREFIX}{}", path.trim_start_matches('/')).as_str()),
        path: Arc::from(file),
        linked: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn world_notes_have_their_own_range() {
        let mut ids = NoteIds::default();
        let a = ids.fresh();
        assert_eq!(ids.fresh(), a + 1);
        assert!(NoteIds::owns(a));
        assert!(!NoteIds::owns(1));
        assert!(!NoteIds::owns(crate::sound::server::SERVER_NOTES));
    }

    #[test]
    fn files_are_named_relative_to_the_last_dir_holding_them() {
        let dirs = vec![PathBuf::from("/p"), PathBuf::from("/p/plugin")];
        let sample = sample_ref(Path::new("/p/plugin/radio/a.ogg"), &dirs).unwrap();
        assert_eq!(&*sample.name, "radio/a.ogg");
        assert_eq!(&*sample.path, "/p/plugin/radio/a.ogg");
        assert!(sample_ref(Path::new("/elsewhere/a.ogg"), &dirs).is_none());
    }
}
