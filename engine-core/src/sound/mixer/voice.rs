//! One mixer voice: where it reads, how loud and where it sits, what is scheduled for it,
//! and the inner loops that resample it into a stereo bus.
//!
//! Positions are 32.32 fixed point in source frames, so resampling never drifts. Gain
//! and pan move by per-frame steps during ramps (no zipper noise). Nothing here
//! allocates, locks or does IO.

use super::command::VoiceSource;
use crate::runtime::sink::NoteId;

/// One in fixed point.
pub const ONE: u64 = 1 << 32;

/// The fractional part of a 32.32 position as 0…1.
#[inline]
pub fn frac(pos: u64) -> f32 {
    (pos & (ONE - 1)) as f32 * (1.0 / ONE as f32)
}

/// A parameter change waiting for its time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pending {
    /// When it starts.
    pub at: u64,
    /// Target value.
    pub value: f32,
    /// Ramp frames.
    pub ramp: u32,
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

/// Left and right gains for a pan: constant power for mono sources, balance for stereo.
pub fn pan_gains(pan: f32, stereo: bool) -> (f32, f32) {
    let pan = pan.clamp(-1.0, 1.0);
    if stereo {
        ((1.0 - pan).min(1.0), (1.0 + pan).min(1.0))
    } else {
        let angle = (pan + 1.0) * std::f32::consts::FRAC_PI_4;
        (angle.cos(), angle.sin())
    }
}

/// A voice.
#[derive(Debug)]
pub struct Voice {
    /// The note it plays.
    pub note: NoteId,
    /// What it plays (`None` for a free slot).
    pub source: Option<VoiceSource>,
    /// Frame at which it starts.
    pub start_at: u64,
    /// Has it started (telemetry sent)?
    pub started: bool,
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
    /// Group bus index.
    pub group: usize,
    /// A scheduled gain change.
    pub pending_gain: Option<Pending>,
    /// A scheduled pan change.
    pub pending_pan: Option<Pending>,
    /// When the stop fade starts.
    pub stop_at: Option<u64>,
    /// Fading out: the voice ends when the gain ramp reaches 0.
    pub stopping: bool,
    /// The stream's previous and next frames (for interpolating streamed audio).
    pub window: [f32; 4],
}

impl Voice {
    /// A free slot.
    pub fn empty() -> Self {
        Self {
            note: 0,
            source: None,
            start_at: 0,
            started: false,
            pos: 0,
            step: ONE,
            looping: false,
            gain: Ramp::at(0.0),
            left: Ramp::at(0.0),
            right: Ramp::at(0.0),
            group: 0,
            pending_gain: None,
            pending_pan: None,
            stop_at: None,
            stopping: false,
            window: [0.0; 4],
        }
    }

    /// True if the slot plays something.
    pub fn active(&self) -> bool {
        self.source.is_some()
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

/// Resamples `frames` frames of an in-memory sample (interleaved, 1 or 2 channels) into
/// `bus` (stereo interleaved, starting at its first frame), with the voice's gain and
/// pan ramps. Linear interpolation; the frame after the last is the first when looping,
/// silence otherwise.
#[allow(clippy::too_many_arguments)]
pub fn render_sample(
    data: &[f32],
    channels: usize,
    looping: bool,
    pos: &mut u64,
    step: u64,
    gain: &mut Ramp,
    left: &mut Ramp,
    right: &mut Ramp,
    bus: &mut [f32],
    frames: usize,
) -> Run {
    let len = data.len() / channels.max(1);
    if len == 0 {
        return Run::Ended(0);
    }
    let end = (len as u64) << 32;
    let last = ((len - 1) as u64) << 32;
    let mut done = 0usize;
    while done < frames {
        if *pos >= end {
            if looping {
                *pos %= end;
            } else {
                return Run::Ended(done);
            }
        }
        // Frames whose two interpolation points are both inside the sample.
        let safe = if *pos < last {
            (((last - *pos) + step - 1) / step.max(1)) as usize
        } else {
            0
        };
        let n = safe.min(frames - done);
        // Ramps move per frame; run in pieces no longer than the shortest ramp so the
        // inner loop has no branches.
        let ramp_left = [gain.left, left.left, right.left]
            .into_iter()
            .filter(|l| *l > 0)
            .min()
            .map_or(usize::MAX, |l| l as usize);
        if n > 0 {
            let n = n.min(ramp_left);
            let out = &mut bus[done * 2..(done + n) * 2];
            if channels == 1 {
                mono_kernel(data, pos, step, gain, left, right, out);
            } else {
                stereo_kernel(data, pos, step, gain, left, right, out);
            }
            let advanced = u32::try_from(n).unwrap_or(u32::MAX);
            gain.advance(advanced);
            left.advance(advanced);
            right.advance(advanced);
            done += n;
            continue;
        }
        // The last frame: interpolate towards the loop start or silence.
        let idx = (*pos >> 32) as usize;
        let frac = frac(*pos);
        let (l, r) = if channels == 1 {
            let a = data.get(idx).copied().unwrap_or(0.0);
            let b = if looping {
                data.first().copied().unwrap_or(0.0)
            } else {
                0.0
            };
            let s = a + (b - a) * frac;
            (s, s)
        } else {
            let al = data.get(idx * 2).copied().unwrap_or(0.0);
            let ar = data.get(idx * 2 + 1).copied().unwrap_or(0.0);
            let (bl, br) = if looping {
                (
                    data.first().copied().unwrap_or(0.0),
                    data.get(1).copied().unwrap_or(0.0),
                )
            } else {
                (0.0, 0.0)
            };
            (al + (bl - al) * frac, ar + (br - ar) * frac)
        };
        if let Some(out) = bus.get_mut(done * 2..done * 2 + 2) {
            out[0] += l * gain.value * left.value;
            out[1] += r * gain.value * right.value;
        }
        gain.advance(1);
        left.advance(1);
        right.advance(1);
        *pos += step;
        done += 1;
    }
    Run::Done
}

/// The hot loop for mono sources: every frame reads two samples inside the buffer.
#[inline]
fn mono_kernel(
    data: &[f32],
    pos: &mut u64,
    step: u64,
    gain: &Ramp,
    left: &Ramp,
    right: &Ramp,
    out: &mut [f32],
) {
    // The caller runs this only over frames whose two points are inside `data`; the
    // index is still clamped so the reads need no bounds branch and can never be out.
    let Some(max) = data.len().checked_sub(2) else {
        return;
    };
    let mut p = *pos;
    let (mut g, mut l, mut r) = (gain.value, left.value, right.value);
    let (dg, dl, dr) = (gain.step, left.step, right.step);
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
    *pos = p;
}

/// The hot loop for stereo sources.
#[inline]
fn stereo_kernel(
    data: &[f32],
    pos: &mut u64,
    step: u64,
    gain: &Ramp,
    left: &Ramp,
    right: &Ramp,
    out: &mut [f32],
) {
    // As in `mono_kernel`: the clamp keeps reads inside without a bounds branch.
    let Some(max) = data.len().checked_sub(4) else {
        return;
    };
    let mut p = *pos;
    let (mut g, mut l, mut r) = (gain.value, left.value, right.value);
    let (dg, dl, dr) = (gain.step, left.step, right.step);
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
    *pos = p;
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
        let mut pos = 0;
        let (mut g, mut l, mut r) = (Ramp::at(1.0), Ramp::at(1.0), Ramp::at(1.0));
        let run = render_sample(
            data, channels, looping, &mut pos, step, &mut g, &mut l, &mut r, &mut bus, frames,
        );
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
        let mut pos = 0;
        let mut g = Ramp::at(0.0);
        g.to(1.0, 4);
        let (mut l, mut r) = (Ramp::at(1.0), Ramp::at(1.0));
        render_sample(
            &[1.0; 8], 1, false, &mut pos, ONE, &mut g, &mut l, &mut r, &mut bus, 4,
        );
        let left: Vec<f32> = bus.iter().step_by(2).copied().collect();
        assert_eq!(left, [0.0, 0.25, 0.5, 0.75]);
        assert_eq!(g.value, 1.0);
        assert_eq!(g.left, 0);
    }

    #[test]
    fn pan_laws() {
        let (l, r) = pan_gains(0.0, false);
        assert!((l - r).abs() < 1e-6 && (l * l + r * r - 1.0).abs() < 1e-5);
        assert_eq!(pan_gains(-1.0, true), (1.0, 0.0));
        assert_eq!(pan_gains(0.0, true), (1.0, 1.0));
        let (l, r) = pan_gains(1.0, false);
        assert!(l.abs() < 1e-6 && (r - 1.0).abs() < 1e-6);
    }
}
