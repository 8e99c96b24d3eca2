//! The lot file as it was read, line by line, so that saving is lossless: comments, blank
//! lines, lines that did not parse, statements overridden by a later line, line endings
//! and numbers as written all stay byte for byte; only the lines whose values changed are
//! rewritten, and what the file lacks is added at its end (the way the `.hot` document
//! and the hit-list editor edit their files).
//!
//! A rewritten line keeps its indentation and whatever follows the statement (a `#`
//! comment); a number that did not change keeps its text — `16777217` stays, although
//! positions are 32-bit floats that hold it as 16777216. When only an object's position
//! (or the camera's centre) changed, just those two numbers are replaced.

use super::{Lot, quote};
use crate::world::view::Camera;
use crate::world::{ObjectId, ObjectKind, WorldObject, field};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::ops::Range;

/// What one statement line says.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Said {
    /// `hour`.
    Hour(f32),
    /// `mode` (lower case).
    Mode(String),
    /// `camera` (its `screen` is not part of the line; kept at zero).
    Camera(Camera),
    /// `screen`.
    Screen([f32; 2]),
    /// `controlled`.
    Controlled(ObjectId),
    /// `room <tiles>`.
    Room(f32),
    /// `room "<name>" <x1> <y1> <x2> <y2> [floor <n>]`: kept as written.
    RoomArea(super::Room),
    /// `object`.
    Object(WorldObject),
}

/// The statements given once, in the order [`Lot::to_text`] writes them.
const SETTINGS: usize = 6;

impl Said {
    /// The camera as a line says it (no screen).
    pub(super) fn camera(camera: &Camera) -> Said {
        Said::Camera(Camera {
            screen: [0.0; 2],
            ..*camera
        })
    }

    /// Which statement given once this is (an index into [`settings`]), or `None` for an
    /// object.
    fn setting(&self) -> Option<usize> {
        match self {
            Said::Hour(_) => Some(0),
            Said::Mode(_) => Some(1),
            Said::Camera(_) => Some(2),
            Said::Screen(_) => Some(3),
            Said::Controlled(_) => Some(4),
            Said::Room(_) => Some(5),
            Said::RoomArea(_) | Said::Object(_) => None,
        }
    }

    /// The two coordinates a line writes: an object's position, the camera's centre.
    fn coordinates(&self) -> Option<[f32; 2]> {
        match self {
            Said::Object(o) => Some(o.position),
            Said::Camera(c) => Some(c.centre),
            _ => None,
        }
    }

    /// `new`'s coordinates if they are all that differs from this.
    fn moved_to(&self, new: &Said) -> Option<[f32; 2]> {
        let same_otherwise = match (self, new) {
            (Said::Object(old), Said::Object(now)) => {
                *old == WorldObject {
                    position: old.position,
                    ..now.clone()
                }
            }
            (Said::Camera(old), Said::Camera(now)) => {
                *old == Camera {
                    centre: old.centre,
                    ..*now
                }
            }
            _ => false,
        };
        same_otherwise.then(|| new.coordinates()).flatten()
    }

    /// Writes the statement (no newline); `coordinates` gives the text of the two
    /// coordinates when they are kept as written.
    pub(super) fn write(&self, out: &mut String, coordinates: Option<[&str; 2]>) {
        let [x, y] = match (coordinates, self.coordinates()) {
            (Some([x, y]), _) => [x.to_string(), y.to_string()],
            (None, Some([x, y])) => [x.to_string(), y.to_string()],
            (None, None) => [String::new(), String::new()],
        };
        let _ = match self {
            Said::Hour(hour) => write!(out, "hour {hour}"),
            Said::Mode(mode) => write!(out, "mode {mode}"),
            Said::Camera(c) => {
                let _ = write!(
                    out,
                    "camera {x} {y} zoom {} rotation {}",
                    c.zoom, c.rotation
                );
                if c.level != 0 {
                    let _ = write!(out, " floor {}", c.level);
                }
                Ok(())
            }
            Said::Screen([w, h]) => write!(out, "screen {w} {h}"),
            Said::Controlled(id) => write!(out, "controlled {id}"),
            Said::Room(size) => write!(out, "room {size}"),
            Said::RoomArea(room) => {
                out.push_str("room ");
                quote(out, &room.name);
                let _ = write!(
                    out,
                    " {} {} {} {}",
                    room.from[0], room.from[1], room.to[0], room.to[1]
                );
                if room.floor != 0 {
                    let _ = write!(out, " floor {}", room.floor);
                }
                Ok(())
            }
            Said::Object(o) => {
                write_object(out, o, [&x, &y]);
                Ok(())
            }
        };
    }
}

/// The statements given once as `lot` has them, in [`Said::setting`] order (`None`: not
/// written).
pub(super) fn settings(lot: &Lot) -> [Option<Said>; SETTINGS] {
    [
        Some(Said::Hour(lot.hour)),
        Some(Said::Mode(lot.mode.clone())),
        Some(Said::camera(&lot.camera)),
        lot.screen.map(Said::Screen),
        lot.controlled.map(Said::Controlled),
        Some(Said::Room(lot.room_size)),
    ]
}

/// Writes an object's statement (no newline) with its coordinates as given.
fn write_object(out: &mut String, o: &WorldObject, [x, y]: [&str; 2]) {
    let _ = write!(out, "object {} {}", o.id, o.kind);
    if !o.name.is_empty() {
        out.push(' ');
        quote(out, &o.name);
    }
    let _ = write!(out, " at {x} {y}");
    if o.level != 0 {
        let _ = write!(out, " floor {}", o.level);
    }
    if o.on {
        out.push_str(" on");
    }
    if let Some(station) = o.station {
        let _ = write!(out, " station={station}");
    }
    for (index, value) in o.fields.iter().enumerate() {
        let Ok(number) = u8::try_from(index) else {
            continue;
        };
        let is_gender = number == field::GENDER;
        if *value == 0 && !(is_gender && o.kind == ObjectKind::Person) {
            continue;
        }
        match field::NAMES.iter().find(|(n, _)| *n == number) {
            Some((_, name)) => {
                let _ = write!(out, " {name}=");
            }
            None => {
                let _ = write!(out, " {number}=");
            }
        }
        let gender = usize::try_from(*value)
            .ok()
            .and_then(|v| super::GENDERS.get(v))
            .filter(|_| is_gender);
        match gender {
            Some(name) => out.push_str(name),
            None => {
                let _ = write!(out, "{value}");
            }
        }
    }
}

/// A statement line: what it says and where its parts are (byte ranges in the line).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Statement {
    /// What it says.
    pub(super) said: Said,
    /// From the first word to the end of the last (before any comment).
    pub(super) span: Range<usize>,
    /// The two coordinates' words, if the line writes them.
    pub(super) coordinates: Option<[Range<usize>; 2]>,
}

impl Statement {
    /// `line` rewritten to say `new`.
    fn rewrite(&self, line: &str, new: &Said) -> String {
        let old_text = |i: usize| {
            self.coordinates
                .as_ref()
                .and_then(|c| c.get(i))
                .and_then(|r| line.get(r.clone()))
        };
        if let (Some([x, y]), Some(moved)) = (&self.coordinates, self.said.moved_to(new)) {
            // Only the coordinates changed: replace just those two words.
            if let (Some(before), Some(between), Some(after)) = (
                line.get(..x.start),
                line.get(x.end..y.start),
                line.get(y.end..),
            ) {
                return format!("{before}{}{between}{}{after}", moved[0], moved[1]);
            }
        }
        // A coordinate that did not change keeps its text.
        let old = self.said.coordinates();
        let now = new.coordinates();
        let keep = |i: usize| {
            let same = old.zip(now).is_some_and(|(o, n)| o[i] == n[i]);
            match (same, old_text(i)) {
                (true, Some(text)) => text.to_string(),
                _ => now.map_or_else(String::new, |n| n[i].to_string()),
            }
        };
        let (x, y) = (keep(0), keep(1));
        let mut out = String::new();
        out.push_str(line.get(..self.span.start).unwrap_or_default());
        new.write(&mut out, Some([&x, &y]));
        out.push_str(line.get(self.span.end..).unwrap_or_default());
        out
    }
}

/// One line of the file as read.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Line {
    /// The text, without its ending.
    pub(super) text: String,
    /// `"\n"`, `"\r\n"`, or `""` for a last line without one.
    pub(super) ending: &'static str,
    /// What it says, if it is a statement that parsed.
    pub(super) statement: Option<Statement>,
}

/// A lot file as read: every line, and what each statement said.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LotDocument {
    pub(super) lines: Vec<Line>,
    /// Bytes that were not UTF-8 were replaced when it was read.
    pub(super) lossy: bool,
    /// The file began with a byte-order mark (written back first).
    pub(super) bom: bool,
}

impl LotDocument {
    /// True if bytes that were not UTF-8 were replaced when the file was read (so saving
    /// over it would change them).
    pub fn is_lossy(&self) -> bool {
        self.lossy
    }

    /// The newline of the file (its first line's), for lines it did not have.
    fn newline(&self) -> &'static str {
        self.lines
            .iter()
            .map(|l| l.ending)
            .find(|e| !e.is_empty())
            .unwrap_or("\n")
    }

    /// The file's text saying `lot`: its own text where nothing changed.
    pub fn text_for(&self, lot: &Lot) -> String {
        let current = settings(lot);
        let mut counting: [Option<usize>; SETTINGS] = [None; SETTINGS];
        for (index, line) in self.lines.iter().enumerate() {
            if let Some(setting) = line.statement.as_ref().and_then(|s| s.said.setting()) {
                counting[setting] = Some(index);
            }
        }
        let mut out = String::new();
        if self.bom {
            out.push('\u{feff}');
        }
        let mut objects: BTreeSet<ObjectId> = BTreeSet::new();
        for (index, line) in self.lines.iter().enumerate() {
            let Some(statement) = &line.statement else {
                out.push_str(&line.text);
                out.push_str(line.ending);
                continue;
            };
            let now = match &statement.said {
                Said::Object(old) => {
                    objects.insert(old.id);
                    lot.objects.get(old.id).cloned().map(Said::Object)
                }
                said => match said.setting() {
                    // A line a later one overrides stays as it is.
                    Some(setting) if counting[setting] == Some(index) => current[setting].clone(),
                    _ => Some(said.clone()),
                },
            };
            match now {
                // Gone (an object no longer on the lot): the line goes.
                None => {}
                Some(now) if now == statement.said => {
                    out.push_str(&line.text);
                    out.push_str(line.ending);
                }
                Some(now) => {
                    out.push_str(&statement.rewrite(&line.text, &now));
                    out.push_str(line.ending);
                }
            }
        }
        let newline = self.newline();
        let defaults = settings(&Lot::default());
        let missing = current
            .iter()
            .zip(&defaults)
            .zip(&counting)
            .filter(|((now, default), line)| line.is_none() && now != default)
            .filter_map(|((now, _), _)| now.clone());
        let added = lot
            .objects
            .objects()
            .filter(|o| !objects.contains(&o.id))
            .map(|o| Said::Object(o.clone()));
        for said in missing.chain(added) {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push_str(newline);
            }
            said.write(&mut out, None);
            out.push_str(newline);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::path::Path;

    /// Lines a lot file may hold: statements, overridden ones, comments, mistakes.
    const PIECES: &[&str] = &[
        "# a note",
        "",
        "  ",
        "hour 14",
        "hour 30",
        "hour 9.5   # later",
        "mode Live",
        "mode disco",
        "camera 1 2 zoom 2",
        "camera 1.50 -2 rotation 3 floor 1 # view",
        "camera 1",
        "screen 800 600",
        "controlled 1",
        "controlled x",
        "room 3",
        "object 1 person \"A\" at 1 2 gender=female",
        "object 1 tv at 3 4",
        "object 2 radio \"R \\\"x\\\"\" at 16777217 0.1 on station=28 # c",
        "object 3 spaceship",
        "object 4 baby at 1",
        "\"quoted\"",
        "nonsense here",
        "object 5 person \"open",
        "\tobject 6 piano at -0 1e3 floor 2 creativity=5",
        "object 7 generic",
    ];

    fn lot_text(lines: &[(usize, usize)], last_newline: bool) -> String {
        let endings = ["\n", "\r\n", "\n"];
        let mut text = String::new();
        for &(piece, ending) in lines {
            text.push_str(PIECES[piece % PIECES.len()]);
            text.push_str(endings[ending % endings.len()]);
        }
        if !last_newline {
            let trimmed = text.trim_end_matches(['\r', '\n']).len();
            text.truncate(trimmed);
        }
        text
    }

    proptest! {
        #[test]
        fn an_unchanged_lot_saves_to_the_same_bytes(
            lines in proptest::collection::vec((0..PIECES.len(), 0..3usize), 0..24),
            last_newline: bool,
            bom: bool,
        ) {
            let plain = lot_text(&lines, last_newline);
            let text = if bom { format!("\u{feff}{plain}") } else { plain.clone() };
            let (lot, document, problems) = Lot::parse_document(&text, Path::new("p.lot"));
            prop_assert_eq!(document.text_for(&lot), text);
            // A byte-order mark changes nothing of what the lot says.
            let (without, without_problems) = Lot::parse(&plain, Path::new("p.lot"));
            prop_assert_eq!(lot, without);
            prop_assert_eq!(problems, without_problems);
        }

        #[test]
        fn a_changed_lot_saves_to_what_reads_back_as_it(
            lines in proptest::collection::vec((0..PIECES.len(), 0..3usize), 0..24),
            last_newline: bool,
        ) {
            let text = lot_text(&lines, last_newline);
            let (mut lot, document, _) = Lot::parse_document(&text, Path::new("p.lot"));
            lot.hour = 7.25;
            lot.controlled = Some(2);
            lot.camera.centre[0] += 1.0;
            let ids: Vec<ObjectId> = lot.objects.objects().map(|o| o.id).collect();
            for id in ids {
                if let Some(o) = lot.objects.get_mut(id) {
                    o.position[0] += 1.5;
                    o.fields[20] = id;
                }
            }
            lot.objects.insert(WorldObject::new(99, "new", ObjectKind::Tv).at(2.0, 3.0));
            let saved = document.text_for(&lot);
            let (back, _) = Lot::parse(&saved, Path::new("p.lot"));
            prop_assert_eq!(back.hour, lot.hour);
            prop_assert_eq!(back.controlled, lot.controlled);
            prop_assert_eq!(back.camera.centre, lot.camera.centre);
            prop_assert_eq!(back.objects, lot.objects);
        }
    }
}
