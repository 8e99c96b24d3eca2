//! `hitbench bench ui --window`: what the workbench costs with a real window (under
//! Xvfb on a machine without a display): the demo opens, settles, then sits idle (the
//! ambience plays on, nobody touches anything), then plays the first part of the demo
//! tour. For each phase it prints the share of one core the whole process used (the
//! window, its renderer's threads, the engine and the audio output), the window's part,
//! and the frames painted a second. Targets: idle under 2 % of a core, playing under 15 %.

use super::super::Io;
use super::Size;
use crate::workbench::{self, Workbench};
use engine_core::host::command::{TimedCommand, parse_script};
use engine_core::sound::output::OutputChoice;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Target: the process while the demo is open and nothing is played, share of a core.
pub const IDLE_TARGET: f64 = 0.02;

/// Target: the process while the demo tour plays, share of a core.
pub const PLAYING_TARGET: f64 = 0.15;

/// The phases of a run, in seconds (full, quick).
const WARM_UP: [f64; 2] = [4.0, 2.0];
const IDLE: [f64; 2] = [20.0, 4.0];
const PLAYING: [f64; 2] = [20.0, 4.0];

/// CPU time used so far, in seconds: (the whole process, the engine and audio threads).
fn cpu_now() -> Option<(f64, f64)> {
    let mut total = 0.0;
    let mut engine = 0.0;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let dir = task.ok()?.path();
        let Ok(stat) = std::fs::read_to_string(dir.join("schedstat")) else {
            continue;
        };
        let nanos: f64 = stat.split_whitespace().next()?.parse().ok()?;
        let seconds = nanos / 1e9;
        total += seconds;
        let name = std::fs::read_to_string(dir.join("comm")).unwrap_or_default();
        if name.starts_with("hitbench-") {
            engine += seconds;
        }
    }
    Some((total, engine))
}

/// One phase as measured.
#[derive(Debug, Clone, Copy, Default)]
struct Phase {
    /// Wall time, seconds.
    seconds: f64,
    /// CPU of the process, seconds.
    cpu: f64,
    /// CPU of the engine's threads (engine, reload, audio output), seconds.
    engine: f64,
    /// Frames painted.
    frames: u64,
}

impl Phase {
    fn share(&self, cpu: f64) -> f64 {
        if self.seconds > 0.0 {
            cpu / self.seconds
        } else {
            0.0
        }
    }
}

/// Where the run stands when a phase ends.
#[derive(Debug, Clone, Copy)]
struct Mark {
    at: Instant,
    cpu: (f64, f64),
    frames: u64,
}

impl Mark {
    fn to(self, end: Mark) -> Phase {
        Phase {
            seconds: end.at.duration_since(self.at).as_secs_f64(),
            cpu: end.cpu.0 - self.cpu.0,
            engine: end.cpu.1 - self.cpu.1,
            frames: end.frames - self.frames,
        }
    }
}

/// The workbench in a window, with the clock of the run.
struct Bench {
    workbench: Workbench,
    start: Instant,
    /// Phase ends, seconds from the start: warm-up, idle, playing.
    ends: [f64; 3],
    /// The tour, played from the start of the playing phase.
    tour: Vec<TimedCommand>,
    next_line: usize,
    frames: u64,
    marks: Vec<Mark>,
    result: Arc<Mutex<Option<(Phase, Phase)>>>,
    timer: bool,
}

impl Bench {
    fn mark(&mut self) {
        let cpu = cpu_now().unwrap_or_default();
        self.marks.push(Mark {
            at: Instant::now(),
            cpu,
            frames: self.frames,
        });
    }

    /// Wakes the window at each phase's end and each line of the tour (nothing else
    /// would wake an idle window).
    fn start_timer(&self, ctx: &egui::Context) {
        let ctx = ctx.clone();
        let start = self.start;
        let mut times: Vec<f64> = self.ends.to_vec();
        times.extend(self.tour.iter().map(|c| self.ends[1] + c.time));
        times.sort_by(f64::total_cmp);
        std::thread::spawn(move || {
            for t in times {
                let due = start + Duration::from_secs_f64(t);
                if let Some(wait) = due.checked_duration_since(Instant::now()) {
                    std::thread::sleep(wait);
                }
                // One frame, as input or the engine's news wakes the workbench.
                ctx.request_repaint_after(Duration::from_millis(1));
            }
        });
    }
}

impl eframe::App for Bench {
    fn clear_color(&self, visuals: &egui::Visuals) -> [f32; 4] {
        workbench::clear_color(visuals)
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        if !self.timer {
            self.timer = true;
            self.start_timer(ui.ctx());
        }
        self.frames += 1;
        let elapsed = self.start.elapsed().as_secs_f64();
        while self.marks.len() < 3 && elapsed >= self.ends[self.marks.len()] {
            self.mark();
        }
        if self.marks.len() >= 2 {
            let played = elapsed - self.ends[1];
            while let Some(line) = self.tour.get(self.next_line).filter(|c| c.time <= played) {
                self.workbench.run(line.command.clone());
                self.next_line += 1;
            }
        }
        self.workbench.frame(ui);
        if self.marks.len() == 3 {
            let phases = (
                self.marks[0].to(self.marks[1]),
                self.marks[1].to(self.marks[2]),
            );
            if let Ok(mut result) = self.result.lock() {
                *result = Some(phases);
            }
            ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
        }
    }
}

/// Runs the benchmark and prints its figures.
pub fn run(io: &mut Io<'_>, size: Size) -> anyhow::Result<()> {
    if !workbench::display_available() {
        anyhow::bail!(
            "bench ui --window needs a display: run it under Xvfb \
             (xvfb-run -a hitbench bench ui --window)"
        );
    }
    let which = usize::from(size == Size::Quick);
    let warm = WARM_UP[which];
    let ends = [
        warm,
        warm + IDLE[which],
        warm + IDLE[which] + PLAYING[which],
    ];
    let demo = Path::new(workbench::DEFAULT_PROJECT);
    let tour_file = demo.join("tour.txt");
    let text = std::fs::read_to_string(&tour_file)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", tour_file.display()))?;
    let (tour, problems) = parse_script(&text, &tour_file);
    if let Some(problem) = problems.first() {
        anyhow::bail!("{problem}");
    }
    let result = Arc::new(Mutex::new(None));
    let config = std::env::temp_dir().join(format!("hitbench-bench-window-{}", std::process::id()));
    let bench_result = Arc::clone(&result);
    let renderer = Arc::new(Mutex::new(None::<Option<String>>));
    let renderer_name = Arc::clone(&renderer);
    let options = workbench::native_options("HitBench — bench ui --window");
    let audio = OutputChoice::Null;
    let config_dir = config.clone();
    eframe::run_native(
        "hitbench-bench",
        options,
        Box::new(move |cc| {
            let mut workbench = Workbench::new(Some(demo), audio, Some(config_dir));
            let software = workbench::software_renderer(cc);
            if let Ok(mut name) = renderer_name.lock() {
                *name = Some(software.clone());
            }
            workbench.set_software_renderer(software, &cc.egui_ctx);
            workbench.set_cleared(true);
            Ok(Box::new(Bench {
                workbench,
                start: Instant::now(),
                ends,
                tour,
                next_line: 0,
                frames: 0,
                marks: Vec::new(),
                result: bench_result,
                timer: false,
            }))
        }),
    )
    .map_err(|e| anyhow::anyhow!("cannot open the benchmark window: {e}"))?;
    let _ = std::fs::remove_dir_all(&config);
    let Some((idle, playing)) = result.lock().ok().and_then(|r| *r) else {
        anyhow::bail!("the window closed before the benchmark ended");
    };
    writeln!(
        io.out,
        "bench ui --window: the demo in a 1280×800 window, null audio output; CPU as a share of one core"
    )?;
    let painted_by = match renderer.lock().ok().and_then(|r| r.clone()) {
        Some(Some(name)) => format!("{name} (software: views that move refresh twice a second)"),
        Some(None) => "a GPU (views that move refresh four times a second)".to_string(),
        None => "unknown".to_string(),
    };
    writeln!(io.out, "  painted by {painted_by}")?;
    for (name, phase, target) in [
        ("idle (nothing played)", idle, IDLE_TARGET),
        ("playing (the demo tour)", playing, PLAYING_TARGET),
    ] {
        let share = phase.share(phase.cpu);
        writeln!(
            io.out,
            "  {name:<24} {:>5.1} % of a core (window {:.1} %, engine and audio {:.1} %), \
             {:.1} frames/s over {:.0} s — target < {:.0} %: ratio {:.2}",
            100.0 * share,
            100.0 * phase.share(phase.cpu - phase.engine),
            100.0 * phase.share(phase.engine),
            phase.frames as f64 / phase.seconds.max(1e-9),
            phase.seconds,
            100.0 * target,
            share / target,
        )?;
    }
    Ok(())
}
