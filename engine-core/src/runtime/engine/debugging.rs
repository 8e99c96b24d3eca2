//! The track debugger on the engine (`docs/debugger.md`): breakpoints set and cleared,
//! the pause (the clock stands still: [`Engine::tick`] does nothing), stepping and
//! continuing, and the paused thread's registers read and written. A resumed thread
//! runs first in the tick it stopped in, with the fuel it had left, so the instructions
//! run — and so the sound — are exactly those of a run without the debugger.

use super::*;
use crate::runtime::debug::{
    BreakAt, BreakError, Breakpoint, Condition, PauseReason, Paused, Resume, StepKind,
};
use crate::toolchain::registers::{self, Layout};

/// How a paused engine goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GoOn {
    /// Until the next breakpoint (`continue`).
    Continue,
    /// A step of the paused thread (`stepi`, `step`, `next`, `towait`).
    Step(StepKind),
}

impl Engine {
    /// The debugger: breakpoints, break on fault, where the engine is paused.
    pub fn debugger(&self) -> &crate::runtime::debug::Debugger {
        &self.debug
    }

    /// Sets a breakpoint (checked against the project's code: a line without code is an
    /// error naming the nearest line that has some).
    pub fn add_breakpoint(
        &mut self,
        at: BreakAt,
        condition: Option<Condition>,
    ) -> Result<Breakpoint, BreakError> {
        let (project, program) = (Arc::clone(&self.project), Arc::clone(&self.program));
        self.debug.add(at, condition, &project, &program)
    }

    /// Deletes breakpoint `id` (`None`: all); returns how many went.
    pub fn delete_breakpoint(&mut self, id: Option<u32>) -> Result<usize, BreakError> {
        self.debug.delete(id)
    }

    /// Turns breakpoint `id` on or off.
    pub fn enable_breakpoint(&mut self, id: u32, on: bool) -> Result<(), BreakError> {
        self.debug.enable(id, on)
    }

    /// Pause (or not) when a thread faults, at the faulting instruction.
    pub fn set_break_on_fault(&mut self, on: bool) {
        self.debug.break_on_fault = on;
    }

    /// Stops nothing any more (a render script that ended while paused goes on).
    pub fn disarm_debugger(&mut self) {
        self.debug.disarm();
    }

    /// The debugger as the workbench shows it; file paths inside the project are
    /// shown relative to its folder.
    pub fn debug_view(&self) -> crate::runtime::debug::DebugView {
        let root = self.project.root();
        let paused = self.paused().map(|p| {
            let th = self.paused_thread();
            crate::runtime::debug::PausedView {
                thread: p.thread,
                track: th.map_or_else(|| "?".to_string(), |t| t.track_name.to_string()),
                object: th.and_then(|t| t.source),
                place: p.place.as_ref().map(|(file, line)| {
                    (file.strip_prefix(root).unwrap_or(file).to_path_buf(), *line)
                }),
                reason: p.reason.clone(),
            }
        });
        crate::runtime::debug::DebugView {
            breakpoints: self.debug.breakpoints().to_vec(),
            break_on_fault: self.debug.break_on_fault,
            paused,
        }
    }

    /// Where the engine is paused, if it is (a pause whose thread was quieted or killed
    /// meanwhile holds nothing: the next tick goes on).
    pub fn paused(&self) -> Option<&Paused> {
        self.debug.paused.as_ref().filter(|_| self.pause_holds())
    }

    /// True while the paused thread still lives and runs code.
    pub(super) fn pause_holds(&self) -> bool {
        self.debug.paused.as_ref().is_some_and(|p| {
            self.threads
                .get(p.thread)
                .and_then(Option::as_ref)
                .is_some_and(|t| t.generation == p.generation && t.state == ThreadState::Running)
        })
    }

    /// The paused thread, if the engine is paused (and the thread still lives).
    pub fn paused_thread(&self) -> Option<&Thread> {
        let p = self.debug.paused.as_ref()?;
        self.threads
            .get(p.thread)?
            .as_ref()
            .filter(|t| t.generation == p.generation)
            .map(AsRef::as_ref)
    }

    /// The register layout of the paused thread's code.
    fn paused_layout(&self) -> Option<Layout> {
        let th = self.paused_thread()?;
        Some(
            self.program
                .ops
                .get(th.entry as usize)
                .map_or(Layout::Tso, |op| self.program.layout(op.unit)),
        )
    }

    /// The paused thread's registers: arg0–arg4, v1–v8, h1–h3 and the layout's named
    /// track registers, then the globals its code uses, with their values.
    pub fn paused_registers(&self) -> Result<Vec<(String, i32)>, BreakError> {
        let th = self.paused_thread().ok_or(BreakError::NotPaused)?;
        let layout = self.paused_layout().unwrap_or(Layout::Tso);
        Ok(registers::all(layout)
            .filter(|(number, _)| !registers::is_global(*number))
            .map(|(number, name)| (name.to_string(), th.reg(number)))
            .collect())
    }

    /// Writes a register of the paused thread; returns its old value.
    pub fn set_paused_register(&mut self, name: &str, value: i32) -> Result<i32, BreakError> {
        let layout = self.paused_layout().ok_or(BreakError::NotPaused)?;
        let number = registers::lookup(layout, name)
            .filter(|n| !registers::is_global(*n))
            .ok_or_else(|| BreakError::NoRegister(name.to_string()))?;
        let p = self.debug.paused.as_ref().ok_or(BreakError::NotPaused)?;
        let (thread, generation) = (p.thread, p.generation);
        let th = self
            .threads
            .get_mut(thread)
            .and_then(Option::as_mut)
            .filter(|t| t.generation == generation)
            .ok_or(BreakError::NotPaused)?;
        let old = th.reg(number);
        th.set_reg(number, value);
        self.sync_priority(thread);
        Ok(old)
    }

    /// Lets a paused engine go on: continue, or step the paused thread. The thread runs
    /// at the next [`tick`](Self::tick), first of everything left in its tick.
    pub fn go_on(&mut self, how: GoOn) -> Result<(), BreakError> {
        let paused = self.debug.paused.take().ok_or(BreakError::NotPaused)?;
        if let Some(kind) = self.debug.held_fault.take() {
            // A fault it paused at ends it now, whatever the step.
            self.debug.resume = Some(Resume::Fault(paused, kind));
            return Ok(());
        }
        if let GoOn::Step(kind) = how
            && let Some(th) = self
                .threads
                .get(paused.thread)
                .and_then(Option::as_ref)
                .filter(|t| t.generation == paused.generation)
        {
            let th = th.clone();
            self.debug.begin_step(kind, &paused, &th);
        }
        self.debug.skip_once(paused.thread, paused.op);
        self.debug.resume = Some(Resume::Run(paused));
        Ok(())
    }

    /// Pauses the engine before op `pc` of thread `index` (or at its fault), and traces
    /// where.
    pub(super) fn pause(
        &mut self,
        index: usize,
        generation: u32,
        pc: u32,
        reason: PauseReason,
        at: SampleTime,
        tick_end: SampleTime,
    ) {
        let place = crate::runtime::debug::line_of(&self.project, &self.program, pc);
        self.debug.paused = Some(Paused {
            thread: index,
            generation,
            op: pc,
            reason: reason.clone(),
            at,
            tick_end,
            place,
        });
        let place = self.where_is(pc);
        self.record_thread(
            TraceKind::Track,
            index,
            TraceEvent::Paused { place, reason },
        );
    }

    /// Runs what a resume asked for: the paused thread on, or its fault.
    pub(super) fn resume_thread(&mut self, resume: Resume) {
        match resume {
            Resume::Run(p) => {
                let program = Arc::clone(&self.program);
                self.run_thread(&program, p.thread, p.generation, p.at, p.tick_end);
            }
            Resume::Fault(p, kind) => {
                if self.current(p.thread, p.generation) {
                    let exit = Exit::Fault { kind, op: p.op };
                    self.after_run(
                        p.thread,
                        p.generation,
                        exit,
                        host::AfterRun::default(),
                        p.tick_end,
                    );
                }
            }
        }
    }
}
