//! The workbench's side of the Properties panel: one [`PropertyEditor`] per file with
//! unsaved edits, one undo history across them, the live values sent to the engine (a
//! typed `tune` command for each field whose value differs from what the engine was last
//! told — and the file's value again when an edit is undone or reverted), saving, and what
//! the panel reads ([`PropertiesData`]).

use super::Workbench;
use engine_core::host::command::Command;
use engine_core::toolchain::project::Project;
use engine_core::tools::hitlist_editor::DiskStatus;
use engine_core::tools::properties::{
    Property, PropertyEditor, PropertyInput, PropertyTarget, file_of,
};
use panels::{
    AppCommand, PropertiesData, SaveOutcome, Selection, SnapshotCommand, SnapshotData, SnapshotDiff,
};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A field the engine was told about: its value sent, and the file's value.
type Sent = BTreeMap<(PropertyTarget, Property), (i64, Option<i64>)>;

/// An A/B snapshot: each edited field's text, and its text in the file.
type Snapshot = BTreeMap<(PropertyTarget, Property), (String, String)>;

/// The files being tuned and what the Properties panel reads.
#[derive(Default)]
pub struct PropertySessions {
    editors: BTreeMap<PathBuf, PropertyEditor>,
    /// The file of each edit, newest last (undo takes the last), and of each undone one.
    undo_files: Vec<PathBuf>,
    redo_files: Vec<PathBuf>,
    /// The field the last edit changed, so a drag continues it.
    last_edit: Option<(PropertyTarget, Property)>,
    /// What the engine was told and not yet saved.
    sent: Sent,
    /// Snapshots A and B, and the one the edits are now.
    snapshots: [Option<Snapshot>; 2],
    active: Option<usize>,
    /// What the panel reads.
    pub data: PropertiesData,
}

impl PropertySessions {
    /// Shows `target`.
    pub fn show(&mut self, project: &Project, target: PropertyTarget) {
        self.data.target = Some(target);
        self.data.error = None;
        self.refresh(project);
    }

    /// The target a selection stands for: a track by name, a voice's track.
    pub fn follow(
        &mut self,
        project: &Project,
        selection: &Selection,
        voices: &[engine_core::tools::inspect::VoiceView],
    ) {
        let track = match selection {
            Selection::Track(name) => project
                .tracks
                .values()
                .find(|t| *t.name == **name)
                .map(|t| t.id),
            Selection::Voice(slot) => voices
                .get(*slot)
                .and_then(|v| v.occupant.as_ref())
                .map(|o| o.track),
            Selection::Object(object) => voices
                .iter()
                .filter_map(|v| v.occupant.as_ref())
                .find(|o| o.source == Some(*object) || o.owners.contains(object))
                .map(|o| o.track),
        };
        if let Some(id) = track {
            self.show(project, PropertyTarget::Track(id));
        }
    }

    fn editor(
        &mut self,
        project: &Project,
        target: &PropertyTarget,
    ) -> Result<&mut PropertyEditor, String> {
        let file = file_of(target, project).map_err(|e| e.to_string())?;
        if !self.editors.contains_key(&file) {
            let editor = PropertyEditor::open(&file).map_err(|e| e.to_string())?;
            self.editors.insert(file.clone(), editor);
        }
        self.editors
            .get_mut(&file)
            .ok_or_else(|| format!("cannot open {}", file.display()))
    }

    /// True if an edit of `property` of `target` with `merge` continues the last edit (a
    /// value being dragged): it takes that edit's undo step, and its `tune` that edit's
    /// line in the console history.
    pub fn continues(&self, target: &PropertyTarget, property: Property, merge: bool) -> bool {
        merge && self.last_edit.as_ref() == Some(&(target.clone(), property))
    }

    /// Applies one edit; returns the commands that tell the engine.
    pub fn edit(
        &mut self,
        project: &Project,
        target: &PropertyTarget,
        property: Property,
        input: &PropertyInput,
        merge: bool,
    ) -> Vec<Command> {
        let continues = self.continues(target, property, merge);
        let done = self.editor(project, target).and_then(|editor| {
            let changed = if continues {
                editor.amend(project, target, property, input)
            } else {
                editor.set(project, target, property, input)
            };
            changed
                .map(|new_step| (editor.path().to_path_buf(), new_step))
                .map_err(|e| e.to_string())
        });
        match done {
            Ok((file, new_step)) => {
                self.active = None;
                if new_step {
                    self.undo_files.push(file);
                    self.redo_files.clear();
                }
                self.last_edit = Some((target.clone(), property));
                self.data.error = None;
                self.data.outcome = None;
            }
            Err(why) => self.data.error = Some(why),
        }
        self.sync(project)
    }

    /// Undoes the newest edit (`redo`: redoes the newest undone one).
    pub fn step(&mut self, project: &Project, redo: bool) -> Vec<Command> {
        let (from, to) = if redo {
            (&mut self.redo_files, &mut self.undo_files)
        } else {
            (&mut self.undo_files, &mut self.redo_files)
        };
        if let Some(file) = from.pop() {
            if let Some(editor) = self.editors.get_mut(&file) {
                if redo {
                    editor.redo()
                } else {
                    editor.undo()
                };
            }
            to.push(file);
        }
        self.last_edit = None;
        self.active = None;
        self.sync(project)
    }

    /// Drops every unsaved edit.
    pub fn revert(&mut self, project: &Project) -> Vec<Command> {
        self.active = None;
        self.editors.clear();
        self.undo_files.clear();
        self.redo_files.clear();
        self.last_edit = None;
        self.data.error = None;
        self.sync(project)
    }

    /// Tells the engine what changed since it was last told: a value per edited field,
    /// the file's value for a field no longer edited.
    fn sync(&mut self, project: &Project) -> Vec<Command> {
        let mut wanted: Sent = BTreeMap::new();
        for editor in self.editors.values() {
            for pending in editor.pending(project) {
                if let (true, Some(value)) = (pending.property.is_live(), pending.value) {
                    wanted.insert(
                        (pending.target, pending.property),
                        (value, pending.saved_value),
                    );
                }
            }
        }
        let mut commands = Vec::new();
        for ((target, property), (value, _)) in &wanted {
            if self.sent.get(&(target.clone(), *property)).map(|s| s.0) != Some(*value) {
                commands.push(tune(target, *property, *value));
            }
        }
        for ((target, property), (_, saved)) in &self.sent {
            if let (false, Some(saved)) = (wanted.contains_key(&(target.clone(), *property)), saved)
            {
                commands.push(tune(target, *property, *saved));
            }
        }
        self.sent = wanted;
        self.refresh(project);
        commands
    }

    /// The project was read again (a reload, a save): the engine has the files' values,
    /// so every edit still unsaved is sent again, and a file someone else changed shows
    /// their values in the fields not edited here.
    /// Edits of files that are not the project's (another project was opened) are
    /// dropped.
    pub fn project_loaded(&mut self, project: &Project) -> Vec<Command> {
        let ours = |file: &PathBuf| project.dirs.iter().any(|d| file.starts_with(d));
        self.editors.retain(|file, _| ours(file));
        for editor in self.editors.values_mut() {
            editor.follow_disk();
        }
        self.undo_files.retain(ours);
        self.redo_files.retain(ours);
        if self
            .data
            .target
            .as_ref()
            .is_some_and(|t| t.origin(project).is_none())
        {
            self.data.target = None;
        }
        self.sent.clear();
        self.sync(project)
    }

    /// Writes every edited file. Refuses (writing nothing) while one changed on disk,
    /// unless `force`. True when files were written (the project is read again).
    pub fn save(&mut self, force: bool) -> bool {
        let outcome = self.try_save(force);
        let written = matches!(outcome, SaveOutcome::Saved { .. });
        self.data.saves += 1;
        self.data.outcome = Some(outcome);
        written
    }

    fn try_save(&mut self, force: bool) -> SaveOutcome {
        if !force {
            for (file, editor) in &self.editors {
                let detail = match editor.disk_status() {
                    DiskStatus::Changed { detail } => detail,
                    DiskStatus::Missing => "it was deleted".to_owned(),
                    _ => continue,
                };
                if editor.is_modified() {
                    return SaveOutcome::ChangedOnDisk {
                        file: file.clone(),
                        detail,
                    };
                }
            }
        }
        let modified: Vec<PathBuf> = self
            .editors
            .iter()
            .filter(|(_, e)| e.is_modified())
            .map(|(file, _)| file.clone())
            .collect();
        let editors = &mut self.editors;
        let written = super::hitlist_sessions::save_each(&modified, force, |file, force| {
            let editor = editors.get_mut(file)?;
            Some(if force {
                editor.save_anyway()
            } else {
                editor.save()
            })
        });
        let (files, lines) = match written {
            Ok(written) => written,
            Err(outcome) => return outcome,
        };
        // Saved files start afresh; the engine gets their values from the reload.
        for file in &files {
            self.editors.remove(file);
        }
        self.undo_files.retain(|f| !files.contains(f));
        self.redo_files.retain(|f| !files.contains(f));
        self.last_edit = None;
        SaveOutcome::Saved { files, lines }
    }

    /// An A/B snapshot command; returns the commands that tell the engine.
    pub fn snapshot(&mut self, project: &Project, command: SnapshotCommand) -> Vec<Command> {
        match command {
            SnapshotCommand::Store(slot) => {
                let snapshot: Snapshot = self
                    .editors
                    .values()
                    .flat_map(|e| e.pending(project))
                    .map(|p| ((p.target, p.property), (p.text, p.saved_text)))
                    .collect();
                if let Some(stored) = self.snapshots.get_mut(slot) {
                    *stored = Some(snapshot);
                    self.active = Some(slot);
                }
                // A drag goes no further than the snapshot: the next edit is one of its own.
                self.last_edit = None;
                self.refresh(project);
                Vec::new()
            }
            SnapshotCommand::Recall(slot) => self.recall(project, slot),
            SnapshotCommand::Keep(slot) => {
                let commands = self.recall(project, slot);
                self.snapshots = [None, None];
                self.active = None;
                self.refresh(project);
                commands
            }
        }
    }

    /// Makes snapshot `slot`'s edits the unsaved edits (a fresh undo history).
    fn recall(&mut self, project: &Project, slot: usize) -> Vec<Command> {
        let Some(Some(snapshot)) = self.snapshots.get(slot).cloned() else {
            return Vec::new();
        };
        self.editors.clear();
        self.undo_files.clear();
        self.redo_files.clear();
        self.last_edit = None;
        self.data.error = None;
        for ((target, property), (text, _)) in &snapshot {
            let input = PropertyInput::Text(text.clone());
            let applied = self.editor(project, target).and_then(|e| {
                e.set(project, target, *property, &input)
                    .map_err(|e| e.to_string())
            });
            if let Err(why) = applied {
                self.data.error = Some(why);
            }
        }
        self.active = Some(slot);
        self.sync(project)
    }

    /// The snapshots as the panel shows them: sizes, the active one, the diff.
    fn snapshot_data(&self, project: &Project) -> SnapshotData {
        let empty = Snapshot::new();
        let [a, b] = [0, 1].map(|i| self.snapshots[i].as_ref().unwrap_or(&empty));
        let keys: std::collections::BTreeSet<_> = a.keys().chain(b.keys()).collect();
        let diff = keys
            .into_iter()
            .filter_map(|key| {
                let saved = a.get(key).or_else(|| b.get(key)).map(|(_, s)| s.clone())?;
                let value =
                    |s: &Snapshot| s.get(key).map_or_else(|| saved.clone(), |(t, _)| t.clone());
                let values = [value(a), value(b)];
                let name = key.0.name(project).unwrap_or_default();
                (values[0] != values[1]).then(|| SnapshotDiff {
                    target: format!("{} {name}", key.0),
                    property: key.1,
                    values,
                })
            })
            .collect();
        SnapshotData {
            stored: [0, 1].map(|i| self.snapshots[i].as_ref().map(BTreeMap::len)),
            active: self.active,
            diff,
        }
    }

    /// Reads the shown target's sheet, the undo state and the pending lines again.
    pub fn refresh(&mut self, project: &Project) {
        self.data.snapshots = self.snapshot_data(project);
        self.data.can_undo = !self.undo_files.is_empty();
        self.data.can_redo = !self.redo_files.is_empty();
        self.data.changes = self
            .editors
            .iter()
            .filter(|(_, e)| e.is_modified())
            .map(|(file, e)| (file.clone(), e.pending_changes()))
            .collect();
        self.data.sheet = self.data.target.clone().map(|target| {
            let file = file_of(&target, project).map_err(|e| e.to_string())?;
            match self.editors.get(&file) {
                Some(editor) => editor.sheet(project, &target),
                None => PropertyEditor::open(&file).and_then(|e| e.sheet(project, &target)),
            }
            .map_err(|e| e.to_string())
        });
    }
}

fn tune(target: &PropertyTarget, property: Property, value: i64) -> Command {
    Command::Tune {
        target: target.clone(),
        property,
        value,
    }
}

impl Workbench {
    /// Shows `target` in the Properties panel (what a Browser row's "Properties" does).
    pub fn show_properties(&mut self, target: PropertyTarget) {
        self.property_command(AppCommand::ShowProperties(target));
    }

    /// Carries out a Properties panel command.
    pub(super) fn property_command(&mut self, command: AppCommand) {
        let project = &self.project;
        // The tunes of an edit continuing a drag replace the drag's line in the console
        // history; every other one is a line of its own.
        let continues = matches!(
            &command,
            AppCommand::EditProperty { target, property, merge, .. }
                if self.properties.continues(target, *property, *merge)
        );
        let tunes = match command {
            AppCommand::ShowProperties(target) => {
                self.properties.show(project, target);
                super::dock::show_pane(&mut self.tree, super::dock::Pane::Properties);
                Vec::new()
            }
            AppCommand::EditProperty {
                target,
                property,
                input,
                merge,
            } => self
                .properties
                .edit(project, &target, property, &input, merge),
            AppCommand::UndoProperty => self.properties.step(project, false),
            AppCommand::RedoProperty => self.properties.step(project, true),
            AppCommand::RevertProperties => self.properties.revert(project),
            AppCommand::Snapshot(command) => self.properties.snapshot(project, command),
            AppCommand::SaveProperties { force } => {
                if self.properties.save(force) {
                    self.reload();
                }
                Vec::new()
            }
            _ => Vec::new(),
        };
        for command in tunes {
            if continues {
                self.continuing.push(command.to_string());
            }
            self.run_command(command);
        }
    }
}
