//! The track debugger's state (`docs/debugger.md`): breakpoints on source lines and on
//! tracks' entries, optionally conditional; break on fault; the step under way; and
//! where the engine is paused. The engine asks `Debugger::stops` before each
//! instruction of a thread while the debugger is armed (and runs threads at full speed
//! while it is not); a pause stops the engine's clock until the debugger resumes it.

use crate::runtime::clock::SampleTime;
use crate::runtime::hash::FastMap;
use crate::runtime::program::{NONE, Program};
use crate::runtime::thread::Thread;
use crate::toolchain::isa::Opcode;
use crate::toolchain::project::{CodeRef, Project};
use crate::toolchain::registers::{self, Layout};
use std::fmt;
use std::path::{Path, PathBuf};

/// Where a breakpoint stops.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BreakAt {
    /// A source line: `file` as given (matched against the end of the `.hdb`'s paths).
    Line {
        /// The file, as given.
        file: String,
        /// 1-based line.
        line: u32,
    },
    /// A track's entry: whenever a copy of it starts running.
    Track(String),
}

impl fmt::Display for BreakAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BreakAt::Line { file, line } => write!(f, "{file}:{line}"),
            BreakAt::Track(track) => f.write_str(track),
        }
    }
}

/// A comparison of a condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CmpOp {
    /// Every operator with its spelling.
    pub const ALL: [(&'static str, CmpOp); 6] = [
        ("==", CmpOp::Eq),
        ("!=", CmpOp::Ne),
        ("<=", CmpOp::Le),
        (">=", CmpOp::Ge),
        ("<", CmpOp::Lt),
        (">", CmpOp::Gt),
    ];

    /// Its spelling.
    pub fn symbol(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, op)| *op == self)
            .map_or("==", |(s, _)| s)
    }

    /// True when `a <op> b`.
    pub fn holds(self, a: i32, b: i32) -> bool {
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }
}

/// `if <register> <op> <value>`: a breakpoint stops only when it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condition {
    /// A register's name in the thread's layout (`v1`, `arg2`, `h1`, `priority`, …).
    pub register: String,
    /// The comparison.
    pub op: CmpOp,
    /// The value compared with.
    pub value: i32,
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.register, self.op.symbol(), self.value)
    }
}

impl Condition {
    /// True when it holds for `th` (a register its layout does not have never holds).
    fn holds(&self, th: &Thread, layout: Layout) -> bool {
        registers::lookup(layout, &self.register)
            .is_some_and(|number| self.op.holds(th.reg(number), self.value))
    }
}

/// A breakpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Breakpoint {
    /// Its number (from 1, never reused in a session).
    pub id: u32,
    /// Where it stops.
    pub at: BreakAt,
    /// Only when this holds.
    pub condition: Option<Condition>,
    /// Off: kept, but never stops.
    pub enabled: bool,
    /// How many times it stopped the engine.
    pub hits: u64,
}

impl fmt::Display for Breakpoint {
    /// `1: piano.src:31 if v1 == 2 (disabled, 3 hits)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.id, self.at)?;
        if let Some(condition) = &self.condition {
            write!(f, " if {condition}")?;
        }
        match (self.enabled, self.hits) {
            (true, 0) => Ok(()),
            (true, hits) => write!(f, " ({hits} hit(s))"),
            (false, hits) => write!(f, " (disabled, {hits} hit(s))"),
        }
    }
}

/// A step under way, for one thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    /// One instruction (`stepi`).
    Instruction,
    /// To the next source line, into calls (`step`).
    Into,
    /// To the next source line at this call depth or above (`next`): over `call`s.
    Over,
    /// Until the thread is about to yield: its next `wait`, `wait_samp` or `end`
    /// (`towait`).
    ToWait,
}

/// The step under way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Step {
    kind: StepKind,
    thread: usize,
    generation: u32,
    /// The source line it started on (0: none).
    line: u32,
    /// The call depth it started at.
    depth: usize,
}

/// Why the engine paused.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum PauseReason {
    /// Breakpoint `id`.
    Breakpoint(u32),
    /// A step ended.
    Step,
    /// The thread faulted (`break on fault`); it ends when the engine goes on.
    Fault(String),
}

/// Where the engine is paused: the thread, the instruction about to run, and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paused {
    /// The thread's index.
    pub thread: usize,
    /// Its generation.
    pub generation: u32,
    /// The op index of the instruction about to run (the faulting one for a fault).
    pub op: u32,
    /// Why.
    pub reason: PauseReason,
    /// The thread's time when it stopped.
    pub at: SampleTime,
    /// The end of the tick it stopped in.
    pub(crate) tick_end: SampleTime,
    /// Its source file and line, when the `.hdb` knows them.
    pub place: Option<(PathBuf, u32)>,
}

/// What the engine does once it resumes a paused thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Resume {
    /// Run the thread on from the instruction it stopped before.
    Run(Paused),
    /// Let the fault it stopped at end it.
    Fault(Paused, crate::runtime::vm::FaultKind),
}

/// What the debugger shows: its breakpoints, break on fault, and where the engine is
/// paused (the thread's track, object and place), for the workbench and `play`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DebugView {
    /// Every breakpoint.
    pub breakpoints: Vec<Breakpoint>,
    /// A fault pauses.
    pub break_on_fault: bool,
    /// Where the engine is paused, if it is.
    pub paused: Option<PausedView>,
}

/// The pause as the workbench shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PausedView {
    /// The paused thread's index (as the Track threads view numbers threads).
    pub thread: usize,
    /// Its track.
    pub track: String,
    /// The object it sounds from.
    pub object: Option<crate::runtime::objects::ObjectId>,
    /// Its source file and line, when known.
    pub place: Option<(PathBuf, u32)>,
    /// Why it paused.
    pub reason: PauseReason,
}

impl fmt::Display for PausedView {
    /// `paused at piano.src:31 (track piano_play, object 1) — breakpoint 1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("paused at ")?;
        match &self.place {
            Some((file, line)) => write!(f, "{}:{line}", file.display())?,
            None => f.write_str("an instruction with no source line")?,
        }
        write!(f, " (track {}", self.track)?;
        if let Some(object) = self.object {
            write!(f, ", object {object}")?;
        }
        f.write_str(") — ")?;
        match &self.reason {
            PauseReason::Breakpoint(id) => write!(f, "breakpoint {id}"),
            PauseReason::Step => f.write_str("step"),
            PauseReason::Fault(fault) => write!(f, "fault: {fault}"),
        }
    }
}

/// The debugger's state, owned by the engine.
#[derive(Debug, Default)]
pub struct Debugger {
    breakpoints: Vec<Breakpoint>,
    next_id: u32,
    /// Pause when a thread faults.
    pub break_on_fault: bool,
    step: Option<Step>,
    pub(crate) paused: Option<Paused>,
    /// The fault a pause on fault holds back.
    pub(crate) held_fault: Option<crate::runtime::vm::FaultKind>,
    /// Set by a resume: the engine runs this before anything else of the tick.
    pub(crate) resume: Option<Resume>,
    /// The instruction a resumed thread stopped before: it runs without stopping again.
    skip: Option<(usize, u32)>,
    /// Op index → the line breakpoints there (rebuilt when the program changes).
    at_ops: FastMap<u32, Vec<u32>>,
    /// The program `at_ops` was built for (its address).
    built_for: usize,
}

/// A breakpoint that could not be set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BreakError {
    /// No instruction comes from that line.
    #[error("no code at {file}:{line}{}", nearest.map_or(String::new(), |n| format!(" (the nearest line with code is {n})")))]
    NoCode {
        /// The file, as given.
        file: String,
        /// The line.
        line: u32,
        /// The nearest line of that file with code, if any.
        nearest: Option<u32>,
    },
    /// No source file of the project ends with that name.
    #[error("no source file `{0}` in the project")]
    NoFile(String),
    /// No such track.
    #[error("no track `{0}`")]
    NoTrack(String),
    /// No breakpoint with that number.
    #[error("no breakpoint {0}")]
    NoBreakpoint(u32),
    /// The command needs a paused engine.
    #[error("not paused: set a breakpoint (`break <file>:<line>`) and trigger the track")]
    NotPaused,
    /// A register the paused thread's layout does not have.
    #[error("no register `{0}` (`regs` lists them)")]
    NoRegister(String),
}

/// True for a file path that is `given` or ends with it (as `/`-separated parts).
fn file_matches(path: &Path, given: &str) -> bool {
    let given = Path::new(given);
    path == given || path.ends_with(given)
}

impl Debugger {
    /// True while anything needs the engine to look before each instruction.
    pub fn armed(&self) -> bool {
        self.step.is_some() || self.skip.is_some() || self.breakpoints.iter().any(|b| b.enabled)
    }

    /// The breakpoints, by number.
    pub fn breakpoints(&self) -> &[Breakpoint] {
        &self.breakpoints
    }

    /// Where the engine is paused, if it is.
    pub fn paused(&self) -> Option<&Paused> {
        self.paused.as_ref()
    }

    /// Adds a breakpoint, checked against `project`'s code; returns it.
    pub fn add(
        &mut self,
        at: BreakAt,
        condition: Option<Condition>,
        project: &Project,
        program: &Program,
    ) -> Result<Breakpoint, BreakError> {
        match &at {
            BreakAt::Line { file, line } => {
                let lines = code_lines(project, program, file);
                if lines.is_empty() {
                    return Err(BreakError::NoFile(file.clone()));
                }
                if !lines.contains(line) {
                    let nearest = lines.iter().copied().min_by_key(|l| l.abs_diff(*line));
                    return Err(BreakError::NoCode {
                        file: file.clone(),
                        line: *line,
                        nearest,
                    });
                }
            }
            BreakAt::Track(name) => {
                if !project
                    .tracks
                    .values()
                    .any(|t| t.name.eq_ignore_ascii_case(name))
                {
                    return Err(BreakError::NoTrack(name.clone()));
                }
            }
        }
        self.next_id += 1;
        let breakpoint = Breakpoint {
            id: self.next_id,
            at,
            condition,
            enabled: true,
            hits: 0,
        };
        self.breakpoints.push(breakpoint.clone());
        self.built_for = 0;
        Ok(breakpoint)
    }

    /// Deletes breakpoint `id` (`None`: all of them).
    pub fn delete(&mut self, id: Option<u32>) -> Result<usize, BreakError> {
        let before = self.breakpoints.len();
        match id {
            None => self.breakpoints.clear(),
            Some(id) => {
                if !self.breakpoints.iter().any(|b| b.id == id) {
                    return Err(BreakError::NoBreakpoint(id));
                }
                self.breakpoints.retain(|b| b.id != id);
            }
        }
        self.built_for = 0;
        Ok(before - self.breakpoints.len())
    }

    /// Turns breakpoint `id` on or off.
    pub fn enable(&mut self, id: u32, on: bool) -> Result<(), BreakError> {
        let b = self
            .breakpoints
            .iter_mut()
            .find(|b| b.id == id)
            .ok_or(BreakError::NoBreakpoint(id))?;
        b.enabled = on;
        Ok(())
    }

    /// Starts a step of `kind` for the paused thread (its line and depth from `th`).
    pub(crate) fn begin_step(&mut self, kind: StepKind, paused: &Paused, th: &Thread) {
        self.step = Some(Step {
            kind,
            thread: paused.thread,
            generation: paused.generation,
            line: paused.place.as_ref().map_or(0, |(_, line)| *line),
            depth: th.calls.len(),
        });
    }

    /// The engine's program was rebuilt: line breakpoints are mapped to its ops again
    /// (a new program may even sit where the old one did).
    pub(crate) fn program_changed(&mut self) {
        self.built_for = 0;
    }

    /// Lets the paused thread run its next instruction without stopping there again.
    pub(crate) fn skip_once(&mut self, thread: usize, op: u32) {
        self.skip = Some((thread, op));
    }

    /// Forgets the step under way of a thread that ended.
    pub(crate) fn thread_ended(&mut self, thread: usize) {
        if self.step.is_some_and(|s| s.thread == thread) {
            self.step = None;
        }
    }

    /// Stops nothing any more: every breakpoint off, the step and break on fault
    /// forgotten (a render script that ended while paused goes on to its end).
    pub fn disarm(&mut self) {
        for b in &mut self.breakpoints {
            b.enabled = false;
        }
        self.step = None;
        self.break_on_fault = false;
    }

    /// Should thread `index` (generation `generation`) stop before op `pc`? Returns why.
    pub(crate) fn stops(
        &mut self,
        index: usize,
        th: &Thread,
        pc: u32,
        project: &Project,
        program: &Program,
    ) -> Option<PauseReason> {
        if let Some((thread, op)) = self.skip
            && thread == index
        {
            self.skip = None;
            if op == pc {
                return None;
            }
        }
        if let Some(step) = self.step
            && step.thread == index
            && step.generation == th.generation
        {
            let op = program.ops.get(pc as usize)?;
            let done = match step.kind {
                StepKind::Instruction => true,
                StepKind::ToWait => {
                    matches!(op.code, Opcode::Wait | Opcode::WaitSamp | Opcode::End)
                }
                StepKind::Into | StepKind::Over => {
                    let line = line_of(project, program, pc).map_or(0, |(_, l)| l);
                    line != 0
                        && line != step.line
                        && (step.kind == StepKind::Into || th.calls.len() <= step.depth)
                }
            };
            if done {
                self.step = None;
                return Some(PauseReason::Step);
            }
        }
        if self.breakpoints.is_empty() {
            return None;
        }
        self.build(project, program);
        let layout = program
            .ops
            .get(th.entry as usize)
            .map_or(Layout::Tso, |op| program.layout(op.unit));
        let entering = pc == th.entry && th.calls.is_empty() && th.time == th.started_at;
        let at_line = self.at_ops.get(&pc);
        let hit = self.breakpoints.iter_mut().find(|b| {
            b.enabled
                && match &b.at {
                    BreakAt::Line { .. } => at_line.is_some_and(|ids| ids.contains(&b.id)),
                    BreakAt::Track(name) => entering && th.track_name.eq_ignore_ascii_case(name),
                }
                && b.condition.as_ref().is_none_or(|c| c.holds(th, layout))
        })?;
        hit.hits += 1;
        Some(PauseReason::Breakpoint(hit.id))
    }

    /// Maps the line breakpoints to the ops of the program (once per program and set).
    fn build(&mut self, project: &Project, program: &Program) {
        let key = std::ptr::from_ref(program) as usize;
        if self.built_for == key {
            return;
        }
        self.at_ops.clear();
        for b in &self.breakpoints {
            let BreakAt::Line { file, line } = &b.at else {
                continue;
            };
            // The first op of each run of ops on the line: a line's instructions stop
            // once, before the first runs.
            let mut previous_on_line = false;
            for (i, _) in program.ops.iter().enumerate() {
                let pc = u32::try_from(i).unwrap_or(NONE);
                let here = line_of(project, program, pc)
                    .is_some_and(|(f, l)| l == *line && file_matches(&f, file));
                if here && !previous_on_line {
                    self.at_ops.entry(pc).or_default().push(b.id);
                }
                previous_on_line = here;
            }
        }
        self.built_for = key;
    }
}

/// The source file and line of op `pc`, from its unit's `.hdb`.
pub fn line_of(project: &Project, program: &Program, pc: u32) -> Option<(PathBuf, u32)> {
    let op = program.ops.get(pc as usize)?;
    let origin = project.locate(CodeRef {
        unit: usize::from(op.unit),
        address: op.addr,
    })?;
    (origin.line > 0).then(|| (origin.path_buf(), origin.line))
}

/// Every line of `file` (as given) that has code, sorted.
pub fn code_lines(project: &Project, program: &Program, file: &str) -> Vec<u32> {
    let mut lines: Vec<u32> = (0..program.ops.len())
        .filter_map(|i| line_of(project, program, u32::try_from(i).ok()?))
        .filter(|(f, _)| file_matches(f, file))
        .map(|(_, line)| line)
        .collect();
    lines.sort_unstable();
    lines.dedup();
    lines
}
