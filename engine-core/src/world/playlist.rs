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
//! ([`crate::toolchain::fsrules`]): a link leading out of it is not played.

use crate::runtime::rng::Rng;
use crate::toolchain::fsrules::{self, LinkPolicy, WalkOptions};
use std::path::{Path, PathBuf};

/// File extensions a playlist takes (lower case).
pub const AUDIO_EXTENSIONS: [&str; 6] = ["wav", "mp3", "ogg", "oga", "flac", "xa"];

/// True if the path has an audio extension.
pub fn is_audio(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| AUDIO_EXTENSIONS.iter().any(|a| a.eq_ignore_ascii_case(e)))
}

/// What a playlist folder's links may do: stay inside the folder. (A later change may
/// let folders the user trusts, music and stations, follow links anywhere.)
pub const PLAYLIST_LINKS: LinkPolicy = LinkPolicy::StayInside;

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
    let options = WalkOptions {
        links: PLAYLIST_LINKS,
        max_depth: 0,
        skip_hidden: false,
    };
    let walk = fsrules::walk(dir, &options).map_err(|refusal| PlaylistError::Unreadable {
        dir: dir.to_path_buf(),
        reason: refusal.reason().to_string(),
    })?;
    let files = walk.files().map(|e| e.path.clone()).collect();
    // Depth 0: the sub-folders are seen, not entered.
    Ok((files, walk.not_entered))
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
        }
    }

    /// Reads the directory again: new files join this round, removed ones leave.
    pub fn rescan(&mut self) -> Result<usize, PlaylistError> {
        let files = audio_files(&self.dir)?;
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
