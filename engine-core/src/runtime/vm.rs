//! The HIT interpreter: runs one thread's predecoded ops until it yields, ends, faults
//! or uses up its fuel. One short match arm per opcode; everything that reaches
//! outside the thread (notes, hit lists, the world, other tracks, the trace) goes
//! through the [`Host`] trait, so the loop itself stays small and testable.
//!
//! `docs/vm.md` gives the meaning of every opcode; this file is its implementation.

use super::clock::SampleTime;
use super::program::{NONE, Op, Program};
use super::thread::Thread;
use crate::isa::Opcode;
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
                    Opcode::Loadb => set!(op.a, i32::from(op.b as i8)),
                    Opcode::Loadl => set!(op.a, op.imm),
                    Opcode::Set | Opcode::Setll | Opcode::Setlt | Opcode::Settl => {
                        set!(op.a, regs[b])
                    }
                    Opcode::Jump if op.through_var == 0 => {
                        branch!(true, op);
                        continue;
                    }
                    Opcode::Test => set!(op.a, regs[a]),
                    Opcode::Add => set!(op.a, regs[a].wrapping_add(regs[b])),
                    Opcode::Sub => set!(op.a, regs[a].wrapping_sub(regs[b])),
                    Opcode::Div => {
                        let divisor = regs[b];
                        if divisor == 0 {
                            leave!(Exit::Fault {
                                kind: FaultKind::DivideByZero,
                                op: pc,
                            });
                        }
                        set!(op.a, regs[a].wrapping_div(divisor));
                    }
                    Opcode::Mul => set!(op.a, regs[a].wrapping_mul(regs[b])),
                    Opcode::Cmp => {
                        let difference = i64::from(regs[a]) - i64::from(regs[b]);
                        zero = difference == 0;
                        sign = difference < 0;
                    }
                    Opcode::Less => set!(op.a, i32::from(regs[a] < regs[b])),
                    Opcode::Greater => set!(op.a, i32::from(regs[a] > regs[b])),
                    Opcode::Not => set!(op.a, i32::from(regs[a] == 0)),
                    Opcode::Abs => set!(op.a, regs[a].wrapping_abs()),
                    Opcode::Limit => {
                        let (lo, hi) = if op.imm <= op.imm2 {
                            (op.imm, op.imm2)
                        } else {
                            (op.imm2, op.imm)
                        };
                        set!(op.a, regs[a].clamp(lo, hi));
                    }
                    Opcode::And => set!(op.a, regs[a] & regs[b]),
                    Opcode::Nand => set!(op.a, !(regs[a] & regs[b])),
                    Opcode::Or => set!(op.a, regs[a] | regs[b]),
                    Opcode::Nor => set!(op.a, !(regs[a] | regs[b])),
                    Opcode::Xor => set!(op.a, regs[a] ^ regs[b]),
                    Opcode::Max => set!(op.a, regs[a].max(op.imm)),
                    Opcode::Min => set!(op.a, regs[a].min(op.imm)),
                    Opcode::Inc => set!(op.a, regs[a].wrapping_add(1)),
                    Opcode::Dec => set!(op.a, regs[a].wrapping_sub(1)),
                    Opcode::Ifeq => {
                        branch!(zero, op);
                        continue;
                    }
                    Opcode::Ifne => {
                        branch!(!zero, op);
                        continue;
                    }
                    Opcode::Ifgt => {
                        branch!(!sign && !zero, op);
                        continue;
                    }
                    Opcode::Iflt => {
                        branch!(sign, op);
                        continue;
                    }
                    Opcode::Ifge => {
                        branch!(!sign, op);
                        continue;
                    }
                    Opcode::Ifle => {
                        branch!(sign || zero, op);
                        continue;
                    }
                    // No-ops: note, callentrypoint, nop, groups, get_var, callback,
                    // smart_setcrit, push_mask…call_push, test1–test4, testx,
                    // setchanreg…kill_note.
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
                    | Opcode::KillNote => {}
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
        Opcode::Call => {
            if th.calls.len() >= MAX_CALL_DEPTH {
                fault!(FaultKind::CallStackOverflow);
            }
            if op.target == NONE {
                fault!(FaultKind::BadAddress(i64::from(op.imm)));
            }
            th.calls.push(next);
            return Step::Goto(op.target);
        }
        Opcode::Return => {
            return match th.calls.pop() {
                Some(ret) => Step::Goto(ret),
                None => {
                    th.pc = next;
                    Step::Leave(Exit::Finished)
                }
            };
        }
        Opcode::Wait => {
            let ms = th.regs[a];
            if ms > 0 {
                let wake = th.time.saturating_add(host.ms_to_samples(ms));
                th.time = wake;
                th.pc = next;
                return Step::Leave(Exit::Sleep(wake));
            }
        }
        Opcode::WaitSamp => {
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
        Opcode::End => {
            if let Some(ret) = th.calls.pop() {
                return Step::Goto(ret);
            }
            if th.reg(th.attrs.looped) != 0 {
                return Step::Goto(th.loop_point);
            }
            th.pc = next;
            return Step::Leave(Exit::Finished);
        }
        Opcode::Jump => {
            // Through a variable (the literal form runs in the fast path).
            let address = th.regs[a];
            return match program.op_at_address(op.unit, address) {
                Some(target) => Step::Goto(target),
                None => fault!(FaultKind::BadAddress(i64::from(address))),
            };
        }
        Opcode::Rand => {
            let value = host.random(th.regs[b], th.regs[c]);
            set!(op.a, value);
        }
        Opcode::Error => fault!(FaultKind::Raised(op.imm)),
        Opcode::Assert => {
            if th.regs[a] == 0 {
                fault!(FaultKind::AssertFailed(op.a));
            }
        }
        Opcode::Loop => return Step::Goto(th.loop_point),
        Opcode::SetLoop => th.loop_point = next,
        Opcode::SmartAdd => host.list_add(th, th.regs[a]),
        Opcode::SmartRemove => host.list_remove(th, th.regs[a]),
        Opcode::SmartRemoveall => host.list_clear(th),
        Opcode::SmartChoose => match host.choose(th) {
            Ok(value) => th.regs[a] = value,
            Err(kind) => fault!(kind),
        },
        Opcode::Printreg => host.print(th, op.a, th.regs[a], op),
        Opcode::PlayTrk => {
            if let Err(kind) = host.play_track(th, th.regs[a]) {
                fault!(kind);
            }
        }
        Opcode::KillTrk => host.kill_track(th, th.regs[a]),
        Opcode::Push => {
            if th.stack.len() >= MAX_STACK_DEPTH {
                fault!(FaultKind::StackOverflow);
            }
            th.stack.push(th.regs[a]);
        }
        Opcode::Pop => match th.stack.pop() {
            Some(value) => set!(op.a, value),
            None => fault!(FaultKind::StackUnderflow),
        },
        Opcode::SmartSetlist => {
            if let Err(kind) = host.set_list(th, th.regs[a]) {
                fault!(kind);
            }
        }
        Opcode::SeqgroupKill => host.seqgroup_kill(th, op.a),
        Opcode::SeqgroupWait => {
            if host.seqgroup_busy(th, op.a) {
                th.pc = pc;
                return Step::Leave(Exit::NextTick);
            }
        }
        Opcode::SeqgroupReturn => {
            th.groups.remove(&op.a);
        }
        Opcode::Getsrcdatafield => {
            let value = host.field(th, th.regs[b], th.regs[c]);
            set!(op.a, value);
        }
        Opcode::SeqgroupTrkid => {
            th.groups.insert(op.a);
        }
        Opcode::Waiteq
        | Opcode::Waitne
        | Opcode::Waitgt
        | Opcode::Waitlt
        | Opcode::Waitge
        | Opcode::Waitle => {
            let (x, y) = (th.regs[a], th.regs[b]);
            let done = match op.code {
                Opcode::Waiteq => x == y,
                Opcode::Waitne => x != y,
                Opcode::Waitgt => x > y,
                Opcode::Waitlt => x < y,
                Opcode::Waitge => x >= y,
                _ => x <= y,
            };
            if !done {
                th.pc = pc;
                return Step::Leave(Exit::NextTick);
            }
        }
        Opcode::Duck => host.duck(th, true),
        Opcode::Unduck => host.duck(th, false),
        Opcode::Setlg => match global_index(op.imm) {
            Some(g) => th.regs[usize::from(FIRST_GLOBAL) + g] = th.regs[a],
            None => fault!(FaultKind::BadGlobal(op.imm)),
        },
        Opcode::Setgl => match global_index(op.imm) {
            Some(g) => th.regs[a] = th.regs[usize::from(FIRST_GLOBAL) + g],
            None => fault!(FaultKind::BadGlobal(op.imm)),
        },
        Opcode::Throw => fault!(FaultKind::Thrown),
        Opcode::Setsrcdatafield => host.set_field(th, th.regs[b], th.regs[c], th.regs[a]),
        Opcode::StopTrk => host.stop_track(th, th.regs[a]),
        Opcode::SmartIndex => match host.list_index(th, th.regs[b]) {
            Ok(value) => {
                th.regs[a] = value;
                let patch = th.attrs.patch;
                th.set_reg(patch, value);
            }
            Err(kind) => fault!(kind),
        },
        Opcode::NoteOn => match host.note_on(th, false) {
            Ok(handle) => th.regs[a] = handle,
            Err(kind) => fault!(kind),
        },
        Opcode::NoteOff => host.note_off(th, th.regs[a]),
        Opcode::NoteOnLoop => match host.note_on(th, true) {
            Ok(handle) => {
                th.regs[a] = handle;
                th.pc = next;
                return Step::Leave(Exit::NextTick);
            }
            Err(kind) => fault!(kind),
        },
        Opcode::Invalid => fault!(FaultKind::UnknownOpcode(op.a)),
        // The register-only opcodes run in `run`'s fast path and never get here.
        other => fault!(FaultKind::UnknownOpcode(other.byte())),
    }
    Step::Next
}
