//! The workbench window: eframe, the panels laid out around the source view, and the
//! one place where panel commands are applied.

use anyhow::Context as _;
use engine_core::project::Project;
use panels::{
    Command, Panel, PanelContext, ProblemsPanel, SourceText, SourceViewPanel, SourcesPanel,
};
use std::path::{Path, PathBuf};

/// Window title prefix.
pub const APP_NAME: &str = "HitBench";

/// The workbench's state: the project and the panels.
pub struct Workbench {
    project: Project,
    source: Option<SourceText>,
    sources: SourcesPanel,
    problems: ProblemsPanel,
    source_view: SourceViewPanel,
    status: String,
}

impl Workbench {
    /// Loads the project in `dir`.
    pub fn new(dir: &Path) -> Self {
        let mut workbench = Self {
            project: Project::default(),
            source: None,
            sources: SourcesPanel::default(),
            problems: ProblemsPanel::default(),
            source_view: SourceViewPanel::default(),
            status: String::new(),
        };
        workbench.load(dir);
        workbench
    }

    fn load(&mut self, dir: &Path) {
        self.project = Project::load(dir);
        let problems = self.project.all_diagnostics().count();
        self.status = format!(
            "{}: {} source file(s), {problems} problem(s)",
            dir.display(),
            self.project.units.len()
        );
    }

    /// Applies what the panels asked for this frame.
    fn apply(&mut self, commands: Vec<Command>) {
        for command in commands {
            match command {
                Command::OpenSource { path, line } => self.open_source(path, line),
                Command::ReloadProject => {
                    let root = self.project.root().to_path_buf();
                    self.load(&root);
                }
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
            ui.label(&self.status);
        });
        let ctx = PanelContext {
            project: &self.project,
            source: self.source.as_ref(),
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

/// Opens the workbench window on the project in `dir` and runs until it is closed.
pub fn run(dir: &Path) -> anyhow::Result<()> {
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
        Box::new(move |_cc| Ok(Box::new(Workbench::new(&dir)))),
    )
    .map_err(|e| anyhow::anyhow!("{e}"))
    .context("cannot open the workbench window")
}
