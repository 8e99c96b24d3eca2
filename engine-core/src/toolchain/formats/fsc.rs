//! `.fsc` ambience scores (hit-reference §2.8): tab-separated text with a `version` line,
//! one header data line and one 20-field note row per beat.
//!
//! Field meanings are mostly guesses (FreeSO says so), so flag-like fields are kept as
//! the integers written rather than folded to booleans; accessors give the reading
//! playback uses. Pitch low/high are `f32` because scores may write them as decimals
//! (`1.0`); every other numeric field is an `i32` (decimal or `0x` hex). A `#` line is a
//! comment wherever it appears — the test is made on the line being read (FreeSO tests
//! the wrong line, a bug not copied here).

use crate::toolchain::diag::Diagnostic;
use crate::toolchain::formats::number::parse_int;
use crate::toolchain::formats::text::{
    Field, char_count, numbered_lines, split_fields, split_whitespace,
};
use std::fmt::Write as _;
use std::path::Path;

/// The version shipped scores declare (`version 7`); what [`FscScore::to_text`] writes
/// for a default score.
pub const FSC_VERSION: u32 = 7;
/// Fields on the header data line: a label and 14 values.
pub const HEADER_FIELDS: usize = 15;
/// Fields on every note row: a label, 18 values and a file name.
pub const ROW_FIELDS: usize = 20;
/// The file name that marks a rest.
pub const REST: &str = "NONE";
/// Largest volume or pan value (1024 = full volume / hard right).
pub const FULL_SCALE: i32 = 1024;

/// Column names of the header data line, written as a comment (wiki wording).
const HEADER_COMMENT: &str =
    "#\tvol\tpri\tmin\tmax\trows\tcols\ttempo\tBPB\tSelX\tSelY\tQuanX\tQuanY\tDifX\tDifY";
/// Column names of the note rows, written as a comment (wiki wording, its last two words
/// included although rows end at the file name).
const ROW_COMMENT: &str = "#\tvol\trand?\tLR\tFB\trand?\tfin\tfout\tdly\trand?\tloop\tloop?\t\
                           quant\tprob\tpitchL\tpitchH\tfast?\tgroupID\tstereo?\tfilename\t\
                           exclusion\tcells";

/// The header data line.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct FscHeader {
    /// Field 0, a free label.
    pub label: String,
    /// Master volume, 0–1024.
    pub master_volume: i32,
    /// Priority.
    pub priority: i32,
    /// "min" (meaning unknown).
    pub min: i32,
    /// "max" (meaning unknown).
    pub max: i32,
    /// Grid rows (editor layout).
    pub rows: i32,
    /// Grid columns (editor layout).
    pub cols: i32,
    /// Tempo in beats per minute; one note row plays per beat.
    pub tempo_bpm: i32,
    /// Beats per bar.
    pub beats_per_bar: i32,
    /// SelX (editor selection).
    pub sel_x: i32,
    /// SelY (editor selection).
    pub sel_y: i32,
    /// QuanX; `None` where the file writes `-`.
    pub quan_x: Option<i32>,
    /// QuanY; `None` where the file writes `-`.
    pub quan_y: Option<i32>,
    /// DifX.
    pub dif_x: i32,
    /// DifY.
    pub dif_y: i32,
}

/// One note row (one beat).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FscRow {
    /// Field 0, a label or cell name.
    pub label: String,
    /// Volume, 0–1024.
    pub volume: i32,
    /// Random-jump-point flag: non-zero rows are segment boundaries and jump targets.
    pub jump_point: i32,
    /// Left/right pan, 0–1024 (512 = centre).
    pub pan_lr: i32,
    /// Front/back pan.
    pub pan_fb: i32,
    /// "rand2" (meaning unknown).
    pub rand2: i32,
    /// Fade in.
    pub fade_in: i32,
    /// Fade out.
    pub fade_out: i32,
    /// Delay.
    pub delay: i32,
    /// "rand3" (meaning unknown).
    pub rand3: i32,
    /// Loop/hold count: a sounding row occupies `loop_count + 1` beats.
    pub loop_count: i32,
    /// Loop flag.
    pub loop_flag: i32,
    /// Quantise.
    pub quantise: i32,
    /// Probability: 0 = always; otherwise plays if a roll of 0..16 is below it.
    pub probability: i32,
    /// Pitch, low bound.
    pub pitch_low: f32,
    /// Pitch, high bound.
    pub pitch_high: f32,
    /// "fast" (meaning unknown).
    pub fast: i32,
    /// Group ID.
    pub group_id: i32,
    /// Stereo flag.
    pub stereo: i32,
    /// Sample file name; `NONE` (any case) or empty means a rest.
    pub filename: String,
}

impl FscRow {
    /// True if the row plays nothing (file name `NONE` or empty).
    pub fn is_rest(&self) -> bool {
        self.filename.is_empty() || self.filename.eq_ignore_ascii_case(REST)
    }

    /// True if the row is a random jump point.
    pub fn is_jump_point(&self) -> bool {
        self.jump_point != 0
    }

    /// The 20 fields in file order, as the writer puts them.
    fn fields(&self) -> [String; ROW_FIELDS] {
        [
            self.label.clone(),
            self.volume.to_string(),
            self.jump_point.to_string(),
            self.pan_lr.to_string(),
            self.pan_fb.to_string(),
            self.rand2.to_string(),
            self.fade_in.to_string(),
            self.fade_out.to_string(),
            self.delay.to_string(),
            self.rand3.to_string(),
            self.loop_count.to_string(),
            self.loop_flag.to_string(),
            self.quantise.to_string(),
            self.probability.to_string(),
            // `Display` for f32 is the shortest text that reads back exactly, never
            // in exponent form.
            self.pitch_low.to_string(),
            self.pitch_high.to_string(),
            self.fast.to_string(),
            self.group_id.to_string(),
            self.stereo.to_string(),
            self.filename.clone(),
        ]
    }
}

/// A parsed ambience score.
#[derive(Debug, Clone, PartialEq)]
pub struct FscScore {
    /// The number on the `version` line.
    pub version: u32,
    /// The header data line.
    pub header: FscHeader,
    /// Note rows in order, one per beat.
    pub rows: Vec<FscRow>,
}

impl Default for FscScore {
    /// An empty version-7 score.
    fn default() -> Self {
        Self {
            version: FSC_VERSION,
            header: FscHeader::default(),
            rows: Vec::new(),
        }
    }
}

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
                file,
                0,
                0,
                "score has no header data line (master volume, priority, … DifY)",
            ));
        }
        (score, diagnostics)
    }

    /// The canonical text: version line, the two column-name comments, the header line
    /// and the rows, tab-separated with LF endings.
    pub fn to_text(&self) -> String {
        let h = &self.header;
        let quan = |q: Option<i32>| q.map_or_else(|| "-".to_owned(), |v| v.to_string());
        let header = [
            h.label.clone(),
            h.master_volume.to_string(),
            h.priority.to_string(),
            h.min.to_string(),
            h.max.to_string(),
            h.rows.to_string(),
            h.cols.to_string(),
            h.tempo_bpm.to_string(),
            h.beats_per_bar.to_string(),
            h.sel_x.to_string(),
            h.sel_y.to_string(),
            quan(h.quan_x),
            quan(h.quan_y),
            h.dif_x.to_string(),
            h.dif_y.to_string(),
        ];
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = writeln!(out, "version {}", self.version);
        out.push_str(HEADER_COMMENT);
        out.push('\n');
        out.push_str(ROW_COMMENT);
        out.push('\n');
        out.push_str(&header.join("\t"));
        out.push('\n');
        for row in &self.rows {
            out.push_str(&row.fields().join("\t"));
            out.push('\n');
        }
        out
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
    fn error(&mut self, column: u32, message: String) {
        self.diagnostics
            .push(Diagnostic::error(self.file, self.line, column, message));
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
                column,
                format!("{what} has {found} tab-separated fields; expected {expected}"),
            );
            return false;
        }
        if let Some(extra) = self.fields.get(expected) {
            let message = format!("{what} has {found} tab-separated fields; expected {expected}");
            if strict {
                self.error(extra.column, message);
                return false;
            }
            self.diagnostics.push(Diagnostic::warning(
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
                self.error(field.column, message);
                0
            }
        }
    }

    /// Like `int`, warning when the value is outside 0–1024.
    fn scaled(&mut self, index: usize, what: &str) -> i32 {
        let value = self.int(index, what);
        if !(0..=FULL_SCALE).contains(&value) {
            let column = self.field(index).column;
            self.diagnostics.push(Diagnostic::warning(
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
                self.error(field.column, message);
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
        let header = FscHeader {
            label: self.text(0),
            master_volume: self.scaled(1, "master volume"),
            priority: self.int(2, "priority"),
            min: self.int(3, "min"),
            max: self.int(4, "max"),
            rows: self.int(5, "rows"),
            cols: self.int(6, "cols"),
            tempo_bpm: self.int(7, "tempo"),
            beats_per_bar: self.int(8, "beats per bar"),
            sel_x: self.int(9, "SelX"),
            sel_y: self.int(10, "SelY"),
            quan_x: self.optional_int(11, "QuanX"),
            quan_y: self.optional_int(12, "QuanY"),
            dif_x: self.int(13, "DifX"),
            dif_y: self.int(14, "DifY"),
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
fn parse_decimal(text: &str) -> Option<f32> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toolchain::diag::Severity;
    use proptest::prelude::*;

    fn parse(text: &str) -> (FscScore, Vec<Diagnostic>) {
        FscScore::parse(text, Path::new("daybirds.fsc"))
    }

    fn only(diags: &[Diagnostic]) -> &Diagnostic {
        assert_eq!(diags.len(), 1, "{diags:?}");
        &diags[0]
    }

    const ROW_A: &str =
        "a1\t800\t1\t512\t512\t0\t0\t0\t0\t0\t2\t0\t0\t0\t1.0\t1.25\t0\t3\t0\tbird01.xa";
    const ROW_REST: &str = "a2\t1024\t0\t300\t512\t0\t0\t0\t0\t0\t0\t0\t0\t8\t1\t1\t0\t3\t0\tNONE";

    fn sample() -> String {
        format!(
            "version 7\r\n\
             # vol pri min max rows cols tempo BPB SelX SelY QuanX QuanY DifX DifY\r\n\
             # vol rand? LR FB …\r\n\
             score\t900\t5\t0\t10\t8\t4\t60\t4\t0\t0\t-\t2\t1\t1\r\n\
             cells\tx\r\n\
             {ROW_A}\r\n\
             # comment right after a row\r\n\
             \r\n\
             {ROW_REST}\r\n"
        )
    }

    #[test]
    fn parses_sample_exactly() {
        let (score, diags) = parse(&sample());
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(score.version, 7);
        assert_eq!(
            score.header,
            FscHeader {
                label: "score".into(),
                master_volume: 900,
                priority: 5,
                min: 0,
                max: 10,
                rows: 8,
                cols: 4,
                tempo_bpm: 60,
                beats_per_bar: 4,
                sel_x: 0,
                sel_y: 0,
                quan_x: None,
                quan_y: Some(2),
                dif_x: 1,
                dif_y: 1,
            }
        );
        assert_eq!(
            score.rows[0],
            FscRow {
                label: "a1".into(),
                volume: 800,
                jump_point: 1,
                pan_lr: 512,
                pan_fb: 512,
                loop_count: 2,
                pitch_low: 1.0,
                pitch_high: 1.25,
                group_id: 3,
                filename: "bird01.xa".into(),
                ..FscRow::default()
            }
        );
        assert!(score.rows[0].is_jump_point() && !score.rows[0].is_rest());
        assert_eq!(score.rows.len(), 2);
        assert!(score.rows[1].is_rest() && !score.rows[1].is_jump_point());
        assert_eq!(score.rows[1].probability, 8);
    }

    #[test]
    fn hash_test_is_made_on_the_line_being_read() {
        // A row right after a comment is read, and a comment right after a row is skipped.
        let text = format!(
            "version 7\nh\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\t13\t14\n#c\n{ROW_A}\n#d\n{ROW_REST}\n"
        );
        let (score, diags) = parse(&text);
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(score.rows.len(), 2);
    }

    #[test]
    fn canonical_text_round_trips() {
        let (score, _) = parse(&sample());
        let text = score.to_text();
        assert!(text.starts_with(
            "version 7\n#\tvol\tpri\tmin\tmax\trows\tcols\ttempo\tBPB\tSelX\tSelY\tQuanX\tQuanY\tDifX\tDifY\n#\tvol\trand?\t"
        ));
        assert!(text.contains("\nscore\t900\t5\t0\t10\t8\t4\t60\t4\t0\t0\t-\t2\t1\t1\n"));
        assert!(text.ends_with("\t1\t1.25\t0\t3\t0\tbird01.xa\na2\t1024\t0\t300\t512\t0\t0\t0\t0\t0\t0\t0\t0\t8\t1\t1\t0\t3\t0\tNONE\n"));
        let (back, diags) = parse(&text);
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(back, score);
    }

    #[test]
    fn wrong_field_count_is_an_error_and_the_row_skipped() {
        let short = "b1\t800\t1";
        let long = format!("{ROW_A}\textra");
        let text = format!(
            "version 7\nh\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\t13\t14\n{short}\n{long}\n{ROW_A}\t\t\n"
        );
        let (score, diags) = parse(&text);
        assert_eq!(score.rows.len(), 1, "trailing tabs are tolerated");
        assert_eq!(diags.len(), 2, "{diags:?}");
        assert_eq!(
            (diags[0].severity, diags[0].line, diags[0].column),
            (Severity::Error, 3, 9)
        );
        assert!(
            diags[0]
                .message
                .contains("has 3 tab-separated fields; expected 20")
        );
        let long_column = u32::try_from(ROW_A.chars().count() + 2).unwrap();
        assert_eq!((diags[1].line, diags[1].column), (4, long_column));
    }

    #[test]
    fn non_numbers_are_errors_at_their_columns() {
        let bad = ROW_A
            .replacen("\t512\t", "\tleft\t", 1)
            .replace("1.25", "1.2.5");
        let text = format!(
            "version 7\nh\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\t13\t14\n{bad}\n{ROW_REST}\n"
        );
        let (score, diags) = parse(&text);
        assert_eq!(score.rows.len(), 1);
        assert_eq!(diags.len(), 2, "{diags:?}");
        assert_eq!(
            (diags[0].severity, diags[0].line, diags[0].column),
            (Severity::Error, 3, 10)
        );
        assert!(
            diags[0]
                .message
                .contains("left/right pan must be a whole number, found `left`")
        );
        assert!(
            diags[1]
                .message
                .contains("pitch high must be a number, found `1.2.5`")
        );
    }

    #[test]
    fn out_of_range_volume_is_a_warning() {
        let loud = ROW_A.replacen("800", "2000", 1);
        let text = format!("version 7\nh\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\t13\t14\n{loud}\n");
        let (score, diags) = parse(&text);
        assert_eq!(score.rows[0].volume, 2000);
        let d = only(&diags);
        assert_eq!((d.severity, d.line, d.column), (Severity::Warning, 3, 4));
    }

    #[test]
    fn header_problems() {
        // Too few fields: error at the end of the line, default header kept.
        let (score, diags) = parse("version 7\nh\t1\t2\n");
        assert_eq!(score.header, FscHeader::default());
        let d = only(&diags);
        assert_eq!((d.severity, d.line, d.column), (Severity::Error, 2, 6));
        // `-` is only allowed for QuanX/QuanY.
        let (_, diags) = parse("version 7\nh\t1\t2\t3\t4\t5\t6\t7\t8\t-\t10\t-\t-\t13\t14\n");
        assert_eq!((only(&diags).line, only(&diags).column), (2, 19));
        // Extra fields: a warning.
        let (score, diags) =
            parse("version 7\nh\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\t13\t14\t15\n");
        assert_eq!(
            (only(&diags).severity, only(&diags).column),
            (Severity::Warning, 36)
        );
        assert_eq!(score.header.dif_y, 14);
        // Trailing tabs after the header are padding, not extra fields.
        let (_, diags) = parse("version 7\nh\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\t13\t14\t\t\n");
        assert!(diags.is_empty(), "{diags:?}");
        // No header at all.
        let (_, diags) = parse("version 7\n# only comments\n");
        assert_eq!((only(&diags).line, only(&diags).column), (0, 0));
        assert!(only(&diags).message.contains("no header"));
    }

    #[test]
    fn version_problems() {
        let (score, diags) =
            parse("version seven\nh\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\t13\t14\n");
        assert_eq!((only(&diags).line, only(&diags).column), (1, 9));
        assert_eq!(score.header.master_volume, 1);
        // A missing version line is reported, and the line still read as the header.
        let (score, diags) = parse("h\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\t13\t14\n");
        let d = only(&diags);
        assert_eq!((d.severity, d.line, d.column), (Severity::Error, 1, 1));
        assert_eq!((score.version, score.header.tempo_bpm), (FSC_VERSION, 7));
        assert!(d.message.contains("should be `version 7`"), "{}", d.message);
        // `version` with a missing number: reported just past the keyword, line skipped.
        let (score, diags) = parse("  version\nh\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\t13\t14\n");
        assert_eq!((only(&diags).line, only(&diags).column), (1, 10));
        assert_eq!(score.header.label, "h");
    }

    #[test]
    fn decimals() {
        assert_eq!(parse_decimal("1.0"), Some(1.0));
        assert_eq!(parse_decimal("-.5"), Some(-0.5));
        assert_eq!(parse_decimal("2."), Some(2.0));
        assert_eq!(parse_decimal("0x10"), Some(16.0));
        assert_eq!(parse_decimal("100000000000000000000"), Some(1e20));
        for bad in ["", ".", "1e5", "inf", "NaN", "1.2.3", " 1", "-", "1x"] {
            assert_eq!(parse_decimal(bad), None, "{bad:?}");
        }
    }

    fn label() -> impl Strategy<Value = String> {
        "[A-Za-z0-9_][A-Za-z0-9_ .]{0,8}[A-Za-z0-9_]"
            .prop_filter("not a cells line", |l| !l.starts_with("cells"))
    }

    fn header() -> impl Strategy<Value = FscHeader> {
        (
            label(),
            proptest::array::uniform12(any::<i32>()),
            proptest::option::of(any::<i32>()),
            proptest::option::of(any::<i32>()),
        )
            .prop_map(|(label, v, quan_x, quan_y)| FscHeader {
                label,
                master_volume: v[0],
                priority: v[1],
                min: v[2],
                max: v[3],
                rows: v[4],
                cols: v[5],
                tempo_bpm: v[6],
                beats_per_bar: v[7],
                sel_x: v[8],
                sel_y: v[9],
                quan_x,
                quan_y,
                dif_x: v[10],
                dif_y: v[11],
            })
    }

    fn finite() -> impl Strategy<Value = f32> {
        any::<f32>().prop_filter("finite", |v| v.is_finite())
    }

    fn row() -> impl Strategy<Value = FscRow> {
        (
            label(),
            proptest::array::uniform16(-5000i32..5000),
            finite(),
            finite(),
            prop_oneof![Just("NONE".to_owned()), "[a-z0-9_]{1,8}\\.(xa|wav)"],
        )
            .prop_map(|(label, v, pitch_low, pitch_high, filename)| FscRow {
                label,
                volume: v[0],
                jump_point: v[1],
                pan_lr: v[2],
                pan_fb: v[3],
                rand2: v[4],
                fade_in: v[5],
                fade_out: v[6],
                delay: v[7],
                rand3: v[8],
                loop_count: v[9],
                loop_flag: v[10],
                quantise: v[11],
                probability: v[12],
                pitch_low,
                pitch_high,
                fast: v[13],
                group_id: v[14],
                stereo: v[15],
                filename,
            })
    }

    proptest! {
        #[test]
        fn parser_never_panics(text in any::<String>()) {
            let _ = parse(&text);
        }

        #[test]
        fn tab_shaped_text_never_panics(text in "(version 7\n)?([a-z0-9#.\\-]{0,4}(\t[0-9.\\-]{0,3}){0,22}\r?\n){0,5}") {
            let _ = parse(&text);
        }

        #[test]
        fn generated_scores_round_trip(
            version in any::<u32>(),
            header in header(),
            rows in proptest::collection::vec(row(), 0..6),
        ) {
            let score = FscScore { version, header, rows };
            let (back, diags) = parse(&score.to_text());
            prop_assert!(!crate::toolchain::diag::has_errors(&diags), "{:?}", diags);
            prop_assert_eq!(back, score);
        }
    }
}
