//! A voice's playhead: where it reads (32.32 fixed point in source frames), how fast it
//! moves, its gain and pan ramps — and the inner loops that advance it while resampling
//! an in-memory sample or a stream into a stereo bus.
//!
//! Positions are 32.32 fixed point, so resampling never drifts. Gain and pan move by
//! per-frame steps during ramps (no zipper noise). Nothing here allocates, locks or does
//! IO: it runs on the audio thread.

use super::kernel::{self, Interpolation};
use super::stream::StreamReader;

pub use super::kernel::{ONE, frac};

/// A linear ramp of one value.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Ramp {
    /// Current value.
    pub value: f32,
    /// Change per frame while ramping.
    pub step: f32,
    /// Frames of ramp left.
    pub left: u32,
}

impl Ramp {
    /// A ramp resting at `value`.
    pub fn at(value: f32) -> Self {
        Self {
            value,
            step: 0.0,
            left: 0,
        }
    }

    /// Starts moving to `target` over `frames` (at once if 0).
    pub fn to(&mut self, target: f32, frames: u32) {
        if frames == 0 {
            *self = Self::at(target);
        } else {
            self.step = (target - self.value) / frames as f32;
            self.left = frames;
        }
    }

    /// Advances by `frames` (at most the ramp's remaining length).
    pub fn advance(&mut self, frames: u32) {
        let n = frames.min(self.left);
        self.value += self.step * n as f32;
        self.left -= n;
        if self.left == 0 {
            self.step = 0.0;
        }
    }
}

/// What rendering a run of frames from memory did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Run {
    /// Rendered all requested frames.
    Done,
    /// The sample ended after this many frames.
    Ended(usize),
}

/// Where a voice reads and how loud it plays: the state its inner loops advance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Playhead {
    /// Read position, 32.32 source frames.
    pub pos: u64,
    /// Position step per output frame, 32.32.
    pub step: u64,
    /// Loop at the end.
    pub looping: bool,
    /// Gain (the note's, before group and master).
    pub gain: Ramp,
    /// Left pan gain.
    pub left: Ramp,
    /// Right pan gain.
    pub right: Ramp,
    /// The stream's previous and next frames (for interpolating streamed audio).
    pub window: [f32; 4],
    /// How it reads between a sample's frames (streams are read linearly).
    pub interpolation: Interpolation,
}

impl Default for Playhead {
    /// At the start, unity rate, silent, centred nowhere (a free voice's playhead).
    fn default() -> Self {
        Self {
            pos: 0,
            step: ONE,
            looping: false,
            gain: Ramp::at(0.0),
            left: Ramp::at(0.0),
            right: Ramp::at(0.0),
            window: [0.0; 4],
            interpolation: Interpolation::Linear,
        }
    }
}

impl Playhead {
    /// A playhead at the start, moving `step` source frames (32.32) per output frame, at
    /// `gain` with the pan gains `(left, right)`.
    pub fn new(step: u64, looping: bool, gain: f32, (left, right): (f32, f32)) -> Self {
        Self {
            step,
            looping,
            gain: Ramp::at(gain),
            left: Ramp::at(left),
            right: Ramp::at(right),
            ..Self::default()
        }
    }

    /// Moves every ramp on by `frames`.
    #[inline]
    fn advance_ramps(&mut self, frames: u32) {
        self.gain.advance(frames);
        self.left.advance(frames);
        self.right.advance(frames);
    }

    /// Resamples `frames` frames of an in-memory sample (interleaved, 1 or 2 channels)
    /// into `bus` (stereo interleaved, starting at its first frame), with the gain and pan
    /// ramps and the playhead's interpolation. A looping sample reads as if it repeated
    /// forever (points past its end are its first frames, points before its start its
    /// last ones); any other reads silence outside itself.
    pub fn render_sample(
        &mut self,
        data: &[f32],
        channels: usize,
        bus: &mut [f32],
        frames: usize,
    ) -> Run {
        let channels = channels.max(1);
        let len = data.len() / channels;
        if len == 0 {
            return Run::Ended(0);
        }
        let end = (len as u64) << 32;
        // Positions from `first` up to (not including) `limit` have every point the
        // interpolation reads inside the sample.
        let first = (self.interpolation.before() as u64) << 32;
        let limit = ((len.saturating_sub(self.interpolation.after())) as u64) << 32;
        let step = self.step.max(1);
        let mut done = 0usize;
        while done < frames {
            if self.pos >= end {
                if self.looping {
                    self.pos %= end;
                } else {
                    return Run::Ended(done);
                }
            }
            let safe = if self.pos >= first && self.pos < limit {
                ((limit - self.pos).div_ceil(step)) as usize
            } else {
                0
            };
            let n = safe.min(frames - done);
            // Ramps move per frame; run in pieces no longer than the shortest ramp so the
            // inner loop has no branches.
            let ramp_left = [self.gain.left, self.left.left, self.right.left]
                .into_iter()
                .filter(|l| *l > 0)
                .min()
                .map_or(usize::MAX, |l| l as usize);
            if n > 0 {
                let n = n.min(ramp_left);
                let out = &mut bus[done * 2..(done + n) * 2];
                if channels == 1 {
                    self.mono_run(data, out);
                } else {
                    self.stereo_run(data, out);
                }
                self.advance_ramps(u32::try_from(n).unwrap_or(u32::MAX));
                done += n;
                continue;
            }
            self.edge_frame(data, channels, bus.get_mut(done * 2..done * 2 + 2));
            done += 1;
        }
        Run::Done
    }

    /// A frame near the start or the end of a sample, where the interpolation reads
    /// points outside it: adds it to `out` (one stereo frame) and moves on by one frame.
    fn edge_frame(&mut self, data: &[f32], channels: usize, out: Option<&mut [f32]>) {
        let len = (data.len() / channels) as i64;
        let idx = (self.pos >> 32) as i64;
        let looping = self.looping;
        let point = |i: i64, c: usize| -> f32 {
            let i = if (0..len).contains(&i) {
                i
            } else if looping {
                i.rem_euclid(len)
            } else {
                return 0.0;
            };
            data.get(i as usize * channels + c).copied().unwrap_or(0.0)
        };
        let f = frac(self.pos);
        let sample = |c: usize| match self.interpolation {
            Interpolation::Linear => kernel::linear(point(idx, c), point(idx + 1, c), f),
            Interpolation::Cubic => kernel::cubic(
                point(idx - 1, c),
                point(idx, c),
                point(idx + 1, c),
                point(idx + 2, c),
                f,
            ),
        };
        let (l, r) = if channels == 1 {
            let s = sample(0);
            (s, s)
        } else {
            (sample(0), sample(1))
        };
        if let Some(out) = out {
            out[0] += l * self.gain.value * self.left.value;
            out[1] += r * self.gain.value * self.right.value;
        }
        self.advance_ramps(1);
        self.pos += self.step;
    }

    /// Mono frames whose points are all inside `data`: the SIMD kernel at steady gains,
    /// a per-frame loop while a ramp moves. Moves the position; the caller moves the ramps.
    #[inline]
    fn mono_run(&mut self, data: &[f32], out: &mut [f32]) {
        let (g, l, r) = (self.gain.value, self.left.value, self.right.value);
        let (dg, dl, dr) = (self.gain.step, self.left.step, self.right.step);
        if dg == 0.0 && dl == 0.0 && dr == 0.0 {
            kernel::mono(
                data,
                &mut self.pos,
                self.step,
                (g * l, g * r),
                self.interpolation,
                out,
            );
            return;
        }
        let (mut g, mut l, mut r) = (g, l, r);
        let mut p = self.pos;
        for frame in out.chunks_exact_mut(2) {
            let s = self.point(data, 1, 0, p) * g;
            frame[0] += s * l;
            frame[1] += s * r;
            p += self.step;
            g += dg;
            l += dl;
            r += dr;
        }
        self.pos = p;
    }

    /// Stereo frames whose points are all inside `data`. Moves the position; the caller
    /// moves the ramps.
    #[inline]
    fn stereo_run(&mut self, data: &[f32], out: &mut [f32]) {
        let mut p = self.pos;
        let (mut g, mut l, mut r) = (self.gain.value, self.left.value, self.right.value);
        let (dg, dl, dr) = (self.gain.step, self.left.step, self.right.step);
        for frame in out.chunks_exact_mut(2) {
            frame[0] += self.point(data, 2, 0, p) * g * l;
            frame[1] += self.point(data, 2, 1, p) * g * r;
            p += self.step;
            g += dg;
            l += dl;
            r += dr;
        }
        self.pos = p;
    }

    /// Channel `c` of an interleaved sample at `pos`, interpolated (every point it reads
    /// inside `data`; anything else reads as silence).
    #[inline(always)]
    fn point(&self, data: &[f32], channels: usize, c: usize, pos: u64) -> f32 {
        let idx = (pos >> 32) as usize;
        let at = |i: usize| data.get(i * channels + c).copied().unwrap_or(0.0);
        let f = frac(pos);
        match self.interpolation {
            Interpolation::Linear => kernel::linear(at(idx), at(idx + 1), f),
            Interpolation::Cubic => kernel::cubic(
                at(idx.wrapping_sub(1)),
                at(idx),
                at(idx + 1),
                at(idx + 2),
                f,
            ),
        }
    }

    /// Renders a streamed voice into `out`, interpolating between consecutive frames from
    /// its ring. Returns `Some(frames)` when the stream ended after that many frames.
    pub fn render_stream(
        &mut self,
        stream: &mut StreamReader,
        out: &mut [f32],
        frames: usize,
    ) -> Option<usize> {
        let mut frame = [0.0f32; 2];
        for i in 0..frames {
            // `window` holds the current frame (0, 1) and the next (2, 3); `pos` is the
            // fraction between them.
            while self.pos >= ONE {
                self.pos -= ONE;
                self.window[0] = self.window[2];
                self.window[1] = self.window[3];
                if stream.next_frame(&mut frame) {
                    self.window[2] = frame[0];
                    self.window[3] = frame[1];
                } else if stream.drained() {
                    return Some(i);
                } else {
                    self.window[2] = 0.0;
                    self.window[3] = 0.0;
                }
            }
            let frac = frac(self.pos);
            let window = &self.window;
            let l = window[0] + (window[2] - window[0]) * frac;
            let r = window[1] + (window[3] - window[1]) * frac;
            if let Some(o) = out.get_mut(i * 2..i * 2 + 2) {
                o[0] += l * self.gain.value * self.left.value;
                o[1] += r * self.gain.value * self.right.value;
            }
            self.advance_ramps(1);
            self.pos += self.step;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sound::mixer::kernel::Interpolation;

    fn render(
        data: &[f32],
        channels: usize,
        looping: bool,
        step: u64,
        frames: usize,
    ) -> (Vec<f32>, Run) {
        let mut bus = vec![0.0; frames * 2];
        let mut head = Playhead::new(step, looping, 1.0, (1.0, 1.0));
        let run = head.render_sample(data, channels, &mut bus, frames);
        (bus, run)
    }

    #[test]
    fn unity_rate_copies_the_sample() {
        let (bus, run) = render(&[0.5, -0.25, 1.0], 1, false, ONE, 5);
        assert_eq!(run, Run::Ended(3));
        assert_eq!(&bus[..6], &[0.5, 0.5, -0.25, -0.25, 1.0, 1.0]);
    }

    #[test]
    fn half_rate_interpolates() {
        let (bus, run) = render(&[0.0, 1.0], 1, false, ONE / 2, 4);
        assert_eq!(run, Run::Done);
        let left: Vec<f32> = bus.iter().step_by(2).copied().collect();
        assert_eq!(left, [0.0, 0.5, 1.0, 0.5]);
    }

    #[test]
    fn loops_wrap_around() {
        let (bus, run) = render(&[1.0, 2.0], 1, true, ONE, 5);
        assert_eq!(run, Run::Done);
        let left: Vec<f32> = bus.iter().step_by(2).copied().collect();
        assert_eq!(left, [1.0, 2.0, 1.0, 2.0, 1.0]);
    }

    #[test]
    fn stereo_keeps_channels_apart() {
        let (bus, _) = render(&[0.1, 0.9, 0.2, 0.8], 2, false, ONE, 2);
        assert_eq!(bus, [0.1, 0.9, 0.2, 0.8]);
    }

    #[test]
    fn ramps_move_per_frame() {
        let mut bus = vec![0.0; 8];
        let mut head = Playhead::new(ONE, false, 0.0, (1.0, 1.0));
        head.gain.to(1.0, 4);
        head.render_sample(&[1.0; 8], 1, &mut bus, 4);
        let left: Vec<f32> = bus.iter().step_by(2).copied().collect();
        assert_eq!(left, [0.0, 0.25, 0.5, 0.75]);
        assert_eq!(head.gain.value, 1.0);
        assert_eq!(head.gain.left, 0);
    }

    /// A sine of `period` source frames sampled `len` frames long.
    fn sine(period: f64, len: usize) -> Vec<f32> {
        (0..len)
            .map(|i| (std::f64::consts::TAU * i as f64 / period).sin() as f32)
            .collect()
    }

    /// Renders the sine at `step`, `frames` long, and returns the largest error against
    /// the true sine at each frame's position, over the frames `from..`.
    fn sine_error(
        interpolation: Interpolation,
        period: f64,
        len: usize,
        looping: bool,
        step: u64,
        frames: usize,
        from: usize,
    ) -> f64 {
        let data = sine(period, len);
        let mut bus = vec![0.0; frames * 2];
        let mut head = Playhead::new(step, looping, 1.0, (1.0, 1.0));
        head.interpolation = interpolation;
        head.render_sample(&data, 1, &mut bus, frames);
        (from..frames)
            .map(|k| {
                let at = (k as u128 * u128::from(step)) as f64 / ONE as f64;
                let want = (std::f64::consts::TAU * at / period).sin();
                (f64::from(bus[k * 2]) - want).abs()
            })
            .fold(0.0, f64::max)
    }

    #[test]
    fn cubic_follows_a_sine_closer_than_linear() {
        // 22,050 → 48,000 Hz, away from both ends.
        let step = (22_050.0 / 48_000.0 * ONE as f64) as u64;
        let [linear, cubic] = [Interpolation::Linear, Interpolation::Cubic]
            .map(|i| sine_error(i, 25.0, 2_000, false, step, 4_000, 8));
        assert!(linear > 0.005, "linear {linear}");
        assert!(cubic < linear / 8.0, "cubic {cubic}, linear {linear}");
    }

    #[test]
    fn cubic_passes_through_the_samples_at_whole_positions() {
        let data = sine(17.3, 64);
        let mut bus = vec![0.0; 64 * 2];
        let mut head = Playhead::new(ONE, false, 1.0, (1.0, 1.0));
        head.interpolation = Interpolation::Cubic;
        assert_eq!(head.render_sample(&data, 1, &mut bus, 64), Run::Done);
        let left: Vec<f32> = bus.iter().step_by(2).copied().collect();
        assert_eq!(left, data);
    }

    #[test]
    fn cubic_is_continuous_across_the_loop_point() {
        // Exactly four periods loop seamlessly: around the loop point (and at the very
        // start, where the points before the first frame are the loop's last ones) the
        // cubic stays as close to the sine as anywhere else.
        let step = (22_050.0 / 48_000.0 * ONE as f64) as u64;
        let len = 100;
        let frames = 1_000; // over four loops
        let error = sine_error(Interpolation::Cubic, 25.0, len, true, step, frames, 0);
        let linear = sine_error(Interpolation::Linear, 25.0, len, true, step, frames, 0);
        assert!(error < linear / 8.0, "cubic {error}, linear {linear}");
    }

    #[test]
    fn cubic_reads_silence_outside_a_sample_that_does_not_loop() {
        let mut bus = vec![0.0; 8 * 2];
        let mut head = Playhead::new(ONE / 2, false, 1.0, (1.0, 1.0));
        head.interpolation = Interpolation::Cubic;
        assert_eq!(
            head.render_sample(&[1.0, 1.0], 1, &mut bus, 8),
            Run::Ended(4)
        );
        let left: Vec<f32> = bus.iter().step_by(2).copied().collect();
        // Catmull-Rom through 0, 1, 1, 0: 1 at the points, 1.125 between them, and back
        // down towards the silence after the end.
        assert_eq!(left[..4], [1.0, 1.125, 1.0, 0.5]);
    }
}
