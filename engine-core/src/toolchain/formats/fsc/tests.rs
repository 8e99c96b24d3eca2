//! Tests of the ambience score reader and writer: the sample score, field counts,
//! bad numbers, the version line, and generated scores that round-trip.

use super::read::parse_decimal;
use super::*;
use crate::toolchain::diag::{Diagnostic, Severity};
use proptest::prelude::*;
use std::path::Path;

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
    let text =
        format!("version 7\nh\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\t13\t14\n{bad}\n{ROW_REST}\n");
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
    let (score, diags) = parse("version 7\nh\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\t13\t14\t15\n");
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
    let (score, diags) = parse("version seven\nh\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\t13\t14\n");
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
        .prop_map(|(label, values, quan_x, quan_y)| {
            let [
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
                dif_x,
                dif_y,
            ] = values;
            FscHeader {
                label,
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
            }
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
