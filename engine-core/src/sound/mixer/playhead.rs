//! A voice's playhead: where it reads (32.32 fixed point in source frames), how fast it
//! moves, its gain and pan ramps — and the inner loops that advance it while resampling
//! an in-memory sample or a stream into a stereo bus.
//!
//! Positions are 32.32 fixed point, so resampling never drifts. Gain and pan move by
//! per-frame steps during ramps (no zipper noise). Nothing here allocates, locks or does
//! IO: it runs on the audio thread.

use super::stream::StreamReader;

/// One in fixed point.
pub const ONE: u64 = 1 << 32;

/// The fractional part of a 32.32 position as 0…1.
#[inline]
pub fn frac(pos: u64) -> f32 {
    (pos & (ONE - 1)) as f32 * (1.0 / ONE as f32)
}

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
    /// ramps. Linear interpolation; the frame after the last is the first when looping,
    /// silence otherwise.
    pub fn render_sample(
        &mut self,
        data: &[f32],
        channels: usize,
        bus: &mut [f32],
        frames: usize,
    ) -> Run {
        let len = data.len() / channels.max(1);
        if len == 0 {
            return Run::Ended(0);
        }
        let end = (len as u64) << 32;
        let last = ((len - 1) as u64) << 32;
        let step = self.step;
        let mut done = 0usize;
        while done < frames {
            if self.pos >= end {
                if self.looping {
                    self.pos %= end;
                } else {
                    return Run::Ended(done);
                }
            }
            // Frames whose two interpolation points are both inside the sample.
            let safe = if self.pos < last {
                (((last - self.pos) + step - 1) / step.max(1)) as usize
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
                    self.mono_kernel(data, out);
                } else {
                    self.stereo_kernel(data, out);
                }
                self.advance_ramps(u32::try_from(n).unwrap_or(u32::MAX));
                done += n;
                continue;
            }
            self.last_frame(data, channels, bus.get_mut(done * 2..done * 2 + 2));
            done += 1;
        }
        Run::Done
    }

    /// The last frame of a sample: interpolates towards the loop start or silence, adds
    /// it to `out` (one stereo frame) and moves on by one frame.
    fn last_frame(&mut self, data: &[f32], channels: usize, out: Option<&mut [f32]>) {
        let idx = (self.pos >> 32) as usize;
        let frac = frac(self.pos);
        let (l, r) = if channels == 1 {
            let a = data.get(idx).copied().unwrap_or(0.0);
            let b = if self.looping {
                data.first().copied().unwrap_or(0.0)
            } else {
                0.0
            };
            let s = a + (b - a) * frac;
            (s, s)
        } else {
            let al = data.get(idx * 2).copied().unwrap_or(0.0);
            let ar = data.get(idx * 2 + 1).copied().unwrap_or(0.0);
            let (bl, br) = if self.looping {
                (
                    data.first().copied().unwrap_or(0.0),
                    data.get(1).copied().unwrap_or(0.0),
                )
            } else {
                (0.0, 0.0)
            };
            (al + (bl - al) * frac, ar + (br - ar) * frac)
        };
        if let Some(out) = out {
            out[0] += l * self.gain.value * self.left.value;
            out[1] += r * self.gain.value * self.right.value;
        }
        self.advance_ramps(1);
        self.pos += self.step;
    }

    /// The hot loop for mono sources: every frame reads two samples inside the buffer.
    /// Moves the position; the caller moves the ramps.
    #[inline]
    fn mono_kernel(&mut self, data: &[f32], out: &mut [f32]) {
        // The caller runs this only over frames whose two points are inside `data`; the
        // index is still clamped so the reads need no bounds branch and can never be out.
        let Some(max) = data.len().checked_sub(2) else {
            return;
        };
        let step = self.step;
        let mut p = self.pos;
        let (mut g, mut l, mut r) = (self.gain.value, self.left.value, self.right.value);
        let (dg, dl, dr) = (self.gain.step, self.left.step, self.right.step);
        if dg == 0.0 && dl == 0.0 && dr == 0.0 {
            let (gl, gr) = (g * l, g * r);
            for frame in out.chunks_exact_mut(2) {
                let idx = ((p >> 32) as usize).min(max);
                let (a, b) = (data[idx], data[idx + 1]);
                let s = a + (b - a) * frac(p);
                frame[0] += s * gl;
                frame[1] += s * gr;
                p += step;
            }
        } else {
            for frame in out.chunks_exact_mut(2) {
                let idx = ((p >> 32) as usize).min(max);
                let (a, b) = (data[idx], data[idx + 1]);
                let s = (a + (b - a) * frac(p)) * g;
                frame[0] += s * l;
                frame[1] += s * r;
                p += step;
                g += dg;
                l += dl;
                r += dr;
            }
        }
        self.pos = p;
    }

    /// The hot loop for stereo sources. Moves the position; the caller moves the ramps.
    #[inline]
    fn stereo_kernel(&mut self, data: &[f32], out: &mut [f32]) {
        // As in `mono_kernel`: the clamp keeps reads inside without a bounds branch.
        let Some(max) = data.len().checked_sub(4) else {
            return;
        };
        let step = self.step;
        let mut p = self.pos;
        let (mut g, mut l, mut r) = (self.gain.value, self.left.value, self.right.value);
        let (dg, dl, dr) = (self.gain.step, self.left.step, self.right.step);
        for frame in out.chunks_exact_mut(2) {
            let idx = ((p >> 32) as usize * 2).min(max);
            let frac = frac(p);
            let (al, ar, bl, br) = (data[idx], data[idx + 1], data[idx + 2], data[idx + 3]);
            frame[0] += (al + (bl - al) * frac) * g * l;
            frame[1] += (ar + (br - ar) * frac) * g * r;
            p += step;
            g += dg;
            l += dl;
            r += dr;
        }
        self.pos = p;
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
}
