//! "Why can't I hear it?": the trace records of a session (live or captured) grouped into
//! one [`Decision`] per trigger — the event, the object, the Box-X verdict with every
//! occupant it was compared against, the hit-list picks it made, the notes it started
//! with their gain factor by factor, and how it ended — and [`Decision::explain`], the
//! lines a person reads.
//!
//! Built only from typed [`TraceEvent`]s, never from their sentences. `subject` is what
//! the command `why <event | @object>` asks about, and [`WhyLog`], the records a render
//! or play script's `why` lines ask about, kept as the script runs.

use crate::runtime::clock::SampleTime;
use crate::runtime::objects::ObjectId;
use crate::runtime::outcome::DecisionKind;
use crate::runtime::trace::{EndReason, GainParts, Occupant, PanParts, TraceEvent, TraceRecord};
use crate::runtime::units::Gain;
use std::sync::Arc;

mod subject;

pub use subject::{Subject, SubjectError, TRACES, WhyLog};

/// What Box-X (and the one-copy rule) decided for a trigger.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// A free voice.
    Started {
        /// The voice.
        voice: usize,
        /// The track's priority.
        priority: i32,
        /// Voices busy after it started.
        in_use: usize,
        /// The voice limit.
        capacity: usize,
    },
    /// A voice taken from a lower priority.
    Stole {
        /// The voice.
        voice: usize,
        /// The track's priority.
        priority: i32,
        /// The track that lost it.
        victim: Occupant,
        /// Every track holding a voice, as compared.
        occupants: Vec<Occupant>,
        /// The voice limit.
        capacity: usize,
    },
    /// No voice: every track playing had at least its priority.
    Refused {
        /// The track's priority.
        priority: i32,
        /// The lowest priority playing.
        lowest: Occupant,
        /// Every track holding a voice, as compared.
        occupants: Vec<Occupant>,
        /// The voice limit.
        capacity: usize,
    },
    /// The object joined a copy already playing (one copy of a track at a time).
    Joined {
        /// The copy's voice.
        voice: usize,
        /// Its owners now.
        owners: Vec<ObjectId>,
    },
    /// The track was already playing for this object, or as a UI sound.
    AlreadyPlaying {
        /// The copy's voice.
        voice: usize,
    },
    /// It took over an interruptible copy's voice.
    Interrupted {
        /// The voice.
        voice: usize,
    },
    /// The event's track does not exist, or has no code where it should start.
    NoTrack,
    /// Nobody defines the event.
    UnknownEvent,
    /// Handed to the world (a station or music mode), not played as a track.
    World,
}

/// A note a trigger's track started.
#[derive(Debug, Clone, PartialEq)]
pub struct NoteFacts {
    /// When.
    pub time: SampleTime,
    /// The sample's resource name.
    pub sample: Arc<str>,
    /// The patch.
    pub patch: u32,
    /// Its gain, contribution by contribution.
    pub gain: GainParts,
    /// Its pan and where it came from.
    pub pan: PanParts,
}

/// A hit-list pick a trigger's track made.
#[derive(Debug, Clone, PartialEq)]
pub struct PickFacts {
    /// The list.
    pub list: u32,
    /// The value picked.
    pub value: u32,
    /// The entries left out (picked last time).
    pub excluded: Vec<u32>,
}

/// Everything decided for one trigger.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// When it was triggered.
    pub time: SampleTime,
    /// The event.
    pub event: Arc<str>,
    /// The object it sounded from (`None`: a UI sound).
    pub object: Option<ObjectId>,
    /// The track.
    pub track: Option<Arc<str>>,
    /// The verdict.
    pub verdict: Verdict,
    /// Picks its track made.
    pub picks: Vec<PickFacts>,
    /// Notes its track started.
    pub notes: Vec<NoteFacts>,
    /// When and why its track ended, if it did.
    pub ended: Option<(SampleTime, EndReason)>,
}

impl Decision {
    /// The voice its track held, if it got one.
    pub fn voice(&self) -> Option<usize> {
        match &self.verdict {
            Verdict::Started { voice, .. }
            | Verdict::Stole { voice, .. }
            | Verdict::Joined { voice, .. }
            | Verdict::AlreadyPlaying { voice }
            | Verdict::Interrupted { voice } => Some(*voice),
            _ => None,
        }
    }

    /// True if it could be heard: it has a voice and a note with a gain above zero (a
    /// copy it joined counts as heard).
    pub fn audible(&self) -> bool {
        match self.verdict {
            Verdict::Joined { .. } | Verdict::AlreadyPlaying { .. } => true,
            Verdict::Started { .. } | Verdict::Stole { .. } | Verdict::Interrupted { .. } => {
                self.notes.iter().any(|n| n.gain.total() > Gain::SILENT)
            }
            _ => false,
        }
    }
}

/// The records' triggers, in time order (records of other kinds are skipped).
pub fn decisions(records: &[TraceRecord]) -> Vec<Decision> {
    grouped(records).0
}

/// The records' triggers, in time order, and for each record the index of the decision
/// it belongs to (its verdict, a pick, a note or its end), `None` for a record about no
/// trigger.
pub fn grouped(records: &[TraceRecord]) -> (Vec<Decision>, Vec<Option<usize>>) {
    let mut out: Vec<Decision> = Vec::new();
    let mut owners = Vec::with_capacity(records.len());
    for record in records {
        if let Some(verdict) = verdict_of(record, &mut out) {
            owners.push(Some(out.len()));
            out.push(Decision {
                time: record.time,
                event: record.event.clone().unwrap_or_else(|| Arc::from("")),
                object: record.object,
                track: record.track.clone(),
                verdict,
                picks: Vec::new(),
                notes: Vec::new(),
                ended: None,
            });
            continue;
        }
        let Some((index, open)) = owner_of(&mut out, record) else {
            owners.push(None);
            continue;
        };
        owners.push(Some(index));
        match &record.what {
            TraceEvent::Pick {
                list,
                value,
                excluded,
                ..
            } => open.picks.push(PickFacts {
                list: *list,
                value: *value,
                excluded: excluded.clone(),
            }),
            TraceEvent::NoteStarted {
                patch,
                sample,
                gain,
                pan,
                ..
            } => open.notes.push(NoteFacts {
                time: record.time,
                sample: Arc::clone(sample),
                patch: *patch,
                gain: **gain,
                pan: **pan,
            }),
            TraceEvent::Ended(why) | TraceEvent::WorldVoiceLeft { why, .. } => {
                open.ended = Some((record.time, *why));
            }
            _ => {}
        }
    }
    (out, owners)
}

/// The verdict a record gives a new trigger, or `None` when it is about a track already
/// running. A steal's record comes before its start's: the start completes the steal.
fn verdict_of(record: &TraceRecord, out: &mut [Decision]) -> Option<Verdict> {
    Some(match &record.what {
        TraceEvent::Started {
            voice,
            priority,
            in_use,
            capacity,
            ..
        } => {
            if let Some(last) = out.last_mut()
                && last.time == record.time
                && last.event.as_ref() == record.event.as_deref().unwrap_or("")
                && matches!(&last.verdict, Verdict::Stole { voice: v, .. } if v == voice)
            {
                return None;
            }
            Verdict::Started {
                voice: *voice,
                priority: *priority,
                in_use: *in_use,
                capacity: *capacity,
            }
        }
        TraceEvent::Stole {
            priority,
            victim,
            occupants,
            capacity,
            ..
        } => Verdict::Stole {
            voice: victim.voice,
            priority: *priority,
            victim: victim.clone(),
            occupants: occupants.at(record.time),
            capacity: *capacity,
        },
        TraceEvent::Refused {
            priority,
            lowest,
            occupants,
            capacity,
            ..
        } => Verdict::Refused {
            priority: *priority,
            lowest: lowest.clone(),
            occupants: occupants.at(record.time),
            capacity: *capacity,
        },
        TraceEvent::Joined { voice, owners, .. } => Verdict::Joined {
            voice: *voice,
            owners: owners.clone(),
        },
        TraceEvent::AlreadyOwner { voice, .. }
        | TraceEvent::AlreadyPlaying { voice, .. }
        | TraceEvent::PlaysItself { voice, .. } => Verdict::AlreadyPlaying { voice: *voice },
        TraceEvent::Interrupted { voice, .. } => Verdict::Interrupted { voice: *voice },
        TraceEvent::NoTrack { .. } | TraceEvent::NoCode { .. } => Verdict::NoTrack,
        TraceEvent::UnknownEvent { .. } => Verdict::UnknownEvent,
        TraceEvent::HandedToWorld(_) => Verdict::World,
        // A world player (station, music, ambience) took a slot like a track.
        TraceEvent::WorldVoiceTaken {
            voice,
            priority,
            in_use,
            capacity,
            ..
        } => {
            if let Some(last) = out.last_mut()
                && last.time == record.time
                && last.track == record.track
                && matches!(&last.verdict, Verdict::Stole { voice: v, .. } if v == voice)
            {
                return None;
            }
            Verdict::Started {
                voice: *voice,
                priority: *priority,
                in_use: *in_use,
                capacity: *capacity,
            }
        }
        _ => return None,
    })
}

/// The latest trigger whose track the record is about (same voice, track, event and
/// object, not yet ended).
fn owner_of<'d>(
    out: &'d mut [Decision],
    record: &TraceRecord,
) -> Option<(usize, &'d mut Decision)> {
    let voice = record.voice?;
    out.iter_mut().enumerate().rev().find(|(_, d)| {
        d.ended.is_none()
            && d.voice() == Some(voice)
            && d.track == record.track
            && Some(&d.event) == record.event.as_ref()
            && !matches!(
                d.verdict,
                Verdict::Joined { .. } | Verdict::AlreadyPlaying { .. }
            )
    })
}

fn seconds(time: SampleTime, rate: u32) -> f64 {
    time.samples() as f64 / f64::from(rate.max(1))
}

fn occupant_line(o: &Occupant, rate: u32) -> String {
    format!(
        "    voice {:>2}: `{}` priority {}, playing {:.2} s",
        o.voice,
        o.track,
        o.priority,
        o.age as f64 / f64::from(rate.max(1))
    )
}

impl Decision {
    /// The explanation, a line each: what was triggered, the verdict and what it was
    /// compared with, the picks, every note's gain as the product of its factors, and
    /// the end. `rate` is the engine's sample rate (for seconds).
    pub fn explain(&self, rate: u32) -> Vec<String> {
        let mut lines = Vec::new();
        let world = self.track.as_deref().is_some_and(|t| t.starts_with('['));
        let from = match self.object {
            Some(o) => format!("from object {o}"),
            None if world => "a world player".to_string(),
            None => "as a UI sound".to_string(),
        };
        let track = self
            .track
            .as_deref()
            .map_or_else(String::new, |t| format!(" (track `{t}`)"));
        lines.push(format!(
            "{:.3} s: `{}` {from}{track}",
            seconds(self.time, rate),
            self.event
        ));
        self.explain_verdict(rate, &mut lines);
        for pick in &self.picks {
            let excluded = if pick.excluded.is_empty() {
                "nothing excluded".to_string()
            } else {
                let ids: Vec<String> = pick.excluded.iter().map(ToString::to_string).collect();
                format!("excluded {} (picked last time)", ids.join(", "))
            };
            lines.push(format!(
                "  hit list {}: picked {}; {excluded}",
                pick.list, pick.value
            ));
        }
        for note in &self.notes {
            lines.push(format!(
                "  note at {:.3} s: `{}` (patch {}) gain {}",
                seconds(note.time, rate),
                note.sample,
                note.patch,
                gain_equation(&note.gain)
            ));
            lines.push(format!("    pan {}", note.pan));
            if let Some(factor) = silenced_by(&note.gain) {
                lines.push(format!("    inaudible: {factor}"));
            }
        }
        if let Some((time, why)) = self.ended {
            let at = format!("{:.3} s", seconds(time, rate));
            lines.push(format!("  {}", end_sentence(&at, why)));
        }
        lines
    }

    fn explain_verdict(&self, rate: u32, lines: &mut Vec<String>) {
        let sentence = self.verdict.sentence();
        match self.verdict.compared() {
            Some((occupants, _)) => {
                lines.push(format!("  {sentence}. Compared with:"));
                lines.extend(occupants.iter().map(|o| occupant_line(o, rate)));
            }
            None => lines.push(format!("  {sentence}")),
        }
    }
}

impl Verdict {
    /// The kind of decision, whose one word starts [`Verdict::sentence`].
    pub fn kind(&self) -> DecisionKind {
        match self {
            Verdict::Started { .. } => DecisionKind::Started,
            Verdict::Stole { .. } => DecisionKind::Stole,
            Verdict::Refused { .. } => DecisionKind::Refused,
            Verdict::Joined { .. } => DecisionKind::Joined,
            Verdict::AlreadyPlaying { .. } => DecisionKind::AlreadyPlaying,
            Verdict::Interrupted { .. } => DecisionKind::TookOver,
            Verdict::NoTrack => DecisionKind::NoTrack,
            Verdict::UnknownEvent => DecisionKind::UnknownEvent,
            Verdict::World => DecisionKind::World,
        }
    }

    /// The verdict in a sentence, starting with its word ([`Verdict::kind`]): what Box-X
    /// (or the one-copy rule) decided and why, with the numbers it compared.
    pub fn sentence(&self) -> String {
        let word = self.kind().name();
        match self {
            Verdict::Started {
                voice,
                priority,
                in_use,
                capacity,
            } => format!(
                "{word} on free voice {voice} (priority {priority}; {in_use} of {capacity} voices in use)"
            ),
            Verdict::Stole {
                voice,
                priority,
                victim,
                capacity,
                ..
            } => format!(
                "{word} voice {voice} from `{}`: all {capacity} voices busy; its priority {priority} > {}, the lowest (the oldest on a tie)",
                victim.track, victim.priority
            ),
            Verdict::Refused {
                priority,
                lowest,
                capacity,
                ..
            } => format!(
                "{word}: all {capacity} voices busy and its priority {priority} is not above the lowest playing, `{}` on voice {} with priority {}",
                lowest.track, lowest.voice, lowest.priority
            ),
            Verdict::Joined { voice, owners } => {
                let ids: Vec<String> = owners.iter().map(ToString::to_string).collect();
                format!(
                    "{word} the copy already playing on voice {voice} (one copy of a track at a time); owners [{}]",
                    ids.join(", ")
                )
            }
            Verdict::AlreadyPlaying { voice } => {
                format!("{word} on voice {voice} (one copy of a track at a time)")
            }
            Verdict::Interrupted { voice } => {
                format!("{word} voice {voice} from an interruptible copy")
            }
            Verdict::NoTrack => {
                format!("{word}: its track is not defined or has no code; not played")
            }
            Verdict::UnknownEvent => format!("{word}: nobody defines it; not played"),
            Verdict::World => format!("{word} (station or music)"),
        }
    }

    /// For a steal or a refusal: every track holding a voice as Box-X compared them, and
    /// the one that decided it (the victim of a steal, the lowest playing of a refusal).
    pub fn compared(&self) -> Option<(&[Occupant], &Occupant)> {
        match self {
            Verdict::Stole {
                occupants, victim, ..
            } => Some((occupants, victim)),
            Verdict::Refused {
                occupants, lowest, ..
            } => Some((occupants, lowest)),
            _ => None,
        }
    }
}

/// How a trigger's track ended, at `at` (a time as written): "finished at 1.500 s" when
/// its code and notes were done, else "ended at 1.500 s: its voice was stolen".
pub fn end_sentence(at: &str, why: EndReason) -> String {
    match why {
        EndReason::Ended => format!("finished at {at}"),
        other => format!("ended at {at}: {other}"),
    }
}

/// A note's gain as the product of its contributions, each named, and in dB:
/// `0.270 = track volume 0.750 × fade (fading) 0.900 × zoom 0.800 × floor 1.000 ×
/// ducking 1.000 × group FX 0.500 × master 1.000 (-11.4 dB)`.
pub fn gain_equation(gain: &GainParts) -> String {
    let factors: Vec<String> = gain
        .factors()
        .iter()
        .map(|(factor, value)| format!("{factor} {:.3}", value.get()))
        .collect();
    format!(
        "{:.3} = {} ({})",
        gain.total().get(),
        factors.join(" × "),
        gain.total().db_text()
    )
}

/// Which factor silenced a note, in words; `None` while its gain is above zero.
pub fn silenced_by(gain: &GainParts) -> Option<String> {
    if gain.total() > Gain::SILENT {
        return None;
    }
    Some(match gain.silenced_by() {
        Some(factor) => format!("{factor} is 0: {}", factor.silence()),
        None => "the product of its factors is too small to hear".to_string(),
    })
}
