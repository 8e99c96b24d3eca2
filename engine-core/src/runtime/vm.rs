//! The HIT interpreter: runs one thread's predecoded ops until it yields, ends, faults
//! or uses up its fuel. One short match arm per opcode; everything that reaches
//! outside the thread (notes, hit lists, the world, other tracks, the trace) goes
//! through the [`Host`] trait, so the loop itself stays small and testable.
//!
//! `docs/vm.md` gives the meaning of every opcode; this file is its implementation.

use super::clock::SampleTime;
use super::program::{INVALID, NONE, Op, Program};
use super::thread::Thread;
use crate::registers::{FIRST_GLOBAL, GLOBAL_COUNT};
use std::fmt;

/// Deepest call nesting before a thread is stopped.
pub const MAX_CALL_DEPTH: usize = 64;
/// Deepest `push` stack before a thread is stopped.
pub const MAX_STACK_DEPTH: usize = 64;

/// Why a thread was stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FaultKind {
    /// `div` by zero.
    DivideByZero,
    /// The code ran past its end.
    RanOffEnd,
    /// A branch or jump to an address where no instruction starts.
    BadAddress(i64),
    /// Calls nested deeper than [`MAX_CALL_DEPTH`].
    CallStackOverflow,
    /// Bytes that are not an instruction.
    UnknownOpcode(u8),
    /// A hit list that does not exist.
    MissingHitList(i64),
    /// A patch that does not exist (and is no hit list either).
    MissingPatch(i64),
    /// Picks went round hit lists that contain themselves, deeper than
    /// [`MAX_LIST_DEPTH`](super::MAX_LIST_DEPTH), without reaching a sample; the list
    /// that came back.
    HitListCycle(u32),
    /// Hit lists inside hit lists deeper than [`MAX_LIST_DEPTH`](super::MAX_LIST_DEPTH);
    /// the list reached at that depth.
    HitListsTooDeep(u32),
    /// `smart_setlist 0` on a track without a hit list.
    NoOwnHitList,
    /// `pop` on an empty stack.
    StackUnderflow,
    /// `push` beyond [`MAX_STACK_DEPTH`].
    StackOverflow,
    /// A global index outside 0–35 (or 0x64–0x87).
    BadGlobal(i32),
    /// The `error` instruction, with its code.
    Raised(i32),
    /// `assert` on a zero variable.
    AssertFailed(u8),
    /// The `throw` instruction.
    Thrown,
    /// Ran this many instructions in one tick without yielding.
    OutOfFuel(u32),
    /// The tracks started from one another with `play_trk` in this tick (this one among
    /// them) used up their shared budget: `used` instructions and `starts` starts.
    ChainOutOfFuel {
        /// Instructions the chain ran (starts included at their cost).
        used: u32,
        /// `play_trk` starts made by the chain.
        starts: u32,
    },
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FaultKind::DivideByZero => write!(f, "divide by zero"),
            FaultKind::RanOffEnd => write!(f, "ran past the end of the code"),
            FaultKind::BadAddress(a) => write!(
                f,
                "jump to address {a}, where no instruction starts (outside the code)"
            ),
            FaultKind::CallStackOverflow => {
                write!(
                    f,
                    "call stack overflow (calls nested deeper than {MAX_CALL_DEPTH})"
                )
            }
            FaultKind::UnknownOpcode(b) => write!(f, "unknown opcode {b} (0x{b:02x})"),
            FaultKind::MissingHitList(id) => write!(f, "hit list {id} does not exist"),
            FaultKind::MissingPatch(id) => {
                write!(f, "patch {id} does not exist (nor a hit list with that ID)")
            }
            FaultKind::HitListCycle(id) => write!(
                f,
                "hit list {id} contains itself (directly or through lists inside it): the picks \
                 went round it {} lists deep without reaching a sample",
                super::MAX_LIST_DEPTH
            ),
            FaultKind::HitListsTooDeep(id) => write!(
                f,
                "hit lists nested more than {} deep (still a list at hit list {id}) without \
                 reaching a sample",
                super::MAX_LIST_DEPTH
            ),
            FaultKind::NoOwnHitList => write!(f, "smart_setlist 0 on a track that has no hit list"),
            FaultKind::StackUnderflow => write!(f, "pop on an empty stack"),
            FaultKind::StackOverflow => write!(f, "push beyond {MAX_STACK_DEPTH} values"),
            FaultKind::BadGlobal(g) => write!(f, "global {g} does not exist (0-35 or 0x64-0x87)"),
            FaultKind::Raised(code) => write!(f, "the track raised error {code}"),
            FaultKind::AssertFailed(var) => write!(f, "assertion failed: variable {var} is 0"),
            FaultKind::Thrown => write!(f, "the track executed `throw`"),
            FaultKind::OutOfFuel(n) => write!(
                f,
                "ran {n} instructions in one tick without yielding (an endless loop without wait?)"
            ),
            FaultKind::ChainOutOfFuel { used, starts } => write!(
                f,
                "tracks that start one another with play_trk made {starts} starts and used \
                 {used} instructions in one tick without waiting (a play_trk cycle?)"
            ),
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
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
    fn list_add(&mut self, th: &mut Thread, id: i32);
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
    /// Milliseconds as samples.
    fn ms_to_samples(&self, ms: i32) -> SampleTime;
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
/// The inner loop runs the instructions that only touch registers and flags, with the
/// registers and flags held locally; the others (notes, hit lists, waits, the world,
/// calls…) leave it for the outer loop, which has the whole thread and the host.
pub fn run<H: Host>(th: &mut Thread, program: &Program, host: &mut H, fuel: u32) -> (Exit, u32) {
    let ops = program.ops.as_slice();
    let mut pc = th.pc;
    let mut used = 0u32;
    loop {
        // Fast path: registers, flags and branches.
        {
            let regs: &mut [i32; 256] = &mut th.regs;
            let mut zero = th.zero;
            let mut sign = th.sign;
            macro_rules! leave {
                ($exit:expr) => {{
                    th.zero = zero;
                    th.sign = sign;
                    th.pc = pc;
                    return ($exit, used);
                }};
            }
            macro_rules! set {
                ($var:expr, $value:expr) => {{
                    let v: i32 = $value;
                    regs[usize::from($var)] = v;
                    zero = v == 0;
                    sign = v < 0;
                }};
            }
            macro_rules! branch {
                ($cond:expr, $op:expr) => {{
                    if $cond {
                        if $op.target == NONE {
                            leave!(Exit::Fault {
                                kind: FaultKind::BadAddress(i64::from($op.imm)),
                                op: pc,
                            });
                        }
                        pc = $op.target;
                    } else {
                        pc = $op.next;
                    }
                }};
            }
            loop {
                if used >= fuel {
                    leave!(Exit::Fault {
                        kind: FaultKind::OutOfFuel(used),
                        op: pc,
                    });
                }
                let Some(op) = ops.get(pc as usize) else {
                    leave!(Exit::Fault {
                        kind: FaultKind::RanOffEnd,
                        op: pc,
                    });
                };
                used += 1;
                let a = usize::from(op.a);
                let b = usize::from(op.b);
                match op.code {
                    0x04 => set!(op.a, i32::from(op.b as i8)),
                    0x05 => set!(op.a, op.imm),
                    0x06 | 0x4A | 0x4B | 0x4C => set!(op.a, regs[b]),
                    0x0D if op.through_var == 0 => {
                        branch!(true, op);
                        continue;
                    }
                    0x0E => set!(op.a, regs[a]),
                    0x10 => set!(op.a, regs[a].wrapping_add(regs[b])),
                    0x11 => set!(op.a, regs[a].wrapping_sub(regs[b])),
                    0x12 => {
                        let divisor = regs[b];
                        if divisor == 0 {
                            leave!(Exit::Fault {
                                kind: FaultKind::DivideByZero,
                                op: pc,
                            });
                        }
                        set!(op.a, regs[a].wrapping_div(divisor));
                    }
                    0x13 => set!(op.a, regs[a].wrapping_mul(regs[b])),
                    0x14 => {
                        let difference = i64::from(regs[a]) - i64::from(regs[b]);
                        zero = difference == 0;
                        sign = difference < 0;
                    }
                    0x15 => set!(op.a, i32::from(regs[a] < regs[b])),
                    0x16 => set!(op.a, i32::from(regs[a] > regs[b])),
                    0x17 => set!(op.a, i32::from(regs[a] == 0)),
                    0x19 => set!(op.a, regs[a].wrapping_abs()),
                    0x1A => {
                        let (lo, hi) = if op.imm <= op.imm2 {
                            (op.imm, op.imm2)
                        } else {
                            (op.imm2, op.imm)
                        };
                        set!(op.a, regs[a].clamp(lo, hi));
                    }
                    0x28 => set!(op.a, regs[a] & regs[b]),
                    0x29 => set!(op.a, !(regs[a] & regs[b])),
                    0x2A => set!(op.a, regs[a] | regs[b]),
                    0x2B => set!(op.a, !(regs[a] | regs[b])),
                    0x2C => set!(op.a, regs[a] ^ regs[b]),
                    0x2D => set!(op.a, regs[a].max(op.imm)),
                    0x2E => set!(op.a, regs[a].min(op.imm)),
                    0x2F => set!(op.a, regs[a].wrapping_add(1)),
                    0x30 => set!(op.a, regs[a].wrapping_sub(1)),
                    0x3E => {
                        branch!(zero, op);
                        continue;
                    }
                    0x3F => {
                        branch!(!zero, op);
                        continue;
                    }
                    0x40 => {
                        branch!(!sign && !zero, op);
                        continue;
                    }
                    0x41 => {
                        branch!(sign, op);
                        continue;
                    }
                    0x42 => {
                        branch!(!sign, op);
                        continue;
                    }
                    0x43 => {
                        branch!(sign || zero, op);
                        continue;
                    }
                    // No-ops: note, callentrypoint, nop, groups, get_var, callback,
                    // smart_setcrit, push_mask…call_push, test1–test4, testx,
                    // setchanreg…kill_note.
                    0x01
                    | 0x0A
                    | 0x0F
                    | 0x1D
                    | 0x1E
                    | 0x1F
                    | 0x22
                    | 0x26
                    | 0x35..=0x38
                    | 0x3A..=0x3D
                    | 0x55
                    | 0x5B..=0x5E => {}
                    _ => {
                        // Everything else runs in the outer loop, already counted.
                        th.zero = zero;
                        th.sign = sign;
                        break;
                    }
                }
                pc = op.next;
            }
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
        match step(th, program, host, &op, pc) {
            Step::Next => pc = op.next,
            Step::Goto(target) => pc = target,
            Step::Leave(exit) => return (exit, used),
        }
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

/// Runs one instruction that needs the whole thread or the host.
fn step<H: Host>(th: &mut Thread, program: &Program, host: &mut H, op: &Op, pc: u32) -> Step {
    let a = usize::from(op.a);
    let b = usize::from(op.b);
    let c = usize::from(op.c);
    let next = op.next;
    macro_rules! fault {
        ($kind:expr) => {{
            th.pc = pc;
            return Step::Leave(Exit::Fault {
                kind: $kind,
                op: pc,
            });
        }};
    }
    macro_rules! set {
        ($var:expr, $value:expr) => {{
            let v: i32 = $value;
            th.regs[usize::from($var)] = v;
            th.zero = v == 0;
            th.sign = v < 0;
        }};
    }
    match op.code {
        0x07 => {
            if th.calls.len() >= MAX_CALL_DEPTH {
                fault!(FaultKind::CallStackOverflow);
            }
            if op.target == NONE {
                fault!(FaultKind::BadAddress(i64::from(op.imm)));
            }
            th.calls.push(next);
            return Step::Goto(op.target);
        }
        0x08 => {
            return match th.calls.pop() {
                Some(ret) => Step::Goto(ret),
                None => {
                    th.pc = next;
                    Step::Leave(Exit::Finished)
                }
            };
        }
        0x09 => {
            let ms = th.regs[a];
            if ms > 0 {
                let wake = th.time.saturating_add(host.ms_to_samples(ms));
                th.time = wake;
                th.pc = next;
                return Step::Leave(Exit::Sleep(wake));
            }
        }
        0x0B => {
            th.pc = next;
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
            return Step::Leave(exit);
        }
        0x0C => {
            if let Some(ret) = th.calls.pop() {
                return Step::Goto(ret);
            }
            if th.reg(th.attrs.looped) != 0 {
                return Step::Goto(th.loop_point);
            }
            th.pc = next;
            return Step::Leave(Exit::Finished);
        }
        0x0D => {
            // Through a variable (the literal form runs in the fast path).
            let address = th.regs[a];
            return match program.op_at_address(op.unit, address) {
                Some(target) => Step::Goto(target),
                None => fault!(FaultKind::BadAddress(i64::from(address))),
            };
        }
        0x18 => {
            let value = host.random(th.regs[b], th.regs[c]);
            set!(op.a, value);
        }
        0x1B => fault!(FaultKind::Raised(op.imm)),
        0x1C => {
            if th.regs[a] == 0 {
                fault!(FaultKind::AssertFailed(op.a));
            }
        }
        0x20 => return Step::Goto(th.loop_point),
        0x21 => th.loop_point = next,
        0x23 => host.list_add(th, th.regs[a]),
        0x24 => host.list_remove(th, th.regs[a]),
        0x25 => host.list_clear(th),
        0x27 => match host.choose(th) {
            Ok(value) => th.regs[a] = value,
            Err(kind) => fault!(kind),
        },
        0x31 => host.print(th, op.a, th.regs[a], op),
        0x32 => {
            if let Err(kind) = host.play_track(th, th.regs[a]) {
                fault!(kind);
            }
        }
        0x33 => host.kill_track(th, th.regs[a]),
        0x34 => {
            if th.stack.len() >= MAX_STACK_DEPTH {
                fault!(FaultKind::StackOverflow);
            }
            th.stack.push(th.regs[a]);
        }
        0x39 => match th.stack.pop() {
            Some(value) => set!(op.a, value),
            None => fault!(FaultKind::StackUnderflow),
        },
        0x44 => {
            if let Err(kind) = host.set_list(th, th.regs[a]) {
                fault!(kind);
            }
        }
        0x45 => host.seqgroup_kill(th, op.a),
        0x46 => {
            if host.seqgroup_busy(th, op.a) {
                th.pc = pc;
                return Step::Leave(Exit::NextTick);
            }
        }
        0x47 => {
            th.groups.remove(&op.a);
        }
        0x48 => {
            let value = host.field(th, th.regs[b], th.regs[c]);
            set!(op.a, value);
        }
        0x49 => {
            th.groups.insert(op.a);
        }
        0x4D..=0x52 => {
            let (x, y) = (th.regs[a], th.regs[b]);
            let done = match op.code {
                0x4D => x == y,
                0x4E => x != y,
                0x4F => x > y,
                0x50 => x < y,
                0x51 => x >= y,
                _ => x <= y,
            };
            if !done {
                th.pc = pc;
                return Step::Leave(Exit::NextTick);
            }
        }
        0x53 => host.duck(th, true),
        0x54 => host.duck(th, false),
        0x56 => match global_index(op.imm) {
            Some(g) => th.regs[usize::from(FIRST_GLOBAL) + g] = th.regs[a],
            None => fault!(FaultKind::BadGlobal(op.imm)),
        },
        0x57 => match global_index(op.imm) {
            Some(g) => th.regs[a] = th.regs[usize::from(FIRST_GLOBAL) + g],
            None => fault!(FaultKind::BadGlobal(op.imm)),
        },
        0x58 => fault!(FaultKind::Thrown),
        0x59 => host.set_field(th, th.regs[b], th.regs[c], th.regs[a]),
        0x5A => host.stop_track(th, th.regs[a]),
        0x5F => match host.list_index(th, th.regs[b]) {
            Ok(value) => {
                th.regs[a] = value;
                let patch = th.attrs.patch;
                th.set_reg(patch, value);
            }
            Err(kind) => fault!(kind),
        },
        0x02 => match host.note_on(th, false) {
            Ok(handle) => th.regs[a] = handle,
            Err(kind) => fault!(kind),
        },
        0x03 => host.note_off(th, th.regs[a]),
        0x60 => match host.note_on(th, true) {
            Ok(handle) => {
                th.regs[a] = handle;
                th.pc = next;
                return Step::Leave(Exit::NextTick);
            }
            Err(kind) => fault!(kind),
        },
        INVALID => fault!(FaultKind::UnknownOpcode(op.a)),
        other => fault!(FaultKind::UnknownOpcode(other)),
    }
    Step::Next
}
