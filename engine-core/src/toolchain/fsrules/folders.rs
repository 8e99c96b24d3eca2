//! Canonical paths for a pass over many files ([`super::ReadRules::remembering_folders`]):
//! each folder's canonical path is found once, and a file that is not a link is its
//! folder's canonical path joined with its name — what `realpath` would say, without
//! reading every link of the path again for each of 100,000 samples.

use super::Seen;
use std::borrow::Borrow;
use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::hash::{Hash, Hasher};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A path a load looked at, shared with everything the load keeps of it; hashed,
/// compared and found by its bytes (`&OsStr`), not by its components.
#[derive(Debug, Clone)]
pub struct SeenPath(pub Arc<Path>);

impl PartialEq for SeenPath {
    fn eq(&self, other: &Self) -> bool {
        self.0.as_os_str() == other.0.as_os_str()
    }
}

impl Eq for SeenPath {}

impl Hash for SeenPath {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.as_os_str().hash(state);
    }
}

impl Borrow<OsStr> for SeenPath {
    fn borrow(&self) -> &OsStr {
        self.0.as_os_str()
    }
}

/// What a load saw at the paths it looked at (none of them a link).
pub type SeenMap = HashMap<SeenPath, Seen>;

/// The canonical paths of the folders seen so far in one pass (shared by clones of the
/// rules that made it). A folder renamed or relinked during the pass is seen as it was
/// when first met; a new pass (a reload, another check) starts a new memo.
///
/// It may also know what is at some paths already ([`knowing`](FolderMemo::knowing)):
/// those are not looked at again.
#[derive(Debug, Clone, Default)]
pub(super) struct FolderMemo {
    folders: Option<Arc<Mutex<HashMap<OsString, PathBuf>>>>,
    seen: Option<Arc<SeenMap>>,
}

/// Memos do not change which files the rules allow: two rules are equal whether or not
/// either remembers folders.
impl PartialEq for FolderMemo {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for FolderMemo {}

impl FolderMemo {
    /// A memo that remembers.
    pub(super) fn remembering() -> Self {
        Self {
            folders: Some(Arc::default()),
            seen: None,
        }
    }

    /// The memo, knowing what `seen` says is at those paths (none of them a link).
    pub(super) fn knowing(self, seen: Arc<SeenMap>) -> Self {
        Self {
            seen: Some(seen),
            ..self
        }
    }

    /// The shared path the memo knows `path` by, if it was looked at.
    pub(super) fn shared(&self, path: &Path) -> Option<Arc<Path>> {
        let seen = self.seen.as_ref()?;
        let (known, _) = seen.get_key_value(path.as_os_str())?;
        Some(Arc::clone(&known.0))
    }

    /// `path` with every link followed and `.`/`..` resolved, as [`fs::canonicalize`]
    /// gives it.
    pub(super) fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        self.canonicalize_with_meta(path)
            .map(|(canonical, _)| canonical)
    }

    /// [`canonicalize`](Self::canonicalize), with the metadata of what is there when
    /// the memo looked at it (a path that is not a link: its metadata is the canonical
    /// path's).
    pub(super) fn canonicalize_with_meta(
        &self,
        path: &Path,
    ) -> io::Result<(PathBuf, Option<Seen>)> {
        let long_way = || fs::canonicalize(path).map(|canonical| (canonical, None));
        let Some(memo) = &self.folders else {
            return long_way();
        };
        // A path without a folder and a name (`/`, one ending in `..`): the long way.
        let (Some(folder), Some(name)) = (path.parent(), path.file_name()) else {
            return long_way();
        };
        // A link, or a path that is not there (its error is `canonicalize`'s own).
        let known = self
            .seen
            .as_ref()
            .and_then(|seen| seen.get(path.as_os_str()));
        let meta = match known {
            Some(&seen) => Some(seen),
            None => fs::symlink_metadata(path)
                .ok()
                .filter(|m| !m.file_type().is_symlink())
                .map(|m| Seen::of(&m)),
        };
        let Some(meta) = meta.filter(|_| !folder.as_os_str().is_empty()) else {
            return long_way();
        };
        // Known by the folder's bytes (a folder spelled two ways is looked up twice).
        let known = memo
            .lock()
            .ok()
            .and_then(|m| m.get(folder.as_os_str()).map(|known| known.join(name)));
        if let Some(canonical) = known {
            return Ok((canonical, Some(meta)));
        }
        let canonical = fs::canonicalize(folder)?;
        if let Ok(mut memo) = memo.lock() {
            memo.insert(folder.as_os_str().to_owned(), canonical.clone());
        }
        Ok((canonical.join(name), Some(meta)))
    }
}
