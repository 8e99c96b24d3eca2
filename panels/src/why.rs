//! The Why panel — "why can't I hear it?": for a target (an event, an object, a voice
//! slot, or the trigger of one trace record) the decisions the trace holds about it,
//! newest first: the verdict in words; for a steal or refusal every voice Box-X compared
//! (voice, track, priority, age) with the one it turned on highlighted; the hit-list
//! picks; each note's gain as the product of its named contributions (track volume, the
//! trigger's or the view's fade, zoom and floor, ducking, option group, master), each a
//! value and dB, and its pan with where it came from — an inaudible note says which
//! factor silenced it, marked in the list; and how the track ended.
//!
//! Decisions come from [`engine_core::tools::why`] over the trace the workbench keeps
//! (the engine keeps none). The panel scans only records it has not seen, keeps those
//! about its target, and groups them again only when one arrives.

use crate::{AppCommand, Panel, PanelContext, theme};
use engine_core::runtime::TraceRecord;
use engine_core::runtime::trace::{GainParts, Occupant, TraceEvent};
use engine_core::tools::why::{
    Decision, NoteFacts, PickFacts, Subject, Verdict, end_sentence, grouped, silenced_by,
};
use engine_core::world::ObjectId;
use std::collections::VecDeque;
use std::sync::Arc;

/// The engine's sample rate until the app says.
const DEFAULT_RATE: u32 = 48_000;
/// How many decisions the panel lists (newest first).
const SHOWN: usize = 100;
/// A decision's hit-list picks listed one a line up to this many; more (a looping track
/// picks on every round) fold into one line, so the notes' gain stays in view.
const PICKS_SHOWN: usize = 3;
/// A decision's notes shown in full; the rest fold (a looping track plays one a round).
const NOTES_SHOWN: usize = 2;

/// What the Why panel explains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WhyTarget {
    /// Every trigger of an event (matched ignoring case).
    Event(String),
    /// Every trigger from an object.
    Object(ObjectId),
    /// Everything decided about a voice slot: what started on it or stole it, and the
    /// refusals that turned on the track holding it.
    Voice(usize),
    /// The trigger one trace record belongs to, by its number among all records received
    /// (`PanelContext::trace_dropped` + its index).
    Record(u64),
}

impl From<Subject> for WhyTarget {
    fn from(subject: Subject) -> Self {
        match subject {
            Subject::Event(name) => WhyTarget::Event(name),
            Subject::Object(object) => WhyTarget::Object(object),
        }
    }
}

impl WhyTarget {
    /// The target in words: "event `vox_greet`", "object 2", "voice 3", "record 41".
    pub fn describe(&self) -> String {
        match self {
            WhyTarget::Event(name) => format!("event `{name}`"),
            WhyTarget::Object(object) => format!("object {object}"),
            WhyTarget::Voice(voice) => format!("voice {voice}"),
            WhyTarget::Record(number) => format!("the trigger of trace record {number}"),
        }
    }
}

/// Which records a target needs, resolved once (a record's trigger by its event).
#[derive(Debug, Clone, Default)]
enum Filter {
    /// Nothing: no target, or a record that is about no trigger.
    #[default]
    Nothing,
    Event(String),
    Object(ObjectId),
    Voice(usize),
    Record {
        event: Arc<str>,
        number: u64,
    },
}

impl Filter {
    fn of(target: &WhyTarget, trace: &VecDeque<TraceRecord>, dropped: u64) -> Self {
        match target {
            WhyTarget::Event(name) => Filter::Event(name.clone()),
            WhyTarget::Object(object) => Filter::Object(*object),
            WhyTarget::Voice(voice) => Filter::Voice(*voice),
            WhyTarget::Record(number) => number
                .checked_sub(dropped)
                .and_then(|i| trace.get(usize::try_from(i).ok()?))
                .and_then(|r| r.event.clone())
                .map_or(Filter::Nothing, |event| Filter::Record {
                    event,
                    number: *number,
                }),
        }
    }

    fn concerns(&self, record: &TraceRecord) -> bool {
        match self {
            Filter::Nothing => false,
            Filter::Event(name) => record
                .event
                .as_deref()
                .is_some_and(|e| e.eq_ignore_ascii_case(name)),
            Filter::Object(object) => record.object == Some(*object),
            Filter::Voice(voice) => {
                record.voice == Some(*voice)
                    || matches!(&record.what, TraceEvent::Refused { lowest, .. } if lowest.voice == *voice)
            }
            Filter::Record { event, .. } => record.event.as_ref() == Some(event),
        }
    }

    fn matches(&self, decision: &Decision) -> bool {
        match self {
            Filter::Nothing | Filter::Record { .. } => false,
            Filter::Event(name) => decision.event.eq_ignore_ascii_case(name),
            Filter::Object(object) => decision.object == Some(*object),
            Filter::Voice(voice) => {
                decision.voice() == Some(*voice)
                    || matches!(&decision.verdict, Verdict::Refused { lowest, .. } if lowest.voice == *voice)
            }
        }
    }
}

/// The records about the target seen so far, and their decisions.
#[derive(Debug, Default)]
struct Found {
    target: Option<WhyTarget>,
    filter: Filter,
    /// One past the number of the last record looked at.
    scanned: u64,
    /// The records about the target, oldest first.
    records: Vec<TraceRecord>,
    /// Their numbers among all records received.
    numbers: Vec<u64>,
    /// The target's decisions, newest first.
    decisions: Vec<Decision>,
    /// The trace's epoch (`PanelContext::trace_epoch`) they were found in.
    epoch: u64,
}

impl Found {
    /// Looks at the records not seen yet (all of them for a new target), and groups the
    /// target's again when one was about it.
    fn update(
        &mut self,
        target: Option<&WhyTarget>,
        trace: &VecDeque<TraceRecord>,
        dropped: u64,
        epoch: u64,
    ) {
        let mut changed = false;
        let end = dropped + trace.len() as u64;
        // Another target, or another trace (a capture opened, scrubbed back or closed).
        if self.target.as_ref() != target || self.epoch != epoch || end < self.scanned {
            *self = Found {
                target: target.cloned(),
                filter: target.map_or(Filter::Nothing, |t| Filter::of(t, trace, dropped)),
                scanned: dropped,
                epoch,
                ..Found::default()
            };
            changed = true;
        }
        // Records dropped from the front of the trace leave here too.
        let gone = self.numbers.partition_point(|n| *n < dropped);
        if gone > 0 {
            self.numbers.drain(..gone);
            self.records.drain(..gone);
            changed = true;
        }
        let from = self.scanned.max(dropped);
        if !matches!(self.filter, Filter::Nothing) {
            let skip = usize::try_from(from - dropped).unwrap_or(usize::MAX);
            for (number, record) in (from..end).zip(trace.iter().skip(skip)) {
                if self.filter.concerns(record) {
                    self.records.push(record.clone());
                    self.numbers.push(number);
                    changed = true;
                }
            }
        }
        self.scanned = end;
        if changed {
            self.group();
        }
    }

    fn group(&mut self) {
        let (all, owners) = grouped(&self.records);
        self.decisions = match &self.filter {
            Filter::Record { number, .. } => self
                .numbers
                .binary_search(number)
                .ok()
                .and_then(|i| owners.get(i).copied().flatten())
                .and_then(|d| all.get(d).cloned())
                .into_iter()
                .collect(),
            filter => all.into_iter().filter(|d| filter.matches(d)).collect(),
        };
        self.decisions.reverse();
    }
}

/// UI state of the Why panel.
#[derive(Debug)]
pub struct WhyPanel {
    /// What it explains (set by [`AppCommand::Why`] through the app).
    pub target: Option<WhyTarget>,
    /// The engine's sample rate, for seconds.
    pub sample_rate: u32,
    found: Found,
}

impl Default for WhyPanel {
    fn default() -> Self {
        Self {
            target: None,
            sample_rate: DEFAULT_RATE,
            found: Found::default(),
        }
    }
}

impl WhyPanel {
    /// The target's decisions as of the last frame drawn, newest first.
    pub fn decisions(&self) -> &[Decision] {
        &self.found.decisions
    }

    fn seconds(&self, samples: u64) -> String {
        format!(
            "{:.3} s",
            samples as f64 / f64::from(self.sample_rate.max(1))
        )
    }
}

impl Panel for WhyPanel {
    fn title(&self) -> &'static str {
        "Why"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, _commands: &mut Vec<AppCommand>) {
        self.found.update(
            self.target.as_ref(),
            ctx.trace,
            ctx.trace_dropped,
            ctx.trace_epoch,
        );
        let Some(target) = &self.target else {
            ui.label(
                "Why can't I hear it? Pick something to explain: Why on a voice slot or a \
                 refusal in Voices, on a record in Traces, on an object in the Lot view — or \
                 type `why <event>` or `why @object` in the console.",
            );
            return;
        };
        let decisions = &self.found.decisions;
        ui.horizontal_wrapped(|ui| {
            ui.strong(format!("Why: {}", target.describe()));
            ui.separator();
            ui.label(format!("{} decision(s), newest first", decisions.len()));
        });
        // A line either way: the decisions below stay put when the trace is switched.
        if ctx.live.trace_switches.samples {
            ui.weak("Notes and their gain are recorded (the sample trace is on).");
        } else {
            ui.weak("The sample trace is off: notes and their gain are not recorded (trace samples on).");
        }
        ui.separator();
        if decisions.is_empty() {
            ui.label(match self.found.filter {
                Filter::Nothing => {
                    "That record is about no trigger (or is no longer in the trace)."
                }
                _ => "Nothing about it in the trace yet.",
            });
            return;
        }
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                for (i, decision) in decisions.iter().take(SHOWN).enumerate() {
                    self.decision(ui, i, decision);
                    ui.add_space(4.0);
                }
                if decisions.len() > SHOWN {
                    ui.weak(format!("… and {} older", decisions.len() - SHOWN));
                }
            });
    }
}

/// A pick in words: "hit list 18: picked 3; excluded 5 (picked last time)".
fn pick_text(pick: &PickFacts) -> String {
    let excluded = if pick.excluded.is_empty() {
        "nothing excluded".to_string()
    } else {
        let ids: Vec<String> = pick.excluded.iter().map(ToString::to_string).collect();
        format!("excluded {} (picked last time)", ids.join(", "))
    };
    format!("hit list {}: picked {}; {excluded}", pick.list, pick.value)
}

/// A decision's picks: a line each when there are few; else one folded line saying how
/// many, and how often each value came, that unfolds to the list.
fn picks(ui: &mut egui::Ui, index: usize, picks: &[PickFacts]) {
    if picks.len() <= PICKS_SHOWN {
        for pick in picks {
            ui.label(pick_text(pick));
        }
        return;
    }
    let mut counts: Vec<((u32, u32), usize)> = Vec::new();
    for pick in picks {
        match counts
            .iter_mut()
            .find(|(key, _)| *key == (pick.list, pick.value))
        {
            Some((_, n)) => *n += 1,
            None => counts.push(((pick.list, pick.value), 1)),
        }
    }
    let mut tally: Vec<String> = counts
        .iter()
        .take(6)
        .map(|((list, value), n)| format!("list {list}: {value} ×{n}"))
        .collect();
    if counts.len() > 6 {
        tally.push("…".into());
    }
    egui::CollapsingHeader::new(format!(
        "{} hit-list picks ({})",
        picks.len(),
        tally.join(", ")
    ))
    .id_salt(("why-picks", index))
    .default_open(false)
    .show(ui, |ui| {
        for pick in picks {
            ui.label(pick_text(pick));
        }
    });
}

impl WhyPanel {
    /// One decision in a frame: header, verdict, occupants, picks, notes, end.
    fn decision(&self, ui: &mut egui::Ui, index: usize, d: &Decision) {
        egui::Frame::group(ui.style()).show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.horizontal_wrapped(|ui| {
                ui.monospace(self.seconds(d.time.samples()));
                let color = theme::verdict(ui.visuals(), &d.verdict);
                ui.colored_label(color, egui::RichText::new(d.verdict.kind().name()).strong());
                let from = d.object.map_or_else(
                    || "as a UI sound".to_string(),
                    |o| format!("from object {o}"),
                );
                let track = d
                    .track
                    .as_deref()
                    .map_or_else(String::new, |t| format!(", track `{t}`"));
                ui.label(format!("`{}` {from}{track}", d.event));
                if d.audible() {
                    ui.weak("· heard");
                } else {
                    ui.colored_label(theme::silenced(ui.visuals()), "· not heard");
                }
            });
            ui.label(d.verdict.sentence());
            if let Some((occupants, decider)) = d.verdict.compared() {
                self.occupants(ui, index, occupants, decider);
            }
            picks(ui, index, &d.picks);
            let played = matches!(
                d.verdict,
                Verdict::Started { .. } | Verdict::Stole { .. } | Verdict::Interrupted { .. }
            );
            if played && d.notes.is_empty() {
                ui.weak("No note traced for it (yet).");
            }
            let (first, more) = d.notes.split_at(d.notes.len().min(NOTES_SHOWN));
            for (n, note) in first.iter().enumerate() {
                self.note(ui, (index, n), note);
            }
            if !more.is_empty() {
                egui::CollapsingHeader::new(format!("{} more notes", more.len()))
                    .id_salt(("why-more-notes", index))
                    .default_open(false)
                    .show(ui, |ui| {
                        for (n, note) in more.iter().enumerate() {
                            self.note(ui, (index, NOTES_SHOWN + n), note);
                        }
                    });
            }
            if let Some((time, why)) = d.ended {
                ui.label(end_sentence(&self.seconds(time.samples()), why));
            }
        });
    }

    /// Every voice Box-X compared, the one the verdict turned on highlighted.
    fn occupants(
        &self,
        ui: &mut egui::Ui,
        index: usize,
        occupants: &[Occupant],
        decider: &Occupant,
    ) {
        ui.label("Voices compared:");
        egui::Grid::new(("why-occupants", index))
            .striped(true)
            .num_columns(5)
            .spacing([14.0, 2.0])
            .show(ui, |ui| {
                for header in ["Voice", "Track", "Priority", "Age", ""] {
                    ui.strong(header);
                }
                ui.end_row();
                for o in occupants {
                    let lowest = o.voice == decider.voice;
                    let cell = |text: String| {
                        let text = egui::RichText::new(text);
                        if lowest {
                            text.strong().background_color(theme::DECIDING_OCCUPANT)
                        } else {
                            text
                        }
                    };
                    ui.label(cell(o.voice.to_string()));
                    ui.label(cell(o.track.to_string()));
                    ui.label(cell(o.priority.to_string()));
                    ui.label(cell(format!(
                        "{:.2} s",
                        o.age as f64 / f64::from(self.sample_rate.max(1))
                    )));
                    if lowest {
                        ui.label(cell("lowest".to_string()));
                    } else {
                        ui.label("");
                    }
                    ui.end_row();
                }
            });
    }

    /// A note: its gain as the product of its factors (value and dB each), its pan, and
    /// which factor silenced it when it is silent.
    fn note(&self, ui: &mut egui::Ui, id: (usize, usize), note: &NoteFacts) {
        ui.label(format!(
            "note at {}: `{}` (patch {})",
            self.seconds(note.time.samples()),
            note.sample,
            note.patch
        ));
        let g: &GainParts = &note.gain;
        let silent = g.silenced_by();
        egui::Grid::new(("why-note", id))
            .num_columns(4)
            .min_col_width(8.0)
            .spacing([14.0, 1.0])
            .show(ui, |ui| {
                for (i, (factor, gain)) in g.factors().into_iter().enumerate() {
                    ui.label(if i == 0 { "" } else { "×" });
                    let name = factor.to_string();
                    if silent == Some(factor) {
                        let colour = theme::silenced(ui.visuals());
                        ui.colored_label(colour, name);
                    } else {
                        ui.label(name);
                    }
                    ui.label(format!("{:.3}", gain.get()));
                    ui.label(gain.db_text());
                    ui.end_row();
                }
                let total = g.total();
                ui.label("=");
                ui.strong("gain");
                ui.strong(format!("{:.3}", total.get()));
                ui.strong(total.db_text());
                ui.end_row();
                ui.label("");
                ui.label("pan");
                ui.label(note.pan.value.to_string());
                ui.label(note.pan.source.to_string());
                ui.end_row();
            });
        if let Some(factor) = silenced_by(g) {
            ui.colored_label(
                theme::silenced(ui.visuals()),
                format!("inaudible: {factor}"),
            );
        }
    }
}
