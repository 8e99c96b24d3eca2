//! The command line: `hitbench <command> [options]`. Each command is one module with a
//! `run` function; this module dispatches and owns the exit-status convention
//! (0 = success, 1 = the input has errors, 2 = the command line is wrong). `compare`
//! answers a question instead, as `cmp` and `diff` do: 0 = the files do not differ,
//! 1 = they do, 2 = they cannot be compared.

mod args;
mod asm;
mod bench;
mod check;
mod compare;
mod decode;
mod disasm;
mod paths;
mod play;
mod probe;
mod progress;
mod qa;
mod render;
mod replay;
mod terminal;

use std::io::Write;
use std::process::ExitCode;

pub use args::Args;

/// Where a command writes: standard output and standard error, or buffers in tests.
pub struct Io<'a> {
    /// Results.
    pub out: &'a mut dyn Write,
    /// Diagnostics and progress.
    pub err: &'a mut dyn Write,
    /// Whether long commands draw a progress bar on the process's standard error (it is
    /// a terminal); never in tests.
    pub progress: bool,
}

/// Exit status when the input (a source, a project, a sample) has errors.
pub const EXIT_INPUT_ERRORS: u8 = 1;
/// Exit status when the command line itself is wrong.
pub const EXIT_USAGE: u8 = 2;
/// Exit status of `compare` when the files cannot be compared (a file missing, damaged
/// or of another rate), as `cmp` and `diff` use it; the same number as [`EXIT_USAGE`].
pub const EXIT_TROUBLE: u8 = 2;

const HELP: &str = "\
HitBench — a workbench for HIT-style game audio

Usage: hitbench [command] [options]

Outputs (-o, --capture, --junit, asm's files) replace only a regular file, never a
device, named pipe or one of the command's inputs (exit status 2), and only once the
new file is complete: a failed write leaves the old file.

Commands (--plugin DIR, repeatable, loads a plug-in folder after the project: what it
defines overrides the project's, a later one winning, like the game's download
directories; replay's capture already names the folders it was made with. --cache-mb N
sets the resource cache's budget in MiB for open, render, play, test and replay, over
world.ini [Cache] BudgetMB; default 256):
  open [<project> | <capture.hbcap> | <file>] [--null-audio] [--cache-mb N] [--voices N]
        Open the workbench window on a project folder (default: the project open
        last time, else projects/demo); on a capture, show it in the capture
        view, on the project it was made with; on another file, on the project
        folder it is in. --voices sets Box-X's voice limit (1 to 1024, default
        16; `voices <n>` at the console changes it). The layout and recent
        projects are kept in $HITBENCH_CONFIG_DIR (default ~/.config/hitbench).
        This is also what `hitbench` with no command does. Sound goes to the
        default sound card; without one (or with --null-audio, or with
        HITBENCH_AUDIO=null) the mixer runs in real time on the null output.
  asm <source> [-o <dir>] [--layout ts1|tso] [-I|--include <dir>]... [--strict]
        Assemble Maxis MakeTrax source into <dir>/<stem>.hit, .hsm, .hot, .hdb
        and .sym (default <dir>: the source's folder). INCLUDE, INIFILE and
        SYMBOLFILE read only regular files in the source's folder and the
        --include folders. Diagnostics are printed as
        file:line:col: error|warning: message [code] (docs/diagnostics.md).
        A label used but never defined while an INCLUDE is missing becomes a
        late-bound import (a warning; bound when the project loads); --strict
        makes missing includes and such labels errors.
        Exit status 1 if there are errors.
  disasm <file.hit> [--hsm <file.hsm>] [--hdb <file.hdb>] [--sym <file.sym>] [--layout ts1|tso] [-o <file>]
        Turn a .hit back into MakeTrax source that reassembles byte for byte.
        A .hsm/.hdb next to the .hit is used for label names when not given;
        a .sym names its late-bound imports (written back as EXTERN names).
        Each file read must be a regular file of at most 16 MiB, as for INCLUDE
        (a named pipe or a device is refused, not waited on or read).
        Writes to standard output without -o.
  check <project> [<more data dirs>...] [--strict] [--plugin DIR]...
        Lint a project without running it: unbound names, missing or damaged
        samples, unused tracks, events that play nothing, sounds in the wrong
        option group (a vox_* track under FX), world.ini and lot mistakes. Prints
        file:line: error|warning[rule]: message [code], then a summary. Exit status 1 on
        errors (--strict: on warnings too). docs/check.md lists every rule.
  render <project> --script <file> -o <out.wav> [--seed N] [--rate 48000] [--duration S]
         [--trace] [--allow-savelot] [--loudness] [--capture <file.hbcap>] [--plugin DIR]...
         [--cache-mb N]
        Play a timed script of console commands (`0.0 ui ui_click`, `1.5 quietall`)
        against a project, offline, into a WAV file. The same project, script and
        seed (a whole number) give the same bytes. Script times go up to 86400 s
        (24 h); the file holds 3 s more than the last command, or --duration S
        seconds. A WAV file holds at most 4 GiB (6.2 h at 48000 Hz): a longer
        render is refused before it starts. Runtime faults and errors in the lot
        or world.ini go to standard error; --trace prints every trace record.
        A `savelot` line is an error unless --allow-savelot (which saves only
        inside the project's folders); one that could not save ends the render
        with exit status 1. --loudness prints, after the render, the
        output's integrated loudness, largest short-term (3 s) and momentary
        (400 ms) loudness in LUFS and its true peak in dBTP (EBU R 128,
        ITU-R BS.1770); silence reads `-inf (silent)`. --capture writes a
        capture (docs/capture.md): the inputs, seed, settings, a hash of every
        project file and every decision the engine made.
  replay <file.hbcap> [--project DIR] [--plugin DIR]... [--voices N] [--seed S]
         [--cache-mb N] [--diff]
        Run a capture's inputs again against the project as it is now (or the
        one in DIR, or with another voice limit or seed) and, with --diff, list
        the decisions that differ: triggers refused or stealing now and not
        before, other hit-list picks, notes missing, extra or of another
        sample, gains moved by more than 1 dB — each with its time and event.
        Without --project the capture's folders are used only when each is
        found (as stored, or beside the capture) and holds files the capture
        lists; else it names the folder and asks for --project DIR.
        Exit status 0: no difference, 1: they differ, 2: the capture cannot be
        read or its folders are not found.
  why <file.hbcap> <event | seconds>
        Explain every trigger of an event in a capture (or the triggers at the
        latest time not after the one given): the Box-X verdict with every
        voice it was compared with (track, priority, age), the hit-list picks,
        and each note's gain as the product of its named contributions: track
        volume, the trigger's volume or the view's fade, zoom and floor,
        ducking, option group and master volume; and where its pan came from.
        Exit status 2 when the capture cannot be read.
  test <project> [files.qa…] [--junit out.xml] [--plugin DIR]... [--cache-mb N]
        Run the project's QA scripts (qa/*.qa, or the files given; docs/qa.md)
        offline, on all cores: render scripts with `expect` lines checked at their
        time. One line per script; for each failed expectation its file:line,
        what actually was, the time, and the decision behind it. Ends with
        `N passed, N failed`; exit status 1 when any failed. --junit writes JUnit
        XML for CI systems.
  capture-text <file.hbcap> [-o out.jsonl]
        Write a capture as JSON lines (docs/capture.md), one object per line:
        the header, the inputs, every decision, the end — to read with other
        tools. The text reads back like the capture: replay, why and the
        workbench open it too.
  compare <a.wav> <b.wav> [--threshold <dB>] [--window <ms>]
        Compare two audio files (two renders): each one's integrated, largest
        short-term and momentary loudness and true peak, the differences, and
        the first time (s, to the ms) they differ. They differ where the RMS
        level of the difference a - b, all channels, over a window sliding
        frame by frame (--window, default 10 ms, 0.1 to 1000) rises above
        --threshold dBFS (default -60; a full-scale square wave is 0 dBFS); the
        time is the first frame in that window where the difference alone is
        above the threshold. A longer file's extra tail is a difference at the
        shorter one's end. Files of different rates or channel counts are not
        compared. Exit status 0: no difference, 1: they differ, 2: a file is
        missing, damaged or not comparable.
  play <project> --script <file> [--seed N] [--tail S] [--null-audio] [--trace]
       [--allow-savelot] [--capture <file.hbcap>] [--plugin DIR]... [--cache-mb N]
       [--voices N]
        Play the same kind of script live, in real time, through the sound card
        (or the null output, which it says in one line), then print how many
        notes played and how many output underruns there were. Faults, --trace,
        --allow-savelot and --capture as for render; --tail (default 3, at most
        86400) is how long it plays after the last command; --voices the voice
        limit it starts with (1 to 1024, default 16; a `voices` line changes it).
  probe <file>...
        Decode audio files and print one tab-separated line each: path, format,
        rate, channels, bits, frames, seconds — or path, `error`, the message.
  decode <file> -o <out.wav>
        Decode an audio file the engine plays (WAV, MP3, Ogg Vorbis, FLAC, XA) as
        the engine decodes it and write it as 16-bit PCM WAV at the file's own
        rate and channels (more than two are downmixed to stereo, as they play;
        16-bit input comes out sample for sample). A damaged file is an error and
        writes nothing. Exit status 1 if the file cannot be decoded or written.
  bench asm|vm|mix|reload|ui|load [--quick]
        --quick does a hundredth of the work (same code paths, rough figures).
  bench asm
        Measure assembler throughput (source lines per second) on a generated
        100,000-line source, and the time to write 80,000 LIST lines as a .hot.
  bench vm
        Measure the runtime: HIT instructions per second in a compute-heavy track,
        the share of one core 10,000 live tracks take at 60 Hz, events
        dispatched per second, and what capturing them (--capture) costs — in
        all, and while the machine's cores were near and far apart (a cache
        line's round trip between two threads, measured beside each run).
  bench mix
        Render the same scene (16, 256 and 1,024 voices of 22,050 Hz mono
        samples to 48 kHz stereo, gain and pan per voice) with HitBench's mixer
        (linear and cubic), kira and rodio: ns per voice-frame, HitBench's speed
        ratios and the memory-bandwidth bound (targets at 256 voices: linear
        ≤ 0.45 ns and ≥ 25× kira, cubic ≥ 10× kira). Also decode throughput
        (WAV MiB/s, Ogg/MP3 × real time) and cache hit latency.
        Build with --release for meaningful figures.
  bench reload
        Rewrite a source, a sample and a .hot 20 times each in a watched
        temporary project; print write -> live times (median, p90, max) against
        the targets (median 15 ms, p90 25 ms).
  bench ui
        Draw the workbench's panels headless with 1,000,000 trace records and 64
        busy voices while records arrive: layout, tessellation and paint by
        egui_wgpu into an offscreen texture (a software adapter such as llvmpipe
        where there is no GPU). Print the full frame time (median, p95)
        following the newest record and with a filter on, against the 8 ms
        target, its split, the adapter, and the renderer's own cost.
  bench load
        Generate a project of 100,000 samples and 20,000 tracks in a temporary
        folder and time `hitbench check` on it (best of 3) and its peak memory,
        against the 1 s and 190.7 MiB (200 MB) targets; then time `hitbench open
        projects/demo --null-audio` from its start to the first painted frame
        (median of 5; needs a display, e.g. xvfb-run) against the 400 ms target.
  help [<command>]
        Show this text; with a command, only its part (also `hitbench <command>
        --help` or -h).
";

/// The help for `command`: its usage and description from [`HELP`] (every part whose
/// usage line starts with it: `bench` has several), then the notes on the options
/// several commands share where it takes them; all of it without a command; `None` for
/// a command there is no help for.
fn help_for(command: Option<&str>) -> Option<String> {
    let Some(command) = command.filter(|c| !matches!(*c, "help" | "--help" | "-h")) else {
        return Some(HELP.to_string());
    };
    let (head, parts) = HELP.split_once("\n  ")?;
    // A part starts at a line indented by exactly two spaces; the lines under it are
    // indented further.
    let mut text = String::new();
    let mut taking = false;
    for line in format!("  {parts}").lines() {
        let indent = line.len() - line.trim_start().len();
        if indent == 2 {
            let name = line.trim_start().split([' ', '\t']).next().unwrap_or("");
            taking = name == command;
        }
        if taking {
            text.push_str(line);
            text.push('\n');
        }
    }
    if text.is_empty() {
        return None;
    }
    // The notes on --plugin and --cache-mb, where the command takes them.
    if text.contains("--plugin") || text.contains("--cache-mb") {
        let notes = head
            .split_once("\n\nCommands ")
            .map_or("", |(_, notes)| notes.trim_end_matches(':'));
        text.push_str(&format!("\nShared options {notes}.\n"));
    }
    Some(format!("Usage: hitbench {command} [options]\n\n{text}"))
}

fn open(args: &mut Args, _io: &mut Io<'_>) -> anyhow::Result<ExitCode> {
    let choice = play::audio_choice(args);
    let options = crate::workbench::EngineOptions {
        cache_budget: render::cache_budget(args)?,
        voices: render::voice_limit(args)?,
    };
    let dir = args.next_positional();
    args.finish()?;
    if !crate::workbench::display_available() {
        return Err(anyhow::anyhow!(
            "no display (DISPLAY and WAYLAND_DISPLAY are unset): the workbench needs a window; \
             the command-line tools work without one (hitbench help)"
        ));
    }
    crate::workbench::run(dir.as_deref().map(std::path::Path::new), choice, options)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs the command line with the process's standard output and error; `args`
/// excludes the program name.
pub fn main(args: &[String]) -> ExitCode {
    let mut out = std::io::stdout().lock();
    // Not locked for the whole run: a thread of the workbench or the engine that writes
    // to standard error (a panic's message) would wait for the lock forever.
    let mut err = std::io::stderr();
    let progress = std::io::IsTerminal::is_terminal(&err);
    run(
        args,
        &mut Io {
            out: &mut out,
            err: &mut err,
            progress,
        },
    )
}

/// Runs the command line, writing through `io` (control characters escaped, see
/// `terminal`).
pub fn run(args: &[String], io: &mut Io<'_>) -> ExitCode {
    let mut out = terminal::TerminalSafe::new(&mut *io.out);
    let mut err = terminal::TerminalSafe::new(&mut *io.err);
    let io = &mut Io {
        out: &mut out,
        err: &mut err,
        progress: io.progress,
    };
    let mut args = Args::new(args);
    // `--version` anywhere (an option: it is not the command).
    if args.flag(&["--version", "-V"]) {
        return match writeln!(io.out, "hitbench {}", env!("CARGO_PKG_VERSION")) {
            Ok(()) => ExitCode::SUCCESS,
            Err(_) => ExitCode::from(EXIT_INPUT_ERRORS),
        };
    }
    let command = args.next_positional();
    // `--help` anywhere: the command's part of the help (`check` has a page of its own).
    if command.as_deref() != Some("check") && args.flag(&["--help", "-h"]) {
        return match help_for(command.as_deref()) {
            Some(text) => match write!(io.out, "{text}") {
                Ok(()) => ExitCode::SUCCESS,
                Err(_) => ExitCode::from(EXIT_INPUT_ERRORS),
            },
            None => {
                let _ = writeln!(
                    io.err,
                    "hitbench: error: unknown command `{}` (try `hitbench help`)",
                    command.unwrap_or_default()
                );
                ExitCode::from(EXIT_USAGE)
            }
        };
    }
    let result = match command.as_deref() {
        None | Some("open") => open(&mut args, io),
        Some("help") => match args.next_positional() {
            Some(about) if about == "check" => {
                check::run(&mut Args::new(&["--help".to_string()]), io)
            }
            about => match help_for(about.as_deref()) {
                Some(text) => write!(io.out, "{text}")
                    .map(|()| ExitCode::SUCCESS)
                    .map_err(Into::into),
                None => Err(args::usage(format!(
                    "no command `{}` (try `hitbench help`)",
                    about.unwrap_or_default()
                ))),
            },
        },
        Some("asm") => asm::run(&mut args, io),
        Some("disasm") => disasm::run(&mut args, io),
        Some("bench") => bench::run(&mut args, io),
        Some("check") => check::run(&mut args, io),
        Some("compare") => compare::run(&mut args, io),
        Some("decode") => decode::run(&mut args, io),
        Some("render") => render::run(&mut args, io),
        Some("play") => play::run(&mut args, io),
        Some("probe") => probe::run(&mut args, io),
        Some("replay") => replay::run(&mut args, io),
        Some("why") => replay::why(&mut args, io),
        Some("capture-text") => replay::capture_text(&mut args, io),
        Some("test") => qa::run(&mut args, io),
        Some(other) => Err(args::usage(format!(
            "unknown command `{other}` (try `hitbench help`)"
        ))),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            let _ = writeln!(io.err, "hitbench: error: {}", error_text(&error));
            if error.downcast_ref::<args::UsageError>().is_some() {
                ExitCode::from(EXIT_USAGE)
            } else {
                ExitCode::from(EXIT_INPUT_ERRORS)
            }
        }
    }
}

/// An error and its causes, `: `-separated — each cause left out whose words the text
/// already holds (many errors say their cause in their own message: `cannot create
/// x.wav: No such file or directory`).
fn error_text(error: &anyhow::Error) -> String {
    let mut text = error.to_string();
    for cause in error.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}
