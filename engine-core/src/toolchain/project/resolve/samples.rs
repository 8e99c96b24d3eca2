//! Finding the sample file a `[Patch]` path names, and the name the resource cache
//! serves it under.

use crate::toolchain::fsrules::{ReadRules, Refusal};
use crate::toolchain::project::packs::Pack;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Sample files of every directory, found by relative path or by file name.
#[derive(Debug, Default)]
pub struct SampleIndex {
    /// (dir, path relative to it lower-cased with `/`, full path), in load order.
    files: Vec<(usize, String, Arc<Path>)>,
    /// Samples inside zip packs: their path (`<pack>/<entry>`, not a file on disk) →
    /// the pack and the entry's resource name.
    packed: HashMap<PathBuf, (PathBuf, String)>,
}

/// A sample file found for a patch (shared with the load's list of samples when the
/// load looked at it), with its canonical path when finding it told.
pub(super) type Found = (Arc<Path>, Option<PathBuf>);

impl SampleIndex {
    /// Adds the sound files of a zip pack of directory `dir`, as `<pack>/<entry>`.
    pub fn add_pack(&mut self, dir: usize, pack: &Pack) {
        for entry in &pack.entries {
            let path = pack.path.join(entry);
            self.files
                .push((dir, entry.clone(), Arc::from(path.as_path())));
            self.packed.insert(path, (pack.path.clone(), entry.clone()));
        }
    }

    /// The pack and resource name of a sample found inside a pack.
    pub fn packed(&self, path: &Path) -> Option<(&Path, &str)> {
        self.packed
            .get(path)
            .map(|(pack, entry)| (pack.as_path(), entry.as_str()))
    }

    /// Adds the samples of directory `dir` (rooted at `root`).
    pub fn add(&mut self, dir: usize, root: &Path, samples: &[Arc<Path>]) {
        for path in samples {
            let relative = path.strip_prefix(root).unwrap_or(path);
            let key = relative
                .to_string_lossy()
                .replace('\\', "/")
                .to_ascii_lowercase();
            self.files.push((dir, key, Arc::clone(path)));
        }
    }

    /// Finds the file a `[Patch]` path means: next to the table, in the table's data
    /// directory, then by relative path and finally by file name in every directory,
    /// later directories first (as the game's global sample lists did). A file next to
    /// the table or in its directory that the file rules refuse (a link leading out of
    /// its data folder, a path out of every data folder, a named pipe…) is the answer,
    /// refused: what the patch names is there, and must not be read. A file found next
    /// to the table or in its directory comes with its canonical path (the rules found
    /// it checking the file).
    pub(super) fn find(
        &self,
        relative: &Path,
        table_file: &Path,
        dir_root: Option<&Path>,
        rules: &ReadRules,
    ) -> Result<Option<Found>, Refusal> {
        let mut direct = Vec::new();
        if let Some(parent) = table_file.parent() {
            direct.push(parent.join(relative));
        }
        if let Some(root) = dir_root {
            direct.push(root.join(relative));
        }
        for candidate in direct {
            // The rules' check is tried first: a file it accepts is a regular file, so
            // it is there, and its one `lstat` is all the common case costs.
            let refusal = match rules.check(&candidate) {
                Ok(checked) => {
                    // The load's own copy of the path, when it looked at it.
                    let shared = rules
                        .shared_path(&candidate)
                        .unwrap_or_else(|| Arc::from(candidate));
                    return Ok(Some((shared, Some(checked.canonical))));
                }
                Err(refusal) => refusal,
            };
            // Something that is not a folder is there (a file, or a link even to
            // nothing); only a link needs a second look to tell.
            let there = std::fs::symlink_metadata(&candidate)
                .ok()
                .is_some_and(|meta| {
                    let kind = meta.file_type();
                    if kind.is_symlink() {
                        !candidate.is_dir()
                    } else {
                        !kind.is_dir()
                    }
                });
            if there {
                return Err(refusal);
            }
        }
        let key = relative
            .to_string_lossy()
            .replace('\\', "/")
            .to_ascii_lowercase();
        let suffix = format!("/{key}");
        let by_path = self
            .files
            .iter()
            .rev()
            .find(|(_, k, _)| *k == key || k.ends_with(&suffix));
        if let Some((_, _, path)) = by_path {
            return Ok(Some((path.clone(), None)));
        }
        let Some(name) = relative.file_name() else {
            return Ok(None);
        };
        let name = name.to_string_lossy().to_ascii_lowercase();
        Ok(self
            .files
            .iter()
            .rev()
            .find(|(_, k, _)| k.rsplit('/').next() == Some(name.as_str()))
            .map(|(_, _, p)| (p.clone(), None)))
    }

    /// Every sample file, taken out of the index (no copy of 100,000 paths).
    pub fn into_paths(self) -> Vec<Arc<Path>> {
        self.files.into_iter().map(|(_, _, p)| p).collect()
    }
}

/// A sample's name as people may write it, folded for comparing: lower case, `\` read
/// as `/`, without a leading `./` — so `Sounds\Tone.WAV` and `sounds/tone.wav` are one
/// (QA expectations, `play`).
pub fn sample_key(name: &str) -> String {
    let key = name.replace('\\', "/").to_lowercase();
    match key.strip_prefix("./") {
        Some(rest) => rest.to_string(),
        None => key,
    }
}

/// The resource-cache name of a sample file: its path relative to the last data
/// directory that contains it, with `/` separators. A file that exists is named by where
/// it really is, and only inside a directory that really holds it — the cache's rule: a
/// link leading out of its data directory names nothing.
pub fn resource_name(file: &Path, dirs: &[PathBuf]) -> Option<String> {
    let canonical_dirs: Vec<Option<PathBuf>> = dirs.iter().map(|d| d.canonicalize().ok()).collect();
    resource_name_with(file, file.canonicalize().ok(), dirs, &canonical_dirs)
}

/// [`resource_name`], given the file's canonical path and the directories' (`None`
/// where there is none), found once for a whole load.
pub(super) fn resource_name_with(
    file: &Path,
    canonical_file: Option<PathBuf>,
    dirs: &[PathBuf],
    canonical_dirs: &[Option<PathBuf>],
) -> Option<String> {
    dirs.iter()
        .zip(canonical_dirs)
        .rev()
        .find_map(|(dir, canonical_dir)| {
            let relative = match &canonical_file {
                Some(canonical_file) => {
                    let dir = canonical_dir.as_ref()?;
                    canonical_file.strip_prefix(dir).ok()?.to_path_buf()
                }
                None => file.strip_prefix(dir).ok()?.to_path_buf(),
            };
            let text = relative.to_string_lossy().replace('\\', "/");
            (!text.is_empty() && !text.split('/').any(|c| c == "..")).then_some(text)
        })
}

/// What is said of a patch whose sample file the file rules refuse (the loader and
/// `check` say it alike, and `check` classifies it by these words).
pub(crate) fn refused_sample(id: u32, name: &str, path: &str, refusal: &Refusal) -> String {
    format!("patch {id} ({name}): sample file `{path}` is refused ({refusal}); it is not used")
}
