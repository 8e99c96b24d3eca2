//! Which files HitBench may read from a data folder, and how: the one rule shared by the
//! project loader, the assembler's `INCLUDE`/`INIFILE`/`SYMBOLFILE`, `check`, the
//! resource cache and the world's playlists, so that none of them accepts a file another
//! refuses.
//!
//! Two tools:
//! - [`walk`] lists a folder (with `walkdir`) under a [`LinkPolicy`]: a link whose target
//!   stays inside the folder is followed (a link to a file is listed under its own name;
//!   a link to a folder inside is not walked again, its files are listed under their real
//!   folder), a link leaving the folder is refused with the reason, unless the policy is
//!   [`LinkPolicy::FollowAnywhere`]. Folders deeper than a limit are not entered, loops
//!   are detected (walkdir's ancestor check) and a folder reached through links twice is
//!   walked once, so no tree of links can make a walk explode.
//! - [`ReadRules`] reads one file: a regular file only (never a device, named pipe,
//!   socket or folder — checked before opening, opened without blocking and checked again
//!   on the open handle), at most a size limit (read with `take`, never trusting the size
//!   the file system reports), and only inside allowed roots after canonicalisation.
//!
//! Every refusal is a [`Refusal`] naming the file and saying why; none quotes a byte of
//! the file. A path swapped for a link between the checks and the open is caught for the
//! last component (the open does not follow links and the handle must be the file that
//! was checked); folders above it are trusted not to change during one read.

use crate::toolchain::diag::DiagCode;
use std::collections::HashSet;
use std::fs::{self, File, Metadata};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Folder levels read below a walked folder; deeper folders are not entered (each is
/// reported). A guard against pathological trees, far beyond real data.
pub const MAX_WALK_DEPTH: usize = 32;

/// Largest text file read from a data folder, in bytes: sources and what they
/// `INCLUDE`, `INIFILE` and `SYMBOLFILE` files, tables, event lists, built sets. Real
/// ones are a few hundred kilobytes.
pub const MAX_TEXT_FILE_BYTES: u64 = 16 << 20;

/// Largest sample or other resource file read, in bytes. Far beyond any sound; stops a
/// damaged or hostile zip entry or file from claiming the whole memory.
pub const MAX_RESOURCE_BYTES: u64 = 1 << 30;

/// What a walk does with symbolic links.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LinkPolicy {
    /// Links are followed only when their target is inside the folder they belong to
    /// (the walked folder, or the allowed root holding the path); links leaving it are
    /// refused.
    #[default]
    StayInside,
    /// Links are followed wherever they lead: for folders the user trusts.
    FollowAnywhere,
}

/// Why a file or folder is not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// Nothing is there.
    #[error("{} does not exist", path.display())]
    NotFound {
        /// The path as given.
        path: PathBuf,
    },
    /// The path is outside every folder HitBench may read here.
    #[error("{} is outside the folders HitBench may read here ({roots})", path.display())]
    Outside {
        /// The path as given.
        path: PathBuf,
        /// The allowed folders, for the message.
        roots: String,
    },
    /// A link (the file or a folder on its way) leads out of the folder it is in.
    #[error("{} is a link leading outside {}", path.display(), root.display())]
    LinkOutside {
        /// The path as given.
        path: PathBuf,
        /// The folder it had to stay in.
        root: PathBuf,
    },
    /// A link whose target does not exist.
    #[error("{} is a link to nothing", path.display())]
    Dangling {
        /// The link.
        path: PathBuf,
    },
    /// A link back into a folder above it.
    #[error("{} is a link back into a folder above it (a loop); it is not followed", path.display())]
    Loop {
        /// The link.
        path: PathBuf,
    },
    /// Not a regular file.
    #[error("{} is {kind}, not a regular file", path.display())]
    NotRegular {
        /// The path as given.
        path: PathBuf,
        /// What it is instead ("a folder", "a named pipe (FIFO)", …).
        kind: &'static str,
    },
    /// A folder was expected.
    #[error("{} is not a folder", path.display())]
    NotAFolder {
        /// The path as given.
        path: PathBuf,
    },
    /// Larger than the limit for its kind of file.
    #[error("{} is larger than {limit} bytes, the limit for this kind of file", path.display())]
    TooBig {
        /// The path as given.
        path: PathBuf,
        /// The limit in bytes.
        limit: u64,
    },
    /// A folder deeper than the walk goes.
    #[error("{} is nested more than {limit} folders deep; it is not read", path.display())]
    TooDeep {
        /// The folder.
        path: PathBuf,
        /// The depth limit.
        limit: usize,
    },
    /// The file changed between its checks and its opening.
    #[error("{} changed while it was being opened; it is not read", path.display())]
    Changed {
        /// The path as given.
        path: PathBuf,
    },
    /// The file system said no.
    #[error("{} cannot be read: {message}", path.display())]
    Io {
        /// The path as given.
        path: PathBuf,
        /// What the file system said.
        message: String,
    },
}

impl Refusal {
    /// The file or folder refused.
    pub fn path(&self) -> &Path {
        match self {
            Refusal::NotFound { path }
            | Refusal::Outside { path, .. }
            | Refusal::LinkOutside { path, .. }
            | Refusal::Dangling { path }
            | Refusal::Loop { path }
            | Refusal::NotRegular { path, .. }
            | Refusal::NotAFolder { path }
            | Refusal::TooBig { path, .. }
            | Refusal::TooDeep { path, .. }
            | Refusal::Changed { path }
            | Refusal::Io { path, .. } => path,
        }
    }

    /// The diagnostic code of this kind of refusal.
    pub fn code(&self) -> DiagCode {
        match self {
            Refusal::NotFound { .. } => DiagCode::FileNotFound,
            Refusal::Outside { .. } => DiagCode::OutsideAllowedFolders,
            Refusal::LinkOutside { .. } => DiagCode::LinkOutside,
            Refusal::Dangling { .. } => DiagCode::DanglingLink,
            Refusal::Loop { .. } => DiagCode::LinkLoop,
            Refusal::NotRegular { .. } => DiagCode::NotARegularFile,
            Refusal::NotAFolder { .. } => DiagCode::NotAFolder,
            Refusal::TooBig { .. } => DiagCode::FileTooLarge,
            Refusal::TooDeep { .. } => DiagCode::FolderTooDeep,
            Refusal::Changed { .. } => DiagCode::FileChanged,
            Refusal::Io { .. } => DiagCode::UnreadableFile,
        }
    }

    /// The code of an I/O error: the refusal's when it carries one ([`Refusal::into_io`]),
    /// else `file-not-found` or `unreadable-file`.
    pub fn io_code(error: &io::Error) -> DiagCode {
        match error.get_ref().and_then(|e| e.downcast_ref::<Refusal>()) {
            Some(refusal) => refusal.code(),
            None if error.kind() == io::ErrorKind::NotFound => DiagCode::FileNotFound,
            None => DiagCode::UnreadableFile,
        }
    }

    /// What is wrong, without the path (every message is the path, then this).
    pub fn reason(&self) -> String {
        let text = self.to_string();
        let path = self.path().display().to_string();
        match text.strip_prefix(&path) {
            Some(rest) => rest.trim_start().to_owned(),
            None => text,
        }
    }

    /// As an `io::Error` (`NotFound` stays `NotFound`, so a search can go on to the
    /// next candidate; every other refusal is `PermissionDenied`). The error carries the
    /// refusal itself, so [`Refusal::io_code`] still knows what it was.
    pub fn into_io(self) -> io::Error {
        let kind = match self {
            Refusal::NotFound { .. } => io::ErrorKind::NotFound,
            _ => io::ErrorKind::PermissionDenied,
        };
        io::Error::new(kind, self)
    }

    fn io(path: &Path, error: &io::Error) -> Self {
        if error.kind() == io::ErrorKind::NotFound {
            Refusal::NotFound {
                path: path.to_owned(),
            }
        } else {
            Refusal::Io {
                path: path.to_owned(),
                message: error.to_string(),
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Walking a folder
// ---------------------------------------------------------------------------------------

/// How to walk a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkOptions {
    /// What to do with links.
    pub links: LinkPolicy,
    /// Folder levels read below the walked folder: 0 lists only its own entries.
    pub max_depth: usize,
    /// Leave out folders whose name starts with `.` (`.git`, `.svn`).
    pub skip_hidden: bool,
}

impl Default for WalkOptions {
    fn default() -> Self {
        Self {
            links: LinkPolicy::StayInside,
            max_depth: MAX_WALK_DEPTH,
            skip_hidden: false,
        }
    }
}

/// What a listed entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file (or a link to one that the policy accepts).
    File,
    /// A folder.
    Folder,
}

/// One entry a walk accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The path as reached from the walked folder (`root/sub/name`).
    pub path: PathBuf,
    /// The path relative to the walked folder.
    pub relative: PathBuf,
    /// File or folder.
    pub kind: EntryKind,
    /// Folder levels below the walked folder (its own entries are at 1).
    pub depth: usize,
}

/// A walk's result: what may be read, and what was refused and why.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Walk {
    /// Accepted files and folders: a folder's files before its sub-folders, each in byte
    /// order of their names, so every machine lists the same order.
    pub entries: Vec<Entry>,
    /// What was left out, with the reason.
    pub refused: Vec<Refusal>,
    /// Folders one level below [`WalkOptions::max_depth`]: seen, not entered. A caller
    /// listing only a folder's own entries takes them as its sub-folders; one walking a
    /// whole tree reports them ([`Walk::too_deep`]).
    pub not_entered: Vec<PathBuf>,
}

impl Walk {
    /// The accepted files.
    pub fn files(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(|e| e.kind == EntryKind::File)
    }

    /// The accepted folders.
    pub fn folders(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(|e| e.kind == EntryKind::Folder)
    }

    /// The folders not entered, as refusals for a walk that should have read them.
    pub fn too_deep(&self, options: &WalkOptions) -> impl Iterator<Item = Refusal> + '_ {
        let limit = options.max_depth;
        self.not_entered.iter().map(move |path| Refusal::TooDeep {
            path: path.clone(),
            limit,
        })
    }
}

/// Lists the folder `root` under `options` (see the module documentation). `Err` only
/// when `root` itself cannot be walked (missing, not a folder, unreadable).
pub fn walk(root: &Path, options: &WalkOptions) -> Result<Walk, Refusal> {
    let meta = fs::metadata(root).map_err(|e| Refusal::io(root, &e))?;
    if !meta.is_dir() {
        return Err(Refusal::NotAFolder {
            path: root.to_owned(),
        });
    }
    let canonical_root = fs::canonicalize(root).map_err(|e| Refusal::io(root, &e))?;
    fs::read_dir(root).map_err(|e| Refusal::io(root, &e))?;
    // Files before folders, then by name: the comparator sees entries before links are
    // followed, so a link sorts among the files. Entries sorted together are one
    // folder's, each path that folder's path joined with the name: their paths' bytes
    // sort as their names do, without finding each name in its path on every compare.
    let mut walker = walkdir::WalkDir::new(root)
        .follow_links(true)
        .max_depth(options.max_depth.saturating_add(1))
        .sort_by(|a, b| {
            (a.file_type().is_dir(), a.path().as_os_str())
                .cmp(&(b.file_type().is_dir(), b.path().as_os_str()))
        })
        .into_iter();
    let mut out = Walk::default();
    // Canonical folders entered through links (FollowAnywhere): each is walked once.
    let mut followed: HashSet<PathBuf> = HashSet::new();
    while let Some(next) = walker.next() {
        let entry = match next {
            Ok(entry) => entry,
            Err(error) => {
                out.refused.push(walk_error(root, &error));
                continue;
            }
        };
        let depth = entry.depth();
        if depth == 0 {
            continue;
        }
        let path = entry.path().to_path_buf();
        let is_folder = entry.file_type().is_dir();
        // Every yielded folder has been opened for reading by walkdir; skipping it right
        // away is how a folder is left out.
        if entry.path_is_symlink() {
            let target = match fs::canonicalize(&path) {
                Ok(target) => target,
                Err(_) => {
                    if is_folder {
                        walker.skip_current_dir();
                    }
                    out.refused.push(Refusal::Dangling { path });
                    continue;
                }
            };
            let inside = target.starts_with(&canonical_root);
            if !inside && options.links == LinkPolicy::StayInside {
                if is_folder {
                    walker.skip_current_dir();
                }
                out.refused.push(Refusal::LinkOutside {
                    path,
                    root: root.to_owned(),
                });
                continue;
            }
            // A folder inside is listed under its real path already; one outside is
            // walked the first time a link reaches it.
            if is_folder && (inside || !followed.insert(target)) {
                walker.skip_current_dir();
                continue;
            }
        }
        let relative = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
        if is_folder {
            let hidden = entry.file_name().to_string_lossy().starts_with('.');
            if options.skip_hidden && hidden {
                walker.skip_current_dir();
                continue;
            }
            if depth > options.max_depth {
                out.not_entered.push(path);
                continue;
            }
            out.entries.push(Entry {
                path,
                relative,
                kind: EntryKind::Folder,
                depth,
            });
        } else if entry.file_type().is_file() {
            out.entries.push(Entry {
                path,
                relative,
                kind: EntryKind::File,
                depth,
            });
        } else {
            let kind = entry
                .metadata()
                .map_or("not a regular file", |m| kind_of(&m));
            out.refused.push(Refusal::NotRegular { path, kind });
        }
    }
    Ok(out)
}

/// The refusal for an entry walkdir could not give.
fn walk_error(root: &Path, error: &walkdir::Error) -> Refusal {
    let path = error.path().unwrap_or(root).to_path_buf();
    if error.loop_ancestor().is_some() {
        return Refusal::Loop { path };
    }
    match error.io_error() {
        Some(io) if io.kind() == io::ErrorKind::NotFound && is_link(&path) => {
            Refusal::Dangling { path }
        }
        Some(io) => Refusal::io(&path, io),
        None => Refusal::Io {
            path,
            message: error.to_string(),
        },
    }
}

fn is_link(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// What a look at a path (`lstat`, or `stat` where links are followed) found: all the
/// rules need of it.
#[derive(Debug, Clone, Copy)]
pub struct Seen {
    /// What is there.
    pub kind: fs::FileType,
    /// Its length in bytes.
    pub len: u64,
}

impl Seen {
    /// What `meta` says.
    pub fn of(meta: &Metadata) -> Self {
        Self {
            kind: meta.file_type(),
            len: meta.len(),
        }
    }
}

/// What a file-system object is, for a message.
fn kind_of(meta: &Metadata) -> &'static str {
    kind_of_type(meta.file_type())
}

/// What a file-system object of this type is, for a message.
fn kind_of_type(kind: fs::FileType) -> &'static str {
    if kind.is_file() {
        return "a regular file";
    }
    if kind.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

// ---------------------------------------------------------------------------------------
// Reading one file
// ---------------------------------------------------------------------------------------

/// An allowed folder: as given (for messages), made absolute by name (for containment
/// by name) and canonical.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Root {
    shown: PathBuf,
    given: PathBuf,
    canonical: PathBuf,
}

/// Which files may be read, and how much of each (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadRules {
    roots: Vec<Root>,
    links: LinkPolicy,
    max_bytes: u64,
    folders: folders::FolderMemo,
}

/// A file that passed the checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// Its canonical path.
    pub canonical: PathBuf,
    /// Its size when checked (a hint only).
    pub len: u64,
}

impl Checked {
    /// Opens the file checked, at its canonical path: a link put there since is not
    /// followed and a named pipe not waited on, but nothing is looked at again (for
    /// `check`, which reads every sample once, at most [`len`](Self::len) bytes of it).
    pub fn open(&self) -> io::Result<File> {
        open_no_wait(&self.canonical)
    }
}

impl ReadRules {
    /// Regular files inside `roots` (folders; one that does not exist allows nothing),
    /// links staying inside the root that holds them, at most [`MAX_TEXT_FILE_BYTES`].
    pub fn within(roots: &[PathBuf]) -> Self {
        let roots = roots
            .iter()
            .filter_map(|root| {
                Some(Root {
                    shown: root.clone(),
                    given: lexical_absolute(root),
                    canonical: fs::canonicalize(root).ok()?,
                })
            })
            .collect();
        Self {
            roots,
            links: LinkPolicy::StayInside,
            max_bytes: MAX_TEXT_FILE_BYTES,
            folders: folders::FolderMemo::default(),
        }
    }

    /// Rules for one file someone chose (a lot, a table being edited): its own folder is
    /// the root, so it must be a regular file of a sane size there, not a pipe, a device
    /// or a link leading elsewhere.
    pub fn for_file(path: &Path) -> Self {
        let folder = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        };
        Self::within(&[folder])
    }

    /// The same rules with another size limit.
    pub fn with_max_bytes(mut self, max_bytes: u64) -> Self {
        self.max_bytes = max_bytes;
        self
    }

    /// The same rules with another link policy.
    pub fn with_links(mut self, links: LinkPolicy) -> Self {
        self.links = links;
        self
    }

    /// The same rules for one pass over many files (a load, a check): each folder's
    /// canonical path is found once and remembered by these rules and their clones, so
    /// a file that is not a link costs one `lstat` instead of a `readlink` per part of
    /// its path. A folder relinked during the pass is seen as it was when first met.
    pub fn remembering_folders(mut self) -> Self {
        self.folders = folders::FolderMemo::remembering();
        self
    }

    /// `path` canonical (every link followed), through the folders remembered when the
    /// rules [remember them](Self::remembering_folders).
    pub fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        self.folders.canonicalize(path)
    }

    /// The size limit in bytes.
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// Rules that take what `seen` says of a path (a regular file or anything else that
    /// is not a link, looked at moments ago — a load's stamps of its samples) instead of
    /// looking again. Only rules [remembering folders](Self::remembering_folders) use it.
    pub fn knowing(mut self, seen: Arc<SeenMap>) -> Self {
        self.folders = self.folders.knowing(seen);
        self
    }

    /// The path these rules [know](Self::knowing) `path` by, shared: what the load
    /// keeps of a sample it looked at holds one copy of its path.
    pub fn shared_path(&self, path: &Path) -> Option<Arc<Path>> {
        self.folders.shared(path)
    }

    /// Checks that `path` exists and lies inside an allowed root (after following its
    /// links as the policy says); returns its canonical path. Folders pass too.
    pub fn contains(&self, path: &Path) -> Result<PathBuf, Refusal> {
        self.locate(path).map(|(canonical, _)| canonical)
    }

    /// [`contains`](Self::contains), with the metadata of the file when it was read
    /// on the way (rules remembering folders read it to tell a link).
    fn locate(&self, path: &Path) -> Result<(PathBuf, Option<Seen>), Refusal> {
        let given = lexical_absolute(path);
        let (canonical, meta) = match self.folders.canonicalize_with_meta(path) {
            Ok(found) => found,
            Err(_) if is_link(path) => {
                return Err(Refusal::Dangling {
                    path: path.to_owned(),
                });
            }
            Err(e) => return Err(Refusal::io(path, &e)),
        };
        let holders: Vec<&Root> = self
            .roots
            .iter()
            .filter(|r| given.starts_with(&r.given) || given.starts_with(&r.canonical))
            .collect();
        let within = |root: &Root| canonical.starts_with(&root.canonical);
        let allowed = match (holders.is_empty(), self.links) {
            (false, LinkPolicy::FollowAnywhere) => true,
            (false, LinkPolicy::StayInside) => holders.iter().any(|r| within(r)),
            (true, _) => self.roots.iter().any(within),
        };
        if allowed {
            return Ok((canonical, meta));
        }
        Err(match holders.first() {
            Some(root) => Refusal::LinkOutside {
                path: path.to_owned(),
                root: root.shown.clone(),
            },
            None => Refusal::Outside {
                path: path.to_owned(),
                roots: self.describe_roots(),
            },
        })
    }

    fn describe_roots(&self) -> String {
        if self.roots.is_empty() {
            return "none".to_owned();
        }
        let shown: Vec<String> = self
            .roots
            .iter()
            .map(|r| r.shown.display().to_string())
            .collect();
        shown.join(", ")
    }

    /// Checks that `path` may be read: inside a root, a regular file, not over the size
    /// limit (by what the file system says; [`ReadRules::read`] counts again).
    pub fn check(&self, path: &Path) -> Result<Checked, Refusal> {
        let (canonical, seen) = self.locate(path)?;
        let seen = match seen {
            Some(seen) => seen,
            None => Seen::of(&fs::metadata(&canonical).map_err(|e| Refusal::io(path, &e))?),
        };
        self.check_meta(path, seen)?;
        Ok(Checked {
            canonical,
            len: seen.len,
        })
    }

    fn check_meta(&self, path: &Path, seen: Seen) -> Result<(), Refusal> {
        if !seen.kind.is_file() {
            return Err(Refusal::NotRegular {
                path: path.to_owned(),
                kind: kind_of_type(seen.kind),
            });
        }
        if seen.len > self.max_bytes {
            return Err(Refusal::TooBig {
                path: path.to_owned(),
                limit: self.max_bytes,
            });
        }
        Ok(())
    }

    /// Opens `path` for reading after [`ReadRules::check`], without blocking on a named
    /// pipe swapped in meanwhile, and checks the open handle again.
    pub fn open(&self, path: &Path) -> Result<File, Refusal> {
        let checked = self.check(path)?;
        let file = open_no_wait(&checked.canonical).map_err(|e| Refusal::io(path, &e))?;
        let meta = file.metadata().map_err(|e| Refusal::io(path, &e))?;
        self.check_meta(path, Seen::of(&meta))?;
        if !same_file(&checked.canonical, &meta) {
            return Err(Refusal::Changed {
                path: path.to_owned(),
            });
        }
        Ok(file)
    }

    /// Reads all of `path` under the rules; more than the limit is refused.
    pub fn read(&self, path: &Path) -> Result<Vec<u8>, Refusal> {
        let file = self.open(path)?;
        let hint = file.metadata().map_or(0, |m| m.len()).min(self.max_bytes);
        let mut bytes = Vec::with_capacity(usize::try_from(hint).unwrap_or(0));
        file.take(self.max_bytes.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| Refusal::io(path, &e))?;
        if bytes.len() as u64 > self.max_bytes {
            return Err(Refusal::TooBig {
                path: path.to_owned(),
                limit: self.max_bytes,
            });
        }
        Ok(bytes)
    }
}

/// Opens a file someone named directly (a command-line argument, a sample the loader
/// already found): it must be a regular file, and a named pipe or device is refused
/// without blocking on it. Links are followed and no folder rule applies; data-folder
/// reads use [`ReadRules`].
pub fn open_regular(path: &Path) -> Result<File, Refusal> {
    open_regular_len(path).map(|(file, _)| file)
}

/// [`open_regular`], with the file's length as the open handle saw it.
pub fn open_regular_len(path: &Path) -> Result<(File, u64), Refusal> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| Refusal::io(path, &e))?;
    let meta = file.metadata().map_err(|e| Refusal::io(path, &e))?;
    if !meta.is_file() {
        return Err(Refusal::NotRegular {
            path: path.to_owned(),
            kind: kind_of(&meta),
        });
    }
    Ok((file, meta.len()))
}

/// Opens for reading without following a final link and, on Unix, without waiting for a
/// writer (a named pipe would otherwise block the open forever).
fn open_no_wait(path: &Path) -> io::Result<File> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW);
    }
    options.open(path)
}

/// True if the open handle's metadata is the file now at `path`.
fn same_file(path: &Path, opened: &Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        fs::symlink_metadata(path).is_ok_and(|m| m.dev() == opened.dev() && m.ino() == opened.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = (path, opened);
        true
    }
}

mod folders;
pub mod output;
mod paths;
pub use folders::{SeenMap, SeenPath};
pub use output::{Output, OutputError, check_output, write_output, write_output_with};
pub use paths::{lexical_absolute, normalize};
#[cfg(test)]
mod tests;
