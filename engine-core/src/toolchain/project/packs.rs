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

/// The sample a name means inside the packs of `dirs`, as the resource cache finds it
/// (a later data folder first; in one, the last pack by name first): the pack and the
/// entry's resource name. `extensions` are the sound files' (lower case).
pub fn find_packed(dirs: &[PathBuf], name: &str, extensions: &[&str]) -> Option<(PathBuf, String)> {
    let wanted = entry_name(name)?;
    dirs.iter().rev().find_map(|dir| {
        packs_in(dir).into_iter().rev().find_map(|path| {
            let pack = read_pack(&path, extensions).ok()?;
            pack.entries
                .binary_search(&wanted)
                .is_ok()
                .then(|| (path, wanted.clone()))
        })
    })
}

/// Reads a pack's table of contents (not its data): the files it holds with one of
/// `extensions` (lower case).
///
/// # Errors
/// Why the file is not a zip that can be read (the message names no file: the caller's
/// diagnostic does).
pub fn read_pack(path: &Path, extensions: &[&str]) -> Result<Pack, String> {
    let file = crate::toolchain::fsrules::open_regular(path).map_err(|e| e.reason())?;
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
/// Why it could not be read: the pack, the entry missing, encrypted, damaged, larger
/// than a sample may be, or inflating past its declared size.
pub fn read_entry(pack: &Path, entry: &str) -> Result<Vec<u8>, String> {
    let file = crate::toolchain::fsrules::open_regular(pack).map_err(|e| e.reason())?;
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
    let file = archive.by_index(index).map_err(entry_error)?;
    let declared = file.size();
    read_entry_data(file, declared)
}

/// What went wrong opening a pack's entry, said plainly.
pub fn entry_error(error: zip::result::ZipError) -> String {
    match error {
        zip::result::ZipError::UnsupportedArchive(why)
            if why == zip::result::ZipError::PASSWORD_REQUIRED =>
        {
            "it is encrypted (HitBench reads no password-protected pack entries)".to_owned()
        }
        other => other.to_string(),
    }
}

/// Reads a pack entry's bytes: at most the size its headers declare (an entry that
/// inflates past it is refused, not read on) and at most a sample's limit.
///
/// # Errors
/// Why not, for a message after the entry's name.
pub fn read_entry_data(entry: impl Read, declared: u64) -> Result<Vec<u8>, String> {
    if declared > MAX_ENTRY_BYTES {
        return Err(format!("it is {declared} bytes, more than the 1 GiB limit"));
    }
    // The declared size is only a hint for the first allocation; the read decides.
    let hint = usize::try_from(declared.min(64 << 20)).unwrap_or(0);
    let mut bytes = Vec::with_capacity(hint);
    entry
        .take(declared + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > declared {
        return Err(format!(
            "it inflates past its declared size of {declared} bytes (the pack is damaged); \
             reading stopped there"
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_read_no_further_than_its_declared_size() {
        let more = [0u8; 100];
        let error = read_entry_data(&more[..], 10).unwrap_err();
        assert!(
            error.contains("past its declared size of 10 bytes"),
            "{error}"
        );
        assert_eq!(read_entry_data(&more[..], 100).unwrap().len(), 100);
        let huge = read_entry_data(&more[..], MAX_ENTRY_BYTES + 1).unwrap_err();
        assert!(huge.contains("more than the 1 GiB limit"), "{huge}");
    }

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
