//! Checking one assertion at its time: against the typed records so far, what is
//! sounding now and the output so far. Each check says what actually happened, so a
//! failure reads "expected …, actually …".

use super::heard::{HeardNotes, dbfs_text};
use super::{Assertion, Bound, Counted, HEARD_DBFS, Sounding};
use crate::host::offline::OutputSoFar;
use crate::runtime::trace::{MissClass, SampleEvent, TraceEvent, TraceRecord};
use crate::runtime::{ActiveTrack, SampleTime};
use crate::toolchain::project::{NameValue, Project, sample_key};
use crate::tools::why::{Decision, Verdict, decisions};
use crate::world::director::WorldView;

/// What a check sees at its time.
pub(super) struct Moment<'a> {
    /// Every record so far.
    pub records: &'a [TraceRecord],
    /// The project (hit-list names).
    pub project: &'a Project,
    /// Samples per second.
    pub rate: u32,
    /// Voices busy now.
    pub busy: usize,
    /// Tracks playing now.
    pub tracks: &'a [ActiveTrack],
    /// The world now.
    pub world: &'a WorldView,
    /// The output so far.
    pub output: &'a OutputSoFar,
    /// How loud each track note was at the output so far.
    pub heard: &'a HeardNotes,
}

/// Whether an assertion held, what actually was, and the decision behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// It held.
    pub passed: bool,
    /// What actually was, in words.
    pub actual: String,
    /// The decision the assertion is about, when there is one (its "why").
    pub decision: Option<Decision>,
}

impl Outcome {
    fn of(passed: bool, actual: impl Into<String>) -> Self {
        Self {
            passed,
            actual: actual.into(),
            decision: None,
        }
    }
}

/// Checks `assertion` at `moment`.
pub(super) fn check(assertion: &Assertion, moment: &Moment<'_>) -> Outcome {
    match assertion {
        Assertion::Started {
            event,
            object,
            within_ms,
        } => started(moment, event, *object, *within_ms),
        Assertion::Heard {
            event,
            object,
            within_ms,
        } => heard(moment, event, *object, *within_ms),
        Assertion::Refused { event } => refused(moment, event),
        Assertion::Stolen { track } => {
            let steals = steals(moment.records, None);
            let from = steals.iter().filter(|(victim, _)| victim == track).count();
            Outcome::of(
                from > 0,
                format!(
                    "`{track}` lost its voice {from} time(s) ({} steal(s) in all)",
                    steals.len()
                ),
            )
        }
        Assertion::NotStolen { min_priority } => {
            let steals = steals(moment.records, *min_priority);
            let list: Vec<String> = steals
                .iter()
                .map(|(victim, priority)| format!("`{victim}` (priority {priority})"))
                .collect();
            Outcome::of(
                steals.is_empty(),
                if list.is_empty() {
                    "no voice was stolen".to_string()
                } else {
                    format!("stolen from {}", list.join(", "))
                },
            )
        }
        Assertion::Voices(bound) => {
            let busy = moment.busy as f64;
            Outcome::of(
                holds(bound, busy, 0.0),
                format!("{} voice(s) busy", moment.busy),
            )
        }
        Assertion::Reverb(bound) => {
            let reverb = f64::from(moment.world.ambience.reverb);
            Outcome::of(
                holds(bound, reverb, 0.0005),
                format!(
                    "reverb {reverb:.2} (room of {} tiles)",
                    moment
                        .world
                        .ambience
                        .room_tiles
                        .unwrap_or(moment.world.room)
                ),
            )
        }
        Assertion::Room { name } => {
            let now = moment.world.active_room.as_deref();
            let holds = match (name, now) {
                (Some(want), Some(now)) => want.eq_ignore_ascii_case(now),
                (None, None) => true,
                _ => false,
            };
            Outcome::of(
                holds,
                match now {
                    Some(room) => format!("in `{room}`"),
                    None => "in no room of the lot".to_string(),
                },
            )
        }
        Assertion::Gain { object, bound } | Assertion::Pan { object, bound } => {
            let gain = matches!(assertion, Assertion::Gain { .. });
            level(moment, *object, bound, gain)
        }
        Assertion::Playing { what, playing } => sounding(moment, what, *playing),
        Assertion::PicksNoRepeat { list } => picks_no_repeat(moment, list),
        Assertion::NoFault => {
            let faults = faults(moment.records);
            Outcome::of(
                faults.is_empty(),
                faults.first().map_or("no fault".to_string(), |f| {
                    format!("{} fault(s), the first: {f}", faults.len())
                }),
            )
        }
        Assertion::Fault { kind, at } => fault(moment, kind, at.as_ref()),
        Assertion::PeakBelow { dbfs } => {
            let peak = f64::from(moment.output.peak);
            let db = if peak > 0.0 {
                20.0 * peak.log10()
            } else {
                f64::NEG_INFINITY
            };
            Outcome::of(db < *dbfs, format!("peak {}", db_text(db, "dBFS")))
        }
        Assertion::Loudness(bound) => {
            let Some(loudness) = moment.output.loudness else {
                return Outcome::of(false, "loudness was not measured");
            };
            let lufs = loudness.integrated.value();
            Outcome::of(
                holds(bound, lufs, 0.05),
                format!("integrated loudness {}", db_text(lufs, "LUFS")),
            )
        }
        // Never written in a script: trouble is found as the records come (`run`).
        Assertion::Untroubled => Outcome::of(true, "nothing went wrong"),
        Assertion::Count { what, bound } => {
            let n = count(moment.records, *what);
            Outcome::of(holds(bound, n as f64, 0.0), format!("{n} so far"))
        }
    }
}

fn holds(bound: &Bound, value: f64, tolerance: f64) -> bool {
    bound.op.holds(value, bound.value, tolerance)
}

fn db_text(db: f64, unit: &str) -> String {
    if db.is_finite() {
        format!("{db:.1} {unit}")
    } else {
        format!("-inf {unit} (silent)")
    }
}

/// The last trigger of `event` (from `object`).
fn last_trigger(moment: &Moment<'_>, event: &str, object: Option<i32>) -> Option<Decision> {
    decisions(moment.records)
        .into_iter()
        .rev()
        .find(|d| d.event.eq_ignore_ascii_case(event) && (object.is_none() || d.object == object))
}

fn started(
    moment: &Moment<'_>,
    event: &str,
    object: Option<i32>,
    within_ms: Option<f64>,
) -> Outcome {
    let Some(decision) = last_trigger(moment, event, object) else {
        return Outcome::of(false, format!("`{event}` was not triggered"));
    };
    let got_voice = matches!(
        decision.verdict,
        Verdict::Started { .. }
            | Verdict::Stole { .. }
            | Verdict::Joined { .. }
            | Verdict::AlreadyPlaying { .. }
    );
    let late_ms = decision.notes.first().map(|n| {
        n.time.samples().saturating_sub(decision.time.samples()) as f64 * 1000.0
            / f64::from(moment.rate.max(1))
    });
    let in_time = match (within_ms, late_ms) {
        (None, _) => true,
        (Some(limit), Some(late)) => late <= limit,
        (Some(_), None) => matches!(
            decision.verdict,
            Verdict::Joined { .. } | Verdict::AlreadyPlaying { .. }
        ),
    };
    let mut actual = decision.verdict.sentence();
    match (within_ms, late_ms) {
        (Some(_), Some(late)) => {
            actual.push_str(&format!(", its first note {late:.0} ms after the trigger"));
        }
        (Some(_), None) if got_voice && !in_time => {
            actual.push_str(", but no note of it started");
        }
        _ => {}
    }
    Outcome {
        passed: got_voice && in_time,
        actual,
        decision: Some(decision),
    }
}

/// `heard`: a note of the track of the last trigger sounded at the output at or above
/// [`HEARD_DBFS`] at some time from the trigger to the deadline (`within`, else now).
/// A trigger that joined a playing copy is heard through that copy's notes.
fn heard(moment: &Moment<'_>, event: &str, object: Option<i32>, within_ms: Option<f64>) -> Outcome {
    let Some(decision) = last_trigger(moment, event, object) else {
        return Outcome::of(false, format!("`{event}` was not triggered"));
    };
    let rate = f64::from(moment.rate.max(1));
    let deadline = within_ms.map_or(u64::MAX, |ms| {
        decision
            .time
            .samples()
            .saturating_add((ms / 1000.0 * rate).round() as u64)
    });
    let mut loudest: Option<(f32, &str)> = None;
    let mut first_heard: Option<(u64, &str)> = None;
    for record in moment.records {
        let TraceEvent::NoteStarted { note, sample, .. } = &record.what else {
            continue;
        };
        if record.track.is_none() || record.track != decision.track {
            continue;
        }
        let Some(level) = moment.heard.level(*note) else {
            continue;
        };
        if loudest.is_none_or(|(l, _)| level.loudest > l) {
            loudest = Some((level.loudest, sample));
        }
        if let Some((first, last)) = level.heard
            && last.samples() >= decision.time.samples()
            && first.samples() <= deadline
        {
            let at = first.samples().max(decision.time.samples());
            if first_heard.is_none_or(|(t, _)| at < t) {
                first_heard = Some((at, sample));
            }
        }
    }
    let mut actual = decision.verdict.sentence();
    let passed = match (first_heard, loudest) {
        (Some((at, sample)), _) => {
            let after = (at - decision.time.samples()) as f64 * 1000.0 / rate;
            actual.push_str(&format!(
                "; `{sample}` reached the output at or above {HEARD_DBFS} dBFS {after:.0} ms after the trigger"
            ));
            true
        }
        (None, Some((level, sample))) => {
            actual.push_str(&format!(
                "; its loudest note, `{sample}`, reached {} at the output (below {HEARD_DBFS} dBFS{})",
                dbfs_text(level),
                if within_ms.is_some() {
                    " in time"
                } else {
                    ""
                }
            ));
            false
        }
        (None, None) => {
            actual.push_str("; no note of it reached the output");
            false
        }
    };
    Outcome {
        passed,
        actual,
        decision: Some(decision),
    }
}

fn refused(moment: &Moment<'_>, event: &str) -> Outcome {
    let Some(decision) = last_trigger(moment, event, None) else {
        return Outcome::of(false, format!("`{event}` was not triggered"));
    };
    Outcome {
        passed: matches!(decision.verdict, Verdict::Refused { .. }),
        actual: decision.verdict.sentence(),
        decision: Some(decision),
    }
}

/// Every steal so far: the victim's track and priority, of at least `min_priority`.
fn steals(records: &[TraceRecord], min_priority: Option<i32>) -> Vec<(String, i32)> {
    records
        .iter()
        .filter_map(|r| match &r.what {
            TraceEvent::Stole { victim, .. }
                if min_priority.is_none_or(|p| victim.priority >= p) =>
            {
                Some((victim.track.to_string(), victim.priority))
            }
            _ => None,
        })
        .collect()
}

fn level(moment: &Moment<'_>, object: i32, bound: &Bound, gain: bool) -> Outcome {
    let Some((_, placement)) = moment.world.objects.iter().find(|(o, _)| o.id == object) else {
        return Outcome::of(false, format!("no object {object} on the lot"));
    };
    let (value, what) = if gain {
        (f64::from(placement.volume) / 1024.0, "gain")
    } else {
        (f64::from(placement.pan - 512) / 512.0, "pan")
    };
    Outcome::of(
        holds(bound, value, 0.0005),
        format!("{what} {value:.3} (from the view)"),
    )
}

fn sounding(moment: &Moment<'_>, what: &Sounding, playing: bool) -> Outcome {
    let (now, said) = match what {
        Sounding::Track(name) => {
            let live = moment
                .tracks
                .iter()
                .any(|t| !t.finished && t.track_name.eq_ignore_ascii_case(name));
            (live, format!("track `{name}`"))
        }
        Sounding::Station(name) => {
            let on = moment.world.stations.iter().any(|s| {
                s.name.eq_ignore_ascii_case(name) && s.on_air.is_some() && !s.receivers.is_empty()
            });
            (on, format!("station `{name}`"))
        }
        Sounding::Music => {
            let music = &moment.world.music;
            let song = music.song.as_ref().filter(|s| !s.parked);
            let said = match (song, music.load_loop) {
                (Some(song), _) => format!("music (`{}`)", song.file.display()),
                (None, Some(_)) => "music (the load loop)".to_string(),
                (None, None) => "music".to_string(),
            };
            (song.is_some() || music.load_loop.is_some(), said)
        }
        Sounding::Sample(name) => (sample_playing(moment, name), format!("sample `{name}`")),
        Sounding::Ambience => {
            let ambience = &moment.world.ambience;
            (
                ambience.enabled && ambience.sounding > 0,
                format!(
                    "the ambience ({} score note(s) sounding)",
                    ambience.sounding
                ),
            )
        }
        Sounding::NightLoop => (
            moment.world.ambience.night_loop_playing,
            "the night loop".to_string(),
        ),
        Sounding::River => (moment.world.music.river.is_some(), "the river".to_string()),
    };
    Outcome::of(
        now == playing,
        format!("{said} is {}", if now { "playing" } else { "silent" }),
    )
}

/// A sample is playing when the mixer played a note of it in its last block — a
/// track's, a station's, the music's, the ambience's or the server's own. The sample is
/// named as the project names it: a patch's name, the path as the source writes it, or
/// its file's path in the data folder, either slash, any case.
fn sample_playing(moment: &Moment<'_>, name: &str) -> bool {
    let key = sample_key(name);
    moment.heard.sounding().any(|note| {
        sample_key(&note.sample) == key
            || note.patch.as_ref().is_some_and(|(patch, patch_name)| {
                patch_name.eq_ignore_ascii_case(name)
                    || moment
                        .project
                        .patches
                        .get(patch)
                        .is_some_and(|p| sample_key(&p.path_text) == key)
            })
    })
}

fn picks_no_repeat(moment: &Moment<'_>, list: &str) -> Outcome {
    let id = list.parse::<u32>().ok().or_else(|| {
        moment.project.value(list).and_then(|d| match d.value {
            NameValue::Value(v) => u32::try_from(v).ok(),
            NameValue::Code(_) => None,
        })
    });
    let Some(id) = id.filter(|id| moment.project.hit_lists.contains_key(id)) else {
        return Outcome::of(false, format!("no hit list `{list}` in the project"));
    };
    let picks: Vec<(SampleTime, u32)> = moment
        .records
        .iter()
        .filter_map(|r| match &r.what {
            TraceEvent::Pick { list, value, .. } if *list == id => Some((r.time, *value)),
            _ => None,
        })
        .collect();
    let repeat = picks.windows(2).find(|w| w[0].1 == w[1].1);
    Outcome::of(
        repeat.is_none(),
        match repeat {
            None => format!("{} pick(s), none twice in a row", picks.len()),
            Some(w) => format!(
                "entry {} picked twice in a row, at {:.3} s and {:.3} s",
                w[1].1,
                w[0].0.samples() as f64 / f64::from(moment.rate.max(1)),
                w[1].0.samples() as f64 / f64::from(moment.rate.max(1))
            ),
        },
    )
}

/// Every fault so far, as its sentence.
fn faults(records: &[TraceRecord]) -> Vec<String> {
    records
        .iter()
        .filter(|r| matches!(r.what, TraceEvent::Fault { .. }))
        .map(TraceRecord::message)
        .collect()
}

fn fault(moment: &Moment<'_>, kind: &str, at: Option<&(String, u32)>) -> Outcome {
    let mut seen = Vec::new();
    for r in moment.records {
        let TraceEvent::Fault { place, kind: k, .. } = &r.what else {
            continue;
        };
        let origin = place.as_ref().and_then(|p| p.origin.as_ref());
        let here = match (at, origin) {
            (None, _) => true,
            (Some((file, line)), Some(origin)) => {
                origin.line == *line && origin.file.ends_with(file)
            }
            (Some(_), None) => false,
        };
        if k.name() == kind && here {
            return Outcome::of(true, r.message());
        }
        seen.push(r.message());
    }
    Outcome::of(
        false,
        if seen.is_empty() {
            "no fault".to_string()
        } else {
            format!("other faults: {}", seen.join("; "))
        },
    )
}

pub(super) fn count(records: &[TraceRecord], what: Counted) -> usize {
    records.iter().filter(|r| counts(what, r)).count()
}

/// True when `count <what>` counts `r`.
pub(super) fn counts(what: Counted, r: &TraceRecord) -> bool {
    match what {
        Counted::Events => matches!(
            r.what,
            TraceEvent::Dispatched { .. } | TraceEvent::UnknownEvent { .. }
        ),
        Counted::Starts => matches!(r.what, TraceEvent::Started { .. }),
        Counted::Joins => matches!(r.what, TraceEvent::Joined { .. }),
        Counted::Steals => matches!(r.what, TraceEvent::Stole { .. }),
        Counted::Refusals => matches!(r.what, TraceEvent::Refused { .. }),
        Counted::Notes => matches!(r.what, TraceEvent::NoteStarted { .. }),
        Counted::Picks => matches!(r.what, TraceEvent::Pick { .. }),
        Counted::Faults => matches!(r.what, TraceEvent::Fault { .. }),
        Counted::Misses => matches!(
            r.what,
            TraceEvent::Sample(
                SampleEvent::CacheMiss { .. } | SampleEvent::Fetched { miss: Some(_), .. }
            )
        ),
        Counted::CapacityMisses => matches!(
            r.what,
            TraceEvent::Sample(
                SampleEvent::CacheMiss {
                    class: Some(MissClass::Capacity),
                    ..
                } | SampleEvent::Fetched {
                    miss: Some(MissClass::Capacity),
                    ..
                }
            )
        ),
        Counted::Drops => matches!(&r.what, TraceEvent::Sample(s) if s.dropped()),
        Counted::ServerSounds => {
            matches!(r.what, TraceEvent::Sample(SampleEvent::ServerSound { .. }))
        }
        Counted::NoiseDrops => {
            matches!(r.what, TraceEvent::Sample(SampleEvent::OriginBusy { .. }))
        }
        Counted::Kind(kind) => r.kind == kind,
    }
}
