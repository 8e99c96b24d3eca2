//! "What did my edit change?": two runs of the same inputs compared decision by decision
//! ([`super::why::Decision`]) — triggers that got another verdict (a steal or refusal
//! that did not happen before), picks of other entries, notes missing, extra or of
//! another sample, and gains that moved by more than a threshold.
//!
//! Triggers are paired by time, event and object, in order: the same inputs trigger the
//! same events at the same sample times, whatever the project or settings decide.

use super::why::{Decision, Verdict};
use crate::runtime::clock::SampleTime;
use crate::runtime::objects::ObjectId;
use crate::runtime::units::Gain;
use std::collections::VecDeque;
use std::sync::Arc;

/// The default threshold for a gain to count as moved, in dB.
pub const GAIN_THRESHOLD_DB: f32 = 1.0;

/// What differs about one trigger.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// Triggered before, not now.
    Missing,
    /// Triggered now, not before.
    Extra,
    /// Another verdict (words for each side: "started on voice 3", "refused", …).
    Verdict {
        /// Before.
        before: String,
        /// Now.
        after: String,
    },
    /// A hit list picked another entry.
    Pick {
        /// Which of the trigger's picks, from 1.
        nth: usize,
        /// The list.
        list: u32,
        /// Picked before.
        before: u32,
        /// Picked now.
        after: u32,
    },
    /// A note of the trigger played before, not now.
    NoteMissing {
        /// Which of the trigger's notes, from 1.
        nth: usize,
        /// When it played before.
        at: SampleTime,
        /// Its sample.
        sample: Arc<str>,
    },
    /// A note plays now that did not before.
    NoteExtra {
        /// Which of the trigger's notes, from 1.
        nth: usize,
        /// When it plays now.
        at: SampleTime,
        /// Its sample.
        sample: Arc<str>,
    },
    /// The n-th note plays another sample.
    Sample {
        /// Which of the trigger's notes, from 1.
        nth: usize,
        /// When it plays now.
        at: SampleTime,
        /// Before.
        before: Arc<str>,
        /// Now.
        after: Arc<str>,
    },
    /// A note's gain moved by more than the threshold.
    Gain {
        /// Which of the trigger's notes, from 1.
        nth: usize,
        /// When it plays now.
        at: SampleTime,
        /// Its sample.
        sample: Arc<str>,
        /// Before.
        before: Gain,
        /// Now.
        after: Gain,
    },
}

/// One difference, at a trigger.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// When the trigger happened.
    pub time: SampleTime,
    /// Its event.
    pub event: Arc<str>,
    /// Its object.
    pub object: Option<ObjectId>,
    /// What differs.
    pub change: Change,
}

impl Difference {
    /// `12.345 s `event` @3: refused now, started on voice 2 before`, at `rate`.
    pub fn line(&self, rate: u32) -> String {
        let object = self.object.map_or_else(String::new, |o| format!(" @{o}"));
        format!(
            "{} `{}`{object}: {}",
            seconds(self.time, rate),
            self.event,
            self.change.text(rate)
        )
    }
}

/// `9 difference(s) in 3 trigger(s)`: how many, and in how many triggers (a trigger
/// whose track picks and plays many can differ in many).
pub fn summary(differences: &[Difference]) -> String {
    let mut triggers: Vec<(SampleTime, &str, Option<ObjectId>)> = differences
        .iter()
        .map(|d| (d.time, &*d.event, d.object))
        .collect();
    triggers.sort_unstable();
    triggers.dedup();
    format!(
        "{} difference(s) in {} trigger(s)",
        differences.len(),
        triggers.len()
    )
}

/// `12.345 s` at `rate`.
fn seconds(time: SampleTime, rate: u32) -> String {
    format!("{:.3} s", time.samples() as f64 / f64::from(rate.max(1)))
}

impl Change {
    /// What differs, in words; a pick or a note says which of the trigger's it is (a
    /// track may pick and play many), a note when it plays, at `rate`.
    pub fn text(&self, rate: u32) -> String {
        let note = |nth: &usize, at: &SampleTime| format!("note {nth} at {}", seconds(*at, rate));
        match self {
            Change::Missing => "triggered before, not now".to_string(),
            Change::Extra => "triggered now, not before".to_string(),
            Change::Verdict { before, after } => format!("{after} now, {before} before"),
            Change::Pick {
                nth,
                list,
                before,
                after,
            } => format!("pick {nth} from hit list {list}: {after} now, {before} before"),
            Change::NoteMissing { nth, at, sample } => {
                format!("{} (`{sample}`) no longer plays", note(nth, at))
            }
            Change::NoteExtra { nth, at, sample } => {
                format!("{} (`{sample}`) plays now, not before", note(nth, at))
            }
            Change::Sample {
                nth,
                at,
                before,
                after,
            } => format!("{} plays `{after}` now, `{before}` before", note(nth, at)),
            Change::Gain {
                nth,
                at,
                sample,
                before,
                after,
            } => format!(
                "{} (`{sample}`) gain {:.3} ({}) now, {:.3} ({}) before",
                note(nth, at),
                after.get(),
                after.db_text(),
                before.get(),
                before.db_text()
            ),
        }
    }
}

/// The verdict in a few words, for comparing and printing; they start with its word
/// ([`Verdict::kind`]).
pub fn verdict_words(verdict: &Verdict) -> String {
    let word = verdict.kind().name();
    match verdict {
        Verdict::Started { voice, .. }
        | Verdict::AlreadyPlaying { voice }
        | Verdict::Joined { voice, .. } => format!("{word} on voice {voice}"),
        Verdict::Stole { voice, victim, .. } => {
            format!("{word} voice {voice} from `{}`", victim.track)
        }
        Verdict::Refused { lowest, .. } => format!(
            "{word} (lowest playing `{}`, priority {})",
            lowest.track, lowest.priority
        ),
        Verdict::Interrupted { voice } => format!("{word} voice {voice}"),
        Verdict::NoTrack | Verdict::UnknownEvent | Verdict::World => word.to_string(),
    }
}

/// The kind of verdict, ignoring which voice: the same inputs against another voice
/// limit may start a track on another free voice without anything mattering.
fn verdict_kind(verdict: &Verdict) -> String {
    match verdict {
        Verdict::Started { .. } | Verdict::Interrupted { .. } => "played".to_string(),
        Verdict::Stole { victim, .. } => format!("stole from {}", victim.track),
        Verdict::Refused { .. } => "refused".to_string(),
        Verdict::Joined { .. } | Verdict::AlreadyPlaying { .. } => "joined".to_string(),
        other => verdict_words(other),
    }
}

/// Every difference between two runs' decisions (`before` and `after`, each in time
/// order), in time order; gains count as moved past `threshold_db`.
pub fn diff(before: &[Decision], after: &[Decision], threshold_db: f32) -> Vec<Difference> {
    let mut out = Vec::new();
    let mut later: VecDeque<&Decision> = after.iter().collect();
    for b in before {
        let found = later
            .iter()
            .position(|a| a.time == b.time && a.event == b.event && a.object == b.object);
        let Some(index) = found else {
            out.push(at(b, Change::Missing));
            continue;
        };
        // Everything now that comes before the pair is new.
        for a in later.drain(..index) {
            out.push(at(a, Change::Extra));
        }
        if let Some(a) = later.pop_front() {
            compare(b, a, threshold_db, &mut out);
        }
    }
    out.extend(later.into_iter().map(|a| at(a, Change::Extra)));
    out.sort_by_key(|d| d.time);
    out
}

fn at(d: &Decision, change: Change) -> Difference {
    Difference {
        time: d.time,
        event: d.event.clone(),
        object: d.object,
        change,
    }
}

fn compare(b: &Decision, a: &Decision, threshold_db: f32, out: &mut Vec<Difference>) {
    if verdict_kind(&b.verdict) != verdict_kind(&a.verdict) {
        let change = Change::Verdict {
            before: verdict_words(&b.verdict),
            after: verdict_words(&a.verdict),
        };
        out.push(at(a, change));
    }
    for (nth, (pb, pa)) in (1..).zip(b.picks.iter().zip(&a.picks)) {
        if pb.list == pa.list && pb.value != pa.value {
            let change = Change::Pick {
                nth,
                list: pb.list,
                before: pb.value,
                after: pa.value,
            };
            out.push(at(a, change));
        }
    }
    for (nth, (nb, na)) in (1..).zip(b.notes.iter().zip(&a.notes)) {
        if nb.sample != na.sample {
            let change = Change::Sample {
                nth,
                at: na.time,
                before: nb.sample.clone(),
                after: na.sample.clone(),
            };
            out.push(at(a, change));
        } else if moved(nb.gain.total(), na.gain.total(), threshold_db) {
            let change = Change::Gain {
                nth,
                at: na.time,
                sample: na.sample.clone(),
                before: nb.gain.total(),
                after: na.gain.total(),
            };
            out.push(at(a, change));
        }
    }
    for (nth, nb) in (1..).zip(&b.notes).skip(a.notes.len()) {
        let change = Change::NoteMissing {
            nth,
            at: nb.time,
            sample: nb.sample.clone(),
        };
        out.push(at(a, change));
    }
    for (nth, na) in (1..).zip(&a.notes).skip(b.notes.len()) {
        let change = Change::NoteExtra {
            nth,
            at: na.time,
            sample: na.sample.clone(),
        };
        out.push(at(a, change));
    }
}

/// True if two gains differ by more than `threshold_db` (silence differs from any sound).
fn moved(before: Gain, after: Gain, threshold_db: f32) -> bool {
    match (before == Gain::SILENT, after == Gain::SILENT) {
        (true, true) => false,
        (true, false) | (false, true) => true,
        (false, false) => (after.db() - before.db()).abs() > threshold_db,
    }
}
