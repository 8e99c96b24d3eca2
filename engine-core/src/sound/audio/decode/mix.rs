//! Channel mapping from a file's channels to the engine's 1 or 2: mono and stereo pass
//! through; more channels are downmixed to stereo by speaker position.
//!
//! The downmix: left-side speakers go to the left output, right-side ones to the right,
//! centre ones to both at −3 dB, LFE is dropped; each output is then divided by the sum of its
//! weights, so the mix can never clip. Positions come from a WAVE channel mask (or symphonia's,
//! whose first 18 bits are the same); without one, the WAVE default order is assumed
//! (FL FR FC LFE BL BR …). Every sample is also made safe: NaN becomes 0 and values are clamped
//! to −1…1, because float WAVs may hold anything.

/// Channels the engine outputs for a file with `source` channels.
pub(crate) fn output_channels(source: u16) -> u16 {
    if source <= 1 { 1 } else { 2 }
}

/// Where a speaker sits, as far as a stereo downmix cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Left,
    Right,
    Centre,
    /// LFE, or a channel beyond the mask: not mixed.
    Dropped,
}

/// The side of speaker position bit `bit` (WAVE bits 0–17, symphonia's extra bits above).
fn side_of_bit(bit: u32) -> Side {
    match bit {
        // FL, BL, FLC, SL, TFL, TBL, top side L, bottom FL, FL wide.
        0 | 4 | 6 | 9 | 12 | 15 | 19 | 22 | 24 => Side::Left,
        1 | 5 | 7 | 10 | 14 | 17 | 20 | 23 | 25 => Side::Right,
        // LFE and LFE2.
        3 | 18 => Side::Dropped,
        _ => Side::Centre,
    }
}

/// A precomputed channel mapping.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Mix {
    inputs: usize,
    outputs: usize,
    /// `outputs` rows of `inputs` weights (only used when the counts differ beyond 1 → 2).
    weights: Vec<f32>,
}

impl Mix {
    /// Maps `inputs` channels (speaker mask `positions`, 0 = unknown) to `outputs` (1 or 2).
    pub(crate) fn new(inputs: usize, outputs: usize, positions: u64) -> Self {
        let inputs = inputs.max(1);
        let outputs = outputs.clamp(1, 2);
        let mut weights = Vec::new();
        if inputs != outputs && !(inputs == 1 && outputs == 2) {
            let sides = sides(inputs, positions);
            let gain = |side: Side, out: usize| -> f32 {
                match (side, outputs, out) {
                    (Side::Dropped, _, _) => 0.0,
                    (_, 1, _) => 1.0,
                    (Side::Centre, _, _) => std::f32::consts::FRAC_1_SQRT_2,
                    (Side::Left, _, 0) | (Side::Right, _, 1) => 1.0,
                    _ => 0.0,
                }
            };
            for out in 0..outputs {
                let mut row: Vec<f32> = sides.iter().map(|&s| gain(s, out)).collect();
                let sum: f32 = row.iter().sum();
                if sum > 0.0 {
                    row.iter_mut().for_each(|w| *w /= sum);
                } else {
                    // Nothing maps to this output (e.g. only LFE): use a plain average.
                    let even = 1.0 / inputs as f32;
                    row.iter_mut().for_each(|w| *w = even);
                }
                weights.extend(row);
            }
        }
        Self {
            inputs,
            outputs,
            weights,
        }
    }

    /// Appends `input` (interleaved, whole frames of `inputs()` samples; a trailing partial
    /// frame is ignored) to `out` as interleaved output frames.
    pub(crate) fn apply(&self, input: &[f32], out: &mut Vec<f32>) {
        let frames = input.len() / self.inputs;
        out.reserve(frames.saturating_mul(self.outputs));
        if self.inputs == self.outputs {
            let whole = input.get(..frames * self.inputs).unwrap_or(&[]);
            out.extend(whole.iter().map(|&s| sanitize(s)));
        } else if self.inputs == 1 {
            for &s in input {
                let s = sanitize(s);
                out.extend([s, s]);
            }
        } else {
            for frame in input.chunks_exact(self.inputs) {
                for row in self.weights.chunks_exact(self.inputs) {
                    let mixed: f32 = row.iter().zip(frame).map(|(w, &s)| w * sanitize(s)).sum();
                    out.push(sanitize(mixed));
                }
            }
        }
    }
}

/// The side of each of `count` channels given a speaker mask (0 = WAVE default order).
fn sides(count: usize, positions: u64) -> Vec<Side> {
    let mask = if positions == 0 {
        // Default order: the first `count` WAVE positions.
        if count >= 64 {
            u64::MAX
        } else {
            (1u64 << count) - 1
        }
    } else {
        positions
    };
    let mut sides: Vec<Side> = (0..64u32)
        .filter(|b| mask & (1u64 << b) != 0)
        .map(side_of_bit)
        .collect();
    // Channels beyond the mask carry no known position: leave them out.
    sides.resize(count, Side::Dropped);
    sides
}

/// NaN → 0, everything else clamped to −1…1.
pub(crate) fn sanitize(s: f32) -> f32 {
    if s.is_nan() { 0.0 } else { s.clamp(-1.0, 1.0) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(mix: &Mix, input: &[f32]) -> Vec<f32> {
        let mut out = Vec::new();
        mix.apply(input, &mut out);
        out
    }

    #[test]
    fn mono_and_stereo_pass_through_sanitized() {
        let mono = Mix::new(1, 1, 0);
        assert_eq!(
            run(&mono, &[0.5, f32::NAN, 3.0, -7.0]),
            vec![0.5, 0.0, 1.0, -1.0]
        );
        let stereo = Mix::new(2, 2, 0);
        assert_eq!(run(&stereo, &[0.1, 0.2, 0.3]), vec![0.1, 0.2]);
        let up = Mix::new(1, 2, 0);
        assert_eq!(run(&up, &[0.25]), vec![0.25, 0.25]);
    }

    #[test]
    fn five_one_downmix_keeps_sides_and_drops_lfe() {
        // FL FR FC LFE BL BR
        let mix = Mix::new(6, 2, 0);
        let out = run(&mix, &[1.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
        let total = 1.0 + std::f32::consts::FRAC_1_SQRT_2 + 1.0;
        assert!((out[0] - 1.0 / total).abs() < 1e-6);
        assert_eq!(out[1], 0.0);
        // Full-scale everywhere stays within range.
        let loud = run(&mix, &[1.0; 6]);
        assert!(loud.iter().all(|&s| (s - 1.0).abs() < 1e-6));
    }

    #[test]
    fn mask_positions_are_used_and_extra_channels_dropped() {
        // Mask FC only, 3 channels: the first is centre, the others have no position.
        let mix = Mix::new(3, 2, 0b100);
        assert_eq!(run(&mix, &[0.5, 1.0, 1.0]), vec![0.5, 0.5]);
        // Only LFE: falls back to a plain average.
        let lfe = Mix::new(2, 1, 0b1000);
        assert_eq!(run(&lfe, &[0.5, 0.25]), vec![0.375]);
    }

    #[test]
    fn stereo_to_mono_averages() {
        let mix = Mix::new(2, 1, 0);
        assert_eq!(run(&mix, &[1.0, 0.0]), vec![0.5]);
    }
}
