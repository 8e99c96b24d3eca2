//! Files the workbench opens and writes for the user: the native file dialogs (rfd), folders
//! and files dropped on the window, plug-in directories, and rendering a script to a WAV
//! file in the background.
//!
//! **Dialogs never block the window.** A menu click starts a blocking `rfd::FileDialog` on
//! a helper thread (`hitbench-dialog`); what it chose comes back through a channel that
//! [`Workbench::poll_files`] reads every frame, so the window keeps drawing while the
//! dialog is open (and the engine, on its own thread, keeps playing anyway). This was
//! chosen over `rfd::AsyncFileDialog` because on Linux rfd's xdg-portal backend blocks on
//! its own future with pollster in any case, and a plain thread keeps futures out of the
//! UI loop. One dialog is open at a time. With no portal and no `zenity` (CI, a machine
//! without a desktop) rfd answers "nothing chosen" within milliseconds.
//!
//! **Tests never open a dialog**: dialogs are only opened from menu clicks in the real
//! window, and every action is a function taking the chosen paths —
//! [`open_project_dir`](Workbench::open_project_dir),
//! [`add_plugin_dir`](Workbench::add_plugin_dir),
//! [`remove_plugin_dir`](Workbench::remove_plugin_dir),
//! [`export_render`](Workbench::export_render), [`dropped`](Workbench::dropped).
//!
//! Renders run on a background thread: see `render_job`.

use super::Workbench;
pub use super::dialogs::Dialog;
use super::dialogs::{Picked, run_dialog, start_of};
use engine_core::host::capture::{Capture, CaptureError};
use engine_core::toolchain::project::PROJECT_EXTENSIONS;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::{Duration, Instant};

/// A dialog that answers "nothing chosen" sooner than this was never shown.
const NO_DIALOG: Duration = Duration::from_millis(150);

/// What a file menu entry asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileAction {
    /// Open a dialog.
    Dialog(Dialog),
    /// Stop loading this plug-in directory with the open project.
    RemovePlugin(PathBuf),
    /// End the live capture.
    StopCapture,
    /// Leave the capture view.
    CloseCapture,
}

/// The dialog and the render under way, if any.
#[derive(Debug, Default)]
pub struct FileJobs {
    /// The open dialog's answer (`None` inside: nothing chosen), and when it opened.
    dialog: Option<(Receiver<Option<Picked>>, Instant, Dialog)>,
    pub(super) render: Option<super::render_job::RenderJob>,
    pub(super) open: Option<super::opening::OpenJob>,
}

impl FileJobs {
    /// True while a file dialog is open, a render runs or a project loads.
    pub(super) fn busy(&self) -> bool {
        self.dialog.is_some() || self.render.is_some() || self.open.is_some()
    }
}

impl Workbench {
    /// The status bar's message.
    pub fn status(&self) -> &str {
        &self.status
    }

    /// The open project's plug-in directories, in load order.
    pub fn plugin_dirs(&self) -> &[PathBuf] {
        self.settings
            .plugins
            .get(self.project.root())
            .map_or(&[], Vec::as_slice)
    }

    /// True while a render started by [`export_render`](Self::export_render) runs.
    pub fn rendering(&self) -> bool {
        self.files.render.is_some()
    }

    /// Opens the project in `dir` (with its plug-in directories) and restarts the live
    /// engine on it, once it has loaded in the background (see
    /// [`open_in_background`](Self::open_in_background)).
    pub fn open_project_dir(&mut self, dir: &Path) {
        if !dir.is_dir() {
            self.status = format!("cannot open {}: not a folder", dir.display());
            return;
        }
        self.open_in_background(dir);
    }

    /// Adds `dir` as the open project's last plug-in directory (it overrides the project
    /// and the plug-ins before it): the project is loaded again with it and swapped into
    /// the running engine, which goes on playing (no restart). Remembered for this
    /// project in the settings. True when it was added (the status line says so, or
    /// why not).
    pub fn add_plugin_dir(&mut self, dir: &Path) -> bool {
        let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        let root = self.project.root().to_path_buf();
        if !dir.is_dir() {
            self.status = format!("cannot add {}: not a folder", dir.display());
        } else if dir == root {
            self.status = format!("{} is the project itself", dir.display());
        } else if !self.settings.add_plugin(&root, &dir) {
            self.status = format!("{} is already a plug-in directory", dir.display());
        } else {
            self.swap_dirs(&root);
            self.status = format!(
                "added plug-in directory {}: {} definition(s) overridden, {} problem(s)",
                dir.display(),
                self.project.overrides.len(),
                self.project.all_diagnostics().count()
            );
            self.save_settings_quietly();
            return true;
        }
        false
    }

    /// Stops loading `dir` with the open project: it is loaded again without it and
    /// swapped into the running engine (no restart). True when it was removed (the
    /// status line says so, or why not).
    pub fn remove_plugin_dir(&mut self, dir: &Path) -> bool {
        let root = self.project.root().to_path_buf();
        if self.settings.remove_plugin(&root, dir) {
            self.swap_dirs(&root);
            self.status = format!("removed plug-in directory {}", dir.display());
            self.save_settings_quietly();
            true
        } else {
            self.status = format!("{} is not a plug-in directory", dir.display());
            false
        }
    }

    /// Opens what was dropped on the window: a folder as the project; a file, the project
    /// folder it is in (the nearest folder above it holding project files). Anything else
    /// is said in the status bar.
    pub fn dropped(&mut self, paths: &[PathBuf]) {
        let Some(path) = paths
            .iter()
            .find(|p| p.is_dir())
            .or_else(|| paths.iter().find(|p| p.is_file()))
        else {
            self.status = match paths.first() {
                Some(p) => format!(
                    "cannot open {}: not a folder or a file on this machine",
                    p.display()
                ),
                None => "nothing to open in what was dropped (drop a project folder)".into(),
            };
            return;
        };
        if path.is_dir() {
            self.open_in_background(path);
        } else if is_capture(path) {
            self.open_capture(path);
        } else if let Some(folder) = project_folder_of(path) {
            self.open_in_background(&folder);
        } else {
            self.status = format!(
                "{} is not inside a project folder (drop the folder itself)",
                path.display()
            );
        }
    }

    /// Takes what the open dialog chose and the end of a render, and the files dropped on
    /// the window this frame. Called at the start of every frame.
    pub fn poll_files(&mut self, ctx: &egui::Context) {
        let dropped: Option<Vec<PathBuf>> = ctx.input(|i| {
            let files = &i.raw.dropped_files;
            (!files.is_empty()).then(|| {
                files
                    .iter()
                    .map(|f| f.path().to_path_buf())
                    .filter(|p| !p.as_os_str().is_empty())
                    .collect()
            })
        });
        if let Some(paths) = dropped {
            self.dropped(&paths);
        }
        self.poll_background();
    }

    /// Takes what the open dialog chose and the end of a render (without a window: tests
    /// call this while waiting).
    pub fn poll_background(&mut self) {
        if let Some((answer, opened, dialog)) = &self.files.dialog {
            match answer.try_recv() {
                Ok(Some(picked)) => {
                    self.files.dialog = None;
                    self.chosen(picked);
                }
                Ok(None) => {
                    // Nobody cancels a dialog this fast: rfd found no portal and no zenity.
                    let (fast, dialog) = (opened.elapsed() < NO_DIALOG, *dialog);
                    self.files.dialog = None;
                    if fast {
                        self.no_dialog(dialog);
                    } else {
                        self.status = "nothing chosen".into();
                    }
                }
                Err(TryRecvError::Empty) => {}
                Err(TryRecvError::Disconnected) => self.files.dialog = None,
            }
        }
        self.poll_render();
        self.poll_open();
    }

    /// What a File menu entry does when no file dialog can be shown (no desktop portal
    /// and no zenity): Start capture captures to the next free
    /// `captures/capture-NNN.hbcap` in the project folder; the others say in the status
    /// bar how else to do it.
    pub fn no_dialog(&mut self, dialog: Dialog) {
        const NONE: &str = "no file dialog could be shown (it needs a desktop portal or zenity)";
        self.status = match dialog {
            Dialog::StartCapture => match next_capture_path(self.project.root()) {
                Ok(path) => {
                    self.start_capture(&path);
                    format!("{NONE}, so: {}", self.status)
                }
                Err(e) => format!("{NONE}, and {e}"),
            },
            Dialog::OpenCapture => {
                format!("{NONE}: drop a capture (.hbcap) on the window to open it")
            }
            Dialog::SaveTrace => format!(
                "{NONE}: the Traces panel's Export writes the trace to the file named next to it"
            ),
            Dialog::ExportRender => format!(
                "{NONE}: `hitbench render <project> --script <file> -o <out.wav>` renders \
                 from the command line"
            ),
            Dialog::OpenProject => {
                format!("{NONE}: drop a folder on the window, or use `hitbench open <folder>`")
            }
            Dialog::AddPluginDir => format!(
                "{NONE}: render, play, test and replay take a plug-in folder as --plugin <folder>"
            ),
        };
    }

    /// Does what a file menu entry asked for.
    pub(super) fn file_action(&mut self, action: FileAction) {
        match action {
            FileAction::Dialog(dialog) => self.open_dialog(dialog),
            FileAction::RemovePlugin(dir) => {
                self.remove_plugin_dir(&dir);
            }
            FileAction::StopCapture => self.stop_capture(),
            FileAction::CloseCapture => self.close_capture(),
        }
    }

    /// The File menu's entries for projects, plug-ins, renders and traces.
    pub(super) fn file_menu(&self, ui: &mut egui::Ui, actions: &mut Vec<FileAction>) {
        let idle = self.files.dialog.is_none();
        let mut item = |ui: &mut egui::Ui, enabled: bool, label: &str, tip: &str, dialog| {
            if ui
                .add_enabled(enabled, egui::Button::new(label))
                .on_hover_text(tip)
                .clicked()
            {
                actions.push(FileAction::Dialog(dialog));
            }
        };
        item(
            ui,
            idle,
            "Open project…",
            "Choose a project folder (you can also drop one on the window)",
            Dialog::OpenProject,
        );
        item(
            ui,
            idle,
            "Add plug-in directory…",
            "Load a folder after the project: what it defines overrides the project's",
            Dialog::AddPluginDir,
        );
        let mut remove = None;
        ui.menu_button("Plug-in directories", |ui| {
            let plugins = self.plugin_dirs();
            if plugins.is_empty() {
                ui.label("none for this project");
            }
            for dir in plugins {
                ui.horizontal(|ui| {
                    ui.label(dir.display().to_string());
                    if ui
                        .small_button("Remove")
                        .on_hover_text("Load the project without this folder")
                        .clicked()
                    {
                        remove = Some(dir.clone());
                    }
                });
            }
        });
        ui.separator();
        item(
            ui,
            idle && self.files.render.is_none(),
            "Export render…",
            "Choose a script (*.txt) and a WAV file: the script is rendered offline",
            Dialog::ExportRender,
        );
        item(
            ui,
            idle,
            "Save trace…",
            "Write the trace records that pass the Traces panel's filter to a text file",
            Dialog::SaveTrace,
        );
        ui.separator();
        let mut stop = false;
        if self.capturing() {
            stop = ui
                .button("Stop capture")
                .on_hover_text("End the capture of the live session and write it")
                .clicked();
        } else {
            item(
                ui,
                idle && self.live.is_some(),
                "Start capture…",
                "Choose a file (*.hbcap): every command, decision and a keyframe of every \
                 panel's view are written to it until Stop capture (where no file dialog \
                 can be shown: the next captures/capture-NNN.hbcap in the project folder)",
                Dialog::StartCapture,
            );
        }
        item(
            ui,
            idle,
            "Open capture…",
            "Choose a capture (*.hbcap) and show it in every panel, with a timeline to scrub \
             (or drop one on the window)",
            Dialog::OpenCapture,
        );
        let close = self.capture.is_some()
            && ui
                .button("Close capture")
                .on_hover_text("Back to the live engine")
                .clicked();
        ui.separator();
        actions.extend(remove.map(FileAction::RemovePlugin));
        actions.extend(stop.then_some(FileAction::StopCapture));
        actions.extend(close.then_some(FileAction::CloseCapture));
    }

    /// Opens `dialog` on the helper thread (one at a time).
    fn open_dialog(&mut self, dialog: Dialog) {
        if self.files.dialog.is_some() {
            self.status = "a file dialog is already open".into();
            return;
        }
        let capture = self.capture.as_ref().map(|c| c.view.path.as_path());
        let start = start_of(dialog, self.project.root(), capture);
        let (send, answer) = channel();
        let spawned = std::thread::Builder::new()
            .name("hitbench-dialog".into())
            .spawn(move || {
                // The receiver may be gone (the window closed): nobody to tell then.
                let _ = send.send(run_dialog(dialog, &start));
            });
        match spawned {
            Ok(_) => self.files.dialog = Some((answer, Instant::now(), dialog)),
            Err(e) => self.status = format!("cannot open a file dialog: {e}"),
        }
    }

    /// Acts on what a dialog chose.
    fn chosen(&mut self, picked: Picked) {
        match picked {
            Picked::OpenProject(dir) => self.open_project_dir(&dir),
            Picked::AddPluginDir(dir) => {
                self.add_plugin_dir(&dir);
            }
            Picked::ExportRender { script, out } => self.export_render(&script, &out),
            Picked::SaveTrace(path) => {
                let filter = self.panels.traces.filter.clone();
                self.export_trace(&path, &filter);
            }
            Picked::OpenCapture(path) => self.open_capture(&path),
            Picked::StartCapture(path) => self.start_capture(&path),
        }
    }

    fn save_settings_quietly(&mut self) {
        if let Err(e) = self.save_settings() {
            eprintln!("hitbench: cannot save the workbench settings: {e}");
        }
    }
}

/// What `hitbench open <path>` opens: a folder as the project; a capture in the capture
/// view, on the project it was made with when that folder is still there (else the
/// usual one); another file, the project folder it is in.
#[derive(Default)]
pub struct ToOpen {
    /// The project folder (`None`: the usual one).
    pub project: Option<PathBuf>,
    /// The capture to show, and what reading it gave.
    pub capture: Option<(PathBuf, Result<Capture, CaptureError>)>,
}

/// What `hitbench open <path>` opens ([`ToOpen`]); a capture is read once, here.
pub fn what_to_open(path: &Path) -> ToOpen {
    if path.is_file() && is_capture(path) {
        let read = engine_core::host::capture::read(path);
        return ToOpen {
            // The capture's folders only once found and checked (they name the files
            // the capture lists); else the project open last time.
            project: read
                .as_ref()
                .ok()
                .and_then(|capture| engine_core::host::capture::project_dirs(capture, path).ok())
                .and_then(|dirs| dirs.into_iter().next()),
            capture: Some((path.to_path_buf(), read)),
        };
    }
    let folder = path.is_file().then(|| project_folder_of(path)).flatten();
    ToOpen {
        project: Some(folder.unwrap_or_else(|| path.to_path_buf())),
        capture: None,
    }
}

/// Whether a dropped file is a capture to open: a `.hbcap`, or JSON lines starting with
/// a capture's header.
fn is_capture(path: &Path) -> bool {
    match path.extension().and_then(|e| e.to_str()) {
        Some("hbcap") => true,
        Some("jsonl") => {
            let mut start = [0; 32];
            std::fs::File::open(path)
                .and_then(|mut f| std::io::Read::read(&mut f, &mut start))
                .is_ok_and(|n| {
                    String::from_utf8_lossy(&start[..n])
                        .replace(' ', "")
                        .starts_with("{\"line\":\"header\"")
                })
        }
        _ => false,
    }
}

/// The first `captures/capture-NNN.hbcap` in the project folder `root` that does not
/// exist yet (the folder made if need be), or why there is none.
pub fn next_capture_path(root: &Path) -> Result<PathBuf, String> {
    let dir = root.join("captures");
    std::fs::create_dir_all(&dir).map_err(|e| {
        format!(
            "no folder for captures could be made at {}: {e}",
            dir.display()
        )
    })?;
    free_capture(&dir).ok_or_else(|| format!("{} holds 9,999 captures already", dir.display()))
}

/// The first `capture-NNN.hbcap` in `dir` that does not exist yet.
fn free_capture(dir: &Path) -> Option<PathBuf> {
    (1..10_000)
        .map(|n| dir.join(format!("capture-{n:03}.hbcap")))
        .find(|path| !path.exists())
}

/// The name [`next_capture_path`] would take in `root`'s `captures` folder (made or
/// not), to offer in a dialog.
pub(super) fn free_capture_name(root: &Path) -> String {
    free_capture(&root.join("captures"))
        .and_then(|path| Some(path.file_name()?.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "capture.hbcap".to_owned())
}

/// The project folder `file` is in: the nearest folder above it that holds project files
/// (sources, tables, built sets) itself.
fn project_folder_of(file: &Path) -> Option<PathBuf> {
    let file = file.canonicalize().unwrap_or_else(|_| file.to_path_buf());
    file.ancestors()
        .skip(1)
        .filter(|dir| dir.parent().is_some())
        .find(|dir| holds_project_files(dir))
        .map(Path::to_path_buf)
}

fn holds_project_files(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|entry| {
        let path = entry.path();
        path.is_file()
            && path.extension().is_some_and(|e| {
                let e = e.to_string_lossy().to_ascii_lowercase();
                PROJECT_EXTENSIONS.contains(&e.as_str())
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine_core::sound::output::OutputChoice;

    fn workspace() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    fn demo() -> PathBuf {
        workspace()
            .join("projects/demo")
            .canonicalize()
            .unwrap_or_default()
    }

    /// A fresh temporary folder for `tag`.
    fn temp(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("hitbench-files-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.canonicalize().unwrap()
    }

    fn click_track(workbench: &Workbench) -> u32 {
        workbench.project().events["ui_click"].track_id
    }

    #[test]
    fn a_plugin_directory_overrides_until_removed_and_persists() {
        let config = temp("plugin-config");
        let plugin = temp("plugin-dir");
        // The plug-in maps the demo's ui_click event to the money sound's track.
        std::fs::write(
            plugin.join("override.hot"),
            "[EventMapping]\nui_click=kSndobPlay,0x2001,0,0,0,0\n",
        )
        .unwrap();

        let mut first = Workbench::new(Some(&demo()), OutputChoice::Null, Some(config.clone()));
        assert_eq!(click_track(&first), 0x2000);
        assert!(first.plugin_dirs().is_empty());
        let engine_time = |wb: &Workbench| wb.live.as_ref().map(|l| l.take_snapshot().now);
        let deadline = Instant::now() + Duration::from_secs(20);
        // Half a second in: a restarted engine would be back near 0.
        while engine_time(&first).is_none_or(|t| t.samples() < 24_000) && Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(20));
        }
        let before = engine_time(&first).unwrap();
        first.add_plugin_dir(&plugin);
        assert_eq!(click_track(&first), 0x2001, "{}", first.status());
        assert_eq!(first.project().dirs, [demo(), plugin.clone()]);
        assert_eq!(first.plugin_dirs(), std::slice::from_ref(&plugin));
        assert!(first.status().contains("added plug-in directory"));
        std::thread::sleep(Duration::from_millis(100));
        let after = engine_time(&first).unwrap();
        assert!(
            after >= before,
            "the engine plays on (a restart would start its clock again): {before:?} → {after:?}"
        );
        first.add_plugin_dir(&plugin);
        assert!(first.status().contains("already"), "{}", first.status());
        first.save_settings().unwrap();
        drop(first);

        // After a restart the plug-in is loaded with the project again.
        let mut second = Workbench::new(None, OutputChoice::Null, Some(config.clone()));
        assert_eq!(second.project().root(), demo());
        assert_eq!(click_track(&second), 0x2001);
        assert_eq!(second.plugin_dirs(), std::slice::from_ref(&plugin));
        // A reload keeps the plug-in too.
        second.reload();
        assert_eq!(click_track(&second), 0x2001);

        second.remove_plugin_dir(&plugin);
        assert_eq!(
            click_track(&second),
            0x2000,
            "removal restores the project's own"
        );
        assert!(second.plugin_dirs().is_empty());
        assert_eq!(second.project().dirs, [demo()]);
        second.remove_plugin_dir(&plugin);
        assert!(second.status().contains("is not a plug-in directory"));
        drop(second);
        let third = Workbench::new(None, OutputChoice::Null, Some(config.clone()));
        assert_eq!(click_track(&third), 0x2000, "the removal was remembered");
        drop(third);
        let _ = std::fs::remove_dir_all(&config);
        let _ = std::fs::remove_dir_all(&plugin);
    }

    /// Polls until the project being opened in the background has loaded (the deadline
    /// only stops a hung load).
    fn opened(workbench: &mut Workbench) {
        let deadline = Instant::now() + Duration::from_secs(120);
        while workbench.opening() {
            assert!(Instant::now() < deadline, "the project never loaded");
            std::thread::sleep(Duration::from_millis(5));
            workbench.poll_background();
        }
    }

    /// Polls until the render started last has finished (the deadline only stops a hung
    /// test; nothing is timed).
    fn wait_for_render(workbench: &mut Workbench) {
        let deadline = Instant::now() + Duration::from_secs(300);
        while workbench.rendering() {
            assert!(Instant::now() < deadline, "the render never finished");
            std::thread::sleep(Duration::from_millis(20));
            workbench.poll_background();
        }
    }

    #[test]
    fn export_render_writes_a_wav_in_the_background_and_reports_script_errors() {
        let config = temp("render-config");
        let dir = temp("render-out");
        let script = dir.join("click.txt");
        std::fs::write(&script, "0.0  ui ui click\n").unwrap();
        let out = dir.join("click.wav");
        let mut workbench = Workbench::new(Some(&demo()), OutputChoice::Null, Some(config.clone()));

        workbench.export_render(&script, &out);
        assert!(workbench.rendering());
        assert!(
            workbench.status().starts_with("rendering"),
            "{}",
            workbench.status()
        );
        workbench.export_render(&script, &out);
        assert!(workbench.status().contains("already running"));
        wait_for_render(&mut workbench);
        assert!(
            workbench.status().starts_with("rendered"),
            "{}",
            workbench.status()
        );
        let wav = std::fs::read(&out).unwrap();
        assert_eq!(&wav[..4], b"RIFF");
        assert_eq!(&wav[8..12], b"WAVE");
        assert!(
            wav.len() > 48_000,
            "about three seconds of sound: {}",
            wav.len()
        );

        let broken = dir.join("broken.txt");
        std::fs::write(
            &broken,
            "# a comment\n0.0  ui ui click\n1.0  frobnicate now\n",
        )
        .unwrap();
        let not_written = dir.join("broken.wav");
        workbench.export_render(&broken, &not_written);
        wait_for_render(&mut workbench);
        let status = workbench.status();
        assert!(status.contains("nothing rendered"), "{status}");
        assert!(status.contains("broken.txt:3"), "file:line in {status}");
        assert!(!not_written.exists());

        workbench.export_render(&dir.join("missing.txt"), &not_written);
        wait_for_render(&mut workbench);
        assert!(
            workbench.status().contains("cannot read"),
            "{}",
            workbench.status()
        );
        drop(workbench);
        let _ = std::fs::remove_dir_all(&config);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn dropping_a_folder_or_a_file_opens_its_project() {
        let config = temp("drop-config");
        let seed = workspace()
            .join("projects/seed-examples")
            .canonicalize()
            .unwrap();
        let mut workbench = Workbench::new(Some(&seed), OutputChoice::Null, Some(config.clone()));
        assert_eq!(workbench.project().root(), seed);

        workbench.dropped(&[demo()]);

        opened(&mut workbench);
        assert_eq!(workbench.project().root(), demo(), "a folder opens");

        workbench.open_project_dir(&seed);

        opened(&mut workbench);
        workbench.dropped(&[demo().join("ui.src")]);
        opened(&mut workbench);
        assert_eq!(
            workbench.project().root(),
            demo(),
            "a file opens its folder"
        );

        workbench.open_project_dir(&seed);

        opened(&mut workbench);
        let sample = demo().join("sounds/ui/click_knock.wav");
        assert!(sample.is_file());
        workbench.dropped(&[sample]);
        opened(&mut workbench);
        assert_eq!(
            workbench.project().root(),
            demo(),
            "a file deeper in a project opens the project folder"
        );

        workbench.open_project_dir(&seed);

        opened(&mut workbench);
        workbench.dropped(&[]);
        opened(&mut workbench);
        assert!(
            workbench.status().contains("nothing to open"),
            "{}",
            workbench.status()
        );
        workbench.dropped(&[PathBuf::from("/no/such/thing.src")]);
        opened(&mut workbench);
        assert!(
            workbench.status().contains("cannot open"),
            "{}",
            workbench.status()
        );
        assert_eq!(
            workbench.project().root(),
            seed,
            "nothing useful opens nothing"
        );
        workbench.open_project_dir(Path::new("/no/such/project"));
        opened(&mut workbench);
        assert!(workbench.status().contains("not a folder"));
        assert_eq!(workbench.project().root(), seed);
        drop(workbench);
        let _ = std::fs::remove_dir_all(&config);
    }
}
