//! The HIT interpreter: runs one thread's predecoded ops until it yields, ends, faults
//! or uses up its fuel. One short match arm per opcode; everything that reaches
//! outside the thread (notes, hit lists, the world, other tracks, the trace) goes
//! through the [`Host`] trait, so the loop itself stays small and testable.
//!
//! `docs/vm.md` gives the meaning of every opcode; this file is its implementation.

use super::clock::SampleTime;
use super::program::{LINK, NONE, Op, Program};
use super::thread::Thread;
use crate::toolchain::isa::Opcode;
use crate::toolchain::registers::{FIRST_GLOBAL, GLOBAL_COUNT};

mod fault;
pub use fault::FaultKind;

/// Deepest call nesting before a thread is stopped.
pub const MAX_CALL_DEPTH: usize = 64;
/// Deepest `push` stack before a thread is stopped.
pub const MAX_STACK_DEPTH: usize = 64;
/// Entries of a hit list a host operation may copy or go through for the price of one
/// instruction of fuel: `smart_remove`, `smart_choose` and copying a list for
/// `smart_add` cost one instruction plus their list's length divided by this, so the
/// fuel limits bound their work too.
pub const LIST_ENTRIES_PER_FUEL: usize = 16;
/// The most entries a thread's own hit list may hold (`smart_add`): as many as a whole
/// hit list may expand to. Adding past it faults the thread.
pub const MAX_LOCAL_LIST_IDS: usize = crate::toolchain::formats::hitlist::MAX_LIST_IDS as usize;

/// How a run ended.
///
/// With a plain `u32` tag (and [`FaultKind`]'s), its fields lie aligned instead of
/// packed into each other's spare bits, so a run's result is copied word by word: the
/// packed layout was read back with loads straddling the stores that wrote it, a stall
/// after every thread's run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[repr(u32)]
pub enum Exit {
    /// Sleeping until this time (`SampleTime::MAX`: until woken, e.g. on a looping
    /// note).
    Sleep(SampleTime),
    /// Yielded: run again next tick.
    NextTick,
    /// The code ended.
    Finished,
    /// Stopped at op `op`.
    Fault {
        /// What went wrong.
        kind: FaultKind,
        /// Op index where it happened.
        op: u32,
    },
    /// The debugger stopped it before the instruction at `th.pc` ([`run_debug`]): it
    /// goes on from there when the debugger lets it.
    Break,
}

/// Everything an instruction may do outside its thread.
pub trait Host {
    /// Starts the current patch; returns the note handle, or -1 if the sample is not
    /// available. A patch or hit list that does not exist is a fault.
    fn note_on(&mut self, th: &mut Thread, looping: bool) -> Result<i32, FaultKind>;
    /// Stops the note with this handle.
    fn note_off(&mut self, th: &mut Thread, handle: i32);
    /// Selects the current hit list (0 = the track's own).
    fn set_list(&mut self, th: &mut Thread, id: i32) -> Result<(), FaultKind>;
    /// A random entry of the current hit list (never the last one twice in a row).
    fn choose(&mut self, th: &mut Thread) -> Result<i32, FaultKind>;
    /// Entry `index` of the current hit list.
    fn list_index(&mut self, th: &mut Thread, index: i32) -> Result<i32, FaultKind>;
    /// Adds an ID to the thread's copy of the current hit list.
    fn list_add(&mut self, th: &mut Thread, id: i32) -> Result<(), FaultKind>;
    /// Removes an ID from the thread's copy of the current hit list.
    fn list_remove(&mut self, th: &mut Thread, id: i32);
    /// Empties the thread's copy of the current hit list.
    fn list_clear(&mut self, th: &mut Thread);
    /// A data field of an object (0 if there is none).
    fn field(&mut self, th: &Thread, object: i32, field: i32) -> i32;
    /// Writes a data field of an object.
    fn set_field(&mut self, th: &Thread, object: i32, field: i32, value: i32);
    /// Starts the track with this ID from this thread's source. Fails when the chain of
    /// tracks this thread belongs to has used up its fuel for the tick.
    fn play_track(&mut self, th: &Thread, track: i32) -> Result<(), FaultKind>;
    /// Kills the track with this ID.
    fn kill_track(&mut self, th: &Thread, track: i32);
    /// Stops the track with this ID, letting its notes end.
    fn stop_track(&mut self, th: &Thread, track: i32);
    /// Ducks (or unducks) the sounds of lower ducking priority.
    fn duck(&mut self, th: &mut Thread, on: bool);
    /// Kills a sequence group.
    fn seqgroup_kill(&mut self, th: &mut Thread, group: u8);
    /// True while a sequence group still plays.
    fn seqgroup_busy(&mut self, th: &Thread, group: u8) -> bool;
    /// `printreg`: shows a register in the trace.
    fn print(&mut self, th: &Thread, var: u8, value: i32, at: &Op);
    /// A random number in `lo..=hi`.
    fn random(&mut self, lo: i32, hi: i32) -> i32;
    /// Milliseconds as a number of samples.
    fn ms_to_samples(&self, ms: i32) -> u64;
}

#[inline]
fn global_index(number: i32) -> Option<usize> {
    let first = i32::from(FIRST_GLOBAL);
    let index = if number >= first {
        number - first
    } else {
        number
    };
    usize::try_from(index).ok().filter(|i| *i < GLOBAL_COUNT)
}

/// Runs `th` from its `pc` for at most `fuel` instructions. Returns how the run ended
/// and how many instructions ran. `th.pc` is left where the thread resumes.
///
/// The inner loop (`run_registers`) runs the instructions that only touch registers
/// and flags, with the registers and flags held locally; the others (notes, hit lists,
/// waits, the world, calls…) leave it for `step`, which has the whole thread and the
/// host.
#[inline(always)]
pub fn run<H: Host>(th: &mut Thread, program: &Program, host: &mut H, fuel: u32) -> (Exit, u32) {
    let ops = program.ops.as_slice();
    let mut pc = th.pc;
    let mut used = 0u32;
    loop {
        if let Some(exit) = run_registers(th, ops, &mut pc, &mut used, fuel) {
            return (exit, used);
        }
        // Slow path: the instruction at `pc`, with the whole thread and the host.
        let Some(&op) = ops.get(pc as usize) else {
            th.pc = pc;
            return (
                Exit::Fault {
                    kind: FaultKind::RanOffEnd,
                    op: pc,
                },
                used,
            );
        };
        // The commonest of them, a timed wait, without going through every kind.
        let step = if op.code == Opcode::Wait && th.regs[usize::from(op.a)] > 0 {
            wait(th, host, &op)
        } else {
            step(th, program, host, &op, pc)
        };
        // What the host's work for the instruction cost beyond it (list work).
        used = used.saturating_add(std::mem::take(&mut th.host_fuel));
        match step {
            Step::Next => pc = op.next,
            Step::Goto(target) => pc = target,
            Step::Leave(exit) => return (exit, used),
        }
    }
}

/// Runs `th` as [`run`] does, one instruction at a time, asking `stop` before each
/// (with the thread and the instruction's op index) whether to stop there — a
/// breakpoint, the end of a step. Then it returns [`Exit::Break`] with `th.pc` at that
/// instruction, which has not run. The instructions run and their cost are those of
/// [`run`]: stopping and going on changes nothing the thread does.
pub fn run_debug<H: Host>(
    th: &mut Thread,
    program: &Program,
    host: &mut H,
    fuel: u32,
    stop: &mut dyn FnMut(&Thread, u32) -> bool,
) -> (Exit, u32) {
    let ops = program.ops.as_slice();
    let mut pc = th.pc;
    let mut used = 0u32;
    loop {
        // Links are no instructions: nothing stops at them.
        if let Some(op) = ops.get(pc as usize)
            && op.is_link()
        {
            pc = op.target;
            continue;
        }
        if stop(th, pc) {
            th.pc = pc;
            return (Exit::Break, used);
        }
        if used >= fuel {
            th.pc = pc;
            let kind = FaultKind::OutOfFuel(used);
            return (Exit::Fault { kind, op: pc }, used);
        }
        let Some(&op) = ops.get(pc as usize) else {
            th.pc = pc;
            let kind = FaultKind::RanOffEnd;
            return (Exit::Fault { kind, op: pc }, used);
        };
        used += 1;
        let mut flag = Flag(th.flag);
        let flow = register_op(&op, &mut th.regs, &mut flag);
        th.flag = flag.0;
        match flow {
            Flow::Next => pc = op.next,
            Flow::Goto(target) | Flow::Link(target) => pc = target,
            Flow::Fault(kind) => {
                th.pc = pc;
                return (Exit::Fault { kind, op: pc }, used);
            }
            Flow::Slow => {
                let step = step(th, program, host, &op, pc);
                used = used.saturating_add(std::mem::take(&mut th.host_fuel));
                match step {
                    Step::Next => pc = op.next,
                    Step::Goto(target) => pc = target,
                    Step::Leave(exit) => return (exit, used),
                }
            }
        }
    }
}

/// The zero and sign flags as one number: the last result (or a compare's difference)
/// itself, so an instruction sets both with one move and a branch tests it directly.
#[derive(Clone, Copy)]
struct Flag(i64);

impl Flag {
    /// Whether a fused branch of condition `mask` ([`Op::fuse`]) is taken: no branch
    /// of its own, the result's sign picks the mask's bit.
    #[inline(always)]
    fn takes(self, mask: u8) -> bool {
        mask & (1 << (self.0.signum() + 1)) != 0
    }
}

/// What a register-only instruction did.
enum Flow {
    /// Go on with the next instruction.
    Next,
    /// Go on at this op (a branch taken).
    Goto(u32),
    /// Go on at this op through a fall-through link (no instruction: not counted).
    Link(u32),
    /// Stop the thread.
    Fault(FaultKind),
    /// Not a register-only instruction: leave it to [`step`].
    Slow,
}

/// The fast path: runs register-only instructions from `*pc` until one needs the
/// thread or the host (returns `None`, `*pc` at it, flags written back) or the run ends
/// (returns the exit, `th.pc` set). Counts every instruction into `*used`, the one left
/// to [`step`] included.
#[inline(always)]
fn run_registers(
    th: &mut Thread,
    ops: &[Op],
    pc_out: &mut u32,
    used_out: &mut u32,
    fuel: u32,
) -> Option<Exit> {
    let mut pc = *pc_out;
    let mut used = *used_out;
    let regs: &mut [i32; 256] = &mut th.regs;
    let mut flag = Flag(th.flag);
    let exit = loop {
        // A run of straight ops ([`Op::run`]) at a time, as much of it as the fuel
        // allows, counted once it ends.
        let Some(first) = ops.get(pc as usize) else {
            break Exit::Fault {
                kind: FaultKind::RanOffEnd,
                op: pc,
            };
        };
        let left = fuel.saturating_sub(used);
        if left == 0 && !first.is_link() {
            break Exit::Fault {
                kind: FaultKind::OutOfFuel(used),
                op: pc,
            };
        }
        let run = u32::from(first.run).min(left.max(1));
        let Some(block) = ops.get(pc as usize..(pc + run) as usize) else {
            break Exit::Fault {
                kind: FaultKind::RanOffEnd,
                op: pc,
            };
        };
        let mut ran = 0;
        let mut last = (first, Flow::Next);
        for op in block {
            ran += 1;
            last = (op, register_op(op, regs, &mut flag));
            if !matches!(last.1, Flow::Next) {
                break;
            }
        }
        let (op, flow) = last;
        used += ran;
        pc += ran - 1;
        match flow {
            // The op that follows in the code is the next in the array (a link where a
            // run of decoded ops ends), so no load of `next` holds the loop up. A
            // conditional branch right after runs in the same step when its instruction
            // fits in the fuel (else it runs, or stops the thread, on its own).
            Flow::Next if op.fuse != 0 && used < fuel => {
                used += 1;
                pc = if flag.takes(op.fuse) {
                    op.target
                } else {
                    pc + 2
                };
            }
            Flow::Next => pc += 1,
            Flow::Goto(target) => pc = target,
            Flow::Link(target) => {
                used -= 1;
                pc = target;
            }
            Flow::Fault(kind) => break Exit::Fault { kind, op: pc },
            Flow::Slow => {
                th.flag = flag.0;
                *pc_out = pc;
                *used_out = used;
                return None;
            }
        }
    };
    th.flag = flag.0;
    th.pc = pc;
    *pc_out = pc;
    *used_out = used;
    Some(exit)
}

/// The opcodes the fast path runs as no-ops: note, callentrypoint, nop, groups, get_var,
/// callback, smart_setcrit, push_mask…call_push, test1–test4, testx, setchanreg…kill_note.
macro_rules! no_ops {
    () => {
        Opcode::Note
            | Opcode::Callentrypoint
            | Opcode::Nop
            | Opcode::AddToGroup
            | Opcode::RemoveFromGroup
            | Opcode::GetVar
            | Opcode::Callback
            | Opcode::SmartSetcrit
            | Opcode::PushMask
            | Opcode::PushVars
            | Opcode::CallMask
            | Opcode::CallPush
            | Opcode::Test1
            | Opcode::Test2
            | Opcode::Test3
            | Opcode::Test4
            | Opcode::Testx
            | Opcode::Setchanreg
            | Opcode::PlayNote
            | Opcode::StopNote
            | Opcode::KillNote
    };
}

/// The opcodes that need the thread or the host ([`step`] runs them). Listed, not `_`:
/// the fast path's dispatch table then covers every opcode and its match needs no range
/// check first (and a new opcode has to be placed in one list or the other).
macro_rules! slow_ops {
    () => {
        Opcode::Invalid
            | Opcode::Jump
            | Opcode::NoteOn
            | Opcode::NoteOff
            | Opcode::NoteOnLoop
            | Opcode::Call
            | Opcode::Return
            | Opcode::Wait
            | Opcode::WaitSamp
            | Opcode::Waiteq
            | Opcode::Waitne
            | Opcode::Waitgt
            | Opcode::Waitlt
            | Opcode::Waitge
            | Opcode::Waitle
            | Opcode::End
            | Opcode::Rand
            | Opcode::Error
            | Opcode::Assert
            | Opcode::Throw
            | Opcode::Loop
            | Opcode::SetLoop
            | Opcode::SmartAdd
            | Opcode::SmartRemove
            | Opcode::SmartRemoveall
            | Opcode::SmartChoose
            | Opcode::SmartSetlist
            | Opcode::SmartIndex
            | Opcode::Printreg
            | Opcode::PlayTrk
            | Opcode::KillTrk
            | Opcode::StopTrk
            | Opcode::Push
            | Opcode::Pop
            | Opcode::SeqgroupKill
            | Opcode::SeqgroupWait
            | Opcode::SeqgroupReturn
            | Opcode::SeqgroupTrkid
            | Opcode::Getsrcdatafield
            | Opcode::Setsrcdatafield
            | Opcode::Duck
            | Opcode::Unduck
            | Opcode::Setlg
            | Opcode::Setgl
    };
}

/// One register-only instruction: arithmetic, moves, compares, branches and no-ops.
#[inline(always)]
fn register_op(op: &Op, regs: &mut [i32; 256], flag: &mut Flag) -> Flow {
    let a = usize::from(op.a);
    let b = usize::from(op.b);
    macro_rules! set {
        ($value:expr) => {{
            let v: i32 = $value;
            regs[a] = v;
            *flag = Flag(i64::from(v));
            Flow::Next
        }};
    }
    let branch = |taken: bool| {
        if !taken {
            Flow::Next
        } else if op.target == NONE {
            Flow::Fault(FaultKind::BadAddress(i64::from(op.imm)))
        } else {
            Flow::Goto(op.target)
        }
    };
    match op.code {
        Opcode::Loadb => set!(i32::from(op.b as i8)),
        Opcode::Loadl => set!(op.imm),
        Opcode::Set | Opcode::Setll | Opcode::Setlt | Opcode::Settl => set!(regs[b]),
        Opcode::Jump if op.through_var == 0 => branch(true),
        Opcode::Jump if op.through_var == LINK => Flow::Link(op.target),
        Opcode::Test => set!(regs[a]),
        Opcode::Add => set!(regs[a].wrapping_add(regs[b])),
        Opcode::Sub => set!(regs[a].wrapping_sub(regs[b])),
        Opcode::Div if regs[b] == 0 => Flow::Fault(FaultKind::DivideByZero),
        Opcode::Div => set!(regs[a].wrapping_div(regs[b])),
        Opcode::Mul => set!(regs[a].wrapping_mul(regs[b])),
        Opcode::Cmp => {
            *flag = Flag(i64::from(regs[a]) - i64::from(regs[b]));
            Flow::Next
        }
        Opcode::Less => set!(i32::from(regs[a] < regs[b])),
        Opcode::Greater => set!(i32::from(regs[a] > regs[b])),
        Opcode::Not => set!(i32::from(regs[a] == 0)),
        Opcode::Abs => set!(regs[a].wrapping_abs()),
        Opcode::Limit => set!(regs[a].clamp(op.imm.min(op.imm2), op.imm.max(op.imm2))),
        Opcode::And => set!(regs[a] & regs[b]),
        Opcode::Nand => set!(!(regs[a] & regs[b])),
        Opcode::Or => set!(regs[a] | regs[b]),
        Opcode::Nor => set!(!(regs[a] | regs[b])),
        Opcode::Xor => set!(regs[a] ^ regs[b]),
        Opcode::Max => set!(regs[a].max(op.imm)),
        Opcode::Min => set!(regs[a].min(op.imm)),
        Opcode::Inc => set!(regs[a].wrapping_add(1)),
        Opcode::Dec => set!(regs[a].wrapping_sub(1)),
        Opcode::Ifeq => branch(flag.0 == 0),
        Opcode::Ifne => branch(flag.0 != 0),
        Opcode::Ifgt => branch(flag.0 > 0),
        Opcode::Iflt => branch(flag.0 < 0),
        Opcode::Ifge => branch(flag.0 >= 0),
        Opcode::Ifle => branch(flag.0 <= 0),
        no_ops!() => Flow::Next,
        slow_ops!() => Flow::Slow,
    }
}

/// What a slow-path instruction did.
enum Step {
    /// Go on with the next instruction.
    Next,
    /// Go on at this op.
    Goto(u32),
    /// Stop running (`th.pc` is set).
    Leave(Exit),
}

/// Stops the thread at `pc` with a fault.
fn fault(th: &mut Thread, pc: u32, kind: FaultKind) -> Step {
    th.pc = pc;
    Step::Leave(Exit::Fault { kind, op: pc })
}

/// Leaves the run: the thread resumes at `resume` with this exit.
fn leave(th: &mut Thread, resume: u32, exit: Exit) -> Step {
    th.pc = resume;
    Step::Leave(exit)
}

/// `wait` of a positive number of milliseconds: the thread sleeps until then.
#[inline(always)]
fn wait<H: Host>(th: &mut Thread, host: &mut H, op: &Op) -> Step {
    let wake = th
        .time
        .saturating_add(host.ms_to_samples(th.regs[usize::from(op.a)]));
    th.time = wake;
    leave(th, op.next, Exit::Sleep(wake))
}

/// Writes a register and sets the flags from it.
fn set_flagged(th: &mut Thread, var: u8, value: i32) {
    th.regs[usize::from(var)] = value;
    th.flag = i64::from(value);
}

/// Runs one instruction that needs the whole thread or the host.
fn step<H: Host>(th: &mut Thread, program: &Program, host: &mut H, op: &Op, pc: u32) -> Step {
    match op.code {
        Opcode::Call
        | Opcode::Return
        | Opcode::Wait
        | Opcode::WaitSamp
        | Opcode::End
        | Opcode::Jump
        | Opcode::Loop
        | Opcode::SetLoop
        | Opcode::SeqgroupWait
        | Opcode::Waiteq
        | Opcode::Waitne
        | Opcode::Waitgt
        | Opcode::Waitlt
        | Opcode::Waitge
        | Opcode::Waitle => step_flow(th, program, host, op, pc),
        Opcode::NoteOn
        | Opcode::NoteOff
        | Opcode::NoteOnLoop
        | Opcode::SmartAdd
        | Opcode::SmartRemove
        | Opcode::SmartRemoveall
        | Opcode::SmartChoose
        | Opcode::SmartSetlist
        | Opcode::SmartIndex => step_sound(th, host, op, pc),
        _ => step_other(th, host, op, pc),
    }
}

/// Calls, returns, jumps through a variable, loops and every kind of wait.
fn step_flow<H: Host>(th: &mut Thread, program: &Program, host: &mut H, op: &Op, pc: u32) -> Step {
    let a = usize::from(op.a);
    let next = op.next;
    match op.code {
        Opcode::Call if th.calls.len() >= MAX_CALL_DEPTH => {
            fault(th, pc, FaultKind::CallStackOverflow)
        }
        Opcode::Call if op.target == NONE => {
            fault(th, pc, FaultKind::BadAddress(i64::from(op.imm)))
        }
        Opcode::Call => {
            th.calls.push(next);
            Step::Goto(op.target)
        }
        Opcode::Return => match th.calls.pop() {
            Some(ret) => Step::Goto(ret),
            None => leave(th, next, Exit::Finished),
        },
        Opcode::Wait if th.regs[a] > 0 => wait(th, host, op),
        Opcode::WaitSamp => {
            let exit = match th.notes.last() {
                Some(note) if note.live => match note.end {
                    Some(end) if end > th.time => {
                        th.time = end;
                        Exit::Sleep(end)
                    }
                    Some(_) => Exit::NextTick,
                    None => Exit::Sleep(SampleTime::MAX),
                },
                _ => Exit::NextTick,
            };
            leave(th, next, exit)
        }
        Opcode::End => {
            if let Some(ret) = th.calls.pop() {
                Step::Goto(ret)
            } else if th.reg(th.attrs.looped) != 0 {
                Step::Goto(th.loop_point)
            } else {
                leave(th, next, Exit::Finished)
            }
        }
        // Through a variable (the literal form runs in the fast path).
        Opcode::Jump => match program.op_at_address(op.unit, th.regs[a]) {
            Some(target) => Step::Goto(target),
            None => fault(th, pc, FaultKind::BadAddress(i64::from(th.regs[a]))),
        },
        Opcode::Loop => Step::Goto(th.loop_point),
        Opcode::SetLoop => {
            th.loop_point = next;
            Step::Next
        }
        Opcode::SeqgroupWait if host.seqgroup_busy(th, op.a) => leave(th, pc, Exit::NextTick),
        Opcode::Waiteq
        | Opcode::Waitne
        | Opcode::Waitgt
        | Opcode::Waitlt
        | Opcode::Waitge
        | Opcode::Waitle => {
            let (x, y) = (th.regs[a], th.regs[usize::from(op.b)]);
            let done = match op.code {
                Opcode::Waiteq => x == y,
                Opcode::Waitne => x != y,
                Opcode::Waitgt => x > y,
                Opcode::Waitlt => x < y,
                Opcode::Waitge => x >= y,
                _ => x <= y,
            };
            if done {
                Step::Next
            } else {
                leave(th, pc, Exit::NextTick)
            }
        }
        _ => Step::Next,
    }
}

/// Notes and hit lists.
fn step_sound<H: Host>(th: &mut Thread, host: &mut H, op: &Op, pc: u32) -> Step {
    let a = usize::from(op.a);
    let result = match op.code {
        Opcode::NoteOn => host.note_on(th, false).map(|handle| th.regs[a] = handle),
        Opcode::NoteOnLoop => {
            return match host.note_on(th, true) {
                Ok(handle) => {
                    th.regs[a] = handle;
                    leave(th, op.next, Exit::NextTick)
                }
                Err(kind) => fault(th, pc, kind),
            };
        }
        Opcode::NoteOff => {
            host.note_off(th, th.regs[a]);
            Ok(())
        }
        Opcode::SmartAdd => host.list_add(th, th.regs[a]),
        Opcode::SmartRemove => {
            host.list_remove(th, th.regs[a]);
            Ok(())
        }
        Opcode::SmartRemoveall => {
            host.list_clear(th);
            Ok(())
        }
        Opcode::SmartChoose => host.choose(th).map(|value| th.regs[a] = value),
        Opcode::SmartSetlist => host.set_list(th, th.regs[a]),
        Opcode::SmartIndex => host
            .list_index(th, th.regs[usize::from(op.b)])
            .map(|value| {
                th.regs[a] = value;
                let patch = th.attrs.patch;
                th.set_reg(patch, value);
            }),
        _ => Ok(()),
    };
    match result {
        Ok(()) => Step::Next,
        Err(kind) => fault(th, pc, kind),
    }
}

/// Everything else: random numbers, errors and assertions, the stack, other tracks,
/// sequence groups, object fields, ducking and globals.
fn step_other<H: Host>(th: &mut Thread, host: &mut H, op: &Op, pc: u32) -> Step {
    let a = usize::from(op.a);
    let b = usize::from(op.b);
    let c = usize::from(op.c);
    match op.code {
        Opcode::Rand => set_flagged(th, op.a, host.random(th.regs[b], th.regs[c])),
        Opcode::Error => return fault(th, pc, FaultKind::Raised(op.imm)),
        Opcode::Assert if th.regs[a] == 0 => {
            return fault(th, pc, FaultKind::AssertFailed(op.a));
        }
        Opcode::Printreg => host.print(th, op.a, th.regs[a], op),
        Opcode::PlayTrk => {
            if let Err(kind) = host.play_track(th, th.regs[a]) {
                return fault(th, pc, kind);
            }
        }
        Opcode::KillTrk => host.kill_track(th, th.regs[a]),
        Opcode::StopTrk => host.stop_track(th, th.regs[a]),
        Opcode::Push if th.stack.len() >= MAX_STACK_DEPTH => {
            return fault(th, pc, FaultKind::StackOverflow);
        }
        Opcode::Push => th.stack.push(th.regs[a]),
        Opcode::Pop => match th.stack.pop() {
            Some(value) => set_flagged(th, op.a, value),
            None => return fault(th, pc, FaultKind::StackUnderflow),
        },
        Opcode::SeqgroupKill => host.seqgroup_kill(th, op.a),
        Opcode::SeqgroupReturn => {
            th.groups.remove(&op.a);
        }
        Opcode::SeqgroupTrkid => {
            th.groups.insert(op.a);
        }
        Opcode::Getsrcdatafield => {
            let value = host.field(th, th.regs[b], th.regs[c]);
            set_flagged(th, op.a, value);
        }
        Opcode::Setsrcdatafield => host.set_field(th, th.regs[b], th.regs[c], th.regs[a]),
        Opcode::Duck => host.duck(th, true),
        Opcode::Unduck => host.duck(th, false),
        Opcode::Setlg | Opcode::Setgl => match global_index(op.imm) {
            Some(g) if op.code == Opcode::Setlg => {
                th.regs[usize::from(FIRST_GLOBAL) + g] = th.regs[a];
            }
            Some(g) => th.regs[a] = th.regs[usize::from(FIRST_GLOBAL) + g],
            None => return fault(th, pc, FaultKind::BadGlobal(op.imm)),
        },
        Opcode::Throw => return fault(th, pc, FaultKind::Thrown),
        Opcode::Invalid => return fault(th, pc, FaultKind::UnknownOpcode(op.a)),
        _ => {}
    }
    Step::Next
}
