//! `hitbench play`: plays a timed script of console commands against a project live,
//! through the sound card — or the null output when there is none, which it says in
//! one line — in real time, the way QA would type them into the console. Runtime faults
//! and the world's errors always go to standard error; `--trace` prints every trace
//! record to standard output.

use super::Io;
use super::args::{Args, usage};
use super::render::{
    load_project, load_script, parse_seconds, parse_seed, print_record, savelot_policy,
};
use engine_core::host::live::{LiveCommand, LiveEngine};
use engine_core::host::session::SessionConfig;
use engine_core::runtime::{EngineConfig, TraceSwitches};
use engine_core::sound::output::OutputChoice;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Runs `hitbench play <project> --script <file> [--seed N] [--tail S] [--null-audio]
/// [--trace] [--allow-savelot]`.
pub fn run(args: &mut Args, io: &mut Io<'_>) -> anyhow::Result<ExitCode> {
    let script_path = args
        .value(&["--script", "-s"])?
        .map(PathBuf::from)
        .ok_or_else(|| usage("play needs a script: --script <file>"))?;
    let seed = parse_seed(args.value(&["--seed"])?)?;
    let tail = parse_seconds(args.value(&["--tail"])?, "--tail")?.unwrap_or(3.0);
    let choice = audio_choice(args);
    let show_trace = args.flag(&["--trace"]);
    let allow_savelot = args.flag(&["--allow-savelot"]);
    let project_dir = args.next_positional().map(PathBuf::from).ok_or_else(|| {
        usage("play needs a project folder: hitbench play <project> --script <file>")
    })?;
    args.finish()?;

    let Some(script) = load_script(&script_path, allow_savelot, io)? else {
        return Ok(ExitCode::from(super::EXIT_INPUT_ERRORS));
    };
    let project = load_project(&project_dir, io)?;
    let config = SessionConfig {
        engine: EngineConfig {
            seed,
            ..EngineConfig::default()
        },
        save_lot: savelot_policy(allow_savelot),
        trace: if show_trace {
            TraceSwitches::ALL
        } else {
            TraceSwitches::default()
        },
        ..SessionConfig::default()
    };
    let engine = LiveEngine::start(project, choice, config)
        .map_err(|e| anyhow::anyhow!("cannot start the engine thread: {e}"))?;
    writeln!(io.out, "audio: {}", engine.output.kind.describe())?;
    let file = script_path.display().to_string();
    let start = Instant::now();
    for timed in &script {
        let due = start + Duration::from_secs_f64(timed.time.max(0.0));
        std::thread::sleep(due.saturating_duration_since(Instant::now()));
        engine.send(LiveCommand::Execute {
            label: format!("{:>8.3}  {file}:{}", timed.time, timed.line),
            command: timed.command.clone(),
        });
        print_news(&engine, show_trace, io)?;
    }
    // Script times and the tail are at most 24 h each (parse_script, parse_seconds).
    let last = script.last().map_or(0.0, |c| c.time);
    let end = start + Duration::from_secs_f64(last + tail);
    while Instant::now() < end {
        std::thread::sleep(Duration::from_millis(50));
        print_news(&engine, show_trace, io)?;
    }
    let snapshot = engine.take_snapshot();
    print_snapshot(&snapshot, show_trace, io)?;
    let (started, missed, dropped) = snapshot.notes;
    writeln!(
        io.out,
        "played {} command(s) in {:.2} s: {started} note(s) started, {missed} waited for loading, \
         {dropped} dropped, {} output underrun(s)",
        script.len(),
        start.elapsed().as_secs_f64(),
        snapshot.mixer.underruns,
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `--null-audio` (or `HITBENCH_AUDIO=null`) forces the null output.
pub(super) fn audio_choice(args: &mut Args) -> OutputChoice {
    if args.flag(&["--null-audio"]) {
        OutputChoice::Null
    } else {
        OutputChoice::from_env()
    }
}

/// Prints what the engine did since the last look: its trace (errors always) and the
/// replies to the script's commands.
fn print_news(engine: &LiveEngine, show_trace: bool, io: &mut Io<'_>) -> anyhow::Result<()> {
    print_snapshot(&engine.take_snapshot(), show_trace, io)
}

fn print_snapshot(
    snapshot: &engine_core::host::live::LiveSnapshot,
    show_trace: bool,
    io: &mut Io<'_>,
) -> anyhow::Result<()> {
    for record in &snapshot.trace {
        print_record(record, show_trace, io)?;
    }
    for (label, result) in &snapshot.replies {
        print_reply(label, result, io)?;
    }
    Ok(())
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
