//! The buffer a whole-file decode fills: each allocation is reserved from a
//! [`MemoryBudget`] before it happens, and the decoded size is held to
//! [`DecodeLimits::max_bytes`].

use super::{DecodeError, DecodeLimits};
use crate::sound::audio::MemoryBudget;

const SAMPLE_BYTES: usize = size_of::<f32>();

/// Decoded samples being collected. Dropped unfinished (a failed decode), it gives its
/// reservation back; [`finish`](Self::finish) hands the samples over with theirs.
pub(crate) struct Output<'b> {
    data: Vec<f32>,
    budget: &'b mut dyn MemoryBudget,
    /// Bytes reserved for `data`'s allocation.
    reserved: usize,
    max_samples: usize,
    max_bytes: usize,
}

impl<'b> Output<'b> {
    pub(crate) fn new(budget: &'b mut dyn MemoryBudget, limits: &DecodeLimits) -> Self {
        Self {
            data: Vec::new(),
            budget,
            reserved: 0,
            max_samples: limits.max_bytes / SAMPLE_BYTES,
            max_bytes: limits.max_bytes,
        }
    }

    /// The samples so far, to append to (within the room made for them).
    pub(crate) fn samples(&mut self) -> &mut Vec<f32> {
        &mut self.data
    }

    /// Samples that can still be added under the size limit.
    pub(crate) fn room(&self) -> usize {
        self.max_samples.saturating_sub(self.data.len())
    }

    /// The error for audio that goes on past the size limit (its whole size unknown).
    pub(crate) fn too_large(&self) -> DecodeError {
        DecodeError::TooLarge {
            decoded_bytes: None,
            max_bytes: self.max_bytes,
        }
    }

    /// Makes room for exactly `total` samples, the length the headers give: refused with
    /// the decoded size when that is over the limit, before anything is allocated.
    pub(crate) fn expect(&mut self, total: u64) -> Result<(), DecodeError> {
        let fits = usize::try_from(total)
            .ok()
            .filter(|&n| n <= self.max_samples);
        let Some(total) = fits else {
            return Err(DecodeError::TooLarge {
                decoded_bytes: Some(total.saturating_mul(SAMPLE_BYTES as u64)),
                max_bytes: self.max_bytes,
            });
        };
        if total > self.data.capacity() {
            self.grow_to(total)?;
        }
        Ok(())
    }

    /// Makes room for `more` samples after those held, growing by doubling (up to the
    /// limit) so that a long decode reallocates only a few times.
    pub(crate) fn room_for(&mut self, more: usize) -> Result<(), DecodeError> {
        let needed = self.data.len().saturating_add(more);
        if needed > self.max_samples {
            return Err(self.too_large());
        }
        if needed <= self.data.capacity() {
            return Ok(());
        }
        let target = self
            .data
            .capacity()
            .saturating_mul(2)
            .min(self.max_samples)
            .max(needed);
        self.grow_to(target)
    }

    /// Reallocates to hold `target` samples. The new block is reserved while the old one is
    /// still counted: both exist for a moment when the allocation moves.
    fn grow_to(&mut self, target: usize) -> Result<(), DecodeError> {
        let bytes = target.saturating_mul(SAMPLE_BYTES);
        self.budget
            .reserve(bytes)
            .map_err(|why| DecodeError::Refused { why })?;
        self.data
            .reserve_exact(target.saturating_sub(self.data.len()));
        self.budget.release(self.reserved);
        self.reserved = bytes;
        Ok(())
    }

    /// The decoded samples, without spare capacity when the room made for them was not all
    /// used (and the budget allows the copy a shrink may make). Their reservation stays taken.
    pub(crate) fn finish(mut self) -> Vec<f32> {
        let used = self.data.len() * SAMPLE_BYTES;
        if self.data.capacity() > self.data.len() && self.budget.reserve(used).is_ok() {
            self.data.shrink_to_fit();
            self.budget.release(self.reserved);
            self.reserved = used;
        }
        self.reserved = 0;
        std::mem::take(&mut self.data)
    }
}

impl Drop for Output<'_> {
    fn drop(&mut self) {
        // Unfinished: the samples are freed with us, so is their reservation.
        self.budget.release(self.reserved);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sound::audio::BudgetError;

    /// A budget of `left` bytes that records the most it ever granted at once.
    #[derive(Default)]
    struct Meter {
        left: usize,
        taken: usize,
        most: usize,
    }

    impl MemoryBudget for Meter {
        fn reserve(&mut self, bytes: usize) -> Result<(), BudgetError> {
            if bytes > self.left {
                return Err(BudgetError::Exhausted { left: self.left });
            }
            self.left -= bytes;
            self.taken += bytes;
            self.most = self.most.max(self.taken);
            Ok(())
        }

        fn release(&mut self, bytes: usize) {
            self.left += bytes;
            self.taken -= bytes;
        }
    }

    fn limits(max_bytes: usize) -> DecodeLimits {
        DecodeLimits {
            max_bytes,
            ..DecodeLimits::default()
        }
    }

    #[test]
    fn a_known_length_is_reserved_once_and_exactly() {
        let mut meter = Meter {
            left: 1000,
            ..Meter::default()
        };
        let mut out = Output::new(&mut meter, &limits(400));
        out.expect(100).unwrap();
        out.samples().extend(std::iter::repeat_n(0.5, 100));
        let data = out.finish();
        assert_eq!((data.len(), data.capacity()), (100, 100));
        assert_eq!((meter.taken, meter.most), (400, 400));
    }

    #[test]
    fn over_the_limit_is_refused_with_the_size_before_allocating() {
        let mut meter = Meter {
            left: 1 << 40,
            ..Meter::default()
        };
        let mut out = Output::new(&mut meter, &limits(400));
        let e = out.expect(101).unwrap_err();
        assert!(matches!(
            e,
            DecodeError::TooLarge {
                decoded_bytes: Some(404),
                max_bytes: 400
            }
        ));
        drop(out);
        assert_eq!(meter.most, 0);
    }

    #[test]
    fn growth_reserves_first_and_a_failure_gives_everything_back() {
        let mut meter = Meter {
            left: 1 << 20,
            ..Meter::default()
        };
        let mut out = Output::new(&mut meter, &limits(4000));
        for _ in 0..9 {
            out.room_for(100).unwrap();
            let samples = out.samples();
            let capacity = samples.capacity();
            samples.extend(std::iter::repeat_n(0.0, 100));
            assert_eq!(samples.capacity(), capacity, "room was made first");
        }
        assert_eq!(out.room(), 100);
        assert!(out.room_for(100).is_ok());
        assert!(matches!(
            out.room_for(101),
            Err(DecodeError::TooLarge {
                decoded_bytes: None,
                ..
            })
        ));
        drop(out);
        assert_eq!(meter.taken, 0, "a failed decode keeps nothing reserved");
        assert!(meter.most <= 4000 * 2, "{}", meter.most);
    }

    #[test]
    fn a_refusing_budget_stops_the_decode() {
        let mut meter = Meter {
            left: 100,
            ..Meter::default()
        };
        let mut out = Output::new(&mut meter, &limits(4000));
        let e = out.room_for(26).unwrap_err();
        assert_eq!(
            e.to_string(),
            "no memory left for the decoded samples: only 100 bytes left"
        );
        drop(out);
        assert_eq!(meter.taken, 0);
    }

    #[test]
    fn unused_room_is_given_back_on_finish() {
        let mut meter = Meter {
            left: 1 << 20,
            ..Meter::default()
        };
        let mut out = Output::new(&mut meter, &limits(4000));
        out.expect(500).unwrap();
        out.samples().extend(std::iter::repeat_n(0.0, 10));
        let data = out.finish();
        assert_eq!(data.len(), 10);
        assert_eq!(meter.taken, 40);
    }
}
