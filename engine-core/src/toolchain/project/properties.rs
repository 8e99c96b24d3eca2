//! The fields of a project's table lines that can be tuned: which section and field of a
//! `[Track]`, `[Patch]` or `[EventMapping]` line each [`Property`] is, what it holds, the
//! word the `tune` command uses — and [`Project::tune`], which gives a loaded definition
//! a new value (the running engine's side of the properties editor,
//! `tools::properties`).

use super::{ControlGroup, EventType, Origin, Project};
use crate::toolchain::formats::hot::{SECTION_EVENT_MAPPING, SECTION_PATCH, SECTION_TRACK};
use crate::toolchain::formats::number::parse_int;
use crate::toolchain::symbols::CONSTANTS;
use serde::{Deserialize, Serialize};

/// One editable field of a `[Track]`, `[Patch]` or `[EventMapping]` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Property {
    /// A track's volume, 0–1024 (more amplifies).
    Volume,
    /// A track's Box-X priority (the 10th field).
    Priority,
    /// A track's ducking priority (`duckpri_…`).
    DuckPriority,
    /// A track's option group (`kGroup…`).
    Group,
    /// How event arguments fill a track's registers (`kArgs…`).
    Arguments,
    /// A track's sound pressure level (`spl_…`).
    Loudness,
    /// A track's own hit list.
    HitList,
    /// A track's patch.
    Patch,
    /// A patch's name.
    PatchName,
    /// A patch's sample file (quoted, backslashes).
    PatchFile,
    /// A patch loops.
    Looped,
    /// A piano patch.
    Piano,
    /// An event's type (`kSndobPlay`, …).
    EventType,
    /// The track (or station code, or music mode) an event refers to.
    EventTrack,
}

/// What a field holds, which decides how the panel edits it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// A number in a range.
    Number {
        /// Smallest sensible value.
        min: i64,
        /// Largest sensible value.
        max: i64,
    },
    /// One of a family of named constants ([`Property::choices`]), or a number.
    Choice,
    /// A patch ID (or name).
    PatchRef,
    /// A hit list ID (or name).
    ListRef,
    /// 0 or 1.
    Flag,
    /// An identifier.
    Name,
    /// A quoted path.
    Path,
}

/// The event-type names offered for an event's type, in number order.
const EVENT_TYPE_NAMES: [&str; 17] = [
    "kSndobPlay",
    "kSndobStop",
    "kSndobKill",
    "kSndobUpdate",
    "kSndobSetVolume",
    "kSndobSetPan",
    "kKillAll",
    "kKillInstance",
    "kTurnOnTV",
    "kTurnOffTV",
    "kUpdateSourceVolPan",
    "kSetMusicMode",
    "kPlayPiano",
    "kDebugEventsOn",
    "kDebugEventsOff",
    "kDebugTracksOn",
    "kDebugTracksOff",
];

impl Property {
    /// A track's fields, in the order the panel shows them.
    pub const TRACK: [Property; 8] = [
        Property::Volume,
        Property::Priority,
        Property::DuckPriority,
        Property::Group,
        Property::Arguments,
        Property::Loudness,
        Property::HitList,
        Property::Patch,
    ];
    /// A patch's fields.
    pub const PATCH: [Property; 4] = [
        Property::PatchName,
        Property::PatchFile,
        Property::Looped,
        Property::Piano,
    ];
    /// An event mapping's fields.
    pub const EVENT: [Property; 2] = [Property::EventType, Property::EventTrack];

    /// Every property.
    pub const ALL: [Property; 14] = [
        Property::Volume,
        Property::Priority,
        Property::DuckPriority,
        Property::Group,
        Property::Arguments,
        Property::Loudness,
        Property::HitList,
        Property::Patch,
        Property::PatchName,
        Property::PatchFile,
        Property::Looped,
        Property::Piano,
        Property::EventType,
        Property::EventTrack,
    ];

    /// The table section the field is in.
    pub fn section(self) -> &'static str {
        match self {
            Property::PatchName | Property::PatchFile | Property::Looped | Property::Piano => {
                SECTION_PATCH
            }
            Property::EventType | Property::EventTrack => SECTION_EVENT_MAPPING,
            _ => SECTION_TRACK,
        }
    }

    /// The field's index in the line's comma-separated value.
    pub fn index(self) -> usize {
        match self {
            Property::EventType => 0,
            Property::PatchName | Property::EventTrack => 1,
            Property::Volume | Property::PatchFile => 2,
            Property::Arguments | Property::Looped => 3,
            Property::DuckPriority | Property::Piano => 4,
            Property::Group => 5,
            Property::Loudness => 6,
            Property::HitList => 7,
            Property::Patch => 8,
            Property::Priority => 9,
        }
    }

    /// What people call it.
    pub fn label(self) -> &'static str {
        match self {
            Property::Volume => "volume",
            Property::Priority => "priority",
            Property::DuckPriority => "duck priority",
            Property::Group => "option group",
            Property::Arguments => "arguments",
            Property::Loudness => "sound pressure level",
            Property::HitList => "hit list",
            Property::Patch => "patch",
            Property::PatchName => "name",
            Property::PatchFile => "file",
            Property::Looped => "looped",
            Property::Piano => "piano",
            Property::EventType => "event type",
            Property::EventTrack => "track",
        }
    }

    /// The word the `tune` command uses for it.
    pub fn word(self) -> &'static str {
        match self {
            Property::Volume => "volume",
            Property::Priority => "priority",
            Property::DuckPriority => "duck",
            Property::Group => "group",
            Property::Arguments => "args",
            Property::Loudness => "spl",
            Property::HitList => "hitlist",
            Property::Patch => "patch",
            Property::PatchName => "name",
            Property::PatchFile => "file",
            Property::Looped => "looped",
            Property::Piano => "piano",
            Property::EventType => "type",
            Property::EventTrack => "track",
        }
    }

    /// What it holds.
    pub fn kind(self) -> FieldKind {
        match self {
            Property::Volume => FieldKind::Number { min: 0, max: 4096 },
            Property::Priority => FieldKind::Number { min: 0, max: 127 },
            Property::EventTrack => FieldKind::Number {
                min: 0,
                max: i64::from(u32::MAX),
            },
            Property::DuckPriority
            | Property::Group
            | Property::Arguments
            | Property::Loudness
            | Property::EventType => FieldKind::Choice,
            Property::HitList => FieldKind::ListRef,
            Property::Patch => FieldKind::PatchRef,
            Property::Looped | Property::Piano => FieldKind::Flag,
            Property::PatchName => FieldKind::Name,
            Property::PatchFile => FieldKind::Path,
        }
    }

    /// True if the running engine takes the new value at once (`tune`); a patch's name
    /// and file take effect when saved (the sample is found and loaded by the reload).
    pub fn is_live(self) -> bool {
        !matches!(self, Property::PatchName | Property::PatchFile)
    }

    /// The named constants a choice field offers, in value order (empty for others).
    pub fn choices(self) -> Vec<(&'static str, i64)> {
        let prefix = match self {
            Property::DuckPriority => "duckpri_",
            Property::Group => "kGroup",
            Property::Arguments => "kArgs",
            Property::Loudness => "spl_",
            Property::EventType => {
                return EVENT_TYPE_NAMES
                    .iter()
                    .filter_map(|&name| {
                        CONSTANTS
                            .iter()
                            .find(|(n, _)| *n == name)
                            .map(|&(n, v)| (n, v))
                    })
                    .collect();
            }
            _ => return Vec::new(),
        };
        let mut found: Vec<(&'static str, i64)> = CONSTANTS
            .iter()
            .filter(|(name, _)| name.starts_with(prefix))
            .map(|&(n, v)| (n, v))
            .collect();
        found.sort_by_key(|&(_, v)| v);
        found
    }

    /// The property the `tune` word `word` names in `section`.
    pub fn from_word(section: &str, word: &str) -> Option<Property> {
        Property::ALL.into_iter().find(|p| {
            p.section().eq_ignore_ascii_case(section) && p.word().eq_ignore_ascii_case(word)
        })
    }
}

/// What the properties editor edits: a track, a patch or an event mapping.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum PropertyTarget {
    /// A track by ID.
    Track(u32),
    /// A patch by ID.
    Patch(u32),
    /// An event mapping by lower-case name.
    Event(String),
}

impl PropertyTarget {
    /// The table section its line is in.
    pub fn section(&self) -> &'static str {
        match self {
            PropertyTarget::Track(_) => SECTION_TRACK,
            PropertyTarget::Patch(_) => SECTION_PATCH,
            PropertyTarget::Event(_) => SECTION_EVENT_MAPPING,
        }
    }

    /// "track", "patch" or "event".
    pub fn kind_name(&self) -> &'static str {
        match self {
            PropertyTarget::Track(_) => "track",
            PropertyTarget::Patch(_) => "patch",
            PropertyTarget::Event(_) => "event",
        }
    }

    /// The fields it has, in the order the panel shows them.
    pub fn properties(&self) -> &'static [Property] {
        match self {
            PropertyTarget::Track(_) => &Property::TRACK,
            PropertyTarget::Patch(_) => &Property::PATCH,
            PropertyTarget::Event(_) => &Property::EVENT,
        }
    }

    /// Where its definition is, if the project has it.
    pub fn origin<'p>(&self, project: &'p Project) -> Option<&'p Origin> {
        match self {
            PropertyTarget::Track(id) => project.tracks.get(id).map(|t| &t.origin),
            PropertyTarget::Patch(id) => project.patches.get(id).map(|p| &p.origin),
            PropertyTarget::Event(name) => project
                .events
                .get(&name.to_ascii_lowercase())
                .map(|e| &e.origin),
        }
    }

    /// The name people know it by (a track's or patch's name, the event's name).
    pub fn name(&self, project: &Project) -> Option<String> {
        match self {
            PropertyTarget::Track(id) => project.tracks.get(id).map(|t| t.name.to_string()),
            PropertyTarget::Patch(id) => project.patches.get(id).map(|p| p.name.to_string()),
            PropertyTarget::Event(name) => project
                .events
                .get(&name.to_ascii_lowercase())
                .map(|e| e.name.to_string()),
        }
    }

    /// The target a line of `section` with key `key` defines.
    pub fn from_key(section: &str, key: &str, project: &Project) -> Option<PropertyTarget> {
        let id = || {
            project
                .resolve_field(Property::EventTrack, key)
                .and_then(|n| u32::try_from(n).ok())
        };
        if section.eq_ignore_ascii_case(SECTION_TRACK) {
            id().map(PropertyTarget::Track)
        } else if section.eq_ignore_ascii_case(SECTION_PATCH) {
            id().map(PropertyTarget::Patch)
        } else if section.eq_ignore_ascii_case(SECTION_EVENT_MAPPING) {
            Some(PropertyTarget::Event(key.trim().to_ascii_lowercase()))
        } else {
            None
        }
    }
}

impl std::fmt::Display for PropertyTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PropertyTarget::Track(id) => write!(f, "track 0x{id:X}"),
            PropertyTarget::Patch(id) => write!(f, "patch {id}"),
            PropertyTarget::Event(name) => write!(f, "event {name}"),
        }
    }
}

impl Project {
    /// The number a field's text stands for: a number, a built-in constant, a `@list`, a
    /// project name (patch or hit-list names, equates) or, for an event's track, a track by
    /// name. `None` for text that is none of these.
    pub fn resolve_field(&self, property: Property, text: &str) -> Option<i64> {
        let text = text.trim();
        let text = text.strip_prefix('@').unwrap_or(text);
        if let Some(n) = parse_int(text) {
            return Some(n);
        }
        if let Some(&(_, v)) = CONSTANTS.iter().find(|(n, _)| n.eq_ignore_ascii_case(text)) {
            return Some(v);
        }
        let lower = text.to_ascii_lowercase();
        if let Some(crate::toolchain::project::NameValue::Value(v)) =
            self.values.get(lower.as_str()).map(|d| d.value)
        {
            return Some(v);
        }
        if property == Property::EventTrack {
            return self
                .tracks
                .values()
                .find(|t| t.name.eq_ignore_ascii_case(text))
                .map(|t| i64::from(t.id));
        }
        None
    }

    /// Gives `target`'s definition the value `value` for `property` (a number: a flag is
    /// 0 or 1, a choice its constant's value, a patch or list its ID; 0 for "none").
    ///
    /// # Errors
    /// A sentence when the project has no such target, the property is not one of its
    /// fields or only takes effect when saved (a patch's name and file), or the value
    /// is out of range.
    pub fn tune(
        &mut self,
        target: &PropertyTarget,
        property: Property,
        value: i64,
    ) -> Result<(), String> {
        if property.section() != target.section() {
            return Err(format!(
                "a {} has no {}",
                target.kind_name(),
                property.label()
            ));
        }
        if let FieldKind::Number { min, max } = property.kind()
            && !(min..=max).contains(&value)
        {
            return Err(format!(
                "{value} is outside {min}–{max} for the {}",
                property.label()
            ));
        }
        let unknown = || format!("the project has no {target}");
        let as_i32 = || i32::try_from(value).map_err(|_| format!("{value} is too large"));
        let as_id = || u32::try_from(value).map_err(|_| format!("{value} is not an ID"));
        match target {
            PropertyTarget::Track(id) => {
                let track = self.tracks.get_mut(id).ok_or_else(unknown)?;
                match property {
                    Property::Volume => track.volume = as_i32()?,
                    Property::Priority => track.priority = as_i32()?,
                    Property::DuckPriority => track.duck_priority = as_i32()?,
                    Property::Group => track.control_group = ControlGroup::from_number(value),
                    Property::Arguments => track.args_type = as_i32()?,
                    Property::Loudness => track.spl = as_i32()?,
                    Property::HitList => track.hit_list = Some(as_id()?).filter(|&l| l != 0),
                    _ => track.patch = Some(as_id()?).filter(|&p| p != 0),
                }
            }
            PropertyTarget::Patch(id) => {
                let patch = self.patches.get_mut(id).ok_or_else(unknown)?;
                match property {
                    Property::Looped => patch.looped = value != 0,
                    Property::Piano => patch.piano = value != 0,
                    _ => {
                        return Err(format!(
                            "a patch's {} takes effect when saved",
                            property.label()
                        ));
                    }
                }
            }
            PropertyTarget::Event(name) => {
                let event = self
                    .events
                    .get_mut(&name.to_ascii_lowercase())
                    .ok_or_else(unknown)?;
                match property {
                    Property::EventType => {
                        event.type_number = value;
                        event.event_type = EventType::from_number(value);
                    }
                    _ => event.track_id = as_id()?,
                }
            }
        }
        Ok(())
    }
}
