//! The workbench's side of the hit-list editor: the IO the panel may not do. One
//! [`HitListEditor`] per file being edited, opened when the panel starts editing a list of
//! it (so a save can tell whether the file changed on disk since), the lists read from
//! their files when a project is shown, and how the last save went — all handed to the
//! panel as [`HitListData`].

use engine_core::toolchain::project::Project;
use engine_core::tools::hitlist_editor::{
    DiskStatus, HitListEditor, SaveError, SaveReport, hit_lists, parse_entry_text,
};
use panels::{HitListData, HitListEdit, SaveOutcome};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The hit-list files being edited and what the panel reads.
#[derive(Default)]
pub struct HitListSessions {
    editors: BTreeMap<PathBuf, HitListEditor>,
    /// What the hit-list panel reads.
    pub data: HitListData,
}

impl HitListSessions {
    /// Reads the lists of a project just loaded (or loaded again).
    pub fn project_loaded(&mut self, project: &Project) {
        self.data.views = hit_lists(project);
    }

    /// Starts editing `file`: remembers its content now (once; a file already being
    /// edited keeps what it was opened with).
    pub fn begin(&mut self, file: PathBuf) {
        if self.editors.contains_key(&file) {
            return;
        }
        match HitListEditor::open(&file) {
            Ok(editor) => {
                self.editors.insert(file, editor);
            }
            Err(e) => self.report(SaveOutcome::Failed(e.to_string())),
        }
    }

    /// Drops every editing session and the last outcome (the files are read again).
    pub fn discard(&mut self) {
        self.editors.clear();
        self.data.outcome = None;
    }

    fn report(&mut self, outcome: SaveOutcome) {
        self.data.saves += 1;
        self.data.outcome = Some(outcome);
    }

    /// Writes `edits` into their files. Refuses (writing nothing) when a file changed on
    /// disk since editing began, unless `force`. Returns true when files were written
    /// (the project should be loaded again).
    pub fn save(&mut self, edits: &[HitListEdit], force: bool) -> bool {
        let outcome = self.try_save(edits, force);
        let written = matches!(outcome, SaveOutcome::Saved { .. });
        self.report(outcome);
        written
    }

    fn try_save(&mut self, edits: &[HitListEdit], force: bool) -> SaveOutcome {
        let mut by_file: BTreeMap<PathBuf, Vec<&HitListEdit>> = BTreeMap::new();
        for edit in edits {
            by_file.entry(edit.file.clone()).or_default().push(edit);
        }
        // Apply every edit to a fresh copy of the document as opened.
        for (file, edits) in &by_file {
            if !self.editors.contains_key(file) {
                self.begin(file.clone());
            }
            let Some(editor) = self.editors.get_mut(file) else {
                return SaveOutcome::Failed(format!("cannot open {}", file.display()));
            };
            while editor.undo() {}
            for edit in edits {
                let entries: Result<Vec<_>, String> = edit
                    .entries
                    .iter()
                    .map(|text| parse_entry_text(text).map_err(|e| format!("`{text}`: {e}")))
                    .collect();
                let applied = entries.and_then(|entries| {
                    editor
                        .set_entries(&edit.key, &entries)
                        .map_err(|e| e.to_string())
                });
                if let Err(message) = applied {
                    return SaveOutcome::Failed(message);
                }
            }
        }
        // Nothing is written while any file changed on disk (unless forced).
        if !force {
            for (file, editor) in &self.editors {
                if !by_file.contains_key(file) {
                    continue;
                }
                let detail = match editor.disk_status() {
                    DiskStatus::Changed { detail } => detail,
                    DiskStatus::Missing => "it was deleted".to_owned(),
                    _ => continue,
                };
                return SaveOutcome::ChangedOnDisk {
                    file: file.clone(),
                    detail,
                };
            }
        }
        let editors = &mut self.editors;
        let written = save_each(by_file.keys(), force, |file, force| {
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
        // Saved files start afresh from what is on disk now.
        for file in &files {
            self.editors.remove(file);
        }
        SaveOutcome::Saved { files, lines }
    }
}

/// Saves each of `files` with `save` (`None`: nothing to save there): the files written
/// and the lines changed, or the outcome that stopped it (a file changed on disk, an
/// error) — what the hit-list editor's and the Properties panel's saves share.
pub(super) fn save_each<'a>(
    files: impl IntoIterator<Item = &'a PathBuf>,
    force: bool,
    mut save: impl FnMut(&PathBuf, bool) -> Option<Result<SaveReport, SaveError>>,
) -> Result<(Vec<PathBuf>, usize), SaveOutcome> {
    let (mut written, mut lines) = (Vec::new(), 0);
    for file in files {
        match save(file, force) {
            None => {}
            Some(Ok(report)) => {
                lines += report.changed.len();
                written.push(file.clone());
            }
            Some(Err(SaveError::ChangedOnDisk { path, detail, .. })) => {
                return Err(SaveOutcome::ChangedOnDisk { file: path, detail });
            }
            Some(Err(e)) => return Err(SaveOutcome::Failed(e.to_string())),
        }
    }
    Ok((written, lines))
}

#[cfg(test)]
mod tests {
    use super::super::Workbench;
    use engine_core::sound::output::OutputChoice;
    use panels::{AppCommand, HitListEdit, SaveOutcome};
    use std::path::{Path, PathBuf};

    /// A temporary project with a `.hot` of patches and hit lists (CRLF, comments).
    struct TempProject(PathBuf);

    impl Drop for TempProject {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    const HOT: &str = "; the test lot\r\n[Patch]\r\n100=0,step_a,\"sounds\\a.wav\",0,0,0,0,0\r\n101=0,step_b,\"sounds\\b.wav\",0,0,0,0,0\r\n\r\n[GlobalHitList]\r\n; footsteps\r\n92 = 100, 101 ; the walk\r\n93=100\r\n";

    fn project(tag: &str) -> TempProject {
        let dir = std::env::temp_dir().join(format!(
            "hitbench-workbench-hitlists-{tag}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("lot.hot"), HOT).unwrap();
        TempProject(dir)
    }

    fn edit(file: &Path, key: &str, entries: &[&str]) -> HitListEdit {
        HitListEdit {
            file: file.to_path_buf(),
            key: key.into(),
            entries: entries.iter().map(|e| (*e).to_owned()).collect(),
        }
    }

    #[test]
    fn saving_changes_only_the_edited_line_and_catches_external_changes() {
        let p = project("save");
        let hot = p.0.join("lot.hot");
        let mut workbench = Workbench::new(Some(&p.0), OutputChoice::Null, None);
        assert!(
            workbench
                .hitlists
                .data
                .views
                .iter()
                .any(|v| v.id == 92 && v.text == "100, 101"),
            "{:#?}",
            workbench.hitlists.data.views
        );

        // Save: only line 8 changes; the spelling of kept entries and the comment stay,
        // a new entry is written plainly.
        workbench.apply(vec![
            AppCommand::EditHitLists(hot.clone()),
            AppCommand::SaveHitLists {
                edits: vec![edit(&hot, "92", &["101", "100", "0x65"])],
                force: false,
            },
        ]);
        assert!(
            matches!(
                &workbench.hitlists.data.outcome,
                Some(SaveOutcome::Saved { lines: 1, .. })
            ),
            "{:?}",
            workbench.hitlists.data.outcome
        );
        let after = std::fs::read_to_string(&hot).unwrap();
        assert_eq!(
            after,
            HOT.replace("92 = 100, 101 ;", "92 = 101, 100, 101 ;")
        );
        // The project was loaded again: the panel sees the new list.
        assert!(
            workbench
                .hitlists
                .data
                .views
                .iter()
                .any(|v| v.id == 92 && v.text == "101, 100, 101")
        );

        // Start editing, then someone else changes the file: saving is refused and the
        // file keeps their change.
        workbench.apply(vec![AppCommand::EditHitLists(hot.clone())]);
        let theirs = after.replace("93=100", "93=101");
        std::fs::write(&hot, &theirs).unwrap();
        let saves = workbench.hitlists.data.saves;
        workbench.apply(vec![AppCommand::SaveHitLists {
            edits: vec![edit(&hot, "92", &["100"])],
            force: false,
        }]);
        assert_eq!(workbench.hitlists.data.saves, saves + 1);
        match &workbench.hitlists.data.outcome {
            Some(SaveOutcome::ChangedOnDisk { file, detail }) => {
                assert_eq!(file, &hot);
                assert!(detail.contains("line 9"), "{detail}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(std::fs::read_to_string(&hot).unwrap(), theirs);

        // Save anyway: ours replaces theirs.
        workbench.apply(vec![AppCommand::SaveHitLists {
            edits: vec![edit(&hot, "92", &["100"])],
            force: true,
        }]);
        assert!(matches!(
            workbench.hitlists.data.outcome,
            Some(SaveOutcome::Saved { .. })
        ));
        let forced = std::fs::read_to_string(&hot).unwrap();
        assert!(forced.contains("92 = 100 ; the walk\r\n"), "{forced}");
        assert!(forced.contains("93=100\r\n"), "{forced}");

        // Reload drops the sessions and the warning.
        workbench.apply(vec![
            AppCommand::EditHitLists(hot.clone()),
            AppCommand::ReloadHitLists,
        ]);
        assert!(workbench.hitlists.data.outcome.is_none());
        assert!(workbench.hitlists.editors.is_empty());
    }

    #[test]
    fn a_bad_entry_is_reported_and_nothing_is_written() {
        let p = project("bad");
        let hot = p.0.join("lot.hot");
        let mut workbench = Workbench::new(Some(&p.0), OutputChoice::Null, None);
        workbench.apply(vec![AppCommand::SaveHitLists {
            edits: vec![edit(&hot, "92", &["100", "9-3"])],
            force: false,
        }]);
        assert!(
            matches!(
                &workbench.hitlists.data.outcome,
                Some(SaveOutcome::Failed(m)) if m.contains("9-3")
            ),
            "{:?}",
            workbench.hitlists.data.outcome
        );
        assert_eq!(std::fs::read_to_string(&hot).unwrap(), HOT);
    }
}
