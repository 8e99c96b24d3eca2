//! Ticking: every wake due before the next tick runs in time order; each thread runs
//! under its own fuel, its `play_trk` chain's and the tick's, and a fault stops it (a
//! chain's fault the whole chain).

use super::*;

impl Engine {
    /// Runs one tick: every thread and note end due before the next tick, in time order.
    ///
    /// While the debugger holds the engine paused it does nothing (the clock stands
    /// still); a tick the debugger paused goes on where it stopped, once resumed.
    pub fn tick(&mut self) {
        if self.debug.paused.is_some() {
            if self.pause_holds() {
                return;
            }
            // The paused thread was quieted or killed while paused: the engine goes on.
            self.debug.paused = None;
            self.debug.held_fault = None;
        }
        let end = match self.mid_tick.take() {
            Some(end) => end,
            None => {
                self.queue.begin_tick(self.clock.tick(), &self.clock);
                self.chains.clear();
                self.tick_used = 0;
                self.deferred = 0;
                self.clock.tick_end()
            }
        };
        if let Some(resume) = self.debug.resume.take() {
            self.resume_thread(resume);
        }
        // One hold on the code for the whole tick, not one per thread run.
        let program = Arc::clone(&self.program);
        // This frame starts on a cache line, so it and the frames of everything the tick
        // calls (the VM's loop, the host's calls) sit at the same offsets within cache
        // lines whatever the caller's stack. Without it a process's speed depended on
        // where its stack happened to start (its environment's size, or chance): at one
        // of the four 16-byte offsets in a line, the 16-byte store of each popped wake
        // straddled two lines, the loads of its thread and generation right after could
        // not take their value from that store, and every wake waited — 10,000 live
        // tracks took 1.29 % of a core instead of 0.93 %, in one process in four.
        let frame = LineAligned::default();
        std::hint::black_box(&frame.0);
        while self.debug.paused.is_none()
            && let Some((at, wake)) = self.queue.pop_before(end)
        {
            match wake {
                Wake::Run { thread, generation } if self.tick_used >= self.config.tick_fuel => {
                    // The tick's fuel is used up: the thread runs at the next tick.
                    self.deferred += 1;
                    self.schedule_next_tick(end, Wake::Run { thread, generation });
                }
                Wake::Run { thread, generation } => {
                    self.run_thread(&program, thread, generation, at, end);
                }
                Wake::NoteEnd {
                    thread,
                    generation,
                    note,
                } => self.note_ended(thread, generation, note),
            }
        }
        if self.debug.paused.is_some() {
            // The rest of the tick runs once the debugger lets the engine go on.
            self.mid_tick = Some(end);
            return;
        }
        if self.deferred > 0 {
            let what = TraceEvent::Overloaded {
                used: self.tick_used,
                deferred: self.deferred,
            };
            self.record(TraceKind::Error, what);
        }
        self.queue.end_tick(&self.clock);
        self.clock.advance();
    }

    /// Ticks until the clock reaches `time`.
    pub fn run_until(&mut self, time: SampleTime) {
        while self.clock.now() < time {
            self.tick();
        }
    }

    pub(super) fn current(&self, index: usize, generation: u32) -> bool {
        self.threads
            .get(index)
            .and_then(Option::as_ref)
            .is_some_and(|t| t.generation == generation)
    }

    pub(super) fn run_thread(
        &mut self,
        program: &Program,
        index: usize,
        generation: u32,
        at: SampleTime,
        tick_end: SampleTime,
    ) {
        if !self.current(index, generation) {
            return;
        }
        let Some(mut th) = self.threads.get_mut(index).and_then(Option::take) else {
            return;
        };
        // While it runs it is not compared (Box-X passes it over).
        self.voices.touch();
        let priority = th.priority();
        if th.state != ThreadState::Running {
            self.put_back(index, th);
            return;
        }
        th.time = th.time.max(at);
        let ran_at = th.time;
        let budget = self.budget(&mut th);
        let levels_before = levels::levels_of(&th);
        let first = usize::from(FIRST_GLOBAL);
        if self.program.uses_globals {
            th.regs[first..first + GLOBAL_COUNT].copy_from_slice(&self.globals);
        }
        let mut stopped = None;
        let (mut exit, used, after) = if th.simple {
            (
                self.run_simple(index, &mut th),
                1,
                host::AfterRun::default(),
            )
        } else {
            self.running = Some(Running {
                chain: budget.chain,
            });
            if self.debug.armed() {
                // The debugger looks before each instruction.
                let project = Arc::clone(&self.project);
                let mut debug = std::mem::take(&mut self.debug);
                let mut host = host::HostCtx::new(self, index);
                let mut stop = |t: &Thread, pc: u32| {
                    stopped = debug.stops(index, t, pc, &project, program);
                    stopped.is_some()
                };
                let (exit, used) =
                    vm::run_debug(&mut th, program, &mut host, budget.instructions, &mut stop);
                let after = host.finish();
                self.debug = debug;
                (exit, used, after)
            } else {
                let mut host = host::HostCtx::new(self, index);
                let (exit, used) = vm::run(&mut th, program, &mut host, budget.instructions);
                (exit, used, host.finish())
            }
        };
        self.settle(&mut th, &budget, &mut exit, used);
        // A fault pauses first when the debugger asks for it.
        if let Exit::Fault { kind, op } = &exit
            && self.debug.break_on_fault
            && self.debug.held_fault.is_none()
        {
            stopped = Some(crate::runtime::debug::PauseReason::Fault(kind.to_string()));
            self.debug.held_fault = Some(kind.clone());
            th.pc = *op;
        }
        if self.program.uses_globals {
            self.globals
                .copy_from_slice(&th.regs[first..first + GLOBAL_COUNT]);
        }
        // Only sounding notes hear a change of levels.
        let levels_changed = th.has_live_notes() && levels::levels_of(&th) != levels_before;
        let pc = th.pc;
        if th.priority() != priority {
            // Its code (or a global it reads its priority from) changed it.
            self.voices.set_priority(th.voice, index, th.priority());
        }
        self.put_back(index, th);
        if after.ducking_changed {
            self.update_ducking();
        }
        if levels_changed {
            // The new levels apply from when the thread ran, not from when it wakes next.
            self.send_levels(index, ran_at);
        }
        if let Some(reason) = stopped {
            self.pause(index, generation, pc, reason, ran_at, tick_end);
            return;
        }
        self.after_run(index, generation, exit, after, tick_end);
    }

    /// What a thread may run now: its own fuel left this tick, its chain's, the tick's.
    fn budget(&self, th: &mut Thread) -> Budget {
        let tick = self.clock.tick();
        if th.fuel_tick != tick {
            th.fuel_tick = tick;
            th.fuel_used = 0;
        }
        let own_left = self.config.fuel_per_tick.saturating_sub(th.fuel_used);
        let chain = th.chain.filter(|c| c.tick == tick).map(|c| c.index);
        let chain_left = chain
            .and_then(|c| self.chains.get(c as usize))
            .map_or(u32::MAX, |c| {
                self.config.chain_fuel_per_tick.saturating_sub(c.used)
            });
        let tick_left =
            u32::try_from(self.config.tick_fuel.saturating_sub(self.tick_used)).unwrap_or(u32::MAX);
        Budget {
            own_left,
            chain,
            chain_left,
            instructions: own_left.min(chain_left).min(tick_left),
        }
    }

    /// Books a run's instructions to the thread, its chain (if the run made or joined
    /// one) and the tick, and says what running out meant: the thread's own fuel is its
    /// fault, the chain's stops the chain, the tick's makes it go on at the next tick.
    fn settle(&mut self, th: &mut Thread, budget: &Budget, exit: &mut Exit, used: u32) {
        let chain = self.running.take().and_then(|r| r.chain);
        if let Some(c) = chain {
            th.chain = Some(ChainRef {
                tick: self.clock.tick(),
                index: c,
            });
            if let Some(fuel) = self.chains.get_mut(c as usize) {
                fuel.used = fuel.used.saturating_add(used);
            }
        }
        self.tick_used = self.tick_used.saturating_add(u64::from(used));
        th.fuel_used = th.fuel_used.saturating_add(used);
        self.instructions += u64::from(used);
        if let Exit::Fault {
            kind: FaultKind::OutOfFuel(_),
            op,
        } = *exit
            && used < budget.own_left
        {
            *exit = match chain.and_then(|c| self.chains.get(c as usize)) {
                Some(fuel) if used >= budget.chain_left => Exit::Fault {
                    kind: FaultKind::ChainOutOfFuel {
                        used: fuel.used,
                        starts: fuel.starts,
                    },
                    op,
                },
                _ => Exit::NextTick,
            };
        }
    }

    /// Acts on how a run ended: a kill or stop the thread asked for, the next wake, the
    /// end of its code, or its fault ([`ended`](Self::ended), out of the way of the
    /// common ends: asleep until a time, or until the next tick).
    #[inline(always)]
    pub(super) fn after_run(
        &mut self,
        index: usize,
        generation: u32,
        exit: Exit,
        after: host::AfterRun,
        tick_end: SampleTime,
    ) {
        if after.kill_self {
            self.kill(index, EndReason::KilledItself);
            return;
        }
        if after.stop_self && matches!(exit, Exit::Sleep(_) | Exit::NextTick) {
            self.stop_gracefully(index);
            return;
        }
        let wake = Wake::Run {
            thread: index,
            generation,
        };
        match exit {
            // The debugger stopped it: `pause` has it, the engine waits.
            Exit::Sleep(SampleTime::MAX) | Exit::Break => {}
            Exit::Sleep(at) => self.schedule(at, wake),
            Exit::NextTick => {
                if let Some(th) = self.threads.get_mut(index).and_then(Option::as_mut) {
                    th.time = th.time.max(tick_end);
                }
                self.schedule_next_tick(tick_end, wake);
            }
            Exit::Finished | Exit::Fault { .. } => self.ended(index, exit),
        }
    }

    /// A run ended with the end of the thread's code or a fault.
    #[inline(never)]
    fn ended(&mut self, index: usize, exit: Exit) {
        match exit {
            Exit::Finished => {
                self.debug.thread_ended(index);
                if let Some(th) = self.threads.get_mut(index).and_then(Option::as_mut) {
                    th.state = ThreadState::Finished;
                }
                if self.tracing(TraceKind::Track) {
                    self.record_thread(TraceKind::Track, index, TraceEvent::CodeEnded);
                }
                self.finish_if_silent(index);
            }
            Exit::Fault { kind, op } => {
                self.debug.thread_ended(index);
                self.fault(index, &kind, op);
            }
            Exit::Sleep(_) | Exit::NextTick | Exit::Break => {}
        }
    }

    #[inline]
    pub(super) fn put_back(&mut self, index: usize, th: Box<Thread>) {
        // It is compared again.
        self.voices.touch();
        if let Some(slot) = self.threads.get_mut(index) {
            *slot = Some(th);
        }
    }

    /// Simple mode: play the track's sound once.
    pub(super) fn run_simple(&mut self, index: usize, th: &mut Thread) -> Exit {
        let mut host = host::HostCtx::new(self, index);
        let result = vm::Host::note_on(&mut host, th, false);
        host.finish();
        match result {
            Ok(_) => Exit::Finished,
            Err(kind) => Exit::Fault { kind, op: NONE },
        }
    }

    pub(super) fn fault(&mut self, index: usize, kind: &FaultKind, op: u32) {
        let (event, track) = self
            .threads
            .get(index)
            .and_then(Option::as_ref)
            .map(|t| (t.event.clone(), t.track_name.clone()))
            .unwrap_or_else(|| (Arc::from("?"), Arc::from("?")));
        let place = if op == NONE { None } else { self.where_is(op) };
        let what = TraceEvent::Fault {
            event,
            track,
            place,
            kind: kind.clone(),
        };
        self.record_thread(TraceKind::Error, index, what);
        let chain = self
            .threads
            .get(index)
            .and_then(Option::as_ref)
            .and_then(|t| t.chain)
            .filter(|c| c.tick == self.clock.tick());
        self.kill(index, EndReason::Fault);
        if let (FaultKind::ChainOutOfFuel { .. }, Some(chain)) = (kind, chain) {
            let members = self.threads_where(index, |t| t.chain == Some(chain));
            for member in members {
                self.kill(member, EndReason::ChainStopped);
            }
        }
    }

    /// Charges a `play_trk` start to the running thread's chain (creating the chain on
    /// its first start), or fails when the chain has used up its fuel for the tick.
    pub(super) fn charge_start(&mut self) -> Result<(), FaultKind> {
        let Some(mut running) = self.running else {
            return Ok(());
        };
        let index = match running.chain {
            Some(index) => index,
            None => {
                let index = u32::try_from(self.chains.len()).unwrap_or(u32::MAX);
                self.chains.push(ChainFuel::default());
                running.chain = Some(index);
                self.running = Some(running);
                index
            }
        };
        let budget = self.config.chain_fuel_per_tick;
        let Some(chain) = self.chains.get_mut(index as usize) else {
            return Ok(());
        };
        if chain.used.saturating_add(START_FUEL) > budget {
            return Err(FaultKind::ChainOutOfFuel {
                used: chain.used,
                starts: chain.starts,
            });
        }
        chain.used += START_FUEL;
        chain.starts += 1;
        Ok(())
    }
}

/// What one run of a thread may use (see [`Engine::budget`]).
struct Budget {
    /// The thread's own fuel left this tick.
    own_left: u32,
    /// Its chain this tick, if any.
    chain: Option<u32>,
    /// The chain's fuel left (`u32::MAX` without a chain).
    chain_left: u32,
    /// The least of the three budgets: what the VM may run.
    instructions: u32,
}

/// A value aligned to a cache line: held in a frame, it aligns the frame to one.
#[derive(Default)]
#[repr(align(64))]
struct LineAligned(u8);
