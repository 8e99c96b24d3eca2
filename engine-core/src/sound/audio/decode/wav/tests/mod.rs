//! Tests of the WAV decoder, on files built here chunk by chunk: [`encodings`] (sample
//! encodings and channels), [`layout`] (chunk walking and damaged files), [`limits`]
//! (length and size limits, streaming).

mod encodings;
mod layout;
mod limits;

use super::chunks::TAG_EXTENSIBLE;
use crate::sound::audio::decode::{DecodeLimits, decode};

/// A `fmt ` chunk body of 16 bytes.
pub(crate) fn fmt16(tag: u16, channels: u16, rate: u32, bits: u16) -> Vec<u8> {
    let block = channels * bits.div_ceil(8);
    let mut f = Vec::new();
    f.extend(tag.to_le_bytes());
    f.extend(channels.to_le_bytes());
    f.extend(rate.to_le_bytes());
    f.extend((rate * u32::from(block)).to_le_bytes());
    f.extend(block.to_le_bytes());
    f.extend(bits.to_le_bytes());
    f
}

/// An 18-byte `fmt ` (cbSize = 0).
pub(super) fn fmt18(tag: u16, channels: u16, rate: u32, bits: u16) -> Vec<u8> {
    let mut f = fmt16(tag, channels, rate, bits);
    f.extend(0u16.to_le_bytes());
    f
}

/// A 40-byte `WAVE_FORMAT_EXTENSIBLE` `fmt `.
pub(super) fn fmt40(
    sub_tag: u16,
    channels: u16,
    rate: u32,
    bits: u16,
    valid: u16,
    mask: u32,
) -> Vec<u8> {
    let mut f = fmt16(TAG_EXTENSIBLE, channels, rate, bits);
    f.extend(22u16.to_le_bytes());
    f.extend(valid.to_le_bytes());
    f.extend(mask.to_le_bytes());
    f.extend(sub_tag.to_le_bytes());
    f.extend([
        0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71,
    ]);
    f
}

/// One chunk: id, size, body, and the pad byte after an odd body if `pad`.
pub(super) fn chunk(id: &[u8; 4], body: &[u8], pad: bool) -> Vec<u8> {
    let mut c = id.to_vec();
    c.extend(u32::try_from(body.len()).unwrap().to_le_bytes());
    c.extend(body);
    if pad && body.len() % 2 == 1 {
        c.push(0);
    }
    c
}

/// A RIFF WAVE file of `chunks` (already encoded) with a correct RIFF size.
pub(crate) fn riff(chunks: &[Vec<u8>]) -> Vec<u8> {
    let body: Vec<u8> = chunks.concat();
    let mut f = b"RIFF".to_vec();
    f.extend(u32::try_from(body.len() + 4).unwrap().to_le_bytes());
    f.extend(b"WAVE");
    f.extend(body);
    f
}

/// The usual file: `fmt ` (16 bytes) then `data`.
pub(crate) fn simple(tag: u16, channels: u16, rate: u32, bits: u16, data: &[u8]) -> Vec<u8> {
    riff(&[
        chunk(b"fmt ", &fmt16(tag, channels, rate, bits), true),
        chunk(b"data", data, true),
    ])
}

pub(super) fn s16(values: &[i16]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

pub(super) fn samples(bytes: &[u8]) -> Vec<f32> {
    let d = decode("t.wav", bytes, &DecodeLimits::default()).unwrap();
    assert_eq!(d.partial, None);
    d.buffer.data
}
