//! The mixer's inner loops: how one voice's frames are interpolated from its sample and
//! added to a stereo bus — linear (2 points) or cubic (4 points, Catmull-Rom) — one frame
//! at a time for the general case, and eight frames at a time with 4-lane SIMD (the `wide`
//! crate; SSE2 on x86-64) for the common one: a mono sample at a steady gain and pan,
//! read at no more than one source frame per output frame.
//!
//! Every frame is computed by the same arithmetic, one frame or eight at a time: the
//! position of frame k is exactly `pos + k·step` in 32.32 fixed point, its fraction the
//! top 24 bits of the low word, and the lanes repeat the one-frame code's operations in
//! the same order (no fused multiply-add). So a render is bit-for-bit the same however its
//! blocks are cut, and bit-for-bit the same on every run. Nothing here allocates, locks or
//! does IO: it runs on the audio thread.

#[cfg(target_arch = "x86_64")]
use fearless_simd::{Avx2, Simd as _};
use std::sync::OnceLock;
use wide::{f32x4, i32x4, u32x4};

/// One in 32.32 fixed point.
pub const ONE: u64 = 1 << 32;

/// 2^−24: the weight of the last bit of a 24-bit fraction.
const FRAC_UNIT: f32 = 1.0 / (1u32 << 24) as f32;

/// The fractional part of a 32.32 position as 0…1 (24 bits, exact in `f32`).
#[inline]
pub fn frac(pos: u64) -> f32 {
    ((pos as u32) >> 8) as f32 * FRAC_UNIT
}

/// How a voice reads between the frames of its sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Interpolation {
    /// Straight lines between neighbouring frames (2 points): the fastest.
    #[default]
    Linear,
    /// A Catmull-Rom cubic through four neighbouring frames: smoother highs and less
    /// aliasing when a sample is pitched, at about twice the cost. Passes through every
    /// sample point exactly.
    Cubic,
}

impl Interpolation {
    /// Source frames the interpolation reads before the frame at the position.
    pub fn before(self) -> usize {
        match self {
            Self::Linear => 0,
            Self::Cubic => 1,
        }
    }

    /// Source frames it reads after the frame at the position.
    pub fn after(self) -> usize {
        match self {
            Self::Linear => 1,
            Self::Cubic => 2,
        }
    }

    /// The name used in settings and messages (`linear`, `cubic`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Linear => "linear",
            Self::Cubic => "cubic",
        }
    }

    /// Reads a name written by [`Interpolation::name`].
    pub fn parse(name: &str) -> Option<Self> {
        match name.trim().to_ascii_lowercase().as_str() {
            "linear" => Some(Self::Linear),
            "cubic" => Some(Self::Cubic),
            _ => None,
        }
    }
}

/// Linear interpolation between `a` (at 0) and `b` (at 1).
#[inline(always)]
pub fn linear(a: f32, b: f32, f: f32) -> f32 {
    a + (b - a) * f
}

/// Catmull-Rom interpolation between `x0` (at 0) and `x1` (at 1), with their outer
/// neighbours `xm1` and `x2`.
#[inline(always)]
pub fn cubic(xm1: f32, x0: f32, x1: f32, x2: f32, f: f32) -> f32 {
    let c1 = (x1 - xm1) * 0.5;
    let c2 = xm1 - x0 * 2.5 + x1 * 2.0 - x2 * 0.5;
    let c3 = (x2 - xm1) * 0.5 + (x0 - x1) * 1.5;
    ((c3 * f + c2) * f + c1) * f + x0
}

/// Lanes of the SIMD loops: eight frames per iteration, two vectors of four.
const LANES: usize = 8;
/// Source frames one SIMD iteration may read, from its first point on: with at most one
/// source frame per output frame, lane 7 is at most 7 frames on, and reads up to 3 more.
const WINDOW: usize = LANES + 3;

/// The low words of the positions of frames `k..k+4` after `pos` (wrapping, exact).
#[inline(always)]
fn low_words(pos: u64, step: u64, k: u64) -> u32x4 {
    let at = |i: u64| (pos.wrapping_add(step.wrapping_mul(k + i))) as u32;
    u32x4::new([at(0), at(1), at(2), at(3)])
}

/// The 24-bit fractions of four low words as 0…1.
#[inline(always)]
fn fractions(low: u32x4) -> f32x4 {
    let top = (low >> 8_u32).to_array().map(|x| x as i32);
    f32x4::from_i32x4(i32x4::new(top)) * f32x4::splat(FRAC_UNIT)
}

/// Adds four mono frames `v`, at the left and right gains `g` (`[l, r, l, r]`), to eight
/// interleaved bus samples.
#[inline(always)]
fn add_stereo(out: &mut [f32], v: f32x4, g: f32x4) {
    let [v0, v1, v2, v3] = v.to_array();
    let (first, second) = out.split_at_mut(4);
    if let (Ok(first), Ok(second)) = (
        <&mut [f32; 4]>::try_from(first),
        <&mut [f32; 4]>::try_from(second),
    ) {
        *first = (f32x4::new(*first) + f32x4::new([v0, v0, v1, v1]) * g).to_array();
        *second = (f32x4::new(*second) + f32x4::new([v2, v2, v3, v3]) * g).to_array();
    }
}

/// Where four frames read in a window: lane offsets from the window's first frame
/// (masked so the reads need no bounds check; they are exact while `step` ≤ [`ONE`]).
#[inline(always)]
fn offsets(low: u64, steps: &[u64; 4]) -> [usize; 4] {
    [
        ((low + steps[0]) >> 32) as usize & (LANES - 1),
        ((low + steps[1]) >> 32) as usize & (LANES - 1),
        ((low + steps[2]) >> 32) as usize & (LANES - 1),
        ((low + steps[3]) >> 32) as usize & (LANES - 1),
    ]
}

/// Four linear frames from a window, added to eight bus samples.
#[inline(always)]
fn linear4(w: &[f32; WINDOW], r: [usize; 4], lows: u32x4, g: f32x4, out: &mut [f32]) {
    // Each lane's two points as one pair, then transposed: pair loads, few shuffles.
    let at = |r: usize| f32x4::new([w[r], w[r + 1], 0.0, 0.0]);
    let [a, b, _, _] = f32x4::transpose([at(r[0]), at(r[1]), at(r[2]), at(r[3])]);
    add_stereo(out, a + (b - a) * fractions(lows), g);
}

/// Four cubic frames from a window (lane k's points at `r[k]..r[k] + 4`), added to
/// eight bus samples.
#[inline(always)]
fn cubic4(w: &[f32; WINDOW], r: [usize; 4], lows: u32x4, g: f32x4, out: &mut [f32]) {
    let at = |r: usize| f32x4::new([w[r], w[r + 1], w[r + 2], w[r + 3]]);
    let [xm1, x0, x1, x2] = f32x4::transpose([at(r[0]), at(r[1]), at(r[2]), at(r[3])]);
    let f = fractions(lows);
    let c1 = (x1 - xm1) * f32x4::splat(0.5);
    let c2 = xm1 - x0 * f32x4::splat(2.5) + x1 * f32x4::splat(2.0) - x2 * f32x4::splat(0.5);
    let c3 = (x2 - xm1) * f32x4::splat(0.5) + (x0 - x1) * f32x4::splat(1.5);
    add_stereo(out, ((c3 * f + c2) * f + c1) * f + x0, g);
}

/// Which vector instructions the SIMD loops use.
#[derive(Debug, Clone, Copy)]
pub enum Lanes {
    /// 4-lane vectors: SSE2 on every x86-64 CPU (the portable `wide` code).
    Four,
    /// 8-lane AVX2, chosen at run time where the CPU has it (x86-64-v3).
    #[cfg(target_arch = "x86_64")]
    Eight(Avx2),
}

impl Lanes {
    /// The widest the CPU running this has (detected once).
    pub fn detected() -> Self {
        static DETECTED: OnceLock<Lanes> = OnceLock::new();
        *DETECTED.get_or_init(|| {
            #[cfg(target_arch = "x86_64")]
            if let Some(avx2) = fearless_simd::Level::new().as_avx2() {
                return Lanes::Eight(avx2);
            }
            Lanes::Four
        })
    }

    /// The name shown in the benchmark (`AVX2`, `SSE2`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Four => "SSE2",
            #[cfg(target_arch = "x86_64")]
            Self::Eight(_) => "AVX2",
        }
    }
}

/// Runs `f` with the CPU's widest vector instructions enabled (AVX2 where it has
/// them): loops in `f` that the compiler vectorises use them. `f` must be
/// `#[inline(always)]`, and so must what it calls for them to count.
#[inline(always)]
pub fn widest<R>(f: impl FnOnce() -> R) -> R {
    match Lanes::detected() {
        #[cfg(target_arch = "x86_64")]
        Lanes::Eight(simd) => simd.vectorize(f),
        Lanes::Four => f(),
    }
}

/// Mono, steady gains: adds `out.len() / 2` frames of `data` read from `*pos` on,
/// `step` apart, at the gains `(gl, gr)`, with `interpolation`. Every point it reads must
/// be inside `data`. Moves `*pos` on.
pub fn mono(
    data: &[f32],
    pos: &mut u64,
    step: u64,
    gains: (f32, f32),
    interpolation: Interpolation,
    out: &mut [f32],
) {
    mono_with(
        Lanes::detected(),
        data,
        pos,
        step,
        gains,
        interpolation,
        out,
    );
}

/// [`mono`] with the SIMD loops of `lanes` (every choice gives the same bits).
pub fn mono_with(
    lanes: Lanes,
    data: &[f32],
    pos: &mut u64,
    step: u64,
    (gl, gr): (f32, f32),
    interpolation: Interpolation,
    out: &mut [f32],
) {
    let cubic = interpolation == Interpolation::Cubic;
    let done = match lanes {
        _ if step > ONE => 0,
        Lanes::Four if cubic => mono_x8::<true>(data, pos, step, (gl, gr), out),
        Lanes::Four => mono_x8::<false>(data, pos, step, (gl, gr), out),
        #[cfg(target_arch = "x86_64")]
        Lanes::Eight(simd) if cubic => simd.vectorize(
            #[inline(always)]
            || avx2::mono::<true>(simd, data, pos, step, (gl, gr), out),
        ),
        #[cfg(target_arch = "x86_64")]
        Lanes::Eight(simd) => simd.vectorize(
            #[inline(always)]
            || avx2::mono::<false>(simd, data, pos, step, (gl, gr), out),
        ),
    };
    let Some(rest) = out.get_mut(done * 2..) else {
        return;
    };
    let mut p = *pos;
    for frame in rest.chunks_exact_mut(2) {
        let s = mono_point(data, p, interpolation);
        frame[0] += s * gl;
        frame[1] += s * gr;
        p = p.wrapping_add(step);
    }
    *pos = p;
}

/// One mono frame at `pos` (its points inside `data`; reads nothing outside).
#[inline(always)]
fn mono_point(data: &[f32], pos: u64, interpolation: Interpolation) -> f32 {
    let idx = (pos >> 32) as usize;
    let f = frac(pos);
    let at = |i: usize| data.get(i).copied().unwrap_or(0.0);
    match interpolation {
        Interpolation::Linear => linear(at(idx), at(idx + 1), f),
        Interpolation::Cubic => cubic(
            at(idx.wrapping_sub(1)),
            at(idx),
            at(idx + 1),
            at(idx + 2),
            f,
        ),
    }
}

/// The [`WINDOW`] frames an iteration at `pos` reads, from `back` frames before its first
/// frame's point; `None` where they are not all inside `data`.
#[inline(always)]
fn window(data: &[f32], pos: u64, back: usize) -> Option<&[f32; WINDOW]> {
    let first = ((pos >> 32) as usize).checked_sub(back)?;
    <&[f32; WINDOW]>::try_from(data.get(first..first + WINDOW)?).ok()
}

/// Eight frames per iteration, linear or cubic. Stops where a window would leave
/// `data`; returns the frames done.
#[inline(always)]
fn mono_x8<const CUBIC: bool>(
    data: &[f32],
    pos: &mut u64,
    step: u64,
    (gl, gr): (f32, f32),
    out: &mut [f32],
) -> usize {
    let steps_a = [0, step, step * 2, step * 3];
    let steps_b = [step * 4, step * 5, step * 6, step * 7];
    let g = f32x4::new([gl, gr, gl, gr]);
    let mut p = *pos;
    let mut low_a = low_words(p, step, 0);
    let mut low_b = low_words(p, step, 4);
    let advance = u32x4::splat((step as u32).wrapping_mul(LANES as u32));
    let mut done = 0;
    // The cubic's window starts one frame before the first frame's point.
    let back = usize::from(CUBIC);
    for chunk in out.chunks_exact_mut(LANES * 2) {
        let Some(w) = window(data, p, back) else {
            break;
        };
        let low = p & (ONE - 1);
        let (out_a, out_b) = chunk.split_at_mut(LANES);
        if CUBIC {
            cubic4(w, offsets(low, &steps_a), low_a, g, out_a);
            cubic4(w, offsets(low, &steps_b), low_b, g, out_b);
        } else {
            linear4(w, offsets(low, &steps_a), low_a, g, out_a);
            linear4(w, offsets(low, &steps_b), low_b, g, out_b);
        }
        low_a += advance;
        low_b += advance;
        p += steps_b[3] + step;
        done += LANES;
    }
    *pos = p;
    done
}

/// The AVX2 loop (x86-64 only; used where [`Lanes::detected`] finds AVX2).
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{FRAC_UNIT, LANES, window};
    use fearless_simd::{Avx2, Simd, SimdBase, SimdFrom, f32x8, u32x8};
    use std::arch::x86_64::{__m256, __m256i};

    /// [`mono_x8`] with AVX2: the same arithmetic on the same values in the same order, so
    /// the same bits, eight frames to a vector. No frame is loaded on its own: the window is
    /// read as overlapping vectors of eight frames (two for linear, four for cubic), and each
    /// lane takes its point from them with one permute. Lane k's offset in the window is the
    /// whole frames of `k·step` plus one where adding the low words carried — found with
    /// vector compares, not per lane.
    #[inline(always)]
    pub(super) fn mono<const CUBIC: bool>(
        simd: Avx2,
        data: &[f32],
        pos: &mut u64,
        step: u64,
        (gl, gr): (f32, f32),
        out: &mut [f32],
    ) -> usize {
        let steps: [u64; LANES] = std::array::from_fn(|k| step * k as u64);
        let words = |f: fn(u64) -> u32| u32x8::simd_from(simd, steps.map(f));
        let (k_low, k_whole) = (words(|s| s as u32), words(|s| (s >> 32) as u32));
        let k_carried = k_whole + u32x8::splat(simd, 1);
        let mut p = *pos;
        // The low words of the lanes' positions (their fractions' bits).
        let mut lows = k_low + u32x8::splat(simd, p as u32);
        let advance = u32x8::splat(simd, (step as u32).wrapping_mul(LANES as u32));
        let gains = f32x8::simd_from(simd, [gl, gr, gl, gr, gl, gr, gl, gr]);
        let pairs = |from: u32| u32x8::simd_from(simd, [0, 0, 1, 1, 2, 2, 3, 3].map(|k| k + from));
        let (first_pairs, second_pairs): (__m256i, __m256i) = (pairs(0).into(), pairs(4).into());
        let unit = f32x8::splat(simd, FRAC_UNIT);
        let mut done = 0;
        let back = usize::from(CUBIC);
        for chunk in out.chunks_exact_mut(LANES * 2) {
            let Some(w) = window(data, p, back) else {
                break;
            };
            // A lane's low word carried into the whole frames where it came out below k·step's.
            let no_carry = simd.simd_eq_u32x8(simd.min_u32x8(lows, k_low), k_low);
            let offsets: __m256i = simd.select_u32x8(no_carry, k_whole, k_carried).into();
            // Lane k's point `n` frames after its offset.
            let point = |n: usize| {
                let frames: __m256 = f32x8::from_slice(simd, &w[n..n + LANES]).into();
                f32x8::simd_from(simd, simd.avx2._mm256_permutevar8x32_ps(frames, offsets))
            };
            // The 24-bit fractions: top bits of the low words (< 2^24, so exact as i32 and f32).
            let top = simd.cvt_from_bytes_i32x8(simd.cvt_to_bytes_u32x8(lows >> 8));
            let f = simd.cvt_f32_i32x8(top) * unit;
            let v = if CUBIC {
                let (xm1, x0, x1, x2) = (point(0), point(1), point(2), point(3));
                let c1 = (x1 - xm1) * 0.5;
                let c2 = xm1 - x0 * 2.5 + x1 * 2.0 - x2 * 0.5;
                let c3 = (x2 - xm1) * 0.5 + (x0 - x1) * 1.5;
                ((c3 * f + c2) * f + c1) * f + x0
            } else {
                let (a, b) = (point(0), point(1));
                a + (b - a) * f
            };
            // Frames 0–3 and 4–7 as left/right pairs: each value twice, times [l, r, l, r…].
            let v: __m256 = v.into();
            let side = |pairs: __m256i| {
                let doubled = simd.avx2._mm256_permutevar8x32_ps(v, pairs);
                f32x8::simd_from(simd, doubled) * gains
            };
            let (first_half, second_half) = (side(first_pairs), side(second_pairs));
            let (out_a, out_b) = chunk.split_at_mut(LANES);
            for (out, add) in [(out_a, first_half), (out_b, second_half)] {
                if let Ok(out) = <&mut [f32; LANES]>::try_from(out) {
                    let sum = f32x8::simd_from(simd, *out) + add;
                    simd.store_array_f32x8(sum, out);
                }
            }
            lows += advance;
            p += steps[LANES - 1] + step;
            done += LANES;
        }
        *pos = p;
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-frame reference for `mono`.
    fn reference(
        data: &[f32],
        mut pos: u64,
        step: u64,
        gains: (f32, f32),
        interpolation: Interpolation,
        frames: usize,
    ) -> Vec<f32> {
        let mut out = vec![0.0; frames * 2];
        for frame in out.chunks_exact_mut(2) {
            let s = mono_point(data, pos, interpolation);
            frame[0] += s * gains.0;
            frame[1] += s * gains.1;
            pos += step;
        }
        out
    }

    fn noise(len: usize) -> Vec<f32> {
        let mut x = 0x1234_5678u32;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                (x as f32 / u32::MAX as f32) * 2.0 - 1.0
            })
            .collect()
    }

    /// Every SIMD loop this CPU can run: 4 lanes always, 8 where it has AVX2.
    fn every_lanes() -> Vec<Lanes> {
        let mut all = vec![Lanes::Four];
        if !matches!(Lanes::detected(), Lanes::Four) {
            all.push(Lanes::detected());
        }
        all
    }

    #[test]
    fn eight_at_a_time_is_bit_for_bit_one_at_a_time() {
        let data = noise(400);
        let steps = [
            ONE,
            ONE / 2,
            1_971_389_583,
            123_456_789,
            ONE - 1,
            ONE + 77,
            1,
            ONE / 7 * 6 + 5,
        ];
        let starts = [
            ONE,
            ONE + 12_345,
            3 * ONE + ONE / 3,
            5 * ONE - 1,
            2 * ONE + u64::from(u32::MAX),
        ];
        for lanes in every_lanes() {
            for interpolation in [Interpolation::Linear, Interpolation::Cubic] {
                for (step, start) in steps.iter().flat_map(|s| starts.map(|t| (*s, t))) {
                    let frames = 173;
                    let want = reference(&data, start, step, (0.7, 0.3), interpolation, frames);
                    let mut got = vec![0.0; frames * 2];
                    let mut pos = start;
                    let gains = (0.7, 0.3);
                    mono_with(lanes, &data, &mut pos, step, gains, interpolation, &mut got);
                    assert_eq!(pos, start + step * frames as u64);
                    let same = want
                        .iter()
                        .zip(&got)
                        .all(|(a, b)| a.to_bits() == b.to_bits());
                    let lanes = lanes.name();
                    assert!(
                        same,
                        "{lanes} {interpolation:?}, step {step}, start {start}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_lanes_detected_are_named() {
        assert!(["SSE2", "AVX2"].contains(&Lanes::detected().name()));
    }

    #[test]
    fn cubic_passes_through_the_sample_points() {
        let data = noise(64);
        for i in 1..60 {
            let s = mono_point(&data, (i as u64) << 32, Interpolation::Cubic);
            assert_eq!(s, data[i]);
        }
    }

    #[test]
    fn interpolation_names_read_back() {
        for i in [Interpolation::Linear, Interpolation::Cubic] {
            assert_eq!(Interpolation::parse(i.name()), Some(i));
        }
        assert_eq!(Interpolation::parse(" Cubic "), Some(Interpolation::Cubic));
        assert_eq!(Interpolation::parse("sinc"), None);
    }
}
