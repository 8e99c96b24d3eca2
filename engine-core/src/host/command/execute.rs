//! Running a parsed [`Command`] against the engine: events, quieting, the controlled
//! character, data fields, traces, volumes, `help`, auditioning a patch or sample and
//! stopping the auditions.
//! The world's commands are the session's world director's to run.

use super::grammar::{help_lines, help_lines_of};
use super::{Command, TraceTarget, VolumeTarget};
use crate::runtime::sink::SampleRef;
use crate::runtime::{Engine, EventArgs, TraceSwitches, TriggerError};
use crate::sound::mixer::MixerControls;
use crate::toolchain::project::Project;
use crate::world::ObjectId;
use std::path::Path;
use std::sync::Arc;

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

/// Why a command could not run. The message is the console's reply: it names the event,
/// object, patch or file, and says what to do instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// `sev` without `@object` while no character is controlled.
    #[error(
        "no controlled character: `sev` plays from the character you control — choose one with \
         `control <object>` (or in the lot view), name one with `sev {event} @<object>`, or play it \
         as a UI sound with `ui {event}`"
    )]
    NoControlledCharacter {
        /// The event asked for.
        event: String,
    },
    /// `sev` from an object that is not on the lot (nothing is played).
    #[error(
        "there is no object {object} on the lot; `sev {event}` was not played (`world` lists the objects)"
    )]
    SourceNotOnLot {
        /// The object named as the source.
        object: ObjectId,
        /// The event asked for.
        event: String,
    },
    /// `control` or `field` of an object that is not on the lot.
    #[error("there is no object {0} on the lot")]
    NoSuchObject(ObjectId),
    /// The runtime could not start the event.
    #[error(transparent)]
    Trigger(#[from] TriggerError),
    /// `volume` where no mixer runs.
    #[error("no mixer is running")]
    NoMixer,
    /// `tune` refused: no such target, a field it has not, a value out of range.
    #[error("tune {target}: {message}")]
    Tune {
        /// What was tuned.
        target: String,
        /// Why not.
        message: String,
    },
    /// A world command where no world runs.
    #[error("the world is not running here (no lot)")]
    NoWorld,
    /// A debugger command the debugger refused (not paused, no such line, …).
    #[error("{0}")]
    Debug(String),
    /// `reload` where no session holds the project's folders.
    #[error("nothing to reload here: `reload` reads a session's project folders again")]
    NoProject,
    /// `play` found nothing to play.
    #[error(transparent)]
    Audition(#[from] AuditionError),
    /// `repeat` where nobody runs commands later (only a session does).
    #[error("`repeat` needs a session to run the later commands at their times")]
    NoSchedule,
    /// `why` where nobody keeps the trace history it explains.
    #[error(
        "`why` explains the trace history, which the engine does not keep: ask it in the \
         workbench's console (the Why panel opens) or in a `hitbench render` or `play` script"
    )]
    NoHistory,
}

/// Why `play <target>` found nothing to play.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuditionError {
    /// The patch exists, but its sample file was not found.
    #[error("patch {patch} ({name}): sample file `{path}` was not found")]
    SampleNotFound {
        /// Patch ID.
        patch: u32,
        /// Patch name.
        name: String,
        /// The sample path as the patch table writes it.
        path: String,
    },
    /// A number that is no patch's ID.
    #[error("there is no patch {0}")]
    NoSuchPatch(String),
    /// Neither a patch's name nor a sample file of the project.
    #[error(
        "`{0}` is neither a patch (ID or name) nor a sample file in the project's data directories"
    )]
    NotFound(String),
}

/// Runs a command; returns a line for the console, or why it could not run.
///
/// # Errors
/// [`CommandError`]: the engine is unchanged then (an unknown event is traced).
pub fn execute(command: &Command, cx: &mut Context<'_>) -> Result<String, CommandError> {
    match command {
        Command::SoundEvent { name, object } => sound_event(cx, name, *object),
        Command::UiSound { name } => {
            let outcome = cx.engine.trigger(name, None, EventArgs::default())?;
            Ok(format!("{name}: {outcome}"))
        }
        Command::Quiet(object) => Ok(quiet_reply(*object, &cx.engine.quiet_report(*object))),
        Command::QuietAll => {
            let world = cx.engine.world_voices().len();
            let ended = cx.engine.quiet_all();
            Ok(match world {
                0 => format!("quieted everything: {ended} track(s) ended"),
                _ => format!(
                    "quieted everything: {ended} track(s) ended, {world} world sound(s) silenced"
                ),
            })
        }
        Command::Control(object) => {
            if cx.engine.world().get(*object).is_none() {
                return Err(CommandError::NoSuchObject(*object));
            }
            *cx.controlled = Some(*object);
            Ok(format!("controlling object {object}"))
        }
        Command::Field {
            object,
            field,
            value,
        } => {
            let world = cx.engine.world_mut();
            if !world.set_field(*object, i32::from(*field), *value) {
                return Err(CommandError::NoSuchObject(*object));
            }
            Ok(format!("object {object}: field {field} = {value}"))
        }
        Command::Trace { target, on } => Ok(trace(cx.engine, *target, *on)),
        Command::Volume { target, value } => volume(cx.engine, cx.controls, *target, *value),
        Command::World(_) => Err(CommandError::NoWorld),
        Command::Play(target) => {
            let (what, sample) = audition_sample(cx.engine.project(), target)?;
            let note = cx.engine.play_sample(sample);
            Ok(format!("playing {what} (note {note})"))
        }
        Command::Stop => {
            let stopped = cx.engine.stop_auditions();
            Ok(match (stopped.samples, stopped.ui_sounds) {
                (0, 0) => "nothing to stop: no audition is playing".to_string(),
                (samples, ui) => {
                    format!("stopped {samples} sample(s) and {ui} UI sound(s)")
                }
            })
        }
        Command::Why(_) => Err(CommandError::NoHistory),
        Command::Reload | Command::Plugin { .. } => Err(CommandError::NoProject),
        Command::Debug(debug) => {
            super::debug_arguments::execute(cx.engine, debug).map_err(CommandError::Debug)
        }
        // Monitoring is the sound server's: the session answers it.
        Command::Monitor(_) => Err(CommandError::NoMixer),
        Command::Tune {
            target,
            property,
            value,
        } => {
            let followed = cx
                .engine
                .tune(target, *property, *value)
                .map_err(|message| CommandError::Tune {
                    target: target.to_string(),
                    message,
                })?;
            Ok(match followed {
                0 => format!("{target}: {} = {value}", property.label()),
                n => format!(
                    "{target}: {} = {value} ({n} playing follow)",
                    property.label()
                ),
            })
        }
        Command::Voices(count) => Ok(voice_limit_reply(&cx.engine.set_voice_limit(*count))),
        Command::Repeat { .. } => Err(CommandError::NoSchedule),
        Command::Help(name) => Ok(name
            .as_deref()
            .map_or_else(help_lines, help_lines_of)
            .iter()
            .map(|(syntax, what)| format!("{syntax:<42} {what}"))
            .collect::<Vec<_>>()
            .join("\n")),
    }
}

/// What `voices` did, as the console says it.
fn voice_limit_reply(change: &crate::runtime::engine::VoiceLimitChange) -> String {
    let mut reply = format!("voice limit {} (was {})", change.to, change.from);
    if !change.stopped.is_empty() {
        let names: Vec<&str> = change.stopped.iter().map(|n| &**n).collect();
        reply.push_str(&format!(
            "; stopped {} to fit, lowest priority first: {}",
            names.len(),
            names.join(", ")
        ));
    }
    reply
}

/// `sev`: the event from `object`, else from the controlled character.
fn sound_event(
    cx: &mut Context<'_>,
    name: &str,
    object: Option<ObjectId>,
) -> Result<String, CommandError> {
    let Some(source) = object.or(*cx.controlled) else {
        return Err(CommandError::NoControlledCharacter {
            event: name.to_owned(),
        });
    };
    // With a lot, the source must stand on it: a sound from nowhere is a mistake.
    let world = cx.engine.world();
    if !world.is_empty() && world.get(source).is_none() {
        return Err(CommandError::SourceNotOnLot {
            object: source,
            event: name.to_owned(),
        });
    }
    let outcome = cx.engine.trigger(name, Some(source), cx.args)?;
    Ok(format!("{name} from object {source}: {outcome}"))
}

/// `trace`: switches one optional trace, or all three.
fn trace(engine: &mut Engine, target: TraceTarget, on: bool) -> String {
    let mut switches: TraceSwitches = engine.trace_switches();
    match target {
        TraceTarget::Events => switches.events = on,
        TraceTarget::Samples => switches.samples = on,
        TraceTarget::Tracks => switches.tracks = on,
        TraceTarget::All => {
            switches.events = on;
            switches.samples = on;
            switches.tracks = on;
        }
    }
    engine.set_trace_switches(switches);
    format!("trace {target:?} {}", if on { "on" } else { "off" }).to_lowercase()
}

/// `volume`: an option group's volume or the master volume.
fn volume(
    engine: &mut Engine,
    controls: Option<&MixerControls>,
    target: VolumeTarget,
    value: f32,
) -> Result<String, CommandError> {
    let Some(controls) = controls else {
        return Err(CommandError::NoMixer);
    };
    let name = match target {
        VolumeTarget::Group(group) => {
            controls.set_group_volume(group, value);
            group.name()
        }
        VolumeTarget::Master => {
            controls.set_master(value);
            "master"
        }
    };
    // The runtime records these with every note's gain: keep its copy the mixer's.
    engine.set_bus_volumes(controls.bus_volumes());
    Ok(format!("volume {name} = {value}"))
}

/// What `play <target>` plays: a patch by ID (`100`, `0x64`) or name, else a sample
/// file by its resource name or its path (absolute, or relative to a data directory),
/// else a sample inside a zip pack by its resource name.
fn audition_sample(project: &Project, target: &str) -> Result<(String, SampleRef), AuditionError> {
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
        let (Some(name), Some(path)) = (&patch.resource, &patch.file) else {
            return Err(AuditionError::SampleNotFound {
                patch: patch.id,
                name: patch.name.to_string(),
                path: patch.path_text.to_string(),
            });
        };
        let sample = SampleRef {
            patch: patch.id,
            name: Arc::clone(name),
            path: Arc::clone(path),
            linked: false,
        };
        return Ok((
            format!("patch {} ({}, {name})", patch.id, patch.name),
            sample,
        ));
    }
    if id.is_some() {
        return Err(AuditionError::NoSuchPatch(target.to_owned()));
    }
    let wanted = Path::new(target);
    let file = std::iter::once(wanted.to_path_buf())
        .filter(|p| p.is_absolute())
        .chain(project.dirs.iter().rev().map(|dir| dir.join(wanted)))
        .find(|p| p.is_file())
        .or_else(|| sample_named(project, target));
    if let Some(sample) = file.and_then(|f| crate::world::sound::sample_ref(&f, &project.dirs)) {
        return Ok((format!("sample {}", sample.name), sample));
    }
    // Not a file on disk: a sample inside a zip pack, by its resource name.
    let extensions = crate::toolchain::project::SAMPLE_EXTENSIONS;
    match crate::toolchain::project::packs::find_packed(&project.dirs, target, extensions) {
        Some((pack, name)) => {
            let sample = SampleRef {
                patch: 0,
                path: Arc::from(pack.join(&name).as_path()),
                name: Arc::from(name.as_str()),
                linked: false,
            };
            Ok((format!("sample {name} (in {})", pack.display()), sample))
        }
        None => Err(AuditionError::NotFound(target.to_owned())),
    }
}

/// The sample file of the project whose path in its data folder is `target` in any case
/// and with either slash (`SOUNDS\UI\MONEY.WAV`), later folders first.
fn sample_named(project: &Project, target: &str) -> Option<std::path::PathBuf> {
    let key = crate::toolchain::project::sample_key(target);
    project.dirs.iter().rev().find_map(|dir| {
        project.samples.iter().find_map(|file| {
            let relative = file.strip_prefix(dir).ok()?;
            (crate::toolchain::project::sample_key(&relative.to_string_lossy()) == key)
                .then(|| file.to_path_buf())
        })
    })
}

/// `quiet`'s reply: what happened to each track the object said, in one line.
pub(super) fn quiet_reply(object: ObjectId, report: &[crate::runtime::engine::Quieted]) -> String {
    if report.is_empty() {
        return format!("object {object} was saying no track");
    }
    let each: Vec<String> = report
        .iter()
        .map(|q| {
            if q.ended {
                format!("`{}` ended (its last owner)", q.track)
            } else {
                let left: Vec<String> = q.left.iter().map(|o| format!("@{o}")).collect();
                format!("`{}` plays on for {}", q.track, left.join(", "))
            }
        })
        .collect();
    format!("quieted object {object}: {}", each.join("; "))
}
