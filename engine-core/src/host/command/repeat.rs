//! `repeat <n> every <ms>ms <command>`: one command run `n` times, `ms` apart. Read once
//! for everything that reads commands: this reads the words before the command, the
//! grammar's `repeat` row the command itself (a [`Command::Repeat`](super::Command) for
//! the console, which the session runs at once and then at its times), and scripts —
//! render, play and QA scripts — expand it into its timed commands
//! ([`super::script::line_commands`]).

use super::line::{Line, ParseError, error};

/// The most commands one `repeat` makes.
pub const MAX_REPEAT: u32 = 10_000;

/// How to write it, for every mistake.
pub(super) const USAGE: &str =
    "write `repeat <n> every <ms>ms <command>`, e.g. `repeat 10 every 50ms sev ui_click`";

/// What a `repeat` line says before its command.
pub(super) struct Head<'a> {
    /// How many times.
    pub(super) count: u32,
    /// Milliseconds between two runs.
    pub(super) every_ms: f64,
    /// The command's first word, and its column.
    pub(super) command: (u32, &'a str),
}

/// The words of `repeat <n> every <ms>ms` and where the command starts.
pub(super) fn head<'a>(line: &Line<'a>) -> Result<Head<'a>, ParseError> {
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
    Ok(Head {
        count,
        every_ms,
        command: word(3)?,
    })
}
