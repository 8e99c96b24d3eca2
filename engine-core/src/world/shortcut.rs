//! Windows shortcuts (`.lnk`, the Shell Link format of [MS-SHLLINK]) in station and
//! music folders. The game's music player took shortcuts so that players need not copy
//! their MP3s into the game's folders; HitBench reads the same files.
//!
//! A shortcut names its target up to three ways: a path relative to the shortcut
//! (`RELATIVE_PATH`), a local path (`LinkInfo`'s `LocalBasePath` + `CommonPathSuffix`),
//! and a shell item list (not read here). On this machine the relative path is tried
//! first, then the local path as written (with `\` as `/`), then — for a drive letter
//! `Z:`, which Wine maps to `/` — the path below the drive. A shortcut made on Windows to
//! `C:\Users\…` therefore resolves only through its relative path, and when that fails
//! the reason says which paths were tried.
//!
//! The reader is bounded: it looks at no more than [`MAX_SHORTCUT_BYTES`], checks every
//! offset and length against the bytes it has, and never panics.

use std::path::{Path, PathBuf};

/// The largest `.lnk` read (real ones are a few kilobytes).
pub const MAX_SHORTCUT_BYTES: u64 = 64 * 1024;

/// The header's size field and class ID (00021401-0000-0000-C000-000000000046).
const HEADER_SIZE: u32 = 0x4C;
const LINK_CLSID: [u8; 16] = [
    0x01, 0x14, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46,
];

// LinkFlags.
const HAS_ID_LIST: u32 = 0x1;
const HAS_LINK_INFO: u32 = 0x2;
const HAS_NAME: u32 = 0x4;
const HAS_RELATIVE_PATH: u32 = 0x8;
const IS_UNICODE: u32 = 0x80;

// LinkInfoFlags.
const VOLUME_ID_AND_LOCAL_BASE_PATH: u32 = 0x1;

/// What a shortcut says about its target.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShortcutTarget {
    /// `RELATIVE_PATH`: the target relative to the shortcut's folder, as written
    /// (Windows separators).
    pub relative: Option<String>,
    /// `LocalBasePath` followed by `CommonPathSuffix`, as written.
    pub local: Option<String>,
}

/// Why a shortcut is not followed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShortcutError {
    /// The file could not be read.
    #[error("cannot read the shortcut: {0}")]
    Unreadable(String),
    /// Not a Shell Link file, or damaged.
    #[error("not a Windows shortcut ({0})")]
    Malformed(&'static str),
    /// The shortcut names no path (only a shell item list, or nothing).
    #[error("the shortcut names no file path")]
    NoPath,
    /// None of the paths it names is a file here.
    #[error("its target is not on this machine (tried {})", .tried.join(", "))]
    TargetMissing {
        /// The paths tried, in order.
        tried: Vec<String>,
    },
}

/// A little-endian reader over the shortcut's bytes that never reads past the end.
struct Bytes<'a> {
    data: &'a [u8],
}

impl Bytes<'_> {
    fn u16(&self, at: usize) -> Option<u16> {
        let b = self.data.get(at..at.checked_add(2)?)?;
        Some(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&self, at: usize) -> Option<u32> {
        let b = self.data.get(at..at.checked_add(4)?)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A NUL-terminated single-byte string at `at` (code page text; bytes above 0x7F
    /// are taken as Latin-1, which is right for the common Western code page).
    fn ansi(&self, at: usize) -> Option<String> {
        let rest = self.data.get(at..)?;
        let end = rest.iter().position(|&b| b == 0)?;
        Some(rest[..end].iter().map(|&b| char::from(b)).collect())
    }
}

/// Reads what `data` (the bytes of a `.lnk`) says about its target.
pub fn parse(data: &[u8]) -> Result<ShortcutTarget, ShortcutError> {
    let bytes = Bytes { data };
    if bytes.u32(0) != Some(HEADER_SIZE) || data.get(4..20) != Some(&LINK_CLSID[..]) {
        return Err(ShortcutError::Malformed("no Shell Link header"));
    }
    let flags = bytes
        .u32(20)
        .ok_or(ShortcutError::Malformed("cut off in the header"))?;
    let mut at = HEADER_SIZE as usize;
    if flags & HAS_ID_LIST != 0 {
        let size = bytes
            .u16(at)
            .ok_or(ShortcutError::Malformed("cut off in the item list"))?;
        at = at + 2 + usize::from(size);
    }
    let mut target = ShortcutTarget::default();
    if flags & HAS_LINK_INFO != 0 {
        let size = bytes
            .u32(at)
            .ok_or(ShortcutError::Malformed("cut off in the link info"))?
            as usize;
        if size < 0x1C || at.checked_add(size).is_none_or(|end| end > data.len()) {
            return Err(ShortcutError::Malformed("link info of a bad size"));
        }
        let info = Bytes {
            data: &data[at..at + size],
        };
        let info_flags = info.u32(8).unwrap_or(0);
        if info_flags & VOLUME_ID_AND_LOCAL_BASE_PATH != 0 {
            let base = info
                .u32(16)
                .and_then(|offset| info.ansi(offset as usize))
                .ok_or(ShortcutError::Malformed("bad local path"))?;
            let suffix = info
                .u32(24)
                .and_then(|offset| info.ansi(offset as usize))
                .unwrap_or_default();
            target.local = Some(join_windows(&base, &suffix));
        }
        at += size;
    }
    let unicode = flags & IS_UNICODE != 0;
    // The string data in order: name, relative path (then working dir, arguments and
    // icon, which are not needed).
    for (flag, is_relative) in [(HAS_NAME, false), (HAS_RELATIVE_PATH, true)] {
        if flags & flag == 0 {
            continue;
        }
        let count = usize::from(
            bytes
                .u16(at)
                .ok_or(ShortcutError::Malformed("cut off in its strings"))?,
        );
        at += 2;
        let width = if unicode { 2 } else { 1 };
        let raw = data
            .get(at..at + count * width)
            .ok_or(ShortcutError::Malformed("cut off in its strings"))?;
        at += count * width;
        if is_relative {
            let text = if unicode {
                let units: Vec<u16> = raw
                    .chunks_exact(2)
                    .map(|c| u16::from_le_bytes([c[0], c[1]]))
                    .collect();
                String::from_utf16_lossy(&units)
            } else {
                raw.iter().map(|&b| char::from(b)).collect()
            };
            target.relative = Some(text);
        }
    }
    if target.relative.is_none() && target.local.is_none() {
        return Err(ShortcutError::NoPath);
    }
    Ok(target)
}

/// `base` and `suffix` joined with one `\`.
fn join_windows(base: &str, suffix: &str) -> String {
    if suffix.is_empty() {
        base.to_string()
    } else if base.ends_with('\\') {
        format!("{base}{suffix}")
    } else {
        format!("{base}\\{suffix}")
    }
}

/// The paths on this machine a target may be at, in the order they are tried.
pub fn candidates(target: &ShortcutTarget, shortcut: &Path) -> Vec<PathBuf> {
    let folder = shortcut.parent().unwrap_or(Path::new(""));
    let mut out = Vec::new();
    if let Some(relative) = &target.relative {
        out.push(folder.join(relative.replace('\\', "/")));
    }
    if let Some(local) = &target.local {
        let unix = local.replace('\\', "/");
        let bytes = unix.as_bytes();
        if bytes.len() >= 2 && bytes[1] == b':' && bytes[0].is_ascii_alphabetic() {
            // Wine's Z: is the root of the file system.
            if bytes[0].eq_ignore_ascii_case(&b'z') {
                out.push(PathBuf::from(format!(
                    "/{}",
                    unix[2..].trim_start_matches('/')
                )));
            }
        } else {
            out.push(PathBuf::from(unix));
        }
    }
    out
}

/// Follows the shortcut at `path` to a regular file: its real path (links resolved).
pub fn resolve(path: &Path) -> Result<PathBuf, ShortcutError> {
    let file = crate::toolchain::fsrules::open_regular(path)
        .map_err(|r| ShortcutError::Unreadable(r.reason()))?;
    let mut data = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(file, MAX_SHORTCUT_BYTES),
        &mut data,
    )
    .map_err(|e| ShortcutError::Unreadable(e.to_string()))?;
    let target = parse(&data)?;
    let tried = candidates(&target, path);
    for candidate in &tried {
        if std::fs::metadata(candidate).is_ok_and(|m| m.is_file())
            && let Ok(real) = std::fs::canonicalize(candidate)
        {
            return Ok(real);
        }
    }
    let mut shown: Vec<String> = Vec::new();
    if let Some(local) = &target.local {
        shown.push(local.clone());
    }
    shown.extend(tried.iter().map(|p| p.display().to_string()));
    shown.dedup();
    Err(ShortcutError::TargetMissing { tried: shown })
}

/// The bytes of a shortcut to `relative` (and, when given, the local path `local`), as
/// Windows writes them: for tests and for the demo's generator.
pub fn build(relative: Option<&str>, local: Option<&str>) -> Vec<u8> {
    let mut flags = IS_UNICODE;
    if local.is_some() {
        flags |= HAS_LINK_INFO;
    }
    if relative.is_some() {
        flags |= HAS_RELATIVE_PATH;
    }
    let mut out = Vec::new();
    out.extend_from_slice(&HEADER_SIZE.to_le_bytes());
    out.extend_from_slice(&LINK_CLSID);
    out.extend_from_slice(&flags.to_le_bytes());
    out.extend_from_slice(&0x20u32.to_le_bytes()); // FILE_ATTRIBUTE_ARCHIVE
    out.resize(HEADER_SIZE as usize, 0); // times, size, icon, show command, hot key
    if let Some(local) = local {
        // LinkInfo: a 0x1C-byte header, an empty volume ID, the path, an empty suffix.
        let volume: [u8; 16] = [16, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0];
        let volume_at = 0x1Cu32;
        let base_at = volume_at + volume.len() as u32;
        let suffix_at = base_at + local.len() as u32 + 1;
        let size = suffix_at + 1;
        for field in [
            size,
            0x1C,
            VOLUME_ID_AND_LOCAL_BASE_PATH,
            volume_at,
            base_at,
            0,
            suffix_at,
        ] {
            out.extend_from_slice(&field.to_le_bytes());
        }
        out.extend_from_slice(&volume);
        out.extend_from_slice(local.as_bytes());
        out.extend_from_slice(&[0, 0]);
    }
    if let Some(relative) = relative {
        let units: Vec<u16> = relative.encode_utf16().collect();
        out.extend_from_slice(&u16::try_from(units.len()).unwrap_or(u16::MAX).to_le_bytes());
        for unit in units {
            out.extend_from_slice(&unit.to_le_bytes());
        }
    }
    out.extend_from_slice(&0u32.to_le_bytes()); // no extra data
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_built_shortcut_reads_back() {
        let bytes = build(
            Some("..\\music\\song.mp3"),
            Some("C:\\Users\\me\\music\\song.mp3"),
        );
        let target = parse(&bytes).unwrap();
        assert_eq!(target.relative.as_deref(), Some("..\\music\\song.mp3"));
        assert_eq!(
            target.local.as_deref(),
            Some("C:\\Users\\me\\music\\song.mp3")
        );
        let tried = candidates(&target, Path::new("/p/stations/radio/song.lnk"));
        // C: is not on this machine; only the relative path is tried.
        assert_eq!(
            tried,
            [PathBuf::from("/p/stations/radio/../music/song.mp3")]
        );
    }

    #[test]
    fn wine_drive_z_is_the_root() {
        let bytes = build(None, Some("Z:\\home\\me\\song.ogg"));
        let target = parse(&bytes).unwrap();
        assert_eq!(
            candidates(&target, Path::new("/x/a.lnk")),
            [PathBuf::from("/home/me/song.ogg")]
        );
    }

    #[test]
    fn damaged_shortcuts_are_errors_never_panics() {
        assert_eq!(
            parse(b""),
            Err(ShortcutError::Malformed("no Shell Link header"))
        );
        assert_eq!(
            parse(b"this is a text file"),
            Err(ShortcutError::Malformed("no Shell Link header"))
        );
        let good = build(Some("a.mp3"), Some("C:\\a.mp3"));
        // Every truncation and every single-byte change is an answer, not a panic.
        for cut in 0..good.len() {
            let _ = parse(&good[..cut]);
        }
        for at in 0..good.len() {
            for value in [0x00, 0x7F, 0xFF] {
                let mut bad = good.clone();
                bad[at] = value;
                let _ = parse(&bad);
            }
        }
        let none = build(None, None);
        assert_eq!(parse(&none), Err(ShortcutError::NoPath));
    }
}
