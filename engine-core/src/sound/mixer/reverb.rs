//! The room reverb ("EAX" in the audio technical document: applied to the ambience score
//! while the active character is in a small room). A small Schroeder/Moorer reverb — four
//! damped comb filters in parallel and two all-passes in series per channel, the right
//! channel's delays slightly longer for width — tuned for a small room.
//!
//! Every delay line is allocated when the mixer is made; `process` only reads and writes
//! them, so it is safe on the audio thread.

/// Comb delays in samples at 44.1 kHz (Freeverb's, the first four), scaled to the rate.
const COMBS: [usize; 4] = [1116, 1188, 1277, 1356];
/// All-pass delays at 44.1 kHz.
const ALLPASSES: [usize; 2] = [556, 441];
/// Extra delay of the right channel at 44.1 kHz.
const SPREAD: usize = 23;
/// Comb feedback: how long the room rings (small room).
const FEEDBACK: f32 = 0.72;
/// High-frequency damping in the combs.
const DAMP: f32 = 0.35;
/// Input gain into the combs.
const INPUT_GAIN: f32 = 0.03;
/// Frames over which the wet level moves to a new setting.
const RAMP_SECONDS: f32 = 0.1;

#[derive(Debug, Clone)]
struct Comb {
    buffer: Vec<f32>,
    index: usize,
    store: f32,
}

impl Comb {
    fn new(len: usize) -> Self {
        Self {
            buffer: vec![0.0; len.max(1)],
            index: 0,
            store: 0.0,
        }
    }

    #[inline]
    fn process(&mut self, input: f32) -> f32 {
        let Some(slot) = self.buffer.get_mut(self.index) else {
            return 0.0;
        };
        let output = *slot;
        self.store = output * (1.0 - DAMP) + self.store * DAMP;
        *slot = input + self.store * FEEDBACK;
        self.index += 1;
        if self.index >= self.buffer.len() {
            self.index = 0;
        }
        output
    }

    fn clear(&mut self) {
        self.buffer.fill(0.0);
        self.store = 0.0;
    }
}

#[derive(Debug, Clone)]
struct AllPass {
    buffer: Vec<f32>,
    index: usize,
}

impl AllPass {
    fn new(len: usize) -> Self {
        Self {
            buffer: vec![0.0; len.max(1)],
            index: 0,
        }
    }

    #[inline]
    fn process(&mut self, input: f32) -> f32 {
        let Some(slot) = self.buffer.get_mut(self.index) else {
            return input;
        };
        let delayed = *slot;
        let output = delayed - input;
        *slot = input + delayed * 0.5;
        self.index += 1;
        if self.index >= self.buffer.len() {
            self.index = 0;
        }
        output
    }

    fn clear(&mut self) {
        self.buffer.fill(0.0);
    }
}

/// A stereo room reverb with a smoothly moving wet level.
#[derive(Debug, Clone)]
pub struct Reverb {
    combs: [Vec<Comb>; 2],
    allpasses: [Vec<AllPass>; 2],
    wet: f32,
    max_step: f32,
    silent: bool,
}

impl Reverb {
    /// A reverb for `sample_rate`.
    pub fn new(sample_rate: u32) -> Self {
        let scale = |n: usize| (n as f64 * f64::from(sample_rate) / 44_100.0).round() as usize;
        let channel = |extra: usize| {
            (
                COMBS.iter().map(|&n| Comb::new(scale(n + extra))).collect(),
                ALLPASSES
                    .iter()
                    .map(|&n| AllPass::new(scale(n + extra)))
                    .collect(),
            )
        };
        let (left_combs, left_allpasses) = channel(0);
        let (right_combs, right_allpasses) = channel(SPREAD);
        Self {
            combs: [left_combs, right_combs],
            allpasses: [left_allpasses, right_allpasses],
            wet: 0.0,
            max_step: 1.0 / (RAMP_SECONDS * sample_rate.max(1) as f32),
            silent: true,
        }
    }

    /// The wet level now.
    pub fn wet(&self) -> f32 {
        self.wet
    }

    /// Adds the reverb of `bus` (interleaved stereo) to it, moving the wet level towards
    /// `target` (0 = off; the tail is cut only once the level has reached 0).
    pub fn process(&mut self, bus: &mut [f32], target: f32) {
        let target = target.clamp(0.0, 1.0);
        if target == 0.0 && self.wet == 0.0 {
            if !self.silent {
                self.clear();
            }
            return;
        }
        self.silent = false;
        for frame in bus.chunks_exact_mut(2) {
            let input = (frame[0] + frame[1]) * INPUT_GAIN;
            let mut out = [0.0f32; 2];
            for (channel, value) in out.iter_mut().enumerate() {
                let mut sum = 0.0;
                for comb in &mut self.combs[channel] {
                    sum += comb.process(input);
                }
                for allpass in &mut self.allpasses[channel] {
                    sum = allpass.process(sum);
                }
                *value = sum;
            }
            let delta = (target - self.wet).clamp(-self.max_step, self.max_step);
            self.wet += delta;
            frame[0] += out[0] * self.wet;
            frame[1] += out[1] * self.wet;
        }
    }

    fn clear(&mut self) {
        for comb in self.combs.iter_mut().flatten() {
            comb.clear();
        }
        for allpass in self.allpasses.iter_mut().flatten() {
            allpass.clear();
        }
        self.silent = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn impulse_response(wet: f32, frames: usize) -> Vec<f32> {
        let mut reverb = Reverb::new(48_000);
        // Let the wet level settle first.
        let mut warm = vec![0.0; 48_000 * 2];
        reverb.process(&mut warm, wet);
        let mut bus = vec![0.0; frames * 2];
        bus[0] = 1.0;
        bus[1] = 1.0;
        reverb.process(&mut bus, wet);
        bus
    }

    #[test]
    fn off_leaves_the_signal_untouched() {
        let out = impulse_response(0.0, 4800);
        assert_eq!(out[0], 1.0);
        assert!(out[2..].iter().all(|s| *s == 0.0));
    }

    #[test]
    fn on_adds_a_decaying_tail_after_the_first_reflection() {
        let out = impulse_response(1.0, 48_000);
        let energy =
            |from: usize, to: usize| out[from * 2..to * 2].iter().map(|s| s * s).sum::<f32>();
        let first = 1116 * 48_000 / 44_100;
        assert!(
            out[2..(first - 1) * 2].iter().all(|s| *s == 0.0),
            "nothing before the first comb delay"
        );
        let early = energy(first, 12_000);
        let late = energy(36_000, 48_000);
        assert!(early > 0.0, "the room answers");
        assert!(late < early * 0.01, "and dies away ({early} → {late})");
        assert!(out[2..].iter().all(|s| s.is_finite() && s.abs() < 1.0));
    }

    #[test]
    fn the_wet_level_ramps() {
        let mut reverb = Reverb::new(48_000);
        let mut bus = vec![0.1; 480 * 2];
        reverb.process(&mut bus, 1.0);
        assert!(reverb.wet() > 0.0 && reverb.wet() < 0.2, "{}", reverb.wet());
    }
}
