//! The audio side of the mixer: drains timed commands, renders every voice into its
//! group's bus with resampling, ramps and fades, applies the group and master volumes
//! read from atomics, soft-clips the sum and reports meters and telemetry.
//!
//! Real-time rules: no lock, no allocation, no IO, no `unwrap`. Every buffer is sized
//! when the mixer is made; buffers a voice releases go back to the control side through
//! the retire ring so their memory is freed there.

use super::MixerConfig;
use super::command::{MixCommand, MixEvent, Retired, VoiceSource};
use super::controls::{MixerControls, group_index};
use super::reverb::Reverb;
use super::voice::{ONE, Pending, Playhead, Voice, pan_gains};
use crate::runtime::sink::ControlGroup;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// The mixer, owned by whatever calls [`Mixer::render`] (the audio callback, the null
/// output's timer thread, or the offline renderer).
pub struct Mixer {
    commands: rtrb::Consumer<MixCommand>,
    events: rtrb::Producer<MixEvent>,
    retire: rtrb::Producer<Retired>,
    controls: Arc<MixerControls>,
    voices: Vec<Voice>,
    /// Stereo buses, `max_block` frames each: FX, Music, VOX, and the room bus (FX sent
    /// through the reverb).
    buses: [Vec<f32>; 4],
    reverb: Reverb,
    /// Group and master gains used for the previous block (to ramp changes).
    last_groups: [f32; 3],
    last_master: f32,
    position: u64,
    sample_rate: u32,
    stop_fade: u32,
    /// How voices read between sample frames.
    interpolation: super::Interpolation,
    /// Handles that could not be retired because the ring was full, kept (not freed)
    /// until there is room. Sized when the mixer is made.
    parked: Vec<Option<Retired>>,
    parked_count: usize,
    /// Loudness, RMS and overs per bus and of the output.
    meters: super::meters::Meters,
}

impl Mixer {
    pub(super) fn new(
        config: &MixerConfig,
        commands: rtrb::Consumer<MixCommand>,
        events: rtrb::Producer<MixEvent>,
        retire: rtrb::Producer<Retired>,
        controls: Arc<MixerControls>,
    ) -> Self {
        let max_block = config.max_block.max(1);
        // The CPU's widest SIMD is looked up here, not on the audio thread's first block.
        super::kernel::Lanes::detected();
        Self {
            commands,
            events,
            retire,
            controls,
            voices: (0..config.max_voices.max(1))
                .map(|_| Voice::empty())
                .collect(),
            buses: [
                vec![0.0; max_block * 2],
                vec![0.0; max_block * 2],
                vec![0.0; max_block * 2],
                vec![0.0; max_block * 2],
            ],
            reverb: Reverb::new(config.sample_rate),
            last_groups: [1.0; 3],
            last_master: 1.0,
            position: 0,
            sample_rate: config.sample_rate,
            interpolation: config.interpolation,
            stop_fade: u32::try_from(
                (config.sample_rate as f32 * config.stop_fade_ms / 1000.0) as u64,
            )
            .unwrap_or(u32::MAX)
            .max(1),
            parked: (0..config.max_voices.max(1) * 2).map(|_| None).collect(),
            parked_count: 0,
            meters: super::meters::Meters::new(config.sample_rate),
        }
    }

    /// The values shared with the control side.
    pub fn controls(&self) -> &Arc<MixerControls> {
        &self.controls
    }

    /// Output frames per second.
    pub fn sample_rate(&self) -> u32 {
        self.sample_rate
    }

    /// Frames rendered so far (the sample time of the next frame).
    pub fn position(&self) -> u64 {
        self.position
    }

    /// Largest block `render` takes at once (longer outputs are rendered in pieces).
    pub fn max_block(&self) -> usize {
        self.buses[0].len() / 2
    }

    /// Renders interleaved stereo frames into `out` (its length / 2 frames).
    ///
    /// While [`MixerControls::hold`](super::MixerControls::hold) is set (the track
    /// debugger holds the engine paused) it outputs silence and stands still: no voice
    /// moves on, the position does not advance, so everything goes on where it was.
    pub fn render(&mut self, out: &mut [f32]) {
        if self.controls.hold.load(Ordering::Acquire) {
            out.fill(0.0);
            return;
        }
        let started = std::time::Instant::now();
        let total = out.len() / 2;
        let max_block = self.max_block();
        let mut done = 0;
        while done < total {
            let frames = (total - done).min(max_block);
            self.render_block(&mut out[done * 2..(done + frames) * 2]);
            done += frames;
        }
        let elapsed = started.elapsed().as_nanos() as u64;
        self.controls.render_ns.store(elapsed, Ordering::Relaxed);
        if total > 0 {
            let budget_ns = total as u64 * 1_000_000_000 / u64::from(self.sample_rate.max(1));
            let load = elapsed.saturating_mul(1000) / budget_ns.max(1);
            self.controls
                .load_permille
                .store(u32::try_from(load).unwrap_or(u32::MAX), Ordering::Relaxed);
        }
    }

    fn render_block(&mut self, out: &mut [f32]) {
        let frames = out.len() / 2;
        let block_start = self.position;
        let block_end = block_start + frames as u64;
        self.drain_commands();
        for bus in &mut self.buses {
            if let Some(part) = bus.get_mut(..frames * 2) {
                part.fill(0.0);
            }
        }
        let mut playing = 0;
        for index in 0..self.voices.len() {
            if self.voices[index].active() {
                self.render_voice(index, block_start, block_end);
                if self.voices[index].active() {
                    playing += 1;
                }
            }
        }
        self.mix_room(frames);
        // Summing, clipping and metering run with the CPU's widest vectors.
        super::kernel::widest(
            #[inline(always)]
            || self.mix_down(out, frames),
        );
        for (voice, shared) in self.voices.iter().zip(&self.controls.voice_levels) {
            let (note, level) = if voice.active() {
                (voice.note, voice.level)
            } else {
                (super::controls::FREE_VOICE, 0.0)
            };
            shared.note.store(note, Ordering::Relaxed);
            shared.level.set(level);
        }
        self.position = block_end;
        self.controls.position.store(block_end, Ordering::Release);
        self.controls.voices.store(playing, Ordering::Relaxed);
        if self.parked_count > 0 {
            self.retry_parked();
        }
    }

    /// Applies every queued command. Starts and changes due later are kept with their
    /// voice and take effect at their frame.
    fn drain_commands(&mut self) {
        while let Ok(command) = self.commands.pop() {
            match command {
                MixCommand::Start {
                    note,
                    at,
                    source,
                    gain,
                    pan,
                    pitch,
                    looping,
                    group,
                    reverb,
                } => {
                    let Some(slot) = self.voices.iter().position(|v| !v.active()) else {
                        self.controls.dropped.fetch_add(1, Ordering::Relaxed);
                        self.send(MixEvent::NoVoice { note });
                        self.retire_source(source);
                        continue;
                    };
                    let (rate, stereo) = match &source {
                        VoiceSource::Sample(s) => {
                            s.samples().map_or((self.sample_rate, false), |b| {
                                (b.sample_rate, b.channels == 2)
                            })
                        }
                        VoiceSource::Stream(s) => (s.sample_rate, s.channels == 2),
                    };
                    let ratio = f64::from(rate) / f64::from(self.sample_rate.max(1))
                        * f64::from(pitch.max(0.0));
                    let step = ((ratio * ONE as f64) as u64).max(1);
                    let mut playhead =
                        Playhead::new(step, looping, gain.get(), pan_gains(pan.get(), stereo));
                    playhead.interpolation = self.interpolation;
                    if matches!(source, VoiceSource::Stream(_)) {
                        // Two shifts load the first two frames into the window.
                        playhead.pos = 2 * ONE;
                    }
                    let bus = if reverb && group == ControlGroup::Fx {
                        ROOM_BUS
                    } else {
                        group_index(group)
                    };
                    self.voices[slot] = Voice::start(note, at, source, playhead, bus);
                }
                MixCommand::Stop { note, at } => {
                    if let Some(voice) = self.voice_mut(note) {
                        voice.stop_at = Some(voice.stop_at.map_or(at, |s| s.min(at)));
                    }
                }
                MixCommand::SetGain {
                    note,
                    at,
                    gain,
                    ramp,
                } => {
                    if let Some(voice) = self.voice_mut(note) {
                        voice.pending_gain = Some(Pending {
                            at,
                            value: gain.get(),
                            ramp,
                        });
                    }
                }
                MixCommand::SetPan {
                    note,
                    at,
                    pan,
                    ramp,
                } => {
                    if let Some(voice) = self.voice_mut(note) {
                        voice.pending_pan = Some(Pending {
                            at,
                            value: pan.get(),
                            ramp,
                        });
                    }
                }
            }
        }
    }

    fn voice_mut(&mut self, note: u64) -> Option<&mut Voice> {
        self.voices
            .iter_mut()
            .find(|v| v.active() && v.note == note)
    }

    fn send(&mut self, event: MixEvent) {
        if self.events.push(event).is_err() {
            self.controls.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn retire_source(&mut self, source: VoiceSource) {
        let retired = match source {
            VoiceSource::Sample(s) => Retired::Sample(s),
            VoiceSource::Stream(s) => Retired::Stream(s),
        };
        self.retire(retired);
    }

    /// Hands a buffer back for freeing; if the ring is full, keeps it for later rather
    /// than free memory on the audio thread.
    fn retire(&mut self, retired: Retired) {
        if let Err(rtrb::PushError::Full(retired)) = self.retire.push(retired) {
            self.controls.dropped.fetch_add(1, Ordering::Relaxed);
            match self.parked.iter_mut().find(|p| p.is_none()) {
                Some(slot) => {
                    *slot = Some(retired);
                    self.parked_count += 1;
                }
                // Nowhere to keep it: as a last resort it is freed here (counted).
                None => drop(retired),
            }
        }
    }

    fn retry_parked(&mut self) {
        for index in 0..self.parked.len() {
            let Some(retired) = self.parked.get_mut(index).and_then(Option::take) else {
                continue;
            };
            self.parked_count = self.parked_count.saturating_sub(1);
            match self.retire.push(retired) {
                Ok(()) => {}
                Err(rtrb::PushError::Full(retired)) => {
                    if let Some(slot) = self.parked.get_mut(index) {
                        *slot = Some(retired);
                    }
                    self.parked_count += 1;
                    return;
                }
            }
        }
    }

    /// Renders one voice for the block, in segments between the frames where something
    /// is scheduled for it (its start, a parameter change, its stop).
    fn render_voice(&mut self, index: usize, block_start: u64, block_end: u64) {
        let stop_fade = self.stop_fade;
        let mut t = block_start;
        while t < block_end {
            let voice = &mut self.voices[index];
            // Not started yet: skip to the start (late starts begin at once).
            if !voice.started {
                let Some((begin, late)) = voice.begin(t, block_end) else {
                    return;
                };
                let note = voice.note;
                t = begin;
                self.send(MixEvent::Started {
                    note,
                    at: begin,
                    late,
                });
                continue;
            }
            voice.apply_due(t, stop_fade);
            if voice.faded_out() {
                self.end_voice(index, t);
                return;
            }
            let until = voice.segment_end(t, block_end);
            let frames = (until - t) as usize;
            let offset = (t - block_start) as usize;
            let bus = &mut self.buses[voice.group.min(ROOM_BUS)];
            let Some(out) = bus.get_mut(offset * 2..(offset + frames) * 2) else {
                return;
            };
            match voice.render(out, frames) {
                Some(n) => {
                    self.end_voice(index, t + n as u64);
                    return;
                }
                None => t = until,
            }
        }
    }

    fn end_voice(&mut self, index: usize, at: u64) {
        let voice = &mut self.voices[index];
        let note = voice.note;
        let source = voice.source.take();
        *voice = Voice::empty();
        self.send(MixEvent::Ended { note, at });
        if let Some(source) = source {
            self.retire_source(source);
        }
    }

    /// Runs the room bus through the reverb and adds it to the FX bus.
    fn mix_room(&mut self, frames: usize) {
        let [fx, _, _, room] = &mut self.buses;
        let (Some(room), Some(fx)) = (room.get_mut(..frames * 2), fx.get_mut(..frames * 2)) else {
            return;
        };
        self.reverb.process(room, self.controls.reverb.get());
        for (f, r) in fx.iter_mut().zip(room.iter()) {
            *f += *r;
        }
    }

    /// Sums the group buses with their option volumes (ramped from the last block),
    /// applies the master volume, soft-clips and meters. Peaks are kept per lane of eight
    /// samples and combined at the end (the largest is the largest in any order), so no
    /// frame waits on the one before.
    #[inline(always)]
    fn mix_down(&mut self, out: &mut [f32], frames: usize) {
        let groups = [
            self.controls.groups[0].get(),
            self.controls.groups[1].get(),
            self.controls.groups[2].get(),
        ];
        let master = self.controls.master.get();
        let inv = 1.0 / frames.max(1) as f32;
        let mut peaks = [0.0f32; 4];
        let Some(out) = out.get_mut(..frames * 2) else {
            return;
        };
        for (g, bus) in self.buses.iter().take(3).enumerate() {
            let from = self.last_groups[g] * self.last_master;
            let to = groups[g] * master;
            let Some(bus) = bus.get(..frames * 2) else {
                continue;
            };
            peaks[g] = add_group(bus, out, g == 0, from, (to - from) * inv);
        }
        let mut lanes = [0.0f32; 8];
        let mut bent = [0u32; 8];
        let mut chunks = out.chunks_exact_mut(8);
        for chunk in &mut chunks {
            for k in 0..8 {
                let (value, was_bent) = soft_clip(chunk[k]);
                chunk[k] = value;
                bent[k] += u32::from(was_bent);
                lanes[k] = louder(lanes[k], value.abs());
            }
        }
        for (k, sample) in chunks.into_remainder().iter_mut().enumerate() {
            let (value, was_bent) = soft_clip(*sample);
            *sample = value;
            bent[k] += u32::from(was_bent);
            lanes[k] = louder(lanes[k], value.abs());
        }
        peaks[3] = lanes.into_iter().fold(0.0, louder);
        let clipped: u64 = bent.iter().map(|b| u64::from(*b)).sum();
        for (meter, peak) in self.controls.peaks.iter().zip(peaks) {
            meter.set(peak);
        }
        self.meter(out, frames, groups, master);
        if clipped > 0 {
            self.controls.clipped.fetch_add(clipped, Ordering::Relaxed);
        }
        self.last_groups = groups;
        self.last_master = master;
    }
}

/// Adds (`first`: writes) one group bus to the output at a volume ramped from `gain` by
/// `step` a frame; returns the bus's peak after its volume. At a steady volume the
/// frames are independent and go eight samples at a time; a ramp adds its step frame
/// by frame, as it always has (the same gains, to the bit).
#[inline(always)]
fn add_group(bus: &[f32], out: &mut [f32], first: bool, mut gain: f32, step: f32) -> f32 {
    let mut lanes = [0.0f32; 8];
    let mut put = |lane: usize, sample: f32, out: &mut f32, gain: f32| {
        let value = sample * gain;
        lanes[lane] = louder(lanes[lane], value.abs());
        if first {
            *out = value;
        } else {
            *out += value;
        }
    };
    if step == 0.0 {
        let mut pairs = bus.chunks_exact(8).zip(out.chunks_exact_mut(8));
        for (samples, outs) in &mut pairs {
            for k in 0..8 {
                put(k, samples[k], &mut outs[k], gain);
            }
        }
        let done = bus.len() / 8 * 8;
        for (k, (sample, out)) in bus[done..].iter().zip(&mut out[done..]).enumerate() {
            put(k, *sample, out, gain);
        }
    } else {
        for (frame, out_frame) in bus.chunks_exact(2).zip(out.chunks_exact_mut(2)) {
            put(0, frame[0], &mut out_frame[0], gain);
            put(1, frame[1], &mut out_frame[1], gain);
            gain += step;
        }
    }
    lanes.into_iter().fold(0.0, louder)
}

impl Mixer {
    /// Feeds the block to the meters: each group bus at its (ramped) volume beside the
    /// output, frame by frame.
    #[inline(always)]
    fn meter(&mut self, out: &[f32], frames: usize, groups: [f32; 3], master: f32) {
        let inv = 1.0 / frames.max(1) as f32;
        let from = [0, 1, 2].map(|g| self.last_groups[g] * self.last_master);
        let step = [0, 1, 2].map(|g| (groups[g] * master - from[g]) * inv);
        let [fx, music, vox, _] = &self.buses;
        let (Some(fx), Some(music), Some(vox), Some(out)) = (
            fx.get(..frames * 2),
            music.get(..frames * 2),
            vox.get(..frames * 2),
            out.get(..frames * 2),
        ) else {
            return;
        };
        let at = |bus: &[f32], i: usize| [bus[2 * i], bus[2 * i + 1]];
        let (meters, controls) = (&mut self.meters, &self.controls);
        meters.frames_from(
            frames,
            controls,
            #[inline(always)]
            |i: usize| {
                let t = i as f32;
                let gain = [0, 1, 2].map(|g| from[g] + step[g] * t);
                let ([fl, fr], [ml, mr], [vl, vr]) = (at(fx, i), at(music, i), at(vox, i));
                let [ol, or] = at(out, i);
                [
                    fl * gain[0],
                    fr * gain[0],
                    ml * gain[1],
                    mr * gain[1],
                    vl * gain[2],
                    vr * gain[2],
                    ol,
                    or,
                ]
            },
        );
    }
}

/// The larger of two levels. Unlike `f32::max` it need not order NaNs, so it is one
/// instruction: the meters' running peaks are not held up by it, frame after frame. (A
/// NaN level is passed over, as `f32::max` passes it over.)
#[inline(always)]
fn louder(peak: f32, level: f32) -> f32 {
    if level > peak { level } else { peak }
}

/// The bus of voices sent through the room reverb (mixed into FX).
const ROOM_BUS: usize = 3;

/// Threshold above which the output is bent smoothly towards full scale.
pub const CLIP_KNEE: f32 = 0.9;

/// Soft clip: linear up to the knee, then a smooth curve that never exceeds 1.
/// Returns the sample and whether it was bent. Branch-free (the curve is computed for
/// every sample and chosen), so a block of samples goes through it as vectors.
#[inline(always)]
pub fn soft_clip(x: f32) -> (f32, bool) {
    let a = x.abs();
    let over = (a - CLIP_KNEE) / (1.0 - CLIP_KNEE);
    let bent = (CLIP_KNEE + (1.0 - CLIP_KNEE) * (over / (1.0 + over))).copysign(x);
    // A NaN is bent (to NaN), as it always was.
    let bends = a > CLIP_KNEE || a.is_nan();
    (if bends { bent } else { x }, bends)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn soft_clip_passes_the_knee_and_bends_above_it() {
        assert_eq!(soft_clip(0.5), (0.5, false));
        assert_eq!(soft_clip(-CLIP_KNEE), (-CLIP_KNEE, false));
        let (bent, was) = soft_clip(1.7);
        assert!(was && bent > CLIP_KNEE && bent < 1.0);
        assert_eq!(soft_clip(-1.7), (-bent, true));
        let (nan, was) = soft_clip(f32::NAN);
        assert!(nan.is_nan() && was);
    }

    /// The frame-by-frame sum `add_group` replaced: output and peak, to the bit.
    fn reference(bus: &[f32], out: &mut [f32], first: bool, mut gain: f32, step: f32) -> f32 {
        let mut peak = 0.0f32;
        for (frame, out_frame) in bus.chunks_exact(2).zip(out.chunks_exact_mut(2)) {
            let (l, r) = (frame[0] * gain, frame[1] * gain);
            peak = louder(louder(peak, l.abs()), r.abs());
            if first {
                out_frame.copy_from_slice(&[l, r]);
            } else {
                out_frame[0] += l;
                out_frame[1] += r;
            }
            gain += step;
        }
        peak
    }

    #[test]
    fn groups_add_as_frame_by_frame_at_steady_and_ramped_volumes() {
        for frames in [0, 1, 3, 4, 5, 512, 517] {
            let bus: Vec<f32> = (0..frames * 2)
                .map(|i| ((i * 7919) % 200) as f32 / 97.0 - 1.0)
                .collect();
            for (first, gain, step) in [(true, 0.8, 0.0), (false, 0.8, 0.0), (false, 0.3, 0.001)] {
                let start: Vec<f32> = (0..frames * 2).map(|i| i as f32 * 1e-3).collect();
                let (mut want, mut got) = (start.clone(), start);
                let want_peak = reference(&bus, &mut want, first, gain, step);
                let got_peak = add_group(&bus, &mut got, first, gain, step);
                assert_eq!(want_peak.to_bits(), got_peak.to_bits(), "{frames} frames");
                let same = want
                    .iter()
                    .zip(&got)
                    .all(|(a, b)| a.to_bits() == b.to_bits());
                assert!(same, "{frames} frames, first {first}, step {step}");
            }
        }
    }
}
