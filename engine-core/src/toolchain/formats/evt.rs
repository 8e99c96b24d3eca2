//! `.evt` TSO event lists (hit-reference §2.2): comma-separated lines
//! `name, event type, track ID, 0, 0, 0, 0`.
//!
//! Numbers are read as FreeSO reads them (`0x…` hex, decimal, and anything containing
//! a–f as hex), so a symbolic name made only of hex letters (say `face`) reads as a
//! number. Event names match ignoring ASCII case; when a name repeats, the first line
//! wins (TSO's first file to define a name wins) and the repeat is reported.

use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::toolchain::formats::number::parse_int_lenient_hex;
pub use crate::toolchain::formats::text::IdRef;
use crate::toolchain::formats::text::{
    Field, char_count, is_identifier, numbered_lines, split_fields,
};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

/// How many trailing numbers a line normally has (all zero in shipped files).
pub const USUAL_EXTRA_FIELDS: usize = 4;

/// One line of an event list.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EvtEvent {
    /// The event name as spelled in the file.
    pub name: String,
    /// Event type (`kSndobPlay` = 1, `kTurnOnTV`, `kSetMusicMode`, 0x7DBD9F3A for kill_all…).
    pub event_type: IdRef,
    /// Track ID (or a TV/radio station code, or a music mode).
    pub track_id: IdRef,
    /// The trailing numbers, as many as were given (normally four zeros).
    pub extra: Vec<i64>,
    /// 1-based line it was read from.
    pub line: u32,
}

impl EvtEvent {
    /// The lookup key: the name in ASCII lower case, as FreeSO folds it.
    pub fn key(&self) -> String {
        self.name.to_ascii_lowercase()
    }
}

/// A parsed event list, in file order.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct EvtFile {
    /// Every event read, repeats included.
    pub events: Vec<EvtEvent>,
}

impl EvtFile {
    /// Parses an event list (CRLF or LF), reporting every bad line and keeping the rest.
    pub fn parse(text: &str, file: &Path) -> (EvtFile, Vec<Diagnostic>) {
        let mut out = EvtFile::default();
        let mut diagnostics = Vec::new();
        let mut first_lines: HashMap<String, u32> = HashMap::new();
        for (line, content) in numbered_lines(text) {
            if content.trim().is_empty() {
                continue;
            }
            let Some(event) = parse_line(content, line, file, &mut diagnostics) else {
                continue;
            };
            if let Some(first) = first_lines.get(&event.key()) {
                diagnostics.push(
                    Diagnostic::warning(
                        DiagCode::DuplicateKey,
                        file,
                        line,
                        1,
                        format!(
                            "event `{}` is already defined on line {first}; the first \
                             definition is used",
                            event.name
                        ),
                    )
                    .with_subject(event.name.clone()),
                );
            } else {
                first_lines.insert(event.key(), line);
            }
            out.events.push(event);
        }
        (out, diagnostics)
    }

    /// The first event called `name`, ignoring ASCII case.
    pub fn get(&self, name: &str) -> Option<&EvtEvent> {
        self.events
            .iter()
            .find(|event| event.name.eq_ignore_ascii_case(name))
    }

    /// The list as `name,type,track,extra…` lines with CRLF endings. Names should hold no
    /// comma or line break and no surrounding spaces to read back the same.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for event in &self.events {
            // Writing into a String cannot fail.
            let _ = write!(
                out,
                "{},{},{}",
                event.name, event.event_type, event.track_id
            );
            for value in &event.extra {
                let _ = write!(out, ",{value}");
            }
            out.push_str("\r\n");
        }
        out
    }
}

/// One non-blank line; `None` (with a diagnostic) if it cannot be used.
/// Reads a field as FreeSO would: a number if it reads as one (lenient hex), else a name
/// of the form `[A-Za-z_][A-Za-z0-9_]*`; `None` for anything else.
fn parse_id_ref(text: &str) -> Option<IdRef> {
    if let Some(value) = parse_int_lenient_hex(text) {
        Some(IdRef::Number(value))
    } else if is_identifier(text) {
        Some(IdRef::Name(text.to_owned()))
    } else {
        None
    }
}

fn parse_line(
    content: &str,
    line: u32,
    file: &Path,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<EvtEvent> {
    let mut fields: Vec<Field<'_>> = split_fields(content, ',').collect();
    // Spreadsheets often leave trailing commas; empty fields at the end mean nothing.
    while fields.last().is_some_and(|f| f.text.is_empty()) {
        fields.pop();
    }
    let end_column = char_count(content).saturating_add(1);
    let error = |code: DiagCode, column: u32, message: String| {
        Diagnostic::error(code, file, line, column, message)
    };
    let name = fields.first()?;
    if name.text.is_empty() {
        diagnostics.push(error(
            DiagCode::EmptyField,
            name.column,
            "event name is empty".to_owned(),
        ));
        return None;
    }
    let id_field = |index: usize, what: &str| -> Result<IdRef, Diagnostic> {
        let Some(field) = fields.get(index) else {
            return Err(error(
                DiagCode::MissingField,
                end_column,
                format!(
                    "event `{}` has no {what}; expected `name, event type, track ID, 0, 0, 0, 0`",
                    name.text
                ),
            ));
        };
        parse_id_ref(field.text).ok_or_else(|| {
            error(
                DiagCode::BadNumber,
                field.column,
                format!("{what} must be a number or a name, found `{}`", field.text),
            )
        })
    };
    let ids = id_field(1, "event type").and_then(|t| Ok((t, id_field(2, "track ID")?)));
    let (event_type, track_id) = match ids {
        Ok(ids) => ids,
        Err(d) => {
            diagnostics.push(d);
            return None;
        }
    };
    let mut extra = Vec::new();
    let mut bad = false;
    for field in fields.iter().skip(3) {
        match parse_int_lenient_hex(field.text) {
            Some(value) => extra.push(value),
            None => {
                let (code, message) = if field.text.is_empty() {
                    (
                        DiagCode::EmptyField,
                        "empty field between numbers".to_owned(),
                    )
                } else {
                    (
                        DiagCode::BadNumber,
                        format!("`{}` is not a number", field.text),
                    )
                };
                diagnostics.push(error(code, field.column, message));
                bad = true;
            }
        }
    }
    if bad {
        return None;
    }
    if let Some(surplus) = fields.get(3 + USUAL_EXTRA_FIELDS) {
        diagnostics.push(Diagnostic::warning(
            DiagCode::ExtraField,
            file,
            line,
            surplus.column,
            format!("more than the usual {USUAL_EXTRA_FIELDS} trailing numbers; kept but unused"),
        ));
    }
    Some(EvtEvent {
        name: name.text.to_owned(),
        event_type,
        track_id,
        extra,
        line,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toolchain::diag::Severity;
    use proptest::prelude::*;

    fn parse(text: &str) -> (EvtFile, Vec<Diagnostic>) {
        EvtFile::parse(text, Path::new("tsov2.evt"))
    }

    fn only(diags: &[Diagnostic]) -> &Diagnostic {
        assert_eq!(diags.len(), 1, "{diags:?}");
        &diags[0]
    }

    const SAMPLE: &str = "ui_click,0x1,0x4F85,0,0,0,0\r\n\
                          \r\n\
                          Lot_Enter, kSndobPlay , 20357, 0, 0, 0, 0\r\n\
                          kill_all,0x7DBD9F3A,0,0,0,0,0\r\n\
                          radio_kroc,30,KROC\n\
                          tv_on,1e,4a\r\n";

    #[test]
    fn parses_sample() {
        let (evt, diags) = parse(SAMPLE);
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(
            evt.events[1],
            EvtEvent {
                name: "Lot_Enter".into(),
                event_type: IdRef::Name("kSndobPlay".into()),
                track_id: IdRef::Number(20357),
                extra: vec![0, 0, 0, 0],
                line: 3,
            }
        );
        assert_eq!(evt.events[0].track_id, IdRef::Number(0x4F85));
        assert_eq!(evt.events[2].event_type, IdRef::Number(0x7DBD_9F3A));
        assert_eq!(evt.events[3].track_id, IdRef::Name("KROC".into()));
        assert!(evt.events[3].extra.is_empty());
        // Letters a–f make a value hex, as in FreeSO.
        assert_eq!(
            (&evt.events[4].event_type, &evt.events[4].track_id),
            (&IdRef::Number(0x1e), &IdRef::Number(0x4a))
        );
    }

    #[test]
    fn lookup_ignores_case() {
        let (evt, _) = parse(SAMPLE);
        let event = evt.get("LOT_ENTER").unwrap();
        assert_eq!((event.line, event.key().as_str()), (3, "lot_enter"));
        assert!(evt.get("nope").is_none());
        let play = |name: &str| (name == "kSndobPlay").then_some(1);
        assert_eq!(event.event_type.resolve(play), Some(1));
    }

    #[test]
    fn duplicate_is_a_warning_and_first_wins() {
        let (evt, diags) = parse("a,1,10\nB,1,20\nA,1,30\n");
        assert_eq!(evt.events.len(), 3);
        assert_eq!(
            evt.get("a").map(|e| e.track_id.clone()),
            Some(IdRef::Number(10))
        );
        let d = only(&diags);
        assert_eq!((d.severity, d.line, d.column), (Severity::Warning, 3, 1));
        assert!(
            d.message.contains("already defined on line 1"),
            "{}",
            d.message
        );
    }

    #[test]
    fn missing_track_is_an_error_at_line_end() {
        let (evt, diags) = parse("x,1,2\nlonely, 1\n");
        assert_eq!(evt.events.len(), 1);
        let d = only(&diags);
        assert_eq!((d.severity, d.line, d.column), (Severity::Error, 2, 10));
        assert!(d.message.contains("no track ID"), "{}", d.message);
        let (_, diags) = parse("lonely");
        assert!(only(&diags).message.contains("no event type"));
    }

    #[test]
    fn empty_name_is_an_error() {
        let (evt, diags) = parse(" ,1,2\r\n");
        assert!(evt.events.is_empty());
        let d = only(&diags);
        assert_eq!((d.severity, d.line, d.column), (Severity::Error, 1, 2));
    }

    #[test]
    fn bad_id_is_an_error_at_its_column() {
        let (evt, diags) = parse("a, 1, 12-3, 0\nb,1,2");
        assert_eq!(evt.events.len(), 1);
        let d = only(&diags);
        assert_eq!((d.severity, d.line, d.column), (Severity::Error, 1, 7));
        assert!(d.message.contains("track ID must be"), "{}", d.message);
    }

    #[test]
    fn bad_extra_number_is_an_error_and_the_line_skipped() {
        let (evt, diags) = parse("a,1,2,0,zz,0,0\n");
        assert!(evt.events.is_empty());
        let d = only(&diags);
        assert_eq!((d.severity, d.column), (Severity::Error, 9));
        let (_, diags) = parse("a,1,2,0,,0");
        assert_eq!(only(&diags).column, 9);
        assert!(only(&diags).message.contains("empty field"));
    }

    #[test]
    fn trailing_commas_are_ignored_and_surplus_numbers_kept_with_warning() {
        let (evt, diags) = parse("a,1,2,0,0,,\nb,1,2,0,0,0,0,9\n");
        assert_eq!(evt.events[0].extra, vec![0, 0]);
        assert_eq!(evt.events[1].extra, vec![0, 0, 0, 0, 9]);
        let d = only(&diags);
        assert_eq!((d.severity, d.line, d.column), (Severity::Warning, 2, 15));
    }

    #[test]
    fn writer_uses_crlf_and_round_trips() {
        let (evt, _) = parse(SAMPLE);
        let text = evt.to_text();
        assert!(
            text.starts_with("ui_click,1,20357,0,0,0,0\r\nLot_Enter,kSndobPlay,20357,0,0,0,0\r\n")
        );
        let (back, diags) = parse(&text);
        assert!(diags.is_empty(), "{diags:?}");
        let strip = |f: &EvtFile| {
            f.events
                .iter()
                .map(|e| EvtEvent {
                    line: 0,
                    ..e.clone()
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(strip(&back), strip(&evt));
    }

    fn id_ref() -> impl Strategy<Value = IdRef> {
        prop_oneof![
            // `parse_int` cannot read i64::MIN (its magnitude overflows), so it is left out.
            ((i64::MIN + 1)..=i64::MAX).prop_map(IdRef::Number),
            // Names with a letter outside a–f, so they cannot read as hex.
            "k[A-Za-z0-9_]{0,12}".prop_map(IdRef::Name),
        ]
    }

    fn event() -> impl Strategy<Value = EvtEvent> {
        (
            "[a-zA-Z_][a-zA-Z0-9_ .]{0,12}[a-zA-Z0-9_]",
            id_ref(),
            id_ref(),
            proptest::collection::vec(-1000i64..1000, 0..6),
        )
            .prop_map(|(name, event_type, track_id, extra)| EvtEvent {
                name,
                event_type,
                track_id,
                extra,
                line: 0,
            })
    }

    proptest! {
        #[test]
        fn parser_never_panics(text in any::<String>()) {
            let _ = parse(&text);
        }

        #[test]
        fn csv_shaped_text_never_panics(text in "([a-z0-9x ,]{0,20}\r?\n){0,5}") {
            let _ = parse(&text);
        }

        #[test]
        fn generated_lists_round_trip(events in proptest::collection::vec(event(), 0..10)) {
            // Give each event a distinct name and the line the writer puts it on.
            let events: Vec<_> = events
                .into_iter()
                .enumerate()
                .map(|(i, e)| EvtEvent { name: format!("{}{i}", e.name), line: u32::try_from(i + 1).unwrap(), ..e })
                .collect();
            let evt = EvtFile { events };
            let (back, diags) = parse(&evt.to_text());
            prop_assert!(!crate::toolchain::diag::has_errors(&diags), "{:?}", diags);
            prop_assert_eq!(back, evt);
        }
    }
}
