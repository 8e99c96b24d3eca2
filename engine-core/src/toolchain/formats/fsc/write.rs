//! The canonical text of an ambience score: the version line, the column-name
//! comments, the header line and the rows, tab-separated.

use super::{FscRow, FscScore, ROW_FIELDS};
use std::fmt::Write as _;

/// Column names of the header data line, written as a comment (wiki wording).
const HEADER_COMMENT: &str =
    "#\tvol\tpri\tmin\tmax\trows\tcols\ttempo\tBPB\tSelX\tSelY\tQuanX\tQuanY\tDifX\tDifY";
/// Column names of the note rows, written as a comment (wiki wording, its last two words
/// included although rows end at the file name).
const ROW_COMMENT: &str = "#\tvol\trand?\tLR\tFB\trand?\tfin\tfout\tdly\trand?\tloop\tloop?\t\
                           quant\tprob\tpitchL\tpitchH\tfast?\tgroupID\tstereo?\tfilename\t\
                           exclusion\tcells";

impl FscRow {
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

impl FscScore {
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
