//! Read-only, plain-data views of a running [`Engine`] for the workbench's inspectors:
//! the live VM threads ([`threads`]), the Box-X voice slots ([`voices`]), the instance
//! map ([`instances`]) and a bounded history of who held each voice ([`VoiceHistory`]).
//!
//! Everything here is built on the engine's own thread from a shared borrow of the
//! engine, once per published snapshot (never per instruction), and holds no reference
//! into it: panels read these values and never touch the engine.
//!
//! How the history is derived: the engine's trace records say *why* a voice changed
//! hands (the `Voice` records — start, steal, refuse, interrupt, quiet — are always
//! kept, whatever the trace switches), so [`VoiceHistory::push`] opens and closes lanes
//! from them at their exact sample times. A track that simply ends (its code and notes
//! done), or is killed by an event, leaves only a `Track` record, which exists only while
//! the track trace is on; [`VoiceHistory::observe`] therefore also compares the history
//! with the current voice slots and closes lanes whose track has left its slot (at the
//! snapshot's time, as [`LaneEnd::Finished`] if its code had ended, else
//! [`LaneEnd::Ended`]) and opens lanes for tracks it has not heard of. Records give the
//! reasons and exact times; the slots make sure the lanes never drift from the truth.

use crate::runtime::clock::SampleTime;
use crate::runtime::engine::{Engine, note_gain, note_pan};
use crate::runtime::program::{NONE, Program};
use crate::runtime::sink::ControlGroup;
use crate::runtime::thread::{Thread, ThreadState};
use crate::runtime::trace::{TraceKind, TraceRecord};
use crate::toolchain::isa::Opcode;
use crate::toolchain::project::CodeRef;
use crate::toolchain::registers::{self, Layout};
use crate::world::ObjectId;
use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

// ---------------------------------------------------------------------------
// Threads
// ---------------------------------------------------------------------------

/// What a live thread is doing, as seen between two ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
/// here: their faults are in [`VoiceHistory::faults`], with `file:line`.
#[derive(Debug, Clone, PartialEq)]
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
    /// Mnemonic of the instruction at `pc`.
    pub instruction: Option<&'static str>,
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
                file: origin.as_ref().map(|o| o.file.clone()),
                line: origin.map(|o| o.line).filter(|l| *l > 0),
                layout,
                registers,
                zero: th.zero,
                sign: th.sign,
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

// ---------------------------------------------------------------------------
// Voices and the instance map
// ---------------------------------------------------------------------------

/// The track holding a voice slot.
#[derive(Debug, Clone, PartialEq)]
pub struct VoiceOccupant {
    /// The thread's index.
    pub thread: usize,
    /// Track ID.
    pub track: u32,
    /// Track name.
    pub track_name: Arc<str>,
    /// The event that started it.
    pub event: Arc<str>,
    /// The object it sounds from (`None`: a UI sound).
    pub source: Option<ObjectId>,
    /// The objects saying it, ascending.
    pub owners: Vec<ObjectId>,
    /// Current Box-X priority.
    pub priority: i32,
    /// Option group.
    pub group: ControlGroup,
    /// Linear gain its notes get (track volume × external volume × ducking; 1 is full,
    /// above 1 if a volume register exceeds 1024).
    pub gain: f32,
    /// Pan its notes get, −1 (left) to 1 (right).
    pub pan: f32,
    /// Samples since it started.
    pub elapsed: SampleTime,
    /// When it started.
    pub started_at: SampleTime,
    /// Notes sounding.
    pub live_notes: usize,
    /// True once its code has ended (its notes still sound).
    pub finished: bool,
}

/// One Box-X voice slot.
#[derive(Debug, Clone, PartialEq)]
pub struct VoiceView {
    /// The slot number, 0 to N−1.
    pub slot: usize,
    /// The track holding it, if any.
    pub occupant: Option<VoiceOccupant>,
}

/// Every Box-X voice slot, in order: always exactly the engine's voice count.
pub fn voices(engine: &Engine) -> Vec<VoiceView> {
    let now = engine.now();
    let threads: Vec<Option<&Thread>> = {
        let mut all = Vec::new();
        for (index, th) in engine.live_threads() {
            if all.len() <= index {
                all.resize(index + 1, None);
            }
            if let Some(slot) = all.get_mut(index) {
                *slot = Some(th);
            }
        }
        all
    };
    engine
        .voice_table()
        .slots()
        .iter()
        .enumerate()
        .map(|(slot, thread)| VoiceView {
            slot,
            occupant: thread.and_then(|index| {
                let th = threads.get(index).copied().flatten()?;
                Some(VoiceOccupant {
                    thread: index,
                    track: th.track,
                    track_name: th.track_name.clone(),
                    event: th.event.clone(),
                    source: th.source,
                    owners: th.owners.iter().copied().collect(),
                    priority: th.priority(),
                    group: th.group,
                    gain: note_gain(th),
                    pan: note_pan(th),
                    elapsed: now.saturating_sub(th.started_at),
                    started_at: th.started_at,
                    live_notes: th.live_notes().count(),
                    finished: th.state == ThreadState::Finished,
                })
            }),
        })
        .collect()
}

/// One playing copy of a track.
#[derive(Debug, Clone, PartialEq)]
pub struct InstanceCopy {
    /// The thread's index.
    pub thread: usize,
    /// Its voice slot.
    pub voice: usize,
    /// The event that started it.
    pub event: Arc<str>,
    /// The objects saying this copy, ascending.
    pub owners: Vec<ObjectId>,
}

/// One entry of the instance map: a track and the objects saying it. Normally one copy
/// plays and every object that triggers the track joins it as an owner; a track whose
/// `MultipleInstances` register is set plays one copy per trigger.
#[derive(Debug, Clone, PartialEq)]
pub struct InstanceView {
    /// Track ID.
    pub track: u32,
    /// Track name.
    pub track_name: Arc<str>,
    /// The copies playing, oldest first.
    pub copies: Vec<InstanceCopy>,
    /// Every object saying the track (all copies), ascending, without repeats.
    pub owners: Vec<ObjectId>,
}

/// The instance map (track → objects saying it), by track ID.
pub fn instances(engine: &Engine) -> Vec<InstanceView> {
    let mut threads: HashMap<usize, &Thread> = HashMap::new();
    threads.extend(engine.live_threads());
    let mut map: Vec<InstanceView> = engine
        .voice_table()
        .instance_map()
        .map(|(track, indices)| {
            let copies: Vec<InstanceCopy> = indices
                .iter()
                .filter_map(|index| {
                    let th = threads.get(index)?;
                    Some(InstanceCopy {
                        thread: *index,
                        voice: th.voice,
                        event: th.event.clone(),
                        owners: th.owners.iter().copied().collect(),
                    })
                })
                .collect();
            let track_name = indices
                .iter()
                .find_map(|index| threads.get(index).map(|th| th.track_name.clone()))
                .unwrap_or_else(|| Arc::from(""));
            let mut owners: Vec<ObjectId> = copies
                .iter()
                .flat_map(|c| c.owners.iter().copied())
                .collect();
            owners.sort_unstable();
            owners.dedup();
            InstanceView {
                track,
                track_name,
                copies,
                owners,
            }
        })
        .collect();
    map.sort_by_key(|entry| entry.track);
    map
}

// ---------------------------------------------------------------------------
// Voice history
// ---------------------------------------------------------------------------

/// How a track left its voice slot.
#[derive(Debug, Clone, PartialEq)]
pub enum LaneEnd {
    /// Its code and notes ended.
    Finished,
    /// A track of higher priority took the voice.
    Stolen {
        /// The event that took it.
        by_event: Arc<str>,
        /// The track that took it.
        by_track: Arc<str>,
        /// Why, as the engine put it (the priorities compared).
        reason: String,
    },
    /// A new trigger of the same track interrupted it (interrupt handoff).
    Interrupted {
        /// The event of the new trigger.
        by_event: Arc<str>,
    },
    /// Its last owner was quieted, or everything was (quiet all).
    Quieted {
        /// What the engine said.
        reason: String,
    },
    /// Stopped by an event, another track, a reload or a sequence group.
    Killed {
        /// What the engine said.
        reason: String,
    },
    /// Its code faulted (the message names `file:line`).
    Faulted {
        /// The fault message.
        message: String,
    },
    /// It left the slot between two snapshots and no record said why (the track
    /// trace was off): most often it was killed by an event or another track.
    Ended,
}

impl fmt::Display for LaneEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LaneEnd::Finished => write!(f, "finished"),
            LaneEnd::Stolen {
                by_track, reason, ..
            } => write!(f, "stolen by `{by_track}` ({reason})"),
            LaneEnd::Interrupted { by_event } => write!(f, "interrupted by `{by_event}`"),
            LaneEnd::Quieted { reason } => write!(f, "quieted ({reason})"),
            LaneEnd::Killed { reason } => write!(f, "killed ({reason})"),
            LaneEnd::Faulted { message } => write!(f, "faulted: {message}"),
            LaneEnd::Ended => write!(f, "ended (reason not traced)"),
        }
    }
}

/// One track's time on a voice slot.
#[derive(Debug, Clone, PartialEq)]
pub struct Lane {
    /// The voice slot.
    pub slot: usize,
    /// Track name.
    pub track_name: Arc<str>,
    /// The event that started it.
    pub event: Arc<str>,
    /// The object that started it (`None`: a UI sound).
    pub object: Option<ObjectId>,
    /// When it took the slot.
    pub started_at: SampleTime,
    /// When it left the slot (`None`: still there).
    pub ended_at: Option<SampleTime>,
    /// How it left (`None`: still there).
    pub end: Option<LaneEnd>,
}

/// A track Box-X refused: every voice held a track of at least its priority.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// When.
    pub time: SampleTime,
    /// The event.
    pub event: Arc<str>,
    /// The track refused.
    pub track_name: Option<Arc<str>>,
    /// The object that triggered it.
    pub object: Option<ObjectId>,
    /// Why, as the engine put it (the lowest priority playing and the comparison).
    pub reason: String,
}

/// A thread stopped by a fault.
#[derive(Debug, Clone, PartialEq)]
pub struct FaultView {
    /// When.
    pub time: SampleTime,
    /// The event that started the thread.
    pub event: Option<Arc<str>>,
    /// Its track.
    pub track_name: Option<Arc<str>>,
    /// Its object.
    pub object: Option<ObjectId>,
    /// Its voice slot.
    pub voice: Option<usize>,
    /// Byte address of the faulting instruction (`None`: the track's sound failed).
    pub address: Option<u32>,
    /// Source file of the faulting instruction.
    pub file: Option<PathBuf>,
    /// 1-based source line of the faulting instruction.
    pub line: Option<u32>,
    /// The whole message (event, track, `address (file:line)`, what went wrong).
    pub message: String,
}

/// Per-slot bookkeeping of the history.
#[derive(Debug, Clone, PartialEq, Default)]
struct SlotState {
    /// Index into `lanes` of the lane still open on this slot.
    open: Option<usize>,
    /// The open lane's code had ended when last observed.
    code_ended: bool,
    /// The open lane took over from an interrupted copy still playing out its loops:
    /// the next end of that track on this slot is the old copy's.
    handoff: bool,
    /// (track, start) of the last lane opened here.
    last: Option<(Arc<str>, SampleTime)>,
}

/// A bounded history of the voice slots: lanes (who held which slot, when, and how they
/// left), refusals and faults, kept for a window of sample time and capped in count.
/// Feed it the trace records with [`push`](Self::push) and the slots with
/// [`observe`](Self::observe) (see the module documentation for why both).
#[derive(Debug, Clone, PartialEq)]
pub struct VoiceHistory {
    window: SampleTime,
    capacity: usize,
    lanes: Vec<Lane>,
    refusals: Vec<Refusal>,
    faults: Vec<FaultView>,
    slots: Vec<SlotState>,
    /// The earliest end among closed lanes (to know cheaply when to prune).
    oldest_end: Option<SampleTime>,
    version: u64,
}

impl Default for VoiceHistory {
    /// The last 30 seconds at 48 kHz, at most 4096 lanes (and as many refusals and
    /// faults).
    fn default() -> Self {
        Self::new(30 * 48_000, 4096)
    }
}

impl VoiceHistory {
    /// A history keeping what ended within the last `window` samples, at most
    /// `capacity` lanes, refusals and faults each (the oldest go first; open lanes are
    /// always kept).
    pub fn new(window: SampleTime, capacity: usize) -> Self {
        Self {
            window,
            capacity: capacity.max(1),
            lanes: Vec::new(),
            refusals: Vec::new(),
            faults: Vec::new(),
            slots: Vec::new(),
            oldest_end: None,
            version: 0,
        }
    }

    /// The lanes, in the order they started (open ones have no end).
    pub fn lanes(&self) -> &[Lane] {
        &self.lanes
    }

    /// The refusals, oldest first.
    pub fn refusals(&self) -> &[Refusal] {
        &self.refusals
    }

    /// The faults, oldest first.
    pub fn faults(&self) -> &[FaultView] {
        &self.faults
    }

    /// The lane open on a slot, if any.
    pub fn current(&self, slot: usize) -> Option<&Lane> {
        let index = self.slots.get(slot)?.open?;
        self.lanes.get(index)
    }

    /// A counter that changes whenever the history does (to copy it only then).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Takes in trace records (in time order; kinds other than `Voice`, `Track` and
    /// `Error` are skipped), then forgets what is older than the window before `now`.
    pub fn push(&mut self, records: &[TraceRecord], now: SampleTime) {
        for record in records {
            match record.kind {
                TraceKind::Voice => self.voice_record(record),
                TraceKind::Track => self.track_record(record),
                TraceKind::Error => self.error_record(record),
                _ => {}
            }
        }
        self.prune(now);
    }

    /// Compares the history with the voice slots as they are at `now` (call it after
    /// [`push`](Self::push) with the same moment's [`voices`]): a lane whose track has
    /// left its slot closes at `now`, a track the records did not announce gets a lane.
    pub fn observe(&mut self, voices: &[VoiceView], now: SampleTime) {
        for view in voices {
            let slot = view.slot;
            let state = self.slot(slot).clone();
            let occupant = view.occupant.as_ref();
            let same = |name: &Arc<str>, start: SampleTime| {
                occupant.is_some_and(|o| o.track_name == *name && o.started_at == start)
            };
            if let Some(index) = state.open {
                let matches = self
                    .lanes
                    .get(index)
                    .is_some_and(|lane| same(&lane.track_name, lane.started_at));
                if matches {
                    let finished = occupant.is_some_and(|o| o.finished);
                    if state.code_ended != finished {
                        self.slot(slot).code_ended = finished;
                    }
                    continue;
                }
                let end = if state.code_ended {
                    LaneEnd::Finished
                } else {
                    LaneEnd::Ended
                };
                self.close(slot, now, end);
            }
            if let Some(o) = occupant {
                let known = state
                    .last
                    .as_ref()
                    .is_some_and(|(name, start)| same(name, *start));
                if !known {
                    self.open(
                        slot,
                        Lane {
                            slot,
                            track_name: o.track_name.clone(),
                            event: o.event.clone(),
                            object: o.source,
                            started_at: o.started_at,
                            ended_at: None,
                            end: None,
                        },
                        false,
                    );
                    self.slot(slot).code_ended = o.finished;
                }
            }
        }
        self.prune(now);
    }

    fn slot(&mut self, slot: usize) -> &mut SlotState {
        if self.slots.len() <= slot {
            self.slots.resize(slot + 1, SlotState::default());
        }
        // The resize above makes the index valid; the fallback keeps this panic-free.
        let last = self.slots.len() - 1;
        &mut self.slots[slot.min(last)]
    }

    fn voice_record(&mut self, record: &TraceRecord) {
        let message = record.message.as_str();
        let Some(voice) = record.voice else {
            if message.starts_with("quiet all") {
                self.close_all(record.time, "quiet all");
            } else if message.starts_with("refuse `") {
                self.refusals.push(Refusal {
                    time: record.time,
                    event: name(record.event.as_ref()),
                    track_name: record.track.clone(),
                    object: record.object,
                    reason: after_colon(message).to_string(),
                });
                self.version += 1;
            }
            return;
        };
        if message.starts_with("start `") {
            self.open(voice, lane_from(voice, record), false);
        } else if message.starts_with("steal voice ") {
            let end = LaneEnd::Stolen {
                by_event: name(record.event.as_ref()),
                by_track: name(record.track.as_ref()),
                reason: after_colon(message).to_string(),
            };
            self.close(voice, record.time, end);
        } else if message.starts_with("interrupt: ") {
            let end = LaneEnd::Interrupted {
                by_event: name(record.event.as_ref()),
            };
            self.close(voice, record.time, end);
            let handoff = message.contains("after its loops finish");
            self.open(voice, lane_from(voice, record), handoff);
        } else if message.starts_with("quiet: ") && message.contains("was the last owner") {
            if self.open_matches(voice, record, false) {
                let reason = message.trim_start_matches("quiet: ").to_string();
                self.close(voice, record.time, LaneEnd::Quieted { reason });
            }
        } else if message.starts_with("refuse `") {
            // Refusals carry no voice today; take them either way.
            self.refusals.push(Refusal {
                time: record.time,
                event: name(record.event.as_ref()),
                track_name: record.track.clone(),
                object: record.object,
                reason: after_colon(message).to_string(),
            });
            self.version += 1;
        }
    }

    fn track_record(&mut self, record: &TraceRecord) {
        let Some(why) = record
            .message
            .strip_prefix("track ends (")
            .and_then(|rest| rest.strip_suffix(')'))
        else {
            return;
        };
        let Some(voice) = record.voice else {
            return;
        };
        let Some(state) = self.slots.get(voice) else {
            return;
        };
        let Some(lane) = state.open.and_then(|i| self.lanes.get(i)) else {
            return;
        };
        if record.track.as_ref() != Some(&lane.track_name) {
            return;
        }
        if state.handoff {
            // The interrupted copy playing out its loops ended, not its successor.
            self.slot(voice).handoff = false;
            return;
        }
        if record.event.as_ref() != Some(&lane.event) {
            return;
        }
        let end = match why {
            // Already closed by the voice record that caused them.
            "interrupted by a new trigger" | "its voice was stolen" => return,
            "ended" => LaneEnd::Finished,
            "fault" => LaneEnd::Faulted {
                message: "fault".to_string(),
            },
            "its last owner was quieted" | "quiet all" => LaneEnd::Quieted {
                reason: why.to_string(),
            },
            _ => LaneEnd::Killed {
                reason: why.to_string(),
            },
        };
        self.close(voice, record.time, end);
    }

    fn error_record(&mut self, record: &TraceRecord) {
        let message = record.message.as_str();
        if record.track.is_none() || !message.ends_with("the track is stopped") {
            return;
        }
        let (address, file, line) = fault_place(message);
        self.faults.push(FaultView {
            time: record.time,
            event: record.event.clone(),
            track_name: record.track.clone(),
            object: record.object,
            voice: record.voice,
            address,
            file,
            line,
            message: message.to_string(),
        });
        self.version += 1;
        if let Some(voice) = record.voice
            && self.open_matches(voice, record, true)
        {
            let end = LaneEnd::Faulted {
                message: message.to_string(),
            };
            self.close(voice, record.time, end);
        }
    }

    /// True if the lane open on `voice` is the record's track (and event, if asked).
    fn open_matches(&self, voice: usize, record: &TraceRecord, event: bool) -> bool {
        self.slots
            .get(voice)
            .and_then(|s| s.open)
            .and_then(|i| self.lanes.get(i))
            .is_some_and(|lane| {
                record.track.as_ref() == Some(&lane.track_name)
                    && (!event || record.event.as_ref() == Some(&lane.event))
            })
    }

    fn open(&mut self, slot: usize, lane: Lane, handoff: bool) {
        if self.slot(slot).open.is_some() {
            // A lane nobody closed (records were lost): it ended when this one began.
            self.close(slot, lane.started_at, LaneEnd::Ended);
        }
        let identity = (lane.track_name.clone(), lane.started_at);
        let index = self.lanes.len();
        self.lanes.push(lane);
        let state = self.slot(slot);
        state.open = Some(index);
        state.code_ended = false;
        state.handoff = handoff;
        state.last = Some(identity);
        self.version += 1;
    }

    fn close(&mut self, slot: usize, at: SampleTime, end: LaneEnd) {
        let Some(index) = self.slots.get_mut(slot).and_then(|s| s.open.take()) else {
            return;
        };
        if let Some(state) = self.slots.get_mut(slot) {
            state.code_ended = false;
            state.handoff = false;
        }
        if let Some(lane) = self.lanes.get_mut(index) {
            let at = at.max(lane.started_at);
            lane.ended_at = Some(at);
            lane.end = Some(end);
            self.oldest_end = Some(self.oldest_end.map_or(at, |t| t.min(at)));
        }
        self.version += 1;
    }

    fn close_all(&mut self, at: SampleTime, reason: &str) {
        for slot in 0..self.slots.len() {
            let end = LaneEnd::Quieted {
                reason: reason.to_string(),
            };
            self.close(slot, at, end);
        }
    }

    /// Forgets closed lanes, refusals and faults older than the window, then the oldest
    /// beyond the capacity.
    fn prune(&mut self, now: SampleTime) {
        let cutoff = now.saturating_sub(self.window);
        let old = self.oldest_end.is_some_and(|t| t < cutoff);
        let open = self.slots.iter().filter(|s| s.open.is_some()).count();
        if old || self.lanes.len() > self.capacity.max(open) {
            let mut keep: Vec<bool> = self
                .lanes
                .iter()
                .map(|lane| lane.ended_at.is_none_or(|end| end >= cutoff))
                .collect();
            let kept = keep.iter().filter(|k| **k).count();
            let mut excess = kept.saturating_sub(self.capacity.max(open));
            for (flag, lane) in keep.iter_mut().zip(&self.lanes) {
                if excess == 0 {
                    break;
                }
                if *flag && lane.ended_at.is_some() {
                    *flag = false;
                    excess -= 1;
                }
            }
            let mut new_index = vec![None; self.lanes.len()];
            let mut next = 0;
            for (slot, kept) in new_index.iter_mut().zip(&keep) {
                if *kept {
                    *slot = Some(next);
                    next += 1;
                }
            }
            let mut flags = keep.iter();
            self.lanes.retain(|_| flags.next().copied().unwrap_or(true));
            for state in &mut self.slots {
                state.open = state.open.and_then(|i| new_index.get(i).copied().flatten());
            }
            self.oldest_end = self.lanes.iter().filter_map(|l| l.ended_at).min();
            self.version += 1;
        }
        let stale = self.refusals.partition_point(|r| r.time < cutoff);
        let over = self.refusals.len().saturating_sub(self.capacity);
        let drop = stale.max(over);
        if drop > 0 {
            self.refusals.drain(..drop);
            self.version += 1;
        }
        let stale = self.faults.partition_point(|r| r.time < cutoff);
        let over = self.faults.len().saturating_sub(self.capacity);
        let drop = stale.max(over);
        if drop > 0 {
            self.faults.drain(..drop);
            self.version += 1;
        }
    }
}

fn name(value: Option<&Arc<str>>) -> Arc<str> {
    value.cloned().unwrap_or_else(|| Arc::from(""))
}

fn lane_from(slot: usize, record: &TraceRecord) -> Lane {
    Lane {
        slot,
        track_name: name(record.track.as_ref()),
        event: name(record.event.as_ref()),
        object: record.object,
        started_at: record.time,
        ended_at: None,
        end: None,
    }
}

/// The text after the first `": "` (the reason part of a voice decision), or all of it.
fn after_colon(message: &str) -> &str {
    message
        .split_once(": ")
        .map_or(message, |(_, reason)| reason)
}

/// Address, file and line of a fault message: the engine writes
/// "event `e`, track `t`, address 0x0012 (file.src:7): what; the track is stopped", or
/// "…, its sound: what; …" when the track's sound failed.
fn fault_place(message: &str) -> (Option<u32>, Option<PathBuf>, Option<u32>) {
    let Some(start) = message.find(", address 0x") else {
        return (None, None, None);
    };
    let rest = &message[start + ", address 0x".len()..];
    let digits = rest
        .find(|c: char| !c.is_ascii_hexdigit())
        .unwrap_or(rest.len());
    let address = u32::from_str_radix(&rest[..digits], 16).ok();
    let Some(inner) = rest[digits..].strip_prefix(" (") else {
        return (address, None, None);
    };
    let Some(close) = inner.find("): ") else {
        return (address, None, None);
    };
    let place = &inner[..close];
    match place.rsplit_once(':') {
        Some((file, line)) if !file.is_empty() => match line.parse::<u32>() {
            Ok(line) => (address, Some(PathBuf::from(file)), Some(line)),
            Err(_) => (address, Some(PathBuf::from(place)), None),
        },
        _ if place.is_empty() => (address, None, None),
        _ => (address, Some(PathBuf::from(place)), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fault_places_parse() {
        let m = "event `e`, track `t`, address 0x001a (/tmp/x (copy)/f.src:12): divide by zero; the track is stopped";
        assert_eq!(
            fault_place(m),
            (
                Some(0x1a),
                Some(PathBuf::from("/tmp/x (copy)/f.src")),
                Some(12)
            )
        );
        let m = "event `e`, track `t`, address 0x0010 (unit.hit): x; the track is stopped";
        assert_eq!(
            fault_place(m),
            (Some(0x10), Some(PathBuf::from("unit.hit")), None)
        );
        let m = "event `e`, track `t`, its sound: patch 3 does not exist; the track is stopped";
        assert_eq!(fault_place(m), (None, None, None));
    }

    #[test]
    fn history_is_bounded_and_keeps_open_lanes() {
        let mut h = VoiceHistory::new(100, 3);
        let record = |time, voice, message: &str| TraceRecord {
            time,
            kind: TraceKind::Voice,
            event: Some(Arc::from("e")),
            track: Some(Arc::from("t")),
            object: None,
            voice: Some(voice),
            note: None,
            message: message.to_string(),
        };
        // A lane that stays open on slot 0, then many short ones on slot 1.
        h.push(&[record(0, 0, "start `t` on voice 0")], 0);
        for i in 0..10u64 {
            h.push(&[record(i * 10, 1, "start `t` on voice 1")], i * 10);
        }
        assert!(h.lanes().len() <= 3, "{:#?}", h.lanes());
        assert!(h.current(0).is_some_and(|l| l.started_at == 0));
        assert!(h.current(1).is_some_and(|l| l.started_at == 90));
        // Past the window only the open lanes stay.
        h.push(&[], 10_000);
        assert_eq!(h.lanes().len(), 2);
        assert!(h.current(0).is_some() && h.current(1).is_some());
    }
}
