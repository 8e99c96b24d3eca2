//! Loudness and peaks of an output, as EBU R 128 and ITU-R BS.1770-4 define them:
//! integrated loudness (gated, in LUFS), the largest momentary (400 ms) and short-term
//! (3 s) loudness, the true peak (dBTP, 4× oversampled below 96 kHz) and the sample peak
//! (dBFS). The filters and gating are the `ebur128` crate's.
//!
//! [`LoudnessMeter`] is incremental: feed it interleaved `f32` frames as they are made
//! and ask for the figures so far at any point, so a render can check them while it runs.
//! Every figure is a [`Level`]: a number of dB, or silent (−∞) — never NaN. The largest
//! momentary and short-term loudness are read every 100 ms of audio (counted in frames
//! from the start, so how the input is cut into blocks changes nothing) and once more
//! when the figures are asked for; audio before the start counts as silence, as on a
//! meter that starts with the programme.
//!
//! Memory: the gating keeps one number per 100 ms of audio (about 0.3 MB per hour).

use ebur128::{EbuR128, Mode};
use std::fmt;

/// A level in dB (LUFS, dBTP or dBFS, by what it measures), or silent: −∞, shown as
/// `-inf`. Never NaN, so it compares with any threshold: silence is below all of them.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Level(f64);

impl Level {
    /// Silence: −∞ dB.
    pub const SILENT: Level = Level(f64::NEG_INFINITY);

    /// A level of `db` dB; anything not a finite number (−∞ from a log of zero, or NaN)
    /// is silent.
    pub fn from_db(db: f64) -> Self {
        if db.is_finite() {
            Self(db)
        } else {
            Self::SILENT
        }
    }

    /// The level of a linear amplitude (1.0 is full scale, 0 dB); zero is silent.
    pub fn from_amplitude(amplitude: f64) -> Self {
        if amplitude > 0.0 {
            Self::from_db(20.0 * amplitude.log10())
        } else {
            Self::SILENT
        }
    }

    /// The level of a mean square (a full-scale square wave's is 1.0, 0 dB); zero is
    /// silent.
    pub fn from_power(power: f64) -> Self {
        if power > 0.0 {
            Self::from_db(10.0 * power.log10())
        } else {
            Self::SILENT
        }
    }

    /// The number of dB, or `None` when silent.
    pub fn db(self) -> Option<f64> {
        if self.is_silent() { None } else { Some(self.0) }
    }

    /// The number of dB, −∞ when silent (never NaN).
    pub fn value(self) -> f64 {
        self.0
    }

    /// True for silence (−∞).
    pub fn is_silent(self) -> bool {
        self.0 == f64::NEG_INFINITY
    }
}

impl fmt::Display for Level {
    /// `-23.0` (one decimal unless the format asks for another precision), or `-inf`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.db() {
            None => f.write_str("-inf"),
            Some(db) => write!(f, "{db:.*}", f.precision().unwrap_or(1)),
        }
    }
}

/// What a [`LoudnessMeter`] measured so far.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Loudness {
    /// Integrated (programme) loudness in LUFS, gated at −70 LUFS and 10 LU below the
    /// ungated level; silent when nothing was above the −70 LUFS gate.
    pub integrated: Level,
    /// The largest short-term (3 s window) loudness, in LUFS.
    pub max_short_term: Level,
    /// The largest momentary (400 ms window) loudness, in LUFS.
    pub max_momentary: Level,
    /// The true peak over all channels, in dBTP (between-sample peaks included).
    pub true_peak: Level,
    /// The largest absolute sample over all channels, in dBFS.
    pub sample_peak: Level,
}

/// Why a meter could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoudnessError {
    /// The channel count or sample rate is outside what the meter measures.
    #[error(
        "cannot measure the loudness of {channels} channel(s) at {sample_rate} Hz \
         (1 to 64 channels, 16 Hz to 2.8 MHz)"
    )]
    Unsupported {
        /// Channels asked for.
        channels: u16,
        /// Frames per second asked for.
        sample_rate: u32,
    },
}

/// Measures loudness and peaks of interleaved `f32` frames as they come (see the module
/// documentation). Mono is one channel weighted as a front speaker; stereo is left, right.
pub struct LoudnessMeter {
    ebu: EbuR128,
    channels: usize,
    sample_rate: u32,
    /// Frames between two readings of the momentary and short-term loudness (100 ms).
    step: u64,
    /// Frames fed so far.
    frames: u64,
    max_momentary: Level,
    max_short_term: Level,
    /// Reused when a block holds NaN or infinities, which would poison the filters.
    clean: Vec<f32>,
}

impl fmt::Debug for LoudnessMeter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoudnessMeter")
            .field("channels", &self.channels)
            .field("sample_rate", &self.sample_rate)
            .field("frames", &self.frames)
            .finish_non_exhaustive()
    }
}

impl LoudnessMeter {
    /// A meter for `channels` interleaved channels at `sample_rate` frames per second.
    pub fn new(channels: u16, sample_rate: u32) -> Result<Self, LoudnessError> {
        let unsupported = LoudnessError::Unsupported {
            channels,
            sample_rate,
        };
        if channels == 0 {
            return Err(unsupported);
        }
        let mode = Mode::I | Mode::S | Mode::TRUE_PEAK;
        let ebu = EbuR128::new(u32::from(channels), sample_rate, mode).map_err(|_| unsupported)?;
        Ok(Self {
            ebu,
            channels: usize::from(channels),
            sample_rate,
            // The meter's own 100 ms block, rounded as it rounds it.
            step: (u64::from(sample_rate).saturating_add(5) / 10).max(1),
            frames: 0,
            max_momentary: Level::SILENT,
            max_short_term: Level::SILENT,
            clean: Vec::new(),
        })
    }

    /// Channels per frame.
    pub fn channels(&self) -> u16 {
        u16::try_from(self.channels).unwrap_or(u16::MAX)
    }

    /// Frames per second.
    pub fn sample_rate(&self) -> u32 {
        self.sample_rate
    }

    /// Frames fed so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Seconds fed so far.
    pub fn seconds(&self) -> f64 {
        self.frames as f64 / f64::from(self.sample_rate.max(1))
    }

    /// Adds interleaved frames (`channels` samples each; a last incomplete frame is
    /// ignored). NaN counts as silence and infinities as full scale.
    pub fn feed(&mut self, samples: &[f32]) {
        let whole = samples.len() / self.channels * self.channels;
        let samples = &samples[..whole];
        if samples.iter().all(|s| s.is_finite()) {
            self.feed_marks(samples);
            return;
        }
        let mut clean = std::mem::take(&mut self.clean);
        clean.clear();
        clean.extend(
            samples
                .iter()
                .map(|s| if s.is_nan() { 0.0 } else { s.clamp(-1.0, 1.0) }),
        );
        self.feed_marks(&clean);
        self.clean = clean;
    }

    /// Adds whole frames, cut at every 100 ms mark.
    fn feed_marks(&mut self, mut samples: &[f32]) {
        while !samples.is_empty() {
            let to_mark = self.step - self.frames % self.step;
            let frames = (samples.len() / self.channels).min(to_mark as usize);
            let (now, rest) = samples.split_at(frames * self.channels);
            self.add(now);
            samples = rest;
        }
    }

    /// Adds frames that reach at most the next 100 ms mark, and reads the windows there.
    fn add(&mut self, samples: &[f32]) {
        // Cannot fail: the length is a whole number of frames.
        let _ = self.ebu.add_frames_f32(samples);
        self.frames += (samples.len() / self.channels) as u64;
        if self.frames.is_multiple_of(self.step) {
            self.max_momentary = max(self.max_momentary, self.momentary());
            self.max_short_term = max(self.max_short_term, self.short_term());
        }
    }

    /// The momentary loudness now: the last 400 ms, in LUFS.
    pub fn momentary(&self) -> Level {
        Level::from_db(self.ebu.loudness_momentary().unwrap_or(f64::NEG_INFINITY))
    }

    /// The short-term loudness now: the last 3 s, in LUFS.
    pub fn short_term(&self) -> Level {
        Level::from_db(self.ebu.loudness_shortterm().unwrap_or(f64::NEG_INFINITY))
    }

    /// The figures for everything fed so far.
    pub fn loudness(&self) -> Loudness {
        let peak = |read: fn(&EbuR128, u32) -> Result<f64, ebur128::Error>| {
            let channels = 0..u32::try_from(self.channels).unwrap_or(0);
            let largest = channels
                .filter_map(|c| read(&self.ebu, c).ok())
                .fold(0.0f64, f64::max);
            Level::from_amplitude(largest)
        };
        Loudness {
            integrated: Level::from_db(self.ebu.loudness_global().unwrap_or(f64::NEG_INFINITY)),
            max_short_term: max(self.max_short_term, self.short_term()),
            max_momentary: max(self.max_momentary, self.momentary()),
            true_peak: peak(EbuR128::true_peak),
            sample_peak: peak(EbuR128::sample_peak),
        }
    }
}

/// The larger of two levels.
fn max(a: Level, b: Level) -> Level {
    if b.0 > a.0 { b } else { a }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `seconds` of a sine of `hz` with peak amplitude `dbfs`, in every channel.
    fn sine(channels: usize, rate: u32, hz: f64, dbfs: f64, phase: f64, seconds: f64) -> Vec<f32> {
        let amplitude = 10f64.powf(dbfs / 20.0);
        let frames = (seconds * f64::from(rate)) as usize;
        (0..frames)
            .flat_map(|n| {
                let t = n as f64 / f64::from(rate);
                let s = (amplitude * (std::f64::consts::TAU * hz * t + phase).sin()) as f32;
                std::iter::repeat_n(s, channels)
            })
            .collect()
    }

    fn measure(channels: u16, rate: u32, samples: &[f32]) -> Loudness {
        let mut meter = LoudnessMeter::new(channels, rate).expect("meter");
        meter.feed(samples);
        meter.loudness()
    }

    fn assert_near(level: Level, expected: f64, tolerance: f64, what: &str) {
        let db = level.db().unwrap_or_else(|| panic!("{what} is silent"));
        assert!(
            (db - expected).abs() <= tolerance,
            "{what}: {db} is not {expected} ± {tolerance}"
        );
    }

    #[test]
    fn a_stereo_sine_at_minus_23_dbfs_reads_minus_23_lufs() {
        // EBU Tech 3341, case 1: 1 kHz, −23 dBFS in both channels, 20 s.
        let samples = sine(2, 48_000, 1000.0, -23.0, 0.0, 20.0);
        let loudness = measure(2, 48_000, &samples);
        assert_near(loudness.integrated, -23.0, 0.1, "integrated");
        assert_near(loudness.max_momentary, -23.0, 0.1, "max momentary");
        assert_near(loudness.max_short_term, -23.0, 0.1, "max short-term");
        assert_near(loudness.sample_peak, -23.0, 0.01, "sample peak");
    }

    #[test]
    fn a_stereo_sine_at_minus_33_dbfs_reads_minus_33_lufs() {
        // EBU Tech 3341, case 2, at 44.1 kHz.
        let samples = sine(2, 44_100, 1000.0, -33.0, 0.0, 20.0);
        let loudness = measure(2, 44_100, &samples);
        assert_near(loudness.integrated, -33.0, 0.1, "integrated");
    }

    #[test]
    fn a_mono_sine_counts_as_one_front_speaker() {
        // One channel at −20 dBFS carries the power of two at −23 dBFS: −23 LUFS.
        let samples = sine(1, 48_000, 1000.0, -20.0, 0.0, 5.0);
        let loudness = measure(1, 48_000, &samples);
        assert_near(loudness.integrated, -23.0, 0.1, "integrated");
    }

    #[test]
    fn a_full_scale_sine_peaks_at_0_dbtp() {
        let samples = sine(2, 48_000, 1000.0, 0.0, 0.0, 2.0);
        let loudness = measure(2, 48_000, &samples);
        assert_near(loudness.true_peak, 0.0, 0.1, "true peak");
        assert_near(loudness.sample_peak, 0.0, 0.01, "sample peak");
    }

    #[test]
    fn the_true_peak_sees_between_the_samples() {
        // A quarter-rate sine sampled 45° off its crests: every sample is at ±0.707
        // (−3 dBFS) but the wave between them reaches full scale.
        let samples = sine(2, 48_000, 12_000.0, 0.0, std::f64::consts::FRAC_PI_4, 2.0);
        let loudness = measure(2, 48_000, &samples);
        assert_near(loudness.sample_peak, -3.01, 0.01, "sample peak");
        assert_near(loudness.true_peak, 0.0, 0.3, "true peak");
    }

    #[test]
    fn silence_reads_silent_never_nan() {
        let loudness = measure(2, 48_000, &vec![0.0; 2 * 48_000 * 5]);
        for level in [
            loudness.integrated,
            loudness.max_short_term,
            loudness.max_momentary,
            loudness.true_peak,
            loudness.sample_peak,
        ] {
            assert!(level.is_silent(), "{level:?}");
            assert_eq!(level.db(), None);
            assert_eq!(level.to_string(), "-inf");
            assert!(level < Level::from_db(-200.0));
        }
        // Nothing fed at all reads the same.
        let empty = LoudnessMeter::new(2, 48_000).expect("meter").loudness();
        assert!(empty.integrated.is_silent() && empty.true_peak.is_silent());
    }

    #[test]
    fn how_the_input_is_cut_changes_nothing() {
        let mut samples = sine(2, 48_000, 440.0, -12.0, 0.0, 1.5);
        samples.extend(sine(2, 48_000, 3000.0, -6.0, 0.0, 2.5));
        let whole = measure(2, 48_000, &samples);
        let mut meter = LoudnessMeter::new(2, 48_000).expect("meter");
        for piece in samples.chunks(2 * 997) {
            meter.feed(piece);
        }
        assert_eq!(meter.loudness(), whole);
        assert_eq!(meter.frames(), 48_000 * 4);
        assert!((meter.seconds() - 4.0).abs() < 1e-9);
    }

    #[test]
    fn the_figures_so_far_can_be_read_mid_way() {
        let mut meter = LoudnessMeter::new(2, 48_000).expect("meter");
        meter.feed(&sine(2, 48_000, 1000.0, -23.0, 0.0, 5.0));
        let loud = meter.loudness();
        assert_near(loud.integrated, -23.0, 0.1, "integrated after the tone");
        assert_near(meter.momentary(), -23.0, 0.1, "momentary during the tone");
        meter.feed(&vec![0.0; 2 * 48_000 * 5]);
        let after = meter.loudness();
        // Silence is gated out: the integrated loudness stays near −23 LUFS (the blocks
        // where the tone stops weigh a little), not the −26 LUFS of an average over 10 s;
        // the maxima and the peaks stay as they were.
        assert_near(after.integrated, -23.0, 0.2, "integrated after silence");
        assert_eq!(after.max_momentary, loud.max_momentary);
        assert!(meter.momentary().is_silent());
        assert_eq!(after.true_peak, loud.true_peak);
    }

    #[test]
    fn nan_and_infinity_do_not_poison_the_meter() {
        let mut meter = LoudnessMeter::new(2, 48_000).expect("meter");
        meter.feed(&[f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, 0.5]);
        meter.feed(&sine(2, 48_000, 1000.0, -23.0, 0.0, 5.0));
        let loudness = meter.loudness();
        assert_eq!(meter.frames(), 2 + 48_000 * 5);
        assert_near(loudness.integrated, -23.0, 0.1, "integrated");
        assert_near(
            loudness.sample_peak,
            0.0,
            0.001,
            "the infinities count as full scale",
        );
    }

    #[test]
    fn levels_never_hold_nan() {
        assert!(Level::from_db(f64::NAN).is_silent());
        assert!(Level::from_amplitude(0.0).is_silent());
        assert!(Level::from_power(-1.0).is_silent());
        assert_eq!(Level::from_amplitude(1.0).db(), Some(0.0));
        assert_eq!(format!("{:.2}", Level::from_db(-1.234)), "-1.23");
        assert_eq!(Level::from_db(-1.25).to_string(), "-1.2");
        assert!(LoudnessMeter::new(0, 48_000).is_err());
        assert!(LoudnessMeter::new(2, 1).is_err());
    }
}
