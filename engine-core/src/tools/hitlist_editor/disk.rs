//! The editor's side of the disk: reading a table or source under the data folders'
//! rule, a content fingerprint and the modification time to notice changes by others,
//! and an atomic write (a temporary file beside the target, then a rename).

use std::path::Path;
use std::time::SystemTime;

/// Reads a table or source file the editor works on: a regular file of a sane size
/// (never a pipe or device swapped in for it), under the data folders' rule.
pub(crate) fn read_file(path: &Path) -> std::io::Result<Vec<u8>> {
    crate::toolchain::fsrules::ReadRules::for_file(path)
        .read(path)
        .map_err(crate::toolchain::fsrules::Refusal::into_io)
}

/// FNV-1a, 64 bits: a stable content fingerprint.
pub(super) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The file's modification time, if the file system gives one.
pub(super) fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Writes `bytes` to `path` under the output rule (`fsrules::output`): a temporary file
/// beside it, renamed over it, so a reader sees the old file or the new one, never half
/// of one.
///
/// # Errors
/// The first IO error or refusal; `path` is untouched then.
pub(super) fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    crate::toolchain::fsrules::write_output(path, &[], bytes).map_err(|e| e.into_io())
}
