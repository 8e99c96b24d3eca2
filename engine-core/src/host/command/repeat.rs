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

/// The time between two runs, `<ms>ms`, or what is wrong with it, said as it is wrong:
/// a number without its unit, no number, no time apart, no end.
fn read_every(text: &str) -> Result<f64, String> {
    let Some(number) = text.strip_suffix("ms") else {
        return Err(match text.parse::<f64>() {
            Ok(_) => format!("`{text}` needs its unit: write `{text}ms`"),
            Err(_) => format!("`{text}` is not a time in milliseconds such as `50ms`"),
        });
    };
    let Ok(ms) = number.parse::<f64>() else {
        return Err(format!(
            "`{text}` is not a time in milliseconds such as `50ms`"
        ));
    };
    if !ms.is_finite() {
        return Err(format!(
            "`{text}` is no time: write a number of milliseconds"
        ));
    }
    if ms <= 0.0 {
        return Err(format!(
            "`{text}` is no time apart: the runs of a `repeat` are more than 0 ms apart \
             (for commands at one time, write a line each)"
        ));
    }
    Ok(ms)
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
    let every_ms =
        read_every(ms_text).map_err(|why| error(ms_column, format!("{why}: {USAGE}")))?;
    Ok(Head {
        count,
        every_ms,
        command: word(3)?,
    })
}
