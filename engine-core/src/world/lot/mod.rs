//! The lot file: the workbench's simulated world — its objects (with position, floor,
//! station and data fields), the controlled character, the hour, the music mode, the room
//! size and the camera — as a small line-oriented text file (`docs/lot.md`).
//!
//! ```text
//! # demo lot
//! hour 14.5
//! mode live
//! camera 10 8 zoom 1 rotation 0
//! controlled 1
//! room 12
//! room "Kitchen" 12 4 16 8
//! object 1 person "Bob Newbie" at 10 8 gender=male age=30 creativity=5
//! object 2 tv "Kitchen TV" at 14 6 on station=28
//! ```
//!
//! [`Lot::parse`] reports every mistake as a [`Diagnostic`] with file, line and column;
//! a line with an error is skipped and the rest still loads. [`Lot::parse_document`] also
//! keeps the file as read ([`LotDocument`]), so that saving rewrites only what changed.
//! [`Lot::to_text`] writes a lot from scratch so that parsing it gives the same lot;
//! [`Lot::save`] writes a temporary file and renames it over the old one, so a crash
//! never leaves half a file.

pub mod doc;
pub mod save;
mod words;

use super::settings::{WorldIni, read_section};
use super::view::{Camera, DEFAULT_SCREEN, ViewSettings, ZOOM_FAR, ZOOM_NEAR};
use super::{FIELD_COUNT, ObjectId, ObjectKind, World, WorldObject, field};
use crate::toolchain::diag::{DiagCode, Diagnostic};
use doc::{Line, LotDocument, Said, Statement, settings};
use std::ops::Range;
use std::path::{Path, PathBuf};
use words::{Words, tokenize};

/// The usual extension of lot files.
pub const EXTENSION: &str = "lot";

/// The music modes a lot may name (design document, "List of music modes"); another name is a
/// warning but is kept.
pub const MODES: &[&str] = &[
    "load",
    "neighborhood",
    "live",
    "buy",
    "build",
    "options",
    "publish",
    "family",
    "credits",
];

/// Names of the gender field's values (0, 1, 2).
pub const GENDERS: [&str; 3] = ["male", "female", "child"];

/// A lot: the simulated world the workbench plays sounds in.
#[derive(Debug, Clone, PartialEq)]
pub struct Lot {
    /// Comment lines before the first statement, without their `#` (kept on save).
    pub header: Vec<String>,
    /// Hour of the day, 0–24.
    pub hour: f32,
    /// The music mode's name (one of [`MODES`], lower case).
    pub mode: String,
    /// The camera. Its `screen` is the lot's `screen` line, else [`DEFAULT_SCREEN`]; use
    /// [`Lot::camera`] for the camera with the settings' default screen.
    pub camera: Camera,
    /// The screen size the file gives (`screen w h`), if any.
    pub screen: Option<[f32; 2]>,
    /// The character the player controls (the source of console sounds).
    pub controlled: Option<ObjectId>,
    /// Size of the room around the active character, in tiles, when it is in none of
    /// [`Lot::rooms`] (the `room <tiles>` line).
    pub room_size: f32,
    /// The rooms (`room "<name>" <x1> <y1> <x2> <y2> [floor <n>]`), in file order.
    pub rooms: Vec<Room>,
    /// The objects.
    pub objects: World,
}

/// A room of the lot: a rectangle of tiles on one floor. The ambience's reverb follows
/// the room the active character is in.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Room {
    /// Its name, as written.
    pub name: String,
    /// One corner, in tiles.
    pub from: [f32; 2],
    /// The opposite corner, in tiles.
    pub to: [f32; 2],
    /// The floor it is on.
    pub floor: i32,
}

impl Room {
    /// Its area in tiles.
    pub fn tiles(&self) -> f32 {
        (self.to[0] - self.from[0]).abs() * (self.to[1] - self.from[1]).abs()
    }

    /// True if `position` on `floor` lies in it (the lower edges in, the upper out, so
    /// two rooms sharing a wall never both hold a point).
    pub fn contains(&self, position: [f32; 2], floor: i32) -> bool {
        let inside = |axis: usize| {
            let (lo, hi) = (
                self.from[axis].min(self.to[axis]),
                self.from[axis].max(self.to[axis]),
            );
            (lo..hi).contains(&position[axis])
        };
        floor == self.floor && inside(0) && inside(1)
    }
}

impl Default for Lot {
    /// Noon, live mode, the default camera, a 10-tile room, no objects.
    fn default() -> Self {
        Self {
            header: Vec::new(),
            hour: 12.0,
            mode: "live".to_string(),
            camera: Camera::default(),
            screen: None,
            controlled: None,
            room_size: 10.0,
            rooms: Vec::new(),
            objects: World::default(),
        }
    }
}

impl Lot {
    /// Reads a lot from `text`; `file` names it in diagnostics. Lines with errors are
    /// skipped, the rest load.
    pub fn parse(text: &str, file: &Path) -> (Lot, Vec<Diagnostic>) {
        let (lot, _, diagnostics) = Lot::parse_document(text, file);
        (lot, diagnostics)
    }

    /// Like [`Lot::parse`], and also the file as read, to save it losslessly
    /// ([`LotDocument::text_for`]).
    pub fn parse_document(text: &str, file: &Path) -> (Lot, LotDocument, Vec<Diagnostic>) {
        let mut parser = Parser {
            lot: Lot::default(),
            file,
            diagnostics: Vec::new(),
            seen: Vec::new(),
            controlled_at: None,
            in_header: true,
            coordinates: None,
            lines: Vec::new(),
        };
        // A byte-order mark (an editor's UTF-8 signature) is not part of the first line;
        // a save keeps it.
        let bom = text.starts_with('\u{feff}');
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        for (index, raw) in text.split_inclusive('\n').enumerate() {
            let number = u32::try_from(index + 1).unwrap_or(u32::MAX);
            let (line, ending) = match raw.strip_suffix("\r\n") {
                Some(line) => (line, "\r\n"),
                None => raw.strip_suffix('\n').map_or((raw, ""), |l| (l, "\n")),
            };
            parser.line(number, line, ending);
        }
        let (lot, mut document, diagnostics) = parser.finish();
        document.bom = bom;
        (lot, document, diagnostics)
    }

    /// Reads a lot file. A file that cannot be read is an error naming it, with an empty
    /// lot.
    pub fn load(path: &Path) -> (Lot, Vec<Diagnostic>) {
        let (lot, _, diagnostics) = Lot::load_document(path);
        (lot, diagnostics)
    }

    /// Like [`Lot::load`], and also the file as read (`None` if it could not be read).
    pub fn load_document(path: &Path) -> (Lot, Option<LotDocument>, Vec<Diagnostic>) {
        // A regular file of a sane size (never a pipe or a device), wherever world.ini
        // put it (that it is inside the project is checked where the path is chosen).
        match crate::toolchain::fsrules::ReadRules::for_file(path).read(path) {
            Ok(bytes) => {
                let text = String::from_utf8_lossy(&bytes);
                let (lot, mut document, diagnostics) = Lot::parse_document(&text, path);
                document.lossy = matches!(text, std::borrow::Cow::Owned(_));
                (lot, Some(document), diagnostics)
            }
            Err(e) => (
                Lot::default(),
                None,
                vec![Diagnostic::error(
                    e.code(),
                    path,
                    0,
                    0,
                    format!("cannot read the lot: it {}", e.reason()),
                )],
            ),
        }
    }

    /// Writes the lot ([`Lot::to_text`]) to `path`: first to a temporary file beside it,
    /// then renamed over it, so the old file stays whole if anything fails. It does not
    /// ask whether `path` may be written (see [`save::resolve_target`]).
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        save::write_atomically(path, self.to_text().as_bytes())
    }

    /// The lot as text, in the file format: parsing it gives this lot back. (To keep a
    /// file's comments and layout, save through its [`LotDocument`].)
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for line in &self.header {
            out.push('#');
            out.push_str(line);
            out.push('\n');
        }
        if !self.header.is_empty() {
            out.push('\n');
        }
        for said in settings(self).iter().flatten() {
            said.write(&mut out, None);
            out.push('\n');
        }
        for room in &self.rooms {
            Said::RoomArea(room.clone()).write(&mut out, None);
            out.push('\n');
        }
        if !self.objects.is_empty() {
            out.push('\n');
        }
        for object in self.objects.objects() {
            Said::Object(object.clone()).write(&mut out, None);
            out.push('\n');
        }
        out
    }

    /// The camera to place objects with: the lot's, on the lot's screen or else the
    /// settings' screen.
    pub fn camera(&self, settings: &ViewSettings) -> Camera {
        Camera {
            screen: self.screen.unwrap_or(settings.screen),
            ..self.camera
        }
    }

    /// The room `position` on `floor` lies in (the first in file order where rooms
    /// overlap), if any.
    pub fn room_at(&self, position: [f32; 2], floor: i32) -> Option<&Room> {
        self.rooms.iter().find(|r| r.contains(position, floor))
    }

    /// The controlled character, if it exists.
    pub fn controlled_object(&self) -> Option<&WorldObject> {
        self.objects.get(self.controlled?)
    }

    /// The lot file a project names in `world.ini` (`[Lot] File = demo.lot`, relative to
    /// the data directory of that `world.ini`), if any.
    pub fn file_in_settings(ini: &WorldIni, diagnostics: &mut Vec<Diagnostic>) -> Option<PathBuf> {
        let mut path = None;
        read_section(ini, "Lot", &["File"], diagnostics, |setting, diags| {
            if !setting.key.eq_ignore_ascii_case("File") {
                return false;
            }
            if setting.value.trim_matches('"').is_empty() {
                diags.push(setting.error(DiagCode::MissingField, "`File` names no lot file"));
            } else {
                path = Some(setting.path());
            }
            true
        });
        path
    }
}

/// Writes `text` in double quotes, escaping `"` and `\`.
pub(super) fn quote(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

struct Parser<'f> {
    lot: Lot,
    file: &'f Path,
    diagnostics: Vec<Diagnostic>,
    /// Statements given once (`hour`, `mode`…) and the line where each was.
    seen: Vec<(&'static str, u32)>,
    /// Where `controlled` was written (line, column of the ID), checked at the end.
    controlled_at: Option<(u32, u32)>,
    in_header: bool,
    /// The coordinates' words of the statement being read (object `at`, camera).
    coordinates: Option<[Range<usize>; 2]>,
    /// The file as read so far.
    lines: Vec<Line>,
}

impl Parser<'_> {
    fn line(&mut self, number: u32, line: &str, ending: &'static str) {
        self.coordinates = None;
        let statement = self.statement_line(number, line);
        self.lines.push(Line {
            text: line.to_string(),
            ending,
            statement,
        });
    }

    /// Reads one line; what it said if it is a statement that parsed.
    fn statement_line(&mut self, number: u32, line: &str) -> Option<Statement> {
        let trimmed = line.trim_start();
        if self.in_header {
            if let Some(comment) = trimmed.strip_prefix('#') {
                // A CR left at the end (before the CRLF, or ending the file) would be
                // written before the line end and read back as part of it.
                self.lot
                    .header
                    .push(comment.trim_end_matches('\r').to_string());
                return None;
            }
            if trimmed.is_empty() {
                return None;
            }
            self.in_header = false;
        }
        let tokens = match tokenize(line) {
            Ok(tokens) => tokens,
            Err(column) => {
                self.diagnostics.push(Diagnostic::error(
                    DiagCode::BadSyntax,
                    self.file,
                    number,
                    column,
                    "this quote is never closed",
                ));
                return None;
            }
        };
        let (Some(first), Some(last)) = (tokens.first(), tokens.last()) else {
            return None;
        };
        let span = first.bytes.start..last.bytes.end;
        let end = u32::try_from(line.chars().count() + 1).unwrap_or(u32::MAX);
        let mut words = Words {
            tokens: &tokens,
            next: 0,
            file: self.file,
            line: number,
            end,
        };
        match self.statement(&mut words) {
            Ok(said) => Some(Statement {
                said,
                span,
                coordinates: self.coordinates.take(),
            }),
            Err(e) => {
                self.diagnostics.push(e);
                None
            }
        }
    }

    /// Reads the two coordinates of a position (an object's `at`, the camera's centre),
    /// warning when a 32-bit float cannot hold one as written.
    fn coordinates(&mut self, w: &mut Words<'_>, what: [&str; 2]) -> Result<[f32; 2], Diagnostic> {
        let (x, x_token) = w.float(what[0])?;
        let (y, y_token) = w.float(what[1])?;
        for (value, token) in [(x, x_token), (y, y_token)] {
            let exact = token.text.parse::<f64>().ok();
            if value.to_string().parse::<f64>().ok() != exact {
                self.diagnostics.push(Diagnostic::warning(
                    DiagCode::InexactNumber,
                    self.file,
                    w.line,
                    token.column,
                    format!(
                        "`{}` is used as {value}: positions are 32-bit floats (the file keeps what you wrote)",
                        token.text
                    ),
                ));
            }
        }
        self.coordinates = Some([x_token.bytes.clone(), y_token.bytes.clone()]);
        Ok([x, y])
    }

    fn once(&mut self, keyword: &'static str, words: &Words<'_>, column: u32) {
        if let Some((_, earlier)) = self.seen.iter().find(|(k, _)| *k == keyword) {
            self.diagnostics.push(Diagnostic::warning(
                DiagCode::DuplicateKey,
                self.file,
                words.line,
                column,
                format!("`{keyword}` was already given on line {earlier}; this one counts"),
            ));
        } else {
            self.seen.push((keyword, words.line));
        }
    }

    fn statement(&mut self, w: &mut Words<'_>) -> Result<Said, Diagnostic> {
        let keyword = w.take("a statement")?;
        if keyword.quoted {
            let message = "a line starts with a keyword, not a string";
            return Err(w.error_at(DiagCode::BadSyntax, keyword.column, message));
        }
        let column = keyword.column;
        let said = match keyword.text.to_ascii_lowercase().as_str() {
            "hour" => {
                let (hour, token) = w.float("the hour")?;
                if !(0.0..=24.0).contains(&hour) {
                    let message = format!("the hour must be 0–24, not {hour}");
                    return Err(w.error_at(DiagCode::NumberOutOfRange, token.column, message));
                }
                w.done()?;
                self.once("hour", w, column);
                self.lot.hour = hour;
                Said::Hour(hour)
            }
            "mode" => {
                let token = w.take("a music mode")?;
                w.done()?;
                let mode = token.text.to_ascii_lowercase();
                if !MODES.contains(&mode.as_str()) {
                    self.diagnostics.push(Diagnostic::warning(
                        DiagCode::UnknownValue,
                        self.file,
                        w.line,
                        token.column,
                        format!(
                            "unknown music mode `{}` (known: {})",
                            token.text,
                            MODES.join(", ")
                        ),
                    ));
                }
                self.once("mode", w, column);
                self.lot.mode.clone_from(&mode);
                Said::Mode(mode)
            }
            "camera" => {
                let mut camera = Camera {
                    screen: self.lot.camera.screen,
                    ..Camera::default()
                };
                camera.centre = self.coordinates(w, ["the camera's x", "the camera's y"])?;
                while let Some(token) = w.peek() {
                    w.next += 1;
                    match token.text.to_ascii_lowercase().as_str() {
                        "zoom" => {
                            let max = i32::from(ZOOM_FAR);
                            let (z, _) = w.in_range("the zoom", i32::from(ZOOM_NEAR), max)?;
                            camera.zoom = u8::try_from(z).unwrap_or(ZOOM_NEAR);
                        }
                        "rotation" => {
                            let (r, _) = w.in_range("the rotation", 0, 3)?;
                            camera.rotation = u8::try_from(r).unwrap_or(0);
                        }
                        "floor" => camera.level = w.int("the floor")?.0,
                        _ => {
                            return Err(w.error_at(
                                DiagCode::UnknownKey,
                                token.column,
                                format!("expected zoom, rotation or floor, not `{}`", token.text),
                            ));
                        }
                    }
                }
                self.once("camera", w, column);
                self.lot.camera = camera;
                Said::camera(&camera)
            }
            "screen" => {
                let (width, t) = w.float("the screen width")?;
                let (height, u) = w.float("the screen height")?;
                for (v, token) in [(width, t), (height, u)] {
                    if v < 1.0 {
                        let message = "the screen size must be at least 1 pixel";
                        return Err(w.error_at(DiagCode::NumberOutOfRange, token.column, message));
                    }
                }
                w.done()?;
                self.once("screen", w, column);
                self.lot.screen = Some([width, height]);
                self.lot.camera.screen = [width, height];
                Said::Screen([width, height])
            }
            "controlled" => {
                let (id, token) = w.int("the controlled character's object ID")?;
                w.done()?;
                self.once("controlled", w, column);
                self.lot.controlled = Some(id);
                self.controlled_at = Some((w.line, token.column));
                Said::Controlled(id)
            }
            "room" if w.peek().is_some_and(|t| t.quoted) => Said::RoomArea(self.room(w)?),
            "room" => {
                let (size, token) = w.float("the room size in tiles")?;
                if size < 0.0 {
                    let message = "the room size cannot be negative";
                    return Err(w.error_at(DiagCode::NumberOutOfRange, token.column, message));
                }
                w.done()?;
                self.once("room", w, column);
                self.lot.room_size = size;
                Said::Room(size)
            }
            "object" => Said::Object(self.object(w)?),
            other => {
                return Err(w.error_at(
                    DiagCode::UnknownKey,
                    column,
                    format!(
                        "unknown statement `{other}` (known: hour, mode, camera, screen, controlled, room, object)"
                    ),
                ));
            }
        };
        Ok(said)
    }

    /// `room "<name>" <x1> <y1> <x2> <y2> [floor <n>]`.
    fn room(&mut self, w: &mut Words<'_>) -> Result<Room, Diagnostic> {
        let name = w.take("the room's name")?;
        let name_column = name.column;
        let name = name.text.clone();
        let from = self.coordinates(w, ["the room's first x", "the room's first y"])?;
        let to = self.coordinates(w, ["the room's second x", "the room's second y"])?;
        let mut floor = 0;
        if let Some(token) = w.peek() {
            if !token.text.eq_ignore_ascii_case("floor") {
                let message = format!(
                    "`{}`: after a room's corners only `floor <n>` may follow",
                    token.text
                );
                return Err(w.error_at(DiagCode::BadSyntax, token.column, message));
            }
            w.next += 1;
            floor = w.int("the floor")?.0;
        }
        w.done()?;
        if self
            .lot
            .rooms
            .iter()
            .any(|r| r.name.eq_ignore_ascii_case(&name))
        {
            let message = format!("room `{name}` is already on the lot");
            return Err(w.error_at(DiagCode::DuplicateKey, name_column, message));
        }
        let room = Room {
            name,
            from,
            to,
            floor,
        };
        if room.tiles() <= 0.0 {
            let message = "a room needs two corners that differ in x and in y";
            return Err(w.error_at(DiagCode::NumberOutOfRange, name_column, message));
        }
        // The corners are not a position a save moves.
        self.coordinates = None;
        self.lot.rooms.push(room.clone());
        Ok(room)
    }

    fn object(&mut self, w: &mut Words<'_>) -> Result<WorldObject, Diagnostic> {
        let (id, id_token) = w.int("the object ID")?;
        if self.lot.objects.get(id).is_some() {
            return Err(w.error_at(
                DiagCode::DuplicateKey,
                id_token.column,
                format!("object {id} is already on the lot"),
            ));
        }
        let kind_token = w.take("the object's kind")?;
        let kind = ObjectKind::by_name(&kind_token.text).ok_or_else(|| {
            let kinds: Vec<&str> = ObjectKind::ALL.iter().map(|k| k.name()).collect();
            w.error_at(
                DiagCode::UnknownValue,
                kind_token.column,
                format!(
                    "unknown kind `{}` (known: {})",
                    kind_token.text,
                    kinds.join(", ")
                ),
            )
        })?;
        let mut object = WorldObject::new(id, "", kind);
        if let Some(token) = w.peek().filter(|t| t.quoted) {
            object.name.clone_from(&token.text);
            w.next += 1;
        }
        while let Some(token) = w.peek() {
            w.next += 1;
            if token.quoted {
                let message = "the name comes right after the kind";
                return Err(w.error_at(DiagCode::BadSyntax, token.column, message));
            }
            if let Some((key, value)) = token.text.split_once('=') {
                let value_column =
                    token.column + u32::try_from(key.chars().count() + 1).unwrap_or(0);
                self.assignment(w, &mut object, key, value, token.column, value_column)?;
                continue;
            }
            match token.text.to_ascii_lowercase().as_str() {
                "at" => {
                    object.position = self.coordinates(w, ["the object's x", "the object's y"])?;
                }
                "floor" => object.level = w.int("the floor")?.0,
                "on" => object.on = true,
                "off" => object.on = false,
                _ => {
                    return Err(w.error_at(
                        DiagCode::UnknownKey,
                        token.column,
                        format!(
                            "unexpected `{}` (expected at, floor, on, off, station=, or field=value; names go in quotes)",
                            token.text
                        ),
                    ));
                }
            }
        }
        self.lot.objects.insert(object.clone());
        Ok(object)
    }

    fn assignment(
        &mut self,
        w: &Words<'_>,
        object: &mut WorldObject,
        key: &str,
        value: &str,
        key_column: u32,
        value_column: u32,
    ) -> Result<(), Diagnostic> {
        if key.eq_ignore_ascii_case("station") {
            let station = value.parse::<u32>().map_err(|_| {
                w.error_at(
                    DiagCode::BadNumber,
                    value_column,
                    format!("a station is a code (a whole number 0 or more), not `{value}`"),
                )
            })?;
            object.station = Some(station);
            return Ok(());
        }
        let number = field::by_name(key).ok_or_else(|| {
            let names: Vec<&str> = field::NAMES.iter().map(|(_, n)| *n).collect();
            w.error_at(
                DiagCode::UnknownKey,
                key_column,
                format!(
                    "unknown field `{key}` (a number 0–{} or one of: {}, or station)",
                    FIELD_COUNT - 1,
                    names.join(", ")
                ),
            )
        })?;
        let gender = GENDERS
            .iter()
            .position(|g| g.eq_ignore_ascii_case(value))
            .filter(|_| number == field::GENDER)
            .and_then(|g| i32::try_from(g).ok());
        let parsed = match gender {
            Some(g) => g,
            None => value.parse::<i32>().map_err(|_| {
                let hint = if number == field::GENDER {
                    "male, female, child or a number"
                } else {
                    "a whole number"
                };
                w.error_at(
                    DiagCode::BadNumber,
                    value_column,
                    format!("`{key}` must be {hint}, not `{value}`"),
                )
            })?,
        };
        if let Some(slot) = object.fields.get_mut(usize::from(number)) {
            *slot = parsed;
        }
        Ok(())
    }

    fn finish(mut self) -> (Lot, LotDocument, Vec<Diagnostic>) {
        if let (Some(id), Some((line, column))) = (self.lot.controlled, self.controlled_at) {
            match self.lot.objects.get(id) {
                None => self.diagnostics.push(Diagnostic::warning(
                    DiagCode::UnknownObject,
                    self.file,
                    line,
                    column,
                    format!("the controlled character {id} is not on the lot"),
                )),
                Some(o) if o.kind != ObjectKind::Person => {
                    self.diagnostics.push(Diagnostic::warning(
                        DiagCode::WrongObjectKind,
                        self.file,
                        line,
                        column,
                        format!(
                            "the controlled character {id} is a {}, not a person",
                            o.kind
                        ),
                    ))
                }
                Some(_) => {}
            }
        }
        if self.lot.screen.is_none() {
            self.lot.camera.screen = DEFAULT_SCREEN;
        }
        let document = LotDocument {
            lines: self.lines,
            lossy: false,
            bom: false,
        };
        (self.lot, document, self.diagnostics)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the fuzzer: a header comment ending in a carriage return (a CR before
    /// the CRLF, or at the very end of the file) kept it, and `to_text` wrote it before
    /// its own line end, where reading it back took it for part of a CRLF.
    #[test]
    fn header_comments_ending_in_carriage_returns_read_back() {
        let (lot, _) = Lot::parse("# one\r\r\n#  two \r", Path::new("t.lot"));
        assert_eq!(lot.header, [" one", "  two "]);
        let (again, problems) = Lot::parse(&lot.to_text(), Path::new("t.lot"));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(again, lot);
    }

    #[test]
    fn names_with_quotes_survive_a_round_trip() {
        let mut lot = Lot::default();
        lot.objects
            .insert(WorldObject::new(4, r#"the "odd" \ one"#, ObjectKind::Piano).at(1.25, -3.0));
        let text = lot.to_text();
        let (back, diagnostics) = Lot::parse(&text, Path::new("x.lot"));
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        assert_eq!(back, lot, "{text}");
    }
}
