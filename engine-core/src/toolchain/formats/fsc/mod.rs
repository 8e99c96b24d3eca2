//! `.fsc` ambience scores (hit-reference §2.8): tab-separated text with a `version` line,
//! one header data line and one 20-field note row per beat.
//!
//! Field meanings are mostly guesses (FreeSO says so), so flag-like fields are kept as
//! the integers written rather than folded to booleans; accessors give the reading
//! playback uses. Pitch low/high are `f32` because scores may write them as decimals
//! (`1.0`); every other numeric field is an `i32` (decimal or `0x` hex). A `#` line is a
//! comment wherever it appears — the test is made on the line being read (FreeSO tests
//! the wrong line, a bug not copied here).
//!
//! `read` parses a score with a diagnostic for every bad field; `write` gives its
//! canonical text.

mod read;
mod write;

#[cfg(test)]
mod tests;

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
