//! The workbench window: eframe, the panels laid out around the source view, and the
//! one place where panel commands are applied.

use anyhow::Context as _;
use engine_core::live::{LiveCommand, LiveEngine};
use engine_core::output::OutputChoice;
use engine_core::project::Project;
use engine_core::session::SessionConfig;
use panels::{
    Command, ConsoleEntry, ConsolePanel, Panel, PanelContext, ProblemsPanel, SourceText,
    SourceViewPanel, SourcesPanel,
};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Window title prefix.
pub const APP_NAME: &str = "HitBench";

/// The workbench's state: the project, the live engine and the panels.
pub struct Workbench {
    project: Project,
    /// The engine playing the project (None if its thread could not start).
    live: Option<LiveEngine>,
    /// Where the sound goes: a few words, and the whole story.
    audio: (String, String),
    console_log: Vec<ConsoleEntry>,
    source: Option<SourceText>,
    sources: SourcesPanel,
    problems: ProblemsPanel,
    source_view: SourceViewPanel,
    console: ConsolePanel,
    status: String,
}

/// How often the window refreshes live state while nothing else happens.
const LIVE_REFRESH: Duration = Duration::from_millis(100);

impl Workbench {
    /// Loads the project in `dir` and starts the live engine on `audio`, saying once
    /// (on standard error and in the status bar) where the sound goes.
    pub fn new(dir: &Path, audio: OutputChoice) -> Self {
        let project = Project::load(dir);
        let (live, audio) =
            match LiveEngine::start(project.clone(), audio, SessionConfig::default()) {
                Ok(live) => {
                    let kind = &live.output.kind;
                    let audio = (format!("audio: {}", kind.short()), kind.describe());
                    (Some(live), audio)
                }
                Err(e) => (
                    None,
                    (
                        "audio: off".to_string(),
                        format!("cannot start the engine thread: {e}"),
                    ),
                ),
            };
        eprintln!("hitbench: audio: {}", audio.1);
        let mut workbench = Self {
            project: Project::default(),
            live,
            audio,
            console_log: Vec::new(),
            source: None,
            sources: SourcesPanel::default(),
            problems: ProblemsPanel::default(),
            source_view: SourceViewPanel::default(),
            console: ConsolePanel::default(),
            status: String::new(),
        };
        workbench.show_project(project);
        workbench
    }

    fn show_project(&mut self, project: Project) {
        self.project = project;
        let problems = self.project.all_diagnostics().count();
        self.status = format!(
            "{}: {} source file(s), {problems} problem(s)",
            self.project.root().display(),
            self.project.units.len()
        );
    }

    /// Loads the project again and hands it to the live engine.
    fn reload(&mut self) {
        let project = Project::load(self.project.root());
        if let Some(live) = &self.live {
            live.send(LiveCommand::Project(Box::new(project.clone())));
        }
        self.show_project(project);
    }

    fn run_line(&mut self, line: String) {
        match &self.live {
            Some(live) if live.line(&line) => {}
            _ => self.console_log.push(ConsoleEntry {
                input: line,
                reply: Err("the engine is not running".into()),
            }),
        }
    }

    /// Moves the engine's replies into the console and returns a line of live state.
    fn poll_live(&mut self) -> String {
        let Some(live) = &self.live else {
            return self.audio.0.clone();
        };
        let snapshot = live.take_snapshot();
        self.console_log.extend(
            snapshot
                .replies
                .into_iter()
                .map(|(input, reply)| ConsoleEntry { input, reply }),
        );
        format!(
            "{} · voices {}/{} · underruns {}",
            self.audio.0, snapshot.voices.0, snapshot.voices.1, snapshot.mixer.underruns
        )
    }

    /// Applies what the panels asked for this frame.
    fn apply(&mut self, commands: Vec<Command>) {
        for command in commands {
            match command {
                Command::OpenSource { path, line } => self.open_source(path, line),
                Command::ReloadProject => self.reload(),
                Command::RunLine(line) => self.run_line(line),
            }
        }
    }

    fn open_source(&mut self, path: PathBuf, line: u32) {
        match std::fs::read(&path) {
            Ok(bytes) => {
                self.source = Some(SourceText {
                    path,
                    text: String::from_utf8_lossy(&bytes).into_owned(),
                    line,
                });
            }
            Err(e) => self.status = format!("cannot open {}: {e}", path.display()),
        }
    }
}

impl eframe::App for Workbench {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let mut commands = Vec::new();
        let live = self.poll_live();
        ui.ctx().request_repaint_after(LIVE_REFRESH);
        egui::Panel::top("menu").show(ui, |ui| {
            egui::MenuBar::new().ui(ui, |ui| {
                ui.menu_button("File", |ui| {
                    if ui.button("Reload project").clicked() {
                        commands.push(Command::ReloadProject);
                    }
                    if ui.button("Quit").clicked() {
                        ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
                    }
                });
            });
        });
        egui::Panel::bottom("status").show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.label(&self.status);
                ui.separator();
                ui.label(live).on_hover_text(&self.audio.1);
            });
        });
        let ctx = PanelContext {
            project: &self.project,
            source: self.source.as_ref(),
            console: &self.console_log,
        };
        egui::Panel::left("sources")
            .default_size(420.0)
            .show(ui, |ui| {
                ui.heading(self.sources.title());
                self.sources.ui(ui, &ctx, &mut commands);
            });
        egui::Panel::bottom("problems")
            .resizable(true)
            .default_size(200.0)
            .show(ui, |ui| {
                ui.heading(self.problems.title());
                self.problems.ui(ui, &ctx, &mut commands);
            });
        egui::Panel::bottom("console")
            .resizable(true)
            .default_size(180.0)
            .show(ui, |ui| {
                ui.heading(self.console.title());
                self.console.ui(ui, &ctx, &mut commands);
            });
        egui::CentralPanel::default().show(ui, |ui| {
            ui.heading(self.source_view.title());
            self.source_view.ui(ui, &ctx, &mut commands);
        });
        self.apply(commands);
    }
}

/// True if a window can be opened (an X11 or Wayland display is set).
pub fn display_available() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()))
}

/// Opens the workbench window on the project in `dir`, playing to `audio`, and runs
/// until it is closed.
pub fn run(dir: &Path, audio: OutputChoice) -> anyhow::Result<()> {
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title(format!("{APP_NAME} — {}", dir.display()))
            .with_inner_size([1280.0, 800.0]),
        ..Default::default()
    };
    let dir = dir.to_path_buf();
    eframe::run_native(
        APP_NAME,
        options,
        Box::new(move |_cc| Ok(Box::new(Workbench::new(&dir, audio)))),
    )
    .map_err(|e| anyhow::anyhow!("{e}"))
    .context("cannot open the workbench window")
}
