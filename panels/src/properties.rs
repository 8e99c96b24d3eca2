//! The Properties panel (`docs/tuning.md`): the fields of the track, patch or event
//! mapping in view — volume, priority, duck priority, option group, arguments, sound
//! pressure level, hit list, patch; a patch's name, file, loop and piano flags; an
//! event's type and track — each edited in place. An edit goes to the running engine at
//! once (the app sends a typed `tune` command) and waits, with undo and redo, to be
//! saved into the very line it came from; a field that differs from the file shows the
//! saved value beside it; the pending lines are listed before saving.
//!
//! What is shown follows the selection (a track in the Browser, a voice, a trace row),
//! or what was opened here with [`AppCommand::ShowProperties`]. The panel keeps no
//! edits of its own: the app holds the editors (`engine_core::tools::properties`) and
//! reports through [`PropertiesData`].

use crate::{AppCommand, Panel, PanelContext, SaveOutcome, display_path, theme};
use engine_core::runtime::Gain;
use engine_core::tools::hitlist_editor::LineChange;
use engine_core::tools::properties::{
    FieldKind, FieldValue, Property, PropertyInput, PropertySheet, PropertyTarget,
};
use std::path::PathBuf;

/// What the app tells the Properties panel.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PropertiesData {
    /// What is shown.
    pub target: Option<PropertyTarget>,
    /// Its fields now (with the edits), or why they cannot be shown or edited.
    pub sheet: Option<Result<PropertySheet, String>>,
    /// True if there is an edit to undo / an undone edit to redo.
    pub can_undo: bool,
    /// See `can_undo`.
    pub can_redo: bool,
    /// The unsaved lines, by file.
    pub changes: Vec<(PathBuf, Vec<LineChange>)>,
    /// Counts the saves the app has carried out.
    pub saves: u64,
    /// How the last save or edit went.
    pub outcome: Option<SaveOutcome>,
    /// The last refused edit, if the edit after it has not succeeded.
    pub error: Option<String>,
    /// The A/B snapshots of the unsaved edits.
    pub snapshots: SnapshotData,
}

/// The A/B snapshots as the panel shows them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SnapshotData {
    /// How many fields snapshot A and snapshot B hold (`None`: empty).
    pub stored: [Option<usize>; 2],
    /// The snapshot the unsaved edits are now (none after an edit since).
    pub active: Option<usize>,
    /// Every field that differs between A and B.
    pub diff: Vec<SnapshotDiff>,
}

/// A field whose value differs between the snapshots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotDiff {
    /// Whose field ("track 0x2200 piano_play").
    pub target: String,
    /// Which field.
    pub property: Property,
    /// Its text in A and in B (the file's when the snapshot did not edit it).
    pub values: [String; 2],
}

impl PropertiesData {
    /// How many fields are edited and not saved.
    pub fn unsaved_lines(&self) -> usize {
        self.changes.iter().map(|(_, lines)| lines.len()).sum()
    }
}

/// UI state of the Properties panel: the text being typed into a name or path field.
#[derive(Debug, Clone, Default)]
pub struct PropertiesPanel {
    typing: Option<(Property, String)>,
}

impl Panel for PropertiesPanel {
    fn title(&self) -> &'static str {
        "Properties"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<AppCommand>) {
        self.toolbar(ui, ctx, commands);
        ui.separator();
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| self.body(ui, ctx, commands));
    }
}

impl PropertiesPanel {
    fn body(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<AppCommand>) {
        let data = ctx.properties;
        match &data.sheet {
            None => {
                ui.weak(
                    "Select a track in the Browser, a voice or a trace row to see its \
                     properties here.",
                );
            }
            Some(Err(why)) => {
                if let Some(target) = &data.target {
                    ui.strong(title(ctx, target));
                }
                ui.colored_label(ui.visuals().warn_fg_color, why);
            }
            Some(Ok(sheet)) => {
                ui.horizontal(|ui| {
                    ui.strong(title(ctx, &sheet.target));
                    if let PropertyTarget::Track(id) = sheet.target {
                        crate::monitor::toggles(
                            ui,
                            &ctx.live.monitor,
                            engine_core::sound::server::MonitorTarget::Track(id),
                            commands,
                        );
                    }
                    let place =
                        format!("{}:{}", display_path(ctx.project, &sheet.file), sheet.line);
                    if ui.link(&place).on_hover_text("open the line").clicked() {
                        commands.push(AppCommand::OpenSource {
                            path: sheet.file.clone(),
                            line: sheet.line,
                        });
                    }
                });
                self.fields(ui, ctx, sheet, commands);
            }
        }
        if let Some(error) = &data.error {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
        ui.separator();
        crate::snapshots::ab_bar(ui, data, commands);
        crate::snapshots::diff_view(ui, ctx.project, &data.snapshots);
        pending_lines(ui, ctx, data);
    }
}

/// A field's text as the panel shows it beside the editor: a volume with its dB.
pub(crate) fn shown_value(
    project: &engine_core::toolchain::project::Project,
    property: Property,
    text: &str,
) -> String {
    match project.resolve_field(property, text) {
        Some(volume) if property == Property::Volume => crate::hit_volume_text(volume),
        _ => text.to_owned(),
    }
}

/// "track 0x2400 door_open".
fn title(ctx: &PanelContext<'_>, target: &PropertyTarget) -> String {
    match target.name(ctx.project) {
        Some(name) if !matches!(target, PropertyTarget::Event(_)) => format!("{target} {name}"),
        _ => target.to_string(),
    }
}

impl PropertiesPanel {
    fn toolbar(
        &mut self,
        ui: &mut egui::Ui,
        ctx: &PanelContext<'_>,
        commands: &mut Vec<AppCommand>,
    ) {
        let data = ctx.properties;
        ui.horizontal(|ui| {
            if ui
                .add_enabled(data.can_undo, egui::Button::new("Undo"))
                .on_hover_text("undo the last edit (the engine follows)")
                .clicked()
            {
                commands.push(AppCommand::UndoProperty);
            }
            if ui
                .add_enabled(data.can_redo, egui::Button::new("Redo"))
                .clicked()
            {
                commands.push(AppCommand::RedoProperty);
            }
            let unsaved = data.unsaved_lines();
            if ui
                .add_enabled(unsaved > 0, egui::Button::new("Save"))
                .on_hover_text("write the edited fields into their lines")
                .clicked()
            {
                commands.push(AppCommand::SaveProperties { force: false });
            }
            if ui
                .add_enabled(unsaved > 0, egui::Button::new("Revert"))
                .on_hover_text("drop every unsaved edit; the engine goes back to the files")
                .clicked()
            {
                commands.push(AppCommand::RevertProperties);
            }
            match &data.outcome {
                Some(SaveOutcome::Saved { files, lines }) if unsaved == 0 => {
                    ui.weak(format!("saved {lines} line(s) in {} file(s)", files.len()));
                }
                Some(SaveOutcome::ChangedOnDisk { .. } | SaveOutcome::Failed(_)) => {}
                _ if unsaved > 0 => {
                    ui.colored_label(theme::EDITED, format!("{unsaved} unsaved line(s)"));
                }
                _ => {}
            }
        });
        // What stopped a save, beneath the buttons: as wide as the tab, wrapped, its button
        // first so a narrow tab never hides it.
        match &data.outcome {
            Some(SaveOutcome::ChangedOnDisk { file, detail }) => {
                ui.horizontal_wrapped(|ui| {
                    if ui
                        .button("Save anyway")
                        .on_hover_text(
                            "write only the fields edited here into the file as it is now",
                        )
                        .clicked()
                    {
                        commands.push(AppCommand::SaveProperties { force: true });
                    }
                    ui.add(
                        egui::Label::new(
                            egui::RichText::new(format!(
                                "{} changed on disk ({detail}). Save anyway writes only the \
                                 fields edited here into it as it is now; the other fields \
                                 keep that change.",
                                display_path(ctx.project, file)
                            ))
                            .color(theme::CHANGED_ON_DISK),
                        )
                        .wrap(),
                    );
                });
            }
            Some(SaveOutcome::Failed(why)) => {
                ui.add(
                    egui::Label::new(egui::RichText::new(why).color(ui.visuals().error_fg_color))
                        .wrap(),
                );
            }
            _ => {}
        }
    }

    fn fields(
        &mut self,
        ui: &mut egui::Ui,
        ctx: &PanelContext<'_>,
        sheet: &PropertySheet,
        commands: &mut Vec<AppCommand>,
    ) {
        egui::Grid::new("properties_fields")
            .num_columns(3)
            .striped(true)
            .min_col_width(90.0)
            .show(ui, |ui| {
                for field in &sheet.values {
                    let label = ui.label(field.property.label());
                    let label_id = label.id;
                    if !field.property.is_live() {
                        label.on_hover_text("takes effect when saved");
                    }
                    let edit = self.editor(ui, ctx, field, label_id);
                    if let Some((input, merge)) = edit {
                        commands.push(AppCommand::EditProperty {
                            target: sheet.target.clone(),
                            property: field.property,
                            input,
                            merge,
                        });
                    }
                    if field.is_edited() {
                        let saved = if field.saved_text.is_empty() {
                            "(none)".to_owned()
                        } else {
                            shown_value(ctx.project, field.property, &field.saved_text)
                        };
                        ui.colored_label(theme::EDITED, format!("edited · saved {saved}"));
                    } else {
                        ui.label("");
                    }
                    ui.end_row();
                }
            });
    }

    /// The widget for one field; the new input (and whether it continues the edit
    /// before it: a drag) when the user changed it.
    fn editor(
        &mut self,
        ui: &mut egui::Ui,
        ctx: &PanelContext<'_>,
        field: &FieldValue,
        label: egui::Id,
    ) -> Option<(PropertyInput, bool)> {
        let property = field.property;
        match property.kind() {
            FieldKind::Number { min, max } => {
                let mut value = field.value.unwrap_or(0);
                let response = ui
                    .horizontal(|ui| {
                        let response = ui
                            .add(
                                egui::DragValue::new(&mut value)
                                    .range(min..=max)
                                    .speed(if max > 200 { 4.0 } else { 0.5 }),
                            )
                            .labelled_by(label);
                        if property == Property::Volume {
                            // The level in dB beside the raw 0–1024 (1024 is unity).
                            let volume = i32::try_from(value).unwrap_or(i32::MAX);
                            ui.weak(Gain::from_hit_volume(volume).db_text());
                        }
                        response
                    })
                    .inner;
                let merge = response.dragged() && !response.drag_started();
                (response.changed() && Some(value) != field.value)
                    .then_some((PropertyInput::Number(value), merge))
            }
            FieldKind::Flag => {
                let mut on = field.value.unwrap_or(0) != 0;
                ui.checkbox(&mut on, "")
                    .labelled_by(label)
                    .changed()
                    .then_some((PropertyInput::Flag(on), false))
            }
            FieldKind::Choice | FieldKind::PatchRef | FieldKind::ListRef => {
                let options = choices(ctx, property);
                let current = field.value;
                let shown = options
                    .iter()
                    .find(|(_, v)| Some(*v) == current)
                    .map_or_else(|| field.text.clone(), |(name, _)| name.clone());
                let mut picked = None;
                egui::ComboBox::from_id_salt(("property", property))
                    .selected_text(shown)
                    .width(180.0)
                    .show_ui(ui, |ui| {
                        for (name, value) in &options {
                            if ui.selectable_label(Some(*value) == current, name).clicked() {
                                picked = Some(*value);
                            }
                        }
                    })
                    .response
                    .labelled_by(label);
                picked
                    .filter(|v| Some(*v) != current)
                    .map(|v| (PropertyInput::Number(v), false))
            }
            FieldKind::Name | FieldKind::Path => {
                // The text being typed lives here while the field has the keyboard; Enter
                // or leaving the field applies it, Escape drops it.
                let shown = field.text.trim_matches('"').to_owned();
                let mut buffer = match &self.typing {
                    Some((p, text)) if *p == property => text.clone(),
                    _ => shown.clone(),
                };
                let response = ui
                    .add(egui::TextEdit::singleline(&mut buffer).desired_width(220.0))
                    .labelled_by(label);
                if response.has_focus() {
                    self.typing = Some((property, buffer.clone()));
                }
                if !response.lost_focus() {
                    return None;
                }
                if self.typing.as_ref().is_some_and(|(p, _)| *p == property) {
                    self.typing = None;
                }
                let escaped = ui.input(|i| i.key_pressed(egui::Key::Escape));
                (!escaped && buffer != shown).then_some((PropertyInput::Text(buffer), false))
            }
        }
    }
}

/// What a choice, patch or hit-list field offers: the constants of its family, or the
/// project's patches and lists by name (with "none").
fn choices(ctx: &PanelContext<'_>, property: Property) -> Vec<(String, i64)> {
    match property.kind() {
        FieldKind::PatchRef => std::iter::once(("none".to_owned(), 0))
            .chain(
                ctx.project
                    .patches
                    .values()
                    .map(|p| (format!("{} ({})", p.name, p.id), i64::from(p.id))),
            )
            .collect(),
        FieldKind::ListRef => std::iter::once(("none".to_owned(), 0))
            .chain(
                ctx.project
                    .hit_lists
                    .keys()
                    .map(|&id| (format!("list {id}"), i64::from(id))),
            )
            .collect(),
        _ => property
            .choices()
            .into_iter()
            .map(|(name, value)| (name.to_owned(), value))
            .collect(),
    }
}

/// The unsaved lines, before and after, by file.
fn pending_lines(ui: &mut egui::Ui, ctx: &PanelContext<'_>, data: &PropertiesData) {
    if data.changes.is_empty() {
        return;
    }
    ui.separator();
    ui.strong("Unsaved lines");
    for (file, lines) in &data.changes {
        for change in lines {
            ui.monospace(format!(
                "{}:{}",
                display_path(ctx.project, file),
                change.line
            ));
            let line = |text: String| crate::cut_label(egui::RichText::new(text).monospace());
            ui.add(line(format!("- {}", change.before)))
                .on_hover_text(&change.before);
            ui.add(line(format!("+ {}", change.after)))
                .on_hover_text(&change.after);
        }
    }
}
