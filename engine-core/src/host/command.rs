//! The command language shared by the workbench's cheat console, `hitbench render`
//! scripts and the command line: one grammar, one parser, one executor.
//!
//! Commands: `soundevent`/`sev <name…> [@object]` (words joined with `_`, as the seed's
//! `sev ui moneyback`; the source is the controlled character unless `@object` names
//! one), `ui <name…>` (a UI sound, no source), `quiet <object>`, `quietall`,
//! `control <object>`, `field <object> <field> <value>`,
//! `trace events|samples|tracks|all on|off`, `volume fx|music|vox|master <0..1>`,
//! `help`, `play <patch|sample>` (audition one patch or sample file as a UI sound);
//! and the world's commands ([`WorldCommand`]: `view`, `scroll`, `zoom`, `rotate`,
//! `floor`, `hour`, `mode`, `move`, `room`, `turnon`, `turnoff`, `world`, `savelot`),
//! which the session hands to its [`WorldDirector`](crate::world::director::WorldDirector). Scripts are lines of `<seconds> <command>`, times not decreasing and
//! at most [`MAX_SCRIPT_SECONDS`]; `#` and `;` start comments.

use crate::runtime::sink::{ControlGroup, SampleRef};
use crate::runtime::{Engine, EventArgs, TraceSwitches};
use crate::sound::mixer::MixerControls;
use crate::toolchain::diag::Diagnostic;
pub use crate::world::commands::{Turn, WorldCommand, ZoomStep};
use crate::world::music::MusicMode;
use crate::world::{ObjectId, field};
use std::fmt;
use std::path::{Path, PathBuf};

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

/// One parsed command.
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
    /// List the commands.
    Help,
    /// Play one patch (by ID or name) or sample file (a path inside a data directory,
    /// or a resource name) once as a UI sound: for auditioning.
    Play(String),
}

/// A command line that could not be understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based column of the problem in the line.
    pub column: u32,
    /// What is wrong, and how to write it.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.column, self.message)
    }
}

/// The commands, one line each, for `help` and the console.
pub const HELP: &[(&str, &str)] = &[
    (
        "sev <event…> [@object]",
        "play an event from the controlled character (or @object); `sev ui moneyback` = ui_moneyback",
    ),
    ("soundevent <event…> [@object]", "the same as sev"),
    (
        "ui <event…>",
        "play an event as a UI sound (no source object)",
    ),
    ("quiet <object>", "quiet everything an object is playing"),
    ("quietall", "quiet everything"),
    (
        "control <object>",
        "choose the controlled character (the source of `sev`)",
    ),
    (
        "field <object> <field> <value>",
        "set a data field (gender, creativity, neat, playful, … or a number)",
    ),
    ("trace events|samples|tracks|all on|off", "switch a trace"),
    (
        "volume fx|music|vox|master <0..1>",
        "set an option volume or the master volume",
    ),
    ("view <x> <y>", "centre the camera on a lot tile"),
    (
        "scroll <dx> <dy>",
        "scroll the view by pixels (x right, y down)",
    ),
    ("zoom in|out|1|2|3", "zoom the camera (1 near … 3 far)"),
    ("rotate left|right|0-3", "rotate the view by quarter turns"),
    ("floor <n>", "show another floor (0 ground)"),
    (
        "hour <h>",
        "set the hour of day (14, 14.5 or 14:30): the night loop, the score",
    ),
    (
        "mode <music mode>",
        "live, buy, build, neighborhood, publish, load, credits, options, family",
    ),
    ("move <object> <x> <y> [floor]", "move an object on the lot"),
    (
        "room <tiles>",
        "size of the room around the character (small rooms add reverb)",
    ),
    (
        "turnon <object> <station>",
        "turn a radio or TV on, tuned to a station code",
    ),
    ("turnoff <object>", "turn a radio or TV off"),
    (
        "world",
        "camera, music, ambience, stations, every object's volume and pan and why",
    ),
    (
        "savelot [file]",
        "save the lot (objects, camera, hour, mode)",
    ),
    ("help", "list the commands"),
    (
        "play <patch id|patch name|sample file>",
        "audition one patch or sample once as a UI sound",
    ),
];

/// Every command word, for completion.
pub const WORDS: &[&str] = &[
    "sev",
    "soundevent",
    "ui",
    "quiet",
    "quietall",
    "control",
    "field",
    "trace",
    "volume",
    "view",
    "scroll",
    "zoom",
    "rotate",
    "floor",
    "hour",
    "mode",
    "move",
    "room",
    "turnon",
    "turnoff",
    "world",
    "savelot",
    "help",
    "play",
];

struct Words<'a> {
    items: Vec<(u32, &'a str)>,
}

impl<'a> Words<'a> {
    fn new(line: &'a str) -> Self {
        let mut items = Vec::new();
        let mut start = None;
        let mut column = 0u32;
        let mut byte_start = 0;
        for (i, c) in line.char_indices() {
            column += 1;
            if c.is_whitespace() {
                if let Some(col) = start.take() {
                    items.push((col, &line[byte_start..i]));
                }
            } else if start.is_none() {
                start = Some(column);
                byte_start = i;
            }
        }
        if let Some(col) = start {
            items.push((col, &line[byte_start..]));
        }
        Self { items }
    }

    fn end_column(&self) -> u32 {
        self.items.last().map_or(1, |(c, w)| {
            c + u32::try_from(w.chars().count()).unwrap_or(0)
        })
    }
}

fn error(column: u32, message: impl Into<String>) -> ParseError {
    ParseError {
        column,
        message: message.into(),
    }
}

fn object(word: Option<&(u32, &str)>, end: u32, what: &str) -> Result<ObjectId, ParseError> {
    let Some((column, text)) = word else {
        return Err(error(end, format!("{what} needs an object ID (a number)")));
    };
    text.trim_start_matches('@')
        .parse()
        .map_err(|_| error(*column, format!("`{text}` is not an object ID (a number)")))
}

fn number(word: Option<&(u32, &str)>, end: u32, usage: &str) -> Result<f32, ParseError> {
    let Some((column, text)) = word else {
        return Err(error(end, format!("missing a number: {usage}")));
    };
    text.parse::<f32>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| error(*column, format!("`{text}` is not a number: {usage}")))
}

/// An hour of day: `18`, `18.5` or `18:30`, 0 to 24.
pub fn parse_hour(text: &str) -> Option<f32> {
    let hour = match text.split_once(':') {
        Some((h, m)) => {
            let h: u32 = h.parse().ok()?;
            let m: u32 = m.parse().ok()?;
            if m >= 60 {
                return None;
            }
            h as f32 + m as f32 / 60.0
        }
        None => text.parse().ok()?,
    };
    (hour.is_finite() && (0.0..=24.0).contains(&hour)).then_some(hour)
}

/// Parses one command line (no time). Blank lines and comments are `Ok(None)`.
pub fn parse(line: &str) -> Result<Option<Command>, ParseError> {
    let code = line.split(['#', ';']).next().unwrap_or("");
    let words = Words::new(code);
    let Some(&(head_column, head)) = words.items.first() else {
        return Ok(None);
    };
    let args = &words.items[1..];
    let end = words.end_column();
    let command = match head.to_ascii_lowercase().as_str() {
        "sev" | "soundevent" | "ui" => {
            let mut names: Vec<&str> = Vec::new();
            let mut object_id = None;
            for (column, word) in args {
                if let Some(id) = word.strip_prefix('@') {
                    object_id = Some(id.parse().map_err(|_| {
                        error(
                            *column,
                            format!("`{word}` is not an object (write @ and a number, e.g. @3)"),
                        )
                    })?);
                } else {
                    names.push(word);
                }
            }
            if names.is_empty() {
                return Err(error(
                    end,
                    format!("`{head}` needs an event name, e.g. `{head} ui moneyback`"),
                ));
            }
            let name = names.join("_");
            if head.eq_ignore_ascii_case("ui") {
                if object_id.is_some() {
                    return Err(error(
                        head_column,
                        "a UI sound has no source object; use `sev … @object`",
                    ));
                }
                Command::UiSound { name }
            } else {
                Command::SoundEvent {
                    name,
                    object: object_id,
                }
            }
        }
        "quiet" => Command::Quiet(object(args.first(), end, "quiet")?),
        "quietall" => Command::QuietAll,
        "control" => Command::Control(object(args.first(), end, "control")?),
        "field" => {
            let id = object(args.first(), end, "field")?;
            let Some((column, name)) = args.get(1) else {
                return Err(error(
                    end,
                    "field needs a field name or number and a value: `field 3 neat 40`",
                ));
            };
            let Some(field_number) = field::by_name(name) else {
                let known: Vec<&str> = field::NAMES.iter().map(|(_, n)| *n).collect();
                return Err(error(
                    *column,
                    format!(
                        "unknown field `{name}` (known: {}, or 0-31)",
                        known.join(", ")
                    ),
                ));
            };
            let Some((column, value)) = args.get(2) else {
                return Err(error(end, "field needs a value"));
            };
            let value = value
                .parse()
                .map_err(|_| error(*column, format!("`{value}` is not a number")))?;
            Command::Field {
                object: id,
                field: field_number,
                value,
            }
        }
        "trace" => {
            let Some((column, which)) = args.first() else {
                return Err(error(
                    end,
                    "trace needs events, samples, tracks or all, then on or off",
                ));
            };
            let target = match which.to_ascii_lowercase().as_str() {
                "events" | "event" => TraceTarget::Events,
                "samples" | "sample" => TraceTarget::Samples,
                "tracks" | "track" => TraceTarget::Tracks,
                "all" => TraceTarget::All,
                _ => {
                    return Err(error(
                        *column,
                        format!("`{which}`: trace events, samples, tracks or all"),
                    ));
                }
            };
            let on = match args.get(1).map(|(c, w)| (c, w.to_ascii_lowercase())) {
                Some((_, w)) if w == "on" => true,
                Some((_, w)) if w == "off" => false,
                Some((c, w)) => return Err(error(*c, format!("`{w}`: on or off"))),
                None => return Err(error(end, "trace needs on or off")),
            };
            Command::Trace { target, on }
        }
        "volume" => {
            let Some((column, which)) = args.first() else {
                return Err(error(
                    end,
                    "volume needs fx, music, vox or master, then a value 0..1",
                ));
            };
            let target = match which.to_ascii_lowercase().as_str() {
                "fx" => VolumeTarget::Group(ControlGroup::Fx),
                "music" => VolumeTarget::Group(ControlGroup::Music),
                "vox" => VolumeTarget::Group(ControlGroup::Vox),
                "master" => VolumeTarget::Master,
                _ => {
                    return Err(error(
                        *column,
                        format!("`{which}`: volume fx, music, vox or master"),
                    ));
                }
            };
            let Some((column, value)) = args.get(1) else {
                return Err(error(end, "volume needs a value 0..1"));
            };
            let value: f32 = value
                .parse()
                .ok()
                .filter(|v: &f32| v.is_finite() && *v >= 0.0 && *v <= 4.0)
                .ok_or_else(|| {
                    error(
                        *column,
                        format!("`{value}` is not a volume (0 to 1; up to 4 amplifies)"),
                    )
                })?;
            Command::Volume { target, value }
        }
        "view" => {
            let (x, y) = (
                number(args.first(), end, "view <x> <y>")?,
                number(args.get(1), end, "view <x> <y>")?,
            );
            Command::World(WorldCommand::View { x, y })
        }
        "scroll" => {
            let (dx, dy) = (
                number(args.first(), end, "scroll <dx> <dy>")?,
                number(args.get(1), end, "scroll <dx> <dy>")?,
            );
            Command::World(WorldCommand::Scroll { dx, dy })
        }
        "zoom" => {
            let Some((column, word)) = args.first() else {
                return Err(error(
                    end,
                    "zoom needs in, out or a level 1 (near) to 3 (far)",
                ));
            };
            let step = match word.to_ascii_lowercase().as_str() {
                "in" | "+" => ZoomStep::In,
                "out" | "-" => ZoomStep::Out,
                "1" | "near" => ZoomStep::Level(1),
                "2" | "middle" => ZoomStep::Level(2),
                "3" | "far" => ZoomStep::Level(3),
                _ => {
                    return Err(error(
                        *column,
                        format!("`{word}`: zoom in, out, 1 (near), 2 or 3 (far)"),
                    ));
                }
            };
            Command::World(WorldCommand::Zoom(step))
        }
        "rotate" => {
            let turn = match args.first().map(|(c, w)| (c, w.to_ascii_lowercase())) {
                None => Turn::Right,
                Some((_, w)) if w == "left" || w == "ccw" => Turn::Left,
                Some((_, w)) if w == "right" || w == "cw" => Turn::Right,
                Some((c, w)) => match w.parse::<u8>() {
                    Ok(n) if n < 4 => Turn::To(n),
                    _ => {
                        return Err(error(
                            *c,
                            format!("`{w}`: rotate left, right or to 0-3 quarter turns"),
                        ));
                    }
                },
            };
            Command::World(WorldCommand::Rotate(turn))
        }
        "floor" => {
            let Some((column, word)) = args.first() else {
                return Err(error(
                    end,
                    "floor needs a number (0 ground, 1 upstairs, -1 basement)",
                ));
            };
            let level = word
                .parse()
                .map_err(|_| error(*column, format!("`{word}` is not a floor number")))?;
            Command::World(WorldCommand::Floor(level))
        }
        "hour" => {
            let Some((column, word)) = args.first() else {
                return Err(error(end, "hour needs a time of day: 18, 18.5 or 18:30"));
            };
            let hour = parse_hour(word).ok_or_else(|| {
                error(
                    *column,
                    format!("`{word}` is not an hour (0 to 24: 18, 18.5 or 18:30)"),
                )
            })?;
            Command::World(WorldCommand::Hour(hour))
        }
        "mode" => {
            let Some((column, word)) = args.first() else {
                return Err(error(
                    end,
                    "mode needs a music mode: live, buy, build, neighborhood, …",
                ));
            };
            let mode = MusicMode::by_name(word).ok_or_else(|| {
                let names: Vec<&str> = MusicMode::ALL.iter().map(|m| m.name()).collect();
                error(
                    *column,
                    format!("`{word}` is not a music mode ({})", names.join(", ")),
                )
            })?;
            Command::World(WorldCommand::Mode(mode))
        }
        "move" => {
            let id = object(args.first(), end, "move")?;
            let usage = "move <object> <x> <y> [floor]";
            let x = number(args.get(1), end, usage)?;
            let y = number(args.get(2), end, usage)?;
            let floor = match args.get(3) {
                Some((column, word)) => Some(
                    word.parse()
                        .map_err(|_| error(*column, format!("`{word}` is not a floor number")))?,
                ),
                None => None,
            };
            Command::World(WorldCommand::Move {
                object: id,
                x,
                y,
                floor,
            })
        }
        "room" => {
            let tiles = number(args.first(), end, "room <tiles>")?;
            if tiles < 0.0 {
                return Err(error(end, "a room cannot be smaller than nothing"));
            }
            Command::World(WorldCommand::Room(tiles))
        }
        "turnon" => {
            let id = object(args.first(), end, "turnon")?;
            let Some((column, word)) = args.get(1) else {
                return Err(error(
                    end,
                    "turnon needs an object and a station: `turnon 5 28`",
                ));
            };
            let station = crate::world::stations::station_code(word).ok_or_else(|| {
                error(
                    *column,
                    format!("`{word}` is not a station code (a number or four letters)"),
                )
            })?;
            Command::World(WorldCommand::TurnOn {
                object: id,
                station,
            })
        }
        "turnoff" => Command::World(WorldCommand::TurnOff {
            object: object(args.first(), end, "turnoff")?,
        }),
        "world" => Command::World(WorldCommand::Describe),
        "savelot" => Command::World(WorldCommand::SaveLot(
            args.first().map(|(_, w)| PathBuf::from(w)),
        )),
        "help" | "?" => Command::Help,
        "play" => {
            let Some(&(column, _)) = args.first() else {
                return Err(error(
                    end,
                    "play needs a patch ID, a patch name or a sample file: `play 100`",
                ));
            };
            // The rest of the line, so a path may hold spaces.
            let start = usize::try_from(column.saturating_sub(1)).unwrap_or(0);
            let target = code
                .char_indices()
                .nth(start)
                .and_then(|(i, _)| code.get(i..))
                .unwrap_or_default()
                .trim();
            return Ok(Some(Command::Play(target.to_owned())));
        }
        other => {
            let hint = crate::toolchain::suggest::closest(other, WORDS.iter().copied())
                .map(|w| format!(" (did you mean `{w}`?)"))
                .unwrap_or_default();
            return Err(error(
                head_column,
                format!("unknown command `{other}`{hint}; `help` lists the commands"),
            ));
        }
    };
    let expected_args = match &command {
        Command::Quiet(_) | Command::Control(_) => 1,
        Command::QuietAll | Command::Help => 0,
        Command::Play(_) => usize::MAX,
        Command::Field { .. } => 3,
        Command::Trace { .. } | Command::Volume { .. } => 2,
        Command::SoundEvent { .. } | Command::UiSound { .. } => usize::MAX,
        Command::World(world) => match world {
            WorldCommand::View { .. } | WorldCommand::Scroll { .. } => 2,
            WorldCommand::Move { .. } => 4,
            WorldCommand::TurnOn { .. } => 2,
            WorldCommand::Describe => 0,
            WorldCommand::Zoom(_)
            | WorldCommand::Rotate(_)
            | WorldCommand::Floor(_)
            | WorldCommand::Hour(_)
            | WorldCommand::Mode(_)
            | WorldCommand::Room(_)
            | WorldCommand::TurnOff { .. }
            | WorldCommand::SaveLot(_) => 1,
        },
    };
    if let Some((column, extra)) = args.get(expected_args) {
        return Err(error(
            *column,
            format!("unexpected `{extra}` after the command"),
        ));
    }
    Ok(Some(command))
}

/// The latest time a script line may have, in seconds (24 h). Longer renders say so
/// with `--duration`; a line at `1e308` must not mean "render until the disk is full".
pub const MAX_SCRIPT_SECONDS: f64 = 86_400.0;

/// A command with the time it runs at.
#[derive(Debug, Clone, PartialEq)]
pub struct TimedCommand {
    /// Seconds from the start.
    pub time: f64,
    /// The command.
    pub command: Command,
    /// 1-based line in the script.
    pub line: u32,
}

/// Parses a script: `<seconds> <command>` per line. Returns the commands and every
/// problem (file, line, column).
pub fn parse_script(text: &str, file: &Path) -> (Vec<TimedCommand>, Vec<Diagnostic>) {
    let mut commands = Vec::new();
    let mut diagnostics = Vec::new();
    let mut last_time = 0.0f64;
    for (index, raw) in text.lines().enumerate() {
        let line = u32::try_from(index + 1).unwrap_or(u32::MAX);
        let code = raw.split(['#', ';']).next().unwrap_or("");
        let trimmed = code.trim_start();
        if trimmed.is_empty() {
            continue;
        }
        let lead = u32::try_from(code.len() - trimmed.len()).unwrap_or(0);
        let (time_text, rest) = trimmed
            .split_once(char::is_whitespace)
            .unwrap_or((trimmed, ""));
        let time = match time_text.parse::<f64>() {
            Ok(t) if t.is_finite() && t > MAX_SCRIPT_SECONDS => {
                diagnostics.push(Diagnostic::error(
                    file,
                    line,
                    lead + 1,
                    format!(
                        "time {t} is beyond the latest a script may use, {MAX_SCRIPT_SECONDS} s (24 h); \
                         render longer with `--duration`"
                    ),
                ));
                continue;
            }
            Ok(t) if t.is_finite() && t >= 0.0 => t,
            _ => {
                diagnostics.push(Diagnostic::error(
                    file,
                    line,
                    lead + 1,
                    format!("`{time_text}` is not a time: each line starts with seconds, e.g. `1.5 sev ui click`"),
                ));
                continue;
            }
        };
        if time < last_time {
            diagnostics.push(Diagnostic::error(
                file,
                line,
                lead + 1,
                format!("time {time} is earlier than the line before ({last_time}); times must not go back"),
            ));
            continue;
        }
        last_time = time;
        let offset = lead + u32::try_from(time_text.chars().count()).unwrap_or(0) + 1;
        match parse(rest) {
            Ok(Some(command)) => commands.push(TimedCommand {
                time,
                command,
                line,
            }),
            Ok(None) => diagnostics.push(Diagnostic::error(
                file,
                line,
                offset + 1,
                "a time needs a command after it",
            )),
            Err(e) => diagnostics.push(Diagnostic::error(file, line, offset + e.column, e.message)),
        }
    }
    (commands, diagnostics)
}

/// An error for each `savelot` line of a script that was not allowed to save the lot
/// (`hitbench render` and `play` without `--allow-savelot`, the workbench's renders).
pub fn savelot_refusals(script: &[TimedCommand], file: &Path) -> Vec<Diagnostic> {
    script
        .iter()
        .filter(|c| matches!(c.command, Command::World(WorldCommand::SaveLot(_))))
        .map(|c| {
            Diagnostic::error(
                file,
                c.line,
                0,
                "this script may not save the lot: `savelot` runs only with `--allow-savelot` \
                 (which saves inside the project's folders)",
            )
        })
        .collect()
}

/// What a command acts on.
pub struct Context<'a> {
    /// The runtime.
    pub engine: &'a mut Engine,
    /// Option and master volumes, when there is a mixer.
    pub controls: Option<&'a MixerControls>,
    /// The controlled character.
    pub controlled: &'a mut Option<ObjectId>,
    /// Arguments of an object sound (`sev`): the volume and pan of the source where it
    /// stands in the view. UI sounds start with the defaults.
    pub args: EventArgs,
}

/// Runs a command; returns a line for the console, or why it could not run.
pub fn execute(command: &Command, cx: &mut Context<'_>) -> Result<String, String> {
    match command {
        Command::SoundEvent { name, object } => {
            let Some(source) = object.or(*cx.controlled) else {
                return Err(format!(
                    "no controlled character: `sev` plays from the character you control — choose one with \
                     `control <object>` (or in the lot view), name one with `sev {name} @<object>`, or play it \
                     as a UI sound with `ui {name}`"
                ));
            };
            // With a lot, the source must stand on it: a sound from nowhere is a mistake.
            let world = cx.engine.world();
            if !world.is_empty() && world.get(source).is_none() {
                return Err(format!(
                    "there is no object {source} on the lot; `sev {name}` was not played (`world` lists the objects)"
                ));
            }
            cx.engine
                .trigger(name, Some(source), cx.args)
                .map(|outcome| format!("{name} from object {source}: {outcome}"))
                .map_err(|e| e.to_string())
        }
        Command::UiSound { name } => cx
            .engine
            .trigger(name, None, EventArgs::default())
            .map(|outcome| format!("{name}: {outcome}"))
            .map_err(|e| e.to_string()),
        Command::Quiet(object) => {
            let ended = cx.engine.quiet(*object);
            Ok(format!("quieted object {object}: {ended} track(s) ended"))
        }
        Command::QuietAll => Ok(format!(
            "quieted everything: {} track(s) ended",
            cx.engine.quiet_all()
        )),
        Command::Control(object) => {
            if cx.engine.world().get(*object).is_none() {
                return Err(format!("there is no object {object} on the lot"));
            }
            *cx.controlled = Some(*object);
            Ok(format!("controlling object {object}"))
        }
        Command::Field {
            object,
            field,
            value,
        } => {
            if cx
                .engine
                .world_mut()
                .set_field(*object, i32::from(*field), *value)
            {
                Ok(format!("object {object}: field {field} = {value}"))
            } else {
                Err(format!("there is no object {object} on the lot"))
            }
        }
        Command::Trace { target, on } => {
            let mut switches: TraceSwitches = cx.engine.trace_switches();
            match target {
                TraceTarget::Events => switches.events = *on,
                TraceTarget::Samples => switches.samples = *on,
                TraceTarget::Tracks => switches.tracks = *on,
                TraceTarget::All => {
                    switches.events = *on;
                    switches.samples = *on;
                    switches.tracks = *on;
                }
            }
            cx.engine.set_trace_switches(switches);
            Ok(format!("trace {target:?} {}", if *on { "on" } else { "off" }).to_lowercase())
        }
        Command::Volume { target, value } => {
            let Some(controls) = cx.controls else {
                return Err("no mixer is running".into());
            };
            match target {
                VolumeTarget::Group(group) => controls.set_group_volume(*group, *value),
                VolumeTarget::Master => controls.set_master(*value),
            }
            Ok(format!(
                "volume {} = {value}",
                match target {
                    VolumeTarget::Group(g) => g.name(),
                    VolumeTarget::Master => "master",
                }
            ))
        }
        Command::World(_) => Err("the world is not running here (no lot)".into()),
        Command::Play(target) => {
            let (what, sample) = audition_sample(cx.engine.project(), target)?;
            let note = cx.engine.play_sample(sample);
            Ok(format!("playing {what} (note {note})"))
        }
        Command::Help => Ok(HELP
            .iter()
            .map(|(syntax, what)| format!("{syntax:<42} {what}"))
            .collect::<Vec<_>>()
            .join("\n")),
    }
}

/// What `play <target>` plays: a patch by ID (`100`, `0x64`) or name, else a sample
/// file by its resource name or its path (absolute, or relative to a data directory).
fn audition_sample(
    project: &crate::toolchain::project::Project,
    target: &str,
) -> Result<(String, SampleRef), String> {
    let id = match target
        .strip_prefix("0x")
        .or_else(|| target.strip_prefix("0X"))
    {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => target.parse::<u32>().ok(),
    };
    let patch = match id {
        Some(id) => project.patches.get(&id),
        None => project
            .patches
            .values()
            .find(|p| p.name.eq_ignore_ascii_case(target)),
    };
    if let Some(patch) = patch {
        let (Some(name), Some(path)) = (&patch.resource, &patch.path) else {
            return Err(format!(
                "patch {} ({}): sample file `{}` was not found",
                patch.id, patch.name, patch.path_text
            ));
        };
        let sample = SampleRef {
            patch: patch.id,
            name: std::sync::Arc::clone(name),
            path: std::sync::Arc::clone(path),
        };
        return Ok((
            format!("patch {} ({}, {name})", patch.id, patch.name),
            sample,
        ));
    }
    if id.is_some() {
        return Err(format!("there is no patch {target}"));
    }
    let wanted = Path::new(target);
    let file = std::iter::once(wanted.to_path_buf())
        .filter(|p| p.is_absolute())
        .chain(project.dirs.iter().rev().map(|dir| dir.join(wanted)))
        .find(|p| p.is_file());
    match file.and_then(|f| crate::world::sound::sample_ref(&f, &project.dirs)) {
        Some(sample) => Ok((format!("sample {}", sample.name), sample)),
        None => Err(format!(
            "`{target}` is neither a patch (ID or name) nor a sample file in the project's data directories"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(line: &str) -> Command {
        parse(line)
            .unwrap_or_else(|e| panic!("{line}: {e}"))
            .unwrap_or(Command::Help)
    }

    #[test]
    fn sev_joins_words() {
        assert_eq!(
            ok("sev ui moneyback"),
            Command::SoundEvent {
                name: "ui_moneyback".into(),
                object: None
            }
        );
        assert_eq!(
            ok("soundevent vox laugh @3"),
            Command::SoundEvent {
                name: "vox_laugh".into(),
                object: Some(3)
            }
        );
        assert_eq!(
            ok("UI ui_click"),
            Command::UiSound {
                name: "ui_click".into()
            }
        );
    }

    #[test]
    fn every_command_parses() {
        assert_eq!(ok("quiet 4"), Command::Quiet(4));
        assert_eq!(ok("quietall"), Command::QuietAll);
        assert_eq!(ok("control 2"), Command::Control(2));
        assert_eq!(
            ok("field 2 neat 40"),
            Command::Field {
                object: 2,
                field: 20,
                value: 40
            }
        );
        assert_eq!(
            ok("trace samples off"),
            Command::Trace {
                target: TraceTarget::Samples,
                on: false
            }
        );
        assert_eq!(
            ok("volume vox 0.5"),
            Command::Volume {
                target: VolumeTarget::Group(ControlGroup::Vox),
                value: 0.5
            }
        );
        assert_eq!(ok("help"), Command::Help);
        assert_eq!(ok("play 100"), Command::Play("100".into()));
        assert_eq!(
            ok("PLAY sounds/baby cry.wav"),
            Command::Play("sounds/baby cry.wav".into())
        );
        assert!(parse("play").unwrap_err().message.contains("play needs"));
        assert_eq!(parse("  # just a comment"), Ok(None));
    }

    #[test]
    fn mistakes_say_where_and_what() {
        let e = parse("sev").unwrap_err();
        assert!(e.message.contains("needs an event name"));
        let e = parse("quiet x").unwrap_err();
        assert_eq!(e.column, 7);
        let e = parse("volme fx 1").unwrap_err();
        assert!(e.message.contains("did you mean `volume`"), "{}", e.message);
        let e = parse("volume fx loud").unwrap_err();
        assert_eq!(e.column, 11);
        let e = parse("quietall now").unwrap_err();
        assert!(e.message.contains("unexpected `now`"));
        let e = parse("field 1 charm 3").unwrap_err();
        assert!(e.message.contains("unknown field `charm`"));
    }

    #[test]
    fn scripts_have_times_and_report_lines() {
        let text = "# tour\n0.0 ui ui_click\n1.5 sev vox laugh @2 ; comment\n\nx quietall\n1.0 quietall\n2 nonsense\n";
        let (commands, d) = parse_script(text, Path::new("tour.txt"));
        assert_eq!(commands.len(), 2);
        assert_eq!(commands[1].time, 1.5);
        assert_eq!(commands[1].line, 3);
        let places: Vec<(u32, u32)> = d.iter().map(|d| (d.line, d.column)).collect();
        assert_eq!(places, vec![(5, 1), (6, 1), (7, 3)]);
        assert!(d[1].message.contains("earlier than the line before"));
    }

    #[test]
    fn script_times_must_be_finite_and_within_the_maximum() {
        // A line at 1e308 s used to render until the disk was full.
        let text = "0 quietall\n86400 quietall\n86400.5 quietall\n1e308 quietall\ninf quietall\nNaN quietall\n";
        let (commands, d) = parse_script(text, Path::new("long.txt"));
        assert_eq!(commands.len(), 2, "{d:?}");
        let lines: Vec<u32> = d.iter().map(|d| d.line).collect();
        assert_eq!(lines, vec![3, 4, 5, 6], "{d:?}");
        for diagnostic in &d {
            assert!(diagnostic.is_error());
            assert_eq!(diagnostic.file, Path::new("long.txt"));
        }
        assert!(
            d[0].message.contains("24 h") && d[0].message.contains("--duration"),
            "{}",
            d[0].message
        );
    }
}
