//! QA scripts (`.qa`, `docs/qa.md`): a render script with expectations. The lines of a
//! render script (`<seconds> <command>`), bursts (`<seconds> repeat <n> every <ms>ms
//! <command>`), and `<seconds> expect <assertion>`, checked at that time against what
//! the engine decided so far and what is sounding then. A script may run with another
//! voice limit: `0 set voices <n>`, before its first command.
//!
//! - [`parse_qa`] reads a script into commands and [`Expectation`]s, each misspelling
//!   an error at its column with a suggestion, like the console's.
//! - [`run_qa`] renders the commands offline (no file) and checks every expectation at
//!   its time (`check`: against the typed records so far, what sounds now and the
//!   output so far), each with what actually was and the decision behind it.
//! - [`suite_files`], [`run_file`] and [`run_files`]: a project's `qa/*.qa` found and
//!   run on every core, each result as it comes (`hitbench test`, the QA panel); a
//!   failed run can come back as a capture, to be shown at the failure.
//! - [`record`] turns a console history into a script ([`Recording`]), offering the
//!   decisions its lines caused as expectations to tick.

mod check;
mod heard;
mod names;
mod parse;
mod record;
mod run;
mod suite;

pub use check::Outcome;
pub use names::{KnownNames, check_names};
pub use parse::{MAX_EXPECTATIONS, parse_qa};
pub use record::{HandLine, Offer, Recording, record};
pub use run::{QaError, QaReport, QaResult, run_qa, run_qa_with};
pub use suite::{ScriptRun, run_file, run_files, suite_files};

use crate::host::command::TimedCommand;
use crate::runtime::TraceKind;
use crate::world::ObjectId;
use std::fmt;

/// The level a note must reach at the output for `expect heard`: −60 dBFS, the
/// mixer's RMS estimate of the note after its gain, pan, option group and master
/// volume (a note faded out by the view, muted, or of a silent sample stays below).
pub const HEARD_DBFS: f64 = -60.0;

/// A QA script read: the commands to run, in time order, and what to expect when.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QaScript {
    /// The commands, bursts expanded, in time order.
    pub commands: Vec<TimedCommand>,
    /// The expectations, in time order.
    pub expectations: Vec<Expectation>,
    /// The Box-X voice limit the script runs with (`0 set voices <n>`), if it sets one.
    pub voices: Option<usize>,
    /// The cache budget in bytes the script runs with (`0 set cache <MiB>`), if it sets
    /// one (over `--cache-mb` and `world.ini [Cache] BudgetMB`).
    pub cache_budget: Option<usize>,
}

/// One `expect` line.
#[derive(Debug, Clone, PartialEq)]
pub struct Expectation {
    /// Seconds from the start: checked once everything due by then has run.
    pub time: f64,
    /// 1-based line in the script.
    pub line: u32,
    /// The assertion as written (after `expect`).
    pub text: String,
    /// What it asserts.
    pub assertion: Assertion,
    /// The names it uses, where they stand: checked against the project before the
    /// script runs ([`check_names`]).
    pub names: Vec<NameRef>,
}

/// What kind of thing an expectation names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameKind {
    /// An event (`started`, `refused`, `heard`).
    Event,
    /// A track (`stolen`, `playing track`).
    Track,
    /// A station (`playing station`).
    Station,
    /// A sample: a patch's name, its path as the source writes it, or a sample file's
    /// path in a data folder (`playing sample`).
    Sample,
    /// A hit list, by number or name (`picks`).
    HitList,
    /// An object of the lot (`@3`).
    Object,
    /// A room of the lot (`room`).
    Room,
    /// A source file of the project (`fault … at <file>:<line>`).
    SourceFile,
}

impl NameKind {
    /// What it is, in words (`an event`).
    pub fn what(self) -> &'static str {
        match self {
            NameKind::Event => "event",
            NameKind::Track => "track",
            NameKind::Station => "station",
            NameKind::Sample => "sample",
            NameKind::HitList => "hit list",
            NameKind::Object => "object",
            NameKind::Room => "room",
            NameKind::SourceFile => "source file",
        }
    }
}

/// A name an expectation uses, and its 1-based column in the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameRef {
    /// What it names.
    pub kind: NameKind,
    /// The name as written.
    pub text: String,
    /// Its column.
    pub column: u32,
}

/// A comparison: `<`, `<=`, `==`, `>=` or `>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compare {
    /// `<`
    Less,
    /// `<=`
    AtMost,
    /// `==`
    Equal,
    /// `>=`
    AtLeast,
    /// `>`
    Greater,
}

impl Compare {
    /// Every operator as written.
    pub const SYMBOLS: [&'static str; 5] = ["<", "<=", "==", ">=", ">"];

    /// The operator written `text`.
    pub fn from_symbol(text: &str) -> Option<Self> {
        Some(match text {
            "<" => Compare::Less,
            "<=" => Compare::AtMost,
            "==" => Compare::Equal,
            ">=" => Compare::AtLeast,
            ">" => Compare::Greater,
            _ => return None,
        })
    }

    /// Whether `value <op> than` holds; `==` within `tolerance`.
    pub fn holds(self, value: f64, than: f64, tolerance: f64) -> bool {
        match self {
            Compare::Less => value < than,
            Compare::AtMost => value <= than + tolerance,
            Compare::Equal => (value - than).abs() <= tolerance,
            Compare::AtLeast => value >= than - tolerance,
            Compare::Greater => value > than,
        }
    }
}

impl fmt::Display for Compare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let index = match self {
            Compare::Less => 0,
            Compare::AtMost => 1,
            Compare::Equal => 2,
            Compare::AtLeast => 3,
            Compare::Greater => 4,
        };
        f.write_str(Self::SYMBOLS[index])
    }
}

/// A number compared with an operator: `>= 3`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound {
    /// The operator.
    pub op: Compare,
    /// The number on its right.
    pub value: f64,
}

/// What can be playing or silent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sounding {
    /// A track (by name).
    Track(String),
    /// A station (by name, e.g. `action`).
    Station(String),
    /// Any music.
    Music,
    /// A sample (by resource name).
    Sample(String),
    /// The ambience's freshness score (on, with notes sounding).
    Ambience,
    /// The night loop.
    NightLoop,
    /// The river loop of the neighbourhood music mode.
    River,
}

/// What happened so far, counted by `expect count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    /// Events triggered.
    Events,
    /// Tracks started on a voice.
    Starts,
    /// Tracks that joined a playing copy as owners.
    Joins,
    /// Voices stolen.
    Steals,
    /// Tracks refused.
    Refusals,
    /// Notes started.
    Notes,
    /// Hit-list picks.
    Picks,
    /// Runtime faults.
    Faults,
    /// Cache misses: a note whose sample was not in memory (waiting for it live,
    /// loaded on the spot offline).
    Misses,
    /// Cache misses of samples that had been evicted for room and were asked for again:
    /// the budget is too small for what plays.
    CapacityMisses,
    /// Notes dropped.
    Drops,
    /// Sounds of the server's own (`[ServerSounds]`, `select`, `sound`) played.
    ServerSounds,
    /// Server sounds dropped by noise reduction (their object was still playing one).
    NoiseDrops,
    /// Records of one trace kind (`errors` is `error`'s plural).
    Kind(TraceKind),
}

impl Counted {
    /// Every name `expect count` takes (trace kinds by their names besides).
    pub const NAMES: [&'static str; 14] = [
        "events",
        "starts",
        "joins",
        "steals",
        "refusals",
        "notes",
        "picks",
        "faults",
        "misses",
        "capacity-misses",
        "drops",
        "server-sounds",
        "noise-drops",
        "errors",
    ];

    /// The counter named `text`.
    pub fn from_name(text: &str) -> Option<Self> {
        Some(match text {
            "events" => Counted::Events,
            "starts" => Counted::Starts,
            "joins" => Counted::Joins,
            "steals" => Counted::Steals,
            "refusals" => Counted::Refusals,
            "notes" => Counted::Notes,
            "picks" => Counted::Picks,
            "faults" => Counted::Faults,
            "misses" => Counted::Misses,
            "capacity-misses" => Counted::CapacityMisses,
            "drops" => Counted::Drops,
            "server-sounds" => Counted::ServerSounds,
            "noise-drops" => Counted::NoiseDrops,
            "errors" => Counted::Kind(TraceKind::Error),
            other => Counted::Kind(TraceKind::ALL.into_iter().find(|k| k.name() == other)?),
        })
    }
}

/// One assertion of an `expect` line (`docs/qa.md`).
#[derive(Debug, Clone, PartialEq)]
pub enum Assertion {
    /// `started <event> [@object] [within <ms>ms]`: the last trigger of the event (from
    /// the object) got a voice — started or joined — within the time given of it.
    Started {
        /// The event.
        event: String,
        /// The object that triggered it, if it matters.
        object: Option<ObjectId>,
        /// How soon after the trigger, in milliseconds.
        within_ms: Option<f64>,
    },
    /// `heard <event> [@object] [within <ms>ms]`: a note of the last trigger of the event
    /// (from the object) reached the output at or above [`HEARD_DBFS`], no later than
    /// the time given after the trigger.
    Heard {
        /// The event.
        event: String,
        /// The object that triggered it, if it matters.
        object: Option<ObjectId>,
        /// How soon after the trigger, in milliseconds.
        within_ms: Option<f64>,
    },
    /// `refused <event>`: the last trigger of the event was refused a voice.
    Refused {
        /// The event.
        event: String,
    },
    /// `stolen <track>`: the track lost its voice to another so far.
    Stolen {
        /// The track.
        track: String,
    },
    /// `not stolen [priority >= n]`: no voice was stolen so far (from a track of at
    /// least that priority).
    NotStolen {
        /// Only steals from tracks of at least this priority count.
        min_priority: Option<i32>,
    },
    /// `voices <op> <n>`: busy voices now.
    Voices(Bound),
    /// `reverb <op> <value>`: the ambience's room reverb send now (0: none).
    Reverb(Bound),
    /// `room <name>` / `room none`: the room of the lot the controlled character is in
    /// now (none: in no room).
    Room {
        /// The room's name (case-insensitive); `None`: in no room.
        name: Option<String>,
    },
    /// `gain @<object> <op> <value>`: the object's volume from the view now (0–1).
    Gain {
        /// The object.
        object: ObjectId,
        /// The comparison.
        bound: Bound,
    },
    /// `pan @<object> <op> <value>`: the object's pan from the view now (−1…1).
    Pan {
        /// The object.
        object: ObjectId,
        /// The comparison.
        bound: Bound,
    },
    /// `playing <what>` (true) or `silent <what>` (false).
    Playing {
        /// What.
        what: Sounding,
        /// Playing, or silent.
        playing: bool,
    },
    /// `picks <hit list> norepeat`: no entry of the list was picked twice in a row.
    PicksNoRepeat {
        /// The hit list (name or number).
        list: String,
    },
    /// `no fault`.
    NoFault,
    /// `fault <kind> [at <file:line>]`: a fault of this kind happened (there).
    Fault {
        /// The kind's name ([`crate::runtime::vm::FaultKind::name`]).
        kind: String,
        /// The source file and line.
        at: Option<(String, u32)>,
    },
    /// `peak below <dBFS>`: of the output so far.
    PeakBelow {
        /// The ceiling, dBFS.
        dbfs: f64,
    },
    /// `loudness <op> <LUFS>`: integrated loudness of the output so far.
    Loudness(Bound),
    /// Never written: every script expects that nothing goes wrong it does not expect —
    /// no error record (a sample that cannot be loaded, a fault, a broken link, an
    /// unknown event) that none of its expectations counts or names (`count errors`,
    /// `fault`, `no fault`, …), and no command the engine refuses. Its results stand at
    /// the line that caused the trouble.
    Untroubled,
    /// `count <what> <op> <n>`: how many so far.
    Count {
        /// What is counted.
        what: Counted,
        /// The comparison.
        bound: Bound,
    },
}

#[cfg(test)]
mod tests;
