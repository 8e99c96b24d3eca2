//! The Track threads panel: the live VM threads (event, track, state, PC and the
//! instruction there, source line, fuel); the selected thread's details, registers and a
//! few lines of its source around the line it is at; and the faults of the last 30 s with
//! their `file:line`, clickable to the source.
//!
//! The project keeps no source text, and a panel reads no files: selecting a thread asks
//! the app to open its file ([`AppCommand::OpenSource`]); once the open source is that file,
//! its lines around the thread's line show here.
//!
//! The registers grid is `registers`: it fits the pane and marks what the last step
//! changed.

mod registers;

use crate::{AppCommand, Panel, PanelContext, Selection, SourceText, theme};
use engine_core::runtime::clock::SampleTime;
use engine_core::tools::inspect::{FaultView, ThreadStatus, ThreadView};
use registers::RegisterMarks;
use std::path::Path;

/// The engine's sample rate when the snapshot does not say (it does not today).
const DEFAULT_RATE: u32 = 48_000;
/// Source lines shown above and below the thread's line.
const CONTEXT_LINES: u32 = 3;

/// UI state of the Track threads panel.
#[derive(Debug, Clone)]
pub struct ThreadsPanel {
    /// The selected thread: its index and when it started (an index is reused after its
    /// thread ends).
    selected: Option<(usize, SampleTime)>,
    /// The app-wide selection seen last (a newly selected voice selects its thread).
    seen: Option<Selection>,
    /// Show only registers whose value is not zero.
    pub nonzero_only: bool,
    /// The engine clock's sample rate, to turn sample times into seconds.
    pub sample_rate: u32,
    /// The selected thread's registers as last seen, and those its last step changed.
    marks: RegisterMarks,
}

impl Default for ThreadsPanel {
    fn default() -> Self {
        Self {
            selected: None,
            seen: None,
            nonzero_only: false,
            sample_rate: DEFAULT_RATE,
            marks: RegisterMarks::default(),
        }
    }
}

impl Panel for ThreadsPanel {
    fn title(&self) -> &'static str {
        "Track threads"
    }

    fn ui(&mut self, ui: &mut egui::Ui, ctx: &PanelContext<'_>, commands: &mut Vec<AppCommand>) {
        let threads = &ctx.live.threads;
        let faults = ctx.live.history.faults();
        self.follow_selection(ctx);
        ui.horizontal(|ui| {
            ui.strong(format!("{} live thread(s)", threads.len()));
            ui.separator();
            ui.label(format!("{} fault(s) in the last 30 s", faults.len()));
        });
        ui.separator();
        // Both ways: in a narrow pane the tables scroll sideways rather than being cut;
        // the bars have their own room (links and values reach the pane's edges).
        crate::solid_scroll_bars(ui);
        egui::ScrollArea::both()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                if threads.is_empty() {
                    ui.weak("No live threads.");
                } else {
                    self.thread_list(ui, ctx, commands);
                }
                let selected = self.selected.and_then(|(index, started)| {
                    threads
                        .iter()
                        .find(|t| t.thread == index && t.started_at == started)
                });
                match (selected, self.selected) {
                    (Some(th), _) => {
                        ui.separator();
                        self.details(ui, ctx, th, commands);
                    }
                    (None, Some((index, _))) => {
                        ui.separator();
                        ui.weak(format!("Thread #{index} has ended."));
                    }
                    (None, None) if !threads.is_empty() => {
                        ui.separator();
                        ui.weak("Click a thread to see its registers and source.");
                    }
                    (None, None) => {}
                }
                ui.separator();
                egui::CollapsingHeader::new(format!("Faults ({})", faults.len()))
                    .default_open(true)
                    .show(ui, |ui| self.faults(ui, faults, commands));
            });
    }
}

impl ThreadsPanel {
    fn seconds(&self, samples: u64) -> f64 {
        samples as f64 / f64::from(self.sample_rate.max(1))
    }

    /// A voice newly selected elsewhere selects the thread on it.
    fn follow_selection(&mut self, ctx: &PanelContext<'_>) {
        let current = ctx.selection.cloned();
        if current == self.seen {
            return;
        }
        if let Some(Selection::Voice(voice)) = &current
            && let Some(th) = ctx.live.threads.iter().find(|t| t.voice == *voice)
        {
            self.selected = Some((th.thread, th.started_at));
        }
        self.seen = current;
    }

    fn thread_list(
        &mut self,
        ui: &mut egui::Ui,
        ctx: &PanelContext<'_>,
        commands: &mut Vec<AppCommand>,
    ) {
        egui::Grid::new("thread-list")
            .striped(true)
            .num_columns(9)
            .spacing([12.0, 4.0])
            .show(ui, |ui| {
                for header in [
                    "Thread",
                    "Voice",
                    "Event",
                    "Track",
                    "State",
                    "PC",
                    "Instruction",
                    "Line",
                    "Fuel",
                ] {
                    ui.strong(header);
                }
                ui.end_row();
                for th in &ctx.live.threads {
                    let selected = self.selected == Some((th.thread, th.started_at));
                    if ui
                        .selectable_label(selected, format!("#{}", th.thread))
                        .on_hover_text("Show its registers and source")
                        .clicked()
                    {
                        self.select(th, ctx, commands);
                    }
                    ui.label(th.voice.to_string());
                    ui.label(th.event.as_ref());
                    ui.label(th.track_name.as_ref())
                        .on_hover_text(format!("Track ID {}", th.track));
                    if paused_thread(ctx) == Some(th.thread) {
                        ui.colored_label(
                            theme::PAUSED_MARK,
                            egui::RichText::new("PAUSED").strong(),
                        )
                        .on_hover_text("The debugger holds the engine here (Source view)");
                    } else {
                        ui.label(self.short_state(th.state, ctx.live.now))
                            .on_hover_text(self.long_state(th.state, ctx.live.now));
                    }
                    ui.monospace(hex(th.pc));
                    ui.monospace(th.instruction.unwrap_or("-"));
                    source_link(ui, th.file.as_deref(), th.line, commands);
                    ui.label(format!("{}/{}", th.fuel_used, th.fuel_per_tick))
                        .on_hover_text("Instructions run in the last tick / allowed per tick");
                    ui.end_row();
                }
            });
    }

    /// Selects a thread; asks for its source file unless it is the one open.
    fn select(&mut self, th: &ThreadView, ctx: &PanelContext<'_>, commands: &mut Vec<AppCommand>) {
        self.selected = Some((th.thread, th.started_at));
        let selection = Selection::Voice(th.voice);
        self.seen = Some(selection.clone());
        commands.push(AppCommand::Select(selection));
        if let Some(file) = &th.file
            && ctx.source.is_none_or(|s| s.path != *file)
        {
            commands.push(AppCommand::OpenSource {
                path: file.clone(),
                line: th.line.unwrap_or(0),
            });
        }
    }

    fn short_state(&self, state: ThreadStatus, now: SampleTime) -> String {
        match state {
            ThreadStatus::Running => "running".to_string(),
            ThreadStatus::WaitingUntil(t) => {
                format!("wait {:.2} s", self.seconds(t - now))
            }
            ThreadStatus::WaitingForNote { until: Some(t) } => {
                format!("note {:.2} s", self.seconds(t - now))
            }
            ThreadStatus::WaitingForNote { until: None } => "looping note".to_string(),
            ThreadStatus::WaitingForThread(other) => format!("after #{other}"),
            ThreadStatus::Finished => "finished".to_string(),
        }
    }

    /// The state in words, with times in seconds.
    fn long_state(&self, state: ThreadStatus, now: SampleTime) -> String {
        let when = |t: SampleTime| {
            format!(
                "{:.2} s ({:.2} s from now)",
                self.seconds(t.samples()),
                self.seconds(t - now)
            )
        };
        match state {
            ThreadStatus::WaitingUntil(t) => format!("waiting (wait) until {}", when(t)),
            ThreadStatus::WaitingForNote { until: Some(t) } => {
                format!("waiting for its note to end at {}", when(t))
            }
            other => other.to_string(),
        }
    }

    /// The selected thread: where it is, its source around that line, its registers.
    fn details(
        &mut self,
        ui: &mut egui::Ui,
        ctx: &PanelContext<'_>,
        th: &ThreadView,
        commands: &mut Vec<AppCommand>,
    ) {
        ui.heading(format!(
            "Thread #{}: event `{}`, track `{}`, voice {}",
            th.thread, th.event, th.track_name, th.voice
        ));
        egui::Grid::new("thread-details")
            .num_columns(4)
            .spacing([16.0, 4.0])
            .show(ui, |ui| {
                ui.weak("State");
                if paused_thread(ctx) == Some(th.thread) {
                    ui.colored_label(
                        theme::PAUSED_MARK,
                        "paused by the debugger, before the instruction at PC",
                    );
                } else {
                    ui.label(self.long_state(th.state, ctx.live.now));
                }
                ui.weak("Source");
                source_link(ui, th.file.as_deref(), th.line, commands);
                ui.end_row();
                ui.weak("PC");
                ui.monospace(format!(
                    "{} {}",
                    hex(th.pc),
                    th.instruction.unwrap_or("(code ended)")
                ));
                ui.weak("Next PC");
                ui.monospace(hex(th.next_pc));
                ui.end_row();
                ui.weak("Flags");
                ui.monospace(format!("Z={} S={}", u8::from(th.zero), u8::from(th.sign)));
                ui.weak("Call depth");
                ui.label(th.call_depth.to_string());
                ui.end_row();
                ui.weak("Fuel");
                ui.label(format!("{} of {} per tick", th.fuel_used, th.fuel_per_tick));
                ui.weak("Layout");
                ui.label(th.layout.title());
                ui.end_row();
                ui.weak("Started");
                ui.label(format!(
                    "{:.2} s ({:.1} s ago)",
                    self.seconds(th.started_at.samples()),
                    self.seconds(ctx.live.now - th.started_at)
                ));
                ui.weak("Notes sounding");
                ui.label(th.live_notes.to_string());
                ui.end_row();
                ui.weak("Object");
                ui.label(
                    th.source
                        .map_or_else(|| "UI sound".to_string(), |o| o.to_string()),
                );
                ui.weak("Owners");
                let owners: Vec<String> = th.owners.iter().map(|o| format!("@{o}")).collect();
                ui.label(if owners.is_empty() {
                    "-".to_string()
                } else {
                    owners.join(" ")
                });
                ui.end_row();
                if th.simple || th.interrupted {
                    ui.weak("Note");
                    ui.label(match (th.simple, th.interrupted) {
                        (true, true) => "simple mode; interrupted",
                        (true, false) => "simple mode (no code, plays its sound once)",
                        _ => "interrupted by a new trigger (ends soon)",
                    });
                    ui.end_row();
                }
            });
        ui.add_space(4.0);
        source_excerpt(ui, ctx.source, th, commands);
        ui.add_space(4.0);
        self.registers(ui, ctx, th, commands);
    }

    fn faults(&self, ui: &mut egui::Ui, faults: &[FaultView], commands: &mut Vec<AppCommand>) {
        if faults.is_empty() {
            ui.weak("No faults.");
            return;
        }
        egui::Grid::new("thread-faults")
            .striped(true)
            .num_columns(4)
            .spacing([12.0, 4.0])
            .show(ui, |ui| {
                for fault in faults.iter().rev() {
                    ui.monospace(format!("{:8.2} s", self.seconds(fault.time.samples())));
                    ui.label(format!(
                        "`{}` ({})",
                        fault.track_name.as_deref().unwrap_or("?"),
                        fault.event.as_deref().unwrap_or("?")
                    ));
                    source_link(ui, fault.file.as_deref(), fault.line, commands);
                    ui.label(fault.kind.to_string())
                        .on_hover_text(&fault.message);
                    ui.end_row();
                }
            });
    }
}

/// A few lines of the open source around the thread's line, or a link to open it.
fn source_excerpt(
    ui: &mut egui::Ui,
    source: Option<&SourceText>,
    th: &ThreadView,
    commands: &mut Vec<AppCommand>,
) {
    let (Some(file), Some(line)) = (&th.file, th.line) else {
        ui.weak("No source line for this instruction (its unit has no debug info).");
        return;
    };
    let Some(source) = source.filter(|s| s.path == *file) else {
        ui.horizontal(|ui| {
            ui.weak("Source not open:");
            source_link(ui, Some(file), Some(line), commands);
        });
        return;
    };
    let first = line.saturating_sub(CONTEXT_LINES).max(1);
    let last = line + CONTEXT_LINES;
    egui::Frame::group(ui.style()).show(ui, |ui| {
        ui.set_width(ui.available_width());
        for (index, text) in source.text.lines().enumerate() {
            let number = u32::try_from(index + 1).unwrap_or(u32::MAX);
            if number < first {
                continue;
            }
            if number > last {
                break;
            }
            let marker = if number == line { ">" } else { " " };
            let rich = egui::RichText::new(format!("{marker}{number:>5}  {text}")).monospace();
            if number == line {
                ui.label(rich.background_color(ui.visuals().selection.bg_fill));
            } else {
                ui.label(rich);
            }
        }
    });
}

/// `file:line` as a link that opens the source there; "-" without a file.
fn source_link(
    ui: &mut egui::Ui,
    file: Option<&Path>,
    line: Option<u32>,
    commands: &mut Vec<AppCommand>,
) {
    let Some(file) = file else {
        ui.weak("-");
        return;
    };
    let name = file.file_name().map_or_else(
        || file.display().to_string(),
        |n| n.to_string_lossy().into(),
    );
    let place = match line {
        Some(line) => format!("{name}:{line}"),
        None => name,
    };
    if ui
        .link(place)
        .on_hover_text(format!("Open {}", file.display()))
        .clicked()
    {
        commands.push(AppCommand::OpenSource {
            path: file.to_path_buf(),
            line: line.unwrap_or(0),
        });
    }
}

fn hex(address: Option<u32>) -> String {
    address.map_or_else(|| "-".to_string(), |a| format!("0x{a:04x}"))
}

/// The thread the debugger holds paused, if any.
pub(super) fn paused_thread(ctx: &PanelContext<'_>) -> Option<usize> {
    ctx.live.debug.paused.as_ref().map(|p| p.thread)
}
