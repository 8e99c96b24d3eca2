//! The mixer's meters, computed on the audio thread without allocating: for each option
//! group's bus (after its volume) and for the master output, the RMS level over the last
//! 300 ms and the EBU R 128 momentary (400 ms) and short-term (3 s) loudness — K-weighted
//! (ITU-R BS.1770-4: a high shelf, then a high pass), mean square over 100 ms blocks,
//! `-0.691 + 10·log10(ΣL+R)` LUFS, ungated — and how many samples of each group bus went
//! over full scale. The eight channels (three groups and the output, left and right) run
//! through the filters side by side, one frame at a time, in fixed arrays the compiler
//! vectorises. Results go to [`MixerControls::levels`] at the end of every 100 ms block.

use super::controls::MixerControls;
pub use super::controls::SILENT_LUFS;

/// Channels metered together: FX, Music, VOX and the output, left and right.
const LANES: usize = 8;
/// Blocks of 100 ms kept: the short-term window.
const BLOCKS: usize = 30;
/// Blocks in the momentary window (400 ms).
const MOMENTARY_BLOCKS: usize = 4;
/// Blocks in the RMS window (300 ms).
const RMS_BLOCKS: usize = 3;

/// One biquad's coefficients (a0 = 1).
#[derive(Debug, Clone, Copy)]
struct Biquad {
    b: [f32; 3],
    a: [f32; 2],
}

/// BS.1770's two K-weighting stages at `rate` (as libebur128 derives them for any rate).
fn k_weighting(rate: u32) -> [Biquad; 2] {
    let rate = f64::from(rate.max(1));
    let f0 = 1_681.974_450_955_533;
    let gain_db = 3.999_843_853_973_347;
    let q = 0.707_175_236_955_419_6;
    let k = (std::f64::consts::PI * f0 / rate).tan();
    let vh = 10f64.powf(gain_db / 20.0);
    let vb = vh.powf(0.499_666_774_154_541_6);
    let a0 = 1.0 + k / q + k * k;
    let shelf = Biquad {
        b: [
            ((vh + vb * k / q + k * k) / a0) as f32,
            (2.0 * (k * k - vh) / a0) as f32,
            ((vh - vb * k / q + k * k) / a0) as f32,
        ],
        a: [
            (2.0 * (k * k - 1.0) / a0) as f32,
            ((1.0 - k / q + k * k) / a0) as f32,
        ],
    };
    let f0 = 38.135_470_876_024_44;
    let q = 0.500_327_037_323_877_3;
    let k = (std::f64::consts::PI * f0 / rate).tan();
    let a0 = 1.0 + k / q + k * k;
    let high_pass = Biquad {
        b: [1.0, -2.0, 1.0],
        a: [
            (2.0 * (k * k - 1.0) / a0) as f32,
            ((1.0 - k / q + k * k) / a0) as f32,
        ],
    };
    [shelf, high_pass]
}

/// The meters' state: filter memories, the block being summed and the blocks before.
#[derive(Debug, Clone)]
pub(super) struct Meters {
    /// The filters, their memories and this block's sums.
    run: Run,
    frames: u32,
    block: u32,
    /// Per meter (FX, Music, VOX, output): the last blocks' mean K-weighted power
    /// (left + right) and mean plain power (left + right, halved), newest at `next - 1`.
    loudness: [[f64; BLOCKS]; 4],
    power: [[f64; BLOCKS]; 4],
    next: usize,
    filled: usize,
}

impl Meters {
    pub(super) fn new(rate: u32) -> Self {
        Self {
            run: Run {
                stages: k_weighting(rate),
                z1: [[0.0; LANES]; 2],
                z2: [[0.0; LANES]; 2],
                weighted: [0.0; LANES],
                plain: [0.0; LANES],
                over: [0; LANES],
            },
            frames: 0,
            block: (rate / 10).max(1),
            loudness: [[0.0; BLOCKS]; 4],
            power: [[0.0; BLOCKS]; 4],
            next: 0,
            filled: 0,
        }
    }

    /// One frame: the three group buses after their volumes and the output, left and
    /// right (`[fx_l, fx_r, music_l, music_r, vox_l, vox_r, out_l, out_r]`).
    #[cfg(test)]
    pub(super) fn frame(&mut self, lanes: &[f32; LANES], controls: &MixerControls) {
        self.frames_from(1, controls, |_| *lanes);
    }

    /// `count` frames, frame `i`'s lanes given by `lanes(i)` (as for [`Meters::frame`]).
    /// The filters' memories and the sums stay in registers from one frame to the next
    /// (not in `self`, stored and loaded back every frame), up to each 100 ms block's end.
    #[inline(always)]
    pub(super) fn frames_from(
        &mut self,
        count: usize,
        controls: &MixerControls,
        mut lanes: impl FnMut(usize) -> [f32; LANES],
    ) {
        let mut i = 0;
        while i < count {
            let n = (count - i).min(self.block.saturating_sub(self.frames).max(1) as usize);
            // A copy the compiler keeps in registers, stored back once.
            let mut run = self.run;
            for frame in i..i + n {
                run.frame(lanes(frame));
            }
            self.run = run;
            self.frames += n as u32;
            i += n;
            if self.frames >= self.block {
                self.end_block(controls);
            }
        }
    }

    /// A 100 ms block is complete: keep its powers and publish the levels.
    fn end_block(&mut self, controls: &MixerControls) {
        let n = f64::from(self.frames.max(1));
        for meter in 0..4 {
            let (l, r) = (2 * meter, 2 * meter + 1);
            self.loudness[meter][self.next] =
                (f64::from(self.run.weighted[l]) + f64::from(self.run.weighted[r])) / n;
            self.power[meter][self.next] =
                (f64::from(self.run.plain[l]) + f64::from(self.run.plain[r])) / (2.0 * n);
        }
        self.next = (self.next + 1) % BLOCKS;
        self.filled = (self.filled + 1).min(BLOCKS);
        for (meter, levels) in controls.levels.iter().enumerate() {
            let momentary = self.mean(&self.loudness[meter], MOMENTARY_BLOCKS);
            let short_term = self.mean(&self.loudness[meter], BLOCKS);
            let rms = self.mean(&self.power[meter], RMS_BLOCKS).sqrt();
            levels.momentary.set(lufs(momentary));
            levels.short_term.set(lufs(short_term));
            levels.rms.set(rms as f32);
            let overs = self.run.over[2 * meter] + self.run.over[2 * meter + 1];
            if overs > 0 {
                levels
                    .overs
                    .fetch_add(u64::from(overs), std::sync::atomic::Ordering::Relaxed);
            }
        }
        self.run.weighted = [0.0; LANES];
        self.run.plain = [0.0; LANES];
        self.run.over = [0; LANES];
        self.frames = 0;
    }

    /// Mean of the newest `count` blocks (as many as there are so far).
    fn mean(&self, blocks: &[f64; BLOCKS], count: usize) -> f64 {
        let count = count.min(self.filled).max(1);
        let sum: f64 = (1..=count)
            .map(|back| blocks[(self.next + BLOCKS - back) % BLOCKS])
            .sum();
        sum / count as f64
    }
}

/// The meters' per-frame state: the K-weighting stages, their transposed direct form II
/// memories per stage and lane, and this block's sums per lane (K-weighted squares,
/// plain squares, samples at or over full scale).
#[derive(Debug, Clone, Copy)]
struct Run {
    stages: [Biquad; 2],
    z1: [[f32; LANES]; 2],
    z2: [[f32; LANES]; 2],
    weighted: [f32; LANES],
    plain: [f32; LANES],
    over: [u32; LANES],
}

impl Run {
    // Plain indexed loops over the fixed lanes: what the compiler turns into vector
    // instructions.
    #[allow(clippy::needless_range_loop)]
    #[inline(always)]
    fn frame(&mut self, mut x: [f32; LANES]) {
        for lane in 0..LANES {
            self.plain[lane] += x[lane] * x[lane];
            self.over[lane] += u32::from(x[lane].abs() >= 1.0);
        }
        for s in 0..2 {
            let Biquad { b, a } = self.stages[s];
            let (z1, z2) = (&mut self.z1[s], &mut self.z2[s]);
            let mut y = [0.0f32; LANES];
            for lane in 0..LANES {
                y[lane] = b[0] * x[lane] + z1[lane];
            }
            for lane in 0..LANES {
                z1[lane] = b[1] * x[lane] - a[0] * y[lane] + z2[lane];
                z2[lane] = b[2] * x[lane] - a[1] * y[lane];
            }
            x = y;
        }
        for lane in 0..LANES {
            self.weighted[lane] += x[lane] * x[lane];
        }
    }
}

/// Mean K-weighted power (left + right) in LUFS.
fn lufs(power: f64) -> f32 {
    if power > 1e-12 {
        (-0.691 + 10.0 * power.log10()).max(f64::from(SILENT_LUFS)) as f32
    } else {
        SILENT_LUFS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1 kHz sine at −20 dBFS on both channels reads −20 LUFS give or take BS.1770's
    /// 1 kHz gain (+0.69 dB of shelf, −0.691 offset: about −20 + 3.01 for two channels).
    #[test]
    fn a_sine_reads_as_bs1770_says() {
        let controls = MixerControls::default();
        let mut meters = Meters::new(48_000);
        let amplitude = 10f32.powf(-20.0 / 20.0);
        for i in 0..48_000 * 4 {
            let s = amplitude * (2.0 * std::f32::consts::PI * 1000.0 * i as f32 / 48_000.0).sin();
            meters.frame(&[s, s, 0.0, 0.0, 0.0, 0.0, s, s], &controls);
        }
        let fx = &controls.levels[0];
        // Two channels of a −20 dBFS sine: mean square 0.005 each, sum 0.01 → −20 dB,
        // plus the filter's gain at 1 kHz (≈ +0.69 dB) and −0.691: ≈ −20.0 LUFS.
        assert!(
            (fx.short_term.get() - -20.0).abs() < 0.1,
            "{}",
            fx.short_term.get()
        );
        assert!(
            (fx.momentary.get() - -20.0).abs() < 0.1,
            "{}",
            fx.momentary.get()
        );
        assert!((fx.rms.get() - amplitude / 2f32.sqrt()).abs() < 1e-3);
        assert_eq!(controls.levels[1].short_term.get(), SILENT_LUFS);
        assert_eq!(fx.overs.load(std::sync::atomic::Ordering::Relaxed), 0);
        meters.frame(&[1.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], &controls);
        for _ in 0..4800 {
            meters.frame(&[0.0; LANES], &controls);
        }
        assert_eq!(fx.overs.load(std::sync::atomic::Ordering::Relaxed), 1);
    }
}
