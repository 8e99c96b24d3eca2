//! The command language shared by the workbench's cheat console, `hitbench render`
//! scripts and the command line: one grammar, one parser, one executor.
//!
//! - [`grammar`] — every command in one table ([`COMMANDS`]: word, aliases, argument
//!   syntax, help line, how many arguments, how to read them); [`parse`], [`WORDS`] (for
//!   completion), `help` and the arity errors all come from it.
//! - `arguments` and `world_arguments` — the argument readers the table points to;
//!   `line` the words of a line with their columns, and [`ParseError`].
//! - [`script`] — render and play scripts: `<seconds> <command>` lines, times not
//!   decreasing and at most [`MAX_SCRIPT_SECONDS`]; `#` and `;` start comments.
//! - [`repeat`](mod@repeat) — `repeat <n> every <ms>ms <command>`: its words before the
//!   command, for the grammar's row; the console gets a [`Command::Repeat`], scripts
//!   expand it into its timed commands ([`script::line_commands`]).
//! - [`execute`](mod@execute) — running a parsed command against the engine; the world's
//!   commands ([`WorldCommand`]) go to the session's
//!   [`WorldDirector`](crate::world::director::WorldDirector) instead.
//! - `display` — the way back: every [`Command`] prints as the line that parses to it,
//!   so a command built in code (a workbench button) shows in the console history and
//!   replays as typed text.
//!
//! Event words are joined with `_`, as in the design document's `sev ui moneyback`; the
//! source of `sev` is the controlled character unless `@object` names one.

mod arguments;
mod debug_arguments;
mod display;
pub mod execute;
pub mod grammar;
pub(crate) mod line;
pub mod repeat;
#[cfg(test)]
mod round_trip;
pub mod script;
#[cfg(test)]
mod tests;
mod world_arguments;

use crate::runtime::sink::ControlGroup;
use crate::world::ObjectId;

pub use crate::tools::why::Subject;

pub use crate::world::commands::{Turn, WorldCommand, ZoomStep};
pub use debug_arguments::DebugCommand;
pub use execute::{AuditionError, CommandError, Context, execute};
pub use grammar::{COMMANDS, CommandSpec, WORDS, help_lines, help_lines_of, parse};
pub use line::ParseError;
pub use script::{
    MAX_SCRIPT_COMMANDS, MAX_SCRIPT_PROBLEMS, MAX_SCRIPT_SECONDS, ScriptLine, ScriptProblems,
    ScriptUnreadable, TimedCommand, add_commands, line_command, line_commands, parse_script,
    read_script, savelot_refusals, script_lines,
};
pub use world_arguments::parse_hour;

/// Which trace a `trace` command switches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceTarget {
    /// Events.
    Events,
    /// Samples.
    Samples,
    /// Tracks.
    Tracks,
    /// All three.
    All,
}

/// Which volume a `volume` command sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VolumeTarget {
    /// An option group.
    Group(ControlGroup),
    /// The master volume.
    Master,
}

/// What a `mute`, `solo` or `monitor` command does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MonitorCommand {
    /// Mute (`solo` false) or solo a target, or take that back (`on` false).
    Set {
        /// Solo rather than mute.
        solo: bool,
        /// What.
        target: crate::sound::server::MonitorTarget,
        /// On or off.
        on: bool,
    },
    /// Nothing muted or soloed any more.
    Clear,
    /// Say what is muted and soloed.
    Show,
}

/// One parsed command. It prints as its console line (`Display`):
/// `parse(&command.to_string())` gives it back.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Trigger an event from an object (the controlled character by default).
    SoundEvent {
        /// The event name (words joined with `_`).
        name: String,
        /// An explicit source object.
        object: Option<ObjectId>,
    },
    /// Trigger an event as a UI sound (no source).
    UiSound {
        /// The event name.
        name: String,
    },
    /// Quiet everything an object plays.
    Quiet(ObjectId),
    /// Quiet everything.
    QuietAll,
    /// Choose the controlled character.
    Control(ObjectId),
    /// Set an object's data field.
    Field {
        /// The object.
        object: ObjectId,
        /// Field number.
        field: u8,
        /// New value.
        value: i32,
    },
    /// Switch a trace.
    Trace {
        /// Which.
        target: TraceTarget,
        /// On or off.
        on: bool,
    },
    /// Set a volume.
    Volume {
        /// Which.
        target: VolumeTarget,
        /// 0…1 (more amplifies).
        value: f32,
    },
    /// A command for the world (camera, hour, music mode, objects, stations).
    World(WorldCommand),
    /// List the commands, or say one's syntax and what it does (its word as written in
    /// the grammar, e.g. `why`).
    Help(Option<String>),
    /// Play one patch (by ID or name) or sample file (a path inside a data directory,
    /// or a resource name) once as a UI sound: for auditioning.
    Play(String),
    /// Stop the auditions: every sample `play` started and every UI sound (a track
    /// playing for no object) — the Project browser's Stop. What objects say plays on.
    Stop,
    /// Explain the latest decisions about an event or an object from the trace: the
    /// verdict with every voice compared, the picks, each note's gain factor by factor.
    /// It needs the trace history, which the engine does not keep: the workbench opens
    /// its Why panel, `hitbench render` and `play` print the explanation.
    Why(Subject),
    /// Read the project again from its folders and apply it as a hot reload would
    /// (changed tracks restart, the world is read again): what a QA script or a tester
    /// uses to check that a reload keeps the sound going.
    Reload,
    /// Load a plug-in folder over the project from now on (`add`: it overrides the
    /// project and the plug-ins before it), or stop loading one, as the game's download
    /// folders came and went: the project is swapped in as a hot reload would, without a
    /// restart. Relative to the project's folder; from a script, a folder inside it.
    Plugin {
        /// Add it (else remove it).
        add: bool,
        /// The folder.
        dir: std::path::PathBuf,
    },
    /// A debugger command: breakpoints, stepping, registers (`docs/debugger.md`).
    Debug(DebugCommand),
    /// Mute or solo what the designer listens to (`docs/tuning.md`): never saved, never
    /// changing what the engine decides.
    Monitor(MonitorCommand),
    /// Give a track's, patch's or event mapping's field a new value in the running
    /// engine (the Properties panel's live edit; `docs/tuning.md`): the next start uses
    /// it and the playing copies follow where that makes sense. Files are not touched.
    Tune {
        /// Whose field.
        target: crate::tools::properties::PropertyTarget,
        /// Which field.
        property: crate::tools::properties::Property,
        /// The new value (a flag 0 or 1, a choice its constant's value, an ID).
        value: i64,
    },
    /// Set the Box-X voice limit from now on (1 to
    /// [`MAX_VOICES`](crate::runtime::engine::MAX_VOICES)); fewer voices than are in use
    /// stop the lowest priorities, as Box-X would let them go.
    Voices(usize),
    /// Run a command `count` times, `every_ms` apart, the first at once (never another
    /// `repeat`).
    Repeat {
        /// How many times (1 to [`repeat::MAX_REPEAT`]).
        count: u32,
        /// Milliseconds between two runs.
        every_ms: f64,
        /// What runs.
        command: Box<Command>,
    },
}
