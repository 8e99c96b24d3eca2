//! Levels: a track's volume and pan as sent to the sound sink, updates from its source
//! object, and ducking.

use super::*;
use crate::runtime::trace::{
    BusVolumes, ExternalVolume, GainParts, GivenLevels, PanParts, PanSource, ViewLevels,
};
use crate::runtime::units::{Gain, Pan};

impl Engine {
    /// The view's reasons for the volume and pan `object`'s tracks were given, changed
    /// while the volume and pan themselves stayed the same (nothing is sent).
    pub fn relabel_source(&mut self, object: ObjectId, view: Option<ViewLevels>) {
        for th in self.threads.iter_mut().flatten() {
            if th.source == Some(object) {
                th.given.view = view;
            }
        }
    }

    /// New volume and pan (0–1024 each) for everything `object` is playing; `view` is
    /// why, when the object's place in the view decided them (`None`: an event's own
    /// arguments).
    ///
    /// A track several objects own (one started it, others joined the playing copy)
    /// takes the volume and pan of its **loudest owner** — the one the view gives the
    /// highest volume; on a tie the one that started it, then the lowest ID — so a
    /// sound shared by a character on screen and one off screen is heard from the one
    /// on screen, and when the owner it followed quits or walks off, it follows the
    /// owners that remain. Returns how many tracks took new levels.
    pub fn update_source(
        &mut self,
        object: ObjectId,
        volume: i32,
        pan: i32,
        view: Option<ViewLevels>,
    ) -> usize {
        self.object_levels
            .insert(object, GivenLevels { volume, pan, view });
        let mut updated = 0;
        for index in 0..self.threads.len() {
            let concerned = self
                .threads
                .get(index)
                .and_then(Option::as_ref)
                .is_some_and(|th| th.source == Some(object) || th.owners.contains(&object));
            if concerned && self.follow_owners(index) {
                updated += 1;
            }
        }
        updated
    }

    /// The levels of thread `index`'s loudest owner whose place is known (see
    /// [`Self::update_source`]), if any.
    fn loudest_owner(&self, index: usize) -> Option<GivenLevels> {
        let th = self.threads.get(index)?.as_ref()?;
        // Its owners; a track no object owns follows the one it was started for.
        let owners: Vec<ObjectId> = if th.owners.is_empty() {
            th.source.into_iter().collect()
        } else {
            th.owners.iter().copied().collect()
        };
        owners
            .into_iter()
            .filter_map(|o| self.object_levels.get(&o).map(|l| (o, *l)))
            .max_by(|(a, la), (b, lb)| {
                la.volume
                    .cmp(&lb.volume)
                    .then((th.source == Some(*a)).cmp(&(th.source == Some(*b))))
                    .then(b.cmp(a))
            })
            .map(|(_, levels)| levels)
    }

    /// Gives thread `index` the levels of its loudest owner, sending them if they
    /// changed. True if they changed.
    pub(super) fn follow_owners(&mut self, index: usize) -> bool {
        let Some(levels) = self.loudest_owner(index) else {
            return false;
        };
        let Some(th) = self.threads.get_mut(index).and_then(Option::as_mut) else {
            return false;
        };
        if th.given == levels {
            return false;
        }
        let (extvol, pan_reg) = (th.attrs.extvol, th.attrs.pan);
        th.set_reg(extvol, levels.volume);
        th.set_reg(pan_reg, levels.pan);
        th.given = levels;
        self.sync_priority(index);
        let now = self.clock.now();
        self.send_levels(index, now);
        true
    }

    /// Recomputes every thread's duck gain: a ducking thread lowers the threads of lower
    /// ducking priority to a fixed level by their own priority.
    pub(super) fn update_ducking(&mut self) {
        let duckers: Vec<(usize, i32)> = self
            .threads
            .iter()
            .enumerate()
            .filter_map(|(i, t)| {
                t.as_ref()
                    .filter(|t| t.ducking)
                    .map(|t| (i, t.reg(t.attrs.duckpri)))
            })
            .collect();
        let was_ducking = self.duckers > 0;
        self.duckers = duckers.len();
        if duckers.is_empty() && !was_ducking {
            return;
        }
        for index in 0..self.threads.len() {
            let Some(th) = self.threads.get_mut(index).and_then(Option::as_mut) else {
                continue;
            };
            let own = th.reg(th.attrs.duckpri);
            let ducked = duckers.iter().any(|(d, pri)| *d != index && *pri > own);
            let gain = if ducked { duck_level(own) } else { 1.0 };
            if (gain - th.duck_gain).abs() > f32::EPSILON {
                th.duck_gain = gain;
                let what = TraceEvent::Ducked {
                    level: Gain::new(gain),
                    duck_priority: own,
                };
                self.record_thread(TraceKind::Voice, index, what);
                let now = self.clock.now();
                self.send_levels(index, now);
            }
        }
    }

    /// Sends the current gain and pan of a thread's live notes.
    ///
    /// `at` is when the change happens: a waiting thread's own time is when it wakes.
    pub(super) fn send_levels(&mut self, index: usize, at: SampleTime) {
        let Some(th) = self.threads.get(index).and_then(Option::as_ref) else {
            return;
        };
        if !th.has_live_notes() {
            return;
        }
        let (gain, pan) = (note_gain(th), note_pan(th));
        let at = at.max(self.clock.now());
        let ramp = u32::try_from(self.clock.ms_to_samples(RAMP_MS)).unwrap_or(u32::MAX);
        let notes: Vec<NoteId> = th.live_notes().map(|n| n.id).collect();
        for note in notes {
            self.sink.send(SoundCommand::SetGain {
                note,
                at,
                gain,
                ramp,
            });
            self.sink.send(SoundCommand::SetPan {
                note,
                at,
                pan,
                ramp,
            });
        }
    }
}

/// (vol, extvol, pan, duck gain) of a thread, to notice changes.
pub(super) fn levels_of(th: &Thread) -> (i32, i32, i32, u32) {
    (
        th.reg(th.attrs.vol),
        th.reg(th.attrs.extvol),
        th.reg(th.attrs.pan),
        th.duck_gain.to_bits(),
    )
}

/// Linear gain of a thread's notes as sent to the sink: track volume × external volume
/// × ducking (the mixer applies the option group and master volumes after it).
pub fn note_gain(th: &Thread) -> Gain {
    note_gain_parts(th, &BusVolumes::default()).note_gain()
}

/// The contributions to a thread's notes' gain: the volume registers (each 0–4096 on the
/// HIT scale, 1024 full) — the external one with where it came from —, the ducking
/// level, and the option group's and master volumes of `buses`.
pub fn note_gain_parts(th: &Thread, buses: &BusVolumes) -> GainParts {
    let scale = |v: i32| Gain::from_hit_volume(v.clamp(0, 4096));
    let register = th.reg(th.attrs.extvol);
    let volume = scale(register);
    let external = if register != th.given.volume {
        ExternalVolume::Code(volume)
    } else if let Some(factors) = th.given.view {
        ExternalVolume::View { factors, volume }
    } else {
        ExternalVolume::Trigger(volume)
    };
    GainParts {
        track_volume: scale(th.reg(th.attrs.vol)),
        external,
        ducking: Gain::new(th.duck_gain),
        group: th.group,
        group_volume: buses.group(th.group),
        master: buses.master,
    }
}

/// Pan of a thread's notes, from the 0–1024 pan register.
pub fn note_pan(th: &Thread) -> Pan {
    Pan::from_hit(th.reg(th.attrs.pan))
}

/// Pan of a thread's notes and where it came from: the screen while the register still
/// holds what the view gave, the trigger's, or the track's own code's.
pub fn note_pan_parts(th: &Thread) -> PanParts {
    let register = th.reg(th.attrs.pan);
    let source = if register != th.given.pan {
        PanSource::Code
    } else if let Some(view) = th.given.view {
        PanSource::Screen(view)
    } else {
        PanSource::Trigger
    };
    PanParts {
        value: Pan::from_hit(register),
        source,
    }
}

/// The level a ducked thread drops to, by its own ducking priority (the fixed gains of
/// a 2014 FreeSO version: low 0.15, normal 0.25, high 0.45, higher 0.65).
pub fn duck_level(duck_priority: i32) -> f32 {
    match duck_priority {
        i32::MIN..=10 => 0.15,
        11..=20 => 0.25,
        21..=30 => 0.45,
        31..=40 => 0.65,
        _ => 1.0,
    }
}
