//! Dispatch: an event by name becomes a track start (with the one-copy rule, owners
//! joining, interrupt handoff and Box-X), a stop, a quiet, a trace switch or a request
//! for the world.

use super::*;

impl Engine {
    /// Triggers an event by name (case-insensitive): a UI sound when `source` is `None`
    /// (PlayUISnd), an object sound otherwise (PlayObjectSnd).
    pub fn trigger(
        &mut self,
        name: &str,
        source: Option<ObjectId>,
        args: EventArgs,
    ) -> Result<Outcome, TriggerError> {
        let Some(held) = self.events.get(&self.project, name) else {
            let name: Arc<str> = Arc::from(name);
            let what = TraceEvent::UnknownEvent {
                name: Arc::clone(&name),
            };
            let mut record = TraceRecord::new(self.clock.now(), TraceKind::Error, what);
            record.event = Some(Arc::clone(&name));
            record.object = source;
            self.trace.push(record);
            return Err(TriggerError::UnknownEvent(name.to_string()));
        };
        let event = &*held;
        if self.tracing(TraceKind::Event) {
            let what = TraceEvent::Dispatched {
                event: event.name.clone(),
                type_number: event.type_number,
                track_id: event.track_id,
                source,
            };
            self.record_event(TraceKind::Event, event, None, source, None, what);
        }
        match event.event_type {
            EventType::Play => self.play(event, source, args, false, None),
            EventType::PlayPiano => self.play(event, source, args, true, None),
            EventType::Stop => Ok(Outcome::Stopped(self.stop_track_id(event.track_id, false))),
            EventType::Kill => Ok(Outcome::Stopped(self.stop_track_id(event.track_id, true))),
            EventType::KillAll => Ok(Outcome::Stopped(self.quiet_all())),
            EventType::KillInstance => Ok(Outcome::Stopped(match source {
                Some(object) => self.quiet_track(object, event.track_id),
                None => self.stop_track_id(event.track_id, true),
            })),
            EventType::UpdateVolPan => Ok(Outcome::Updated(match source {
                Some(object) => self.update_source(object, args.volume, args.pan, args.view),
                None => 0,
            })),
            EventType::TurnOnTv | EventType::TurnOffTv | EventType::SetMusicMode => {
                let hook = match event.event_type {
                    EventType::TurnOnTv => HookEvent::TurnOn {
                        event: event.name.to_string(),
                        station: event.track_id,
                        object: source,
                    },
                    EventType::TurnOffTv => HookEvent::TurnOff {
                        event: event.name.to_string(),
                        station: event.track_id,
                        object: source,
                    },
                    _ => HookEvent::MusicMode {
                        event: event.name.to_string(),
                        mode: event.track_id,
                    },
                };
                let what = TraceEvent::HandedToWorld(hook.clone());
                self.record_event(TraceKind::Hook, event, None, source, None, what);
                self.hooks.push(hook);
                Ok(Outcome::Hook)
            }
            EventType::Debug { trace, on } => {
                match trace {
                    DebugTrace::Events => self.trace.switches.events = on,
                    DebugTrace::Samples => self.trace.switches.samples = on,
                    DebugTrace::Tracks => self.trace.switches.tracks = on,
                }
                let what = TraceEvent::TraceSwitched { trace, on };
                self.record_event(TraceKind::Hook, event, None, source, None, what);
                Ok(Outcome::TraceSwitched)
            }
            EventType::Other(n) => {
                let what = TraceEvent::Unhandled { type_number: n };
                self.record_event(TraceKind::Hook, event, None, source, None, what);
                Ok(Outcome::Ignored)
            }
        }
    }

    /// Starts the track with this ID directly (as `play_trk` does).
    pub fn play_track(
        &mut self,
        track_id: u32,
        source: Option<ObjectId>,
        args: EventArgs,
    ) -> Result<Outcome, TriggerError> {
        let event = EventDef {
            name: format!("play_trk {track_id}").into(),
            type_number: 1,
            event_type: EventType::Play,
            track_id,
            implicit: true,
            origin: crate::toolchain::project::Origin::default(),
        };
        self.play(&event, source, args, false, None)
    }

    /// `play_trk` from the running thread `caller` (out of the thread table while it
    /// runs): its own track is already playing — it is the running copy — unless the
    /// track allows several copies.
    pub(super) fn play_track_from(
        &mut self,
        track_id: u32,
        caller: &Thread,
        args: EventArgs,
    ) -> Result<Outcome, TriggerError> {
        let event = EventDef {
            name: format!("play_trk {track_id}").into(),
            type_number: 1,
            event_type: EventType::Play,
            track_id,
            implicit: true,
            origin: crate::toolchain::project::Origin::default(),
        };
        self.play(&event, caller.source, args, false, Some(caller))
    }

    pub(super) fn play(
        &mut self,
        event: &EventDef,
        source: Option<ObjectId>,
        args: EventArgs,
        piano: bool,
        caller: Option<&Thread>,
    ) -> Result<Outcome, TriggerError> {
        let project = Arc::clone(&self.project);
        let Some(track) = project.track(event.track_id) else {
            let what = TraceEvent::NoTrack {
                event: event.name.clone(),
                track_id: event.track_id,
            };
            self.record_event(TraceKind::Error, event, None, source, None, what);
            return Err(TriggerError::NoTrack {
                event: event.name.to_string(),
                track: event.track_id,
            });
        };
        if let Some(outcome) = self.plays_itself(event, track, source, caller) {
            return Ok(outcome);
        }
        let handoff_from = match self.one_copy(event, track, source) {
            Copy::None => None,
            Copy::Handoff(old) => Some(old),
            Copy::Playing(outcome) => return Ok(outcome),
        };
        let entry = self.entry_of(event, track, source)?;
        let start = Start {
            event,
            track,
            entry,
            source,
            args,
            piano,
        };
        if let Some(old) = handoff_from {
            return Ok(self.interrupt(old, &start));
        }
        let Some(voice) = self.allocate_voice(&start) else {
            return Ok(Outcome::Refused);
        };
        let index = self.spawn(&start, voice);
        let in_use = self.voices.in_use();
        let what = TraceEvent::Started {
            track: track.name.clone(),
            voice,
            priority: track.priority,
            in_use,
            capacity: self.voices.capacity(),
        };
        self.record_event(
            TraceKind::Voice,
            event,
            Some(track),
            source,
            Some(voice),
            what,
        );
        self.record_thread(TraceKind::Track, index, TraceEvent::TrackStarted);
        Ok(Outcome::Started { voice })
    }

    /// A track starting its own track (`play_trk` of itself): the running copy is the
    /// one copy, unless the track allows several.
    fn plays_itself(
        &mut self,
        event: &EventDef,
        track: &TrackDef,
        source: Option<ObjectId>,
        caller: Option<&Thread>,
    ) -> Option<Outcome> {
        let caller = caller.filter(|c| c.track == track.id && !c.allows_multiple())?;
        let voice = caller.voice;
        let what = TraceEvent::PlaysItself {
            track: track.name.clone(),
            voice,
        };
        self.record_event(
            TraceKind::Voice,
            event,
            Some(track),
            source,
            Some(voice),
            what,
        );
        Some(Outcome::AlreadyPlaying { voice })
    }

    /// One copy of a track at a time (unless it allows more): a playing copy is joined by
    /// the new source as an owner, or handed over when it is interruptible.
    fn one_copy(&mut self, event: &EventDef, track: &TrackDef, source: Option<ObjectId>) -> Copy {
        let Some(&existing) = self.voices.instances(track.id).first() else {
            return Copy::None;
        };
        let Some(th) = self.threads.get_mut(existing).and_then(Option::as_mut) else {
            return Copy::None;
        };
        if th.interrupted || th.allows_multiple() {
            return Copy::None;
        }
        if th.interruptible() {
            return Copy::Handoff(existing);
        }
        let voice = th.voice;
        let name: Arc<str> = track.name.clone();
        let (what, outcome) = match source {
            Some(object) if th.owners.insert(object) => (
                TraceEvent::Joined {
                    object,
                    track: name,
                    voice,
                    owners: th.owners.iter().copied().collect(),
                },
                Outcome::Joined { voice },
            ),
            Some(object) => (
                TraceEvent::AlreadyOwner {
                    object,
                    track: name,
                    voice,
                },
                Outcome::Joined { voice },
            ),
            None => (
                TraceEvent::AlreadyPlaying { track: name, voice },
                Outcome::AlreadyPlaying { voice },
            ),
        };
        self.record_event(
            TraceKind::Voice,
            event,
            Some(track),
            source,
            Some(voice),
            what,
        );
        // A new owner may be louder than the one the copy followed.
        self.follow_owners(existing);
        Copy::Playing(outcome)
    }

    /// The op a track's code starts at (`None` for a track without code, which plays its
    /// sound once), or an error when its entry address holds no instruction.
    fn entry_of(
        &mut self,
        event: &EventDef,
        track: &TrackDef,
        source: Option<ObjectId>,
    ) -> Result<Option<u32>, TriggerError> {
        let Some(at) = track.entry else {
            return Ok(None);
        };
        if let Some(op) = self.program.op_at(at) {
            return Ok(Some(op));
        }
        let what = TraceEvent::NoCode {
            track: track.name.clone(),
            address: at.address,
        };
        self.record_event(TraceKind::Error, event, Some(track), source, None, what);
        Err(TriggerError::NoCode(track.name.to_string()))
    }

    /// Interrupt handoff (hit-reference §3.4): the old thread is flagged interrupted, its
    /// notes stop (those of `nc_` events finish their current loop), and the new thread
    /// starts in its voice once it is gone.
    pub(super) fn interrupt(&mut self, old: usize, start: &Start<'_>) -> Outcome {
        let (event, track, source) = (start.event, start.track, start.source);
        let now = self.clock.now();
        let (voice, old_event) = match self.threads.get_mut(old).and_then(Option::as_mut) {
            Some(th) => {
                th.interrupted = true;
                (th.voice, th.event.clone())
            }
            None => (0, Arc::from("")),
        };
        let nightclub = old_event.to_ascii_lowercase().starts_with("nc_");
        let what = TraceEvent::Interrupted {
            track: track.name.clone(),
            voice,
            finish_loops: nightclub,
        };
        self.record_event(
            TraceKind::Voice,
            event,
            Some(track),
            source,
            Some(voice),
            what,
        );
        let index = self.spawn(start, voice);
        if nightclub {
            if let Some(th) = self.threads.get_mut(index).and_then(Option::as_mut) {
                th.state = ThreadState::Blocked(old);
            }
            self.finish_loops_at_cycle_end(old, now);
        } else {
            self.kill(old, EndReason::Interrupted);
            self.seat(voice, index);
        }
        Outcome::Interrupting { voice }
    }

    /// A new thread's registers: the trigger's arguments as its track's kArgs type says,
    /// and the track attributes from its definition.
    fn initial_registers(
        &self,
        start: &Start<'_>,
        layout: crate::toolchain::registers::Layout,
        attrs: AttrRegs,
    ) -> [i32; 256] {
        let Start {
            track,
            entry,
            source,
            args,
            piano,
            ..
        } = *start;
        let mut regs = [0i32; 256];
        let object = source.unwrap_or(0);
        match track.args_type {
            1 => {
                regs[1] = args.volume;
                regs[2] = args.pan;
            }
            2 => {
                regs[1] = object;
                regs[2] = args.volume;
                regs[3] = args.pan;
            }
            3 => regs[1..4].copy_from_slice(&args.position),
            _ => regs[1..5].copy_from_slice(&args.normal),
        }
        let patch_value = track.patch.or(track.hit_list).unwrap_or(0);
        let looped = piano
            || track
                .patch
                .and_then(|p| self.project.patches.get(&p))
                .is_some_and(|p| p.looped && entry.is_none());
        let mut set = |var: u8, value: i32| {
            if var != 0xFF {
                regs[usize::from(var)] = value;
            }
        };
        set(attrs.patch, patch_value as i32);
        set(attrs.priority, track.priority);
        set(attrs.vol, track.volume);
        set(attrs.extvol, args.volume);
        set(attrs.pan, args.pan);
        set(attrs.duckpri, track.duck_priority);
        set(attrs.group, track.control_group.number());
        set(attrs.looped, i32::from(looped));
        set(attrs.source, object);
        if layout == crate::toolchain::registers::Layout::Tso {
            set(0x10, track.args_type);
            set(0x3F, track.hit_list.map_or(0, |h| h as i32));
            set(0x38, track.spl);
        }
        regs
    }

    /// Starts `start` as a new thread on `voice`; returns its slot.
    pub(super) fn spawn(&mut self, start: &Start<'_>, voice: usize) -> usize {
        let Start {
            event,
            track,
            entry,
            source,
            ..
        } = *start;
        let now = self.clock.now();
        let unit = entry
            .and_then(|e| self.program.ops.get(e as usize))
            .map_or(0, |op| op.unit);
        let layout = self.program.layout(unit);
        let attrs = AttrRegs::of(layout);
        let regs = self.initial_registers(start, layout, attrs);
        self.seq += 1;
        let entry_op = entry.unwrap_or(NONE);
        let thread = Thread {
            generation: 0,
            track: track.id,
            track_name: track.name.clone(),
            event: event.name.clone(),
            source,
            owners: source.into_iter().collect::<BTreeSet<_>>(),
            by_object: source.is_some(),
            voice,
            attrs,
            pc: entry_op,
            entry: entry_op,
            loop_point: entry_op,
            calls: Vec::new(),
            stack: Vec::new(),
            regs,
            flag: 1,
            time: now,
            state: ThreadState::Running,
            notes: Vec::new(),
            notes_from: 0,
            live_notes: 0,
            list: None,
            own_list: track.hit_list,
            own_patch: track.patch,
            simple: entry.is_none(),
            ducking: false,
            duck_gain: 1.0,
            groups: BTreeSet::new(),
            group: track.control_group,
            given: GivenLevels {
                volume: start.args.volume,
                pan: start.args.pan,
                view: start.args.view,
            },
            fuel_tick: u64::MAX,
            fuel_used: 0,
            host_fuel: 0,
            interrupted: false,
            started_seq: self.seq,
            started_at: now,
            // Started by a running thread (play_trk): it joins that thread's chain.
            chain: self.running.and_then(|r| r.chain).map(|index| ChainRef {
                tick: self.clock.tick(),
                index,
            }),
        };
        let index = match self.free.pop() {
            Some(i) => i,
            None => {
                self.threads.push(None);
                self.generations.push(0);
                self.threads.len() - 1
            }
        };
        let generation = self.generations.get(index).copied().unwrap_or(0);
        let mut thread = thread;
        thread.generation = generation;
        if let Some(slot) = self.threads.get_mut(index) {
            *slot = Some(Box::new(thread));
        }
        self.seat(voice, index);
        self.voices.add_instance(track.id, index);
        self.schedule(
            now,
            Wake::Run {
                thread: index,
                generation,
            },
        );
        if self.duckers > 0 {
            self.update_ducking();
        }
        index
    }

    pub(super) fn schedule(&mut self, at: SampleTime, wake: Wake) {
        self.queue.push(at, wake, &self.clock);
    }

    /// Schedules `wake` at `tick_end`, the start of the next tick (`Clock::tick_end`).
    pub(super) fn schedule_next_tick(&mut self, tick_end: SampleTime, wake: Wake) {
        let next = self.clock.tick() + 1;
        debug_assert_eq!(self.clock.tick_of(tick_end), next);
        self.queue.push_in_tick(tick_end, next, wake);
    }
}

/// A track about to start: the event that asked for it, the track, where its code
/// starts, and the source and arguments of the trigger.
#[derive(Clone, Copy)]
pub(super) struct Start<'a> {
    /// The event (or `play_trk N`).
    pub(super) event: &'a EventDef,
    /// The track.
    pub(super) track: &'a TrackDef,
    /// The op its code starts at (`None`: play its sound once).
    pub(super) entry: Option<u32>,
    /// The object saying it (`None` for a UI sound).
    pub(super) source: Option<ObjectId>,
    /// The trigger's arguments.
    pub(super) args: EventArgs,
    /// A piano event: the track loops.
    pub(super) piano: bool,
}

/// What the one-copy rule says about a new trigger of a track.
enum Copy {
    /// No copy plays (or it may play several): start one.
    None,
    /// The playing copy is interruptible: the new one takes over from this thread.
    Handoff(usize),
    /// The track plays already: the trigger joined it, or found it playing.
    Playing(Outcome),
}
