//! What the command `why <event | @object>` asks about ([`Subject`]), whether the project
//! and the lot have it ([`Subject::check`]), and [`WhyLog`]: the records a script's `why`
//! lines ask about, kept while `hitbench render` or `play` runs (the engine keeps no
//! history), and the answer to one of them.

use super::{Decision, decisions};
use crate::runtime::objects::ObjectId;
use crate::runtime::trace::{TraceRecord, TraceSwitches};
use crate::toolchain::project::Project;
use std::fmt;

/// The optional traces an explanation reads: samples (each note with its gain factors
/// and pan) and tracks (how a track ended). Voice decisions and picks are always traced;
/// the event trace is not needed.
pub const TRACES: TraceSwitches = TraceSwitches {
    events: false,
    samples: true,
    tracks: true,
};

/// What `why` asks about.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Subject {
    /// Every trigger of an event (its name as typed; matched ignoring case, like the
    /// project's event names).
    Event(String),
    /// Every trigger from an object.
    Object(ObjectId),
}

/// `vox_greet` or `@2`: the argument of `why` that reads back as this subject.
impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subject::Event(name) => f.write_str(name),
            Subject::Object(object) => write!(f, "@{object}"),
        }
    }
}

/// Why `why` cannot ask about a subject. The message is the console's reply.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubjectError {
    /// No event of the project has that name.
    #[error("unknown event `{name}`{}", hint(.suggestion))]
    UnknownEvent {
        /// The name asked for.
        name: String,
        /// The closest event name, when one is close enough to be a typo.
        suggestion: Option<String>,
    },
    /// The lot has no such object.
    #[error("there is no object {object} on the lot{}", listed(.on_lot))]
    NoSuchObject {
        /// The object asked for.
        object: ObjectId,
        /// The objects on the lot, ascending.
        on_lot: Vec<ObjectId>,
    },
}

fn hint(suggestion: &Option<String>) -> String {
    match suggestion {
        Some(name) => format!(" (did you mean `{name}`?)"),
        None => "; the Browser panel lists the project's events".to_string(),
    }
}

/// At most this many objects are listed in [`SubjectError::NoSuchObject`]'s message.
const OBJECTS_LISTED: usize = 12;

fn listed(on_lot: &[ObjectId]) -> String {
    let mut ids: Vec<String> = on_lot
        .iter()
        .take(OBJECTS_LISTED)
        .map(|id| format!("@{id}"))
        .collect();
    if on_lot.len() > OBJECTS_LISTED {
        ids.push("…".to_string());
    }
    format!(" (on the lot: {})", ids.join(", "))
}

impl Subject {
    /// Checks that the project defines the event, or that the object is on the lot
    /// (`on_lot`: the lot's objects; empty when no lot is loaded, and then any object is
    /// taken, as `sev` takes it).
    ///
    /// # Errors
    /// [`SubjectError`], with the closest event name or the objects on the lot.
    pub fn check(&self, project: &Project, on_lot: &[ObjectId]) -> Result<(), SubjectError> {
        match self {
            Subject::Event(name) => {
                if project.event(name).is_some() {
                    return Ok(());
                }
                let names = project.events.values().map(|e| &*e.name);
                Err(SubjectError::UnknownEvent {
                    name: name.clone(),
                    suggestion: crate::toolchain::suggest::closest(name, names).map(str::to_string),
                })
            }
            Subject::Object(object) => {
                if on_lot.is_empty() || on_lot.contains(object) {
                    return Ok(());
                }
                let mut on_lot = on_lot.to_vec();
                on_lot.sort_unstable();
                Err(SubjectError::NoSuchObject {
                    object: *object,
                    on_lot,
                })
            }
        }
    }

    /// True if the record is about this subject: its event, or its object. Every record
    /// a trigger's decision is built from names both.
    pub fn concerns(&self, record: &TraceRecord) -> bool {
        match self {
            Subject::Event(name) => record
                .event
                .as_deref()
                .is_some_and(|e| e.eq_ignore_ascii_case(name)),
            Subject::Object(object) => record.object == Some(*object),
        }
    }

    /// True if the decision is a trigger of this event, or from this object.
    pub fn matches(&self, decision: &Decision) -> bool {
        match self {
            Subject::Event(name) => decision.event.eq_ignore_ascii_case(name),
            Subject::Object(object) => decision.object == Some(*object),
        }
    }

    /// The subject in words: "`vox_greet`", "object 2".
    pub fn describe(&self) -> String {
        match self {
            Subject::Event(name) => format!("`{name}`"),
            Subject::Object(object) => format!("object {object}"),
        }
    }
}

/// How far [`WhyLog::answer`]'s explanation lines are indented: under the command of a
/// render's or play's log line (`   0.500  line 4: why …`).
const INDENT: &str = "          ";

/// The records a script's `why` lines ask about, kept as they come: only those about
/// one of its subjects, so a long render keeps no more than that.
#[derive(Debug, Clone, Default)]
pub struct WhyLog {
    subjects: Vec<Subject>,
    records: Vec<TraceRecord>,
}

impl WhyLog {
    /// A log for these subjects (none: it keeps nothing).
    pub fn new(asked: impl IntoIterator<Item = Subject>) -> Self {
        let mut subjects: Vec<Subject> = Vec::new();
        for subject in asked {
            if !subjects.contains(&subject) {
                subjects.push(subject);
            }
        }
        Self {
            subjects,
            records: Vec::new(),
        }
    }

    /// True if it asks about anything.
    pub fn is_asking(&self) -> bool {
        !self.subjects.is_empty()
    }

    /// Keeps the record if it is about one of the subjects.
    pub fn keep(&mut self, record: &TraceRecord) {
        if self.subjects.iter().any(|s| s.concerns(record)) {
            self.records.push(record.clone());
        }
    }

    /// The subject's decisions so far, in time order.
    pub fn decisions(&self, subject: &Subject) -> Vec<Decision> {
        let mine: Vec<TraceRecord> = self
            .records
            .iter()
            .filter(|r| subject.concerns(r))
            .cloned()
            .collect();
        decisions(&mine)
            .into_iter()
            .filter(|d| subject.matches(d))
            .collect()
    }

    /// The answer to `why <subject>`: how many triggers so far, then the explanation of
    /// the latest (every trigger at that instant), a line each, indented. `rate` is the engine's
    /// sample rate.
    pub fn answer(&self, subject: &Subject, rate: u32) -> String {
        let all = self.decisions(subject);
        let Some(last) = all.last() else {
            return match subject {
                Subject::Event(name) => format!("why {subject}: `{name}` was not triggered so far"),
                Subject::Object(object) => {
                    format!("why {subject}: object {object} triggered nothing so far")
                }
            };
        };
        let latest: Vec<&Decision> = all.iter().filter(|d| d.time == last.time).collect();
        let mut lines = vec![format!(
            "why {subject}: {} trigger(s) so far; the latest:",
            all.len()
        )];
        for decision in latest {
            lines.extend(
                decision
                    .explain(rate)
                    .into_iter()
                    .map(|l| format!("{INDENT}{l}")),
            );
        }
        lines.join("\n")
    }
}
