//! Why the interpreter stopped a thread: [`FaultKind`], with the sentence a person reads.

use super::{MAX_CALL_DEPTH, MAX_LOCAL_LIST_IDS, MAX_STACK_DEPTH};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a thread was stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[repr(u32)]
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
    /// [`MAX_LIST_DEPTH`](crate::runtime::MAX_LIST_DEPTH), without reaching a sample;
    /// the list that came back.
    HitListCycle(u32),
    /// Hit lists inside hit lists deeper than
    /// [`MAX_LIST_DEPTH`](crate::runtime::MAX_LIST_DEPTH); the list reached at that
    /// depth.
    HitListsTooDeep(u32),
    /// `smart_setlist 0` on a track without a hit list.
    NoOwnHitList,
    /// `smart_add` past [`MAX_LOCAL_LIST_IDS`] entries.
    LocalListTooLong,
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

impl FaultKind {
    /// Every kind's name, as [`FaultKind::name`] gives it.
    pub const NAMES: [&'static str; 19] = [
        "divide-by-zero",
        "ran-off-end",
        "bad-address",
        "call-stack-overflow",
        "unknown-opcode",
        "missing-hit-list",
        "missing-patch",
        "hit-list-cycle",
        "hit-lists-too-deep",
        "no-own-hit-list",
        "local-list-too-long",
        "stack-underflow",
        "stack-overflow",
        "bad-global",
        "raised",
        "assert-failed",
        "thrown",
        "out-of-fuel",
        "chain-out-of-fuel",
    ];

    /// The kind's stable kebab-case name, without its numbers (`missing-patch`).
    pub fn name(&self) -> &'static str {
        let index = match self {
            FaultKind::DivideByZero => 0,
            FaultKind::RanOffEnd => 1,
            FaultKind::BadAddress(_) => 2,
            FaultKind::CallStackOverflow => 3,
            FaultKind::UnknownOpcode(_) => 4,
            FaultKind::MissingHitList(_) => 5,
            FaultKind::MissingPatch(_) => 6,
            FaultKind::HitListCycle(_) => 7,
            FaultKind::HitListsTooDeep(_) => 8,
            FaultKind::NoOwnHitList => 9,
            FaultKind::LocalListTooLong => 10,
            FaultKind::StackUnderflow => 11,
            FaultKind::StackOverflow => 12,
            FaultKind::BadGlobal(_) => 13,
            FaultKind::Raised(_) => 14,
            FaultKind::AssertFailed(_) => 15,
            FaultKind::Thrown => 16,
            FaultKind::OutOfFuel(_) => 17,
            FaultKind::ChainOutOfFuel { .. } => 18,
        };
        Self::NAMES[index]
    }
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
                crate::runtime::MAX_LIST_DEPTH
            ),
            FaultKind::HitListsTooDeep(id) => write!(
                f,
                "hit lists nested more than {} deep (still a list at hit list {id}) without \
                 reaching a sample",
                crate::runtime::MAX_LIST_DEPTH
            ),
            FaultKind::NoOwnHitList => write!(f, "smart_setlist 0 on a track that has no hit list"),
            FaultKind::LocalListTooLong => write!(
                f,
                "smart_add would give the track's hit list more than {MAX_LOCAL_LIST_IDS} entries"
            ),
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
