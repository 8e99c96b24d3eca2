//! The console's side of the workbench: a typed line or a panel's command run on the live
//! engine (the console history shows it as the line that replays it), except what the
//! workbench answers itself — `why` opens the Why panel, `reload` reads the project
//! again here too, and with a capture open nothing runs — and the debugger's keys.

use super::{Workbench, dock, dock::Pane};
use engine_core::host::command::{self, Command, Subject};
use panels::{AppCommand, ConsoleEntry, WhyTarget};

impl Workbench {
    /// Runs a typed line on the engine — but `why`, which needs the trace the workbench
    /// keeps, opens the Why panel here; and with a capture open, nothing runs.
    pub(super) fn run_line(&mut self, line: String) {
        // `@bob` is the lot's Bob: `why` is answered here, with the lot shown.
        let objects = &self.shown().world.objects;
        let resolved = engine_core::world::names::resolve(&line, objects.iter().map(|(o, _)| o));
        if let Ok(Ok(Some(Command::Why(subject)))) = resolved.as_deref().map(command::parse) {
            self.why_command(&subject, line);
            return;
        }
        if let Some(refusal) = self.capture_refusal() {
            self.console_log
                .push(ConsoleEntry::answered(line, Err(refusal)));
            return;
        }
        if let Ok(Some(Command::Reload)) = command::parse(&line) {
            self.reload_command(line);
            return;
        }
        match &self.live {
            Some(live) if live.line(&line) => {}
            _ => self.not_running(line),
        }
    }

    /// Runs a panel's command as it is (no text in between); the console history shows
    /// it as the line that replays it.
    pub(super) fn run_command(&mut self, command: Command) {
        let line = command.to_string();
        if let Command::Why(subject) = &command {
            self.why_command(subject, line);
            return;
        }
        if let Some(refusal) = self.capture_refusal() {
            self.console_log
                .push(ConsoleEntry::answered(line, Err(refusal)));
            return;
        }
        if command == Command::Reload {
            self.reload_command(line);
            return;
        }
        match &self.live {
            Some(live) if live.run(command) => {}
            _ => self.not_running(line),
        }
    }

    /// `why <event | @object>`: opens the Why panel on it, or says why not (an unknown
    /// event with the closest name, an object not on the lot); the console history shows
    /// the line and the answer.
    pub(super) fn why_command(&mut self, subject: &Subject, input: String) {
        let on_lot: Vec<_> = self
            .shown()
            .world
            .objects
            .iter()
            .map(|(o, _)| o.id)
            .collect();
        let reply = subject
            .check(&self.project, &on_lot)
            .map(|()| {
                self.open_why(WhyTarget::from(subject.clone()));
                format!("the Why panel explains {}", subject.describe())
            })
            .map_err(|e| e.to_string());
        self.console_log.push(ConsoleEntry::answered(input, reply));
    }

    /// `reload` at the console: what File > Reload project does (the workbench's panels
    /// and the engine both get the project read again), filed at the engine's time so a
    /// saved console history replays it.
    pub(super) fn reload_command(&mut self, input: String) {
        self.reload();
        self.console_log.push(ConsoleEntry {
            input,
            reply: Ok(format!("read the project again: {}", self.status)),
            at: self.live.as_ref().map(|_| self.live_state.now),
        });
    }

    /// F5 continues, F10 steps over, F11 steps into while paused; F9 sets or clears a
    /// breakpoint on the line the Source view shows highlighted.
    pub(super) fn debugger_keys(&mut self, ui: &egui::Ui, commands: &mut Vec<AppCommand>) {
        if self.capture.is_some() {
            return;
        }
        let pressed = |key| ui.input(|i| i.key_pressed(key));
        if self.live_state.debug.paused.is_some() {
            use engine_core::runtime::debug::StepKind;
            use engine_core::runtime::engine::GoOn;
            for (key, how) in [
                (egui::Key::F5, GoOn::Continue),
                (egui::Key::F10, GoOn::Step(StepKind::Over)),
                (egui::Key::F11, GoOn::Step(StepKind::Into)),
            ] {
                if pressed(key) {
                    commands.push(AppCommand::Run(Command::Debug(
                        command::DebugCommand::GoOn(how),
                    )));
                }
            }
        }
        if pressed(egui::Key::F9)
            && let Some(source) = &self.source
            && source.line > 0
        {
            let shown = panels::display_path(&self.project, &source.path);
            commands.push(panels::source_view::toggle_breakpoint(
                &self.live_state.debug,
                &source.path,
                &shown,
                source.line,
            ));
        }
    }

    /// Shows the Why panel on `target`.
    pub(super) fn open_why(&mut self, target: WhyTarget) {
        self.panels.why.target = Some(target);
        dock::show_pane(&mut self.tree, Pane::Why);
    }

    /// Answers a console line for which no engine runs.
    pub(super) fn not_running(&mut self, line: String) {
        self.console_log.push(ConsoleEntry::answered(
            line,
            Err("the engine is not running".into()),
        ));
    }
}
