//! Commands written back as console lines: `Display` for [`Command`] and its argument
//! types, so that a command built in code (a workbench panel's button) shows in the
//! console history as the line a person would have typed, and replaying that line gives
//! the same command.
//!
//! The rule: for every command [`parse`](super::parse) can return,
//! `parse(&command.to_string()) == Ok(Some(command))`. Numbers are written exactly (`{}`:
//! the shortest text that reads back as the same `f32`; never rounded), objects as
//! decimal IDs (`@3` after `sev`, where the `@` is what marks it), data fields by name
//! where they have one, words in lower case. Values outside the grammar have no such
//! line and read back differently or not at all: an event name that is empty, holds
//! whitespace, `#` or `;`, or starts with `@`; a `play` target that is empty, starts or
//! ends with whitespace, or holds `#`, `;` or a line break; a field number over 31; a
//! volume outside 0–4; a number that is not finite (and the world's limits, see
//! [`WorldCommand`](super::WorldCommand)).

use super::{Command, MonitorCommand, TraceTarget, VolumeTarget};
use crate::runtime::sink::ControlGroup;
use crate::world::field as fields;
use std::fmt;

/// The console line of a command (see the module's rule).
impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::SoundEvent { name, object } => {
                write!(f, "sev {name}")?;
                match object {
                    Some(object) => write!(f, " @{object}"),
                    None => Ok(()),
                }
            }
            Command::UiSound { name } => write!(f, "ui {name}"),
            Command::Quiet(object) => write!(f, "quiet {object}"),
            Command::QuietAll => f.write_str("quietall"),
            Command::Control(object) => write!(f, "control {object}"),
            Command::Field {
                object,
                field,
                value,
            } => {
                write!(f, "field {object} ")?;
                match fields::NAMES.iter().find(|(number, _)| number == field) {
                    Some((_, name)) => f.write_str(name)?,
                    None => write!(f, "{field}")?,
                }
                write!(f, " {value}")
            }
            Command::Trace { target, on } => {
                write!(f, "trace {target} {}", if *on { "on" } else { "off" })
            }
            Command::Volume { target, value } => write!(f, "volume {target} {value}"),
            Command::World(world) => write!(f, "{world}"),
            Command::Help(None) => f.write_str("help"),
            Command::Help(Some(name)) => write!(f, "help {name}"),
            Command::Play(target) => write!(f, "play {target}"),
            Command::Stop => f.write_str("stop"),
            Command::Why(subject) => write!(f, "why {subject}"),
            Command::Reload => f.write_str("reload"),
            Command::Plugin { add, dir } => write!(
                f,
                "plugin {} {}",
                if *add { "add" } else { "remove" },
                dir.display()
            ),
            Command::Debug(debug) => write!(f, "{debug}"),
            Command::Monitor(MonitorCommand::Set { solo, target, on }) => {
                write!(f, "{} {target}", if *solo { "solo" } else { "mute" })?;
                if *on { Ok(()) } else { f.write_str(" off") }
            }
            Command::Monitor(MonitorCommand::Clear) => f.write_str("monitor clear"),
            Command::Monitor(MonitorCommand::Show) => f.write_str("monitor"),
            Command::Tune {
                target,
                property,
                value,
            } => write!(f, "tune {target} {} {value}", property.word()),
            Command::Voices(count) => write!(f, "voices {count}"),
            Command::Repeat {
                count,
                every_ms,
                command,
            } => write!(f, "repeat {count} every {every_ms}ms {command}"),
        }
    }
}

/// `events`, `samples`, `tracks` or `all`, as `trace` reads it.
impl fmt::Display for TraceTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TraceTarget::Events => "events",
            TraceTarget::Samples => "samples",
            TraceTarget::Tracks => "tracks",
            TraceTarget::All => "all",
        })
    }
}

/// `fx`, `music`, `vox` or `master`, as `volume` reads it.
impl fmt::Display for VolumeTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            VolumeTarget::Group(ControlGroup::Fx) => "fx",
            VolumeTarget::Group(ControlGroup::Music) => "music",
            VolumeTarget::Group(ControlGroup::Vox) => "vox",
            VolumeTarget::Master => "master",
        })
    }
}
