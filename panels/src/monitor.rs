//! Mute and solo in the panels (`docs/tuning.md`): the M and S toggles the Mixer (per
//! option group), the Voices panel (per slot), the Lot view (per object) and the
//! Properties panel (per track) show, and the banner that says what is muted and soloed
//! with its one **Clear all** — shown in the status bar whenever monitoring is on, so
//! nobody wonders why something is silent. Monitoring is a listening state: the panels
//! send `mute`, `solo` and `monitor clear` commands and never save it anywhere.

use crate::{AppCommand, theme};
use engine_core::host::command::{Command, MonitorCommand};
use engine_core::sound::server::{MonitorState, MonitorTarget};

/// The M and S toggles for `target` (their accessible names: "Mute fx", "Solo voice 3").
pub fn toggles(
    ui: &mut egui::Ui,
    state: &MonitorState,
    target: MonitorTarget,
    commands: &mut Vec<AppCommand>,
) {
    for (solo, letter, colour) in [(false, "M", theme::MUTED), (true, "S", theme::SOLOED)] {
        let on = if solo {
            state.soloed.contains(&target)
        } else {
            state.muted.contains(&target)
        };
        let verb = if solo { "Solo" } else { "Mute" };
        let text = egui::RichText::new(letter).small().strong();
        let text = if on {
            text.color(theme::LIT_TEXT)
        } else {
            text
        };
        let mut button = egui::Button::new(text)
            .small()
            .min_size(egui::vec2(18.0, 0.0));
        if on {
            button = button.fill(colour);
        }
        let response = ui.add(button);
        let name = format!("{verb} {target}");
        response.widget_info(|| egui::WidgetInfo::selected(egui::Role::Button, true, on, &name));
        let tip = match (solo, on) {
            (false, false) => {
                format!("mute {target}: silence it while you listen (nothing is saved)")
            }
            (false, true) => format!("{target} is muted: click to hear it again"),
            (true, false) => format!("solo {target}: hear only what is soloed"),
            (true, true) => format!("{target} is soloed: click to unsolo it"),
        };
        if response.on_hover_text(tip).clicked() {
            commands.push(AppCommand::Run(Command::Monitor(MonitorCommand::Set {
                solo,
                target,
                on: !on,
            })));
        }
    }
}

/// The banner's row, there whether or not anything is muted or soloed (then it says so,
/// its **Clear all** greyed): a banner that came and went would move what is below it —
/// the very toggles that raised it.
pub fn banner_row(ui: &mut egui::Ui, state: &MonitorState, commands: &mut Vec<AppCommand>) {
    ui.horizontal(|ui| {
        if state.is_active() {
            banner(ui, state, commands);
        } else {
            ui.weak("Nothing muted or soloed");
            ui.add_enabled(false, egui::Button::new("Clear all"));
        }
    });
}

/// While anything is muted or soloed: what, and a **Clear all** button.
pub fn banner(ui: &mut egui::Ui, state: &MonitorState, commands: &mut Vec<AppCommand>) {
    if !state.is_active() {
        return;
    }
    description(ui, state);
    clear_all(ui, commands);
}

/// What is muted and soloed, in the colour of what there is (the banner's words; a bar
/// laid out right to left puts them after its [`clear_all`]).
pub fn description(ui: &mut egui::Ui, state: &MonitorState) {
    let colour = if state.soloed.is_empty() {
        theme::MUTED
    } else {
        theme::SOLOED
    };
    ui.colored_label(colour, egui::RichText::new(state.describe()).strong())
        .on_hover_text("monitoring: what you hear, not what the engine decides");
}

/// The banner's **Clear all** (`monitor clear`).
pub fn clear_all(ui: &mut egui::Ui, commands: &mut Vec<AppCommand>) {
    if ui
        .button("Clear all")
        .on_hover_text("unmute and unsolo everything (`monitor clear`)")
        .clicked()
    {
        commands.push(AppCommand::Run(Command::Monitor(MonitorCommand::Clear)));
    }
}
