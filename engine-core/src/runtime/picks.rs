//! Hit lists at run time: random choice without immediate repetition, per list, from
//! the engine's seeded generator, so no sample plays twice in a row.

use super::rng::Rng;
use crate::runtime::hash::FastMap;

/// One pick and what the no-repeat rule kept out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pick {
    /// The chosen entry.
    pub value: u32,
    /// Its position in the list.
    pub index: usize,
    /// Entries that could not be chosen because they were picked last time.
    pub excluded: Vec<u32>,
}

/// Chooses an entry of `entries` at random, never `last` unless it is the only choice.
pub fn pick(entries: &[u32], last: Option<u32>, rng: &mut Rng) -> Option<Pick> {
    if entries.is_empty() {
        return None;
    }
    let allowed = |v: u32| Some(v) != last;
    let candidates = entries.iter().filter(|v| allowed(**v)).count();
    let (index, excluded) = if candidates == 0 {
        // Every entry is the last pick: repeating is the only choice.
        (rng.below(entries.len() as u32) as usize, Vec::new())
    } else {
        let nth = rng.below(candidates as u32) as usize;
        let index = entries
            .iter()
            .enumerate()
            .filter(|(_, v)| allowed(**v))
            .nth(nth)
            .map_or(0, |(i, _)| i);
        let excluded = last.filter(|l| entries.contains(l)).into_iter().collect();
        (index, excluded)
    };
    Some(Pick {
        value: entries.get(index).copied().unwrap_or(0),
        index,
        excluded,
    })
}

/// The last pick of every global list.
#[derive(Debug, Clone, Default)]
pub struct HitListState {
    last: FastMap<u32, u32>,
}

impl HitListState {
    /// Picks from global list `id` and remembers the pick.
    pub fn pick(&mut self, id: u32, entries: &[u32], rng: &mut Rng) -> Option<Pick> {
        let chosen = pick(entries, self.last.get(&id).copied(), rng)?;
        self.last.insert(id, chosen.value);
        Some(chosen)
    }

    /// Forgets every list's last pick.
    pub fn reset(&mut self) {
        self.last.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_twice_in_a_row_and_uniform() {
        let mut rng = Rng::new(11);
        let mut state = HitListState::default();
        let entries = [10, 11, 12, 13, 14];
        let mut counts = [0u32; 5];
        let mut previous = None;
        for _ in 0..10_000 {
            let p = state.pick(92, &entries, &mut rng).expect("non-empty");
            assert_ne!(Some(p.value), previous, "back-to-back repeat");
            if let Some(prev) = previous {
                assert_eq!(p.excluded, vec![prev]);
            }
            previous = Some(p.value);
            counts[p.index] += 1;
        }
        for count in counts {
            let share = f64::from(count) / 10_000.0;
            assert!((0.18..=0.22).contains(&share), "{counts:?}");
        }
    }

    #[test]
    fn single_and_empty_lists() {
        let mut rng = Rng::new(1);
        assert_eq!(pick(&[], None, &mut rng), None);
        let only = pick(&[7], Some(7), &mut rng).expect("one entry");
        assert_eq!((only.value, only.excluded.len()), (7, 0));
        let dup = pick(&[7, 7, 8], Some(7), &mut rng).expect("entries");
        assert_eq!(dup.value, 8);
        assert_eq!(dup.excluded, vec![7]);
    }
}
