//! The live VM threads as the threads inspector shows them: what each is doing (running,
//! waiting until a time or for its note, finished), where (PC, instruction, source line
//! from the unit's `.hdb`), its registers and flags, and the fuel it used.

use crate::runtime::clock::SampleTime;
use crate::runtime::engine::Engine;
use crate::runtime::program::{NONE, Program};
use crate::runtime::thread::{Thread, ThreadState};
use crate::toolchain::isa::Opcode;
use crate::toolchain::project::CodeRef;
use crate::toolchain::registers::{self, Layout};
use crate::world::ObjectId;
use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

/// What a live thread is doing, as seen between two ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ThreadStatus {
    /// Runs again at the next tick: just started, yielded, or polling a condition
    /// (`wait_eq` and friends, `seqgroup_wait`).
    Running,
    /// Sleeping in `wait` until this sample time.
    WaitingUntil(SampleTime),
    /// Sleeping in `wait_samp` until its last note ends: at this sample time, or, for a
    /// looping note (`None`), until the note is stopped.
    WaitingForNote {
        /// When the note ends by itself.
        until: Option<SampleTime>,
    },
    /// Waiting for the interrupted thread with this index to end (interrupt handoff).
    WaitingForThread(usize),
    /// Its code has ended; it lives until its notes end.
    Finished,
}

impl fmt::Display for ThreadStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ThreadStatus::Running => write!(f, "running"),
            ThreadStatus::WaitingUntil(t) => write!(f, "waiting until {t}"),
            ThreadStatus::WaitingForNote { until: Some(t) } => {
                write!(f, "waiting for its note (ends at {t})")
            }
            ThreadStatus::WaitingForNote { until: None } => {
                write!(f, "waiting for its looping note to be stopped")
            }
            ThreadStatus::WaitingForThread(t) => {
                write!(f, "waiting for interrupted thread {t} to end")
            }
            ThreadStatus::Finished => write!(f, "finished (its notes play out)"),
        }
    }
}

/// One live VM thread. Threads that fault are stopped at once, so they never appear
/// here: their faults are in [`VoiceHistory::faults`](super::VoiceHistory::faults), with `file:line`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ThreadView {
    /// The thread's index (stable while it lives; reused after it ends).
    pub thread: usize,
    /// Its Box-X voice slot.
    pub voice: usize,
    /// The event that started it.
    pub event: Arc<str>,
    /// Track ID.
    pub track: u32,
    /// Track name.
    pub track_name: Arc<str>,
    /// The object it sounds from (`None`: a UI sound).
    pub source: Option<ObjectId>,
    /// The objects saying it (instance-map owners), ascending.
    pub owners: Vec<ObjectId>,
    /// What it is doing.
    pub state: ThreadStatus,
    /// True if the track has no code and plays its sound once (simple mode).
    pub simple: bool,
    /// Byte address of the instruction the thread is at: the `wait`/`wait_samp` it
    /// sleeps in, else the next one it runs. `None` once its code has ended or without
    /// code.
    pub pc: Option<u32>,
    /// Byte address of the next instruction it runs (differs from `pc` while it sleeps
    /// in a wait).
    pub next_pc: Option<u32>,
    /// The project unit (index into `Project::units`) of `pc`.
    pub unit: Option<usize>,
    /// Mnemonic of the instruction at `pc` (read back from a capture through the opcode
    /// table; an unknown mnemonic reads as none).
    #[serde(deserialize_with = "mnemonic")]
    pub instruction: Option<Mnemonic>,
    /// Source file of the instruction at `pc`, from the unit's `.hdb`.
    pub file: Option<PathBuf>,
    /// 1-based source line of the instruction at `pc`, from the unit's `.hdb`.
    pub line: Option<u32>,
    /// The unit's register layout (TS1 or TSO).
    pub layout: Layout,
    /// arg0–arg4, v1–v8, h1–h3 and every named track register of the layout, in
    /// register order, with their values (globals are not included).
    pub registers: Vec<(String, i32)>,
    /// Zero flag.
    pub zero: bool,
    /// Sign flag.
    pub sign: bool,
    /// Depth of its call stack.
    pub call_depth: usize,
    /// Instructions it ran in the last tick.
    pub fuel_used: u32,
    /// Instructions a thread may run per tick (the engine's budget).
    pub fuel_per_tick: u32,
    /// Its virtual clock: when the instruction at `next_pc` runs (or last ran).
    pub time: SampleTime,
    /// When it started.
    pub started_at: SampleTime,
    /// Notes sounding.
    pub live_notes: usize,
    /// Another trigger interrupted it (it ends soon).
    pub interrupted: bool,
}

/// An instruction's mnemonic, as the opcode table spells it. (A name of its own so that
/// serde reads it through the table, [`mnemonic`], instead of borrowing the input.)
pub type Mnemonic = &'static str;

/// A mnemonic as the opcode table spells it, from its text.
fn mnemonic<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Mnemonic>, D::Error> {
    let text: Option<String> = serde::Deserialize::deserialize(d)?;
    Ok(text
        .as_deref()
        .and_then(crate::toolchain::isa::by_mnemonic)
        .map(|info| info.mnemonic))
}

/// Every live VM thread, in thread-index order.
pub fn threads(engine: &Engine) -> Vec<ThreadView> {
    let program = engine.program();
    let project = engine.project();
    let now = engine.now();
    let last_tick = engine.clock().tick().saturating_sub(1);
    let fuel_per_tick = engine.config().fuel_per_tick;
    let mut after_wait: Option<HashMap<u32, u32>> = None;
    engine
        .live_threads()
        .map(|(index, th)| {
            let waited = if th.state == ThreadState::Running {
                wait_before(program, th.pc, &mut after_wait)
            } else {
                None
            };
            let state = status(th, waited.map(|(_, code)| code), now);
            let sleeping = matches!(
                state,
                ThreadStatus::WaitingUntil(_) | ThreadStatus::WaitingForNote { .. }
            );
            let next = (th.pc != NONE && th.state != ThreadState::Finished).then_some(th.pc);
            let at = match waited {
                Some((op, _)) if sleeping => Some(op),
                _ => next,
            };
            let op_at = at.and_then(|i| program.ops.get(i as usize));
            let next_op = next.and_then(|i| program.ops.get(i as usize));
            let unit = op_at.map(|op| usize::from(op.unit));
            let origin = op_at.and_then(|op| {
                project.locate(CodeRef {
                    unit: usize::from(op.unit),
                    address: op.addr,
                })
            });
            let layout = layout_of(program, th);
            let registers = registers::all(layout)
                .filter(|(number, _)| !registers::is_global(*number))
                .map(|(number, name)| (name.to_string(), th.reg(number)))
                .collect();
            ThreadView {
                thread: index,
                voice: th.voice,
                event: th.event.clone(),
                track: th.track,
                track_name: th.track_name.clone(),
                source: th.source,
                owners: th.owners.iter().copied().collect(),
                state,
                simple: th.simple,
                pc: op_at.map(|op| op.addr),
                next_pc: next_op.map(|op| op.addr),
                unit,
                instruction: op_at
                    .and_then(|op| op.code.info())
                    .map(|info| info.mnemonic),
                file: origin.as_ref().map(|o| o.path_buf()),
                line: origin.map(|o| o.line).filter(|l| *l > 0),
                layout,
                registers,
                zero: th.zero(),
                sign: th.sign(),
                call_depth: th.calls.len(),
                fuel_used: if th.fuel_tick == last_tick {
                    th.fuel_used
                } else {
                    0
                },
                fuel_per_tick,
                time: th.time,
                started_at: th.started_at,
                live_notes: th.live_notes().count(),
                interrupted: th.interrupted,
            }
        })
        .collect()
}

/// The `wait` or `wait_samp` op (index, opcode) right before op `pc`, if the thread's
/// last run ended in one. The op before in the array is the usual case; otherwise (the
/// next instruction was decoded first, as when a label follows the wait) a map of every
/// wait's successor is built once per call.
fn wait_before(
    program: &Program,
    pc: u32,
    after_wait: &mut Option<HashMap<u32, u32>>,
) -> Option<(u32, Opcode)> {
    if pc == NONE {
        return None;
    }
    if let Some(prev) = pc.checked_sub(1)
        && let Some(op) = program.ops.get(prev as usize)
        && op.next == pc
    {
        return is_wait(op.code).then_some((prev, op.code));
    }
    let map = after_wait.get_or_insert_with(|| {
        program
            .ops
            .iter()
            .enumerate()
            .filter(|(_, op)| is_wait(op.code) && op.next != NONE)
            .filter_map(|(i, op)| Some((op.next, u32::try_from(i).ok()?)))
            .collect()
    });
    let prev = *map.get(&pc)?;
    let code = program.ops.get(prev as usize)?.code;
    Some((prev, code))
}

fn is_wait(code: Opcode) -> bool {
    matches!(code, Opcode::Wait | Opcode::WaitSamp)
}

fn status(th: &Thread, waited: Option<Opcode>, now: SampleTime) -> ThreadStatus {
    match th.state {
        ThreadState::Finished => return ThreadStatus::Finished,
        ThreadState::Blocked(other) => return ThreadStatus::WaitingForThread(other),
        ThreadState::Running => {}
    }
    match waited {
        Some(Opcode::WaitSamp) => match th.notes.last() {
            Some(note) if note.live && note.end.is_none() => {
                ThreadStatus::WaitingForNote { until: None }
            }
            _ if th.time > now => ThreadStatus::WaitingForNote {
                until: Some(th.time),
            },
            _ => ThreadStatus::Running,
        },
        _ if th.time > now => ThreadStatus::WaitingUntil(th.time),
        _ => ThreadStatus::Running,
    }
}

/// The register layout of a thread's code (from the unit of its entry point; a thread
/// without code goes by where its patch register is).
fn layout_of(program: &Program, th: &Thread) -> Layout {
    match program.ops.get(th.entry as usize) {
        Some(op) => program.layout(op.unit),
        None if registers::lookup(Layout::Ts1, "patch") == Some(th.attrs.patch) => Layout::Ts1,
        None => Layout::Tso,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::program::{LINK, Op};

    fn op(code: Opcode, next: u32) -> Op {
        Op {
            code,
            a: 1,
            b: 0,
            c: 0,
            unit: 0,
            through_var: 0,
            addr: 16,
            imm: 0,
            imm2: 0,
            target: NONE,
            next,
            fuse: 0,
            run: 1,
        }
    }

    #[test]
    fn a_wait_is_found_before_its_successor_also_across_a_link() {
        let link = Op {
            through_var: LINK,
            target: 3,
            ..op(Opcode::Jump, NONE)
        };
        // 0 wait → 1; 2 wait ends its run (a link follows) and goes on at 3.
        let program = Program {
            ops: vec![
                op(Opcode::Wait, 1),
                op(Opcode::Nop, 2),
                op(Opcode::WaitSamp, 4),
                link,
                op(Opcode::End, NONE),
            ],
            ..Program::default()
        };
        let mut map = None;
        assert_eq!(wait_before(&program, 1, &mut map), Some((0, Opcode::Wait)));
        assert!(map.is_none(), "the op before was the wait");
        assert_eq!(
            wait_before(&program, 4, &mut map),
            Some((2, Opcode::WaitSamp))
        );
        assert_eq!(wait_before(&program, 2, &mut map), None);
    }
}
