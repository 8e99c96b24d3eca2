//! The window's side of the live engine: taking its snapshots (replies into the
//! console, trace records into the log, reloads into the panels, pauses into the Source
//! view), being woken by it, deciding when to repaint without it, and keeping each
//! project's volumes and trace switches.

use super::{Workbench, dock, dock::Pane, settings};
use engine_core::host::command::Command;
use engine_core::host::live::LiveEngine;
use panels::{ConsoleEntry, SourceText};

/// How soon the window paints after the engine has news: at once, as one frame.
const WAKE_DELAY: std::time::Duration = std::time::Duration::from_millis(1);

impl Workbench {
    /// Keeps the open project's mixer volumes and trace switches in the settings (when an
    /// engine has reported them).
    pub(super) fn remember_project_state(&mut self) {
        if self.live.is_none() || self.live_state.now.samples() == 0 {
            return;
        }
        let mixer = &self.live_state.mixer;
        let traces = self.live_state.trace_switches;
        let state = settings::ProjectState {
            master: mixer.master,
            groups: mixer.groups,
            traces: [traces.events, traces.samples, traces.tracks],
        };
        let root = self.project.root();
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        self.settings.projects.insert(root, state);
    }

    /// Has the live engine wake the window whenever a snapshot has news (once per
    /// engine).
    pub(super) fn wake_on_news(&mut self, ctx: &egui::Context) {
        if self.waker_set {
            return;
        }
        if let Some(live) = &self.live {
            let ctx = ctx.clone();
            let refreshing = std::sync::Arc::clone(&self.refreshing);
            live.set_waker(std::sync::Arc::new(move || {
                if !refreshing.load(std::sync::atomic::Ordering::Relaxed) {
                    // Not `request_repaint()`: egui answers that with two frames (to let
                    // layouts settle), and one painted frame is what news needs.
                    ctx.request_repaint_after(WAKE_DELAY);
                }
            }));
            self.waker_set = true;
        }
    }

    /// True while work the window follows runs in the background: a file dialog or a
    /// render, a capture playing or diffing, a QA run.
    pub(super) fn background_work(&self) -> bool {
        self.files.busy() || self.qa.busy() || self.capture.as_ref().is_some_and(|c| c.busy())
    }

    /// True if the window repaints on a timer (as of the last frame): while background
    /// work runs or a pane on screen moves; otherwise only news and input repaint it.
    pub fn repaints_on_a_timer(&self) -> bool {
        self.refreshing.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// True if a pane on screen shows something that moves with time while sound plays
    /// (the mixer's meters, the voice lanes and elapsed times, the lot view's plots).
    /// An open capture shows one moment, which moves only while it plays
    /// ([`background_work`](Self::background_work)); while the debugger holds the
    /// engine, its clock, voices and meters stand still.
    pub(super) fn animating(&self) -> bool {
        if self.capture.is_some() || self.live_state.debug.paused.is_some() {
            return false;
        }
        let live = &self.live_state;
        let playing = !live.tracks.is_empty();
        let on_air = live.world.stations.iter().any(|s| s.on_air.is_some());
        self.tree
            .active_tiles()
            .into_iter()
            .any(|id| match self.tree.tiles.get(id) {
                Some(egui_tiles::Tile::Pane(Pane::Mixer)) => live.voices.0 > 0,
                Some(egui_tiles::Tile::Pane(Pane::Voices)) => playing,
                Some(egui_tiles::Tile::Pane(Pane::Lot)) => playing || on_air,
                _ => false,
            })
    }

    /// A new pause: the Source view opens at the paused line.
    pub(super) fn pause_news(&mut self, before: Option<&engine_core::runtime::debug::PausedView>) {
        let now = self.live_state.debug.paused.clone();
        if now.as_ref() == before {
            return;
        }
        if let Some((file, line)) = now.and_then(|p| p.place) {
            let path = if file.is_absolute() {
                file
            } else {
                self.project.root().join(file)
            };
            self.open_source(path, line);
            dock::show_pane(&mut self.tree, Pane::Source);
        }
    }

    /// Moves the engine's replies into the console and returns a line of live state.
    pub(super) fn poll_live(&mut self) -> String {
        let Some(live) = &self.live else {
            return self.audio.0.clone();
        };
        let mut snapshot = live.take_snapshot();
        for reply in std::mem::take(&mut snapshot.replies) {
            file_reply(
                &mut self.console_log,
                &mut self.continuing,
                ConsoleEntry::from(reply),
            );
        }
        let new = std::mem::take(&mut snapshot.trace);
        self.runtime_errors += new
            .iter()
            .filter(|r| r.kind == engine_core::runtime::TraceKind::Error)
            .count() as u64;
        self.trace.extend(new);
        let excess = self.trace.len().saturating_sub(panels::TRACE_LIMIT);
        self.trace.drain(..excess);
        self.trace_dropped += excess as u64;
        let capture_before = std::mem::take(&mut self.live_state.capture);
        let paused_before = self.live_state.debug.paused.take();
        let reload_before = (
            self.live_state.reload.applied,
            self.live_state.reload.errors.clone(),
        );
        let noticed_before = self.live_state.reload.noticed;
        self.live_state = snapshot;
        if self.live_state.reload.noticed != noticed_before {
            // A QA script changed, appeared or went: the QA tab lists the suite again.
            self.qa.list(self.project.root());
        }
        let rate = live.output.sample_rate;
        self.reload_news(&reload_before);
        self.pause_news(paused_before.as_ref());
        self.capture_news(&capture_before);
        let s = &self.live_state;
        let cache = s.cache.as_ref().map_or_else(String::new, |c| {
            format!(
                " · cache {} / {}",
                panels::cache::format_bytes(c.bytes_held),
                panels::cache::format_bytes(c.budget)
            )
        });
        format!(
            "{} · {:.1} kHz · voices {}/{} · audio load {:.0}% · underruns {}{cache}",
            self.audio.0,
            f64::from(rate) / 1000.0,
            s.voices.0,
            s.voices.1,
            s.mixer.load * 100.0,
            s.mixer.underruns,
        )
    }

    /// A hot reload happened (or its errors changed): the panels read the project now
    /// live, the Source view reads its file again, the status bar says what changed.
    pub(super) fn reload_news(
        &mut self,
        before: &(u64, Vec<engine_core::host::reload::FileErrors>),
    ) {
        let reload = &self.live_state.reload;
        if reload.applied == before.0 && reload.errors == before.1 {
            return;
        }
        let swapped = reload.applied != before.0;
        if swapped && let Some(project) = reload.project.clone() {
            let project = (*project).clone();
            self.project = project;
            self.hitlists.project_loaded(&self.project);
            for tune in self.properties.project_loaded(&self.project) {
                self.run_command(tune);
            }
        }
        if let Some(source) = &self.source {
            let (path, line) = (source.path.clone(), source.line);
            if let Ok(bytes) =
                engine_core::toolchain::fsrules::ReadRules::for_file(&path).read(&path)
            {
                self.source = Some(SourceText {
                    path,
                    text: String::from_utf8_lossy(&bytes).into_owned(),
                    line,
                });
            }
        }
        let (errors, _) =
            panels::problems::counts(&panels::problems::all(&self.project, &self.live_state));
        let files = self.live_state.reload.errors.len();
        self.status = match (swapped, errors) {
            (true, 0) => format!("reloaded {}: no problems", self.project.root().display()),
            (true, n) => format!(
                "reloaded {}: {n} error(s) in {files} file(s)",
                self.project.root().display()
            ),
            (false, 0) => "the files with errors are fixed".to_string(),
            (false, n) => {
                format!("{n} error(s) in {files} file(s); the last good version of each plays on")
            }
        };
    }
}

/// Sets the engine's volumes and traces as `state` keeps them (what the project was left
/// with). The console shows the lines, as if typed: what they did stays visible.
pub(super) fn restore_project_state(live: &LiveEngine, state: &settings::ProjectState) {
    use engine_core::host::command::{TraceTarget, VolumeTarget};
    use engine_core::runtime::ControlGroup;
    let mut commands = vec![Command::Volume {
        target: VolumeTarget::Master,
        value: state.master,
    }];
    for (group, value) in [ControlGroup::Fx, ControlGroup::Music, ControlGroup::Vox]
        .into_iter()
        .zip(state.groups)
    {
        commands.push(Command::Volume {
            target: VolumeTarget::Group(group),
            value,
        });
    }
    for (target, on) in [
        TraceTarget::Events,
        TraceTarget::Samples,
        TraceTarget::Tracks,
    ]
    .into_iter()
    .zip(state.traces)
    {
        commands.push(Command::Trace { target, on });
    }
    for command in commands {
        live.run(command);
    }
}

/// Files a reply in the console history. The reply to a line sent continuing a drag in
/// the Properties panel (one of `continuing`, which it leaves) takes the place of the
/// drag's line before it, so a drag is one line: its last value. Every other line is a
/// line of its own — a `tune` of the same field after a snapshot was stored, switched or
/// kept changed what was heard, and a QA script saved from the history must play it.
fn file_reply(log: &mut Vec<ConsoleEntry>, continuing: &mut Vec<String>, entry: ConsoleEntry) {
    let field = |input: &str| {
        input
            .strip_prefix("tune ")
            .and_then(|rest| rest.rsplit_once(' '))
            .map(|(field, _)| field.to_owned())
    };
    let continues = continuing
        .iter()
        .position(|line| *line == entry.input)
        .map(|index| continuing.remove(index))
        .is_some();
    if continues
        && let Some(last) = log.last_mut()
        && let Some(tuned) = field(&entry.input)
        && field(&last.input) == Some(tuned)
        && last.reply.is_ok()
    {
        *last = entry;
        return;
    }
    log.push(entry);
}

#[cfg(test)]
mod tests {
    use super::file_reply;
    use panels::ConsoleEntry;

    #[test]
    fn a_dragged_value_is_one_console_line_and_every_other_line_its_own() {
        let mut log = Vec::new();
        // (line, sent continuing a drag)
        let mut continuing = Vec::new();
        for (line, drag) in [
            ("tune track 0x2200 volume 900", false),
            ("tune track 0x2200 volume 700", true),
            ("tune track 0x2200 priority 90", false),
            ("tune track 0x2200 volume 512", false),
            // A snapshot switched: the same field again, heard, not a drag.
            ("tune track 0x2200 volume 800", false),
            ("tune track 0x2200 volume 512", false),
            ("sev piano play @1", false),
            ("sev piano play @1", false),
        ] {
            if drag {
                continuing.push(line.to_owned());
            }
            file_reply(
                &mut log,
                &mut continuing,
                ConsoleEntry::answered(line, Ok(String::new())),
            );
        }
        let lines: Vec<&str> = log.iter().map(|e| e.input.as_str()).collect();
        assert_eq!(
            lines,
            [
                "tune track 0x2200 volume 700",
                "tune track 0x2200 priority 90",
                "tune track 0x2200 volume 512",
                "tune track 0x2200 volume 800",
                "tune track 0x2200 volume 512",
                "sev piano play @1",
                "sev piano play @1"
            ]
        );
        assert!(continuing.is_empty());
    }
}
