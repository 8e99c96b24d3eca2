//! Playing the score: every step of a tick at its exact sample, the rows due on it (with
//! their probability, and one of each group), a row's note placed in 3D around the
//! listener, its sample picked for freshness; and sounding notes following the listener.

use super::score::{Daytime, Row};
use super::{Ambience, Sounding, stem};
use crate::runtime::clock::SampleTime;
use crate::runtime::sink::{
    ControlGroup, NoteId, SampleRef, SoundCommand, SoundSink, WORLD_PRIORITY,
};
use crate::runtime::trace::AmbienceEvent;
use crate::runtime::units::{Gain, Pan};
use crate::world::sound::{NoteIds, sample_ref};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Most steps one [`Ambience::update`] schedules; a longer jump skips ahead.
const MAX_STEPS_PER_UPDATE: u32 = 4096;
/// Ramp in seconds for gain and pan changes when the listener moves.
const FOLLOW_SECONDS: f64 = 0.05;
/// How many recent picks [`AmbienceState::recent`](super::AmbienceState::recent) shows.
const RECENT_SHOWN: usize = 8;

/// Where a score note sounds: its place on the lot and how it is heard from the listener.
struct Spot {
    /// Lot tiles.
    position: [f32; 2],
    /// Gain from the distance to the listener (1 for a stereo row).
    gain_3d: f32,
    /// Pan −1…1.
    pan: f32,
}

/// A score note about to start.
struct ScoreNote {
    /// Its note ID.
    note: NoteId,
    /// When it starts.
    at: SampleTime,
    /// When a looping note's hold ends (its fade out starts).
    hold_end: SampleTime,
    /// What it plays.
    sample: SampleRef,
    /// Linear gain once faded in.
    gain: f32,
    /// Pan −1…1.
    pan: f32,
    /// Playback-rate factor.
    pitch: f32,
}

impl Ambience {
    /// 3D gain and pan of a lot position heard from the listener.
    fn hear(&self, position: [f32; 2]) -> (f32, f32) {
        let distance = self.settings.distance.max(1.0e-3);
        let dx = position[0] - self.listener[0];
        let dy = position[1] - self.listener[1];
        let d = dx.hypot(dy);
        let gain = (1.0 - d / distance).clamp(0.0, 1.0);
        let pan = (dx / (distance / 2.0)).clamp(-1.0, 1.0);
        (gain, pan)
    }

    /// Once per tick: sounding notes follow the listener, and every score step in
    /// `[now, until)` is played at its exact sample.
    pub fn update(
        &mut self,
        now: SampleTime,
        until: SampleTime,
        out: &mut dyn SoundSink,
        ids: &mut NoteIds,
    ) {
        if self.listener != self.applied_listener {
            self.applied_listener = self.listener;
            let ramp = self.frames(FOLLOW_SECONDS);
            let updates: Vec<(NoteId, f32, f32)> = self
                .sounding
                .iter()
                .filter_map(|(note, s)| {
                    let (g, pan) = self.hear(s.position?);
                    Some((*note, s.gain * g, pan))
                })
                .collect();
            for (note, gain, pan) in updates {
                out.send(SoundCommand::SetGain {
                    note,
                    at: now,
                    gain: Gain::new(gain),
                    ramp,
                });
                out.send(SoundCommand::SetPan {
                    note,
                    at: now,
                    pan: Pan::new(pan),
                    ramp,
                });
            }
        }
        if !self.enabled || until <= now {
            return;
        }
        let Some(grid) = self.score.as_ref().map(|s| s.grid) else {
            return;
        };
        let mut k = self.next_step.max(grid.first_step_at(now));
        let mut steps = 0;
        while grid.step_time(k) < until {
            if steps == MAX_STEPS_PER_UPDATE {
                k = grid.first_step_at(until);
                self.news.push(AmbienceEvent::SkippedAhead);
                break;
            }
            self.play_step(k, out, ids);
            k += 1;
            steps += 1;
        }
        self.next_step = k;
    }

    /// Plays the rows due on step `k`.
    fn play_step(&mut self, k: u64, out: &mut dyn SoundSink, ids: &mut NoteIds) {
        let Some(score) = &self.score else {
            return;
        };
        let steps = u64::from(score.summary.steps_per_bar.max(1));
        let column = (k % steps) as u32;
        let night = self.night;
        let due: Vec<(usize, i32, i32)> = score
            .rows
            .iter()
            .enumerate()
            .filter(|(i, row)| {
                let on_step = if row.every > 0 {
                    column >= row.step && (column - row.step).is_multiple_of(row.every)
                } else {
                    column == row.step
                };
                let time_ok = match row.daytime {
                    Daytime::Always => true,
                    Daytime::Day => !night,
                    Daytime::Night => night,
                };
                on_step
                    && time_ok
                    && self.busy_until.get(*i).is_none_or(|b| *b <= k)
                    && row.probability > 0
            })
            .map(|(i, row)| (i, row.probability, row.group))
            .collect();
        let mut passed = Vec::new();
        for (i, probability, group) in due {
            if probability >= 100 || self.rng.below(100) < probability.unsigned_abs() {
                passed.push((i, group));
            }
        }
        // Rows of one group are alternatives: one of those that passed plays.
        let mut chosen = Vec::new();
        let mut groups_done = BTreeSet::new();
        for &(i, group) in &passed {
            if group == 0 {
                chosen.push(i);
            } else if groups_done.insert(group) {
                let members: Vec<usize> = passed
                    .iter()
                    .filter(|(_, g)| *g == group)
                    .map(|(j, _)| *j)
                    .collect();
                let pick = self
                    .rng
                    .below(u32::try_from(members.len()).unwrap_or(u32::MAX))
                    as usize;
                if let Some(j) = members.get(pick) {
                    chosen.push(*j);
                }
            }
        }
        for i in chosen {
            self.play_row(i, k, out, ids);
        }
    }

    /// Starts row `i` on step `k`.
    fn play_row(&mut self, i: usize, k: u64, out: &mut dyn SoundSink, ids: &mut NoteIds) {
        let Some(score) = &self.score else {
            return;
        };
        let Some(row) = score.rows.get(i).cloned() else {
            return;
        };
        let master = score.master;
        let step_at = score.grid.step_time(k);
        let hold_end = score.grid.step_time(k + row.hold);
        let Some(spot) = self.place(&row) else {
            return;
        };
        let Some((file, skipped)) = self.pick(&row) else {
            return;
        };
        let Some(sample) = sample_ref(&file, &self.dirs) else {
            self.news.push(AmbienceEvent::Outside { file });
            return;
        };
        let base = (row.volume * master * self.settings.volume).max(0.0);
        let gain = (base * spot.gain_3d).clamp(0.0, 1.0);
        let (lo, hi) = row.pitch;
        let pitch = if (hi - lo).abs() > f32::EPSILON {
            lo + self.rng.unit() * (hi - lo)
        } else {
            lo
        };
        let jitter = if row.jitter_ms > 0 {
            u64::from(self.rng.below(self.ms(row.jitter_ms).saturating_add(1)))
        } else {
            0
        };
        let note = ids.fresh();
        let start = ScoreNote {
            note,
            at: step_at + jitter,
            hold_end: hold_end + jitter,
            sample,
            gain,
            pan: spot.pan,
            pitch,
        };
        self.send_note(&row, start, out);
        if let Some(busy) = self.busy_until.get_mut(i) {
            *busy = k + row.hold;
        }
        self.sounding.insert(
            note,
            Sounding {
                position: (!row.stereo).then_some(spot.position),
                gain: base,
            },
        );
        self.remember(&file, &skipped, &spot, gain);
    }

    /// Where a note of `row` sounds: an offset from the listener (scattered by `rand2`),
    /// heard from there; `None` (and news) if that is out of earshot.
    fn place(&mut self, row: &Row) -> Option<Spot> {
        let distance = self.settings.distance;
        let mut offset = [
            (row.pan_lr - 512.0) / 512.0 * distance,
            (row.pan_fb - 512.0) / 512.0 * distance,
        ];
        if row.scatter > 0.0 {
            for v in &mut offset {
                *v += (self.rng.unit() * 2.0 - 1.0) * row.scatter / 512.0 * distance;
            }
        }
        let position = [self.listener[0] + offset[0], self.listener[1] + offset[1]];
        let (gain_3d, pan) = if row.stereo {
            (1.0, (row.pan_lr / 512.0 - 1.0).clamp(-1.0, 1.0))
        } else {
            self.hear(position)
        };
        if gain_3d <= 0.0 {
            self.news.push(AmbienceEvent::OutOfEarshot {
                row: row.name.clone(),
                position,
                distance: offset[0].hypot(offset[1]),
                limit: distance,
            });
            return None;
        }
        Some(Spot {
            position,
            gain_3d,
            pan,
        })
    }

    /// Sends the commands of a score note: its start (from silence when the row fades
    /// in), the fade in, and for a looping row the fade out and stop at the hold's end.
    fn send_note(&self, row: &Row, n: ScoreNote, out: &mut dyn SoundSink) {
        let fade_in = self.ms(row.fade_in_ms);
        let (note, at, gain) = (n.note, n.at, n.gain);
        out.send(SoundCommand::Start {
            note,
            voice: usize::MAX,
            at,
            sample: n.sample,
            gain: if fade_in > 0 {
                Gain::SILENT
            } else {
                Gain::new(gain)
            },
            pan: Pan::new(n.pan),
            pitch: n.pitch,
            looping: row.looping,
            group: ControlGroup::Fx,
            reverb: true,
            priority: WORLD_PRIORITY,
        });
        if fade_in > 0 {
            out.send(SoundCommand::SetGain {
                note,
                at,
                gain: Gain::new(gain),
                ramp: fade_in,
            });
        }
        if row.looping {
            let end = n.hold_end;
            let fade_out = self.ms(row.fade_out_ms);
            out.send(SoundCommand::SetGain {
                note,
                at: end,
                gain: Gain::SILENT,
                ramp: fade_out,
            });
            out.send(SoundCommand::Stop {
                note,
                at: end + u64::from(fade_out),
            });
        }
    }

    /// Notes a pick in the recent list and the news.
    fn remember(&mut self, file: &Path, skipped: &[PathBuf], spot: &Spot, gain: f32) {
        let name = stem(file);
        self.recent.push_back(name);
        while self.recent.len() > RECENT_SHOWN {
            self.recent.pop_front();
        }
        self.news.push(AmbienceEvent::Played {
            file: file.to_path_buf(),
            position: spot.position,
            gain: Gain::new(gain),
            pan: Pan::new(spot.pan),
            skipped: skipped.to_vec(),
        });
    }

    /// Picks a file for a row, avoiding the kind's last `Freshness` picks as far as the
    /// row has alternatives. Returns the file and the recent files it avoided.
    fn pick(&mut self, row: &Row) -> Option<(PathBuf, Vec<PathBuf>)> {
        if row.files.is_empty() {
            return None;
        }
        let freshness = self.settings.freshness;
        let memory = self.memory.entry(row.kind).or_default();
        // Recent picks, newest first, that this row could pick.
        let recent: Vec<PathBuf> = memory
            .iter()
            .rev()
            .take(freshness)
            .filter(|f| row.files.contains(f))
            .cloned()
            .collect();
        let mut avoid = recent.len().min(row.files.len().saturating_sub(1));
        let allowed = loop {
            let avoided = &recent[..avoid];
            let allowed: Vec<&PathBuf> =
                row.files.iter().filter(|f| !avoided.contains(f)).collect();
            if !allowed.is_empty() || avoid == 0 {
                break allowed;
            }
            avoid -= 1;
        };
        let index = self
            .rng
            .below(u32::try_from(allowed.len()).unwrap_or(u32::MAX)) as usize;
        let file = allowed.get(index).map(|f| (*f).clone())?;
        let skipped = recent[..avoid].to_vec();
        memory.push_back(file.clone());
        while memory.len() > freshness.max(1) {
            memory.pop_front();
        }
        Some((file, skipped))
    }
}
