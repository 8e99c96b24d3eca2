//! A HIT thread: one running track — its registers, flags, call stack, loop point,
//! current hit list, notes and virtual clock.

use super::clock::SampleTime;
use super::sink::{ControlGroup, NoteId};
use crate::runtime::levels::GivenLevels;
use crate::runtime::objects::ObjectId;
use crate::toolchain::registers::{self, Layout};
use std::collections::BTreeSet;
use std::sync::Arc;

/// The track registers the runtime itself reads or writes, in one layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttrRegs {
    /// Current patch (what note_on plays).
    pub patch: u8,
    /// Box-X priority.
    pub priority: u8,
    /// Track volume, 0–1024.
    pub vol: u8,
    /// External volume (from the event or the view), 0–1024.
    pub extvol: u8,
    /// Pan, 0 (left) – 512 (centre) – 1024 (right).
    pub pan: u8,
    /// Pitch in cents (0 = as recorded).
    pub pitch: u8,
    /// Ducking priority.
    pub duckpri: u8,
    /// Control group (kGroup…).
    pub group: u8,
    /// Non-zero: a new trigger interrupts this thread (interrupt handoff).
    pub interrupt: u8,
    /// Non-zero: more than one copy of the track may play.
    pub multiple: u8,
    /// Non-zero: `end` loops back to the loop point.
    pub looped: u8,
    /// The source object's ID.
    pub source: u8,
    /// 1 while a note plays.
    pub isplaying: u8,
}

impl AttrRegs {
    /// The registers of a layout.
    pub fn of(layout: Layout) -> Self {
        let r = |name: &str| registers::lookup(layout, name).unwrap_or(0xFF);
        Self {
            patch: r("patch"),
            priority: r("priority"),
            vol: r("vol"),
            extvol: r("extvol"),
            pan: r("pan"),
            pitch: r("pitch"),
            duckpri: r("duckpri"),
            group: match layout {
                Layout::Tso => r("ctrlgroup"),
                Layout::Ts1 => r("mutegroup"),
            },
            interrupt: r("interrupt"),
            multiple: r("MultipleInstances"),
            looped: r("IsLooped"),
            source: r("source"),
            isplaying: r("isplaying"),
        }
    }
}

/// What a thread is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThreadState {
    /// Queued to run at its wake time.
    Running,
    /// Waiting for another thread (interrupt handoff) to be disposed.
    Blocked(usize),
    /// Its code has ended; it lives until its notes end.
    Finished,
}

/// A note a thread started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadNote {
    /// The note.
    pub id: NoteId,
    /// When it ends by itself (`None`: loops until stopped).
    pub end: Option<SampleTime>,
    /// Still sounding.
    pub live: bool,
}

/// The hit list a thread picks from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListRef {
    /// A global hit list.
    Global(u32),
    /// The thread's own copy, changed with smart_add/smart_remove.
    Local {
        /// The list it started from (0 if empty to begin with).
        from: u32,
        /// The entries.
        entries: Vec<u32>,
        /// The last entry picked (no immediate repetition).
        last: Option<u32>,
    },
}

/// Ended notes a thread keeps at least before it drops them ([`Thread::end_note`]).
const DROP_ENDED_AT: usize = 32;

/// One running track. Laid out in this order (`repr(C)`): what every run reads and
/// writes comes first, so a wake touches few cache lines of a thread; the rest after.
/// It starts on a cache line (`align(64)`), so those first fields are always two lines
/// and the registers a track uses most always the same two or three: unaligned, a
/// thread's lines fall where its allocation happens to, and with 10,000 live tracks
/// (more threads than the core's cache holds) the extra line a wake touches cost about
/// a fifth of the engine's time.
#[derive(Debug, Clone)]
#[repr(C, align(64))]
pub struct Thread {
    /// Virtual time: when the instruction about to run runs.
    pub time: SampleTime,
    /// The zero and sign flags as one number: the last result (or a compare's
    /// difference) itself — zero when the zero flag is set, below zero when the sign
    /// flag is ([`zero`](Self::zero), [`sign`](Self::sign)). The VM keeps it as it
    /// runs, with no conversion in and out of each run.
    pub flag: i64,
    /// Tick the fuel count belongs to, and instructions run in it.
    pub fuel_tick: u64,
    /// Bumped when the slot is reused, so stale queue entries are ignored.
    pub generation: u32,
    /// Op index to run next.
    pub pc: u32,
    /// Instructions run in `fuel_tick`.
    pub fuel_used: u32,
    /// Fuel the host's work for the instruction being run costs beyond the instruction
    /// (see [`LIST_ENTRIES_PER_FUEL`](super::vm::LIST_ENTRIES_PER_FUEL)); `vm::run`
    /// charges and clears it after each instruction.
    pub host_fuel: u32,
    /// How many of `notes` are live: whether any is (asked at every note's end and
    /// levels change) costs nothing however many notes a long-running track started.
    pub live_notes: u32,
    /// Gain factor from other threads' ducking (1 = not ducked).
    pub duck_gain: f32,
    /// The chain of `play_trk` starts it belongs to in the tick it was started (or
    /// started another track) in, if any; see [`ChainRef`].
    pub chain: Option<ChainRef>,
    /// The Box-X voice it occupies.
    pub voice: usize,
    /// Where the attribute registers are in its layout.
    pub attrs: AttrRegs,
    /// Running, blocked or finished.
    pub state: ThreadState,
    /// Plays the track's sound once instead of running code.
    pub simple: bool,
    /// Track ID.
    pub track: u32,
    /// Track name.
    pub track_name: Arc<str>,
    /// The event that started it.
    pub event: Arc<str>,
    /// The object it sounds from.
    pub source: Option<ObjectId>,
    /// Objects "saying" it (the instance map's owners).
    pub owners: BTreeSet<ObjectId>,
    /// True if objects started it (it ends when its last owner is quieted).
    pub by_object: bool,
    /// Op index of the entry point.
    pub entry: u32,
    /// Where `loop` goes.
    pub loop_point: u32,
    /// Return op indices.
    pub calls: Vec<u32>,
    /// `push`/`pop` values.
    pub stack: Vec<i32>,
    /// Every variable; globals are copied in before and out after each run.
    pub regs: [i32; 256],
    /// Notes started, in order, from the one of handle `notes_from` on (note_on's
    /// handle counts every note the thread started). Start and end them with
    /// [`add_note`](Self::add_note), [`end_note`](Self::end_note) and
    /// [`end_notes`](Self::end_notes), which keep `live_notes` true and drop notes that
    /// ended before the oldest live one (the last note stays, for `wait_samp`), so a
    /// track that plays for hours keeps no list of all it played.
    pub notes: Vec<ThreadNote>,
    /// The handle of `notes[0]`: the notes before it ended and were dropped.
    pub notes_from: usize,
    /// Current hit list.
    pub list: Option<ListRef>,
    /// The track's own hit list (`smart_setlist 0`).
    pub own_list: Option<u32>,
    /// The track's patch (simple mode, and patch's initial value).
    pub own_patch: Option<u32>,
    /// Executed `duck`.
    pub ducking: bool,
    /// Sequence groups joined with seqgroup_trkid.
    pub groups: BTreeSet<u8>,
    /// Option group (from the track; the register can change it).
    pub group: ControlGroup,
    /// The external volume and pan it was last given, and by whom (the trigger or its
    /// object's place in the view): while its registers still hold them, its notes'
    /// records name those contributions; once its code changes one, the code's.
    pub given: GivenLevels,
    /// Another thread interrupted this one.
    pub interrupted: bool,
    /// The engine sequence number of the start (older threads have smaller numbers).
    pub started_seq: u64,
    /// When it started.
    pub started_at: SampleTime,
}

/// A group of threads that started one another with `play_trk` within one tick. The
/// group shares one fuel budget for that tick, so tracks that start each other without
/// waiting cannot keep a tick from ending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChainRef {
    /// The tick the chain belongs to (a chain lives only within its tick).
    pub tick: u64,
    /// The chain's number within that tick.
    pub index: u32,
}

impl Thread {
    /// Reads a register.
    #[inline]
    pub fn reg(&self, var: u8) -> i32 {
        self.regs[usize::from(var)]
    }

    /// Writes a register.
    #[inline]
    pub fn set_reg(&mut self, var: u8, value: i32) {
        self.regs[usize::from(var)] = value;
    }

    /// The notes still sounding.
    pub fn live_notes(&self) -> impl Iterator<Item = &ThreadNote> {
        self.notes.iter().filter(|n| n.live)
    }

    /// True while any note sounds.
    pub fn has_live_notes(&self) -> bool {
        debug_assert_eq!(
            self.live_notes as usize,
            self.live_notes().count(),
            "notes started and ended other than through add_note/end_note/end_notes"
        );
        self.live_notes > 0
    }

    /// Starts a live note; its handle.
    pub fn add_note(&mut self, id: NoteId, end: Option<SampleTime>) -> usize {
        self.notes.push(ThreadNote {
            id,
            end,
            live: true,
        });
        self.live_notes += 1;
        self.notes_from + self.notes.len() - 1
    }

    /// Ends the note of `handle` if it is live; its id then.
    pub fn end_note(&mut self, handle: usize) -> Option<NoteId> {
        let index = handle.checked_sub(self.notes_from)?;
        let note = self.notes.get_mut(index).filter(|n| n.live)?;
        note.live = false;
        let id = note.id;
        self.live_notes -= 1;
        self.drop_ended();
        Some(id)
    }

    /// Ends every live note `which` picks; their ids, in order.
    pub fn end_notes(&mut self, which: impl Fn(&ThreadNote) -> bool) -> Vec<NoteId> {
        let mut ended = Vec::new();
        for note in self.notes.iter_mut().filter(|n| n.live && which(n)) {
            note.live = false;
            ended.push(note.id);
        }
        self.live_notes -= ended.len() as u32;
        self.drop_ended();
        ended
    }

    /// Drops the notes that ended before the oldest live one (never the last note),
    /// once they are many and at least half of the list: each note is moved at most
    /// a few times over.
    fn drop_ended(&mut self) {
        let before_last = self.notes.len().saturating_sub(1);
        let ended = self
            .notes
            .iter()
            .take(before_last)
            .position(|n| n.live)
            .unwrap_or(before_last);
        if ended >= DROP_ENDED_AT && ended * 2 >= self.notes.len() {
            self.notes.drain(..ended);
            self.notes_from += ended;
        }
    }

    /// The zero flag.
    pub fn zero(&self) -> bool {
        self.flag == 0
    }

    /// The sign flag.
    pub fn sign(&self) -> bool {
        self.flag < 0
    }

    /// Current Box-X priority (the register; tracks may change it).
    pub fn priority(&self) -> i32 {
        self.reg(self.attrs.priority)
    }

    /// True if the layout's register allows more than one copy.
    pub fn allows_multiple(&self) -> bool {
        self.attrs.multiple != 0xFF && self.reg(self.attrs.multiple) != 0
    }

    /// True if the interrupt register is set.
    pub fn interruptible(&self) -> bool {
        self.reg(self.attrs.interrupt) != 0
    }
}
