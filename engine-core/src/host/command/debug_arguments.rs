//! The debugger's commands (`docs/debugger.md`): `break`, `delete`, `enable`,
//! `disable`, `continue`, `step`, `stepi`, `next`, `towait`, `regs` and `set` — their
//! values, how they print, their argument readers and what they do on the engine.

use super::Command;
use super::line::{Line, ParseError, error};
use crate::runtime::Engine;
use crate::runtime::debug::{BreakAt, CmpOp, Condition, StepKind};
use crate::runtime::engine::GoOn;
use std::fmt;

/// A debugger command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DebugCommand {
    /// `break <file>:<line> [if <register> <op> <value>]` or `break <track> [if …]`.
    Break {
        /// Where.
        at: BreakAt,
        /// Only when this holds.
        condition: Option<Condition>,
    },
    /// `break on fault` / `break off fault`.
    BreakOnFault(bool),
    /// `break`: lists the breakpoints.
    List,
    /// `delete <n>` / `delete all`.
    Delete(Option<u32>),
    /// `enable <n>` / `disable <n>`.
    Enable(u32, bool),
    /// `continue`, `stepi`, `step`, `next`, `towait`.
    GoOn(GoOn),
    /// `regs`: the paused thread's registers.
    Regs,
    /// `set <register> <value>`: writes a register of the paused thread.
    Set {
        /// The register's name.
        register: String,
        /// The value.
        value: i32,
    },
}

impl fmt::Display for DebugCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DebugCommand::Break { at, condition } => {
                write!(f, "break {at}")?;
                match condition {
                    Some(c) => write!(f, " if {c}"),
                    None => Ok(()),
                }
            }
            DebugCommand::BreakOnFault(on) => {
                write!(f, "break {} fault", if *on { "on" } else { "off" })
            }
            DebugCommand::List => f.write_str("break"),
            DebugCommand::Delete(None) => f.write_str("delete all"),
            DebugCommand::Delete(Some(id)) => write!(f, "delete {id}"),
            DebugCommand::Enable(id, true) => write!(f, "enable {id}"),
            DebugCommand::Enable(id, false) => write!(f, "disable {id}"),
            DebugCommand::GoOn(how) => f.write_str(go_on_word(*how)),
            DebugCommand::Regs => f.write_str("regs"),
            DebugCommand::Set { register, value } => write!(f, "set {register} {value}"),
        }
    }
}

fn go_on_word(how: GoOn) -> &'static str {
    match how {
        GoOn::Continue => "continue",
        GoOn::Step(StepKind::Instruction) => "stepi",
        GoOn::Step(StepKind::Into) => "step",
        GoOn::Step(StepKind::Over) => "next",
        GoOn::Step(StepKind::ToWait) => "towait",
    }
}

/// `break …`.
pub(super) fn read_break(line: &Line<'_>) -> Result<Command, ParseError> {
    let debug = |d| Ok(Command::Debug(d));
    let Some((column, first)) = line.arg(0) else {
        return debug(DebugCommand::List);
    };
    if matches!(first, "on" | "off") {
        return match line.arg(1) {
            Some((_, "fault")) if line.arg(2).is_none() => {
                debug(DebugCommand::BreakOnFault(first == "on"))
            }
            Some((c, _)) => Err(error(c, format!("write `break {first} fault`"))),
            None => Err(line.missing(format!("write `break {first} fault`"))),
        };
    }
    let at = match first.rsplit_once(':') {
        Some((file, number)) if !file.is_empty() => {
            let line_number = number
                .parse::<u32>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| {
                    error(
                        column,
                        format!("`{number}` is not a line number: `break piano.src:31`"),
                    )
                })?;
            BreakAt::Line {
                file: file.to_string(),
                line: line_number,
            }
        }
        _ => BreakAt::Track(first.to_string()),
    };
    let condition = match line.arg(1) {
        None => None,
        Some((_, "if")) => Some(condition(line, 2)?),
        Some((c, word)) => {
            return Err(error(
                c,
                format!(
                    "`{word}`: a condition starts with `if`, e.g. `break piano.src:31 if v1 == 2`"
                ),
            ));
        }
    };
    debug(DebugCommand::Break { at, condition })
}

/// `<register> <op> <value>` from argument `index` on.
fn condition(line: &Line<'_>, index: usize) -> Result<Condition, ParseError> {
    let usage = "`if <register> <op> <value>`, e.g. `if v1 == 2` (==, !=, <, <=, >, >=)";
    let (_, register) = line
        .arg(index)
        .ok_or_else(|| line.missing(format!("a condition: {usage}")))?;
    let (op_column, op) = line
        .arg(index + 1)
        .ok_or_else(|| line.missing(format!("a comparison: {usage}")))?;
    let op = CmpOp::ALL
        .iter()
        .find(|(s, _)| *s == op)
        .map(|(_, op)| *op)
        .ok_or_else(|| error(op_column, format!("`{op}` is not a comparison: {usage}")))?;
    let (value_column, value) = line
        .arg(index + 2)
        .ok_or_else(|| line.missing(format!("a value: {usage}")))?;
    let value = value
        .parse()
        .map_err(|_| error(value_column, format!("`{value}` is not a whole number")))?;
    if let Some((c, extra)) = line.arg(index + 3) {
        return Err(error(c, format!("`{extra}`: one comparison only: {usage}")));
    }
    Ok(Condition {
        register: register.to_ascii_lowercase(),
        op,
        value,
    })
}

/// The breakpoint number at argument 0.
fn number(line: &Line<'_>, usage: &str) -> Result<u32, ParseError> {
    let (column, text) = line
        .arg(0)
        .ok_or_else(|| line.missing(format!("a breakpoint number: {usage}")))?;
    text.parse().map_err(|_| {
        error(
            column,
            format!("`{text}` is not a breakpoint number: {usage}"),
        )
    })
}

/// `delete <n|all>`.
pub(super) fn read_delete(line: &Line<'_>) -> Result<Command, ParseError> {
    if matches!(line.arg(0), Some((_, "all"))) {
        return Ok(Command::Debug(DebugCommand::Delete(None)));
    }
    let id = number(line, "`delete 2` or `delete all`")?;
    Ok(Command::Debug(DebugCommand::Delete(Some(id))))
}

/// `enable <n>`.
pub(super) fn read_enable(line: &Line<'_>) -> Result<Command, ParseError> {
    Ok(Command::Debug(DebugCommand::Enable(
        number(line, "`enable 2`")?,
        true,
    )))
}

/// `disable <n>`.
pub(super) fn read_disable(line: &Line<'_>) -> Result<Command, ParseError> {
    Ok(Command::Debug(DebugCommand::Enable(
        number(line, "`disable 2`")?,
        false,
    )))
}

/// `continue`, `stepi`, `step`, `next`, `towait`.
pub(super) fn read_go_on(line: &Line<'_>) -> Result<Command, ParseError> {
    let how = match line.head.to_ascii_lowercase().as_str() {
        "stepi" => GoOn::Step(StepKind::Instruction),
        "step" => GoOn::Step(StepKind::Into),
        "next" => GoOn::Step(StepKind::Over),
        "towait" => GoOn::Step(StepKind::ToWait),
        _ => GoOn::Continue,
    };
    Ok(Command::Debug(DebugCommand::GoOn(how)))
}

/// `regs`.
pub(super) fn read_regs(_: &Line<'_>) -> Result<Command, ParseError> {
    Ok(Command::Debug(DebugCommand::Regs))
}

/// `set <register> <value>`.
pub(super) fn read_set(line: &Line<'_>) -> Result<Command, ParseError> {
    let usage = "`set v1 2`";
    let (_, register) = line
        .arg(0)
        .ok_or_else(|| line.missing(format!("a register: {usage}")))?;
    let (column, value) = line
        .arg(1)
        .ok_or_else(|| line.missing(format!("a value: {usage}")))?;
    let value = value
        .parse()
        .map_err(|_| error(column, format!("`{value}` is not a whole number: {usage}")))?;
    Ok(Command::Debug(DebugCommand::Set {
        register: register.to_ascii_lowercase(),
        value,
    }))
}

/// Carries out a debugger command on `engine`; the reply the console prints.
pub(super) fn execute(engine: &mut Engine, command: &DebugCommand) -> Result<String, String> {
    let e = |e: crate::runtime::debug::BreakError| e.to_string();
    match command {
        DebugCommand::Break { at, condition } => {
            let b = engine
                .add_breakpoint(at.clone(), condition.clone())
                .map_err(e)?;
            Ok(format!("breakpoint {b}"))
        }
        DebugCommand::BreakOnFault(on) => {
            engine.set_break_on_fault(*on);
            Ok(if *on {
                "a fault pauses at the faulting line".into()
            } else {
                "faults no longer pause".into()
            })
        }
        DebugCommand::List => {
            let d = engine.debugger();
            let mut lines: Vec<String> = d.breakpoints().iter().map(ToString::to_string).collect();
            if d.break_on_fault {
                lines.push("on fault".into());
            }
            if lines.is_empty() {
                lines.push("no breakpoints".into());
            }
            Ok(lines.join("\n"))
        }
        DebugCommand::Delete(id) => {
            let n = engine.delete_breakpoint(*id).map_err(e)?;
            Ok(format!("deleted {n} breakpoint(s)"))
        }
        DebugCommand::Enable(id, on) => {
            engine.enable_breakpoint(*id, *on).map_err(e)?;
            Ok(format!(
                "breakpoint {id} {}",
                if *on { "enabled" } else { "disabled" }
            ))
        }
        DebugCommand::GoOn(how) => {
            engine.go_on(*how).map_err(e)?;
            Ok(match how {
                GoOn::Continue => "continuing".into(),
                _ => format!("{}…", go_on_word(*how)),
            })
        }
        DebugCommand::Regs => {
            let regs = engine.paused_registers().map_err(e)?;
            Ok(regs
                .iter()
                .map(|(name, value)| format!("{name}={value}"))
                .collect::<Vec<_>>()
                .join(" "))
        }
        DebugCommand::Set { register, value } => {
            let old = engine.set_paused_register(register, *value).map_err(e)?;
            Ok(format!("{register} = {value} (was {old})"))
        }
    }
}
