//! The rules about what nobody uses: tracks no event maps to and no code plays, patches
//! and hit lists nothing refers to.

use super::facts::{CodeFacts, table_defined};
use super::lint::{Finding, track_title};
use crate::toolchain::diag::DiagCode;
use crate::toolchain::project::Project;
use std::collections::HashSet;

/// The `unused-track` rule.
pub(super) fn unused_tracks(project: &Project, facts: &CodeFacts<'_>, found: &mut Vec<Finding>) {
    for track in project.tracks.values() {
        // A label-made track is there because of its implicit event; a table-defined
        // track needs a real one (the event the loader makes from its label is only a
        // name nobody may ever send).
        let table = table_defined(track, facts);
        let evented = facts.events_of(track.id).any(|e| !table || !e.implicit);
        if evented || (facts.track_ops && facts.constants.contains(&track.id)) {
            continue;
        }
        found.push(Finding::warning(
            DiagCode::UnusedTrack,
            &track.origin,
            format!(
                "{} is never used: no [EventMapping] or .evt event maps to it and no code \
                 plays it (play_trk/stop_trk/kill_trk); map an event to it, or delete it",
                track_title(track)
            ),
        ));
    }
}

/// Every sound ID something refers to: tracks' patches and hit lists, hit-list entries,
/// `[TrackData]` keys and constants the code loads.
pub(super) fn sound_refs(project: &Project, facts: &CodeFacts<'_>) -> HashSet<u32> {
    let mut refs: HashSet<u32> = facts.constants.clone();
    for track in project.tracks.values() {
        refs.extend(track.patch);
        refs.extend(track.hit_list);
    }
    for list in project.hit_lists.values() {
        refs.extend(list.entries.iter().copied());
    }
    for unit in &project.units {
        refs.extend(unit.track_data.iter().map(|(id, _)| *id));
    }
    refs
}

/// The `unused-patch` and `unused-hit-list` rules.
pub(super) fn unused_sounds(project: &Project, facts: &CodeFacts<'_>, found: &mut Vec<Finding>) {
    let refs = sound_refs(project, facts);
    for patch in project.patches.values() {
        if !refs.contains(&patch.id) && !facts.computed_patches.contains(&patch.id) {
            found.push(Finding::warning(
                DiagCode::UnusedPatch,
                &patch.origin,
                format!(
                    "patch {} ({}) is never used: no track, hit list or code refers to it",
                    patch.id, patch.name
                ),
            ));
        }
    }
    for list in project.hit_lists.values() {
        if !refs.contains(&list.id) && !facts.computed_lists.contains(&list.id) {
            found.push(Finding::warning(
                DiagCode::UnusedHitList,
                &list.origin,
                format!(
                    "hit list {} is never used: no track, other hit list or code refers to it",
                    list.id
                ),
            ));
        }
    }
}
