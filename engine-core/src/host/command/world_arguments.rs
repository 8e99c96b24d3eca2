//! The argument readers of the world's commands (`view`, `scroll`, `zoom`, `rotate`,
//! `floor`, `hour`, `mode`, `move`, `room`, `turnon`, `turnoff`, `world`, `savelot`),
//! which the grammar table points to.

use super::line::{Line, ParseError, error};
use super::{Command, Turn, WorldCommand, ZoomStep};
use crate::world::music::MusicMode;
use std::path::PathBuf;

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

/// The first two arguments as numbers (`view <x> <y>`, `scroll <dx> <dy>`).
fn two_numbers(line: &Line<'_>, usage: &str) -> Result<(f32, f32), ParseError> {
    Ok((line.number(0, usage)?, line.number(1, usage)?))
}

/// A floor number at `column`.
fn floor_number(column: u32, word: &str) -> Result<i32, ParseError> {
    word.parse()
        .map_err(|_| error(column, format!("`{word}` is not a floor number")))
}

/// `view <x> <y>`.
pub(super) fn view(line: &Line<'_>) -> Result<Command, ParseError> {
    let (x, y) = two_numbers(line, "view <x> <y>")?;
    Ok(Command::World(WorldCommand::View { x, y }))
}

/// `scroll <dx> <dy>`.
pub(super) fn scroll(line: &Line<'_>) -> Result<Command, ParseError> {
    let (dx, dy) = two_numbers(line, "scroll <dx> <dy>")?;
    Ok(Command::World(WorldCommand::Scroll { dx, dy }))
}

/// `zoom in|out|1|2|3`.
pub(super) fn zoom(line: &Line<'_>) -> Result<Command, ParseError> {
    let Some((column, word)) = line.arg(0) else {
        return Err(line.missing("zoom needs in, out or a level 1 (near) to 3 (far)"));
    };
    let step = match word.to_ascii_lowercase().as_str() {
        "in" | "+" => ZoomStep::In,
        "out" | "-" => ZoomStep::Out,
        "1" | "near" => ZoomStep::Level(1),
        "2" | "middle" => ZoomStep::Level(2),
        "3" | "far" => ZoomStep::Level(3),
        _ => {
            return Err(error(
                column,
                format!("`{word}`: zoom in, out, 1 (near), 2 or 3 (far)"),
            ));
        }
    };
    Ok(Command::World(WorldCommand::Zoom(step)))
}

/// `rotate left|right|0-3` (right when no direction is given).
pub(super) fn rotate(line: &Line<'_>) -> Result<Command, ParseError> {
    let turn = match line.arg(0).map(|(c, w)| (c, w.to_ascii_lowercase())) {
        None => Turn::Right,
        Some((_, w)) if w == "left" || w == "ccw" => Turn::Left,
        Some((_, w)) if w == "right" || w == "cw" => Turn::Right,
        Some((c, w)) => match w.parse::<u8>() {
            Ok(n) if n < 4 => Turn::To(n),
            _ => {
                return Err(error(
                    c,
                    format!("`{w}`: rotate left, right or to 0-3 quarter turns"),
                ));
            }
        },
    };
    Ok(Command::World(WorldCommand::Rotate(turn)))
}

/// `floor <n>`.
pub(super) fn floor(line: &Line<'_>) -> Result<Command, ParseError> {
    let Some((column, word)) = line.arg(0) else {
        return Err(line.missing("floor needs a number (0 ground, 1 upstairs, -1 basement)"));
    };
    Ok(Command::World(WorldCommand::Floor(floor_number(
        column, word,
    )?)))
}

/// `hour <h>`.
pub(super) fn hour(line: &Line<'_>) -> Result<Command, ParseError> {
    let Some((column, word)) = line.arg(0) else {
        return Err(line.missing("hour needs a time of day: 18, 18.5 or 18:30"));
    };
    let hour = parse_hour(word).ok_or_else(|| {
        error(
            column,
            format!("`{word}` is not an hour (0 to 24: 18, 18.5 or 18:30)"),
        )
    })?;
    Ok(Command::World(WorldCommand::Hour(hour)))
}

/// `mode <music mode>`.
pub(super) fn mode(line: &Line<'_>) -> Result<Command, ParseError> {
    let Some((column, word)) = line.arg(0) else {
        return Err(line.missing("mode needs a music mode: live, buy, build, neighborhood, …"));
    };
    let mode = MusicMode::by_name(word).ok_or_else(|| {
        let names: Vec<&str> = MusicMode::ALL.iter().map(|m| m.name()).collect();
        error(
            column,
            format!("`{word}` is not a music mode ({})", names.join(", ")),
        )
    })?;
    Ok(Command::World(WorldCommand::Mode(mode)))
}

/// `move <object> <x> <y> [floor]`.
pub(super) fn move_object(line: &Line<'_>) -> Result<Command, ParseError> {
    let object = line.object(0, "move")?;
    let usage = "move <object> <x> <y> [floor]";
    let x = line.number(1, usage)?;
    let y = line.number(2, usage)?;
    let floor = match line.arg(3) {
        Some((column, word)) => Some(floor_number(column, word)?),
        None => None,
    };
    Ok(Command::World(WorldCommand::Move {
        object,
        x,
        y,
        floor,
    }))
}

/// `room <tiles>`.
pub(super) fn room(line: &Line<'_>) -> Result<Command, ParseError> {
    let tiles = line.number(0, "room <tiles>")?;
    if tiles < 0.0 {
        return Err(line.missing("a room cannot be smaller than nothing"));
    }
    Ok(Command::World(WorldCommand::Room(tiles)))
}

/// `turnon <object> <station>`.
pub(super) fn turn_on(line: &Line<'_>) -> Result<Command, ParseError> {
    let object = line.object(0, "turnon")?;
    let Some((column, word)) = line.arg(1) else {
        return Err(line.missing("turnon needs an object and a station: `turnon 5 28`"));
    };
    let station = crate::world::stations::station_code(word).ok_or_else(|| {
        error(
            column,
            format!("`{word}` is not a station code (a number or four letters)"),
        )
    })?;
    Ok(Command::World(WorldCommand::TurnOn { object, station }))
}

/// `turnoff <object>`.
pub(super) fn turn_off(line: &Line<'_>) -> Result<Command, ParseError> {
    Ok(Command::World(WorldCommand::TurnOff {
        object: line.object(0, "turnoff")?,
    }))
}

/// `select <object…>`.
pub(super) fn select(line: &Line<'_>) -> Result<Command, ParseError> {
    if line.arg(0).is_none() {
        return Err(line.missing("select needs one or more objects: `select 1 2`"));
    }
    let objects = (0..line.args.len())
        .map(|i| line.object(i, "select"))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Command::World(WorldCommand::Select(objects)))
}

/// `sound <name> [@object]`.
pub(super) fn sound(line: &Line<'_>) -> Result<Command, ParseError> {
    let Some((_, name)) = line.arg(0) else {
        return Err(line.missing("sound needs the name of a [ServerSounds] sound: `sound yes @3`"));
    };
    let object = match line.arg(1) {
        Some(_) => Some(line.object(1, "sound")?),
        None => None,
    };
    Ok(Command::World(WorldCommand::Sound {
        name: name.to_ascii_lowercase(),
        object,
    }))
}

/// `world`.
pub(super) fn describe(_: &Line<'_>) -> Result<Command, ParseError> {
    Ok(Command::World(WorldCommand::Describe))
}

/// `savelot [file]`.
pub(super) fn save_lot(line: &Line<'_>) -> Result<Command, ParseError> {
    Ok(Command::World(WorldCommand::SaveLot(
        line.arg(0).map(|(_, w)| PathBuf::from(w)),
    )))
}
