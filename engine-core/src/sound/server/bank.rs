//! The sound server's own sound registry ("Sound identification" and "Sample selection" in
//! the sound server design): simple sounds, sample groups that play a random sample, and
//! "two groups" selection sounds — the first group at random three times, then the second
//! group in order, then back; any other selection request resets the cycle.

use crate::runtime::hash::FastMap;
use crate::runtime::rng::Rng;
use std::sync::Arc;

/// A registered sound.
pub type SoundId = u32;
/// Who asks for a sound (a unit, an object…).
pub type OriginId = i64;

/// What a sound ID plays.
#[derive(Debug, Clone, PartialEq)]
pub enum SoundDef {
    /// One sample.
    Simple(Arc<str>),
    /// A random sample of several.
    Group(Vec<Arc<str>>),
    /// A selection sound: two other sounds (normally groups).
    TwoGroups(SoundId, SoundId),
}

/// A sound and its range (for volume by distance).
#[derive(Debug, Clone, PartialEq)]
pub struct Sound {
    /// Its name.
    pub name: String,
    /// What it plays.
    pub def: SoundDef,
    /// Distance at which it falls silent (`None`: the global maximum range).
    pub range: Option<f32>,
}

/// The state of selection sounds (the sound server design's `SelectionHandler`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Selection {
    origin: Option<OriginId>,
    sound: Option<SoundId>,
    on_second: bool,
    how_many: usize,
}

/// The registry.
#[derive(Debug, Clone, Default)]
pub struct SoundBank {
    sounds: Vec<Sound>,
    by_name: FastMap<String, SoundId>,
    selection: Selection,
    /// The group the last selection sound's sample came from.
    last_group: Option<SoundId>,
}

impl SoundBank {
    /// Registers (or replaces, by name) a sound; returns its ID.
    pub fn register(&mut self, name: &str, def: SoundDef, range: Option<f32>) -> SoundId {
        let sound = Sound {
            name: name.to_string(),
            def,
            range,
        };
        let key = name.to_ascii_lowercase();
        if let Some(&id) = self.by_name.get(&key)
            && let Some(slot) = self.sounds.get_mut(id as usize)
        {
            *slot = sound;
            return id;
        }
        let id = u32::try_from(self.sounds.len()).unwrap_or(u32::MAX);
        self.sounds.push(sound);
        self.by_name.insert(key, id);
        id
    }

    /// The ID of a name (case-insensitive).
    pub fn id(&self, name: &str) -> Option<SoundId> {
        self.by_name.get(&name.to_ascii_lowercase()).copied()
    }

    /// A sound.
    pub fn get(&self, id: SoundId) -> Option<&Sound> {
        self.sounds.get(id as usize)
    }

    /// The name of the group the last selection sound's sample came from (`None` after
    /// any other sound).
    pub fn last_group(&self) -> Option<&str> {
        self.get(self.last_group?).map(|s| s.name.as_str())
    }

    /// Forgets every sound (a project's world read again registers its own).
    pub fn clear(&mut self) {
        *self = Self::default();
    }

    /// Changes a sound's range (the sound server design's `SetSoundRange`).
    pub fn set_range(&mut self, id: SoundId, range: Option<f32>) {
        if let Some(sound) = self.sounds.get_mut(id as usize) {
            sound.range = range;
        }
    }

    /// Chooses the sample a request plays (the sound server design's `ChooseSample`).
    pub fn choose(
        &mut self,
        id: SoundId,
        origin: Option<OriginId>,
        selection: bool,
        rng: &mut Rng,
    ) -> Option<Arc<str>> {
        let def = self.get(id)?.def.clone();
        self.last_group = None;
        match def {
            SoundDef::TwoGroups(first, second) => {
                self.choose_two_groups(id, first, second, origin, rng)
            }
            other => {
                if selection {
                    // Any other selection sound starts the cycle again.
                    self.selection = Selection::default();
                }
                simple_choose(&other, rng)
            }
        }
    }

    fn choose_two_groups(
        &mut self,
        id: SoundId,
        first: SoundId,
        second: SoundId,
        origin: Option<OriginId>,
        rng: &mut Rng,
    ) -> Option<Arc<str>> {
        let s = &mut self.selection;
        if s.origin != origin || s.sound != Some(id) {
            *s = Selection {
                origin,
                sound: Some(id),
                on_second: false,
                how_many: 1,
            };
            self.last_group = Some(first);
            let def = self.get(first)?.def.clone();
            return simple_choose(&def, rng);
        }
        if !s.on_second {
            s.how_many += 1;
            if s.how_many >= 3 {
                s.how_many = 0;
                s.on_second = true;
            }
            self.last_group = Some(first);
            let def = self.get(first)?.def.clone();
            return simple_choose(&def, rng);
        }
        self.last_group = Some(second);
        let samples = samples_of(&self.get(second)?.def);
        let s = &mut self.selection;
        let pick = samples.get(s.how_many).cloned();
        s.how_many += 1;
        if s.how_many >= samples.len() {
            s.how_many = 0;
            s.on_second = false;
        }
        pick
    }
}

fn samples_of(def: &SoundDef) -> Vec<Arc<str>> {
    match def {
        SoundDef::Simple(s) => vec![Arc::clone(s)],
        SoundDef::Group(g) => g.clone(),
        SoundDef::TwoGroups(..) => Vec::new(),
    }
}

/// A sample of a simple sound or a random one of a group (the sound server design's
/// `SimpleChooseSample`).
fn simple_choose(def: &SoundDef, rng: &mut Rng) -> Option<Arc<str>> {
    match def {
        SoundDef::Simple(s) => Some(Arc::clone(s)),
        SoundDef::Group(g) => g
            .get(rng.below(u32::try_from(g.len()).unwrap_or(0)) as usize)
            .cloned(),
        SoundDef::TwoGroups(..) => None,
    }
}

/// The volume a sound has at `distance` from the view point: full at 0, falling
/// linearly to silence at its range, capped by the global maximum range.
pub fn distance_volume(distance: f32, range: Option<f32>, max_range: f32) -> f32 {
    let range = range.map_or(max_range, |r| r.min(max_range));
    if range.is_nan() || range <= 0.0 || !distance.is_finite() {
        return 0.0;
    }
    (1.0 - distance.max(0.0) / range).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<Arc<str>> {
        list.iter().map(|s| Arc::from(*s)).collect()
    }

    #[test]
    fn groups_choose_at_random_among_their_samples() {
        let mut bank = SoundBank::default();
        let id = bank.register("ack", SoundDef::Group(names(&["a", "b", "c"])), None);
        let mut rng = Rng::new(1);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..100 {
            seen.insert(
                bank.choose(id, Some(1), false, &mut rng)
                    .unwrap_or_else(|| Arc::from("")),
            );
        }
        assert_eq!(seen.len(), 3);
    }

    #[test]
    fn two_groups_play_the_first_three_times_then_cycle_the_second() {
        let mut bank = SoundBank::default();
        let first = bank.register("select", SoundDef::Group(names(&["s1", "s2"])), None);
        let second = bank.register("annoyed", SoundDef::Group(names(&["a1", "a2", "a3"])), None);
        let unit = bank.register("unit", SoundDef::TwoGroups(first, second), None);
        let mut rng = Rng::new(2);
        let mut play = |bank: &mut SoundBank, origin| {
            bank.choose(unit, Some(origin), true, &mut rng)
                .map(|s| s.to_string())
                .unwrap_or_default()
        };
        let sequence: Vec<String> = (0..9).map(|_| play(&mut bank, 7)).collect();
        assert!(
            sequence[..3].iter().all(|s| s.starts_with('s')),
            "{sequence:?}"
        );
        assert_eq!(&sequence[3..6], ["a1", "a2", "a3"]);
        assert!(
            sequence[6..9].iter().all(|s| s.starts_with('s')),
            "{sequence:?}"
        );
        // Another origin (or another selection sound) resets the cycle.
        assert!(play(&mut bank, 8).starts_with('s'));
        let after: Vec<String> = (0..3).map(|_| play(&mut bank, 7)).collect();
        assert!(after.iter().all(|s| s.starts_with('s')), "{after:?}");
        assert_eq!(play(&mut bank, 7), "a1");
        let other = bank.register("other", SoundDef::Simple(Arc::from("o")), None);
        bank.choose(other, Some(7), true, &mut Rng::new(3));
        assert!(
            play(&mut bank, 7).starts_with('s'),
            "reset by another selection sound"
        );
    }

    #[test]
    fn distance_gives_volume_within_range() {
        assert_eq!(distance_volume(0.0, Some(100.0), 500.0), 1.0);
        assert_eq!(distance_volume(50.0, Some(100.0), 500.0), 0.5);
        assert_eq!(distance_volume(150.0, Some(100.0), 500.0), 0.0);
        // The global maximum range caps a sound's own range.
        assert_eq!(distance_volume(50.0, Some(1000.0), 100.0), 0.5);
        assert_eq!(distance_volume(50.0, None, 200.0), 0.75);
        assert_eq!(distance_volume(f32::NAN, None, 200.0), 0.0);
    }
}
