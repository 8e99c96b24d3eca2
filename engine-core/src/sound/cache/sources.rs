//! Resource files: directories and zip packs the cache reads resource bytes from.
//!
//! Each source is indexed when it is added, under normalised names, so lookups are
//! case-insensitive even on case-sensitive file systems and listing needs no IO.
//!
//! Safety rules: a directory is walked and read under the project's file rules
//! ([`crate::toolchain::fsrules`]), the same as the project loader and `check`: an entry that is a
//! link leading out of the directory is indexed as an escape and refused when asked for
//! with the rules' reason; every read is checked again (still inside, still a regular
//! file, at most [`MAX_RESOURCE_BYTES`]), in case the tree changed since indexing. Zip
//! entries whose own names are absolute, have `..` components or drive letters, and zip
//! symlink entries are never indexed, so they can never be served or listed.

use crate::runtime::hash::FastMap;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use zip::ZipArchive;

use super::error::CacheError;
use super::name::normalize_name;
use crate::toolchain::fsrules::{self, ReadRules, Refusal, WalkOptions};
use crate::toolchain::project::packs;

/// The name a file of a directory source is served under, if it has one: its relative
/// path normalised. A `\` or `:` inside one file name would change meaning once the name
/// is normalised, and a name that is not UTF-8 cannot be asked for: neither is served.
fn servable_name(relative: &Path) -> Option<String> {
    let parts: Option<Vec<&str>> = relative.iter().map(|part| part.to_str()).collect();
    let parts = parts?;
    if parts.iter().any(|part| part.contains(['\\', ':'])) {
        return None;
    }
    normalize_name(&parts.join("/"))
        .ok()
        .map(|n| n.into_owned())
}

pub use crate::toolchain::fsrules::MAX_RESOURCE_BYTES;

/// What kind of resource file a source is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    /// A directory tree on disk.
    Directory,
    /// A zip pack.
    Zip,
    /// One file outside the data folders that a trusted station or music folder links
    /// to (`world::playlist`), served under its `linked/…` name.
    Linked,
}

/// A description of one source, for the workbench and for logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceInfo {
    /// The path as it was given to `add_directory` / `add_zip`.
    pub path: PathBuf,
    /// Directory or zip.
    pub kind: SourceKind,
    /// Number of resources it serves.
    pub resources: usize,
    /// Entries left out: unsafe or unusable names, symlinks out of the directory, zip
    /// symlinks, unreadable subdirectories.
    pub rejected: usize,
}

/// Where a directory resource's bytes are.
#[derive(Debug)]
enum DirEntry {
    /// A file (or a symlink to a file inside the directory), relative to the root.
    File(PathBuf),
    /// A link leading outside the directory: asked for, it is refused with this reason.
    Outside(Refusal),
}

/// An indexed directory tree.
#[derive(Debug)]
struct DirSource {
    /// What may be read: files inside the directory, at most [`MAX_RESOURCE_BYTES`].
    rules: ReadRules,
    index: FastMap<String, DirEntry>,
}

/// An opened zip pack.
struct ZipSource {
    archive: Mutex<ZipArchive<BufReader<File>>>,
    /// Normalised name → entry number in the archive.
    index: FastMap<String, usize>,
}

enum Kind {
    Dir(DirSource),
    Zip(ZipSource),
    /// One linked file: the rules it is read under (its own folder) and its path.
    Linked(ReadRules, PathBuf),
}

/// One resource file.
pub(crate) struct Source {
    path: PathBuf,
    kind: Kind,
    /// Servable names in the source's own order (sorted walk for directories, central
    /// directory order for zips).
    order: Vec<String>,
    rejected: usize,
}

impl Source {
    /// Indexes the directory tree at `path`.
    pub(crate) fn open_directory(path: &Path) -> Result<Self, CacheError> {
        let fail = |message: String| CacheError::Directory {
            path: path.to_owned(),
            message,
        };
        let walk = fsrules::walk(path, &WalkOptions::default()).map_err(|r| fail(r.reason()))?;
        let mut index = FastMap::default();
        let mut order = Vec::new();
        // Folders nested too deep are not indexed (a guard against pathological trees).
        let mut rejected = walk.not_entered.len();
        for entry in walk.files() {
            let Some(name) = servable_name(&entry.relative) else {
                rejected += 1;
                continue;
            };
            if index.contains_key(&name) {
                // `A.wav` and `a.wav` in one directory: the first in sorted order wins.
                rejected += 1;
                continue;
            }
            order.push(name.clone());
            index.insert(name, DirEntry::File(entry.relative.clone()));
        }
        for refusal in walk.refused {
            rejected += 1;
            if let Refusal::LinkOutside { path: link, .. } = &refusal
                && let Some(name) = link.strip_prefix(path).ok().and_then(servable_name)
            {
                index.entry(name).or_insert(DirEntry::Outside(refusal));
            }
        }
        Ok(Self {
            path: path.to_owned(),
            kind: Kind::Dir(DirSource {
                rules: ReadRules::within(&[path.to_owned()]).with_max_bytes(MAX_RESOURCE_BYTES),
                index,
            }),
            order,
            rejected,
        })
    }

    /// Opens and indexes the zip pack at `path`.
    pub(crate) fn open_zip(path: &Path) -> Result<Self, CacheError> {
        let fail = |message: String| CacheError::Zip {
            path: path.to_owned(),
            message,
        };
        let file = fsrules::open_regular(path).map_err(|e| fail(e.reason()))?;
        let archive = ZipArchive::new(BufReader::new(file)).map_err(|e| fail(e.to_string()))?;
        let mut index = FastMap::default();
        let mut order = Vec::new();
        let mut rejected = 0usize;
        for number in 0..archive.len() {
            let Ok(entry) = archive.by_index_data(number) else {
                rejected += 1;
                continue;
            };
            if entry.is_dir() {
                continue;
            }
            if entry.is_symlink() || entry.enclosed_name().is_none() {
                rejected += 1;
                continue;
            }
            let Ok(raw_name) = entry.name() else {
                rejected += 1;
                continue;
            };
            // Our own rules on top of `enclosed_name`: it accepts `a/../b`, we do not.
            let Ok(name) = normalize_name(&raw_name) else {
                rejected += 1;
                continue;
            };
            let name = name.into_owned();
            if index.contains_key(&name) {
                rejected += 1;
                continue;
            }
            index.insert(name.clone(), number);
            order.push(name);
        }
        Ok(Self {
            path: path.to_owned(),
            kind: Kind::Zip(ZipSource {
                archive: Mutex::new(archive),
                index,
            }),
            order,
            rejected,
        })
    }

    /// One file served under `name` (a linked file of a trusted playlist folder).
    pub(crate) fn open_linked(name: &str, path: &Path) -> Result<Self, CacheError> {
        let name = normalize_name(name)?.into_owned();
        let folder = path.parent().unwrap_or(Path::new("/")).to_path_buf();
        Ok(Self {
            path: path.to_owned(),
            kind: Kind::Linked(
                ReadRules::within(&[folder]).with_max_bytes(MAX_RESOURCE_BYTES),
                path.to_owned(),
            ),
            order: vec![name],
            rejected: 0,
        })
    }

    /// The path the source was opened from.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Servable names in the source's own order.
    pub(crate) fn names(&self) -> &[String] {
        &self.order
    }

    /// True when the source has an entry for `name` (normalised), servable or not.
    pub(crate) fn contains(&self, name: &str) -> bool {
        match &self.kind {
            Kind::Dir(dir) => dir.index.contains_key(name),
            Kind::Zip(zip) => zip.index.contains_key(name),
            Kind::Linked(..) => self.order.iter().any(|n| n == name),
        }
    }

    /// A description for the workbench.
    pub(crate) fn info(&self) -> SourceInfo {
        SourceInfo {
            path: self.path.clone(),
            kind: match self.kind {
                Kind::Dir(_) => SourceKind::Directory,
                Kind::Zip(_) => SourceKind::Zip,
                Kind::Linked(..) => SourceKind::Linked,
            },
            resources: self.order.len(),
            rejected: self.rejected,
        }
    }

    /// Reads the bytes of `name` (normalised): `None` when this source does not have it.
    pub(crate) fn read(&self, name: &str) -> Option<Result<Vec<u8>, CacheError>> {
        match &self.kind {
            Kind::Dir(dir) => dir
                .index
                .get(name)
                .map(|entry| self.read_file(dir, name, entry)),
            Kind::Zip(zip) => zip
                .index
                .get(name)
                .map(|&number| self.read_entry(zip, name, number)),
            Kind::Linked(rules, path) => self.contains(name).then(|| {
                rules
                    .read(path)
                    .map_err(|refusal| self.read_error(name, refusal.reason()))
            }),
        }
    }

    fn read_error(&self, name: &str, message: String) -> CacheError {
        CacheError::Read {
            name: name.to_owned(),
            path: self.path.clone(),
            message,
        }
    }

    fn read_file(
        &self,
        dir: &DirSource,
        name: &str,
        entry: &DirEntry,
    ) -> Result<Vec<u8>, CacheError> {
        let escape = |refusal: &Refusal| CacheError::Escape {
            name: name.to_owned(),
            reason: refusal.to_string(),
        };
        let relative = match entry {
            DirEntry::File(relative) => relative,
            DirEntry::Outside(refusal) => return Err(escape(refusal)),
        };
        // Checked again now: the tree may have changed since it was indexed.
        dir.rules
            .read(&self.path.join(relative))
            .map_err(|refusal| match refusal {
                Refusal::LinkOutside { .. } | Refusal::Outside { .. } => escape(&refusal),
                other => self.read_error(name, other.reason()),
            })
    }

    fn read_entry(
        &self,
        zip: &ZipSource,
        name: &str,
        number: usize,
    ) -> Result<Vec<u8>, CacheError> {
        let mut archive = zip.archive.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = archive
            .by_index(number)
            .map_err(|e| self.read_error(name, packs::entry_error(e)))?;
        let declared = entry.size();
        packs::read_entry_data(entry, declared).map_err(|why| self.read_error(name, why))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::fs;
    use std::io::Write;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use zip::write::SimpleFileOptions;
    use zip::{CompressionMethod, ZipWriter};

    /// A directory under the system temp dir, removed when dropped.
    pub(crate) struct TempDir(pub(crate) PathBuf);

    impl TempDir {
        pub(crate) fn new(tag: &str) -> Self {
            static COUNTER: AtomicUsize = AtomicUsize::new(0);
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let path = std::env::temp_dir()
                .join(format!("hitbench-cache-{tag}-{}-{n}", std::process::id()));
            let _ = fs::remove_dir_all(&path);
            fs::create_dir_all(&path).unwrap();
            Self(path)
        }

        pub(crate) fn file(&self, relative: &str, bytes: &[u8]) -> PathBuf {
            let path = self.0.join(relative);
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent).unwrap();
            }
            fs::write(&path, bytes).unwrap();
            path
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    /// Writes a zip with the given entries; deflated when `deflate` is set, else stored.
    pub(crate) fn write_zip(path: &Path, entries: &[(&str, &[u8])], deflate: bool) {
        let file = File::create(path).unwrap();
        let mut writer = ZipWriter::new(file);
        let method = if deflate {
            CompressionMethod::Deflated
        } else {
            CompressionMethod::Stored
        };
        let options = SimpleFileOptions::default().compression_method(method);
        for (name, bytes) in entries {
            writer.start_file(*name, options).unwrap();
            writer.write_all(bytes).unwrap();
        }
        writer.finish().unwrap();
    }

    fn read(source: &Source, name: &str) -> Option<Result<Vec<u8>, CacheError>> {
        source.read(name)
    }

    #[test]
    fn directory_is_indexed_case_insensitively_in_sorted_order() {
        let dir = TempDir::new("dir-index");
        dir.file("Sfx/Boom.WAV", b"boom");
        dir.file("sfx/zap.wav", b"zap");
        dir.file("Music/Theme.ogg", b"theme");
        dir.file("a.txt", b"a");
        let source = Source::open_directory(&dir.0).unwrap();
        // Files of a directory come before its subdirectories; both in byte order of
        // the real names ("Music" < "Sfx" < "a.txt" < "sfx").
        assert_eq!(
            source.names(),
            ["a.txt", "music/theme.ogg", "sfx/boom.wav", "sfx/zap.wav"]
        );
        assert_eq!(read(&source, "sfx/boom.wav").unwrap().unwrap(), b"boom");
        assert_eq!(read(&source, "music/theme.ogg").unwrap().unwrap(), b"theme");
        assert!(read(&source, "nope.wav").is_none());
        assert_eq!(source.info().resources, 4);
        assert_eq!(source.info().kind, SourceKind::Directory);
    }

    #[test]
    fn missing_directory_and_plain_file_are_clean_errors() {
        let dir = TempDir::new("dir-missing");
        let missing = dir.0.join("nowhere");
        match Source::open_directory(&missing) {
            Err(e @ CacheError::Directory { .. }) => {
                assert!(e.to_string().contains("nowhere"), "{e}");
            }
            Err(other) => panic!("wrong error {other}"),
            Ok(_) => panic!("opened a missing directory"),
        }
        let file = dir.file("plain.txt", b"x");
        assert!(matches!(
            Source::open_directory(&file),
            Err(CacheError::Directory { .. })
        ));
    }

    #[test]
    fn zip_stored_and_deflated_entries_are_read() {
        let dir = TempDir::new("zip-read");
        let big = vec![7u8; 10_000];
        for deflate in [false, true] {
            let path = dir.0.join(format!("pack-{deflate}.zip"));
            write_zip(
                &path,
                &[("SFX/Boom.wav", b"boom"), ("music/big.raw", &big)],
                deflate,
            );
            let source = Source::open_zip(&path).unwrap();
            assert_eq!(source.names(), ["sfx/boom.wav", "music/big.raw"]);
            assert_eq!(read(&source, "sfx/boom.wav").unwrap().unwrap(), b"boom");
            assert_eq!(read(&source, "music/big.raw").unwrap().unwrap(), big);
            assert_eq!(source.info().kind, SourceKind::Zip);
        }
    }

    #[test]
    fn damaged_and_missing_zips_are_clean_errors() {
        let dir = TempDir::new("zip-bad");
        let bad = dir.file("bad.zip", b"this is not a zip file at all");
        match Source::open_zip(&bad) {
            Err(e @ CacheError::Zip { .. }) => assert!(e.to_string().contains("bad.zip"), "{e}"),
            Err(other) => panic!("wrong error {other}"),
            Ok(_) => panic!("opened a damaged zip"),
        }
        assert!(matches!(
            Source::open_zip(&dir.0.join("missing.zip")),
            Err(CacheError::Zip { .. })
        ));
        // A real zip cut short loses its central directory.
        let good = dir.0.join("good.zip");
        write_zip(&good, &[("a.wav", &[1u8; 300])], false);
        let bytes = fs::read(&good).unwrap();
        let cut = dir.file("cut.zip", bytes.get(..bytes.len() / 2).unwrap());
        assert!(matches!(
            Source::open_zip(&cut),
            Err(CacheError::Zip { .. })
        ));
    }

    #[test]
    fn zip_entries_that_escape_are_never_indexed() {
        let dir = TempDir::new("zip-escape");
        let path = dir.0.join("evil.zip");
        write_zip(
            &path,
            &[
                ("../evil.wav", b"evil"),
                ("/abs.wav", b"abs"),
                ("a/../../up.wav", b"up"),
                ("C:/drive.wav", b"drive"),
                ("ok.wav", b"ok"),
            ],
            false,
        );
        let source = Source::open_zip(&path).unwrap();
        assert_eq!(source.names(), ["ok.wav"]);
        assert!(read(&source, "evil.wav").is_none());
        assert!(read(&source, "up.wav").is_none());
        assert!(read(&source, "abs.wav").is_none());
        assert_eq!(source.info().rejected, 4);
    }

    #[cfg(unix)]
    #[test]
    fn symlink_out_of_the_directory_is_an_escape() {
        let outside = TempDir::new("symlink-outside");
        let secret = outside.file("secret.txt", b"secret");
        let dir = TempDir::new("symlink-dir");
        dir.file("inside.wav", b"inside");
        std::os::unix::fs::symlink(&secret, dir.0.join("leak.wav")).unwrap();
        std::os::unix::fs::symlink(dir.0.join("inside.wav"), dir.0.join("alias.wav")).unwrap();
        let source = Source::open_directory(&dir.0).unwrap();
        assert_eq!(source.names(), ["alias.wav", "inside.wav"]);
        match read(&source, "leak.wav") {
            Some(Err(e @ CacheError::Escape { .. })) => {
                assert!(e.to_string().contains("outside"), "{e}");
            }
            other => panic!("leak.wav gave {other:?}"),
        }
        assert_eq!(read(&source, "alias.wav").unwrap().unwrap(), b"inside");
    }

    #[cfg(unix)]
    #[test]
    fn file_replaced_by_outward_symlink_after_indexing_is_refused() {
        let outside = TempDir::new("swap-outside");
        let secret = outside.file("secret.txt", b"secret");
        let dir = TempDir::new("swap-dir");
        let victim = dir.file("sound.wav", b"sound");
        let source = Source::open_directory(&dir.0).unwrap();
        fs::remove_file(&victim).unwrap();
        std::os::unix::fs::symlink(&secret, &victim).unwrap();
        assert!(matches!(
            read(&source, "sound.wav"),
            Some(Err(CacheError::Escape { .. }))
        ));
    }
}
