//! The freshness score: reading and preparing a `.fsc` file — tempo, the step grid, one
//! playable row per note row with its sample files — with a diagnostic naming the file
//! and line for everything that is left out or replaced by a default.

use super::{ScoreSummary, stem};
use crate::runtime::clock::SampleTime;
use crate::toolchain::diag::{DiagCode, Diagnostic, Severity};
use crate::toolchain::formats::fsc::{FULL_SCALE, FscHeader, FscRow, FscScore};
use crate::world::playlist::{audio_files, is_audio};
use crate::world::sound::sample_ref;
use std::path::{Path, PathBuf};

/// Tempo used when a score's is not positive.
const DEFAULT_TEMPO: i32 = 60;
/// Beats per bar used when a score's are not positive.
const DEFAULT_BEATS_PER_BAR: i32 = 4;

/// When a row may play.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Daytime {
    Always,
    Day,
    Night,
}

/// Whose freshness memory a pick uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Kind {
    /// Rows sharing a non-zero group ID.
    Group(i32),
    /// A row of its own.
    Row(usize),
}

/// A note row, read for playback.
#[derive(Debug, Clone)]
pub(super) struct Row {
    /// Field 0.
    pub(super) name: String,
    /// The sample label (file name field).
    pub(super) files: Vec<PathBuf>,
    pub(super) kind: Kind,
    pub(super) group: i32,
    pub(super) volume: f32,
    pub(super) pan_lr: f32,
    pub(super) pan_fb: f32,
    pub(super) scatter: f32,
    pub(super) fade_in_ms: u32,
    pub(super) fade_out_ms: u32,
    pub(super) step: u32,
    pub(super) every: u32,
    pub(super) jitter_ms: u32,
    pub(super) hold: u64,
    pub(super) looping: bool,
    pub(super) probability: i32,
    pub(super) pitch: (f32, f32),
    pub(super) stereo: bool,
    pub(super) daytime: Daytime,
}

/// A loaded score.
#[derive(Debug, Clone)]
pub(super) struct Score {
    pub(super) summary: ScoreSummary,
    pub(super) master: f32,
    pub(super) rows: Vec<Row>,
    pub(super) grid: Grid,
}

/// The step grid: step `k` starts at `round(k × num / den)` samples.
#[derive(Debug, Clone, Copy)]
pub(super) struct Grid {
    pub(super) num: u128,
    pub(super) den: u128,
}

impl Grid {
    pub(super) fn step_time(&self, k: u64) -> SampleTime {
        let t = (u128::from(k) * self.num + self.den / 2) / self.den;
        u64::try_from(t).map_or(SampleTime::MAX, SampleTime::from_samples)
    }

    /// The first step starting at or after `t`.
    pub(super) fn first_step_at(&self, t: SampleTime) -> u64 {
        let guess = u128::from(t.samples()) * self.den / self.num;
        let mut k = u64::try_from(guess).unwrap_or(u64::MAX / 2);
        while k > 0 && self.step_time(k - 1) >= t {
            k -= 1;
        }
        while self.step_time(k) < t {
            k += 1;
        }
        k
    }
}

/// Reads, parses and prepares a score; `None` (with diagnostics) if it cannot be used.
pub(super) fn load_score(
    file: &Path,
    dirs: &[PathBuf],
    rate: u32,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Score> {
    let bytes = match crate::toolchain::fsrules::ReadRules::within(dirs).read(file) {
        Ok(bytes) => bytes,
        Err(e) => {
            diagnostics.push(Diagnostic::error(
                e.code(),
                file,
                0,
                0,
                format!(
                    "cannot read the ambience score: it {}; the ambience plays no score",
                    e.reason()
                ),
            ));
            return None;
        }
    };
    let text = String::from_utf8_lossy(&bytes);
    let (fsc, problems) = FscScore::parse(&text, file);
    let broken_header = fsc.header == FscHeader::default()
        && problems.iter().any(|d| d.severity == Severity::Error);
    diagnostics.extend(problems);
    if broken_header {
        diagnostics.push(Diagnostic::error(
            DiagCode::BadHeader,
            file,
            0,
            0,
            "the score has no usable header line; the ambience plays no score",
        ));
        return None;
    }
    let header = &fsc.header;
    let (tempo, beats) = tempo_and_beats(header, &text, file, diagnostics);
    let steps = u32::try_from(header.cols)
        .ok()
        .filter(|c| *c > 0)
        .unwrap_or(beats.unsigned_abs());
    let rows = score_rows(&fsc, &text, file, dirs, steps, diagnostics);
    let step_num = u128::from(rate) * 60 * u128::from(beats.unsigned_abs());
    let step_den = u128::from(tempo.unsigned_abs()) * u128::from(steps);
    Some(Score {
        summary: ScoreSummary {
            file: file.to_path_buf(),
            label: header.label.clone(),
            tempo_bpm: tempo,
            beats_per_bar: beats,
            steps_per_bar: steps,
            step_seconds: 60.0 * f64::from(beats) / (f64::from(tempo) * f64::from(steps)),
            rows: rows.len(),
        },
        master: header.master_volume as f32 / FULL_SCALE as f32,
        rows,
        grid: Grid {
            num: step_num,
            den: step_den,
        },
    })
}

/// The header's tempo and beats per bar, a default (with a warning) for each that is not
/// positive.
fn tempo_and_beats(
    header: &FscHeader,
    text: &str,
    file: &Path,
    diagnostics: &mut Vec<Diagnostic>,
) -> (i32, i32) {
    let tempo = if header.tempo_bpm > 0 {
        header.tempo_bpm
    } else {
        diagnostics.push(Diagnostic::warning(
            DiagCode::NumberOutOfRange,
            file,
            header_line(text),
            0,
            format!(
                "tempo {} is not positive; {DEFAULT_TEMPO} beats per minute is used",
                header.tempo_bpm
            ),
        ));
        DEFAULT_TEMPO
    };
    let beats = if header.beats_per_bar > 0 {
        header.beats_per_bar
    } else {
        diagnostics.push(Diagnostic::warning(
            DiagCode::NumberOutOfRange,
            file,
            header_line(text),
            0,
            format!(
                "{} beats per bar is not positive; {DEFAULT_BEATS_PER_BAR} are used",
                header.beats_per_bar
            ),
        ));
        DEFAULT_BEATS_PER_BAR
    };
    (tempo, beats)
}

/// The playable rows of a score: rests are left out, and so are rows without audio files
/// (a warning); a row with files outside the data directories is kept with a warning.
fn score_rows(
    fsc: &FscScore,
    text: &str,
    file: &Path,
    dirs: &[PathBuf],
    steps: u32,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<Row> {
    let score_dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let lines = row_lines(text, fsc);
    let mut rows = Vec::new();
    for (index, (row, line)) in fsc.rows.iter().zip(lines).enumerate() {
        if row.is_rest() {
            continue;
        }
        let files = label_files(&score_dir, &row.filename);
        if files.is_empty() {
            diagnostics.push(Diagnostic::warning(
                DiagCode::MissingSample,
                file,
                line,
                0,
                format!(
                    "row `{}`: no audio file matches `{}` in {}; the row rests",
                    row.label,
                    row.filename,
                    score_dir.display()
                ),
            ));
            continue;
        }
        let outside: Vec<&PathBuf> = files
            .iter()
            .filter(|f| sample_ref(f, dirs).is_none())
            .collect();
        if let Some(first) = outside.first() {
            diagnostics.push(Diagnostic::warning(
                DiagCode::SampleOutsideData,
                file,
                line,
                0,
                format!(
                    "row `{}`: {} is outside the project's data directories and cannot play",
                    row.label,
                    first.display()
                ),
            ));
        }
        rows.push(playable_row(row, index, files, steps));
    }
    rows
}

/// A note row of the score as it plays: its files, its kind, and its fields in the units
/// the player uses.
fn playable_row(row: &FscRow, index: usize, files: Vec<PathBuf>, steps: u32) -> Row {
    let pitch = |p: f32| if p > 0.0 && p.is_finite() { p } else { 0.0 };
    let (mut lo, mut hi) = (pitch(row.pitch_low), pitch(row.pitch_high));
    if lo == 0.0 {
        lo = if hi > 0.0 { hi } else { 1.0 };
    }
    if hi == 0.0 {
        hi = lo;
    }
    let lower = row.label.to_ascii_lowercase();
    let ms = |v: i32| u32::try_from(v).unwrap_or(0);
    Row {
        name: if row.label.is_empty() {
            row.filename.clone()
        } else {
            row.label.clone()
        },
        files,
        kind: if row.group_id != 0 {
            Kind::Group(row.group_id)
        } else {
            Kind::Row(index)
        },
        group: row.group_id,
        volume: row.volume as f32 / FULL_SCALE as f32,
        pan_lr: row.pan_lr as f32,
        pan_fb: row.pan_fb as f32,
        scatter: row.rand2.max(0) as f32,
        fade_in_ms: ms(row.fade_in),
        fade_out_ms: ms(row.fade_out),
        step: u32::try_from(i64::from(row.delay).rem_euclid(i64::from(steps))).unwrap_or(0),
        every: ms(row.quantise),
        jitter_ms: ms(row.rand3),
        hold: u64::from(ms(row.loop_count)) + 1,
        looping: row.loop_flag != 0,
        probability: row.probability,
        pitch: (lo.min(hi), lo.max(hi)),
        stereo: row.stereo != 0,
        daytime: if lower.starts_with("night") {
            Daytime::Night
        } else if lower.starts_with("day") {
            Daytime::Day
        } else {
            Daytime::Always
        },
    }
}

/// Fields of a text line, tab-separated, without a trailing `\r`.
fn line_fields(line: &str) -> Vec<&str> {
    line.trim_end_matches('\r').split('\t').collect()
}

/// The 1-based line of the header data line (0 if not found).
fn header_line(text: &str) -> u32 {
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with('#') && !t.to_ascii_lowercase().starts_with("version")
        })
        .map(|(n, _)| u32::try_from(n + 1).unwrap_or(0))
        .next()
        .unwrap_or(0)
}

/// The 1-based line of each parsed row (rows come in file order; 0 if not found).
fn row_lines(text: &str, score: &FscScore) -> Vec<u32> {
    let lines: Vec<&str> = text.lines().collect();
    let mut cursor = usize::try_from(header_line(text)).unwrap_or(0);
    score
        .rows
        .iter()
        .map(|row| {
            let found = lines.iter().enumerate().skip(cursor).find(|(_, l)| {
                let fields = line_fields(l);
                fields.first() == Some(&row.label.as_str())
                    && fields.get(19) == Some(&row.filename.as_str())
            });
            match found {
                Some((n, _)) => {
                    cursor = n + 1;
                    u32::try_from(n + 1).unwrap_or(0)
                }
                None => 0,
            }
        })
        .collect()
}

/// The audio files a sample label names, sorted: the file itself if it exists next to
/// the score; else the files next to it whose stem starts with the label (any case), and
/// every audio file of a sub-directory named like the label.
fn label_files(score_dir: &Path, label: &str) -> Vec<PathBuf> {
    let relative = label.trim().replace('\\', "/");
    if relative.is_empty() {
        return Vec::new();
    }
    let exact = score_dir.join(&relative);
    if exact.is_file() && is_audio(&exact) {
        return vec![exact];
    }
    let path = Path::new(&relative);
    let parent = path
        .parent()
        .map_or_else(|| score_dir.to_path_buf(), |p| score_dir.join(p));
    let prefix = path
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().to_ascii_lowercase());
    if prefix.is_empty() {
        return Vec::new();
    }
    let mut files: Vec<PathBuf> = audio_files(&parent)
        .unwrap_or_default()
        .into_iter()
        .filter(|f| stem(f).to_ascii_lowercase().starts_with(&prefix))
        .collect();
    if let Some(dir_name) = path.file_stem() {
        let sub = parent.join(dir_name);
        if sub.is_dir() {
            files.extend(audio_files(&sub).unwrap_or_default());
        }
    }
    files.sort();
    files.dedup();
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_do_not_drift() {
        let score = Grid {
            num: 44_100 * 60 * 3,
            den: 7 * 5,
        };
        for t in [0, 1, 226_799, 226_800, 226_801, 10_000_000] {
            let k = score.first_step_at(SampleTime::from_samples(t));
            assert!(score.step_time(k) >= SampleTime::from_samples(t));
            assert!(k == 0 || score.step_time(k - 1) < SampleTime::from_samples(t));
        }
        // 35 steps = 7 bars of 3 beats at 7 bpm = 3 minutes exactly.
        assert_eq!(score.step_time(35), SampleTime::from_samples(44_100 * 180));
    }
}
