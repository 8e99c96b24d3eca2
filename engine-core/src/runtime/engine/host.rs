//! What instructions do outside their thread: start and stop notes, pick from hit
//! lists, read and write object fields, start and stop other tracks, duck, print. The
//! running thread is taken out of the engine while it runs, so the host may change
//! every other thread freely.

use super::levels::{note_gain_parts, note_pan_parts};
use super::{Engine, EventArgs, note_gain, note_pan};
use crate::runtime::picks;
use crate::runtime::program::Op;
use crate::runtime::sink::{ControlGroup, SampleRef, SoundCommand};
use crate::runtime::thread::{ListRef, Thread};
use crate::runtime::trace::{EndReason, TraceEvent, TraceKind};
use crate::runtime::vm::{FaultKind, Host, LIST_ENTRIES_PER_FUEL, MAX_LOCAL_LIST_IDS};
use std::sync::Arc;

/// Deepest nesting of hit lists inside hit lists followed when choosing a sample.
pub const MAX_LIST_DEPTH: usize = 8;

/// What the run left for the engine to do once the thread is back.
#[derive(Debug, Clone, Copy, Default)]
pub struct AfterRun {
    /// The thread killed its own track.
    pub kill_self: bool,
    /// The thread stopped its own track.
    pub stop_self: bool,
    /// Ducking changed.
    pub ducking_changed: bool,
}

/// The engine seen from a running thread.
pub struct HostCtx<'e> {
    engine: &'e mut Engine,
    index: usize,
    after: AfterRun,
}

impl<'e> HostCtx<'e> {
    /// A host for the thread at `index` (taken out of the engine while it runs).
    pub fn new(engine: &'e mut Engine, index: usize) -> Self {
        Self {
            engine,
            index,
            after: AfterRun::default(),
        }
    }

    /// What to do now that the run is over.
    pub fn finish(self) -> AfterRun {
        self.after
    }

    /// The patch a patch-register value means: a patch, or a pick from a hit list (and
    /// from lists inside it).
    fn sound_for(&mut self, th: &Thread, value: i32) -> Result<u32, FaultKind> {
        let project = Arc::clone(&self.engine.project);
        let mut id = u32::try_from(value).map_err(|_| FaultKind::MissingPatch(i64::from(value)))?;
        let mut visited = [0u32; MAX_LIST_DEPTH];
        for depth in 0..MAX_LIST_DEPTH {
            if project.patches.contains_key(&id) {
                return Ok(id);
            }
            if let Some(seen) = visited.get_mut(depth) {
                *seen = id;
            }
            let Some(list) = project.hit_lists.get(&id) else {
                return Err(FaultKind::MissingPatch(i64::from(id)));
            };
            let pick = self
                .engine
                .hitlists
                .pick(id, &list.entries, &mut self.engine.rng)
                .ok_or(FaultKind::MissingHitList(i64::from(id)))?;
            self.trace_pick(th, id, &pick);
            id = pick.value;
        }
        // Still a list this deep: round a cycle (a list that contains itself), or nested
        // too deep.
        let repeated = visited
            .iter()
            .enumerate()
            .find(|(i, v)| visited.get(..*i).is_some_and(|before| before.contains(v)));
        Err(match repeated {
            Some((_, list)) => FaultKind::HitListCycle(*list),
            None if project.hit_lists.contains_key(&id) => FaultKind::HitListsTooDeep(id),
            None => FaultKind::MissingPatch(i64::from(id)),
        })
    }

    fn trace_pick(&mut self, th: &Thread, list: u32, pick: &picks::Pick) {
        if !self.engine.tracing(TraceKind::Pick) {
            return;
        }
        let what = TraceEvent::Pick {
            list,
            index: pick.index,
            value: pick.value,
            excluded: pick.excluded.to_vec(),
        };
        self.engine.record_for(TraceKind::Pick, th, None, what);
    }

    fn sample_error(
        &mut self,
        th: &Thread,
        patch: (u32, &str),
        reason: String,
    ) -> Result<i32, FaultKind> {
        let what = TraceEvent::SampleMissing {
            patch: patch.0,
            patch_name: Arc::from(patch.1),
            reason,
        };
        self.engine.record_for(TraceKind::Error, th, None, what);
        Ok(-1)
    }
}

impl Host for HostCtx<'_> {
    fn note_on(&mut self, th: &mut Thread, looping: bool) -> Result<i32, FaultKind> {
        let value = th.reg(th.attrs.patch);
        let patch_id = self.sound_for(th, value)?;
        let project = Arc::clone(&self.engine.project);
        let Some(patch) = project.patches.get(&patch_id) else {
            return Err(FaultKind::MissingPatch(i64::from(patch_id)));
        };
        let (Some(name), Some(path)) = (&patch.resource, &patch.file) else {
            let reason = format!("sample file `{}` was not found", patch.path_text);
            return self.sample_error(th, (patch_id, &patch.name), reason);
        };
        let sample = SampleRef {
            patch: patch_id,
            name: Arc::clone(name),
            path: Arc::clone(path),
            linked: false,
        };
        let info = match self.engine.samples.info(&sample) {
            Ok(info) => info,
            Err(why) => {
                return self.sample_error(th, (patch_id, &patch.name), why.to_string());
            }
        };
        let looping = looping || patch.looped;
        let cents = th.reg(th.attrs.pitch);
        let pitch = 2f32.powf(cents.clamp(-4800, 4800) as f32 / 1200.0);
        let length = (info.length_at(self.engine.clock.sample_rate()) as f64 / f64::from(pitch))
            .round() as u64;
        let at = th.time;
        let end = (!looping).then(|| at.saturating_add(length.max(1)));
        let note = self.engine.next_note;
        self.engine.next_note += 1;
        th.group = ControlGroup::from_number(i64::from(th.reg(th.attrs.group)));
        let command = SoundCommand::Start {
            note,
            voice: th.voice,
            at,
            sample: sample.clone(),
            gain: note_gain(th),
            pan: note_pan(th),
            pitch,
            looping,
            group: th.group,
            reverb: false,
            priority: th.priority(),
        };
        self.engine.sink.send(command);
        if self.engine.tracing(TraceKind::Sample) {
            let what = TraceEvent::NoteStarted {
                note,
                patch: patch_id,
                patch_name: Arc::clone(&patch.name),
                sample: Arc::clone(&sample.name),
                gain: Box::new(note_gain_parts(th, &self.engine.buses)),
                pan: Box::new(note_pan_parts(th)),
                looping,
                cents,
            };
            self.engine
                .record_for(TraceKind::Sample, th, Some(note), what);
        }
        let handle = self.engine.add_note(self.index, th, note, end);
        Ok(i32::try_from(handle).unwrap_or(i32::MAX))
    }

    fn note_off(&mut self, th: &mut Thread, handle: i32) {
        let Some(id) = usize::try_from(handle).ok().and_then(|h| th.end_note(h)) else {
            return;
        };
        let at = th.time;
        self.engine.sink.send(SoundCommand::Stop { note: id, at });
        let playing = th.attrs.isplaying;
        let any = th.has_live_notes();
        th.set_reg(playing, i32::from(any));
    }

    fn set_list(&mut self, th: &mut Thread, id: i32) -> Result<(), FaultKind> {
        let id = if id == 0 {
            th.own_list.ok_or(FaultKind::NoOwnHitList)?
        } else {
            u32::try_from(id).map_err(|_| FaultKind::MissingHitList(i64::from(id)))?
        };
        if !self.engine.project.hit_lists.contains_key(&id) {
            return Err(FaultKind::MissingHitList(i64::from(id)));
        }
        th.list = Some(ListRef::Global(id));
        Ok(())
    }

    fn choose(&mut self, th: &mut Thread) -> Result<i32, FaultKind> {
        let Some(list) = th.list.take() else {
            return Ok(0);
        };
        let pick = match list {
            ListRef::Global(id) => {
                th.list = Some(ListRef::Global(id));
                let project = Arc::clone(&self.engine.project);
                let entries = project
                    .hit_lists
                    .get(&id)
                    .map(|l| l.entries.as_slice())
                    .ok_or(FaultKind::MissingHitList(i64::from(id)))?;
                charge(th, entries.len());
                let pick = self.engine.hitlists.pick(id, entries, &mut self.engine.rng);
                if let Some(p) = &pick {
                    self.trace_pick(th, id, p);
                }
                pick
            }
            ListRef::Local {
                from,
                entries,
                last,
            } => {
                charge(th, entries.len());
                let pick = picks::pick(&entries, last, &mut self.engine.rng);
                if let Some(p) = &pick {
                    self.trace_pick(th, from, p);
                }
                th.list = Some(ListRef::Local {
                    from,
                    entries,
                    last: pick.as_ref().map(|p| p.value).or(last),
                });
                pick
            }
        };
        Ok(pick.map_or(0, |p| p.value as i32))
    }

    fn list_index(&mut self, th: &mut Thread, index: i32) -> Result<i32, FaultKind> {
        let entries = match &th.list {
            None => return Ok(0),
            Some(ListRef::Global(id)) => self
                .engine
                .project
                .hit_lists
                .get(id)
                .map_or(&[][..], |l| l.entries.as_slice()),
            Some(ListRef::Local { entries, .. }) => entries.as_slice(),
        };
        Ok(usize::try_from(index)
            .ok()
            .and_then(|i| entries.get(i))
            .map_or(0, |v| *v as i32))
    }

    fn list_add(&mut self, th: &mut Thread, id: i32) -> Result<(), FaultKind> {
        let Ok(id) = u32::try_from(id) else {
            return Ok(());
        };
        let mut local = local_copy(self.engine, th);
        let result = match &mut local {
            ListRef::Local { entries, .. } if entries.len() >= MAX_LOCAL_LIST_IDS => {
                Err(FaultKind::LocalListTooLong)
            }
            ListRef::Local { entries, .. } => {
                entries.push(id);
                Ok(())
            }
            ListRef::Global(_) => Ok(()),
        };
        th.list = Some(local);
        result
    }

    fn list_remove(&mut self, th: &mut Thread, id: i32) {
        let Ok(id) = u32::try_from(id) else { return };
        let mut local = local_copy(self.engine, th);
        if let ListRef::Local { entries, .. } = &mut local {
            charge(th, entries.len());
            entries.retain(|e| *e != id);
        }
        th.list = Some(local);
    }

    fn list_clear(&mut self, th: &mut Thread) {
        let mut local = local_copy(self.engine, th);
        if let ListRef::Local { entries, last, .. } = &mut local {
            entries.clear();
            *last = None;
        }
        th.list = Some(local);
    }

    fn field(&mut self, _th: &Thread, object: i32, field: i32) -> i32 {
        self.engine.world.field(object, field).unwrap_or(0)
    }

    fn set_field(&mut self, th: &Thread, object: i32, field: i32, value: i32) {
        if !self.engine.world.set_field(object, field, value) {
            let what = TraceEvent::NoSuchField { object, field };
            self.engine.record_for(TraceKind::Error, th, None, what);
        }
    }

    fn play_track(&mut self, th: &Thread, track: i32) -> Result<(), FaultKind> {
        self.engine.charge_start()?;
        let Ok(id) = u32::try_from(track) else {
            return Ok(());
        };
        // The started track inherits the view's reasons while both registers still hold
        // what the view gave this one.
        let (volume, pan) = (th.reg(th.attrs.extvol), th.reg(th.attrs.pan));
        let unchanged = volume == th.given.volume && pan == th.given.pan;
        let args = EventArgs {
            volume,
            pan,
            view: th.given.view.filter(|_| unchanged),
            ..EventArgs::default()
        };
        if let Err(e) = self.engine.play_track_from(id, th, args) {
            let what = TraceEvent::PlayTrackFailed {
                reason: e.to_string(),
            };
            self.engine.record_for(TraceKind::Error, th, None, what);
        }
        Ok(())
    }

    fn kill_track(&mut self, th: &Thread, track: i32) {
        let Ok(id) = u32::try_from(track) else { return };
        if id == th.track {
            self.after.kill_self = true;
        }
        self.engine.stop_track_id(id, true);
    }

    fn stop_track(&mut self, th: &Thread, track: i32) {
        let Ok(id) = u32::try_from(track) else { return };
        if id == th.track {
            self.after.stop_self = true;
        }
        self.engine.stop_track_id(id, false);
    }

    fn duck(&mut self, th: &mut Thread, on: bool) {
        if th.ducking != on {
            th.ducking = on;
            self.after.ducking_changed = true;
            let what = TraceEvent::Ducking {
                on,
                duck_priority: th.reg(th.attrs.duckpri),
            };
            self.engine.record_for(TraceKind::Voice, th, None, what);
        }
    }

    fn seqgroup_kill(&mut self, th: &mut Thread, group: u8) {
        let victims = if group == 0 {
            // Instance: this actor's vocals — the source's other VOX tracks and this
            // thread's own notes.
            let source = th.source;
            for note in th.end_notes(|_| true) {
                self.engine
                    .sink
                    .send(SoundCommand::Stop { note, at: th.time });
            }
            self.engine.threads_where(self.index, |t| {
                source.is_some() && t.source == source && t.group == ControlGroup::Vox
            })
        } else {
            self.engine
                .threads_where(self.index, |t| t.groups.contains(&group))
        };
        if !victims.is_empty() {
            let what = TraceEvent::SequenceGroupKill {
                group,
                count: victims.len(),
            };
            self.engine.record_for(TraceKind::Voice, th, None, what);
        }
        for victim in victims {
            self.engine.kill(victim, EndReason::SequenceGroupKill);
        }
    }

    fn seqgroup_busy(&mut self, th: &Thread, group: u8) -> bool {
        let source = th.source;
        let others = if group == 0 {
            self.engine.threads_where(self.index, |t| {
                source.is_some() && t.source == source && t.group == ControlGroup::Vox
            })
        } else {
            self.engine
                .threads_where(self.index, |t| t.groups.contains(&group))
        };
        !others.is_empty()
    }

    fn print(&mut self, th: &Thread, var: u8, value: i32, at: &Op) {
        let name = crate::toolchain::registers::name(self.engine.program.layout(at.unit), var)
            .map_or_else(|| format!("variable {var}"), str::to_string);
        let place = self.engine.where_is(th.pc);
        let what = TraceEvent::Print { name, value, place };
        self.engine.record_for(TraceKind::Print, th, None, what);
    }

    fn random(&mut self, lo: i32, hi: i32) -> i32 {
        self.engine.rng.range_inclusive(lo, hi)
    }

    fn ms_to_samples(&self, ms: i32) -> u64 {
        self.engine.clock.ms_to_samples(i64::from(ms))
    }
}

/// The thread's current list as a local copy it may change.
/// Charges the thread for going through `entries` entries of a hit list (see
/// [`LIST_ENTRIES_PER_FUEL`]).
fn charge(th: &mut Thread, entries: usize) {
    let cost = u32::try_from(entries / LIST_ENTRIES_PER_FUEL).unwrap_or(u32::MAX);
    th.host_fuel = th.host_fuel.saturating_add(cost);
}

/// The thread's own list, taken out of it to be changed and put back (a global list
/// becomes a copy the first time; the copy is not copied again on each change, which
/// made a loop of `smart_add` quadratic).
fn local_copy(engine: &Engine, th: &mut Thread) -> ListRef {
    match th.list.take() {
        Some(local @ ListRef::Local { .. }) => local,
        Some(ListRef::Global(id)) => {
            let entries = engine
                .list_entries(&ListRef::Global(id))
                .unwrap_or_default();
            charge(th, entries.len());
            ListRef::Local {
                from: id,
                entries,
                last: None,
            }
        }
        None => ListRef::Local {
            from: 0,
            entries: Vec::new(),
            last: None,
        },
    }
}
