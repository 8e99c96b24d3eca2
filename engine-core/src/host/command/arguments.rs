//! The argument readers of the engine's commands (`sev`, `ui`, `quiet`, `control`,
//! `field`, `trace`, `volume`, `help`, `play`, `why`, `mute`, `solo`, `monitor`, `tune`,
//! `voices`), which the grammar table points to.

use super::line::{Line, ParseError, error};
use super::{Command, MonitorCommand, Subject, TraceTarget, VolumeTarget};
use crate::runtime::sink::ControlGroup;
use crate::world::{ObjectId, field as fields};

/// The event name (words joined with `_`) and the `@object` of `sev` and `ui`.
fn event_words(line: &Line<'_>) -> Result<(String, Option<ObjectId>), ParseError> {
    let mut names: Vec<&str> = Vec::new();
    let mut object = None;
    for &(column, word) in line.args {
        if let Some(id) = word.strip_prefix('@') {
            object = Some(id.parse().map_err(|_| {
                error(
                    column,
                    format!("`{word}` is not an object (write @ and a number, e.g. @3)"),
                )
            })?);
        } else {
            names.push(word);
        }
    }
    if names.is_empty() {
        let head = line.head;
        return Err(line.missing(format!(
            "`{head}` needs an event name, e.g. `{head} ui moneyback`"
        )));
    }
    Ok((names.join("_"), object))
}

/// `sev <event…> [@object]`.
pub(super) fn sound_event(line: &Line<'_>) -> Result<Command, ParseError> {
    let (name, object) = event_words(line)?;
    Ok(Command::SoundEvent { name, object })
}

/// `ui <event…>`.
pub(super) fn ui_sound(line: &Line<'_>) -> Result<Command, ParseError> {
    let (name, object) = event_words(line)?;
    if object.is_some() {
        return Err(error(
            line.head_column,
            "a UI sound has no source object; use `sev … @object`",
        ));
    }
    Ok(Command::UiSound { name })
}

/// `quiet <object>`.
pub(super) fn quiet(line: &Line<'_>) -> Result<Command, ParseError> {
    Ok(Command::Quiet(line.object(0, "quiet")?))
}

/// `quietall`.
pub(super) fn quiet_all(_: &Line<'_>) -> Result<Command, ParseError> {
    Ok(Command::QuietAll)
}

/// `stop`.
pub(super) fn stop(_: &Line<'_>) -> Result<Command, ParseError> {
    Ok(Command::Stop)
}

/// `control <object>`.
pub(super) fn control(line: &Line<'_>) -> Result<Command, ParseError> {
    Ok(Command::Control(line.object(0, "control")?))
}

/// `field <object> <field> <value>`.
pub(super) fn field(line: &Line<'_>) -> Result<Command, ParseError> {
    let object = line.object(0, "field")?;
    let Some((column, name)) = line.arg(1) else {
        return Err(
            line.missing("field needs a field name or number and a value: `field 3 neat 40`")
        );
    };
    let Some(field) = fields::by_name(name) else {
        let known: Vec<&str> = fields::NAMES.iter().map(|(_, n)| *n).collect();
        return Err(error(
            column,
            format!(
                "unknown field `{name}` (known: {}, or 0-31)",
                known.join(", ")
            ),
        ));
    };
    let Some((column, value)) = line.arg(2) else {
        return Err(line.missing("field needs a value"));
    };
    let value = value
        .parse()
        .map_err(|_| error(column, format!("`{value}` is not a number")))?;
    Ok(Command::Field {
        object,
        field,
        value,
    })
}

/// `trace events|samples|tracks|all on|off`.
pub(super) fn trace(line: &Line<'_>) -> Result<Command, ParseError> {
    let Some((column, which)) = line.arg(0) else {
        return Err(line.missing("trace needs events, samples, tracks or all, then on or off"));
    };
    let target = match which.to_ascii_lowercase().as_str() {
        "events" | "event" => TraceTarget::Events,
        "samples" | "sample" => TraceTarget::Samples,
        "tracks" | "track" => TraceTarget::Tracks,
        "all" => TraceTarget::All,
        _ => {
            return Err(error(
                column,
                format!("`{which}`: trace events, samples, tracks or all"),
            ));
        }
    };
    let on = match line.arg(1).map(|(c, w)| (c, w.to_ascii_lowercase())) {
        Some((_, w)) if w == "on" => true,
        Some((_, w)) if w == "off" => false,
        Some((c, w)) => return Err(error(c, format!("`{w}`: on or off"))),
        None => return Err(line.missing("trace needs on or off")),
    };
    Ok(Command::Trace { target, on })
}

/// `volume fx|music|vox|master <0..1>`.
pub(super) fn volume(line: &Line<'_>) -> Result<Command, ParseError> {
    let Some((column, which)) = line.arg(0) else {
        return Err(line.missing("volume needs fx, music, vox or master, then a value 0..1"));
    };
    let target = match which.to_ascii_lowercase().as_str() {
        "fx" => VolumeTarget::Group(ControlGroup::Fx),
        "music" => VolumeTarget::Group(ControlGroup::Music),
        "vox" => VolumeTarget::Group(ControlGroup::Vox),
        "master" => VolumeTarget::Master,
        _ => {
            return Err(error(
                column,
                format!("`{which}`: volume fx, music, vox or master"),
            ));
        }
    };
    let Some((column, value)) = line.arg(1) else {
        return Err(line.missing("volume needs a value 0..1"));
    };
    let value: f32 = value
        .parse()
        .ok()
        .filter(|v: &f32| v.is_finite() && *v >= 0.0 && *v <= 4.0)
        .ok_or_else(|| {
            error(
                column,
                format!("`{value}` is not a volume (0 to 1; up to 4 amplifies)"),
            )
        })?;
    Ok(Command::Volume { target, value })
}

/// `voices <n>`: the Box-X voice limit, 1 to [`MAX_VOICES`].
pub(super) fn voices(line: &Line<'_>) -> Result<Command, ParseError> {
    use crate::runtime::engine::MAX_VOICES;
    let usage = format!("write `voices <n>` with a voice limit from 1 to {MAX_VOICES}");
    let Some((column, text)) = line.arg(0) else {
        return Err(line.missing(usage));
    };
    text.parse::<usize>()
        .ok()
        .filter(|n| (1..=MAX_VOICES).contains(n))
        .map(Command::Voices)
        .ok_or_else(|| error(column, format!("`{text}` is not a voice limit: {usage}")))
}

/// `reload`.
pub(super) fn reload(_: &Line<'_>) -> Result<Command, ParseError> {
    Ok(Command::Reload)
}

/// `plugin add|remove <folder>`: the folder is the rest of the line (it may hold spaces).
pub(super) fn plugin(line: &Line<'_>) -> Result<Command, ParseError> {
    let usage = "write `plugin add <folder>` or `plugin remove <folder>`";
    let Some((column, what)) = line.arg(0) else {
        return Err(line.missing(usage));
    };
    let add = match what.to_ascii_lowercase().as_str() {
        "add" => true,
        "remove" => false,
        _ => return Err(error(column, format!("`{what}`: {usage}"))),
    };
    let Some(dir) = line.rest_from(1) else {
        return Err(line.missing(format!("which folder? {usage}")));
    };
    Ok(Command::Plugin {
        add,
        dir: std::path::PathBuf::from(dir),
    })
}

/// `mute <target> [on|off]`.
pub(super) fn mute(line: &Line<'_>) -> Result<Command, ParseError> {
    monitor_set(line, false)
}

/// `solo <target> [on|off]`.
pub(super) fn solo(line: &Line<'_>) -> Result<Command, ParseError> {
    monitor_set(line, true)
}

/// `monitor [clear]`.
pub(super) fn monitor(line: &Line<'_>) -> Result<Command, ParseError> {
    match line.arg(0) {
        None => Ok(Command::Monitor(MonitorCommand::Show)),
        Some((_, word)) if word.eq_ignore_ascii_case("clear") => {
            Ok(Command::Monitor(MonitorCommand::Clear))
        }
        Some((column, word)) => Err(error(
            column,
            format!(
                "`{word}`: `monitor` alone says what is muted and soloed, `monitor clear` clears it"
            ),
        )),
    }
}

fn monitor_set(line: &Line<'_>, solo: bool) -> Result<Command, ParseError> {
    use crate::sound::server::MonitorTarget;
    let verb = if solo { "solo" } else { "mute" };
    let usage = format!("{verb} needs fx, music, vox, track <id>, object <id> or voice <slot>");
    let Some((column, word)) = line.arg(0) else {
        return Err(line.missing(usage));
    };
    let number = |index: usize, what: &str| -> Result<i64, ParseError> {
        let Some((column, text)) = line.arg(index) else {
            return Err(line.missing(format!("{verb} {word} needs {what}")));
        };
        crate::toolchain::formats::number::parse_int(text)
            .filter(|n| *n >= 0)
            .ok_or_else(|| error(column, format!("`{text}` is not {what}")))
    };
    let (target, next) = match word.to_ascii_lowercase().as_str() {
        "fx" => (MonitorTarget::Group(ControlGroup::Fx), 1),
        "music" => (MonitorTarget::Group(ControlGroup::Music), 1),
        "vox" => (MonitorTarget::Group(ControlGroup::Vox), 1),
        "track" => {
            let id =
                u32::try_from(number(1, "a track ID")?).map_err(|_| line.missing("a track ID"))?;
            (MonitorTarget::Track(id), 2)
        }
        "object" => {
            let id = i32::try_from(number(1, "an object ID")?)
                .map_err(|_| line.missing("an object ID"))?;
            (MonitorTarget::Object(id), 2)
        }
        "voice" => {
            let slot = usize::try_from(number(1, "a voice slot")?)
                .map_err(|_| line.missing("a voice slot"))?;
            (MonitorTarget::Voice(slot), 2)
        }
        other => match other
            .strip_prefix('@')
            .and_then(|id| id.parse::<i32>().ok())
        {
            Some(id) => (MonitorTarget::Object(id), 1),
            None => return Err(error(column, format!("`{word}`: {usage}"))),
        },
    };
    let on = match line.arg(next) {
        None => true,
        Some((_, w)) if w.eq_ignore_ascii_case("on") => true,
        Some((_, w)) if w.eq_ignore_ascii_case("off") => false,
        Some((column, w)) => return Err(error(column, format!("`{w}`: on or off"))),
    };
    Ok(Command::Monitor(MonitorCommand::Set { solo, target, on }))
}

/// `tune track|patch|event <id|name> <field> <value>`: a number or a built-in constant
/// (`kGroupMusic`, `duckpri_high`) as the value.
pub(super) fn tune(line: &Line<'_>) -> Result<Command, ParseError> {
    use crate::toolchain::formats::number::parse_int;
    use crate::tools::properties::{Property, PropertyTarget};
    const USAGE: &str = "tune needs track, patch or event, its ID (an event's name), a field and a value: `tune track 0x2400 volume 800`";
    let (Some((kind_column, kind)), Some((id_column, id))) = (line.arg(0), line.arg(1)) else {
        return Err(line.missing(USAGE));
    };
    let number = |column: u32, text: &str| {
        parse_int(text)
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| error(column, format!("`{text}` is not an ID")))
    };
    let target = match kind.to_ascii_lowercase().as_str() {
        "track" => PropertyTarget::Track(number(id_column, id)?),
        "patch" => PropertyTarget::Patch(number(id_column, id)?),
        "event" => PropertyTarget::Event(id.to_ascii_lowercase()),
        _ => {
            return Err(error(
                kind_column,
                format!("`{kind}`: tune track, patch or event"),
            ));
        }
    };
    let Some((field_column, field)) = line.arg(2) else {
        return Err(line.missing(USAGE));
    };
    let property = Property::from_word(target.section(), field).ok_or_else(|| {
        let words: Vec<&str> = target.properties().iter().map(|p| p.word()).collect();
        error(
            field_column,
            format!(
                "`{field}`: a {} has {}",
                target.kind_name(),
                words.join(", ")
            ),
        )
    })?;
    let Some((value_column, value_text)) = line.arg(3) else {
        return Err(line.missing(format!("tune {kind} {id} {field} needs a value")));
    };
    let value = parse_int(value_text)
        .or_else(|| crate::toolchain::symbols::constant(value_text))
        .ok_or_else(|| {
            error(
                value_column,
                format!("`{value_text}` is not a number or a known constant"),
            )
        })?;
    Ok(Command::Tune {
        target,
        property,
        value,
    })
}

/// `play <patch id|patch name|sample file>`: the rest of the line, so a path may hold
/// spaces.
pub(super) fn play(line: &Line<'_>) -> Result<Command, ParseError> {
    let Some(target) = line.rest_from(0) else {
        return Err(
            line.missing("play needs a patch ID, a patch name or a sample file: `play 100`")
        );
    };
    Ok(Command::Play(target.to_owned()))
}

/// `why <event…>` (words joined with `_`) or `why @object`.
pub(super) fn why(line: &Line<'_>) -> Result<Command, ParseError> {
    let Some(&(column, first)) = line.args.first() else {
        return Err(line.missing("why needs an event or an @object: `why vox greet`, `why @2`"));
    };
    if first.starts_with('@') {
        let object = first.trim_start_matches('@').parse().map_err(|_| {
            error(
                column,
                format!("`{first}` is not an object (write @ and a number, e.g. @3)"),
            )
        })?;
        if let Some((column, extra)) = line.arg(1) {
            return Err(error(
                column,
                format!("unexpected `{extra}`: why asks about an event or an @object, not both"),
            ));
        }
        return Ok(Command::Why(Subject::Object(object)));
    }
    if let Some(&(column, word)) = line.args.iter().find(|(_, w)| w.starts_with('@')) {
        return Err(error(
            column,
            format!("unexpected `{word}`: why asks about an event or an @object, not both"),
        ));
    }
    let names: Vec<&str> = line.args.iter().map(|&(_, word)| word).collect();
    Ok(Command::Why(Subject::Event(names.join("_"))))
}
