//! Sample time and the engine tick: the engine ticks at a configurable rate and tick k
//! starts at exactly ⌊k · sample_rate / tick_rate⌋, so ticks never drift however long
//! the engine runs (22,050 Hz at 60 Hz alternates 367 and 368 samples).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in time, counted in samples at the engine's sample rate since it started —
/// a type of its own so a time is never mistaken for a length, a tick number, a frame of
/// a sample file at another rate, or milliseconds. `time + samples` is a later time;
/// `later - earlier` the samples between them (0 if `later` is not later).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct SampleTime(u64);

impl SampleTime {
    /// The start.
    pub const ZERO: Self = Self(0);
    /// Never (a thread sleeping until it is woken).
    pub const MAX: Self = Self(u64::MAX);

    /// The time `samples` samples after the start.
    pub const fn from_samples(samples: u64) -> Self {
        Self(samples)
    }

    /// Samples since the start.
    pub const fn samples(self) -> u64 {
        self.0
    }

    /// `samples` later, stopping at [`SampleTime::MAX`].
    pub const fn saturating_add(self, samples: u64) -> Self {
        Self(self.0.saturating_add(samples))
    }

    /// `samples` earlier, stopping at the start.
    pub const fn saturating_sub(self, samples: u64) -> Self {
        Self(self.0.saturating_sub(samples))
    }
}

impl Add<u64> for SampleTime {
    type Output = SampleTime;

    fn add(self, samples: u64) -> SampleTime {
        self.saturating_add(samples)
    }
}

impl AddAssign<u64> for SampleTime {
    fn add_assign(&mut self, samples: u64) {
        *self = self.saturating_add(samples);
    }
}

impl Sub for SampleTime {
    type Output = u64;

    /// Samples from `earlier` to `self` (0 when `self` is not later).
    fn sub(self, earlier: SampleTime) -> u64 {
        self.0.saturating_sub(earlier.0)
    }
}

impl fmt::Display for SampleTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sample {}", self.0)
    }
}

/// The engine's tick schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    sample_rate: u32,
    tick_rate: u32,
    tick: u64,
    /// When the current tick and the two after it start (`tick_start` of `tick`,
    /// `tick + 1`, `tick + 2`): most wakes fall in those, and [`tick_of`](Self::tick_of)
    /// finds them by comparing instead of dividing.
    starts: [SampleTime; 3],
}

impl Clock {
    /// A clock at tick 0. Rates of 0 are treated as 1.
    pub fn new(sample_rate: u32, tick_rate: u32) -> Self {
        let mut clock = Self {
            sample_rate: sample_rate.max(1),
            tick_rate: tick_rate.max(1),
            tick: 0,
            starts: [SampleTime::ZERO; 3],
        };
        clock.starts = [0, 1, 2].map(|k| clock.tick_start(k));
        clock
    }

    /// Samples per second.
    pub fn sample_rate(&self) -> u32 {
        self.sample_rate
    }

    /// Ticks per second.
    pub fn tick_rate(&self) -> u32 {
        self.tick_rate
    }

    /// The number of the current tick.
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// When tick `k` starts.
    pub fn tick_start(&self, k: u64) -> SampleTime {
        SampleTime(match k.checked_mul(u64::from(self.sample_rate)) {
            Some(product) => product / u64::from(self.tick_rate),
            None => {
                ((u128::from(k) * u128::from(self.sample_rate)) / u128::from(self.tick_rate)) as u64
            }
        })
    }

    /// When the current tick starts ("now").
    pub fn now(&self) -> SampleTime {
        self.starts[0]
    }

    /// When the current tick ends (the next one starts).
    pub fn tick_end(&self) -> SampleTime {
        self.starts[1]
    }

    /// Moves on to the next tick.
    pub fn advance(&mut self) {
        self.tick += 1;
        self.starts = [
            self.starts[1],
            self.starts[2],
            self.tick_start(self.tick + 2),
        ];
    }

    /// Milliseconds as a number of samples (rounded to nearest; negative is 0).
    pub fn ms_to_samples(&self, ms: i64) -> u64 {
        if ms <= 0 {
            return 0;
        }
        ((i128::from(ms) * i128::from(self.sample_rate) + 500) / 1000) as u64
    }

    /// A time as seconds since the start.
    pub fn seconds(&self, time: SampleTime) -> f64 {
        time.0 as f64 / f64::from(self.sample_rate)
    }

    /// The time `seconds` after the start (rounded to the nearest sample; negative is
    /// the start).
    pub fn at_seconds(&self, seconds: f64) -> SampleTime {
        SampleTime((seconds.max(0.0) * f64::from(self.sample_rate)).round() as u64)
    }

    /// The tick that contains `time` (starts at or before it, ends after it).
    pub fn tick_of(&self, time: SampleTime) -> u64 {
        // Most wakes fall in the current tick or the next (a track that updates every
        // tick): two comparisons find those for less than the division costs.
        let [now, next, after] = self.starts;
        if time >= now && time < after {
            return self.tick + u64::from(time >= next);
        }
        // The last k with ⌊k·sample_rate / tick_rate⌋ ≤ time, that is with
        // k·sample_rate < (time + 1)·tick_rate: ⌊((time + 1)·tick_rate − 1) / sample_rate⌋.
        // One division.
        let (rate, samples) = (u64::from(self.tick_rate), u64::from(self.sample_rate));
        match time.0.checked_add(1).and_then(|t| t.checked_mul(rate)) {
            Some(product) => (product - 1) / samples,
            None => ((u128::from(time.0) + 1) * u128::from(rate) - 1)
                .div_euclid(u128::from(samples)) as u64,
        }
    }

    /// The first tick that starts at or after `time`.
    pub fn first_tick_at_or_after(&self, time: SampleTime) -> u64 {
        let time = time.0;
        // ⌈time · tick_rate / sample_rate⌉, then nudge for the floor in tick_start.
        let mut k = ((u128::from(time) * u128::from(self.tick_rate))
            .div_ceil(u128::from(self.sample_rate))) as u64;
        while k > 0 && self.tick_start(k - 1).0 >= time {
            k -= 1;
        }
        while self.tick_start(k).0 < time {
            k += 1;
        }
        k
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// When tick `k` starts, without overflow.
    fn tick_start_exact(clock: &Clock, k: u64) -> u128 {
        u128::from(k) * u128::from(clock.sample_rate) / u128::from(clock.tick_rate)
    }

    #[test]
    fn every_time_is_in_the_tick_tick_of_names() {
        for (rate, ticks) in [(48_000, 60), (22_050, 60), (44_100, 47), (8_000, 1000)] {
            let clock = Clock::new(rate, ticks);
            for t in (0..200_000u64).chain([u64::MAX / 3, u64::MAX - 1]) {
                let k = clock.tick_of(SampleTime::from_samples(t));
                assert!(
                    tick_start_exact(&clock, k) <= u128::from(t)
                        && u128::from(t) < tick_start_exact(&clock, k + 1),
                    "{rate} Hz, {ticks} ticks/s, t = {t}: tick {k}"
                );
            }
        }
    }

    #[test]
    fn a_clock_that_moved_on_names_the_same_ticks() {
        // Around the current tick tick_of compares with the starts it keeps; elsewhere
        // it divides. Both agree with the exact start of every tick.
        for (rate, ticks) in [(48_000, 60), (22_050, 60), (44_100, 47), (8_000, 1000)] {
            let mut clock = Clock::new(rate, ticks);
            for _ in 0..1_000 {
                clock.advance();
                let k = clock.tick();
                assert_eq!(clock.now().0 as u128, tick_start_exact(&clock, k));
                assert_eq!(clock.tick_end().0 as u128, tick_start_exact(&clock, k + 1));
                let from = tick_start_exact(&clock, k.saturating_sub(2)) as u64;
                let to = tick_start_exact(&clock, k + 4) as u64;
                for t in from..to {
                    let of = clock.tick_of(SampleTime::from_samples(t));
                    assert!(
                        tick_start_exact(&clock, of) <= u128::from(t)
                            && u128::from(t) < tick_start_exact(&clock, of + 1),
                        "{rate} Hz, {ticks} ticks/s, at tick {k}, t = {t}: tick {of}"
                    );
                }
            }
        }
    }

    #[test]
    fn ticks_never_drift() {
        let mut clock = Clock::new(22_050, 60);
        for _ in 0..60 * 3600 {
            clock.advance();
        }
        assert_eq!(clock.now(), SampleTime::from_samples(22_050 * 3600));
        let lengths: Vec<u64> = (0..4)
            .map(|k| clock.tick_start(k + 1) - clock.tick_start(k))
            .collect();
        assert_eq!(lengths, vec![367, 368, 367, 368]);
    }

    #[test]
    fn conversions() {
        let clock = Clock::new(48_000, 60);
        assert_eq!(clock.ms_to_samples(1000), 48_000);
        assert_eq!(clock.ms_to_samples(-5), 0);
        assert_eq!(clock.tick_end(), SampleTime::from_samples(800));
        assert_eq!(clock.first_tick_at_or_after(SampleTime::from_samples(0)), 0);
        assert_eq!(clock.first_tick_at_or_after(SampleTime::from_samples(1)), 1);
        assert_eq!(
            clock.first_tick_at_or_after(SampleTime::from_samples(800)),
            1
        );
        assert_eq!(
            clock.first_tick_at_or_after(SampleTime::from_samples(801)),
            2
        );
        assert_eq!(clock.tick_of(SampleTime::from_samples(0)), 0);
        assert_eq!(clock.tick_of(SampleTime::from_samples(799)), 0);
        assert_eq!(clock.tick_of(SampleTime::from_samples(800)), 1);
        let odd = Clock::new(22_050, 60);
        for t in [
            0u64,
            366,
            367,
            368,
            734,
            735,
            736,
            99_999,
            u64::MAX - 1,
            u64::MAX / 7,
        ] {
            let k = odd.tick_of(SampleTime::from_samples(t));
            assert!(
                odd.tick_start(k) <= SampleTime::from_samples(t)
                    && u128::from(t) < tick_start_exact(&odd, k + 1),
                "{t}"
            );
        }
        for t in [0, 1, 367, 368, 735, 736, 10_000] {
            let k = odd.first_tick_at_or_after(SampleTime::from_samples(t));
            assert!(
                odd.tick_start(k) >= SampleTime::from_samples(t)
                    && (k == 0 || odd.tick_start(k - 1) < SampleTime::from_samples(t)),
                "{t}"
            );
        }
    }
}
