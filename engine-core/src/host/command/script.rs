//! Render and play scripts: one `<seconds> <command>` per line, times not going back and
//! at most [`MAX_SCRIPT_SECONDS`]; `#` and `;` start comments; a `repeat` line stands for
//! its commands. Every problem is a diagnostic naming the file, line and column.

use super::grammar::parse;
use super::{Command, WorldCommand};
use crate::toolchain::diag::{DiagCode, Diagnostic};
use std::path::{Path, PathBuf};

/// The latest time a script line may have, in seconds (24 h). Longer renders say so
/// with `--duration`; a line at `1e308` must not mean "render until the disk is full".
pub const MAX_SCRIPT_SECONDS: f64 = 86_400.0;

/// A command with the time it runs at.
#[derive(Debug, Clone, PartialEq)]
pub struct TimedCommand {
    /// Seconds from the start.
    pub time: f64,
    /// The command.
    pub command: Command,
    /// 1-based line in the script.
    pub line: u32,
}

/// Why the start of a script line is not a time the script may use.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
enum TimeError {
    /// Beyond [`MAX_SCRIPT_SECONDS`].
    #[error(
        "time {time} is beyond the latest a script may use, {max} s (24 h); \
         render longer with `--duration`",
        max = MAX_SCRIPT_SECONDS
    )]
    TooLate {
        /// The time written.
        time: f64,
    },
    /// Earlier than the line before.
    #[error("time {time} is earlier than the line before ({before}); times must not go back")]
    Backwards {
        /// The time written.
        time: f64,
        /// The time of the line before.
        before: f64,
    },
    /// Not a finite, non-negative number.
    #[error("`{0}` is not a time: each line starts with seconds, e.g. `1.5 sev ui click`")]
    NotATime(String),
}

/// The time at the start of a script line.
impl TimeError {
    /// The diagnostic code of this kind of problem.
    fn code(&self) -> DiagCode {
        match self {
            TimeError::NotATime(_) => DiagCode::BadNumber,
            TimeError::TooLate { .. } => DiagCode::NumberOutOfRange,
            TimeError::Backwards { .. } => DiagCode::OutOfOrder,
        }
    }
}

fn line_time(time_text: &str, last_time: f64) -> Result<f64, TimeError> {
    match time_text.parse::<f64>() {
        Ok(time) if time.is_finite() && time > MAX_SCRIPT_SECONDS => {
            Err(TimeError::TooLate { time })
        }
        Ok(time) if time.is_finite() && time >= 0.0 => {
            if time < last_time {
                Err(TimeError::Backwards {
                    time,
                    before: last_time,
                })
            } else {
                Ok(time)
            }
        }
        _ => Err(TimeError::NotATime(time_text.to_owned())),
    }
}

/// One line of a script with code on it: its time and the rest after the time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScriptLine<'a> {
    /// 1-based line.
    pub line: u32,
    /// Seconds from the start.
    pub time: f64,
    /// What follows the time (comment cut).
    pub rest: &'a str,
    /// The 1-based column at which `rest` would start (just past the time's space).
    pub rest_column: u32,
}

/// The lines of a script that hold code, each with its time read — `#` and `;` start
/// comments, times must not go back — or the problem with its time.
pub fn script_lines<'a>(
    text: &'a str,
    file: &'a Path,
) -> impl Iterator<Item = Result<ScriptLine<'a>, Diagnostic>> + 'a {
    let mut last_time = 0.0f64;
    // A byte-order mark (an editor's UTF-8 signature) is not part of the first line.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines().enumerate().filter_map(move |(index, raw)| {
        let line = u32::try_from(index + 1).unwrap_or(u32::MAX);
        let code = raw.split(['#', ';']).next().unwrap_or("");
        let trimmed = code.trim_start();
        if trimmed.is_empty() {
            return None;
        }
        let lead = u32::try_from(code.len() - trimmed.len()).unwrap_or(0);
        let (time_text, rest) = trimmed
            .split_once(char::is_whitespace)
            .unwrap_or((trimmed, ""));
        match line_time(time_text, last_time) {
            Ok(time) => {
                last_time = time;
                Some(Ok(ScriptLine {
                    line,
                    time,
                    rest,
                    rest_column: lead + u32::try_from(time_text.chars().count()).unwrap_or(0) + 2,
                }))
            }
            Err(why) => Some(Err(Diagnostic::error(
                why.code(),
                file,
                line,
                lead + 1,
                why.to_string(),
            ))),
        }
    })
}

/// The command of a script line, or its problem.
pub fn line_command(line: &ScriptLine<'_>, file: &Path) -> Result<TimedCommand, Diagnostic> {
    match parse(line.rest) {
        Ok(Some(command)) => Ok(TimedCommand {
            time: line.time,
            command,
            line: line.line,
        }),
        Ok(None) => Err(Diagnostic::error(
            DiagCode::MissingField,
            file,
            line.line,
            line.rest_column,
            "a time needs a command after it",
        )),
        Err(e) => Err(Diagnostic::error(
            DiagCode::BadCommand,
            file,
            line.line,
            line.rest_column - 1 + e.column,
            e.message,
        )),
    }
}

/// The commands of a script line, or its problem: a `repeat` line as each command it
/// makes, at its time (from the line's time on, `ms` apart), any other as itself.
pub fn line_commands(line: &ScriptLine<'_>, file: &Path) -> Result<Vec<TimedCommand>, Diagnostic> {
    let timed = line_command(line, file)?;
    Ok(match timed.command {
        Command::Repeat {
            count,
            every_ms,
            command,
        } => {
            // Its last run is held to the script's end, as every line's time is.
            let last = timed.time + f64::from(count.saturating_sub(1)) * every_ms / 1000.0;
            if last > MAX_SCRIPT_SECONDS {
                return Err(Diagnostic::error(
                    DiagCode::BadCommand,
                    file,
                    line.line,
                    line.rest_column,
                    format!(
                        "this `repeat` runs until {last:.3} s, past the {MAX_SCRIPT_SECONDS} s \
                         (24 h) a script may last: fewer runs, or closer together"
                    ),
                ));
            }
            (0..count)
                .map(|k| TimedCommand {
                    time: timed.time + f64::from(k) * every_ms / 1000.0,
                    command: (*command).clone(),
                    line: timed.line,
                })
                .collect()
        }
        command => vec![TimedCommand { command, ..timed }],
    })
}

/// Parses a script: `<seconds> <command>` per line (a `repeat` line as its commands).
/// Returns the commands, in time order (lines of the same time in the file's order), and
/// its problems (file, line, column; after [`MAX_SCRIPT_PROBLEMS`] the rest is not read).
/// A script that makes more than [`MAX_SCRIPT_COMMANDS`] is read no further.
pub fn parse_script(text: &str, file: &Path) -> (Vec<TimedCommand>, Vec<Diagnostic>) {
    let mut commands = Vec::new();
    let mut problems = ScriptProblems::default();
    for line in script_lines(text, file) {
        let at = line.as_ref().map_or(0, |l| l.line);
        match line.and_then(|line| line_commands(&line, file)) {
            Ok(more) => {
                if let Err(d) = add_commands(&mut commands, more, file, at) {
                    problems.push(d);
                    break;
                }
            }
            Err(d) => problems.push(d),
        }
        if problems.is_full() {
            break;
        }
    }
    commands.sort_by(|a, b| a.time.total_cmp(&b.time).then(a.line.cmp(&b.line)));
    (commands, problems.into_vec(file))
}

/// The most commands one script makes (each run of a `repeat` counts): more than a
/// day-long script wants (one a second is 86,400), and a bound on what a script file of
/// any size asks of memory.
pub const MAX_SCRIPT_COMMANDS: usize = 200_000;

/// The problems said of one script: the first ones, then how many more there were.
pub const MAX_SCRIPT_PROBLEMS: usize = 100;

/// Adds the commands of line `line` to a script's, or says the script makes more than
/// [`MAX_SCRIPT_COMMANDS`].
pub fn add_commands(
    commands: &mut Vec<TimedCommand>,
    more: Vec<TimedCommand>,
    file: &Path,
    line: u32,
) -> Result<(), Diagnostic> {
    if commands.len() + more.len() > MAX_SCRIPT_COMMANDS {
        return Err(Diagnostic::error(
            DiagCode::BadCommand,
            file,
            line,
            0,
            format!(
                "the script makes more than {MAX_SCRIPT_COMMANDS} commands here (each run of a \
                 `repeat` counts); it is read no further: split it"
            ),
        ));
    }
    commands.extend(more);
    Ok(())
}

/// A script's problems as they are found, at most [`MAX_SCRIPT_PROBLEMS`]: a file of a
/// million bad lines is said in a hundred, and read no further once they are found.
#[derive(Debug, Default)]
pub struct ScriptProblems {
    kept: Vec<Diagnostic>,
    /// Problems came after the last kept one (the rest of the file was not read).
    cut: bool,
}

impl ScriptProblems {
    /// Notes a problem.
    pub fn push(&mut self, problem: Diagnostic) {
        if self.is_full() {
            self.cut = true;
        } else {
            self.kept.push(problem);
        }
    }

    /// True when [`MAX_SCRIPT_PROBLEMS`] were found: reading on would say no more.
    pub fn is_full(&self) -> bool {
        self.kept.len() >= MAX_SCRIPT_PROBLEMS
    }

    /// True when there is none.
    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// The problems kept, and, when that many were found, one saying that the rest of
    /// the script was not read.
    pub fn into_vec(mut self, file: &Path) -> Vec<Diagnostic> {
        if self.is_full() || self.cut {
            let line = self.kept.last().map_or(0, |d| d.line);
            self.kept.push(Diagnostic::error(
                DiagCode::BadCommand,
                file,
                line,
                0,
                format!(
                    "{MAX_SCRIPT_PROBLEMS} problems: the rest of the script was not read; fix \
                     these first"
                ),
            ));
        }
        self.kept
    }
}

/// A script file that could not be read: the path as given, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {reason}", path.display())]
pub struct ScriptUnreadable {
    /// The script as it was named.
    pub path: PathBuf,
    /// Why (the file rules' words: a named pipe, a device, too large, not there…).
    pub reason: String,
}

/// A script file's text, read under the file rules of a text file: a regular file
/// (never a pipe or a device, which could block or never end) of at most
/// [`MAX_TEXT_FILE_BYTES`](crate::toolchain::fsrules::MAX_TEXT_FILE_BYTES); bytes that
/// are not UTF-8 replaced. The user named the file, so a link to it is followed
/// wherever it leads — to a file held to the same rules.
pub fn read_script(path: &Path) -> Result<String, ScriptUnreadable> {
    let real = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let bytes = crate::toolchain::fsrules::ReadRules::for_file(&real)
        .read(&real)
        .map_err(|refusal| ScriptUnreadable {
            path: path.to_path_buf(),
            reason: refusal.reason(),
        })?;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// An error for each `savelot` line of a script that was not allowed to save the lot
/// (`hitbench render` and `play` without `--allow-savelot`, the workbench's renders).
pub fn savelot_refusals(script: &[TimedCommand], file: &Path) -> Vec<Diagnostic> {
    script
        .iter()
        .filter(|c| matches!(c.command, Command::World(WorldCommand::SaveLot(_))))
        .map(|c| {
            Diagnostic::error(
                DiagCode::SavelotNotAllowed,
                file,
                c.line,
                0,
                "this script may not save the lot: `savelot` runs only with `--allow-savelot` \
                 (which saves inside the project's folders)",
            )
        })
        .collect()
}
