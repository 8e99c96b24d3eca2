//! The Hit-list editor panel: every hit list of the project (global, and each track's own
//! list) with its entries as written — IDs, ranges, names, lists of lists — and what
//! each one plays; audition an entry; add, remove and reorder entries with undo/redo; a
//! simulation of N picks (how often and how soon entries repeat); save.
//!
//! The panel keeps the *edits* (each changed list's new entries) as UI state. Saving,
//! and noticing that a file changed on disk since editing began, is the app's work
//! ([`Command::EditHitLists`], [`Command::SaveHitLists`], [`Command::ReloadHitLists`],
//! done with `engine_core::tools::hitlist_editor::HitListEditor`); the app reports back through
//! [`HitListData`] in the context. See `docs/hitlists.md`.

use crate::{Command, Panel, PanelContext, display_path};
use engine_core::toolchain::formats::hitlist::{HitEntry, MAX_RANGE_LEN};
use engine_core::toolchain::project::{NameValue, Project};
use engine_core::tools::hitlist_editor::{
    EntryTarget, HitListView, ListOwner, PickStats, Plays, SampleView, parse_entry_text, simulate,
};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// One hit list's new entries, for [`Command::SaveHitLists`].
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

/// What one entry text stands for: the parsed entry (or why not) and each ID resolved.
fn resolve(
    project: &Project,
    view: &HitListView,
    text: &str,
) -> (Result<HitEntry, String>, Vec<EntryTarget>) {
    if let Some(known) = view.entries.iter().find(|e| e.text == text) {
        return (Ok(known.entry.clone()), known.targets.clone());
    }
    let entry = match parse_entry_text(text) {
        Ok(entry) => entry,
        Err(e) => return (Err(e), Vec::new()),
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
            name: patch.name.clone(),
            path_text: patch.path_text.clone(),
            file: patch.file.clone(),
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
        commands: &mut Vec<Command>,
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
            commands.push(Command::EditHitLists(key.0));
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
                        let mut text = format!(
                            "{} · {} entr{}",
                            title(view),
                            self.entries_of(view).len(),
                            if self.entries_of(view).len() == 1 {
                                "y"
                            } else {
                                "ies"
                            }
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

    fn save_bar(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<Command>) {
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
                commands.push(Command::SaveHitLists {
                    edits: self.pending(),
                    force: false,
                });
            }
        });
        match &ctx.hitlists.outcome {
            Some(SaveOutcome::ChangedOnDisk { file, detail }) if !self.edits.is_empty() => {
                let warning = egui::Color32::from_rgb(0xe0, 0x9a, 0x20);
                ui.colored_label(
                    warning,
                    format!(
                        "Warning: {} changed on disk since it was opened ({detail}); not saved",
                        display_path(ctx.project, file)
                    ),
                );
                ui.horizontal(|ui| {
                    if ui
                        .button("Save anyway")
                        .on_hover_text("Your version replaces theirs: their changes are lost")
                        .clicked()
                    {
                        commands.push(Command::SaveHitLists {
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
                        commands.push(Command::ReloadHitLists);
                    }
                });
            }
            Some(SaveOutcome::Saved { files, lines }) => {
                let names: Vec<String> =
                    files.iter().map(|f| display_path(ctx.project, f)).collect();
                ui.label(format!(
                    "saved {}: {lines} line(s) changed",
                    names.join(", ")
                ));
            }
            Some(SaveOutcome::Failed(message)) => {
                ui.colored_label(ui.visuals().error_fg_color, format!("not saved: {message}"));
            }
            _ => {}
        }
        if !self.edits.is_empty() {
            ui.collapsing(format!("Pending changes ({})", self.edits.len()), |ui| {
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
    }

    fn list_details(
        &mut self,
        ui: &mut egui::Ui,
        ctx: &PanelContext<'_>,
        view: &HitListView,
        commands: &mut Vec<Command>,
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
        let mut change: Option<Vec<String>> = None;
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
                        let last = entries.len().saturating_sub(1);
                        if ui
                            .add_enabled(editable && index > 0, egui::Button::new("Up"))
                            .on_hover_text("Move up")
                            .clicked()
                        {
                            let mut next = entries.clone();
                            next.swap(index, index - 1);
                            change = Some(next);
                        }
                        if ui
                            .add_enabled(editable && index < last, egui::Button::new("Down"))
                            .on_hover_text("Move down")
                            .clicked()
                        {
                            let mut next = entries.clone();
                            next.swap(index, index + 1);
                            change = Some(next);
                        }
                        if ui
                            .add_enabled(editable, egui::Button::new("Remove"))
                            .on_hover_text("Remove")
                            .clicked()
                        {
                            let mut next = entries.clone();
                            next.remove(index);
                            change = Some(next);
                        }
                    });
                    ui.monospace(text);
                    let (entry, targets) = resolve(ctx.project, view, text);
                    ui.vertical(|ui| {
                        if let Err(problem) = &entry {
                            ui.colored_label(ui.visuals().error_fg_color, problem);
                        }
                        for target in &targets {
                            target_row(ui, target, commands);
                        }
                    });
                    ui.end_row();
                }
            });
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
                    Err(e) => self.entry_error = Some(e),
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

    fn simulation_ui(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, view: &HitListView) {
        let key = list_key(view).unwrap_or_else(|| (PathBuf::new(), view.key.clone()));
        let ids: Vec<u32> = self
            .entries_of(view)
            .iter()
            .flat_map(|text| resolve(ctx.project, view, text).1)
            .map(|t| t.id)
            .collect();
        ui.horizontal(|ui| {
            let label = ui.label("Picks");
            ui.add(egui::TextEdit::singleline(&mut self.picks).desired_width(60.0))
                .labelled_by(label.id);
            let label = ui.label("Seed");
            ui.add(egui::TextEdit::singleline(&mut self.seed).desired_width(60.0))
                .labelled_by(label.id);
            if ui.button("Simulate").clicked() {
                match (
                    self.picks.trim().parse::<usize>(),
                    self.seed.trim().parse::<u64>(),
                ) {
                    (Ok(n), Ok(seed)) if n <= 10_000_000 => {
                        self.simulation = Some((key.clone(), ids.clone(), simulate(&ids, n, seed)));
                        self.simulation_error = None;
                    }
                    _ => {
                        self.simulation_error = Some(
                            "picks: a number up to 10,000,000; seed: a whole number".to_owned(),
                        );
                    }
                }
            }
        });
        if let Some(e) = &self.simulation_error {
            ui.colored_label(ui.visuals().error_fg_color, e);
        }
        let Some((sim_key, sim_ids, stats)) = &self.simulation else {
            return;
        };
        if sim_key != &key {
            return;
        }
        if sim_ids != &ids {
            ui.label("the list changed since this simulation: simulate again");
        }
        let gap = |g: Option<usize>| g.map_or_else(|| "–".to_owned(), |g| g.to_string());
        ui.label(format!(
            "{} picks, seed {}: back-to-back repeats {}, smallest gap {}, mean gap {}",
            stats.picks,
            stats.seed,
            stats.back_to_back,
            gap(stats.min_gap),
            stats
                .mean_gap
                .map_or_else(|| "–".to_owned(), |g| format!("{g:.2}"))
        ));
        egui::Grid::new("hitlist-simulation")
            .striped(true)
            .num_columns(7)
            .show(ui, |ui| {
                for head in [
                    "ID",
                    "count",
                    "share",
                    "first pick",
                    "mean gap",
                    "min gap",
                    "longest absence",
                ] {
                    ui.strong(head);
                }
                ui.end_row();
                for row in &stats.entries {
                    ui.label(row.value.to_string());
                    ui.label(row.count.to_string());
                    ui.label(format!("{:.1} %", row.share * 100.0));
                    ui.label(gap(row.first_pick));
                    ui.label(
                        row.mean_gap
                            .map_or_else(|| "–".to_owned(), |g| format!("{g:.2}")),
                    );
                    ui.label(gap(row.min_gap));
                    ui.label(row.longest_absence.to_string());
                    ui.end_row();
                }
            });
        let bars: Vec<egui_plot::Bar> = stats
            .entries
            .iter()
            .enumerate()
            .map(|(i, row)| {
                egui_plot::Bar::new(i as f64, row.count as f64)
                    .name(row.value.to_string())
                    .width(0.7)
                    .fill(egui::Color32::from_rgb(0x3a, 0x78, 0xb8))
            })
            .collect();
        let ids_of_bars: Vec<u32> = stats.entries.iter().map(|r| r.value).collect();
        egui_plot::Plot::new("hitlist-simulation-plot")
            .height(110.0)
            .allow_zoom(false)
            .allow_drag(false)
            .allow_scroll(false)
            .include_y(0.0)
            .y_axis_label("count")
            .x_axis_formatter(move |mark, _| {
                // Bars stand at 0, 1, 2…: label them with their IDs.
                let index = mark.value.round();
                if (mark.value - index).abs() > 1e-6 || index < 0.0 {
                    return String::new();
                }
                ids_of_bars
                    .get(index as usize)
                    .map(u32::to_string)
                    .unwrap_or_default()
            })
            .show(ui, |plot| {
                plot.bar_chart(egui_plot::BarChart::new("picks", bars));
            });
        let order: Vec<String> = stats.preview.iter().map(u32::to_string).collect();
        ui.label(format!("first picks: {}", order.join(" ")));
    }
}

/// One ID of an entry and what it plays, with an audition button for a patch.
fn target_row(ui: &mut egui::Ui, target: &EntryTarget, commands: &mut Vec<Command>) {
    ui.horizontal(|ui| match &target.plays {
        Plays::Patch(sample) => {
            if ui
                .small_button("Play")
                .on_hover_text(format!("Audition patch {}", sample.patch))
                .clicked()
            {
                commands.push(Command::RunLine(format!("play {}", sample.patch)));
            }
            let file = sample.resource.as_deref().unwrap_or(&sample.path_text);
            let text = format!("patch {} {} — {file}", sample.patch, sample.name);
            if sample.exists {
                ui.label(text);
            } else {
                ui.colored_label(
                    ui.visuals().error_fg_color,
                    format!("{text} (sample file missing)"),
                );
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

impl Panel for HitListsPanel {
    fn title(&self) -> &'static str {
        "Hit lists"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<Command>) {
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
