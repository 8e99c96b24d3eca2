//! The objects of the world the tracks play for (people, TVs, radios, pianos…): kind,
//! place, station, and the data fields tracks read with `getsrcdatafield` and write with
//! `setsrcdatafield`. The runtime owns the table because the VM reads it; the world layer
//! (`crate::world`) moves, tunes and places the objects.

use std::collections::BTreeMap;
use std::fmt;

/// Identifies a game object.
pub type ObjectId = i32;

/// Number of data fields an object has (the example tracks use 0–20).
pub const FIELD_COUNT: usize = 32;

/// Data field numbers (the `kField…` constants; hit-reference §1.3).
pub mod field {
    /// 0 male, 1 female, 2 child.
    pub const GENDER: u8 = 0;
    /// Cooking skill.
    pub const COOKING: u8 = 2;
    /// Creativity (the piano's skill).
    pub const CREATIVITY: u8 = 5;
    /// Mechanical skill.
    pub const MECHANICAL: u8 = 7;
    /// Body skill.
    pub const BODY: u8 = 11;
    /// Age.
    pub const AGE: u8 = 14;
    /// Niceness.
    pub const NICE: u8 = 15;
    /// Activeness.
    pub const ACTIVE: u8 = 16;
    /// Generosity.
    pub const GENEROUS: u8 = 17;
    /// Playfulness.
    pub const PLAYFUL: u8 = 18;
    /// Outgoingness.
    pub const OUTGOING: u8 = 19;
    /// Neatness.
    pub const NEAT: u8 = 20;

    /// (number, name) of every named field.
    pub const NAMES: &[(u8, &str)] = &[
        (GENDER, "gender"),
        (COOKING, "cooking"),
        (CREATIVITY, "creativity"),
        (MECHANICAL, "mechanical"),
        (BODY, "body"),
        (AGE, "age"),
        (NICE, "nice"),
        (ACTIVE, "active"),
        (GENEROUS, "generous"),
        (PLAYFUL, "playful"),
        (OUTGOING, "outgoing"),
        (NEAT, "neat"),
    ];

    /// The number of a field name (case-insensitive), or a plain number.
    pub fn by_name(name: &str) -> Option<u8> {
        NAMES
            .iter()
            .find(|(_, n)| n.eq_ignore_ascii_case(name))
            .map(|(number, _)| *number)
            .or_else(|| {
                name.parse()
                    .ok()
                    .filter(|n: &u8| usize::from(*n) < super::FIELD_COUNT)
            })
    }
}

/// What an object is; decides how it sounds (stereos are audible at any distance, TVs
/// and radios tune to stations…).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub enum ObjectKind {
    /// A person (a Sim).
    Person,
    /// A television.
    Tv,
    /// A radio.
    Radio,
    /// A stereo: audible no matter how far off screen.
    Stereo,
    /// A piano.
    Piano,
    /// A baby.
    Baby,
    /// Anything else.
    #[default]
    Generic,
}

impl ObjectKind {
    /// Every kind.
    pub const ALL: [ObjectKind; 7] = [
        ObjectKind::Person,
        ObjectKind::Tv,
        ObjectKind::Radio,
        ObjectKind::Stereo,
        ObjectKind::Piano,
        ObjectKind::Baby,
        ObjectKind::Generic,
    ];

    /// Lower-case name as written in lot files.
    pub fn name(self) -> &'static str {
        match self {
            ObjectKind::Person => "person",
            ObjectKind::Tv => "tv",
            ObjectKind::Radio => "radio",
            ObjectKind::Stereo => "stereo",
            ObjectKind::Piano => "piano",
            ObjectKind::Baby => "baby",
            ObjectKind::Generic => "generic",
        }
    }

    /// True for objects that can be tuned to a station (TVs, radios, stereos, and
    /// generic objects such as a jukebox); people, babies and pianos cannot.
    pub fn can_receive(self) -> bool {
        matches!(
            self,
            ObjectKind::Tv | ObjectKind::Radio | ObjectKind::Stereo | ObjectKind::Generic
        )
    }

    /// The kind with this name (case-insensitive).
    pub fn by_name(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for ObjectKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One object.
///
/// Not `Eq`: the position is made of floats (a lot file never holds NaN or infinities).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WorldObject {
    /// Its ID.
    pub id: ObjectId,
    /// A name people recognise ("Bella", "kitchen TV").
    pub name: String,
    /// What it is.
    pub kind: ObjectKind,
    /// Data fields, all 0 until set.
    pub fields: [i32; FIELD_COUNT],
    /// Where it stands on the lot, in tiles (x, y); fractions are between tile centres.
    pub position: [f32; 2],
    /// Its floor: 0 the ground floor, 1 the one above, -1 a basement.
    pub level: i32,
    /// For TVs, radios and stereos: the station it is tuned to (the station's code).
    pub station: Option<u32>,
    /// For TVs, radios and stereos: whether it is switched on (only a receiver that is on
    /// and tuned counts towards its station's volume and pan, see
    /// [`WorldObject::tuned_station`]).
    pub on: bool,
}

impl WorldObject {
    /// An object with every field 0, at tile (0, 0) of the ground floor, switched off and
    /// tuned to nothing.
    pub fn new(id: ObjectId, name: impl Into<String>, kind: ObjectKind) -> Self {
        Self {
            id,
            name: name.into(),
            kind,
            fields: [0; FIELD_COUNT],
            position: [0.0; 2],
            level: 0,
            station: None,
            on: false,
        }
    }

    /// Places it at tile (`x`, `y`), returning self.
    pub fn at(mut self, x: f32, y: f32) -> Self {
        self.position = [x, y];
        self
    }

    /// Puts it on floor `level`, returning self.
    pub fn on_level(mut self, level: i32) -> Self {
        self.level = level;
        self
    }

    /// Tunes it to `station` and switches it on, returning self.
    pub fn tuned_to(mut self, station: u32) -> Self {
        self.station = Some(station);
        self.on = true;
        self
    }

    /// Switches it on or off, returning self.
    pub fn switched(mut self, on: bool) -> Self {
        self.on = on;
        self
    }

    /// The station it is playing: its station while it is switched on, else `None`.
    pub fn tuned_station(&self) -> Option<u32> {
        self.station.filter(|_| self.on)
    }

    /// A data field (`None` past the last field).
    pub fn field(&self, field: u8) -> Option<i32> {
        self.fields.get(usize::from(field)).copied()
    }

    /// Sets a field (ignored if the number is out of range), returning self.
    pub fn with_field(mut self, field: u8, value: i32) -> Self {
        if let Some(slot) = self.fields.get_mut(usize::from(field)) {
            *slot = value;
        }
        self
    }
}

/// The objects of the world.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct World {
    objects: BTreeMap<ObjectId, WorldObject>,
}

impl World {
    /// Adds or replaces an object.
    pub fn insert(&mut self, object: WorldObject) {
        self.objects.insert(object.id, object);
    }

    /// Removes an object.
    pub fn remove(&mut self, id: ObjectId) -> Option<WorldObject> {
        self.objects.remove(&id)
    }

    /// An object.
    pub fn get(&self, id: ObjectId) -> Option<&WorldObject> {
        self.objects.get(&id)
    }

    /// An object, to change (move it, switch it on…).
    pub fn get_mut(&mut self, id: ObjectId) -> Option<&mut WorldObject> {
        self.objects.get_mut(&id)
    }

    /// How many objects there are.
    pub fn len(&self) -> usize {
        self.objects.len()
    }

    /// True if there are no objects.
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// The objects switched on and tuned to `station` (its receivers), by ID.
    pub fn receivers(&self, station: u32) -> impl Iterator<Item = &WorldObject> {
        self.objects
            .values()
            .filter(move |o| o.tuned_station() == Some(station))
    }

    /// Every object, by ID.
    pub fn objects(&self) -> impl Iterator<Item = &WorldObject> {
        self.objects.values()
    }

    /// A data field of an object (`None` if either does not exist).
    pub fn field(&self, id: ObjectId, field: i32) -> Option<i32> {
        let index = usize::try_from(field).ok()?;
        self.objects.get(&id)?.fields.get(index).copied()
    }

    /// Writes a data field; false if the object or field does not exist.
    pub fn set_field(&mut self, id: ObjectId, field: i32, value: i32) -> bool {
        let Ok(index) = usize::try_from(field) else {
            return false;
        };
        match self
            .objects
            .get_mut(&id)
            .and_then(|o| o.fields.get_mut(index))
        {
            Some(slot) => {
                *slot = value;
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_read_and_write() {
        let mut world = World::default();
        world.insert(WorldObject::new(7, "Bella", ObjectKind::Person).with_field(field::GENDER, 1));
        assert_eq!(world.field(7, 0), Some(1));
        assert_eq!(world.field(7, 99), None);
        assert_eq!(world.field(8, 0), None);
        assert!(world.set_field(7, i32::from(field::NEAT), 40));
        assert_eq!(world.field(7, 20), Some(40));
        assert!(!world.set_field(7, -1, 1));
        assert_eq!(field::by_name("Neat"), Some(20));
        assert_eq!(field::by_name("3"), Some(3));
        assert_eq!(ObjectKind::by_name("TV"), Some(ObjectKind::Tv));
    }

    #[test]
    fn receivers_are_the_objects_on_and_tuned() {
        let mut world = World::default();
        world.insert(WorldObject::new(1, "tv", ObjectKind::Tv).tuned_to(28));
        world.insert(
            WorldObject::new(2, "radio", ObjectKind::Radio)
                .tuned_to(28)
                .switched(false),
        );
        world.insert(
            WorldObject::new(3, "tv 2", ObjectKind::Tv)
                .tuned_to(5)
                .at(3.0, 4.5),
        );
        let ids: Vec<ObjectId> = world.receivers(28).map(|o| o.id).collect();
        assert_eq!(ids, [1]);
        assert_eq!(world.get(3).map(|o| o.position), Some([3.0, 4.5]));
        assert_eq!(world.get(2).and_then(WorldObject::tuned_station), None);
        assert_eq!(world.len(), 3);
    }
}
