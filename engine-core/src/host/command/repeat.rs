//! `repeat <n> every <ms>ms <command>`: one command run `n` times, `ms` apart. Read once,
//! here, for everything that reads commands: the console gets a [`Command::Repeat`]
//! (the session runs the first at once and the others at their times), and scripts —
//! render, play and QA scripts — expand it into its timed commands ([`expand`]).

use super::line::{Line, ParseError, error};
use super::{Command, TimedCommand};

/// The most commands one `repeat` makes.
pub const MAX_REPEAT: u32 = 10_000;

const USAGE: &str =
    "write `repeat <n> every <ms>ms <command>`, e.g. `repeat 10 every 50ms sev ui_click`";

/// `repeat <n> every <ms>ms <command>`.
pub(super) fn read(line: &Line<'_>) -> Result<Command, ParseError> {
    let word = |i: usize| line.arg(i).ok_or_else(|| line.missing(USAGE));
    let (count_column, count_text) = word(0)?;
    let count = count_text
        .parse::<u32>()
        .ok()
        .filter(|n| (1..=MAX_REPEAT).contains(n))
        .ok_or_else(|| {
            error(
                count_column,
                format!("`{count_text}` is not a count from 1 to {MAX_REPEAT}: {USAGE}"),
            )
        })?;
    let (every_column, every) = word(1)?;
    if every != "every" {
        return Err(error(
            every_column,
            format!("`{every}` where `every` belongs: {USAGE}"),
        ));
    }
    let (ms_column, ms_text) = word(2)?;
    let every_ms = ms_text
        .strip_suffix("ms")
        .and_then(|n| n.parse::<f64>().ok())
        .filter(|ms| ms.is_finite() && *ms > 0.0)
        .ok_or_else(|| {
            error(
                ms_column,
                format!("`{ms_text}` is not a time in milliseconds such as `50ms`: {USAGE}"),
            )
        })?;
    let (command_column, command_word) = word(3)?;
    // Refused before it is read, so a line of nested repeats is not read level by level.
    if super::grammar::lookup(command_word).is_some_and(|spec| spec.name == "repeat") {
        return Err(error(
            command_column,
            "a `repeat` cannot repeat a `repeat`: write the commands it would run",
        ));
    }
    let text = line.rest_from(3).unwrap_or_default();
    // The command's own mistakes, at their column in the whole line.
    let at_column = |e: ParseError| error(e.column + command_column - 1, e.message);
    let command = super::parse(text)
        .map_err(at_column)?
        .ok_or_else(|| line.missing(USAGE))?;
    Ok(Command::Repeat {
        count,
        every_ms,
        command: Box::new(command),
    })
}

/// The commands a script line runs: a `repeat` as each of its commands at its time
/// (from the line's time on, `ms` apart), any other command as itself.
pub fn expand(timed: TimedCommand) -> Vec<TimedCommand> {
    match timed.command {
        Command::Repeat {
            count,
            every_ms,
            command,
        } => (0..count)
            .map(|k| TimedCommand {
                time: timed.time + f64::from(k) * every_ms / 1000.0,
                command: (*command).clone(),
                line: timed.line,
            })
            .collect(),
        command => vec![TimedCommand { command, ..timed }],
    }
}
