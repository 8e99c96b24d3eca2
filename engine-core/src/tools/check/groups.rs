//! The `wrong-group` rule: a track whose control group disagrees with what its names
//! (or, failing those, its samples' folders) say it is — the design document's "common
//! mistake" of a sound the wrong option controls.

use super::facts::{CodeFacts, table_defined};
use super::lint::{Finding, track_title};
use crate::runtime::sink::ControlGroup;
use crate::toolchain::diag::DiagCode;
use crate::toolchain::project::{PatchDef, Project};
use std::collections::{BTreeSet, HashSet};

/// Name words that say which option controls a sound.
fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            previous_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && previous_lower && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        word.push(c.to_ascii_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// The group a name says its sound belongs to, if it says exactly one.
pub fn group_from_name(name: &str) -> Option<ControlGroup> {
    let words = words(name);
    let first = words.first().map(String::as_str).unwrap_or("");
    let has = |w: &str| words.iter().any(|x| x == w);
    let vox = has("vox") || has("voice") || has("voices");
    // The design document: Music controls all music *except the load loop*.
    let music = (["music", "mus", "sting", "stings", "bkground"].contains(&first)
        || first.starts_with("radio")
        || has("music"))
        && !has("load");
    let fx = ["tv", "ui", "sfx", "fx"].contains(&first);
    match (fx, music, vox) {
        (true, false, false) => Some(ControlGroup::Fx),
        (false, true, false) => Some(ControlGroup::Music),
        (false, false, true) => Some(ControlGroup::Vox),
        _ => None,
    }
}

/// True if a sample path lies in a folder for voices.
fn in_voice_folder(path: &str) -> bool {
    // Every part but the last (the file), in any case, with no copy made: a project may
    // have 100,000 patches.
    let mut parts = path.split(['/', '\\']);
    parts.next_back();
    let starts = |part: &str, prefix: &str| {
        part.get(..prefix.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
    };
    parts.any(|part| {
        ["vox", "voice", "voices"]
            .iter()
            .any(|word| part.eq_ignore_ascii_case(word))
            || starts(part, "vox_")
            || starts(part, "voice_")
    })
}

/// Every patch a sound ID means (a patch, or the patches of a hit list and the lists in
/// it).
fn patches_of(project: &Project, id: u32, out: &mut BTreeSet<u32>, seen: &mut HashSet<u32>) {
    if !seen.insert(id) {
        return;
    }
    if project.patches.contains_key(&id) {
        out.insert(id);
    } else if let Some(list) = project.hit_lists.get(&id) {
        for entry in &list.entries {
            patches_of(project, *entry, out, seen);
        }
    }
}

/// The `wrong-group` rule.
pub(super) fn wrong_groups(project: &Project, facts: &CodeFacts<'_>, found: &mut Vec<Finding>) {
    for track in project.tracks.values() {
        if !table_defined(track, facts) {
            continue;
        }
        // What the names say: the track's and those of the events that play it.
        let mut names: Vec<(String, ControlGroup)> = Vec::new();
        let mut said = |what: &dyn Fn() -> String, name: &str| {
            if let Some(group) = group_from_name(name) {
                names.push((what(), group));
            }
        };
        said(&|| format!("track name `{}`", track.name), &track.name);
        for event in facts.events_of(track.id) {
            if !event.implicit && event.event_type.needs_track() {
                said(&|| format!("event `{}`", event.name), &event.name);
            }
        }
        let groups: BTreeSet<i32> = names.iter().map(|(_, g)| g.number()).collect();
        if groups.len() > 1 {
            continue; // the names disagree among themselves: no guess
        }
        if let Some((what, group)) = names.first() {
            if *group != track.control_group {
                found.push(Finding::warning(
                    DiagCode::WrongGroup,
                    &track.origin,
                    format!(
                        "{} is in the {} group, but its {what} says {}: the {} option \
                         would not control it; put it in {}",
                        track_title(track),
                        group_name(track.control_group),
                        group_name(*group),
                        option_name(*group),
                        constant_name(*group),
                    ),
                ));
            }
            continue;
        }
        // Names say nothing: what the samples' folders say about voices.
        if track.control_group == ControlGroup::Vox {
            continue;
        }
        let mut sounds: BTreeSet<u32> = track.patch.into_iter().chain(track.hit_list).collect();
        if let Some(entry) = track.entry {
            sounds.extend(facts.reachable_constants(project, entry));
        }
        let mut patches = BTreeSet::new();
        let mut seen = HashSet::new();
        for id in sounds {
            patches_of(project, id, &mut patches, &mut seen);
        }
        let voices: Vec<&PatchDef> = patches
            .iter()
            .filter_map(|id| project.patches.get(id).map(|p| &**p))
            .filter(|p| in_voice_folder(p.resource.as_deref().unwrap_or(&p.path_text)))
            .collect();
        if let Some(first) = voices.first() {
            let more = match voices.len() - 1 {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            found.push(Finding::warning(
                DiagCode::WrongGroup,
                &track.origin,
                format!(
                    "{} is in the {} group, but it plays voice samples (patch {} `{}` at {}{more}): \
                     the VOX option would not control them; put it in kGroupVox",
                    track_title(track),
                    group_name(track.control_group),
                    first.id,
                    first.path_text,
                    first.origin,
                ),
            ));
        }
    }
}

fn constant_name(group: ControlGroup) -> &'static str {
    match group {
        ControlGroup::Fx => "kGroupSfx",
        ControlGroup::Music => "kGroupMusic",
        ControlGroup::Vox => "kGroupVox",
    }
}

fn option_name(group: ControlGroup) -> &'static str {
    match group {
        ControlGroup::Fx => "FX",
        ControlGroup::Music => "Music",
        ControlGroup::Vox => "VOX",
    }
}

/// The path of a patch's sample within its data directory (as the table wrote it when
/// the file was not found).
fn group_name(group: ControlGroup) -> &'static str {
    match group {
        ControlGroup::Fx => "FX (kGroupSfx)",
        ControlGroup::Music => "Music (kGroupMusic)",
        ControlGroup::Vox => "VOX (kGroupVox)",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_say_groups() {
        assert_eq!(group_from_name("vox_baby_cry"), Some(ControlGroup::Vox));
        assert_eq!(
            group_from_name("med_cab_brush_teeth_vox"),
            Some(ControlGroup::Vox)
        );
        assert_eq!(group_from_name("VoxBabyCry"), Some(ControlGroup::Vox));
        assert_eq!(group_from_name("music_buy1"), Some(ControlGroup::Music));
        assert_eq!(group_from_name("radio_rock"), Some(ControlGroup::Music));
        assert_eq!(group_from_name("lot_music_loop"), Some(ControlGroup::Music));
        assert_eq!(group_from_name("music_load_loop"), None);
        assert_eq!(
            group_from_name("tv_repair_deathwarning"),
            Some(ControlGroup::Fx)
        );
        assert_eq!(group_from_name("ui_click"), Some(ControlGroup::Fx));
        assert_eq!(group_from_name("tv_vox_announcer"), None);
        assert_eq!(group_from_name("PlayPiano"), None);
        assert_eq!(group_from_name("track_4096"), None);
        assert_eq!(group_from_name("voxel_hum"), None);
    }

    #[test]
    fn voice_folders() {
        assert!(in_voice_folder("sounds/vox/hello.wav"));
        assert!(in_voice_folder("sounds\\Voices\\hello.wav"));
        assert!(in_voice_folder("vox_adult/hi.wav"));
        assert!(!in_voice_folder("sounds/vox_ouch.wav"));
        assert!(!in_voice_folder("sounds/voxel/x.wav"));
    }
}
