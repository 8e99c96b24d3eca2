//! The Hit-list editor panel: every hit list of the project (global, and each track's own
//! list) with its entries as written — IDs, ranges, names, lists of lists — and what
//! each one plays; audition an entry; add, remove and reorder entries with undo/redo; a
//! simulation of N picks (how often and how soon entries repeat); save.
//!
//! The panel keeps the *edits* (each changed list's new entries) as UI state. Saving,
//! and noticing that a file changed on disk since editing began, is the app's work
//! ([`AppCommand::EditHitLists`], [`AppCommand::SaveHitLists`], [`AppCommand::ReloadHitLists`],
//! done with `engine_core::tools::hitlist_editor::HitListEditor`); the app reports back through
//! [`HitListData`] in the context. See `docs/hitlists.md`.
//!
//! This file holds the state, the edits with undo and redo, the list picker and the save
//! bar; `entries` shows a list's entries and what they play, `simulation` the picks.

mod entries;
mod simulation;

use crate::{AppCommand, Panel, PanelContext, display_path, theme};
use engine_core::toolchain::formats::hitlist::{HitEntry, HitList};
use engine_core::tools::hitlist_editor::{HitListView, ListOwner, PickStats};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// One hit list's new entries, for [`AppCommand::SaveHitLists`].
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct HitListEdit {
    /// The file defining the list (a `.hot` file or a source with `LIST` lines).
    pub file: PathBuf,
    /// The list's key as written there (`92`, `hl_baby_cry`).
    pub key: String,
    /// The entries, each as text (`100`, `0x66`, `5-9`, `name`), in order.
    pub entries: Vec<String>,
}

/// How the app's last hit-list save went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SaveOutcome {
    /// The edits were written; `lines` lines changed in `files`.
    Saved {
        /// The files written.
        files: Vec<PathBuf>,
        /// How many lines changed in all.
        lines: usize,
    },
    /// A file changed on disk since editing began: nothing was written to it and the
    /// edits are kept; the user may save anyway or reload.
    ChangedOnDisk {
        /// The file.
        file: PathBuf,
        /// How it changed (a sentence).
        detail: String,
    },
    /// The save failed (an entry that cannot be written, an IO error).
    Failed(String),
}

/// What the app tells the hit-list editor.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HitListData {
    /// Every hit list of the project as loaded, read from its defining file
    /// (`engine_core::tools::hitlist_editor::hit_lists`).
    pub views: Vec<HitListView>,
    /// Counts the saves the app has carried out; the panel acts once on each outcome.
    pub saves: u64,
    /// How the last save went (`None` before any, and after a reload).
    pub outcome: Option<SaveOutcome>,
}

/// Which list: the defining file and key (a track's list is the global list it names).
type ListKey = (PathBuf, String);

/// Picks simulated by default.
const DEFAULT_PICKS: usize = 1000;

/// UI state of the Hit-list editor.
#[derive(Debug, Clone)]
pub struct HitListsPanel {
    /// The list shown: an index into [`HitListData::views`].
    pub selected: usize,
    /// Edited lists: their entries as text, by defining file and key.
    pub edits: BTreeMap<ListKey, Vec<String>>,
    undo: Vec<BTreeMap<ListKey, Vec<String>>>,
    redo: Vec<BTreeMap<ListKey, Vec<String>>>,
    /// Files the app was asked to start editing.
    opened: BTreeSet<PathBuf>,
    /// The entry typed to add.
    pub new_entry: String,
    /// Why the typed entry was refused.
    pub entry_error: Option<String>,
    /// Picks to simulate (text field).
    pub picks: String,
    /// Seed of the simulation (text field).
    pub seed: String,
    /// The last simulation: which list, with which IDs, and what it found.
    pub simulation: Option<(ListKey, Vec<u32>, PickStats)>,
    /// Why the simulation fields were refused.
    pub simulation_error: Option<String>,
    /// The last save outcome acted on ([`HitListData::saves`]).
    seen_saves: u64,
}

impl Default for HitListsPanel {
    fn default() -> Self {
        Self {
            selected: 0,
            edits: BTreeMap::new(),
            undo: Vec::new(),
            redo: Vec::new(),
            opened: BTreeSet::new(),
            new_entry: String::new(),
            entry_error: None,
            picks: DEFAULT_PICKS.to_string(),
            seed: "1".into(),
            simulation: None,
            simulation_error: None,
            seen_saves: 0,
        }
    }
}

/// The key a view's edits are kept under (`None` for a track list nobody defines).
fn list_key(view: &HitListView) -> Option<ListKey> {
    view.definition
        .as_ref()
        .map(|d| (d.file.clone(), view.key.clone()))
}

/// A list's title: `92`, `92 hl_walk`, `track 0x500 walk -> 92`.
fn title(view: &HitListView) -> String {
    let name = view
        .name
        .as_deref()
        .map(|n| format!(" {n}"))
        .unwrap_or_default();
    match &view.owner {
        ListOwner::Global => format!("{}{name}", view.id),
        ListOwner::Track(t) => format!("track {:#x} {} -> {}{name}", t.id, t.name, view.id),
    }
}

impl HitListsPanel {
    /// The entries of `view` as they are now (edited or as written).
    fn entries_of(&self, view: &HitListView) -> Vec<String> {
        list_key(view)
            .and_then(|k| self.edits.get(&k).cloned())
            .unwrap_or_else(|| view.entries.iter().map(|e| e.text.clone()).collect())
    }

    /// How many IDs the list stands for, as the Browser counts them: a range `2201-2203`
    /// is three, a name one (the edited entries when the list is edited).
    fn entry_count(&self, view: &HitListView) -> usize {
        match list_key(view).and_then(|k| self.edits.get(&k)) {
            None if view.expanded.is_empty() => view.entries.len(),
            None => view.expanded.len(),
            Some(texts) => {
                let (list, _) =
                    HitList::parse_text(&texts.join(","), std::path::Path::new(""), 0, 0);
                list.entries
                    .iter()
                    .map(|e| match e {
                        HitEntry::Range { first, last } => {
                            (u64::from(*last) - u64::from(*first) + 1) as usize
                        }
                        HitEntry::Id(_) | HitEntry::Name(_) => 1,
                    })
                    .sum()
            }
        }
    }

    /// The pending edits, for the save command.
    pub fn pending(&self) -> Vec<HitListEdit> {
        self.edits
            .iter()
            .map(|((file, key), entries)| HitListEdit {
                file: file.clone(),
                key: key.clone(),
                entries: entries.clone(),
            })
            .collect()
    }

    /// True if there is an edit to undo.
    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    /// True if there is an undone edit to redo.
    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    /// Undoes the last edit.
    pub fn undo(&mut self) {
        if let Some(previous) = self.undo.pop() {
            self.redo.push(std::mem::replace(&mut self.edits, previous));
        }
    }

    /// Redoes the last undone edit.
    pub fn redo(&mut self) {
        if let Some(next) = self.redo.pop() {
            self.undo.push(std::mem::replace(&mut self.edits, next));
        }
    }

    /// Replaces the entries of `view` (an edit that restores the list as written drops
    /// the edit); asks the app to start editing the file at its first edit.
    fn set_entries(
        &mut self,
        view: &HitListView,
        entries: Vec<String>,
        commands: &mut Vec<AppCommand>,
    ) {
        let Some(key) = list_key(view) else { return };
        if entries == self.entries_of(view) {
            return;
        }
        let mut next = self.edits.clone();
        let original: Vec<String> = view.entries.iter().map(|e| e.text.clone()).collect();
        if entries == original {
            next.remove(&key);
        } else {
            next.insert(key.clone(), entries);
        }
        if self.opened.insert(key.0.clone()) {
            commands.push(AppCommand::EditHitLists(key.0));
        }
        self.undo.push(std::mem::replace(&mut self.edits, next));
        self.redo.clear();
    }

    /// Forgets every edit and its history (after a save or a reload).
    fn forget_edits(&mut self) {
        self.edits.clear();
        self.undo.clear();
        self.redo.clear();
        self.opened.clear();
    }

    /// Acts once on a new save outcome.
    fn take_outcome(&mut self, data: &HitListData) {
        if data.saves == self.seen_saves {
            return;
        }
        self.seen_saves = data.saves;
        if let Some(SaveOutcome::Saved { .. }) = &data.outcome {
            self.forget_edits();
        }
    }

    fn shortcuts(&mut self, ui: &egui::Ui) {
        // Not while typing: a text field has its own undo.
        if !ui.rect_contains_pointer(ui.max_rect()) || ui.ctx().text_edit_focused() {
            return;
        }
        let redo = egui::KeyboardShortcut::new(
            egui::Modifiers::COMMAND | egui::Modifiers::SHIFT,
            egui::Key::Z,
        );
        let undo = egui::KeyboardShortcut::new(egui::Modifiers::COMMAND, egui::Key::Z);
        if ui.input_mut(|i| i.consume_shortcut(&redo)) {
            self.redo();
        } else if ui.input_mut(|i| i.consume_shortcut(&undo)) {
            self.undo();
        }
    }

    fn list_picker(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>) {
        let views = &ctx.hitlists.views;
        egui::ScrollArea::vertical()
            .id_salt("hitlist-picker")
            .show(ui, |ui| {
                for (heading, global) in [("Global lists", true), ("Track lists", false)] {
                    ui.strong(heading);
                    for (index, view) in views.iter().enumerate() {
                        if (view.owner == ListOwner::Global) != global {
                            continue;
                        }
                        let edited = list_key(view).is_some_and(|k| self.edits.contains_key(&k));
                        let count = self.entry_count(view);
                        let mut text = format!(
                            "{} · {count} entr{}",
                            title(view),
                            if count == 1 { "y" } else { "ies" }
                        );
                        if edited {
                            text.push_str(" (edited)");
                        }
                        if !view.problems.is_empty() {
                            text.push_str(" (!)");
                        }
                        if ui.selectable_label(self.selected == index, text).clicked() {
                            self.selected = index;
                        }
                    }
                }
            });
    }

    /// The bar above the lists: Undo, Redo, Save, how the last save went (with Save
    /// anyway and Reload when a file changed on disk) on the same line, and the pending
    /// changes on the next. Two lines whatever happens, so the lists below never move.
    fn save_bar(
        &mut self,
        ui: &mut egui::Ui,
        ctx: &PanelContext<'_>,
        commands: &mut Vec<AppCommand>,
    ) {
        ui.horizontal(|ui| {
            if ui
                .add_enabled(self.can_undo(), egui::Button::new("Undo"))
                .on_hover_text("Ctrl+Z")
                .clicked()
            {
                self.undo();
            }
            if ui
                .add_enabled(self.can_redo(), egui::Button::new("Redo"))
                .on_hover_text("Ctrl+Shift+Z")
                .clicked()
            {
                self.redo();
            }
            let n = self.edits.len();
            if ui
                .add_enabled(n > 0, egui::Button::new(format!("Save {n} list(s)")))
                .on_hover_text("Write the edited lists back; only their lines change")
                .clicked()
            {
                commands.push(AppCommand::SaveHitLists {
                    edits: self.pending(),
                    force: false,
                });
            }
            self.outcome(ui, ctx, commands);
        });
        let pending = self.edits.len();
        egui::CollapsingHeader::new(format!("Pending changes ({pending})"))
            .id_salt("hitlist-pending")
            .enabled(pending > 0)
            .open((pending == 0).then_some(false))
            .show(ui, |ui| {
                for (view, entries) in ctx.hitlists.views.iter().filter_map(|v| {
                    let key = list_key(v)?;
                    (v.owner == ListOwner::Global)
                        .then(|| self.edits.get(&key).map(|e| (v, e)))
                        .flatten()
                }) {
                    ui.monospace(format!(
                        "{} `{}`: {}  =>  {}",
                        view.definition
                            .as_ref()
                            .map(|d| format!("{}:{}", display_path(ctx.project, &d.file), d.line))
                            .unwrap_or_default(),
                        view.key,
                        view.text,
                        entries.join(",")
                    ));
                }
            });
    }

    /// How the last save went, after the bar's buttons: a file changed on disk (with
    /// Save anyway and Reload), saved, or not saved — one line, the whole text on hover.
    fn outcome(
        &mut self,
        ui: &mut egui::Ui,
        ctx: &PanelContext<'_>,
        commands: &mut Vec<AppCommand>,
    ) {
        let (text, colour) = match &ctx.hitlists.outcome {
            Some(SaveOutcome::ChangedOnDisk { file, detail }) if !self.edits.is_empty() => {
                ui.separator();
                if ui
                    .button("Save anyway")
                    .on_hover_text("Your version replaces theirs: their changes are lost")
                    .clicked()
                {
                    commands.push(AppCommand::SaveHitLists {
                        edits: self.pending(),
                        force: true,
                    });
                }
                if ui
                    .button("Reload")
                    .on_hover_text("Read the files again: your unsaved edits are lost")
                    .clicked()
                {
                    self.forget_edits();
                    commands.push(AppCommand::ReloadHitLists);
                }
                (
                    format!(
                        "Warning: {} changed on disk since it was opened ({detail}); not saved",
                        display_path(ctx.project, file)
                    ),
                    theme::CHANGED_ON_DISK,
                )
            }
            Some(SaveOutcome::Saved { files, lines }) => {
                let names: Vec<String> =
                    files.iter().map(|f| display_path(ctx.project, f)).collect();
                (
                    format!("saved {}: {lines} line(s) changed", names.join(", ")),
                    ui.visuals().text_color(),
                )
            }
            Some(SaveOutcome::Failed(message)) => {
                (format!("not saved: {message}"), ui.visuals().error_fg_color)
            }
            _ => return,
        };
        ui.separator();
        ui.add(crate::cut_label(egui::RichText::new(&text).color(colour)))
            .on_hover_text(text);
    }
}

impl Panel for HitListsPanel {
    fn title(&self) -> &'static str {
        "Hit lists"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<AppCommand>) {
        self.take_outcome(ctx.hitlists);
        self.shortcuts(ui);
        let views = &ctx.hitlists.views;
        if views.is_empty() {
            ui.label("This project has no hit lists.");
            return;
        }
        self.selected = self.selected.min(views.len() - 1);
        self.save_bar(ui, ctx, commands);
        ui.separator();
        // The details end in controls (Add, Simulate) a floating bar would cover.
        crate::solid_scroll_bars(ui);
        ui.horizontal_top(|ui| {
            let height = ui.available_height();
            ui.allocate_ui_with_layout(
                egui::vec2(230.0, height),
                egui::Layout::top_down(egui::Align::Min),
                |ui| self.list_picker(ui, ctx),
            );
            ui.separator();
            let Some(view) = views.get(self.selected) else {
                return;
            };
            ui.vertical(|ui| {
                egui::ScrollArea::both()
                    .id_salt("hitlist-details")
                    .auto_shrink([false, false])
                    .show(ui, |ui| {
                        self.list_details(ui, ctx, view, commands);
                        ui.separator();
                        ui.strong("Simulation");
                        self.simulation_ui(ui, ctx, view);
                    });
            });
        });
    }
}
