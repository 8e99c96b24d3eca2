//! Zip packs: a `*.zip` file at the top of a data folder is mounted as a pack — the
//! sound files inside it are the folder's samples, named by their path inside the zip
//! (`sounds/vox/yes.wav` in `extra.zip` serves `sounds/vox/yes.wav`). A loose file of
//! the same name in the folder wins over a pack, and a later data folder wins over both,
//! as for loose files. A damaged pack is reported with its file and left out.

use std::io::Read;
use std::path::{Path, PathBuf};

/// The longest pack entry read for checking, in bytes (the cache's own limit).
const MAX_ENTRY_BYTES: u64 = crate::toolchain::fsrules::MAX_RESOURCE_BYTES;

/// One pack: its file and the sound files inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pack {
    /// The zip file.
    pub path: PathBuf,
    /// The sound files inside, by their normal resource name (lower case, `/`), sorted.
    pub entries: Vec<String>,
}

/// The packs at the top of `dir`: regular `*.zip` files (not links), sorted by name.
pub fn packs_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut packs: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("zip")))
        .collect();
    packs.sort();
    packs
}

/// An entry's name as the resource cache names it: lower case, `/` separators, no empty,
/// `.` or `..` component, no drive; `None` for a name that may not be served.
pub fn entry_name(raw: &str) -> Option<String> {
    let name = raw.replace('\\', "/").to_ascii_lowercase();
    let fine = !name.is_empty()
        && !name.contains(':')
        && !name.contains('\0')
        && name
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..");
    fine.then_some(name)
}

/// Reads a pack's table of contents (not its data): the files it holds with one of
/// `extensions` (lower case).
///
/// # Errors
/// Why the file is not a zip that can be read (the message names no file: the caller's
/// diagnostic does).
pub fn read_pack(path: &Path, extensions: &[&str]) -> Result<Pack, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let archive = zip::ZipArchive::new(std::io::BufReader::new(file)).map_err(|e| e.to_string())?;
    let mut entries: Vec<String> = archive
        .file_names()
        .flatten()
        .filter(|name| !name.ends_with('/'))
        .filter(|name| {
            Path::new(name.as_ref())
                .extension()
                .map(|e| e.to_string_lossy().to_ascii_lowercase())
                .is_some_and(|e| extensions.contains(&e.as_str()))
        })
        .filter_map(|name| entry_name(&name))
        .collect();
    entries.sort();
    entries.dedup();
    Ok(Pack {
        path: path.to_path_buf(),
        entries,
    })
}

/// The bytes of `entry` (a resource name) in the pack at `pack`.
///
/// # Errors
/// Why it could not be read: the pack, the entry missing, or larger than a sample may be.
pub fn read_entry(pack: &Path, entry: &str) -> Result<Vec<u8>, String> {
    let file = std::fs::File::open(pack).map_err(|e| e.to_string())?;
    let mut archive =
        zip::ZipArchive::new(std::io::BufReader::new(file)).map_err(|e| e.to_string())?;
    let index = (0..archive.len())
        .find(|i| {
            archive
                .name_for_index(*i)
                .and_then(Result::ok)
                .is_some_and(|n| entry_name(&n).is_some_and(|n| n == entry))
        })
        .ok_or_else(|| format!("`{entry}` is not in the pack"))?;
    let mut file = archive.by_index(index).map_err(|e| e.to_string())?;
    if file.size() > MAX_ENTRY_BYTES {
        return Err(format!(
            "`{entry}` is {} bytes, more than a sample may be",
            file.size()
        ));
    }
    let mut bytes = Vec::new();
    file.by_ref()
        .take(MAX_ENTRY_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_names_are_the_caches_and_escapes_are_refused() {
        assert_eq!(
            entry_name("Sounds\\Vox/Yes.WAV").as_deref(),
            Some("sounds/vox/yes.wav")
        );
        for bad in [
            "",
            "../x.wav",
            "a/../x.wav",
            "/abs.wav",
            "c:/x.wav",
            "a//b.wav",
            "./x.wav",
        ] {
            assert_eq!(entry_name(bad), None, "{bad}");
        }
    }
}
