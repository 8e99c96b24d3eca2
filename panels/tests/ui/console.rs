//! The console panel under egui_kittest: typing a line and pressing Enter emits it as a
//! command; replies show under the input's history.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use engine_core::toolchain::project::Project;
use panels::{AppCommand, ConsoleEntry, ConsolePanel, ContextData};

use crate::common;
type State = common::State<ConsolePanel>;

fn harness(console: Vec<ConsoleEntry>) -> Harness<'static, State> {
    harness_with(console, Project::default())
}

fn harness_with(console: Vec<ConsoleEntry>, project: Project) -> Harness<'static, State> {
    let cx = ContextData {
        project,
        console,
        ..ContextData::default()
    };
    common::harness(ConsolePanel::default(), cx, egui::vec2(600.0, 300.0))
}

#[test]
fn enter_runs_the_typed_line() {
    let mut harness = harness(Vec::new());
    harness.run();
    let input = harness.get_by_role(egui::accesskit::Role::TextInput);
    input.click();
    harness.run();
    harness
        .get_by_role(egui::accesskit::Role::TextInput)
        .type_text("sev vox greet @2");
    harness.run();
    harness.key_press(egui::Key::Enter);
    harness.run();
    assert_eq!(
        harness.state().commands,
        [AppCommand::RunLine("sev vox greet @2".into())]
    );
}

#[test]
fn replies_and_errors_are_shown() {
    let mut harness = harness(vec![
        ConsoleEntry::answered("world", Ok("camera (10.00, 10.00) zoom 1".into())),
        ConsoleEntry::answered("sev nothing", Err("unknown event `nothing`".into())),
    ]);
    harness.run();
    harness.get_by_label_contains("camera (10.00, 10.00) zoom 1");
    harness.get_by_label_contains("unknown event `nothing`");
}

fn demo() -> Project {
    Project::load(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/demo"))
}

#[test]
fn event_names_complete_with_fuzzy_matching_and_tab() {
    let mut harness = harness_with(Vec::new(), demo());
    harness.run();
    harness
        .get_by_role(egui::accesskit::Role::TextInput)
        .click();
    harness.run();
    harness
        .get_by_role(egui::accesskit::Role::TextInput)
        .type_text("sev ui mnyb @2");
    harness.run();
    // The suggestion is shown as the event's name…
    harness.get_by_label("ui_moneyback");
    // …and Tab takes it, keeping the object.
    harness.key_press(egui::Key::Tab);
    harness.run();
    assert_eq!(harness.state().panel.input, "sev ui_moneyback @2");
    harness.key_press(egui::Key::Enter);
    harness.run();
    assert_eq!(
        harness.state().commands,
        [AppCommand::RunLine("sev ui_moneyback @2".into())]
    );
}

#[test]
fn command_words_complete_and_clicking_a_suggestion_takes_it() {
    let mut harness = harness_with(Vec::new(), demo());
    harness.run();
    harness
        .get_by_role(egui::accesskit::Role::TextInput)
        .click();
    harness.run();
    harness
        .get_by_role(egui::accesskit::Role::TextInput)
        .type_text("quie");
    harness.run();
    harness.get_by_label("quietall").click();
    harness.run();
    assert_eq!(harness.state().panel.input, "quietall ");
}

#[test]
fn completions_follow_the_grammar() {
    let project = demo();
    let c = panels::console::completions("sev vox gre", &project);
    assert_eq!(c.first().map(String::as_str), Some("sev vox_greet"));
    assert!(panels::console::completions("volume fx", &project).is_empty());
    assert!(panels::console::completions("", &project).is_empty());
    let words = panels::console::completions("tur", &project);
    assert!(words.contains(&"turnon ".to_string()), "{words:?}");
    let c = panels::console::completions("why vox gre", &project);
    assert_eq!(c.first().map(String::as_str), Some("why vox_greet"));
    let words = panels::console::completions("wh", &project);
    assert!(words.contains(&"why ".to_string()), "{words:?}");
}

#[test]
fn keys_typed_after_enter_in_the_same_frame_are_kept() {
    let mut harness = harness(Vec::new());
    harness.run();
    harness
        .get_by_role(egui::accesskit::Role::TextInput)
        .click();
    harness.run();
    // One slow frame: a line, Enter and the start of the next line arrive together.
    harness.event(egui::Event::Text("quietall".into()));
    harness.key_press(egui::Key::Enter);
    harness.event(egui::Event::Text("help".into()));
    harness.run();
    harness.run();
    assert_eq!(
        harness.state().commands,
        [AppCommand::RunLine("quietall".into())]
    );
    assert_eq!(harness.state().panel.input, "help");
}

/// The demo's live snapshot, for completions that know the lot.
fn demo_world() -> engine_core::world::director::WorldView {
    use engine_core::host::session::{Session, SessionConfig};
    use engine_core::sound::mixer::{MixerConfig, mixer};
    let (handle, _mixer) = mixer(MixerConfig::default());
    let session = Session::new(demo(), handle, SessionConfig::default());
    session.world.view(&session.engine)
}

/// U3: Tab keeps the keyboard and goes round the suggestions (Shift+Tab back); objects
/// complete after `@` by ID or name, music modes after `mode`, trace kinds after
/// `trace`; Enter brings the newest reply into view.
#[test]
fn tab_cycles_and_objects_modes_and_traces_complete() {
    let project = demo();
    let world = demo_world();
    let names: Vec<String> = panels::console::suggestions("sev vox greet @bet", &project, &world)
        .into_iter()
        .map(|c| c.line)
        .collect();
    assert_eq!(
        names.first().map(String::as_str),
        Some("sev vox greet @2 "),
        "{names:?}"
    );
    let by_id = panels::console::suggestions("quiet @9", &project, &world);
    assert!(by_id.is_empty(), "an exact ID needs nothing: {by_id:?}");
    let modes = panels::console::suggestions("mode bu", &project, &world);
    assert!(modes.iter().any(|c| c.line == "mode buy "), "{modes:?}");
    let kinds = panels::console::suggestions("trace sam", &project, &world);
    assert_eq!(
        kinds.first().map(|c| c.line.as_str()),
        Some("trace samples ")
    );
    let on = panels::console::suggestions("trace samples o", &project, &world);
    assert!(on.iter().any(|c| c.line == "trace samples on "), "{on:?}");
    // Paths where a command takes one, relative to the project folder.
    let samples = panels::console::suggestions("play click_kn", &project, &world);
    assert_eq!(
        samples.first().map(|c| c.line.as_str()),
        Some("play sounds/ui/click_knock.wav "),
        "{samples:?}"
    );
    let sources = panels::console::suggestions("break bab", &project, &world);
    assert_eq!(
        sources.first().map(|c| c.line.as_str()),
        Some("break baby.src:"),
        "the line number follows the colon: {sources:?}"
    );
    let lots = panels::console::suggestions("savelot ", &project, &world);
    assert!(
        lots.iter().any(|c| c.line.ends_with(".lot ")),
        "the project's lot file: {lots:?}"
    );

    // In the panel: Tab, Tab, Shift+Tab go round; the input keeps the keyboard.
    let mut harness = harness_with(Vec::new(), project);
    harness.run();
    let input = harness.get_by_role(egui::accesskit::Role::TextInput);
    input.click();
    harness.run();
    harness
        .get_by_role(egui::accesskit::Role::TextInput)
        .type_text("sev vox");
    harness.run();
    harness.key_press(egui::Key::Tab);
    harness.run();
    let first = harness.state().panel.input.clone();
    harness.key_press(egui::Key::Tab);
    harness.run();
    let second = harness.state().panel.input.clone();
    assert_ne!(first, second, "Tab goes on to the next suggestion");
    harness.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::Tab);
    harness.run();
    assert_eq!(harness.state().panel.input, first, "Shift+Tab goes back");
    assert!(
        harness
            .get_by_role(egui::accesskit::Role::TextInput)
            .is_focused(),
        "the input kept the keyboard"
    );
}
