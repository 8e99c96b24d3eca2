//! The rules about what a definition points to: tracks with no code to run, references
//! to neither a patch nor a hit list, and definitions repeated in one data directory.

use super::facts::CodeFacts;
use super::lint::{Finding, track_title};
use crate::toolchain::diag::DiagCode;
use crate::toolchain::formats::hit::HEADER_LEN;
use crate::toolchain::isa;
use crate::toolchain::project::{DefinitionKind, Project};
use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

fn events_of(facts: &CodeFacts<'_>, track: u32) -> Vec<String> {
    facts
        .events_of(track)
        .filter(|e| e.event_type.needs_track())
        .map(|e| format!("`{}`", e.name))
        .collect()
}

/// The `track-without-code` rule.
pub(super) fn tracks_without_code(
    project: &Project,
    facts: &CodeFacts<'_>,
    found: &mut Vec<Finding>,
) {
    for track in project.tracks.values() {
        let problem = match track.entry {
            Some(at) => match project.units.get(at.unit) {
                None => Some("its code is in no loaded unit".to_string()),
                Some(unit) => {
                    let in_table = unit
                        .hit
                        .entry_table()
                        .is_some_and(|t| (t.offset..t.end).contains(&(at.address as usize)));
                    let decoded = isa::decode(unit.hit.bytes(), at.address as usize);
                    if (at.address as usize) < HEADER_LEN || in_table {
                        Some(format!(
                            "its entry, address {} of {}, is not code",
                            at.address,
                            unit.path().display()
                        ))
                    } else if let Err(e) = decoded {
                        Some(format!(
                            "there is no instruction at its entry, address {} of {} ({e})",
                            at.address,
                            unit.path().display()
                        ))
                    } else {
                        None
                    }
                }
            },
            None if track.patch.is_none() && track.hit_list.is_none() => Some(
                "it has no subroutine, and no patch or hit list to play without one".to_string(),
            ),
            None => None,
        };
        let Some(problem) = problem else {
            continue;
        };
        let events = events_of(facts, track.id);
        let consequence = if events.is_empty() {
            "it plays nothing".to_string()
        } else {
            format!("event(s) {} do nothing", events.join(", "))
        };
        found.push(Finding::error(
            DiagCode::TrackWithoutCode,
            &track.origin,
            format!("{}: {problem}; {consequence}", track_title(track)),
        ));
    }
}

/// The `dangling-reference` rule.
pub(super) fn dangling_references(project: &Project, found: &mut Vec<Finding>) {
    let is_sound =
        |id: &u32| project.patches.contains_key(id) || project.hit_lists.contains_key(id);
    for list in project.hit_lists.values() {
        let missing: BTreeSet<u32> = list
            .entries
            .iter()
            .copied()
            .filter(|e| !is_sound(e))
            .collect();
        if missing.is_empty() {
            continue;
        }
        let ids: Vec<String> = missing.iter().map(u32::to_string).collect();
        found.push(Finding::error(
            DiagCode::DanglingReference,
            &list.origin,
            format!(
                "hit list {}: entr{} {} {} neither a patch nor a hit list",
                list.id,
                if ids.len() == 1 { "y" } else { "ies" },
                ids.join(", "),
                if ids.len() == 1 { "is" } else { "are" },
            ),
        ));
    }
    let track_data: HashSet<u32> = project
        .units
        .iter()
        .flat_map(|u| u.track_data.iter().map(|(id, _)| *id))
        .collect();
    for track in project.tracks.values() {
        for (field, id) in [("patch", track.patch), ("hit list", track.hit_list)] {
            let Some(id) = id else {
                continue;
            };
            if is_sound(&id) || track_data.contains(&id) {
                continue;
            }
            let message = format!(
                "{}: its {field} {id} is neither a patch nor a hit list",
                track_title(track)
            );
            // Without code the track plays exactly this; with code it may never use it.
            found.push(if track.entry.is_none() {
                Finding::error(DiagCode::DanglingReference, &track.origin, message)
            } else {
                Finding::warning(DiagCode::DanglingReference, &track.origin, message)
            });
        }
    }
}

/// Index of the data directory a file belongs to (the last one containing it).
fn dir_of(file: &Path, dirs: &[PathBuf]) -> Option<usize> {
    dirs.iter().rposition(|dir| file.starts_with(dir))
}

/// The `duplicate-definition` rule (within one data directory; a later directory
/// overriding an earlier one is on purpose).
pub(super) fn duplicate_definitions(project: &Project, found: &mut Vec<Finding>) {
    for o in &project.overrides {
        if o.kind == DefinitionKind::Name {
            continue;
        }
        let (Some(old_dir), Some(new_dir)) = (
            dir_of(&o.old.file, &project.dirs),
            dir_of(&o.new.file, &project.dirs),
        ) else {
            continue;
        };
        if old_dir != new_dir {
            continue; // a later directory overriding an earlier one: on purpose
        }
        found.push(Finding::warning(
            DiagCode::DuplicateDefinition,
            &o.new,
            format!(
                "{} is defined twice in one data directory: this definition replaces the \
                 one at {}",
                o.what, o.old
            ),
        ));
    }
}
