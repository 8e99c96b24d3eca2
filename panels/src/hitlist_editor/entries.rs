//! The Hit-list editor's entries: what each entry text stands for and plays (resolved
//! as the engine would, from the loaded project), and the selected list's details with
//! its entries to audition, reorder, remove and add.

use super::{HitListsPanel, title};
use crate::{AppCommand, PanelContext, display_path};
use engine_core::host::command::Command;
use engine_core::toolchain::formats::hitlist::{HitEntry, MAX_RANGE_LEN};
use engine_core::toolchain::project::{NameValue, Project};
use engine_core::tools::hitlist_editor::{
    EntryTarget, HitListView, Plays, SampleView, parse_entry_text,
};

/// What one entry text stands for: the parsed entry (or why not) and each ID resolved.
pub(super) fn resolve(
    project: &Project,
    view: &HitListView,
    text: &str,
) -> (Result<HitEntry, String>, Vec<EntryTarget>) {
    if let Some(known) = view.entries.iter().find(|e| e.text == text) {
        return (Ok(known.entry.clone()), known.targets.clone());
    }
    let entry = match parse_entry_text(text) {
        Ok(entry) => entry,
        Err(e) => return (Err(e.to_string()), Vec::new()),
    };
    let ids: Vec<u32> = match &entry {
        HitEntry::Id(id) => vec![*id],
        HitEntry::Range { first, last } => (*first..=*last)
            .take(usize::try_from(MAX_RANGE_LEN).unwrap_or(usize::MAX))
            .collect(),
        HitEntry::Name(name) => match project.value(name).map(|n| &n.value) {
            Some(NameValue::Value(v)) => u32::try_from(*v).ok().into_iter().collect(),
            _ => {
                let problem = format!("`{name}` is not a known name");
                return (Err(problem), Vec::new());
            }
        },
    };
    let targets = ids
        .into_iter()
        .map(|id| EntryTarget {
            id,
            plays: plays(project, id),
        })
        .collect();
    (Ok(entry), targets)
}

/// What `id` plays, as the engine resolves it (a patch first, then a hit list).
fn plays(project: &Project, id: u32) -> Plays {
    if let Some(patch) = project.patches.get(&id) {
        return Plays::Patch(SampleView {
            patch: id,
            name: patch.name.to_string(),
            path_text: patch.path_text.to_string(),
            file: patch.file.as_deref().map(std::path::Path::to_path_buf),
            resource: patch.resource.as_deref().map(str::to_owned),
            // Found by the loader (the panel does not look at the disk).
            exists: patch.file.is_some(),
            origin: patch.origin.clone(),
        });
    }
    match project.hit_lists.get(&id) {
        Some(list) => Plays::List {
            id,
            len: list.entries.len(),
        },
        None => Plays::Missing,
    }
}

impl HitListsPanel {
    /// The selected list: where it is defined, who uses it, why it is read-only, its
    /// entries, and a box to add one.
    pub(super) fn list_details(
        &mut self,
        ui: &mut egui::Ui,
        ctx: &PanelContext<'_>,
        view: &HitListView,
        commands: &mut Vec<AppCommand>,
    ) {
        ui.heading(format!("Hit list {}", title(view)));
        if let Some(def) = &view.definition {
            ui.label(format!(
                "defined in {}:{}",
                display_path(ctx.project, &def.file),
                def.line
            ));
        }
        if !view.used_by.is_empty() {
            let users: Vec<String> = view
                .used_by
                .iter()
                .map(|t| format!("{:#x} {}", t.id, t.name))
                .collect();
            ui.label(format!("the own list of track(s) {}", users.join(", ")));
        }
        let read_only = match &view.definition {
            Some(def) => def.read_only.clone(),
            None => Some("no file defines this list".to_owned()),
        };
        for problem in &view.problems {
            ui.colored_label(ui.visuals().warn_fg_color, format!("Warning: {problem}"));
        }
        if let Some(why) = &read_only {
            ui.label(format!("read-only: {why}"));
        }
        let editable = read_only.is_none();
        let entries = self.entries_of(view);
        let mut change = entries_ui(ui, ctx, view, &entries, editable, commands);
        ui.horizontal(|ui| {
            let label = ui.label("New entry");
            let response = ui
                .add_enabled(
                    editable,
                    egui::TextEdit::singleline(&mut self.new_entry)
                        .hint_text("7, 0x10, 5-9 or a name")
                        .desired_width(140.0),
                )
                .labelled_by(label.id);
            let enter = response.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            if ui.add_enabled(editable, egui::Button::new("Add")).clicked() || enter {
                let text = self.new_entry.trim().to_owned();
                match parse_entry_text(&text) {
                    Ok(_) => {
                        let mut next = entries.clone();
                        next.push(text);
                        change = Some(next);
                        self.new_entry.clear();
                        self.entry_error = None;
                    }
                    Err(e) => self.entry_error = Some(e.to_string()),
                }
            }
        });
        if let Some(e) = &self.entry_error {
            ui.colored_label(ui.visuals().error_fg_color, e);
        }
        if let Some(next) = change {
            self.set_entries(view, next, commands);
        }
    }
}

/// Below this width the entries are stacked, what each plays beneath it; above, one grid
/// row each ([`entries_grid`]: about this wide with a sample path of 30 characters).
const GRID_WIDTH: f32 = 600.0;

/// The entries of a list, as wide as the tab allows: a grid, or stacked when narrow.
fn entries_ui(
    ui: &mut egui::Ui,
    ctx: &PanelContext<'_>,
    view: &HitListView,
    entries: &[String],
    editable: bool,
    commands: &mut Vec<AppCommand>,
) -> Option<Vec<String>> {
    if ui.available_width() < GRID_WIDTH {
        entries_stacked(ui, ctx, view, entries, editable, commands)
    } else {
        entries_grid(ui, ctx, view, entries, editable, commands)
    }
}

/// The entries of a list as a grid: number, move and remove buttons, the entry as
/// written and what it plays. Returns the entries as a button changed them.
fn entries_grid(
    ui: &mut egui::Ui,
    ctx: &PanelContext<'_>,
    view: &HitListView,
    entries: &[String],
    editable: bool,
    commands: &mut Vec<AppCommand>,
) -> Option<Vec<String>> {
    let mut change = None;
    egui::Grid::new("hitlist-entries")
        .striped(true)
        .num_columns(4)
        .show(ui, |ui| {
            ui.strong("#");
            ui.strong("");
            ui.strong("entry");
            ui.strong("plays");
            ui.end_row();
            for (index, text) in entries.iter().enumerate() {
                ui.label(index.to_string());
                ui.horizontal(|ui| {
                    if let Some(next) = entry_buttons(ui, entries, index, editable) {
                        change = Some(next);
                    }
                });
                ui.monospace(text);
                ui.vertical(|ui| entry_plays(ui, ctx, view, text, commands));
                ui.end_row();
            }
        });
    change
}

/// The entries of a list for a narrow tab (the default layout's): each a line — its
/// number, the entry as written, Up, Down and Remove — with what it plays beneath it, so
/// what plays shows without scrolling sideways. Returns the entries as a button changed
/// them.
fn entries_stacked(
    ui: &mut egui::Ui,
    ctx: &PanelContext<'_>,
    view: &HitListView,
    entries: &[String],
    editable: bool,
    commands: &mut Vec<AppCommand>,
) -> Option<Vec<String>> {
    let mut change = None;
    for (index, text) in entries.iter().enumerate() {
        ui.push_id(("hitlist-entry", index), |ui| {
            ui.horizontal(|ui| {
                ui.weak(format!("{index:>2}"));
                ui.monospace(egui::RichText::new(text).strong());
                if let Some(next) = entry_buttons(ui, entries, index, editable) {
                    change = Some(next);
                }
            });
            ui.indent("plays", |ui| entry_plays(ui, ctx, view, text, commands));
        });
    }
    change
}

/// What the entry `text` plays, each ID on a line, after what is wrong with it if it
/// does not read.
fn entry_plays(
    ui: &mut egui::Ui,
    ctx: &PanelContext<'_>,
    view: &HitListView,
    text: &str,
    commands: &mut Vec<AppCommand>,
) {
    let (entry, targets) = resolve(ctx.project, view, text);
    if let Err(problem) = &entry {
        ui.colored_label(ui.visuals().error_fg_color, problem);
    }
    for target in &targets {
        target_row(ui, target, commands);
    }
}

/// Up, Down and Remove for entry `index`; the entries as the one clicked leaves them.
fn entry_buttons(
    ui: &mut egui::Ui,
    entries: &[String],
    index: usize,
    editable: bool,
) -> Option<Vec<String>> {
    let last = entries.len().saturating_sub(1);
    let mut change = None;
    if ui
        .add_enabled(editable && index > 0, egui::Button::new("Up"))
        .on_hover_text("Move up")
        .clicked()
    {
        let mut next = entries.to_vec();
        next.swap(index, index - 1);
        change = Some(next);
    }
    if ui
        .add_enabled(editable && index < last, egui::Button::new("Down"))
        .on_hover_text("Move down")
        .clicked()
    {
        let mut next = entries.to_vec();
        next.swap(index, index + 1);
        change = Some(next);
    }
    if ui
        .add_enabled(editable, egui::Button::new("Remove"))
        .on_hover_text("Remove")
        .clicked()
    {
        let mut next = entries.to_vec();
        next.remove(index);
        change = Some(next);
    }
    change
}

/// One ID of an entry and what it plays, with an audition button for a patch.
fn target_row(ui: &mut egui::Ui, target: &EntryTarget, commands: &mut Vec<AppCommand>) {
    ui.horizontal(|ui| match &target.plays {
        Plays::Patch(sample) => {
            if ui
                .small_button("Play")
                .on_hover_text(format!("Audition patch {}", sample.patch))
                .clicked()
            {
                commands.push(AppCommand::Run(Command::Play(sample.patch.to_string())));
            }
            let file = sample.resource.as_deref().unwrap_or(&sample.path_text);
            let text = format!("patch {} {} — {file}", sample.patch, sample.name);
            // In full on hover: a narrow tab cuts the path off.
            if sample.exists {
                ui.label(&text).on_hover_text(&text);
            } else {
                let text = format!("{text} (sample file missing)");
                ui.colored_label(ui.visuals().error_fg_color, &text)
                    .on_hover_text(&text);
            }
        }
        Plays::List { id, len } => {
            ui.label(format!(
                "hit list {id} ({len} entries): picks from it in turn"
            ));
        }
        Plays::Missing => {
            ui.colored_label(
                ui.visuals().error_fg_color,
                format!("{}: missing — neither a patch nor a hit list", target.id),
            );
        }
    });
}
