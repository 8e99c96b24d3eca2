//! Paths resolved by name, without the file system: what a user wrote, made absolute
//! for containment checks.

use std::path::{Component, Path, PathBuf};

/// `path` made absolute against the working folder, with `.` and `..` resolved by name
/// (no file-system access): the path as the user wrote it, for containment by name.
pub fn lexical_absolute(path: &Path) -> PathBuf {
    if is_plain_absolute(path) {
        return path.to_path_buf();
    }
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    normalize(&absolute)
}

/// An absolute path that [`lexical_absolute`] gives back as it is: no `.` or `..`
/// (no part begins with a dot at all), no doubled separator, none at the end.
fn is_plain_absolute(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let bytes = path.as_os_str().as_bytes();
        bytes.first() == Some(&b'/')
            && bytes.len() > 1
            && bytes.last() != Some(&b'/')
            && !bytes
                .windows(2)
                .any(|pair| pair[0] == b'/' && matches!(pair[1], b'/' | b'.'))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
    }
}

/// `.` and `..` resolved by name, without touching the file system.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                // `..` of the root is the root.
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(".."),
            },
            other => out.push(other.as_os_str()),
        }
    }
    out
}
