//! A directory of sound files played as a list (the audio technical document: "All sound
//! files in the directory are put into a hit list"): stations and music modes draw from
//! playlists.
//!
//! A playlist is a shuffle bag: every file plays once, in random order, before any file
//! plays again, and a new round never starts with the file that ended the last one — the
//! audio technical document's "random without repetition", stronger than a hit list's "not
//! the same twice in a row" because a song heard twice in ten minutes is noticed. The
//! directory is read again before every pick, so a file a user drops in joins the current
//! round and a file removed is skipped. Files are played in name order inside the directory
//! listing and the bag is drawn with the engine's seeded generator, so a render is
//! reproducible. The directory is listed under the file rules
//! ([`crate::toolchain::fsrules`]): a link leading out of it is not played — unless the
//! playlist is *trusted* ([`Playlist::trusting`]): the station and music folders of the
//! project's own data folder, where a user keeps shortcuts to their music as the game's
//! music player allowed. There symbolic links and Windows `.lnk` shortcuts
//! ([`super::shortcut`]) are followed to audio files anywhere; the list holds the real
//! file, remembers the link it came through, and keeps broken ones aside to be reported
//! once and never played. Plug-in folders and data packs are never trusted.

use crate::runtime::rng::Rng;
use crate::toolchain::fsrules::{self, LinkPolicy, Refusal, WalkOptions};
use std::path::{Path, PathBuf};

/// File extensions a playlist takes (lower case).
pub const AUDIO_EXTENSIONS: [&str; 6] = ["wav", "mp3", "ogg", "oga", "flac", "xa"];

/// True if the path has an audio extension.
pub fn is_audio(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| AUDIO_EXTENSIONS.iter().any(|a| a.eq_ignore_ascii_case(e)))
}

/// What an untrusted playlist folder's links may do: stay inside the folder.
pub const PLAYLIST_LINKS: LinkPolicy = LinkPolicy::StayInside;

/// The extension of a Windows shortcut.
pub const SHORTCUT_EXTENSION: &str = "lnk";

fn is_shortcut(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case(SHORTCUT_EXTENSION))
}

/// A link or shortcut in a playlist folder that does not lead to an audio file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broken {
    /// The link or shortcut.
    pub link: PathBuf,
    /// Why it is skipped.
    pub reason: String,
}

/// A trusted folder's audio: each entry the file to play and, when it was reached
/// through a link or shortcut, that link; and the links that lead nowhere playable.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listing {
    /// `(file, via)`, sorted by the name in the folder.
    pub files: Vec<(PathBuf, Option<PathBuf>)>,
    /// Links and shortcuts skipped, with why.
    pub broken: Vec<Broken>,
}

/// The audio directly inside the trusted folder `dir`: plain files, symbolic links to
/// audio files anywhere (the real file is played), and `.lnk` shortcuts to them. A link
/// or shortcut that leads nowhere, or to something that is not audio, is in
/// [`Listing::broken`]. The same real file reached twice is listed once.
pub fn trusted_files(dir: &Path) -> Result<Listing, PlaylistError> {
    let walk = walk_folder(dir, LinkPolicy::FollowAnywhere)?;
    let mut listing = Listing::default();
    let mut seen = std::collections::HashSet::new();
    let mut entries: Vec<&Path> = walk.files().map(|e| e.path.as_path()).collect();
    entries.sort();
    for path in entries {
        let linked = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        let (file, via) = if is_shortcut(path) {
            match super::shortcut::resolve(path) {
                Ok(real) if is_audio(&real) => (real, Some(path.to_path_buf())),
                Ok(real) => {
                    listing.broken.push(Broken {
                        link: path.to_path_buf(),
                        reason: format!(
                            "it leads to {}, which is not a sound file",
                            real.display()
                        ),
                    });
                    continue;
                }
                Err(e) => {
                    listing.broken.push(Broken {
                        link: path.to_path_buf(),
                        reason: e.to_string(),
                    });
                    continue;
                }
            }
        } else if !is_audio(path) {
            continue;
        } else if linked {
            match std::fs::canonicalize(path) {
                Ok(real) => (real, Some(path.to_path_buf())),
                Err(e) => {
                    listing.broken.push(Broken {
                        link: path.to_path_buf(),
                        reason: e.to_string(),
                    });
                    continue;
                }
            }
        } else {
            (path.to_path_buf(), None)
        };
        if seen.insert(file.clone()) {
            listing.files.push((file, via));
        }
    }
    for refusal in walk.refused {
        if let Refusal::Dangling { path } | Refusal::Loop { path } = &refusal {
            listing.broken.push(Broken {
                link: path.clone(),
                reason: refusal.to_string(),
            });
        }
    }
    Ok(listing)
}

/// Why a playlist's folder could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlaylistError {
    /// The folder is missing, not a folder, or refused by the file rules.
    #[error("cannot read {}: {reason}", dir.display())]
    Unreadable {
        /// The folder.
        dir: PathBuf,
        /// Why (the file rules' words).
        reason: String,
    },
}

/// The files and sub-folders directly inside `dir`, through the file rules (a link
/// leaving `dir` is left out), each sorted by name.
fn listing(dir: &Path) -> Result<(Vec<PathBuf>, Vec<PathBuf>), PlaylistError> {
    let walk = walk_folder(dir, PLAYLIST_LINKS)?;
    let files = walk.files().map(|e| e.path.clone()).collect();
    // Depth 0: the sub-folders are seen, not entered.
    Ok((files, walk.not_entered))
}

/// `dir`'s own entries (its sub-folders seen, not entered) under the file rules with
/// `links`; a folder that cannot be walked is an error naming it.
fn walk_folder(dir: &Path, links: LinkPolicy) -> Result<fsrules::Walk, PlaylistError> {
    let options = WalkOptions {
        links,
        max_depth: 0,
        skip_hidden: false,
    };
    fsrules::walk(dir, &options).map_err(|refusal| PlaylistError::Unreadable {
        dir: dir.to_path_buf(),
        reason: refusal.reason().to_string(),
    })
}

/// Whether a station or music folder is trusted to follow links and shortcuts anywhere:
/// it lies in the project's own data folder (`dirs[0]`) and in none of the later ones
/// (plug-in folders and data packs, which come from elsewhere).
pub fn is_trusted(dir: &Path, dirs: &[PathBuf]) -> bool {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let dir = real(dir);
    let Some((own, others)) = dirs.split_first() else {
        return false;
    };
    let own = real(own);
    dir.starts_with(&own)
        && !others
            .iter()
            .map(|d| real(d))
            .any(|d| d != own && dir.starts_with(d))
}

/// True if `dir` holds something a playlist would play (for a trusted folder, links and
/// shortcuts count, working or not: a broken one is reported when the list is read).
pub fn has_audio(dir: &Path, trusted: bool) -> bool {
    if trusted {
        trusted_files(dir).is_ok_and(|l| !l.files.is_empty() || !l.broken.is_empty())
    } else {
        audio_files(dir).is_ok_and(|f| !f.is_empty())
    }
}

/// The audio files directly inside `dir`, sorted by name (a missing or unreadable
/// directory is an error naming it).
pub fn audio_files(dir: &Path) -> Result<Vec<PathBuf>, PlaylistError> {
    let (mut files, _) = listing(dir)?;
    files.retain(|p| is_audio(p));
    files.sort();
    Ok(files)
}

/// The sub-directories of `dir`, sorted by name.
pub fn sub_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs = listing(dir).map(|(_, dirs)| dirs).unwrap_or_default();
    dirs.sort();
    dirs
}

/// A directory's files as a shuffle bag.
#[derive(Debug, Clone, PartialEq)]
pub struct Playlist {
    /// Where the files are.
    pub dir: PathBuf,
    /// What the list is called in traces ("dialog", "commercials", "buy").
    pub name: String,
    /// Files not yet played this round.
    bag: Vec<PathBuf>,
    /// Files played this round.
    played: Vec<PathBuf>,
    /// The file picked last.
    last: Option<PathBuf>,
    /// Links and shortcuts are followed anywhere (see the module documentation).
    trusted: bool,
    /// For files reached through a link or shortcut: that link.
    via: std::collections::HashMap<PathBuf, PathBuf>,
    /// Broken links found by rescans and not yet taken ([`Self::take_broken`]).
    broken: Vec<Broken>,
    /// Broken links already reported (each is reported once while it stays broken).
    reported: std::collections::HashSet<PathBuf>,
}

impl Playlist {
    /// A playlist over `dir` (read when first picked from).
    pub fn new(name: impl Into<String>, dir: impl Into<PathBuf>) -> Self {
        Self {
            dir: dir.into(),
            name: name.into(),
            bag: Vec::new(),
            played: Vec::new(),
            last: None,
            trusted: false,
            via: std::collections::HashMap::new(),
            broken: Vec::new(),
            reported: std::collections::HashSet::new(),
        }
    }

    /// The same list, following links and shortcuts anywhere when `trusted`.
    #[must_use]
    pub fn trusting(mut self, trusted: bool) -> Self {
        self.trusted = trusted;
        self
    }

    /// The link or shortcut `file` was reached through, if any.
    pub fn via(&self, file: &Path) -> Option<&Path> {
        self.via.get(file).map(PathBuf::as_path)
    }

    /// Broken links and shortcuts found since the last call (each once).
    pub fn take_broken(&mut self) -> Vec<Broken> {
        std::mem::take(&mut self.broken)
    }

    /// Reads the directory again: new files join this round, removed ones leave.
    pub fn rescan(&mut self) -> Result<usize, PlaylistError> {
        let files = if self.trusted {
            let listing = trusted_files(&self.dir)?;
            let now_broken: std::collections::HashSet<PathBuf> =
                listing.broken.iter().map(|b| b.link.clone()).collect();
            // A link fixed and broken again is reported again.
            self.reported.retain(|link| now_broken.contains(link));
            for broken in listing.broken {
                if self.reported.insert(broken.link.clone()) {
                    self.broken.push(broken);
                }
            }
            self.via = listing
                .files
                .iter()
                .filter_map(|(file, via)| via.clone().map(|v| (file.clone(), v)))
                .collect();
            listing.files.into_iter().map(|(file, _)| file).collect()
        } else {
            audio_files(&self.dir)?
        };
        self.bag.retain(|f| files.contains(f));
        self.played.retain(|f| files.contains(f));
        for file in &files {
            if !self.bag.contains(file) && !self.played.contains(file) {
                self.bag.push(file.clone());
            }
        }
        Ok(files.len())
    }

    /// Every file the list holds now (after the last rescan), sorted.
    pub fn files(&self) -> Vec<PathBuf> {
        let mut all: Vec<PathBuf> = self.bag.iter().chain(&self.played).cloned().collect();
        all.sort();
        all
    }

    /// The next file: rescans, then draws from the bag (a new round when it is empty,
    /// never starting with the file played last). `None` when the directory has no
    /// audio (or cannot be read: the error is returned).
    pub fn pick(&mut self, rng: &mut Rng) -> Result<Option<PathBuf>, PlaylistError> {
        self.rescan()?;
        if self.bag.is_empty() {
            self.bag.append(&mut self.played);
        }
        if self.bag.is_empty() {
            return Ok(None);
        }
        let candidates: Vec<usize> = (0..self.bag.len())
            .filter(|&i| self.bag.len() == 1 || Some(&self.bag[i]) != self.last.as_ref())
            .collect();
        let choice = candidates
            .get(rng.below(u32::try_from(candidates.len()).unwrap_or(u32::MAX)) as usize)
            .copied()
            .unwrap_or(0);
        let file = self.bag.remove(choice);
        self.played.push(file.clone());
        self.last = Some(file.clone());
        Ok(Some(file))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn playlists_take_every_kind_of_file_the_decoders_read() {
        assert_eq!(
            AUDIO_EXTENSIONS.as_slice(),
            crate::sound::audio::decode::EXTENSIONS
        );
        assert!(is_audio(Path::new("radio/jingle.XA")));
    }

    fn temp(tag: &str, files: &[&str]) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("hitbench-playlist-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for f in files {
            std::fs::write(dir.join(f), b"x").unwrap();
        }
        dir
    }

    #[test]
    fn every_file_plays_once_per_round_and_rounds_do_not_repeat_at_the_seam() {
        let dir = temp("round", &["a.ogg", "b.wav", "c.mp3", "notes.txt"]);
        let mut list = Playlist::new("songs", &dir);
        let mut rng = Rng::new(3);
        let mut last = None;
        for _ in 0..20 {
            let mut round = Vec::new();
            for _ in 0..3 {
                let file = list.pick(&mut rng).unwrap().unwrap();
                assert_ne!(Some(&file), last.as_ref(), "no file twice in a row");
                round.push(file.clone());
                last = Some(file);
            }
            round.sort();
            assert_eq!(round.len(), 3);
            round.dedup();
            assert_eq!(round.len(), 3, "each file once per round");
        }
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_link_leaving_the_folder_is_not_played() {
        let outside = temp("outside", &["secret.ogg"]);
        let dir = temp("links", &["a.ogg"]);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::os::unix::fs::symlink(outside.join("secret.ogg"), dir.join("leak.ogg")).unwrap();
        std::os::unix::fs::symlink(dir.join("a.ogg"), dir.join("alias.ogg")).unwrap();
        std::os::unix::fs::symlink(&outside, dir.join("elsewhere")).unwrap();
        assert_eq!(
            audio_files(&dir).unwrap(),
            [dir.join("a.ogg"), dir.join("alias.ogg")]
        );
        assert_eq!(sub_dirs(&dir), [dir.join("sub")]);
        std::fs::remove_dir_all(&dir).unwrap();
        std::fs::remove_dir_all(&outside).unwrap();
    }

    #[test]
    fn dropped_in_files_join_and_removed_ones_leave() {
        let dir = temp("drop", &["a.ogg"]);
        let mut list = Playlist::new("songs", &dir);
        let mut rng = Rng::new(1);
        assert_eq!(list.pick(&mut rng).unwrap().unwrap(), dir.join("a.ogg"));
        std::fs::write(dir.join("mine.mp3"), b"x").unwrap();
        assert_eq!(
            list.pick(&mut rng).unwrap().unwrap(),
            dir.join("mine.mp3"),
            "the dropped-in file plays in this round"
        );
        std::fs::remove_file(dir.join("a.ogg")).unwrap();
        for _ in 0..4 {
            assert_eq!(list.pick(&mut rng).unwrap().unwrap(), dir.join("mine.mp3"));
        }
        std::fs::remove_dir_all(&dir).unwrap();
        let e = list.pick(&mut rng).unwrap_err();
        assert!(e.to_string().contains("cannot read"), "{e}");
    }
}
