//! The Project browser's row parts: fixed-width cells, names that select, the action
//! button that auditions (with more choices in its context menu), and links to the line
//! that defines an item.

use crate::{AppCommand, PanelContext, display_path};
use engine_core::host::command::Command;
use engine_core::toolchain::project::Origin;

/// The place to show for a definition: `file:line` relative to the project.
fn place(ctx: &PanelContext<'_>, origin: &Origin) -> String {
    let file = display_path(ctx.project, &origin.file);
    if origin.line > 0 {
        format!("{file}:{}", origin.line)
    } else {
        file
    }
}

/// Width of the action buttons.
const COLUMN_ACTION: f32 = 30.0;

/// Column widths of the list.
pub(super) struct Columns {
    /// The name column.
    pub(super) name: f32,
    /// The column of links to definitions.
    pub(super) place: f32,
    /// A row's height.
    pub(super) height: f32,
}

/// A fixed-width cell, left-aligned.
pub(super) fn cell<R>(
    ui: &mut egui::Ui,
    width: f32,
    height: f32,
    add: impl FnOnce(&mut egui::Ui) -> R,
) -> R {
    ui.allocate_ui_with_layout(
        egui::vec2(width, height),
        egui::Layout::left_to_right(egui::Align::Center),
        |ui| {
            ui.set_min_size(egui::vec2(width, height));
            ui.set_max_width(width);
            add(ui)
        },
    )
    .inner
}

/// A row's name, cut to its column: clickable, highlighted when selected; on hover the
/// whole name and what a click does (`tip`), in one tooltip.
pub(super) fn name_label(
    ui: &mut egui::Ui,
    text: &str,
    selected: bool,
    tip: &str,
) -> egui::Response {
    let mut rich = egui::RichText::new(text);
    if selected {
        rich = rich.strong().color(ui.visuals().selection.stroke.color);
    }
    ui.add(crate::cut_label(rich).sense(egui::Sense::click()))
        .on_hover_text(format!("{text}\n{tip}"))
}

/// Gives a widget the name assistive technology and tests know it by.
fn name_widget(response: &egui::Response, kind: egui::Role, name: &str) {
    response.widget_info(|| egui::WidgetInfo::labeled(kind, response.enabled(), name));
}

/// What the action button of a row does.
pub(super) struct Action {
    /// The glyph on it.
    pub(super) glyph: &'static str,
    /// Its accessible name.
    pub(super) name: String,
    /// What it explains on hover.
    pub(super) tip: String,
    /// The commands it runs (none: the button is disabled).
    pub(super) commands: Vec<Command>,
    /// Other choices in its context menu: (label, command).
    pub(super) more: Vec<(String, Command)>,
}

impl Action {
    /// A "Play" button running `commands` (none: disabled).
    pub(super) fn new(name: String, tip: String, commands: Vec<Command>) -> Self {
        Self {
            glyph: "Play",
            name,
            tip,
            commands,
            more: Vec::new(),
        }
    }
}

pub(super) fn action_button(ui: &mut egui::Ui, action: Action, commands: &mut Vec<AppCommand>) {
    let enabled = !action.commands.is_empty();
    let button = ui.add_enabled(
        enabled,
        egui::Button::new(action.glyph)
            .small()
            .min_size(egui::vec2(COLUMN_ACTION, 0.0)),
    );
    name_widget(&button, egui::Role::Button, &action.name);
    let button = if enabled {
        button.on_hover_text(&action.tip)
    } else {
        button.on_disabled_hover_text(&action.tip)
    };
    if button.clicked() {
        commands.extend(action.commands.into_iter().map(AppCommand::Run));
    }
    if !action.more.is_empty() {
        button.context_menu(|ui| {
            for (label, command) in &action.more {
                if ui.button(label).clicked() {
                    commands.push(AppCommand::Run(command.clone()));
                    ui.close();
                }
            }
        });
    }
}

/// A link to a definition's line (nothing when the place is unknown).
pub(super) fn source_link(
    ui: &mut egui::Ui,
    ctx: &PanelContext<'_>,
    what: &str,
    origin: &Origin,
    commands: &mut Vec<AppCommand>,
) {
    if origin.file.as_os_str().is_empty() {
        return;
    }
    let text = place(ctx, origin);
    let link = ui.add(egui::Link::new(&text));
    name_widget(&link, egui::Role::Link, &format!("Open {what} at {text}"));
    if link
        .on_hover_text(format!("Open {what} at {text}"))
        .clicked()
    {
        commands.push(AppCommand::OpenSource {
            path: origin.path_buf(),
            line: origin.line,
        });
    }
}
