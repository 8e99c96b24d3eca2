//! How tracks end: quieting by object or all at once, stopping and killing by track ID,
//! notes ending, finished threads disposed of once silent, and the voice a disposed
//! thread frees handed to one waiting on it.

use super::*;

impl Engine {
    /// Quiets everything `object` is playing (QuietBySourceID): it stops owning each
    /// track; a track started by objects ends when its last owner goes. Returns the
    /// number of tracks that ended.
    pub fn quiet(&mut self, object: ObjectId) -> usize {
        ended(&self.quiet_report(object))
    }

    /// [`quiet`](Self::quiet), returning what happened to each track: ended (it was the
    /// last owner) or playing on for the owners left.
    pub fn quiet_report(&mut self, object: ObjectId) -> Vec<Quieted> {
        let owned: Vec<(usize, u32)> = self
            .threads
            .iter()
            .enumerate()
            .filter_map(|(i, t)| {
                t.as_ref()
                    .filter(|t| t.owners.contains(&object))
                    .map(|t| (i, t.track))
            })
            .collect();
        owned
            .into_iter()
            .flat_map(|(_, track)| self.quiet_track_report(object, track))
            .collect()
    }

    /// `object` stops saying `track`; returns the number of tracks that ended.
    pub fn quiet_track(&mut self, object: ObjectId, track: u32) -> usize {
        ended(&self.quiet_track_report(object, track))
    }

    /// `object` stops saying `track`; returns what happened to each copy it said.
    fn quiet_track_report(&mut self, object: ObjectId, track: u32) -> Vec<Quieted> {
        let threads: Vec<usize> = self.voices.instances(track).to_vec();
        let mut report = Vec::new();
        for index in threads {
            let Some(th) = self.threads.get_mut(index).and_then(Option::as_mut) else {
                continue;
            };
            if !th.owners.remove(&object) {
                continue;
            }
            let left: Vec<ObjectId> = th.owners.iter().copied().collect();
            let track = th.track_name.clone();
            if left.is_empty() && th.by_object {
                let what = TraceEvent::QuietedLastOwner {
                    object,
                    track: track.clone(),
                };
                self.record_thread(TraceKind::Voice, index, what);
                self.kill(index, EndReason::LastOwnerQuieted);
                report.push(Quieted {
                    track,
                    ended: true,
                    left: Vec::new(),
                });
            } else {
                let what = TraceEvent::QuietedOwner {
                    object,
                    track: track.clone(),
                    left: left.clone(),
                };
                self.record_thread(TraceKind::Voice, index, what);
                // The sound follows the owners that remain.
                self.follow_owners(index);
                report.push(Quieted {
                    track,
                    ended: false,
                    left,
                });
            }
        }
        report
    }

    /// Quiets everything (QuietAll): every track ends, every world player (stations,
    /// music, ambience) loses its voice and every sample `play` started stops; returns
    /// how many tracks ended.
    pub fn quiet_all(&mut self) -> usize {
        let all: Vec<usize> = (0..self.threads.len())
            .filter(|i| self.threads.get(*i).is_some_and(Option::is_some))
            .collect();
        if !all.is_empty() {
            let what = TraceEvent::QuietAll { count: all.len() };
            self.record(TraceKind::Voice, what);
        }
        for index in &all {
            self.kill(*index, EndReason::QuietAll);
        }
        // The samples `play` started are quieted too: everything means everything.
        self.stop_audition_samples();
        self.unseat_all_world();
        all.len()
    }

    /// Stops (`kill` false: lets the current notes end) or kills every copy of a track.
    pub fn stop_track_id(&mut self, track: u32, kill: bool) -> usize {
        let threads: Vec<usize> = self.voices.instances(track).to_vec();
        for index in &threads {
            if kill {
                self.kill(*index, EndReason::KilledByEvent);
            } else {
                self.stop_gracefully(*index);
            }
        }
        threads.len()
    }

    pub(super) fn note_ended(&mut self, index: usize, generation: u32, note: usize) {
        if !self.current(index, generation) {
            return;
        }
        let Some(th) = self.threads.get_mut(index).and_then(Option::as_mut) else {
            return;
        };
        th.end_note(note);
        let playing = th.attrs.isplaying;
        let any_live = th.has_live_notes();
        th.set_reg(playing, i32::from(any_live));
        self.sync_priority(index);
        self.finish_if_silent(index);
    }

    /// Disposes of a finished thread once its last note has ended.
    pub(super) fn finish_if_silent(&mut self, index: usize) {
        let done = self
            .threads
            .get(index)
            .and_then(Option::as_ref)
            .is_some_and(|t| t.state == ThreadState::Finished && !t.has_live_notes());
        if done {
            self.dispose(index, EndReason::Ended);
        }
    }

    /// Stops a thread's code; its looping notes stop now, the others play out.
    pub(super) fn stop_gracefully(&mut self, index: usize) {
        let now = self.clock.now();
        let Some(th) = self.threads.get_mut(index).and_then(Option::as_mut) else {
            return;
        };
        th.state = ThreadState::Finished;
        let stops = th.end_notes(|n| n.end.is_none());
        for note in stops {
            self.sink.send(SoundCommand::Stop { note, at: now });
        }
        self.record_thread(TraceKind::Track, index, TraceEvent::StoppedPlayingOut);
        self.finish_if_silent(index);
    }

    /// Lets an interrupted `nc_` thread's looping notes end with their current cycle.
    pub(super) fn finish_loops_at_cycle_end(&mut self, index: usize, now: SampleTime) {
        let Some(th) = self.threads.get_mut(index).and_then(Option::as_mut) else {
            return;
        };
        th.state = ThreadState::Finished;
        let generation = th.generation;
        let mut ends = Vec::new();
        for (i, note) in th.notes.iter().enumerate() {
            if note.live && note.end.is_none() {
                ends.push((th.notes_from + i, note.id));
            }
        }
        for (i, id) in ends {
            // Without a known cycle length the loop stops at the next tick.
            let at = now + (self.clock.tick_end() - now).max(1);
            self.sink.send(SoundCommand::Stop { note: id, at });
            self.schedule(
                at,
                Wake::NoteEnd {
                    thread: index,
                    generation,
                    note: i,
                },
            );
        }
        self.finish_if_silent(index);
    }

    /// Stops a thread now: its notes stop (short fade) and its voice is freed.
    pub(super) fn kill(&mut self, index: usize, why: EndReason) {
        let now = self.clock.now();
        let Some(th) = self.threads.get_mut(index).and_then(Option::as_mut) else {
            return;
        };
        // A running thread stops at its own time; a sleeping one (whose time is its
        // future wake) stops now.
        let at = if th.time <= self.clock.tick_end() {
            th.time.max(now)
        } else {
            now
        };
        let stops = th.end_notes(|_| true);
        for note in stops {
            self.sink.send(SoundCommand::Stop { note, at });
        }
        self.dispose(index, why);
    }

    /// Removes a thread: frees its voice (or hands it to a thread waiting on it) and its
    /// instance-map entry.
    pub(super) fn dispose(&mut self, index: usize, why: EndReason) {
        if self.tracing(TraceKind::Track) {
            self.record_thread(TraceKind::Track, index, TraceEvent::Ended(why));
        }
        let Some(th) = self.threads.get_mut(index).and_then(Option::take) else {
            return;
        };
        if let Some(generation) = self.generations.get_mut(index) {
            *generation = generation.wrapping_add(1);
        }
        self.free.push(index);
        self.voices.remove_instance(th.track, index);
        self.voices.release(th.voice, index);
        // A thread waiting for this one (interrupt handoff) takes its voice and starts.
        let now = self.clock.now();
        let waiting: Vec<usize> = self
            .threads
            .iter()
            .enumerate()
            .filter_map(|(i, t)| {
                t.as_ref()
                    .filter(|t| t.state == ThreadState::Blocked(index))
                    .map(|_| i)
            })
            .collect();
        for waiter in waiting {
            let generation = match self.threads.get_mut(waiter).and_then(Option::as_mut) {
                Some(w) => {
                    w.state = ThreadState::Running;
                    w.time = w.time.max(now);
                    w.generation
                }
                None => continue,
            };
            self.seat(th.voice, waiter);
            self.schedule(
                now,
                Wake::Run {
                    thread: waiter,
                    generation,
                },
            );
        }
        if th.ducking {
            self.update_ducking();
        }
    }

    /// Threads other than `except` matching a predicate.
    pub(super) fn threads_where(
        &self,
        except: usize,
        keep: impl Fn(&Thread) -> bool,
    ) -> Vec<usize> {
        self.threads
            .iter()
            .enumerate()
            .filter_map(|(i, t)| t.as_ref().filter(|t| i != except && keep(t)).map(|_| i))
            .collect()
    }
}

/// What quieting an object did to one copy of a track it said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quieted {
    /// The track.
    pub track: Arc<str>,
    /// True if it ended (the object was its last owner).
    pub ended: bool,
    /// The owners it plays on for, when it did not end.
    pub left: Vec<ObjectId>,
}

/// How many of `report`'s tracks ended.
fn ended(report: &[Quieted]) -> usize {
    report.iter().filter(|q| q.ended).count()
}
