//! The XA codec itself: Maxis 4-bit ADPCM, one block of up to 28 frames at a time, into
//! 16-bit samples. Pure arithmetic on bytes; the layout of a block is in the parent module.

/// Frames in a whole block.
pub(crate) const BLOCK_FRAMES: usize = 28;

/// The prediction filters' coefficients (c1, c2), by filter number (the high nibble of a
/// channel's control byte).
const FILTERS: [(i32, i32); 4] = [(0, 0), (240, 0), (460, -208), (392, -220)];

/// One channel's predictor: the last two samples it produced.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Channel {
    cur: i32,
    prev: i32,
}

impl Channel {
    /// Decodes one nibble with prediction filter `(c1, c2)` and divisor `shift + 8`.
    fn decode(&mut self, nibble: u8, (c1, c2): (i32, i32), divisor: u32) -> i16 {
        // The nibble into the top of a signed 32-bit value, then an arithmetic shift
        // sign-extends and scales it.
        let value = (i32::from(nibble & 0x0F) << 28) >> divisor;
        let predicted = value + self.cur * c1 + self.prev * c2 + 128;
        let out = (predicted >> 8).clamp(i32::from(i16::MIN), i32::from(i16::MAX));
        self.prev = self.cur;
        self.cur = out;
        // Clamped to the i16 range just above.
        i16::try_from(out).unwrap_or_default()
    }
}

/// A control byte whose filter XA does not have: the data is damaged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BadFilter {
    /// The channel (0 = first) whose control byte it is.
    pub channel: usize,
    /// The filter number it gives (4–15).
    pub filter: u8,
}

/// Decodes one block of `frames` frames (1–28) of `channels.len()` channels from `bytes`
/// (the block: one control byte per channel, then `ceil(frames / 2)` rows of one byte per
/// channel) and appends the interleaved samples to `out`.
///
/// `bytes` must hold the whole block (`block_bytes` says how many); a shorter slice
/// decodes as if the rest were zero bytes. Refused, appending nothing, when a control byte
/// names a filter XA does not have.
pub(crate) fn decode_block(
    bytes: &[u8],
    frames: usize,
    channels: &mut [Channel],
    out: &mut Vec<i16>,
) -> Result<(), BadFilter> {
    let count = channels.len();
    let byte = |at: usize| bytes.get(at).copied().unwrap_or(0);
    let mut params = [((0, 0), 8u32); 8];
    for (channel, param) in params.iter_mut().enumerate().take(count) {
        let control = byte(channel);
        let filter = control >> 4;
        let coefficients = FILTERS
            .get(usize::from(filter))
            .copied()
            .ok_or(BadFilter { channel, filter })?;
        *param = (coefficients, u32::from(control & 0x0F) + 8);
    }
    let frames = frames.min(BLOCK_FRAMES);
    out.reserve(frames * count);
    for frame in 0..frames {
        let row = count + (frame / 2) * count;
        // The high nibble is the earlier frame of the row.
        let high = frame % 2 == 0;
        for (channel, state) in channels.iter_mut().enumerate() {
            let b = byte(row + channel);
            let nibble = if high { b >> 4 } else { b & 0x0F };
            let (coefficients, divisor) = params.get(channel).copied().unwrap_or(((0, 0), 8));
            out.push(state.decode(nibble, coefficients, divisor));
        }
    }
    Ok(())
}

/// Bytes of one block of `frames` frames (1–28) of `channels` channels.
pub(crate) fn block_bytes(frames: u64, channels: u64) -> u64 {
    channels * (1 + frames.min(BLOCK_FRAMES as u64).div_ceil(2))
}

/// Bytes of sample data `frames` frames of `channels` channels take: per channel one
/// control byte per block of 28 frames and one byte per two frames.
pub(crate) fn data_bytes(frames: u64, channels: u64) -> u64 {
    channels.saturating_mul(frames.div_ceil(BLOCK_FRAMES as u64) + frames.div_ceil(2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nibble_is_scaled_by_its_divisor_and_predicted_from_the_last_two() {
        let mut ch = Channel::default();
        // Nibble 7 at shift 0: (7 << 28) >> 8 = 7 << 20; (7 << 20 + 128) >> 8 = 28672.
        assert_eq!(ch.decode(7, (0, 0), 8), 28_672);
        // Nibble 8 is −8: −32768 exactly.
        assert_eq!(ch.decode(8, (0, 0), 8), -32_768);
        // Filter 1 predicts 240/256 of the last sample: (−32768 · 240 + 128) >> 8.
        assert_eq!(ch.decode(0, (240, 0), 23), -30_720);
        // Prediction past full scale is clipped.
        let mut loud = Channel {
            cur: 32_767,
            prev: -32_768,
        };
        assert_eq!(loud.decode(7, (460, -208), 8), 32_767);
    }

    #[test]
    fn a_block_interleaves_channels_and_reads_the_high_nibble_first() {
        let mut channels = [Channel::default(); 2];
        let mut out = Vec::new();
        // Controls: filter 0, shift 12 (divisor 20) for both; one row: 0x10, 0x20.
        decode_block(&[0x0C, 0x0C, 0x10, 0x20], 2, &mut channels, &mut out).unwrap();
        // (1 << 28) >> 20 = 256 → (256 + 128) >> 8 = 1; (2 << 28) >> 20 = 512 → 2.
        assert_eq!(out, [1, 2, 0, 0]);
    }

    #[test]
    fn a_filter_xa_does_not_have_is_refused() {
        let mut channels = [Channel::default(); 2];
        let mut out = Vec::new();
        let e = decode_block(&[0x00, 0x4F, 0, 0], 2, &mut channels, &mut out).unwrap_err();
        assert_eq!(
            e,
            BadFilter {
                channel: 1,
                filter: 4
            }
        );
        assert!(out.is_empty());
    }

    #[test]
    fn sizes_count_a_control_byte_per_block_and_a_byte_per_two_frames() {
        assert_eq!(block_bytes(28, 2), 30);
        assert_eq!(block_bytes(3, 1), 3);
        // The two fixtures: 12375 mono frames, 31041 stereo frames.
        assert_eq!(data_bytes(12_375, 1), 6_630);
        assert_eq!(data_bytes(31_041, 2), 33_260);
        assert_eq!(data_bytes(0, 2), 0);
    }
}
