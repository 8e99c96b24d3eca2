//! Reading an ambience score: the version line, the header data line and the note
//! rows, every bad field reported at its line and column and the rest kept.

use super::{FSC_VERSION, FULL_SCALE, FscHeader, FscRow, FscScore, HEADER_FIELDS, ROW_FIELDS};
use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::toolchain::formats::number::parse_int;
use crate::toolchain::formats::text::{
    Field, char_count, numbered_lines, split_fields, split_whitespace,
};
use std::path::Path;

impl FscScore {
    /// Parses a score, reporting every bad line and keeping the rest. A file without a
    /// header line gives a default header and an error.
    pub fn parse(text: &str, file: &Path) -> (FscScore, Vec<Diagnostic>) {
        let mut score = FscScore::default();
        let mut diagnostics = Vec::new();
        let mut version_seen = false;
        let mut header_seen = false;
        for (line, content) in numbered_lines(text) {
            let trimmed = content.trim();
            if trimmed.is_empty() {
                continue;
            }
            if !version_seen {
                version_seen = true;
                match parse_version(content, line, file, &mut diagnostics) {
                    VersionLine::Version(version) => {
                        score.version = version;
                        continue;
                    }
                    VersionLine::BadNumber => continue,
                    // Reported; the line is read as an ordinary line.
                    VersionLine::Missing => {}
                }
            }
            // After the header, `cells` lines (editor layout) are skipped too.
            if trimmed.starts_with('#') || (header_seen && trimmed.starts_with("cells")) {
                continue;
            }
            let expected = if header_seen {
                ROW_FIELDS
            } else {
                HEADER_FIELDS
            };
            let fields = data_fields(content, expected);
            let mut reader = Reader {
                fields: &fields,
                line,
                file,
                diagnostics: &mut diagnostics,
                failed: false,
            };
            if header_seen {
                score.rows.extend(reader.row(content));
            } else {
                header_seen = true;
                if let Some(header) = reader.header(content) {
                    score.header = header;
                }
            }
        }
        if !header_seen {
            diagnostics.push(Diagnostic::error(
                DiagCode::MissingField,
                file,
                0,
                0,
                "score has no header data line (master volume, priority, … DifY)",
            ));
        }
        (score, diagnostics)
    }
}

/// What the first non-blank line turned out to be.
enum VersionLine {
    /// `version N`.
    Version(u32),
    /// `version` followed by something other than a whole number (reported).
    BadNumber,
    /// Not a version line at all (reported).
    Missing,
}

/// Reads `version N` on the first non-blank line, reporting what is wrong with it.
fn parse_version(
    content: &str,
    line: u32,
    file: &Path,
    diagnostics: &mut Vec<Diagnostic>,
) -> VersionLine {
    let tokens = split_whitespace(content);
    let Some(keyword) = tokens
        .first()
        .filter(|k| k.text.eq_ignore_ascii_case("version"))
    else {
        let column = tokens.first().map_or(1, |k| k.column);
        diagnostics.push(Diagnostic::error(
            DiagCode::BadHeader,
            file,
            line,
            column,
            format!("the first line should be `version {FSC_VERSION}`; reading it as data"),
        ));
        return VersionLine::Missing;
    };
    let number = tokens.get(1);
    match number
        .and_then(|n| parse_int(n.text))
        .and_then(|v| u32::try_from(v).ok())
    {
        Some(version) => VersionLine::Version(version),
        None => {
            let column = number.map_or_else(
                || keyword.column.saturating_add(char_count(keyword.text)),
                |n| n.column,
            );
            diagnostics.push(Diagnostic::error(
                DiagCode::BadNumber,
                file,
                line,
                column,
                "`version` must be followed by a whole number, e.g. `version 7`",
            ));
            VersionLine::BadNumber
        }
    }
}

/// The tab-separated fields of a data line. Trailing empty fields past `keep` are
/// dropped, since spreadsheets pad rows with tabs.
fn data_fields(content: &str, keep: usize) -> Vec<Field<'_>> {
    let mut fields: Vec<Field<'_>> = split_fields(content, '\t').collect();
    while fields.len() > keep && fields.last().is_some_and(|f| f.text.is_empty()) {
        fields.pop();
    }
    fields
}

/// Reads typed fields of one line, reporting every bad one.
struct Reader<'a> {
    fields: &'a [Field<'a>],
    line: u32,
    file: &'a Path,
    diagnostics: &'a mut Vec<Diagnostic>,
    failed: bool,
}

impl Reader<'_> {
    fn error(&mut self, code: DiagCode, column: u32, message: String) {
        self.diagnostics.push(Diagnostic::error(
            code, self.file, self.line, column, message,
        ));
        self.failed = true;
    }

    /// Field `index` with its column (an empty field if missing; counts are checked first).
    fn field(&self, index: usize) -> Field<'_> {
        self.fields.get(index).copied().unwrap_or(Field {
            column: 0,
            text: "",
        })
    }

    /// Checks the field count and says whether to go on: fewer than `expected` is an
    /// error; more is an error when `strict` (rows), else a warning (the header).
    fn check_count(&mut self, content: &str, expected: usize, what: &str, strict: bool) -> bool {
        let found = self.fields.len();
        if found < expected {
            let column = char_count(content).saturating_add(1);
            self.error(
                DiagCode::MissingField,
                column,
                format!("{what} has {found} tab-separated fields; expected {expected}"),
            );
            return false;
        }
        if let Some(extra) = self.fields.get(expected) {
            let message = format!("{what} has {found} tab-separated fields; expected {expected}");
            if strict {
                self.error(DiagCode::ExtraField, extra.column, message);
                return false;
            }
            self.diagnostics.push(Diagnostic::warning(
                DiagCode::ExtraField,
                self.file,
                self.line,
                extra.column,
                format!("{message}; the rest are ignored"),
            ));
        }
        true
    }

    fn int(&mut self, index: usize, what: &str) -> i32 {
        let field = self.field(index);
        match parse_int(field.text).and_then(|v| i32::try_from(v).ok()) {
            Some(value) => value,
            None => {
                let message = format!("{what} must be a whole number, found `{}`", field.text);
                self.error(DiagCode::BadNumber, field.column, message);
                0
            }
        }
    }

    /// `N` integer fields from `first` on, named by `names`, read in file order (so
    /// their diagnostics come in order too).
    fn ints<const N: usize>(&mut self, first: usize, names: [&str; N]) -> [i32; N] {
        let mut values = [0; N];
        for (offset, (value, what)) in values.iter_mut().zip(names).enumerate() {
            *value = self.int(first + offset, what);
        }
        values
    }

    /// Like `int`, warning when the value is outside 0–1024.
    fn scaled(&mut self, index: usize, what: &str) -> i32 {
        let value = self.int(index, what);
        if !(0..=FULL_SCALE).contains(&value) {
            let column = self.field(index).column;
            self.diagnostics.push(Diagnostic::warning(
                DiagCode::NumberOutOfRange,
                self.file,
                self.line,
                column,
                format!("{what} {value} is outside 0–{FULL_SCALE}"),
            ));
        }
        value
    }

    fn optional_int(&mut self, index: usize, what: &str) -> Option<i32> {
        (self.field(index).text != "-").then(|| self.int(index, what))
    }

    fn decimal(&mut self, index: usize, what: &str) -> f32 {
        let field = self.field(index);
        match parse_decimal(field.text) {
            Some(value) => value,
            None => {
                let message = format!("{what} must be a number, found `{}`", field.text);
                self.error(DiagCode::BadNumber, field.column, message);
                0.0
            }
        }
    }

    fn text(&self, index: usize) -> String {
        self.field(index).text.to_owned()
    }

    fn header(&mut self, content: &str) -> Option<FscHeader> {
        if !self.check_count(content, HEADER_FIELDS, "the header line", false) {
            return None;
        }
        let master_volume = self.scaled(1, "master volume");
        let [
            priority,
            min,
            max,
            rows,
            cols,
            tempo_bpm,
            beats_per_bar,
            sel_x,
            sel_y,
        ] = self.ints(
            2,
            [
                "priority",
                "min",
                "max",
                "rows",
                "cols",
                "tempo",
                "beats per bar",
                "SelX",
                "SelY",
            ],
        );
        let quan_x = self.optional_int(11, "QuanX");
        let quan_y = self.optional_int(12, "QuanY");
        let [dif_x, dif_y] = self.ints(13, ["DifX", "DifY"]);
        let header = FscHeader {
            label: self.text(0),
            master_volume,
            priority,
            min,
            max,
            rows,
            cols,
            tempo_bpm,
            beats_per_bar,
            sel_x,
            sel_y,
            quan_x,
            quan_y,
            dif_x,
            dif_y,
        };
        (!self.failed).then_some(header)
    }

    fn row(&mut self, content: &str) -> Option<FscRow> {
        if !self.check_count(content, ROW_FIELDS, "note row", true) {
            return None;
        }
        let row = FscRow {
            label: self.text(0),
            volume: self.scaled(1, "volume"),
            jump_point: self.int(2, "random jump point flag"),
            pan_lr: self.scaled(3, "left/right pan"),
            pan_fb: self.int(4, "front/back pan"),
            rand2: self.int(5, "rand2"),
            fade_in: self.int(6, "fade in"),
            fade_out: self.int(7, "fade out"),
            delay: self.int(8, "delay"),
            rand3: self.int(9, "rand3"),
            loop_count: self.int(10, "loop count"),
            loop_flag: self.int(11, "loop flag"),
            quantise: self.int(12, "quantise"),
            probability: self.int(13, "probability"),
            pitch_low: self.decimal(14, "pitch low"),
            pitch_high: self.decimal(15, "pitch high"),
            fast: self.int(16, "fast"),
            group_id: self.int(17, "group ID"),
            stereo: self.int(18, "stereo flag"),
            filename: self.text(19),
        };
        (!self.failed).then_some(row)
    }
}

/// An integer (decimal or `0x` hex) or a plain decimal like `1.0` or `-.5`; no
/// exponents, no infinities.
pub(super) fn parse_decimal(text: &str) -> Option<f32> {
    if let Some(value) = parse_int(text) {
        return Some(value as f32);
    }
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    // Integers too long for `parse_int` still read (f32 reaches 3.4e38).
    let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.len() + fraction.len() == 0 || !digits(whole) || !digits(fraction) {
        return None;
    }
    text.parse::<f32>().ok().filter(|v| v.is_finite())
}
