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
        match command::parse(&line) {
            Ok(Some(Command::Reload)) => {
                self.reload_command(line);
                return;
            }
            Ok(Some(Command::Plugin { add, dir })) => {
                self.plugin_command(add, &dir, line);
                return;
            }
            _ => {}
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
        if let Command::Plugin { add, dir } = &command {
            self.plugin_command(*add, dir, line);
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

    /// `plugin add|remove <folder>` at the console: what File → Add plug-in folder does
    /// (any folder the user names, relative to the project's; remembered for the
    /// project), the answer the status line's.
    pub(super) fn plugin_command(&mut self, add: bool, dir: &std::path::Path, input: String) {
        let folder = self.project.root().join(dir);
        let done = if add {
            self.add_plugin_dir(&folder)
        } else {
            let real = folder.canonicalize().unwrap_or(folder);
            self.remove_plugin_dir(&real)
        };
        let reply = if done {
            Ok(self.status.clone())
        } else {
            Err(self.status.clone())
        };
        self.console_log.push(ConsoleEntry {
            input,
            reply,
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

#[cfg(test)]
mod tests {
    use super::*;
    use engine_core::sound::output::OutputChoice;
    use std::path::PathBuf;

    fn temp(tag: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("hitbench-console-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.canonicalize().unwrap()
    }

    #[test]
    fn plugin_add_and_remove_at_the_console_are_the_file_menus() {
        let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../projects/demo")
            .canonicalize()
            .unwrap();
        let config = temp("plugin-config");
        let plugin = temp("plugin-dir");
        std::fs::write(
            plugin.join("override.hot"),
            "[EventMapping]\nui_click=kSndobPlay,0x2001,0,0,0,0\n",
        )
        .unwrap();
        let mut workbench = Workbench::new(Some(&demo), OutputChoice::Null, Some(config.clone()));
        let click = |wb: &Workbench| wb.project().events["ui_click"].track_id;
        assert_eq!(click(&workbench), 0x2000);
        let reply = |wb: &Workbench| wb.console_log.last().unwrap().reply.clone();

        workbench.run_line(format!("plugin add {}", plugin.display()));
        assert!(reply(&workbench).is_ok(), "{:?}", reply(&workbench));
        assert_eq!(click(&workbench), 0x2001);
        assert_eq!(workbench.plugin_dirs(), std::slice::from_ref(&plugin));
        // Again: refused, and said so as an error.
        workbench.run_line(format!("plugin add {}", plugin.display()));
        assert!(reply(&workbench).is_err_and(|e| e.contains("already")));
        workbench.run_line(format!("plugin remove {}", plugin.display()));
        assert!(reply(&workbench).is_ok(), "{:?}", reply(&workbench));
        assert_eq!(click(&workbench), 0x2000);
        assert!(workbench.plugin_dirs().is_empty());
        for line in ["plugin remove nowhere", "plugin add nowhere"] {
            workbench.run_line(line.to_string());
            assert!(reply(&workbench).is_err(), "{line}");
        }
        drop(workbench);
        let _ = std::fs::remove_dir_all(&config);
        let _ = std::fs::remove_dir_all(&plugin);
    }
}
