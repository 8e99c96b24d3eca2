//! WAV sample encodings: the conversion of samples of each encoding — PCM, IEEE float,
//! G.711 µ-law and A-law — to `f32` (which encoding a header means is in `tags`).

use super::super::WavEncoding;
use super::super::mix::Mix;
use super::chunks::WavFmt;

const fn mulaw_to_i16(byte: u8) -> i16 {
    let u = !byte;
    let mantissa = (u & 0x0F) as i32;
    let exponent = ((u >> 4) & 0x07) as i32;
    let magnitude = ((mantissa << 3) + 0x84) << exponent;
    (if u & 0x80 != 0 {
        0x84 - magnitude
    } else {
        magnitude - 0x84
    }) as i16
}

const fn alaw_to_i16(byte: u8) -> i16 {
    let a = byte ^ 0x55;
    let mut t = ((a & 0x0F) as i32) << 4;
    let segment = ((a & 0x70) >> 4) as i32;
    if segment == 0 {
        t += 8;
    } else {
        t += 0x108;
        t <<= segment - 1;
    }
    (if a & 0x80 != 0 { t } else { -t }) as i16
}

/// Which 8-bit code table to build.
#[derive(Clone, Copy)]
enum Table {
    U8,
    MuLaw,
    ALaw,
}

/// Maps each 8-bit code to its sample value (built at compile time).
const fn table(kind: Table) -> [f32; 256] {
    let mut t = [0.0f32; 256];
    let mut i = 0;
    while i < 256 {
        let code = i as u8;
        t[i] = match kind {
            Table::U8 => (code as f32 - 128.0) / 128.0,
            Table::MuLaw => mulaw_to_i16(code) as f32 / 32768.0,
            Table::ALaw => alaw_to_i16(code) as f32 / 32768.0,
        };
        i += 1;
    }
    t
}

const U8_TABLE: [f32; 256] = table(Table::U8);
const MULAW_TABLE: [f32; 256] = table(Table::MuLaw);
const ALAW_TABLE: [f32; 256] = table(Table::ALaw);

fn arr<const N: usize>(bytes: &[u8]) -> [u8; N] {
    bytes.try_into().unwrap_or([0; N])
}

/// Converts samples (whole samples only; a trailing partial one is ignored) to `f32`.
fn convert(encoding: WavEncoding, bytes: &[u8], out: &mut Vec<f32>) {
    match encoding {
        WavEncoding::PcmU8 => out.extend(bytes.iter().map(|&b| U8_TABLE[usize::from(b)])),
        WavEncoding::MuLaw => out.extend(bytes.iter().map(|&b| MULAW_TABLE[usize::from(b)])),
        WavEncoding::ALaw => out.extend(bytes.iter().map(|&b| ALAW_TABLE[usize::from(b)])),
        WavEncoding::PcmS16 => out.extend(
            bytes
                .chunks_exact(2)
                .map(|c| f32::from(i16::from_le_bytes(arr(c))) / 32_768.0),
        ),
        WavEncoding::PcmS24 => out.extend(bytes.chunks_exact(3).map(|c| {
            let [a, b, d] = arr(c);
            // Into the top of an i32, then an arithmetic shift sign-extends.
            (i32::from_le_bytes([0, a, b, d]) >> 8) as f32 / 8_388_608.0
        })),
        WavEncoding::PcmS32 => out.extend(
            bytes
                .chunks_exact(4)
                .map(|c| (f64::from(i32::from_le_bytes(arr(c))) / 2_147_483_648.0) as f32),
        ),
        WavEncoding::Float32 => {
            out.extend(bytes.chunks_exact(4).map(|c| f32::from_le_bytes(arr(c))))
        }
        WavEncoding::Float64 => {
            out.extend(
                bytes
                    .chunks_exact(8)
                    .map(|c| f64::from_le_bytes(arr(c)) as f32),
            );
        }
    }
}

/// Decodes whole frames from `bytes` into output frames appended to `out`.
pub(super) fn decode_frames(
    fmt: &WavFmt,
    mix: &Mix,
    bytes: &[u8],
    scratch: &mut Vec<f32>,
    out: &mut Vec<f32>,
) {
    let frame_bytes = usize::from(fmt.channels) * usize::from(fmt.encoding.bytes_per_sample());
    for chunk in bytes.chunks(fmt.block_frames() * frame_bytes.max(1)) {
        scratch.clear();
        convert(fmt.encoding, chunk, scratch);
        mix.apply(scratch, out);
    }
}
