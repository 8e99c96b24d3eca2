//! The `bad-sample` rule: every sample a patch uses is decoded from end to end with the
//! engine's own decoder, so a damaged file is found before a player hears it.

use super::judging::{Judged, Undecodable, Verdict, sample_rules, verdict};
use super::lint::Finding;
use crate::sound::audio::decode::{DecodeError, DecodeLimits, decode};
use crate::toolchain::diag::DiagCode;
use crate::toolchain::fsrules::ReadRules;
use crate::toolchain::par;
use crate::toolchain::project::packs;
use crate::toolchain::project::{PatchDef, Project, refused_sample};
use std::path::Path;
use std::sync::Arc;

/// The `bad-sample` rule (and `missing-sample` for files the cache would refuse). The
/// files are judged on every core (`hitbench-check` threads, [`par::map_in_order`]),
/// and the findings come out in the same order as one thread would give them. A file
/// `judged` already ([`SampleJudging`](super::SampleJudging), while the project loaded)
/// is not judged again.
pub(super) fn bad_samples(project: &Project, found: &mut Vec<Finding>, judged: Option<&Judged>) {
    let rules = sample_rules(&project.dirs, Arc::clone(&project.seen));
    // Each file with the patches using it (by place), in a fixed order: by the bytes of
    // the path (cheaper than `Path`'s order by parts, or hashing paths by their parts;
    // the findings are sorted by place afterwards).
    let mut uses: Vec<(&Path, &PatchDef)> = project
        .patches
        .values()
        .filter_map(|patch| Some((&**patch.file.as_ref()?, &**patch)))
        .collect();
    // Stable: patches at one place stay in the order of their IDs.
    uses.sort_by(|(a, p), (b, q)| {
        a.as_os_str()
            .cmp(b.as_os_str())
            .then_with(|| (&p.origin.file, p.origin.line).cmp(&(&q.origin.file, q.origin.line)))
    });
    let mut by_file: Vec<(&Path, Vec<&PatchDef>)> = Vec::with_capacity(uses.len());
    for (file, patch) in uses {
        match by_file.last_mut() {
            Some((last, patches)) if last.as_os_str() == file.as_os_str() => patches.push(patch),
            _ => by_file.push((file, vec![patch])),
        }
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
                .filter_map(|(file, patches)| judge(file, patches, &rules, judged))
                .collect()
        },
    ));
}

/// The finding for one sample file and the patches using it (sorted by place), if it
/// is refused or does not decode.
fn judge(
    file: &Path,
    patches: &[&PatchDef],
    rules: &ReadRules,
    judged: Option<&Judged>,
) -> Option<Finding> {
    let limits = DecodeLimits::default();
    let first = patches.first()?;
    // A sample in a zip pack: the pack is what the rules judge; the entry is read
    // from it and decoded whole.
    let decoded = match (&first.pack, first.resource.as_deref()) {
        (Some(pack), Some(entry)) => Some(match rules.check(pack) {
            Err(refusal) => Err(Undecodable::Unreadable(refusal.reason())),
            Ok(_) => match packs::read_entry(pack, entry) {
                Err(why) => Err(Undecodable::Unreadable(why)),
                Ok(bytes) => match decode(entry, &bytes, &limits) {
                    Ok(d) if d.partial.is_some() => {
                        Err(Undecodable::Damaged(d.partial.unwrap_or_default()))
                    }
                    Ok(d) if d.buffer.frames() == 0 => Err(Undecodable::Empty),
                    Ok(_) => Ok(()),
                    // A loose file that long streams; one in a pack cannot.
                    Err(DecodeError::TooLong { max_frames, .. }) => {
                        Err(Undecodable::PackedTooLong(max_frames))
                    }
                    Err(e) => Err(e.into()),
                },
            },
        }),
        _ => None,
    };
    let why = match decoded {
        Some(decoded) => decoded.err()?.to_string(),
        None => {
            let judged_now;
            let verdict = match judged.and_then(|j| j.get(file)) {
                Some(verdict) => verdict,
                None => {
                    judged_now = verdict(file, rules);
                    &judged_now
                }
            };
            match verdict {
                Verdict::Refused(refusal) => {
                    return Some(Finding::error(
                        DiagCode::SampleRefused,
                        &first.origin,
                        refused_sample(first.id, &first.name, &first.path_text, refusal),
                    ));
                }
                Verdict::Decoded(decoded) => decoded.as_ref().err()?.to_string(),
            }
        }
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
