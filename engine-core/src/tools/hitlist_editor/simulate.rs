//! The pick simulation: the engine's no-immediate-repetition rule and seeded generator
//! run N times over a list, with how often and how soon each ID repeats.

use crate::runtime::picks::HitListState;
use crate::runtime::rng::Rng;
use std::collections::HashMap;

/// How one distinct ID of a list fared in a [`simulate`] run.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryPickStats {
    /// The ID.
    pub value: u32,
    /// Its positions in the expanded list (more than one if it is written twice).
    pub positions: Vec<usize>,
    /// How many picks chose it.
    pub count: usize,
    /// `count` as a share of all picks (0–1).
    pub share: f64,
    /// The pick number (0-based) it was first chosen at.
    pub first_pick: Option<usize>,
    /// Mean distance, in picks, between two picks of it (1 would be back to back);
    /// `None` when it was picked fewer than twice.
    pub mean_gap: Option<f64>,
    /// Smallest distance, in picks, between two picks of it.
    pub min_gap: Option<usize>,
    /// The longest run of consecutive picks without it (the whole run if never picked).
    pub longest_absence: usize,
}

/// What [`simulate`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct PickStats {
    /// Number of picks made (`n`, or 0 for an empty list).
    pub picks: usize,
    /// The seed used.
    pub seed: u64,
    /// One row per distinct ID, in list order; the counts sum to `picks`.
    pub entries: Vec<EntryPickStats>,
    /// Picks that repeated the previous pick (0 whenever the list holds two or more
    /// distinct IDs: the engine never repeats then).
    pub back_to_back: usize,
    /// The smallest distance between two picks of the same ID, over all IDs.
    pub min_gap: Option<usize>,
    /// The mean distance between two picks of the same ID, over all repeats.
    pub mean_gap: Option<f64>,
    /// The first picks (at most 32), to show the order entries come in.
    pub preview: Vec<u32>,
}

/// How many picks [`PickStats::preview`] keeps.
const PREVIEW_LEN: usize = 32;

/// Picks `n` times from `entries` with the engine's rule (a random entry, never the
/// previous pick unless it is the only choice: [`crate::runtime::picks`]) and the
/// engine's generator seeded with `seed`, and reports how often and how soon each ID
/// repeats. The same entries, `n` and seed always give the same result.
pub fn simulate(entries: &[u32], n: usize, seed: u64) -> PickStats {
    let mut rng = Rng::new(seed);
    let mut state = HitListState::default();
    let mut rows: Vec<EntryPickStats> = Vec::new();
    let mut row_of: HashMap<u32, usize> = HashMap::new();
    for (position, &value) in entries.iter().enumerate() {
        let row = *row_of.entry(value).or_insert_with(|| {
            rows.push(EntryPickStats {
                value,
                positions: Vec::new(),
                count: 0,
                share: 0.0,
                first_pick: None,
                mean_gap: None,
                min_gap: None,
                longest_absence: 0,
            });
            rows.len() - 1
        });
        if let Some(r) = rows.get_mut(row) {
            r.positions.push(position);
        }
    }
    let mut last_pick: Vec<Option<usize>> = vec![None; rows.len()];
    let mut gap_sums: Vec<usize> = vec![0; rows.len()];
    let mut picks = 0;
    let mut back_to_back = 0;
    let mut previous = None;
    let mut preview = Vec::new();
    for pick_number in 0..n {
        // The list ID only keys the state's memory of the last pick.
        let Some(pick) = state.pick(0, entries, &mut rng) else {
            break;
        };
        picks += 1;
        if previous == Some(pick.value) {
            back_to_back += 1;
        }
        previous = Some(pick.value);
        if preview.len() < PREVIEW_LEN {
            preview.push(pick.value);
        }
        let Some(&row) = row_of.get(&pick.value) else {
            continue;
        };
        let (Some(stats), Some(last), Some(sum)) = (
            rows.get_mut(row),
            last_pick.get_mut(row),
            gap_sums.get_mut(row),
        ) else {
            continue;
        };
        stats.count += 1;
        match *last {
            None => {
                stats.first_pick = Some(pick_number);
                stats.longest_absence = pick_number;
            }
            Some(before) => {
                let gap = pick_number - before;
                *sum += gap;
                stats.min_gap = Some(stats.min_gap.map_or(gap, |m| m.min(gap)));
                stats.longest_absence = stats.longest_absence.max(gap - 1);
            }
        }
        *last = Some(pick_number);
    }
    let mut all_gaps = 0usize;
    let mut all_repeats = 0usize;
    for ((stats, last), sum) in rows.iter_mut().zip(&last_pick).zip(&gap_sums) {
        stats.longest_absence = match last {
            Some(at) => stats.longest_absence.max(picks - 1 - at),
            None => picks,
        };
        if picks > 0 {
            stats.share = stats.count as f64 / picks as f64;
        }
        if stats.count >= 2 {
            let repeats = stats.count - 1;
            stats.mean_gap = Some(*sum as f64 / repeats as f64);
            all_gaps += sum;
            all_repeats += repeats;
        }
    }
    PickStats {
        picks,
        seed,
        min_gap: rows.iter().filter_map(|r| r.min_gap).min(),
        mean_gap: (all_repeats > 0).then(|| all_gaps as f64 / all_repeats as f64),
        entries: rows,
        back_to_back,
        preview,
    }
}
