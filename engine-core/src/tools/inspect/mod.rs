//! Read-only, plain-data views of a running [`Engine`](crate::runtime::Engine) for the workbench's inspectors:
//! the live VM threads ([`threads`](threads())), the Box-X voice slots ([`voices`](voices())), the instance
//! map ([`instances`]) and a bounded history of who held each voice ([`VoiceHistory`]).
//!
//! Everything here is built on the engine's own thread from a shared borrow of the
//! engine, once per published snapshot (never per instruction), and holds no reference
//! into it: panels read these values and never touch the engine.
//!
//! - `threads` — what each live VM thread is doing, where, with which registers.
//! - `voices` — the voice slots and the instance map.
//! - `history` — [`VoiceHistory`], fed by `records` (trace records open and close
//!   lanes) and by the slots; `lanes` holds what it keeps (lanes, refusals, faults).

mod history;
mod lanes;
mod records;
mod threads;
mod voices;

pub use history::VoiceHistory;
pub use lanes::{FaultView, Lane, LaneEnd, Refusal};
pub use threads::{ThreadStatus, ThreadView, threads};
pub use voices::{
    InstanceCopy, InstanceView, VoiceOccupant, VoiceView, WorldOccupant, instances, slot_levels,
    voices,
};
