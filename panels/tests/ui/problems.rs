//! The Problems panel under egui_kittest, on a temporary project whose source has an
//! error (an unknown instruction) and a warning (an event pointing at no track): both
//! are listed with their `file:line:col` and code, the Errors / Warnings checkboxes, the
//! code menu and the filter narrow the list, and clicking a place opens the source at its
//! line. The panel's model decides the same with every message blanked.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use engine_core::toolchain::diag::{DiagCode, Diagnostic};
use engine_core::toolchain::project::Project;
use panels::problems::codes;
use panels::{AppCommand, ContextData, ProblemsPanel};
use std::path::PathBuf;

/// A temporary project folder, removed when dropped.
struct TempProject(PathBuf);

impl Drop for TempProject {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Line 6 maps an event to a track nobody defines (a warning); line 11 holds an
/// instruction that does not exist (an error).
const SOURCE: &str = "; broken.src — a source with one error and one warning\n\
LAYOUT ts1\n\
\n\
LIST [EventMapping] step=kSndobPlay,0x500,0,0,0,0\n\
LIST [Track] 0x500=0,step,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,0,60\n\
LIST [EventMapping] ghost=kSndobPlay,0x777,0,0,0,0\n\
\n\
BINARY [\n\
step\n\
\tloadb v1 0\n\
\tfrobnicate v1\n\
\tend\n\
]\n";

const WARNING_LINE: u32 = 6;
const ERROR_LINE: u32 = 11;

use crate::common;
type State = common::State<ProblemsPanel>;

pub(crate) fn harness(tag: &str) -> Harness<'static, State> {
    let dir = std::env::temp_dir().join(format!(
        "hitbench-panel-problems-{tag}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("broken.src"), SOURCE).unwrap();
    let project = Project::load(&dir);
    let cx = ContextData {
        project,
        ..ContextData::default()
    };
    let mut harness = common::harness(ProblemsPanel::default(), cx, egui::vec2(760.0, 220.0));
    harness.state_mut().keep = Some(Box::new(TempProject(dir)));
    harness.run();
    harness
}

/// The diagnostics of the fixture: (line, column, is error), checked once so the tests
/// below say what they mean.
fn problems(state: &State) -> Vec<(u32, u32, bool)> {
    let file = state.cx.project.root().join("broken.src");
    state
        .cx
        .project
        .all_diagnostics()
        .map(|d| {
            assert_eq!(d.file, file, "{d:?}");
            (d.line, d.column, d.is_error())
        })
        .collect()
}

fn column(harness: &Harness<'_, State>, line: u32) -> u32 {
    problems(harness.state())
        .into_iter()
        .find(|(l, _, _)| *l == line)
        .map(|(_, c, _)| c)
        .unwrap()
}

#[test]
fn the_fixture_has_one_error_and_one_warning() {
    let harness = harness("fixture");
    let found = problems(harness.state());
    assert_eq!(
        found.len(),
        2,
        "{:?}",
        harness.state().cx.project.diagnostics
    );
    assert!(found.iter().any(|&(l, _, e)| l == ERROR_LINE && e));
    assert!(found.iter().any(|&(l, _, e)| l == WARNING_LINE && !e));
}

#[test]
fn both_are_listed_with_their_place() {
    let harness = harness("listed");
    harness.get_by_role_and_label(Role::CheckBox, "Errors (1)");
    harness.get_by_role_and_label(Role::CheckBox, "Warnings (1)");
    let error = format!("broken.src:{ERROR_LINE}:{}", column(&harness, ERROR_LINE));
    let warning = format!(
        "broken.src:{WARNING_LINE}:{}",
        column(&harness, WARNING_LINE)
    );
    harness.get_by_label(&error);
    harness.get_by_label(&warning);
    harness.get_by_label("error");
    harness.get_by_label("warning");
    harness.get_by_label_contains("frobnicate");
    harness.get_by_label_contains("event `ghost` refers to track");
    harness.get_by_label("[unknown-opcode]");
    harness.get_by_label("[event-without-track]");
}

#[test]
fn the_code_menu_shows_one_code() {
    let mut harness = harness("codes");
    harness.get_by_label("Code").click();
    harness.run();
    harness.get_by_label("event-without-track (1)");
    harness.get_by_label("unknown-opcode (1)").click();
    harness.run();
    assert_eq!(harness.state().panel.code, Some(DiagCode::UnknownOpcode));
    harness.get_by_label_contains("frobnicate");
    assert!(harness.query_by_label_contains("event `ghost`").is_none());
    // Back to every code.
    harness.state_mut().panel.code = None;
    harness.run();
    harness.get_by_label_contains("event `ghost`");
    // The filter finds a code's name too.
    harness.state_mut().panel.filter = "EVENT-WITHOUT".into();
    harness.run();
    harness.get_by_label_contains("event `ghost`");
    assert!(harness.query_by_label_contains("frobnicate").is_none());
}

/// What identifies a shown row without its message.
fn rows(shown: &[&Diagnostic]) -> Vec<(String, u32, u32, DiagCode, Option<String>)> {
    shown
        .iter()
        .map(|d| {
            let file = d.file.display().to_string();
            (
                file,
                d.line,
                d.column,
                d.code,
                d.subject().map(str::to_string),
            )
        })
        .collect()
}

#[test]
fn the_model_needs_no_message() {
    let harness = harness("blank");
    let all: Vec<Diagnostic> = harness
        .state()
        .cx
        .project
        .all_diagnostics()
        .cloned()
        .collect();
    let blank: Vec<Diagnostic> = all
        .iter()
        .cloned()
        .map(|mut d| {
            d.message.clear();
            d
        })
        .collect();
    assert_eq!(codes(&all), codes(&blank));
    assert_eq!(
        codes(&blank),
        [
            (DiagCode::EventWithoutTrack, 1),
            (DiagCode::UnknownOpcode, 1)
        ]
    );
    let ghost = blank
        .iter()
        .find(|d| d.code == DiagCode::EventWithoutTrack)
        .unwrap();
    assert_eq!(ghost.subject(), Some("ghost"));
    let mut settings = Vec::new();
    for code in [
        None,
        Some(DiagCode::UnknownOpcode),
        Some(DiagCode::EventWithoutTrack),
    ] {
        for (show_errors, show_warnings) in [(true, true), (true, false), (false, true)] {
            for filter in ["", "broken.src", "unknown-opcode", "ghost"] {
                settings.push(ProblemsPanel {
                    filter: filter.into(),
                    show_errors,
                    show_warnings,
                    code,
                });
            }
        }
    }
    for panel in settings {
        let with = rows(&panel.shown(&all));
        assert_eq!(with, rows(&panel.shown(&blank)), "{panel:?}");
        if panel.filter.is_empty() && panel.show_errors && panel.show_warnings {
            assert_eq!(with.len(), if panel.code.is_some() { 1 } else { 2 });
        }
    }
}

#[test]
fn the_checkboxes_and_the_filter_narrow_the_list() {
    let mut harness = harness("narrow");
    // Errors off: only the warning.
    harness
        .get_by_role_and_label(Role::CheckBox, "Errors (1)")
        .click();
    harness.run();
    assert!(!harness.state().panel.show_errors);
    assert!(harness.query_by_label_contains("frobnicate").is_none());
    harness.get_by_label_contains("event `ghost`");
    // Warnings off too: nothing left.
    harness
        .get_by_role_and_label(Role::CheckBox, "Warnings (1)")
        .click();
    harness.run();
    harness.get_by_label("No problems match the filter.");
    // Both on again, and a filter that only the error's message holds.
    harness
        .get_by_role_and_label(Role::CheckBox, "Errors (1)")
        .click();
    harness
        .get_by_role_and_label(Role::CheckBox, "Warnings (1)")
        .click();
    harness.run();
    harness.get_by_label_contains("event `ghost`");
    let filter = harness.get_by_role(Role::TextInput);
    filter.click();
    harness.run();
    harness.get_by_role(Role::TextInput).type_text("FROBNIC");
    harness.run();
    harness.get_by_label_contains("frobnicate");
    assert!(harness.query_by_label_contains("event `ghost`").is_none());
    // The file name matches both.
    harness.state_mut().panel.filter = "broken.src".into();
    harness.run();
    harness.get_by_label_contains("frobnicate");
    harness.get_by_label_contains("event `ghost`");
    assert!(harness.state().commands.is_empty(), "nothing opened");
}

#[test]
fn clicking_a_place_opens_the_source_at_its_line() {
    let mut harness = harness("open");
    let file = harness.state().cx.project.root().join("broken.src");
    let error = format!("broken.src:{ERROR_LINE}:{}", column(&harness, ERROR_LINE));
    let warning = format!(
        "broken.src:{WARNING_LINE}:{}",
        column(&harness, WARNING_LINE)
    );
    harness.get_by_label(&error).click();
    harness.run();
    harness.get_by_label(&warning).click();
    harness.run();
    assert_eq!(
        harness.state().commands,
        [
            AppCommand::OpenSource {
                path: file.clone(),
                line: ERROR_LINE,
            },
            AppCommand::OpenSource {
                path: file,
                line: WARNING_LINE,
            },
        ]
    );
}

#[test]
fn a_project_without_problems_says_so() {
    let mut harness = harness("none");
    harness.state_mut().cx.project = Project::default();
    harness.run();
    harness.get_by_label("No problems.");
    harness.get_by_role_and_label(Role::CheckBox, "Errors (0)");
}

#[test]
fn snapshot() {
    let mut harness = harness("snapshot");
    harness.remove_cursor();
    harness.run();
    harness.snapshot("problems");
}

/// In a narrow pane a long message is cut at the pane's edge (not past
/// it), and hovering it shows the whole message.
#[test]
fn a_long_message_fits_the_row_and_shows_whole_on_hover() {
    let mut harness = harness("long");
    harness.set_size(egui::vec2(380.0, 220.0));
    harness.run();
    let message = harness
        .state()
        .cx
        .project
        .all_diagnostics()
        .find(|d| d.line == WARNING_LINE)
        .map(|d| d.message.clone())
        .unwrap();
    let rows = harness.query_all_by_label(&message).count();
    assert_eq!(rows, 1, "the row shows the message (cut)");
    let row = harness.get_by_label(&message);
    assert!(
        row.rect().right() <= 380.0,
        "the message runs past the pane: {:?}",
        row.rect()
    );
    row.hover();
    harness.run();
    harness.run();
    assert_eq!(
        harness.query_all_by_label(&message).count(),
        2,
        "hovering shows the whole message"
    );
}
