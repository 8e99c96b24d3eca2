//! What every panel test needs: the panel, the data its context borrows, the commands
//! it emitted, in one kittest harness.

#![allow(dead_code)]

use egui_kittest::Harness;
use engine_core::host::command::{Command, parse};
use panels::{AppCommand, ContextData, Panel};

/// A panel under test.
pub struct State<P> {
    /// The panel.
    pub panel: P,
    /// What its context borrows.
    pub cx: ContextData,
    /// What it emitted, in order.
    pub commands: Vec<AppCommand>,
    /// Whatever must live as long as the harness (a temporary project folder).
    pub keep: Option<Box<dyn std::any::Any>>,
}

/// A harness of `size` drawing `panel` straight into the window's root `Ui`.
pub fn harness<P: Panel + 'static>(
    panel: P,
    cx: ContextData,
    size: egui::Vec2,
) -> Harness<'static, State<P>> {
    Harness::builder().with_size(size).build_ui_state(
        |ui, s: &mut State<P>| s.panel.ui(ui, &s.cx.context(), &mut s.commands),
        State {
            panel,
            cx,
            commands: Vec::new(),
            keep: None,
        },
    )
}

/// The same inside an `egui::CentralPanel` (margins and background of a real pane).
pub fn harness_in_panel<P: Panel + 'static>(
    panel: P,
    cx: ContextData,
    size: egui::Vec2,
) -> Harness<'static, State<P>> {
    Harness::builder().with_size(size).build_ui_state(
        |ui, s: &mut State<P>| {
            egui::CentralPanel::default().show(ui, |ui| {
                s.panel.ui(ui, &s.cx.context(), &mut s.commands);
            });
        },
        State {
            panel,
            cx,
            commands: Vec::new(),
            keep: None,
        },
    )
}

/// The engine command a panel sent, checked to print as a console line that parses back
/// to it (what the console history shows and a replay runs); `None` for any other
/// [`AppCommand`]. A panel never sends text (`RunLine` is the console's).
pub fn engine_command(command: &AppCommand) -> Option<Command> {
    match command {
        AppCommand::Run(command) => {
            let line = command.to_string();
            assert_eq!(parse(&line), Ok(Some(command.clone())), "`{line}` replays");
            Some(command.clone())
        }
        AppCommand::RunLine(line) => panic!("a panel sent text: `{line}`"),
        _ => None,
    }
}

/// The console line of an engine command a panel sent (see [`engine_command`]).
pub fn line(command: &AppCommand) -> String {
    match engine_command(command) {
        Some(command) => command.to_string(),
        None => panic!("not an engine command: {command:?}"),
    }
}
