//! The `bad-sample` rule: every sample a patch uses is decoded from end to end with the
//! engine's own decoder, so a damaged file is found before a player hears it.

use super::lint::Finding;
use crate::sound::audio::decode::{DecodeError, DecodeLimits, decode, scan_opened};
use crate::toolchain::diag::DiagCode;
use crate::toolchain::fsrules::{Checked, MAX_RESOURCE_BYTES, ReadRules};
use crate::toolchain::par;
use crate::toolchain::project::packs;
use crate::toolchain::project::{PatchDef, Project, refused_sample};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// Why a sample file does not decode. The finding that reports it names the patch and
/// the file; this says what is wrong with it.
#[derive(Debug, thiserror::Error)]
enum Undecodable {
    /// Part of it decodes, then it is damaged.
    #[error("it is damaged ({0})")]
    Damaged(String),
    /// It decodes to nothing.
    #[error("it holds no audio")]
    Empty,
    /// It cannot be opened or not a frame decodes.
    #[error(transparent)]
    Decode(#[from] DecodeError),
}

/// Decodes a sample file from end to end (through the engine's own decoder, one chunk at
/// a time, up to the decoder's length ceiling).
fn decode_whole(file: &Path, checked: &Checked) -> Result<(), Undecodable> {
    let opened = checked.open().map_err(|e| {
        Undecodable::from(DecodeError::Io {
            path: file.to_path_buf(),
            source: e,
        })
    })?;
    match scan_opened(
        file,
        opened,
        checked.len,
        DecodeLimits::default().max_frames,
    ) {
        Ok(scanned) => match scanned.partial {
            Some(why) => Err(Undecodable::Damaged(why)),
            None if scanned.frames == 0 => Err(Undecodable::Empty),
            None => Ok(()),
        },
        // Longer than a sample may be held: it streams, and what was read decoded.
        Err(DecodeError::TooLong { .. }) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// The `bad-sample` rule (and `missing-sample` for files the cache would refuse). The
/// files are judged on every core (`hitbench-check` threads, [`par::map_in_order`]),
/// and the findings come out in the same order as one thread would give them.
pub(super) fn bad_samples(project: &Project, found: &mut Vec<Finding>) {
    // The cache's rule: a sample is only opened if the cache would serve it.
    let rules = ReadRules::within(&project.dirs)
        .with_max_bytes(MAX_RESOURCE_BYTES)
        .remembering_folders()
        .knowing(Arc::clone(&project.seen));
    let mut by_file: HashMap<&Path, Vec<&PatchDef>> = HashMap::with_capacity(project.patches.len());
    for patch in project.patches.values() {
        if let Some(file) = &patch.file {
            by_file.entry(&**file).or_default().push(patch);
        }
    }
    // In a fixed order, by the bytes of the path (cheaper than `Path`'s order by parts;
    // the findings are sorted by place afterwards).
    let mut by_file: Vec<(&Path, Vec<&PatchDef>)> = by_file.into_iter().collect();
    by_file.sort_unstable_by(|a, b| a.0.as_os_str().cmp(b.0.as_os_str()));
    for (_, patches) in &mut by_file {
        patches
            .sort_by(|a, b| (&a.origin.file, a.origin.line).cmp(&(&b.origin.file, b.origin.line)));
    }
    // One file at a time is a few system calls: runs of them, on every core.
    found.extend(par::map_in_order(
        &by_file,
        64,
        256,
        "hitbench-check",
        |files| {
            files
                .iter()
                .filter_map(|(file, patches)| judge(file, patches, &rules))
                .collect()
        },
    ));
}

/// The finding for one sample file and the patches using it (sorted by place), if it
/// is refused or does not decode.
fn judge(file: &Path, patches: &[&PatchDef], rules: &ReadRules) -> Option<Finding> {
    let limits = DecodeLimits::default();
    let first = patches.first()?;
    // A sample in a zip pack: the pack is what the rules judge; the entry is read
    // from it and decoded whole.
    let decoded = match (&first.pack, first.resource.as_deref()) {
        (Some(pack), Some(entry)) => Some(match rules.check(pack) {
            Err(refusal) => Err(Undecodable::Damaged(refusal.reason())),
            Ok(_) => match packs::read_entry(pack, entry) {
                Err(why) => Err(Undecodable::Damaged(why)),
                Ok(bytes) => match decode(entry, &bytes, &limits) {
                    Ok(d) if d.partial.is_some() => {
                        Err(Undecodable::Damaged(d.partial.unwrap_or_default()))
                    }
                    Ok(d) if d.buffer.frames() == 0 => Err(Undecodable::Empty),
                    Ok(_) | Err(DecodeError::TooLong { .. }) => Ok(()),
                    Err(e) => Err(e.into()),
                },
            },
        }),
        _ => None,
    };
    let decoded = match decoded {
        Some(decoded) => decoded,
        None => match rules.check(file) {
            Err(refusal) => {
                return Some(Finding::error(
                    DiagCode::SampleRefused,
                    &first.origin,
                    refused_sample(first.id, &first.name, &first.path_text, &refusal),
                ));
            }
            Ok(checked) => decode_whole(file, &checked),
        },
    };
    let Err(why) = decoded else {
        return None;
    };
    let others = match patches.len() - 1 {
        0 => String::new(),
        1 => " (1 other patch uses it too)".to_string(),
        n => format!(" ({n} other patches use it too)"),
    };
    Some(Finding::error(
        DiagCode::BadSample,
        &first.origin,
        format!(
            "patch {} ({}): sample `{}` does not decode: {why}{others}; \
             re-export it, or point the patch at a good file",
            first.id,
            first.name,
            first
                .resource
                .as_deref()
                .map_or_else(|| file.display().to_string(), str::to_string),
        ),
    ))
}
