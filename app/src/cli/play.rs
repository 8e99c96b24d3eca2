//! `hitbench play`: plays a timed script of console commands against a project live,
//! through the sound card — or the null output when there is none, which it says in
//! one line — in real time, the way QA would type them into the console. Runtime faults
//! and the world's errors always go to standard error; `--trace` prints every trace
//! record to standard output. A `why` line is answered here, from the records about its
//! subject seen so far (the engine keeps no history): the script turns on the traces an
//! explanation reads ([`why::TRACES`]). `--capture` writes a capture of the session
//! (`docs/capture.md`): the script's commands as they ran, every decision, and keyframes
//! of the inspectors' views.

use super::Io;
use super::args::{Args, usage};
use super::render::{
    load_project, load_script, parse_seconds, parse_seed, plugin_dirs, print_record, savelot_policy,
};
use engine_core::host::command::{Command, DebugCommand, TimedCommand, WorldCommand};
use engine_core::host::live::{CaptureStatus, LiveCommand, LiveEngine, LiveSnapshot};
use engine_core::host::session::SessionConfig;
use engine_core::runtime::debug::PausedView;
use engine_core::runtime::{EngineConfig, SampleTime, TraceSwitches};
use engine_core::sound::output::OutputChoice;
use engine_core::toolchain::project::Project;
use engine_core::tools::why::{self, Subject, WhyLog};
use engine_core::world::ObjectId;
use std::collections::HashSet;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Runs `hitbench play <project> --script <file> [--seed N] [--tail S] [--null-audio]
/// [--trace] [--allow-savelot] [--capture <file.hbcap>] [--voices N]`.
pub fn run(args: &mut Args, io: &mut Io<'_>) -> anyhow::Result<ExitCode> {
    let script_path = args
        .value(&["--script", "-s"])?
        .map(PathBuf::from)
        .ok_or_else(|| usage("play needs a script: --script <file>"))?;
    let seed = parse_seed(args.value(&["--seed"])?)?;
    let plugins = plugin_dirs(args)?;
    let cache_budget = super::render::cache_budget(args)?;
    let voices = super::render::voice_limit(args)?;
    let tail = parse_seconds(args.value(&["--tail"])?, "--tail")?.unwrap_or(3.0);
    let choice = audio_choice(args);
    let show_trace = args.flag(&["--trace"]);
    let allow_savelot = args.flag(&["--allow-savelot"]);
    let capture = args.value(&["--capture"])?.map(PathBuf::from);
    let project_dir = args.next_positional().map(PathBuf::from).ok_or_else(|| {
        usage("play needs a project folder: hitbench play <project> --script <file>")
    })?;
    args.finish()?;
    if let Some(path) = &capture {
        super::paths::check_output(path, &[&script_path])?;
    }

    let Some(script) = load_script(&script_path, allow_savelot, io)? else {
        return Ok(ExitCode::from(super::EXIT_INPUT_ERRORS));
    };
    let project = load_project(&project_dir, &plugins, io)?;
    let why = WhyLog::new(script.iter().filter_map(|timed| match &timed.command {
        Command::Why(subject) => Some(subject.clone()),
        _ => None,
    }));
    let mut trace = if show_trace {
        TraceSwitches::ALL
    } else {
        TraceSwitches::default()
    };
    if why.is_asking() {
        trace.samples |= why::TRACES.samples;
        trace.tracks |= why::TRACES.tracks;
    }
    let config = SessionConfig {
        engine: EngineConfig {
            seed,
            max_voices: voices.unwrap_or(EngineConfig::default().max_voices),
            ..EngineConfig::default()
        },
        save_lot: savelot_policy(allow_savelot),
        trace,
        cache_budget,
        ..SessionConfig::default()
    };
    let checked = project.clone();
    let engine = LiveEngine::start(project, choice, config)
        .map_err(|e| anyhow::anyhow!("cannot start the engine thread: {e}"))?;
    writeln!(io.out, "audio: {}", engine.output.kind.describe())?;
    if let Some(path) = &capture {
        engine
            .start_capture(path)
            .map_err(|e| anyhow::anyhow!("cannot capture: {e}"))?;
    }
    let mut news = News {
        show_trace,
        why,
        objects: Vec::new(),
        waiting: 0,
        now: SampleTime::ZERO,
        paused: None,
        saves: HashSet::new(),
        failed_saves: 0,
    };
    let file = script_path.display().to_string();
    let start = Instant::now();
    let mut clock = ScriptClock::default();
    for timed in &script {
        clock.wait_for(timed, start, &engine, &mut news, io)?;
        let label = format!("{:>8.3}  {file}:{}", timed.time, timed.line);
        if let Command::Why(subject) = &timed.command {
            news.answer_why(&engine, &checked, subject, &label, io)?;
            continue;
        }
        if matches!(timed.command, Command::World(WorldCommand::SaveLot(_))) {
            news.saves.insert(label.clone());
        }
        engine.send(LiveCommand::Execute {
            label,
            command: timed.command.clone(),
        });
        news.waiting += 1;
        news.print(&engine.take_snapshot(), io)?;
    }
    // A script that ends while the debugger holds the engine paused goes on without
    // breakpoints.
    if news.paused.is_some() {
        writeln!(
            io.out,
            "the script ended while paused: going on without breakpoints"
        )?;
        for line in ["delete all", "break off fault", "continue"] {
            engine.line(line);
        }
    }
    // Script times and the tail are at most 24 h each (parse_script, parse_seconds).
    let last = script.last().map_or(0.0, |c| c.time);
    let end = start + clock.held + Duration::from_secs_f64(last + tail);
    while Instant::now() < end {
        std::thread::sleep(Duration::from_millis(50));
        news.print(&engine.take_snapshot(), io)?;
    }
    let snapshot = match &capture {
        Some(_) => finish_capture(&engine, &mut news, io)?,
        None => engine.take_snapshot(),
    };
    news.print(&snapshot, io)?;
    summary(&script, start, &snapshot, io)?;
    failed_saves(&news, &file, io)
}

/// A lot the script asked to save and that was not saved is an error: exit status 1.
fn failed_saves(news: &News, file: &str, io: &mut Io<'_>) -> anyhow::Result<ExitCode> {
    if news.failed_saves == 0 {
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        io.err,
        "hitbench: error: {file}: {} savelot line(s) could not save the lot (see above)",
        news.failed_saves
    )?;
    Ok(ExitCode::from(1))
}

/// How long the engine thread may take to write a capture's end.
const CAPTURE_END_WAIT: Duration = Duration::from_secs(10);

/// Ends the capture and waits until it is written; says where, or why not.
fn finish_capture(
    engine: &LiveEngine,
    news: &mut News,
    io: &mut Io<'_>,
) -> anyhow::Result<LiveSnapshot> {
    engine.send(LiveCommand::StopCapture);
    let asked = Instant::now();
    loop {
        let snapshot = engine.take_snapshot();
        match &snapshot.capture {
            CaptureStatus::Saved { path, seconds } => {
                writeln!(io.out, "captured {} ({seconds:.2} s)", path.display())?;
                return Ok(snapshot);
            }
            CaptureStatus::Failed { error } => anyhow::bail!("{error}"),
            _ if asked.elapsed() > CAPTURE_END_WAIT => {
                anyhow::bail!("the capture was not ended within {CAPTURE_END_WAIT:?}")
            }
            _ => {}
        }
        news.print(&snapshot, io)?;
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The closing line: commands played, notes, underruns.
fn summary(
    script: &[TimedCommand],
    start: Instant,
    snapshot: &LiveSnapshot,
    io: &mut Io<'_>,
) -> anyhow::Result<()> {
    let (started, missed, dropped) = snapshot.notes;
    writeln!(
        io.out,
        "played {} command(s) in {:.2} s: {started} note(s) started, {missed} waited for loading, \
         {dropped} dropped, {} output underrun(s)",
        script.len(),
        start.elapsed().as_secs_f64(),
        snapshot.mixer.underruns,
    )?;
    Ok(())
}

/// When a play script's lines are due: at their time since the start, plus the time the
/// debugger held the engine paused. While it is paused, the lines that follow are due at
/// once; a line that needs the pause (`regs`, `next`, …) first lets the engine tick.
#[derive(Default)]
struct ScriptClock {
    /// Time spent paused so far.
    held: Duration,
    /// The pause under way: since when.
    paused_since: Option<Instant>,
    /// The last line was a debugger command.
    debugging: bool,
}

impl ScriptClock {
    /// Waits until `timed` is due, printing what the engine reports meanwhile.
    fn wait_for(
        &mut self,
        timed: &TimedCommand,
        start: Instant,
        engine: &LiveEngine,
        news: &mut News,
        io: &mut Io<'_>,
    ) -> anyhow::Result<()> {
        let needs_pause = matches!(
            timed.command,
            Command::Debug(DebugCommand::GoOn(_) | DebugCommand::Regs | DebugCommand::Set { .. })
        );
        let sent_at = news.now;
        let asked = Instant::now();
        // Around the debugger, a line waits for the answers to the lines before it: the
        // snapshot then shows what they did (paused, stepped, going on).
        let settle = needs_pause || news.paused.is_some() || self.debugging;
        self.debugging = matches!(timed.command, Command::Debug(_));
        loop {
            news.print(&engine.take_snapshot(), io)?;
            if settle && news.waiting > 0 && asked.elapsed() < Duration::from_secs(2) {
                std::thread::sleep(Duration::from_millis(2));
                continue;
            }
            match (news.paused.is_some(), self.paused_since) {
                (true, None) => self.paused_since = Some(Instant::now()),
                (false, Some(since)) => {
                    self.held += since.elapsed();
                    self.paused_since = None;
                }
                _ => {}
            }
            if news.paused.is_some() {
                return Ok(());
            }
            let due = start + self.held + Duration::from_secs_f64(timed.time.max(0.0));
            let ticked = news.now > sent_at || asked.elapsed() > Duration::from_secs(1);
            if Instant::now() >= due && (!needs_pause || ticked) {
                return Ok(());
            }
            let left = due.saturating_duration_since(Instant::now());
            std::thread::sleep(left.clamp(Duration::from_millis(1), Duration::from_millis(5)));
        }
    }
}

/// What the engine reported, as it is printed: the trace (errors always), the replies,
/// the records `why` lines ask about and the lot's objects.
struct News {
    show_trace: bool,
    why: WhyLog,
    /// The objects on the lot, as the last snapshot had them.
    objects: Vec<ObjectId>,
    /// Commands sent and not answered yet.
    waiting: usize,
    /// The engine's time, as the last snapshot had it.
    now: SampleTime,
    /// Where the debugger holds the engine paused, as the last snapshot had it.
    paused: Option<PausedView>,
    /// The labels of the `savelot` lines sent, and how many of them could not save.
    saves: HashSet<String>,
    failed_saves: usize,
}

/// How long a `why` waits for the commands before it to be answered.
const WHY_WAIT: Duration = Duration::from_secs(1);

impl News {
    /// Prints a snapshot's trace records and replies, keeping what `why` needs.
    fn print(&mut self, snapshot: &LiveSnapshot, io: &mut Io<'_>) -> anyhow::Result<()> {
        for record in &snapshot.trace {
            print_record(record, self.show_trace, io)?;
            self.why.keep(record);
        }
        for reply in &snapshot.replies {
            print_reply(&reply.line, &reply.result, io)?;
            if reply.result.is_err() && self.saves.contains(&reply.line) {
                self.failed_saves += 1;
            }
        }
        self.waiting = self.waiting.saturating_sub(snapshot.replies.len());
        self.now = snapshot.now;
        if snapshot.debug.paused != self.paused {
            if let Some(paused) = &snapshot.debug.paused {
                writeln!(io.out, "{paused}")?;
            }
            self.paused = snapshot.debug.paused.clone();
        }
        self.objects = snapshot.world.objects.iter().map(|(o, _)| o.id).collect();
        Ok(())
    }

    /// Answers a `why` line once the commands before it have run (at most [`WHY_WAIT`]).
    fn answer_why(
        &mut self,
        engine: &LiveEngine,
        project: &Project,
        subject: &Subject,
        label: &str,
        io: &mut Io<'_>,
    ) -> anyhow::Result<()> {
        let asked = Instant::now();
        self.print(&engine.take_snapshot(), io)?;
        while self.waiting > 0 && asked.elapsed() < WHY_WAIT {
            std::thread::sleep(Duration::from_millis(5));
            self.print(&engine.take_snapshot(), io)?;
        }
        let answer = subject
            .check(project, &self.objects)
            .map(|()| self.why.answer(subject, engine.output.sample_rate))
            .map_err(|e| e.to_string());
        print_reply(label, &answer, io)
    }
}

/// `--null-audio` (or `HITBENCH_AUDIO=null`) forces the null output.
pub(super) fn audio_choice(args: &mut Args) -> OutputChoice {
    if args.flag(&["--null-audio"]) {
        OutputChoice::Null
    } else {
        OutputChoice::from_env()
    }
}

fn print_reply(
    label: &str,
    result: &Result<String, String>,
    io: &mut Io<'_>,
) -> anyhow::Result<()> {
    match result {
        Ok(message) => writeln!(io.out, "{label}: {message}")?,
        Err(message) => writeln!(io.out, "{label}: error: {message}")?,
    }
    Ok(())
}
