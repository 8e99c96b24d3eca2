//! Tracks: a `[Track]` entry resolved field by field (its subroutine found by name, by
//! address or through `[TrackData]`), and the tracks and events made for what no table
//! maps — events whose track only code defines, labels that no event names.

use super::names::{number_of, to_u32};
use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::toolchain::formats::hot::{self, IdRef};
use crate::toolchain::project::defs::{
    CodeRef, ControlGroup, DEFAULT_PRIORITY, EventDef, EventType, FULL_VOLUME, NameValue, Origin,
    TrackDef,
};
use crate::toolchain::project::error::ResolveError;
use crate::toolchain::project::tables::{RawTables, resolve_id};
use crate::toolchain::project::unit::CodeUnit;
use crate::toolchain::project::{IMPLICIT_TRACK_BASE, Project};
use std::collections::HashMap;
use std::sync::Arc;

/// Why a `[Track]` entry does not resolve: the index of the value field at fault (for
/// its column) and the problem.
pub(super) type TrackError = (usize, ResolveError);

/// One `[Track]` entry of `raw`, whose code is unit `owner` of `units` (if any).
pub(super) fn resolve_track(
    track: &hot::TrackDef,
    raw: &RawTables,
    owner: Option<usize>,
    units: &[CodeUnit],
    project: &Project,
) -> Result<TrackDef, TrackError> {
    let number = |field: usize,
                  id: &Option<IdRef>,
                  what: &'static str,
                  default: i64|
     -> Result<i64, TrackError> {
        match id {
            None => Ok(default),
            Some(id) => {
                resolve_id(id, what, |n| number_of(n, Some(raw), project)).map_err(|e| (field, e))
            }
        }
    };
    let id = resolve_id(&track.id, "track ID", |n| number_of(n, Some(raw), project))
        .and_then(|v| to_u32(v, "track ID"))
        .map_err(|e| (0, e))?;
    let optional_id =
        |field: usize, id: &Option<IdRef>, what: &'static str| -> Result<Option<u32>, TrackError> {
            let value = number(field, id, what, 0)?;
            let value = to_u32(value, what).map_err(|e| (field, e))?;
            Ok((value != 0).then_some(value))
        };
    let hit_list = optional_id(7, &track.hitlist, "hit list")?;
    let patch = optional_id(8, &track.patch, "patch")?;
    let owner = owner.and_then(|u| units.get(u).map(|unit| (u, unit)));
    let code = TrackCode {
        id,
        owner,
        units,
        project,
    };
    let (entry, name) = code
        .entry(track.subroutine.as_ref(), [hit_list, patch])
        .map_err(|e| (1, e))?;
    Ok(TrackDef {
        id,
        name: name.into(),
        entry,
        volume: number(2, &track.volume, "volume", i64::from(FULL_VOLUME))? as i32,
        args_type: number(3, &track.arguments, "arguments", 0)? as i32,
        duck_priority: number(4, &track.ducking_priority, "ducking priority", 20)? as i32,
        control_group: ControlGroup::from_number(number(
            5,
            &track.control_group,
            "control group",
            1,
        )?),
        spl: number(6, &track.sound_pressure_level, "sound pressure level", 20)? as i32,
        hit_list,
        patch,
        priority: number(9, &track.priority, "priority", i64::from(DEFAULT_PRIORITY))? as i32,
        origin: raw.source.origin(track.line),
    })
}

/// What a track's code is looked up in.
struct TrackCode<'a> {
    /// The track ID (for messages and the fallback name).
    id: u32,
    /// The unit the track's table belongs to, with its index.
    owner: Option<(usize, &'a CodeUnit)>,
    /// Every unit loaded.
    units: &'a [CodeUnit],
    /// The project's names.
    project: &'a Project,
}

impl TrackCode<'_> {
    /// Where the track's code starts and the track's name: the subroutine field as a
    /// label or an address, else (FreeSO's TS1 rule) `TrackData[hit list]` or
    /// `TrackData[patch]` of the owning unit.
    fn entry(
        &self,
        subroutine: Option<&IdRef>,
        track_data_keys: [Option<u32>; 2],
    ) -> Result<(Option<CodeRef>, String), ResolveError> {
        let id = self.id;
        match subroutine {
            Some(IdRef::Name(label)) => {
                let at = find_subroutine(label, self.owner, self.project).ok_or_else(|| {
                    ResolveError::UnknownSubroutine {
                        track: id,
                        label: label.clone(),
                    }
                })?;
                Ok((Some(at), label.clone()))
            }
            Some(IdRef::Number(address)) if *address != 0 => self.at_address(*address),
            _ => {
                let derived = self.owner.and_then(|(unit_index, unit)| {
                    track_data_keys.into_iter().flatten().find_map(|key| {
                        unit.track_data
                            .iter()
                            .find(|(k, _)| *k == key)
                            .map(|(_, address)| CodeRef {
                                unit: unit_index,
                                address: *address,
                            })
                    })
                });
                let name = derived
                    .and_then(|at| {
                        let unit = self.units.get(at.unit)?;
                        unit.label_at(at.address).map(str::to_string)
                    })
                    .unwrap_or_else(|| format!("track_{id}"));
                Ok((derived, name))
            }
        }
    }

    /// A subroutine given as an address in the owning unit's code.
    fn at_address(&self, address: i64) -> Result<(Option<CodeRef>, String), ResolveError> {
        let id = self.id;
        let (unit_index, unit) = self
            .owner
            .ok_or(ResolveError::AddressWithoutCode { track: id, address })?;
        let inside = u32::try_from(address)
            .ok()
            .filter(|a| (*a as usize) < unit.hit.bytes().len())
            .ok_or(ResolveError::AddressOutsideCode { track: id, address })?;
        let name = unit
            .label_at(inside)
            .map_or_else(|| format!("track_{id}"), str::to_string);
        let at = CodeRef {
            unit: unit_index,
            address: inside,
        };
        Ok((Some(at), name))
    }
}

/// A subroutine name: the owning unit's labels and `.hsm`, then the project's names.
fn find_subroutine(
    label: &str,
    owner: Option<(usize, &CodeUnit)>,
    project: &Project,
) -> Option<CodeRef> {
    if let Some((unit_index, unit)) = owner {
        if let Some(address) = unit.label(label) {
            return Some(CodeRef {
                unit: unit_index,
                address,
            });
        }
        if let Some(symbol) = unit.hsm.as_ref().and_then(|h| h.get(label)) {
            return Some(CodeRef {
                unit: unit_index,
                address: u32::try_from(symbol.value).ok()?,
            });
        }
    }
    match project
        .labels
        .get(label.to_ascii_lowercase().as_str())?
        .value
    {
        NameValue::Code(at) => Some(at),
        NameValue::Value(_) => None,
    }
}

/// A track no `[Track]` entry defines: full volume, FX group, default priority.
fn default_track(id: u32, name: String, entry: Option<CodeRef>, origin: Origin) -> TrackDef {
    TrackDef {
        id,
        name: name.into(),
        entry,
        volume: FULL_VOLUME,
        args_type: 2,
        duck_priority: 20,
        control_group: ControlGroup::Fx,
        spl: 20,
        hit_list: None,
        patch: None,
        priority: DEFAULT_PRIORITY,
        origin,
    }
}

/// Events whose track no table defines get one from the export tables or a label named
/// like the event (TSO's way); every label nobody maps becomes an event of its own name.
pub(super) fn complete_events_and_tracks(project: &mut Project, diagnostics: &mut Vec<Diagnostic>) {
    tracks_for_unmapped_events(project, diagnostics);
    events_for_unmapped_labels(project);
}

/// Events whose track no table defines: the track is made from the export tables or
/// a label named like the event, else the event is warned about.
fn tracks_for_unmapped_events(project: &mut Project, diagnostics: &mut Vec<Diagnostic>) {
    let label_of = |project: &Project, name: &str| -> Option<CodeRef> {
        match project
            .labels
            .get(name.to_ascii_lowercase().as_str())?
            .value
        {
            NameValue::Code(at) => Some(at),
            NameValue::Value(_) => None,
        }
    };
    let mut missing = Vec::new();
    for event in project.events.values() {
        if event.event_type.needs_track() && !project.tracks.contains_key(&event.track_id) {
            missing.push((event.name.clone(), event.track_id, event.origin.clone()));
        }
    }
    for (name, track_id, origin) in missing {
        let exported = project
            .units
            .iter()
            .enumerate()
            .rev()
            .find_map(|(index, unit)| {
                let address = unit.hit.entry(track_id)?;
                Some(CodeRef {
                    unit: index,
                    address,
                })
            });
        match exported.or_else(|| label_of(project, &name)) {
            Some(at) => {
                let label = project
                    .units
                    .get(at.unit)
                    .and_then(|u| u.label_at(at.address))
                    .map_or_else(|| name.to_string(), str::to_string);
                project
                    .tracks
                    .insert(track_id, default_track(track_id, label, Some(at), origin));
            }
            None => diagnostics.push(
                Diagnostic::warning(
                    DiagCode::EventWithoutTrack,
                    &origin.file,
                    origin.line,
                    0,
                    format!(
                        "event `{name}` refers to track {track_id}, which no table, export \
                         table or label defines"
                    ),
                )
                .with_subject(name.to_string()),
            ),
        }
    }
}

/// Labels nobody maps become events of their own name (the TSO convention: the
/// subroutine is named like the event), with a track of their own unless a track
/// already starts there. Labels starting with `_` are internal.
fn events_for_unmapped_labels(project: &mut Project) {
    let by_entry: HashMap<CodeRef, u32> = project
        .tracks
        .values()
        .filter_map(|t| Some((t.entry?, t.id)))
        .collect();
    let mut next_id = IMPLICIT_TRACK_BASE;
    let mut labels: Vec<(Arc<str>, CodeRef, Origin)> = project
        .labels
        .values()
        .filter_map(|n| match n.value {
            NameValue::Code(at) if !n.name.starts_with('_') => {
                Some((n.name.clone(), at, n.origin.clone()))
            }
            _ => None,
        })
        .collect();
    labels.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
    for (label, at, origin) in labels {
        let key = label.to_ascii_lowercase();
        if project.events.contains_key(&key) {
            continue;
        }
        let track_id = match by_entry.get(&at) {
            Some(id) => *id,
            None => {
                while project.tracks.contains_key(&next_id) {
                    next_id += 1;
                }
                let id = next_id;
                project.tracks.insert(
                    id,
                    default_track(id, label.to_string(), Some(at), origin.clone()),
                );
                id
            }
        };
        project.events.insert(
            key,
            EventDef {
                name: label,
                type_number: 1,
                event_type: EventType::Play,
                track_id,
                implicit: true,
                origin,
            },
        );
    }
}
