//! The workbench window: eframe, the panels docked in an egui_tiles tree (`dock`), the
//! settings that survive a restart (`settings`), file dialogs, dropped folders, plug-in
//! directories and renders (`files`), captures and the capture view (`capture`), and the
//! one place where panel commands are applied.

mod capture;
mod console;
pub mod dialogs;
pub mod dock;
pub mod files;
mod first_frame;
pub mod hitlist_sessions;
mod live;
mod opening;
mod properties;
mod qa;
mod renderer;
mod status;

pub use first_frame::{FIRST_FRAME_ENV, FIRST_FRAME_LINE};
pub(crate) use renderer::is_software;
pub use renderer::{
    central_frame, clear_color, index_budget, native_options, software_renderer, wgpu_chosen,
};
mod render_job;
pub mod settings;

use anyhow::Context as _;
use dock::{Pane, Panels};
use engine_core::host::command::Command;
use engine_core::host::live::{LiveCommand, LiveEngine, LiveSnapshot};
use engine_core::host::session::{SaveLotPolicy, SessionConfig};
use engine_core::runtime::TraceRecord;
use engine_core::sound::output::OutputChoice;
use engine_core::toolchain::project::Project;
use engine_core::tools::why;
use panels::{AppCommand, ConsoleEntry, PanelContext, Selection, SourceText, TraceFilter};
use settings::Settings;
use std::collections::VecDeque;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Window title prefix.
pub const APP_NAME: &str = "HitBench";

/// The project the workbench opens when none is given and none was open last time.
pub const DEFAULT_PROJECT: &str = "projects/demo";

/// The workbench's state: the project, the live engine, the panels and their layout.
pub struct Workbench {
    project: Project,
    /// The engine playing the project (None if its thread could not start).
    live: Option<LiveEngine>,
    /// Where sound goes (kept to restart the engine on another project).
    output: OutputChoice,
    /// `--cache-mb` and `--voices`: for every engine it starts (the cache budget for
    /// every QA run too).
    options: EngineOptions,
    /// Where the sound goes: a few words, and the whole story.
    audio: (String, String),
    console_log: Vec<ConsoleEntry>,
    /// Lines sent continuing a drag in the Properties panel, not yet answered: each
    /// reply takes the place of the drag's line in the console history.
    continuing: Vec<String>,
    /// The engine's latest state (its trace and replies moved out to the logs).
    live_state: LiveSnapshot,
    /// Runtime errors traced since the project was opened.
    runtime_errors: u64,
    /// Every trace record received, at most `panels::TRACE_LIMIT`.
    trace: VecDeque<TraceRecord>,
    /// How many trace records were dropped from the front of `trace` so far.
    trace_dropped: u64,
    /// The voice, object or track a panel selected last.
    selection: Option<Selection>,
    source: Option<SourceText>,
    panels: Panels,
    tree: egui_tiles::Tree<Pane>,
    /// Where the panes closed by hand were (they come back there).
    closed: dock::ClosedPanes,
    settings: Settings,
    /// Where settings are saved (None: nowhere to save them).
    config_dir: Option<PathBuf>,
    status: String,
    /// The hit-list files being edited, and what the hit-list panel reads.
    hitlists: hitlist_sessions::HitListSessions,
    properties: properties::PropertySessions,
    /// The open file dialog and the render under way.
    files: files::FileJobs,
    /// The capture open in the capture view, if any.
    capture: Option<capture::OpenCapture>,
    /// Bumped whenever the trace the panels read is replaced (`PanelContext::trace_epoch`).
    trace_epoch: u64,
    /// The QA suite, its run under way and the failed runs' captures.
    qa: qa::QaRuns,
    /// True once the live engine wakes this window when it has news.
    waker_set: bool,
    /// Set while the window refreshes on its own (something in view moves): the
    /// engine's news then waits for that refresh instead of painting a frame of its own.
    refreshing: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// The software renderer painting the window, if it is one (`renderer.rs`).
    software_renderer: Option<String>,
    /// The renderer clears to the panels' colour before each frame (`renderer.rs`).
    cleared: bool,
    /// Closes after the first painted frame when asked to (`first_frame.rs`).
    first_frame: first_frame::FirstFrameExit,
}

/// What the command line sets for every engine the workbench starts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EngineOptions {
    /// `--cache-mb`: the resource cache's budget in bytes (of every QA run too), over
    /// `world.ini [Cache] BudgetMB`.
    pub cache_budget: Option<usize>,
    /// `--voices`: the Box-X voice limit the engine starts with (else 16); `voices` at
    /// the console changes it.
    pub voices: Option<usize>,
}

impl EngineOptions {
    /// The engine's configuration with these options.
    fn engine(&self) -> engine_core::runtime::EngineConfig {
        let config = engine_core::runtime::EngineConfig::default();
        engine_core::runtime::EngineConfig {
            max_voices: self.voices.unwrap_or(config.max_voices),
            ..config
        }
    }
}

/// Something the menu asks for.
enum MenuAction {
    Open(PathBuf),
    Show(Pane),
    ResetLayout,
    Files(files::FileAction),
}

impl Workbench {
    /// Opens the workbench: reads the settings in `config_dir` (the layout, recent
    /// projects), loads the project in `dir` (else the one open last time, else the demo)
    /// and starts the live engine on `audio`, saying once (on standard error and in the
    /// status bar) where the sound goes.
    pub fn new(dir: Option<&Path>, audio: OutputChoice, config_dir: Option<PathBuf>) -> Self {
        Self::with_options(dir, audio, config_dir, EngineOptions::default())
    }

    /// [`new`](Self::new) with the command line's `options` for every project it opens.
    pub fn with_options(
        dir: Option<&Path>,
        audio: OutputChoice,
        config_dir: Option<PathBuf>,
        options: EngineOptions,
    ) -> Self {
        let (mut settings, problem) = config_dir
            .as_deref()
            .map(Settings::load)
            .unwrap_or_default();
        if let Some(problem) = &problem {
            eprintln!("hitbench: {problem}");
        }
        let dir = dir
            .map(Path::to_path_buf)
            .or_else(|| settings.project.clone().filter(|p| p.is_dir()))
            .unwrap_or_else(|| PathBuf::from(DEFAULT_PROJECT));
        let tree = settings.layout.take().unwrap_or_else(dock::default_layout);
        let mut workbench = Self {
            project: Project::default(),
            live: None,
            output: audio,
            options,
            audio: ("audio: off".into(), "the engine is not running".into()),
            console_log: Vec::new(),
            continuing: Vec::new(),
            live_state: LiveSnapshot::default(),
            runtime_errors: 0,
            trace: VecDeque::new(),
            trace_dropped: 0,
            selection: None,
            source: None,
            panels: Panels::default(),
            tree,
            closed: dock::ClosedPanes::default(),
            settings,
            config_dir,
            status: String::new(),
            hitlists: hitlist_sessions::HitListSessions::default(),
            properties: properties::PropertySessions::default(),
            files: files::FileJobs::default(),
            capture: None,
            trace_epoch: 0,
            qa: qa::QaRuns::default(),
            waker_set: false,
            refreshing: std::sync::Arc::default(),
            software_renderer: None,
            cleared: false,
            first_frame: first_frame::FirstFrameExit::from_env(),
        };
        workbench.open_project(&dir);
        // The first thing to do is type a command: the console has the keyboard.
        workbench.panels.console.focus_requested = true;
        if let Some(problem) = problem {
            workbench.status = problem;
        }
        workbench
    }

    /// Loads the project in `dir` (with its plug-in directories) and (re)starts the live
    /// engine on it.
    fn open_project(&mut self, dir: &Path) {
        let dir = &dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        let project = Project::load_dirs(&self.settings.project_dirs(dir));
        self.start_project(dir, project);
    }

    /// Shows `project`, loaded from `dir` (canonical), and (re)starts the live engine on
    /// it.
    fn start_project(&mut self, dir: &Path, project: Project) {
        self.remember_project_state();
        self.live = None;
        self.continuing.clear();
        self.waker_set = false;
        self.runtime_errors = 0;
        // The old project's records leave the log as if dropped from its front.
        self.trace_dropped += self.trace.len() as u64;
        self.trace.clear();
        // The console is typed by hand: it may save the lot, inside the project. The
        // Why panel reads notes and track ends, so their traces start on.
        let config = SessionConfig {
            save_lot: SaveLotPolicy::InsideProject,
            trace: why::TRACES,
            cache_budget: self.options.cache_budget,
            engine: self.options.engine(),
            ..SessionConfig::default()
        };
        match LiveEngine::start(project.clone(), self.output, config) {
            Ok(live) => {
                let kind = &live.output.kind;
                self.audio = (format!("audio: {}", kind.short()), kind.describe());
                self.set_sample_rate(live.output.sample_rate);
                if let Some(state) = self.settings.projects.get(dir) {
                    live::restore_project_state(&live, state);
                }
                self.live = Some(live);
            }
            Err(e) => {
                self.audio = (
                    "audio: off".to_string(),
                    format!("cannot start the engine thread: {e}"),
                );
            }
        }
        self.panels.mixer.output = self.audio.1.clone();
        eprintln!("hitbench: audio: {}", self.audio.1);
        self.settings.opened(dir);
        self.source = None;
        self.show_project(project);
    }

    /// The panel layout (for tests and the settings).
    pub fn layout(&self) -> &egui_tiles::Tree<Pane> {
        &self.tree
    }

    /// The open project.
    pub fn project(&self) -> &Project {
        &self.project
    }

    /// The live engine's latest state.
    pub fn live(&self) -> &LiveSnapshot {
        &self.live_state
    }

    /// The trace log.
    pub fn trace(&self) -> &VecDeque<TraceRecord> {
        &self.trace
    }

    /// The console history: every line run so far (typed, or the line of a command a
    /// panel sent) with its reply.
    pub fn console(&self) -> &[ConsoleEntry] {
        &self.console_log
    }

    /// Shows `pane` (adding it back if it was closed) as the visible tab of its group.
    pub fn show(&mut self, pane: Pane) {
        dock::show_pane_remembered(&mut self.tree, pane, &self.closed);
    }

    /// Shows the console and gives its input the keyboard (what Ctrl+Alt+C does).
    pub fn focus_console(&mut self) {
        self.show(Pane::Console);
        self.panels.console.focus_requested = true;
    }

    /// Closes `pane` as its tab's close button does (it comes back where it was).
    pub fn close(&mut self, pane: Pane) {
        if let Some(id) = self.tree.tiles.find_pane(&pane) {
            self.closed.closing(&self.tree.tiles, id);
            self.tree.remove_recursively(id);
        }
    }

    /// Writes the settings (project, recent projects, layout) to the configuration
    /// directory.
    pub fn save_settings(&mut self) -> std::io::Result<()> {
        self.remember_project_state();
        let Some(dir) = &self.config_dir else {
            return Ok(());
        };
        self.settings.layout = Some(self.tree.clone());
        let result = self.settings.save(dir);
        self.settings.layout = None;
        result
    }

    /// Draws one frame of the window into `ui` and applies what the panels asked for.
    pub fn frame(&mut self, ui: &mut egui::Ui) {
        let mut commands = Vec::new();
        let mut actions = Vec::new();
        self.wake_on_news(ui.ctx());
        let live = self.poll_live();
        self.poll_files(ui.ctx());
        self.poll_capture();
        self.poll_qa();
        // Nothing repaints on a timer unless something needs it: the engine wakes the
        // window when it has news, input wakes it anyway.
        let refreshing = self.background_work() || self.animating();
        self.refreshing
            .store(refreshing, std::sync::atomic::Ordering::Relaxed);
        if refreshing {
            ui.ctx().request_repaint_after(self.live_refresh());
        }
        // Ctrl+Alt+C: the game's shortcut to the cheat console.
        let console_key =
            egui::KeyboardShortcut::new(egui::Modifiers::CTRL | egui::Modifiers::ALT, egui::Key::C);
        if ui.input_mut(|i| i.consume_shortcut(&console_key)) {
            dock::show_pane(&mut self.tree, Pane::Console);
            self.panels.console.focus_requested = true;
        }
        self.debugger_keys(ui, &mut commands);
        self.menu_bar(ui, &mut commands, &mut actions);
        // What the panels show (a capture's snapshot when one is open) decides the
        // problems the status bar counts, as the Problems panel lists them.
        let shown = self
            .capture
            .as_ref()
            .map_or(&self.live_state, |open| &open.snapshot);
        let problems = panels::problems::counts(&panels::problems::all(&self.project, shown));
        self.status_bar(ui, &live, problems, &mut commands);
        if let Some(open) = &self.capture {
            egui::Panel::top("capture").show(ui, |ui| {
                panels::capture::timeline_bar(ui, &open.view, &mut commands);
            });
        }
        // With a capture open, the panels read it at the time shown.
        let (live, trace, trace_dropped) = match &self.capture {
            Some(open) => (&open.snapshot, &open.trace, 0),
            None => (&self.live_state, &self.trace, self.trace_dropped),
        };
        let context = PanelContext {
            project: &self.project,
            source: self.source.as_ref(),
            console: &self.console_log,
            live,
            trace,
            trace_dropped,
            trace_epoch: self.trace_epoch,
            selection: self.selection.as_ref(),
            hitlists: &self.hitlists.data,
            properties: &self.properties.data,
            capture: self.capture.as_ref().map(|open| &open.view),
            qa: &self.qa.data,
        };
        let central = self.central_frame(ui.style());
        egui::CentralPanel::default().frame(central).show(ui, |ui| {
            let mut behavior = dock::Behavior {
                panels: &mut self.panels,
                context: &context,
                commands: &mut commands,
                closed: &mut self.closed,
            };
            self.tree.ui(&mut behavior, ui);
            let pointer = ui.input(|i| i.pointer.latest_pos());
            dock::unwrap_split_tabs(&mut self.tree, pointer);
        });
        self.apply(commands);
        for action in actions {
            match action {
                MenuAction::Open(path) => self.open_in_background(&path),
                MenuAction::Show(pane) => {
                    dock::show_pane_remembered(&mut self.tree, pane, &self.closed);
                }
                MenuAction::ResetLayout => self.tree = dock::default_layout(),
                MenuAction::Files(action) => self.file_action(action),
            }
        }
    }

    /// Runs `command` on the live engine as a panel would (the console history shows
    /// its line).
    pub fn run(&mut self, command: Command) {
        self.run_command(command);
    }

    /// The File and View menus.
    fn menu_bar(
        &mut self,
        ui: &mut egui::Ui,
        commands: &mut Vec<AppCommand>,
        actions: &mut Vec<MenuAction>,
    ) {
        egui::Panel::top("menu").show(ui, |ui| {
            egui::MenuBar::new().ui(ui, |ui| {
                ui.menu_button("File", |ui| {
                    let mut files = Vec::new();
                    self.file_menu(ui, &mut files);
                    actions.extend(files.into_iter().map(MenuAction::Files));
                    if ui.button("Reload project").clicked() {
                        commands.push(AppCommand::ReloadProject);
                    }
                    ui.menu_button("Recent projects", |ui| {
                        if self.settings.recent.is_empty() {
                            ui.label("none yet");
                        }
                        for path in &self.settings.recent {
                            if ui.button(path.display().to_string()).clicked() {
                                actions.push(MenuAction::Open(path.clone()));
                            }
                        }
                    });
                    if ui.button("Quit").clicked() {
                        ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
                    }
                });
                ui.menu_button("View", |ui| {
                    for pane in Pane::ALL {
                        let title = self.panels.get(pane).title();
                        if ui.button(title).clicked() {
                            actions.push(MenuAction::Show(pane));
                        }
                    }
                    ui.separator();
                    if ui.button("Reset layout").clicked() {
                        actions.push(MenuAction::ResetLayout);
                    }
                });
            });
        });
    }

    fn show_project(&mut self, project: Project) {
        self.project = project;
        self.hitlists.project_loaded(&self.project);
        for tune in self.properties.project_loaded(&self.project) {
            self.run_command(tune);
        }
        self.qa.list(self.project.root());
        self.status = format!(
            "{}: {} source file(s)",
            self.project.root().display(),
            self.project.units.len()
        );
    }

    /// Loads the project in `root` with its plug-in directories as the settings list them
    /// now and swaps it into the live engine, which plays on (its cache serves the
    /// folders added and stops serving those removed); without one, opens it.
    fn swap_dirs(&mut self, root: &Path) {
        let project = Project::load_dirs(&self.settings.project_dirs(root));
        match &self.live {
            Some(live) => {
                live.send(LiveCommand::Project(Box::new(project.clone())));
                self.show_project(project);
            }
            None => self.open_project(root),
        }
    }

    /// Loads the project again and hands it to the live engine.
    fn reload(&mut self) {
        let project = Project::load_dirs(&self.project.dirs);
        if let Some(live) = &self.live {
            live.send(LiveCommand::Project(Box::new(project.clone())));
        }
        self.show_project(project);
    }

    /// Applies what the panels asked for this frame.
    fn apply(&mut self, commands: Vec<AppCommand>) {
        for command in commands {
            match command {
                AppCommand::OpenSource { path, line } => self.open_source(path, line),
                AppCommand::ReloadProject => self.reload(),
                AppCommand::RunLine(line) => self.run_line(line),
                AppCommand::Run(command) => self.run_command(command),
                AppCommand::Select(selection) => {
                    let voices = self.shown().voice_slots.clone();
                    self.properties.follow(&self.project, &selection, &voices);
                    self.selection = Some(selection);
                }
                AppCommand::ExportTrace { path, filter } => self.export_trace(&path, &filter),
                AppCommand::EditHitLists(file) => self.hitlists.begin(file),
                AppCommand::SaveHitLists { edits, force } => {
                    if self.hitlists.save(&edits, force) {
                        self.reload();
                    }
                }
                AppCommand::ReloadHitLists => {
                    self.hitlists.discard();
                    self.reload();
                }
                AppCommand::Preload(pattern) => match (self.capture_refusal(), &self.live) {
                    (Some(refusal), _) => self.status = refusal,
                    (None, Some(live)) => {
                        live.send(LiveCommand::Preload(pattern));
                    }
                    (None, None) => {}
                },
                AppCommand::CancelPreload => {
                    if let Some(live) = &self.live {
                        live.send(LiveCommand::CancelPreload);
                    }
                }
                AppCommand::Why(target) => self.open_why(target),
                AppCommand::Seek(at) => self.seek(at),
                AppCommand::PlayCapture(play) => self.play_capture(play),
                AppCommand::DiffCapture => self.diff_capture(),
                AppCommand::CloseCapture => self.close_capture(),
                AppCommand::RunQa(files) => self.run_qa(&files),
                AppCommand::StopQa => self.stop_qa(),
                AppCommand::ShowQaFailure { file, result } => self.show_qa_failure(&file, result),
                AppCommand::SaveQaScript { path, text } => self.save_qa_script(&path, &text),
                command @ (AppCommand::ShowProperties(_)
                | AppCommand::EditProperty { .. }
                | AppCommand::UndoProperty
                | AppCommand::RedoProperty
                | AppCommand::SaveProperties { .. }
                | AppCommand::RevertProperties
                | AppCommand::Snapshot(_)) => self.property_command(command),
            }
        }
    }

    /// Writes the trace records that pass `filter` to `path`, one per line, and says in
    /// the status line how it went.
    fn export_trace(&mut self, path: &Path, filter: &TraceFilter) {
        let write = |out: &mut dyn Write| -> std::io::Result<usize> {
            let matcher = filter.matcher();
            let mut written = 0;
            let rate = self.panels.traces.sample_rate;
            for record in self.shown_trace().iter().filter(|r| matcher.matches(r)) {
                writeln!(out, "{}", panels::traces::export_line(record, rate))?;
                written += 1;
            }
            Ok(written)
        };
        self.status = match engine_core::toolchain::fsrules::write_output_with(path, &[], write) {
            Ok(n) => format!("exported {n} trace record(s) to {}", path.display()),
            Err(e) => format!("the trace was not exported: {e}"),
        };
    }

    fn open_source(&mut self, path: PathBuf, line: u32) {
        // A text file's rules: never a pipe or a device (the window would wait on it),
        // never a file larger than a text file may be.
        match engine_core::toolchain::fsrules::ReadRules::for_file(&path).read(&path) {
            Ok(bytes) => {
                self.source = Some(SourceText {
                    path,
                    text: String::from_utf8_lossy(&bytes).into_owned(),
                    line,
                });
                // The Source pane is there when it has something to show.
                dock::show_pane_remembered(&mut self.tree, Pane::Source, &self.closed);
            }
            Err(refusal) => self.status = format!("cannot open {refusal}"),
        }
    }
}

impl eframe::App for Workbench {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.first_frame.frame_begins(ui.ctx());
        self.frame(ui);
    }

    fn clear_color(&self, visuals: &egui::Visuals) -> [f32; 4] {
        clear_color(visuals)
    }

    fn on_exit(&mut self, _gl: Option<&eframe::glow::Context>) {
        if let Err(e) = self.save_settings() {
            eprintln!("hitbench: cannot save the workbench settings: {e}");
        }
    }
}

/// True if a window can be opened (an X11 or Wayland display is set).
pub fn display_available() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()))
}

/// Opens the workbench window on the project in `dir` (else the last one), playing to
/// `audio` with the command line's `engine` options, and runs until it is closed.
pub fn run(dir: Option<&Path>, audio: OutputChoice, engine: EngineOptions) -> anyhow::Result<()> {
    let options = native_options(APP_NAME);
    let open = dir.map(files::what_to_open).unwrap_or_default();
    eframe::run_native(
        APP_NAME,
        options,
        Box::new(move |cc| {
            let mut workbench = Workbench::with_options(
                open.project.as_deref(),
                audio,
                settings::config_dir(),
                engine,
            );
            if let Some((path, read)) = open.capture {
                workbench.open_read_capture(&path, read);
            }
            workbench.set_software_renderer(software_renderer(cc), &cc.egui_ctx);
            workbench.set_cleared(true);
            Ok(Box::new(workbench))
        }),
    )
    .map_err(|e| anyhow::anyhow!("{e}"))
    .context("cannot open the workbench window")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_and_open_project_persist_across_restarts() {
        let config =
            std::env::temp_dir().join(format!("hitbench-workbench-config-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&config);
        let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/demo");
        let seed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/seed-examples");

        // First run: open the demo, then the seed examples; close the problems tab.
        let mut first = Workbench::new(Some(&demo), OutputChoice::Null, Some(config.clone()));
        first.open_project(&seed);
        let problems = first.tree.tiles.find_pane(&Pane::Problems).unwrap();
        first.tree.remove_recursively(problems);
        first.save_settings().unwrap();
        drop(first);

        // Second run, no project given: the seed examples and the layout come back.
        let second = Workbench::new(None, OutputChoice::Null, Some(config.clone()));
        assert_eq!(
            second.project().root().canonicalize().unwrap(),
            seed.canonicalize().unwrap()
        );
        assert!(second.layout().tiles.find_pane(&Pane::Problems).is_none());
        assert!(second.layout().tiles.find_pane(&Pane::Console).is_some());
        assert_eq!(second.settings.recent.len(), 2);
        assert_eq!(
            second.settings.recent[1],
            demo.canonicalize().unwrap(),
            "recent projects, newest first"
        );
        drop(second);
        let _ = std::fs::remove_dir_all(&config);
    }
}
