//! The File menu's native dialogs (rfd): what each asks for, where it starts — one helper,
//! [`start_of`], for every dialog — and showing it (on the `hitbench-dialog` thread,
//! `files.rs`).

use std::path::{Path, PathBuf};

/// A file dialog the File menu opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialog {
    /// Choose a project folder and open it.
    OpenProject,
    /// Choose a folder and add it as a plug-in directory of the open project.
    AddPluginDir,
    /// Choose a script (`*.txt`), then the WAV file to render it to.
    ExportRender,
    /// Choose the text file the trace (with the Traces panel's filter) is written to.
    SaveTrace,
    /// Choose a capture file and show it in the capture view.
    OpenCapture,
    /// Choose the capture file the live session is captured into.
    StartCapture,
}

impl Dialog {
    /// Every dialog.
    pub const ALL: [Dialog; 6] = [
        Dialog::OpenProject,
        Dialog::AddPluginDir,
        Dialog::ExportRender,
        Dialog::SaveTrace,
        Dialog::OpenCapture,
        Dialog::StartCapture,
    ];
}

/// What a dialog chose.
#[derive(Debug)]
pub(super) enum Picked {
    OpenProject(PathBuf),
    AddPluginDir(PathBuf),
    ExportRender { script: PathBuf, out: PathBuf },
    SaveTrace(PathBuf),
    OpenCapture(PathBuf),
    StartCapture(PathBuf),
}

/// Where a dialog starts: the folder it shows first, and the file name it offers (a
/// save dialog's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialogStart {
    /// The folder shown first (absolute), if there is one to show.
    pub folder: Option<PathBuf>,
    /// The name offered for the file to write.
    pub file_name: Option<String>,
}

/// Where `dialog` starts for the project in `root`, with the capture at `capture` open
/// (if one is): every dialog in the project folder — a capture's in the open capture's
/// folder, else the project's `captures` folder when there is one, where Start capture
/// writes by default; Start capture offers the next free `capture-NNN.hbcap` there.
pub fn start_of(dialog: Dialog, root: &Path, capture: Option<&Path>) -> DialogStart {
    // Absolute: a dialog started on a relative folder (a project given as
    // `projects/demo`) may show its own idea of where that is, or the home folder.
    let absolute = |dir: &Path| dir.canonicalize().ok().filter(|d| d.is_dir());
    let project = absolute(root);
    let captures = absolute(&root.join("captures"));
    let (folder, file_name) = match dialog {
        Dialog::OpenCapture => (
            capture
                .and_then(Path::parent)
                .and_then(absolute)
                .or(captures)
                .or(project),
            None,
        ),
        Dialog::StartCapture => {
            let next = super::files::free_capture_name(root);
            (captures.or(project), Some(next))
        }
        Dialog::SaveTrace => (project, Some("trace.txt".to_owned())),
        Dialog::OpenProject | Dialog::AddPluginDir | Dialog::ExportRender => (project, None),
    };
    DialogStart { folder, file_name }
}

/// Shows `dialog` (blocking this thread), starting where [`start_of`] says.
pub(super) fn run_dialog(dialog: Dialog, start: &DialogStart) -> Option<Picked> {
    let open = |title: &str| {
        let d = rfd::FileDialog::new().set_title(title);
        let d = match &start.folder {
            Some(folder) => d.set_directory(folder),
            None => d,
        };
        match &start.file_name {
            Some(name) => d.set_file_name(name),
            None => d,
        }
    };
    match dialog {
        Dialog::OpenProject => open("Open project folder")
            .pick_folder()
            .map(Picked::OpenProject),
        Dialog::AddPluginDir => open("Add plug-in directory")
            .pick_folder()
            .map(Picked::AddPluginDir),
        Dialog::ExportRender => {
            let script = open("Script to render")
                .add_filter("Scripts", &["txt"])
                .pick_file()?;
            let name = script
                .file_stem()
                .map_or_else(|| "render".into(), |s| s.to_string_lossy().into_owned());
            let out = open("Render to WAV file")
                .add_filter("WAV audio", &["wav"])
                .set_file_name(format!("{name}.wav"))
                .save_file()?;
            Some(Picked::ExportRender { script, out })
        }
        Dialog::SaveTrace => open("Save trace")
            .add_filter("Text", &["txt"])
            .save_file()
            .map(Picked::SaveTrace),
        Dialog::OpenCapture => open("Open capture")
            .add_filter("Captures", &["hbcap"])
            .pick_file()
            .map(Picked::OpenCapture),
        Dialog::StartCapture => open("Capture the live session to")
            .add_filter("Captures", &["hbcap"])
            .save_file()
            .map(Picked::StartCapture),
    }
}

#[cfg(test)]
mod tests {
    use super::{Dialog, start_of};
    use std::path::{Path, PathBuf};

    fn temp(tag: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("hitbench-dialogs-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn every_dialog_starts_in_the_project_folder_or_its_captures() {
        let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/demo");
        let root = demo.canonicalize().unwrap();
        // The project as given on the command line: relative to the working folder.
        let relative = pathdiff_to_cwd(&root);
        for given in [root.clone(), relative] {
            for dialog in Dialog::ALL {
                let start = start_of(dialog, &given, None);
                let folder = start
                    .folder
                    .unwrap_or_else(|| panic!("{dialog:?}: no folder"));
                assert!(
                    folder.is_absolute(),
                    "{dialog:?} from {given:?}: {folder:?}"
                );
                assert_eq!(folder, root, "{dialog:?} from {given:?}");
            }
        }
        // With a captures folder, the capture dialogs start there, Start capture with the
        // next free name; with a capture open, Open capture starts beside it.
        let project = temp("captures");
        std::fs::write(project.join("a.src"), "").unwrap();
        std::fs::create_dir_all(project.join("captures")).unwrap();
        std::fs::write(project.join("captures/capture-001.hbcap"), b"taken").unwrap();
        let captures = project.join("captures").canonicalize().unwrap();
        for dialog in [Dialog::OpenCapture, Dialog::StartCapture] {
            let start = start_of(dialog, &project, None);
            assert_eq!(start.folder.as_ref(), Some(&captures), "{dialog:?}");
        }
        assert_eq!(
            start_of(Dialog::StartCapture, &project, None)
                .file_name
                .as_deref(),
            Some("capture-002.hbcap")
        );
        let elsewhere = temp("elsewhere");
        let open = elsewhere.join("old.hbcap");
        assert_eq!(
            start_of(Dialog::OpenCapture, &project, Some(&open)).folder,
            Some(elsewhere.canonicalize().unwrap())
        );
        assert_eq!(
            start_of(Dialog::SaveTrace, &project, None).folder,
            Some(project.canonicalize().unwrap())
        );
        let _ = std::fs::remove_dir_all(&project);
        let _ = std::fs::remove_dir_all(&elsewhere);
    }

    /// `path` relative to the working folder (`..` as needed).
    fn pathdiff_to_cwd(path: &Path) -> PathBuf {
        let cwd = std::env::current_dir().unwrap().canonicalize().unwrap();
        let common = cwd
            .ancestors()
            .find(|a| path.starts_with(a))
            .unwrap()
            .to_path_buf();
        let ups = cwd.strip_prefix(&common).unwrap().components().count();
        let mut relative = PathBuf::new();
        for _ in 0..ups {
            relative.push("..");
        }
        relative.join(path.strip_prefix(&common).unwrap())
    }
}
