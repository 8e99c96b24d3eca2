//! The project's files as a capture saw them: path, size and SHA-256, and what changed
//! since.

use super::FileHash;
use crate::toolchain::fsrules::{self, EntryKind, LinkPolicy, ReadRules, WalkOptions};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Every file of the data directories `dirs`, with its size and SHA-256 (files that
/// cannot be read are left out: the project's own load reports them).
pub fn hash_files(dirs: &[PathBuf]) -> Vec<FileHash> {
    let mut out = Vec::new();
    let options = WalkOptions {
        links: LinkPolicy::StayInside,
        ..WalkOptions::default()
    };
    for dir in dirs {
        let Ok(walk) = fsrules::walk(dir, &options) else {
            continue;
        };
        let rules = ReadRules::within(std::slice::from_ref(dir))
            .with_max_bytes(fsrules::MAX_RESOURCE_BYTES);
        for entry in walk.entries {
            if entry.kind != EntryKind::File {
                continue;
            }
            let Ok(bytes) = rules.read(&entry.path) else {
                continue;
            };
            out.push(FileHash {
                dir: dir.clone(),
                path: entry.relative,
                bytes: bytes.len() as u64,
                sha256: hex(&Sha256::digest(&bytes)),
            });
        }
    }
    out.sort_by(|a, b| (&a.dir, &a.path).cmp(&(&b.dir, &b.path)));
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The files that differ between a capture's project and `now`: changed, gone or new
/// (by their path inside their data directory).
pub fn changed_files(then: &[FileHash], now: &[FileHash]) -> Vec<String> {
    let index = |files: &[FileHash]| -> BTreeMap<PathBuf, String> {
        files
            .iter()
            .map(|f| (f.path.clone(), f.sha256.clone()))
            .collect()
    };
    let (then, now) = (index(then), index(now));
    let mut out = Vec::new();
    for (path, hash) in &then {
        match now.get(path) {
            Some(new) if new != hash => out.push(format!("changed: {}", path.display())),
            Some(_) => {}
            None => out.push(format!("gone: {}", path.display())),
        }
    }
    out.extend(
        now.keys()
            .filter(|path| !then.contains_key(*path))
            .map(|path| format!("new: {}", path.display())),
    );
    out
}
