//! Audio headers: WAV files built chunk by chunk (every encoding, lying sizes, odd
//! chunks, extensible formats, 0 or 65535 channels), XA files built block by block (0 to
//! 9 or 65535 channels, lying decoded sizes and block aligns, any filter), and real
//! fixture files (WAV, FLAC, Ogg Vorbis, MP3, XA) whose header fields are rewritten where
//! each format keeps them — RIFF and fmt fields, FLAC STREAMINFO and metadata lengths, Ogg
//! page fields and the Vorbis identification header (with the page checksums fixed up so
//! the change gets past them), ID3 sizes, MPEG frame headers and Xing frame counts, the XA
//! header's fields and first control bytes — plus flipped bytes, cuts and repeated blocks.
//! Each case probes and decodes from memory within a frame limit.

use crate::harness::{Input, MIB, MemoryBound, Target};
use engine_core::sound::audio::decode::{DecodeLimits, decode, probe};
use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;
use std::time::Duration;

/// Most frames a case may decode (about 22 s at 48 kHz).
pub const MAX_FRAMES: u64 = 1 << 20;

/// Memory bound: the file, the decoder's own buffers, and the output (at most
/// [`MAX_FRAMES`] stereo `f32` frames, 8 bytes each, with room for a vector doubling
/// and one copy: 32 bytes a frame).
pub const MEMORY: MemoryBound = MemoryBound {
    per_byte: 64,
    per_line: 0,
    fixed: 32 * MIB + 32 * MAX_FRAMES as usize,
};
/// Time limit of one case (debug build).
pub const TIME: Duration = Duration::from_secs(10);

/// Real files, small ones, one or two per format.
const SEEDS: &[(&str, &[u8])] = &[
    (
        "click.wav",
        include_bytes!("../../../tests/fixtures/audio/sfx/lbreakout2_click.wav"),
    ),
    (
        "menu.wav",
        include_bytes!("../../../tests/fixtures/audio/sfx/heroes_menu02.wav"),
    ),
    (
        "mulaw.wav",
        include_bytes!(
            "../../../tests/fixtures/audio/damaged/unsupported_mulaw_kbounce_wallstart.wav"
        ),
    ),
    (
        "kraah.ogg",
        include_bytes!("../../../tests/fixtures/audio/sfx/funnyboat_kraah.ogg"),
    ),
    (
        "bell.oga",
        include_bytes!("../../../tests/fixtures/audio/sfx/freedesktop_bell.oga"),
    ),
    (
        "cat.mp3",
        include_bytes!("../../../tests/fixtures/audio/sfx/scratch_cat.mp3"),
    ),
    (
        "blip.flac",
        include_bytes!("../../../tests/fixtures/audio/sfx/sonicpi_elec_blip.flac"),
    ),
    (
        "voice.xa",
        include_bytes!("../../../tests/fixtures/audio/xa/lbreakout2_excellent_voice.xa"),
    ),
    (
        "secret.xa",
        include_bytes!("../../../tests/fixtures/audio/xa/freedink_secret.xa"),
    ),
];

// --- fields -----------------------------------------------------------------------------

/// A header field: `width` bits. Little-endian whole bytes at `at` when `le`, else a
/// big-endian bit field starting `shift` bits into the byte at `at`.
#[derive(Debug, Clone, Copy)]
struct Field {
    at: usize,
    shift: u32,
    width: u32,
    le: bool,
}

fn le(at: usize, bytes: u32) -> Field {
    Field {
        at,
        shift: 0,
        width: bytes * 8,
        le: true,
    }
}

fn be(at: usize, shift: u32, width: u32) -> Field {
    Field {
        at,
        shift,
        width,
        le: false,
    }
}

fn set(bytes: &mut [u8], f: Field, value: u64) {
    let value = if f.width >= 64 {
        value
    } else {
        value & ((1u64 << f.width) - 1)
    };
    if f.le {
        for i in 0..(f.width / 8) as usize {
            if let Some(b) = bytes.get_mut(f.at + i) {
                *b = (value >> (8 * i)) as u8;
            }
        }
        return;
    }
    for bit in 0..f.width {
        let pos = f.shift + bit;
        let byte = f.at + (pos / 8) as usize;
        let mask = 0x80u8 >> (pos % 8);
        let on = (value >> (f.width - 1 - bit)) & 1 == 1;
        if let Some(b) = bytes.get_mut(byte) {
            if on {
                *b |= mask;
            } else {
                *b &= !mask;
            }
        }
    }
}

fn u32le(b: &[u8], at: usize) -> Option<usize> {
    let s = b.get(at..at + 4)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]) as usize)
}

fn find(b: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    b.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// The header fields of a WAV file: RIFF size, each chunk's size, the fmt fields.
fn wav_fields(b: &[u8]) -> Vec<Field> {
    let mut fields = vec![le(4, 4)];
    let mut pos = 12;
    for _ in 0..16 {
        let (Some(id), Some(size)) = (b.get(pos..pos + 4), u32le(b, pos + 4)) else {
            break;
        };
        fields.push(le(pos + 4, 4));
        if id == b"fmt " {
            let f = pos + 8;
            fields.extend([
                le(f, 2),
                le(f + 2, 2),
                le(f + 4, 4),
                le(f + 8, 4),
                le(f + 12, 2),
                le(f + 14, 2),
            ]);
            if size >= 40 {
                fields.extend([le(f + 16, 2), le(f + 18, 2), le(f + 20, 4), le(f + 24, 2)]);
            }
        }
        pos = pos + 8 + size + (size & 1);
    }
    fields
}

/// STREAMINFO and every metadata block header of a FLAC file.
fn flac_fields(b: &[u8]) -> Vec<Field> {
    let mut fields = Vec::new();
    let mut pos = 4;
    for _ in 0..16 {
        let Some(&head) = b.get(pos) else { break };
        fields.push(be(pos, 0, 8));
        fields.push(be(pos + 1, 0, 24));
        let len = b.get(pos + 1..pos + 4).map_or(0, |s| {
            (usize::from(s[0]) << 16) | (usize::from(s[1]) << 8) | usize::from(s[2])
        });
        if head & 0x7f == 0 {
            let s = pos + 4;
            fields.extend([
                be(s, 0, 16),
                be(s + 2, 0, 16),
                be(s + 4, 0, 24),
                be(s + 7, 0, 24),
                be(s + 10, 0, 20),
                be(s + 10, 20, 3),
                be(s + 10, 23, 5),
                be(s + 10, 28, 36),
            ]);
        }
        if head & 0x80 != 0 {
            // The first frame header after the last block: block size and rate codes,
            // channel assignment, sample size.
            let frame = pos + 4 + len;
            fields.extend([
                be(frame + 2, 0, 4),
                be(frame + 2, 4, 4),
                be(frame + 3, 0, 4),
                be(frame + 3, 4, 3),
            ]);
            break;
        }
        pos += 4 + len;
    }
    fields
}

/// Page fields of an Ogg file and the Vorbis identification header.
fn ogg_fields(b: &[u8]) -> Vec<Field> {
    let mut fields = Vec::new();
    let mut pos = 0;
    for page in 0..8 {
        let Some(at) = find(b, b"OggS", pos) else {
            break;
        };
        fields.extend([
            be(at + 4, 0, 8),
            be(at + 5, 0, 8),
            le(at + 6, 8),
            le(at + 14, 4),
            le(at + 18, 4),
            be(at + 26, 0, 8),
        ]);
        let segments = usize::from(b.get(at + 26).copied().unwrap_or(0));
        if segments > 0 {
            fields.push(be(at + 27, 0, 8));
        }
        if page == 0 {
            // [1] "vorbis" version channels rate bitrates blocksizes framing
            let body = at + 27 + segments;
            fields.extend([
                le(body + 7, 4),
                be(body + 11, 0, 8),
                le(body + 12, 4),
                le(body + 16, 4),
                be(body + 28, 0, 8),
            ]);
        }
        pos = at + 4;
    }
    fields
}

/// The ID3 size, the first MPEG frame headers and a Xing frame count of an MP3 file.
fn mp3_fields(b: &[u8]) -> Vec<Field> {
    let mut fields = Vec::new();
    let mut pos = 0;
    if b.starts_with(b"ID3") {
        fields.push(be(6, 0, 32));
        let size = b.get(6..10).map_or(0, |s| {
            s.iter()
                .fold(0usize, |acc, &x| (acc << 7) | usize::from(x & 0x7f))
        });
        pos = 10 + size;
    }
    let mut frames = 0;
    while frames < 4 && pos + 4 <= b.len() {
        if b[pos] == 0xFF && b[pos + 1] & 0xE0 == 0xE0 {
            fields.extend([
                be(pos, 11, 2),
                be(pos, 13, 2),
                be(pos, 16, 4),
                be(pos, 20, 2),
                be(pos, 22, 1),
                be(pos, 24, 2),
            ]);
            frames += 1;
            pos += 4;
        } else {
            pos += 1;
        }
    }
    for marker in [&b"Xing"[..], b"Info"] {
        if let Some(at) = find(b, marker, 0) {
            fields.extend([be(at + 4, 0, 32), be(at + 8, 0, 32)]);
        }
    }
    fields
}

/// The XA header's fields (id, decoded size, format tag, channels, rate, bytes per second,
/// block align, bits) and the first block's control bytes.
fn xa_fields(b: &[u8]) -> Vec<Field> {
    let mut fields = vec![
        be(2, 0, 8),
        le(4, 4),
        le(8, 2),
        le(10, 2),
        le(12, 4),
        le(16, 4),
        le(20, 2),
        le(22, 2),
    ];
    let channels = b.get(10).map_or(1, |&c| usize::from(c).clamp(1, 8));
    fields.extend((0..channels).map(|c| be(24 + c, 0, 8)));
    fields
}

fn is_xa(b: &[u8]) -> bool {
    matches!(b, [b'X', b'A', _, 0, ..])
}

fn fields_of(b: &[u8]) -> Vec<Field> {
    if is_xa(b) {
        xa_fields(b)
    } else if b.starts_with(b"RIFF") {
        wav_fields(b)
    } else if b.starts_with(b"fLaC") {
        flac_fields(b)
    } else if b.starts_with(b"OggS") {
        ogg_fields(b)
    } else {
        mp3_fields(b)
    }
}

/// The Ogg page checksum (CRC-32, polynomial 0x04c11db7, no reflection).
fn ogg_crc(data: &[u8]) -> u32 {
    let mut crc = 0u32;
    for &byte in data {
        crc ^= u32::from(byte) << 24;
        for _ in 0..8 {
            crc = if crc & 0x8000_0000 != 0 {
                (crc << 1) ^ 0x04c1_1db7
            } else {
                crc << 1
            };
        }
    }
    crc
}

/// Recomputes the checksum of every whole Ogg page.
fn fix_ogg_crcs(b: &mut [u8]) {
    let mut pos = 0;
    while let Some(at) = find(b, b"OggS", pos) {
        let Some(&segments) = b.get(at + 26) else {
            break;
        };
        let table = at + 27;
        let Some(lacing) = b.get(table..table + usize::from(segments)) else {
            break;
        };
        let body: usize = lacing.iter().map(|&l| usize::from(l)).sum();
        let end = table + usize::from(segments) + body;
        if end > b.len() {
            break;
        }
        b[at + 22..at + 26].fill(0);
        let crc = ogg_crc(&b[at..end]);
        b[at + 22..at + 26].copy_from_slice(&crc.to_le_bytes());
        pos = at + 4;
    }
}

// --- generated WAV ----------------------------------------------------------------------

/// A RIFF chunk: id, declared size, body.
type Chunk = ([u8; 4], u32, Vec<u8>);

fn fmt_chunk() -> impl Strategy<Value = Chunk> {
    // A consistent format (PCM of 8–32 bits, float of 32 or 64, G.711, extensible) …
    let consistent = prop_oneof![
        (
            Just(1u16),
            prop_oneof![Just(8u16), Just(16), Just(24), Just(32)]
        ),
        (Just(3u16), prop_oneof![Just(32u16), Just(64)]),
        (prop_oneof![Just(6u16), Just(7)], Just(8u16)),
        (
            Just(0xFFFEu16),
            prop_oneof![Just(16u16), Just(24), Just(32)]
        ),
    ];
    // … or anything at all.
    let odd = (
        any::<u16>(),
        prop_oneof![Just(0u16), Just(1), Just(12), Just(33), any::<u16>()],
    );
    let channels = prop_oneof![8 => 1u16..3, 1 => 3u16..9, 1 => Just(0u16), 1 => Just(255u16), 1 => Just(65535u16)];
    let rate = prop_oneof![6 => Just(44_100u32), 1 => Just(8_000u32), 1 => Just(1u32), 1 => Just(0u32), 1 => any::<u32>()];
    let lie = prop_oneof![6 => Just(0i32), 1 => -4i32..5];
    (
        prop_oneof![6 => consistent, 1 => odd],
        channels,
        rate,
        any::<u16>(),
        any::<bool>(),
        lie,
    )
        .prop_map(|((tag, bits), channels, rate, sub, extensible, lie)| {
            let block = channels.wrapping_mul(bits / 8);
            let mut body = Vec::new();
            body.extend(tag.to_le_bytes());
            body.extend(channels.to_le_bytes());
            body.extend(rate.to_le_bytes());
            body.extend(rate.wrapping_mul(u32::from(block)).to_le_bytes());
            body.extend(block.to_le_bytes());
            body.extend(bits.to_le_bytes());
            if tag == 0xFFFE || (extensible && sub % 4 == 0) {
                body.extend(22u16.to_le_bytes());
                body.extend(bits.to_le_bytes());
                body.extend(0x3u32.to_le_bytes());
                body.extend(if sub % 5 == 0 { sub } else { 1 + 2 * (sub % 2) }.to_le_bytes());
                body.extend([0u8; 14]);
            }
            let size = (body.len() as u32).wrapping_add_signed(lie);
            (*b"fmt ", size, body)
        })
}

fn data_chunk() -> impl Strategy<Value = Chunk> {
    (proptest::collection::vec(any::<u8>(), 0..600), prop_oneof![8 => Just(None), 1 => any::<u32>().prop_map(Some), 1 => Just(Some(0u32)), 1 => Just(Some(u32::MAX))])
        .prop_map(|(body, size)| (*b"data", size.unwrap_or(body.len() as u32), body))
}

fn other_chunk() -> impl Strategy<Value = Chunk> {
    const IDS: &[[u8; 4]] = &[
        *b"LIST",
        *b"fact",
        *b"JUNK",
        *b"cue ",
        *b"smpl",
        *b"\0\0\0\0",
        *b"fmt ",
        *b"data",
    ];
    let id = proptest::sample::select(IDS);
    (
        id,
        proptest::collection::vec(any::<u8>(), 0..40),
        prop_oneof![4 => Just(None), 1 => any::<u32>().prop_map(Some)],
    )
        .prop_map(|(id, body, size)| (id, size.unwrap_or(body.len() as u32), body))
}

fn wav() -> impl Strategy<Value = Vec<u8>> {
    const FORMS: &[[u8; 4]] = &[
        *b"WAVE", *b"WAVE", *b"WAVE", *b"WAVE", *b"WAVE", *b"WAVE", *b"AVI ", *b"RF64",
    ];
    (
        proptest::collection::vec(other_chunk(), 0..3),
        fmt_chunk(),
        data_chunk(),
        any::<bool>(),
        prop_oneof![8 => Just(None), 1 => any::<u32>().prop_map(Some)],
        proptest::sample::select(FORMS),
    )
        .prop_map(|(mut chunks, fmt, data, fmt_last, riff_size, form)| {
            if fmt_last {
                chunks.extend([data, fmt]);
            } else {
                chunks.extend([fmt, data]);
            }
            let mut body = form.to_vec();
            for (id, size, bytes) in chunks {
                body.extend(id);
                body.extend(size.to_le_bytes());
                let odd = bytes.len() % 2 == 1;
                body.extend(bytes);
                if odd {
                    body.push(0);
                }
            }
            let mut out = b"RIFF".to_vec();
            out.extend(riff_size.unwrap_or(body.len() as u32).to_le_bytes());
            out.extend(body);
            out
        })
}

// --- generated FLAC ---------------------------------------------------------------------

/// CRC-8 of FLAC frame headers (polynomial 0x07).
fn crc8(data: &[u8]) -> u8 {
    let mut crc = 0u8;
    for &byte in data {
        crc ^= byte;
        for _ in 0..8 {
            crc = if crc & 0x80 != 0 {
                (crc << 1) ^ 0x07
            } else {
                crc << 1
            };
        }
    }
    crc
}

/// CRC-16 of FLAC frames (polynomial 0x8005).
fn crc16(data: &[u8]) -> u16 {
    let mut crc = 0u16;
    for &byte in data {
        crc ^= u16::from(byte) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x8005
            } else {
                crc << 1
            };
        }
    }
    crc
}

/// A FLAC file of CONSTANT subframes: a few bytes per frame of up to 65 535 samples, so
/// a kilobyte can hold minutes of audio — what decode limits are for.
fn flac() -> impl Strategy<Value = Vec<u8>> {
    (
        prop_oneof![Just(65_535u16), Just(4_096u16), Just(16u16), any::<u16>()],
        1u8..=2,
        0usize..300,
        any::<i16>(),
        prop_oneof![4 => Just(None), 1 => any::<u64>().prop_map(Some)],
    )
        .prop_map(|(block, channels, frames, value, total)| {
            let block = block.max(16);
            let mut out = b"fLaC".to_vec();
            out.extend([0x80, 0, 0, 34]);
            let mut info = [0u8; 34];
            info[0..2].copy_from_slice(&block.to_be_bytes());
            info[2..4].copy_from_slice(&block.to_be_bytes());
            let total = total.unwrap_or(frames as u64 * u64::from(block));
            // 44 100 Hz (20 bits), channels − 1 (3 bits), 16 bits − 1 (5 bits), total (36 bits).
            let packed: u64 = (44_100u64 << 44)
                | (u64::from(channels - 1) << 41)
                | (15u64 << 36)
                | (total & 0xF_FFFF_FFFF);
            info[10..18].copy_from_slice(&packed.to_be_bytes());
            out.extend(info);
            for n in 0..frames {
                let mut frame = vec![0xFF, 0xF8, 0x70, ((channels - 1) << 4) | 0x08];
                // The frame number, UTF-8 coded.
                if n < 0x80 {
                    frame.push(n as u8);
                } else {
                    frame.push(0xC0 | (n >> 6) as u8);
                    frame.push(0x80 | (n & 0x3F) as u8);
                }
                frame.extend((block - 1).to_be_bytes());
                frame.push(crc8(&frame));
                for _ in 0..channels {
                    frame.push(0x00);
                    frame.extend(value.to_be_bytes());
                }
                let crc = crc16(&frame);
                frame.extend(crc.to_be_bytes());
                out.extend(frame);
            }
            out
        })
}

// --- generated XA -----------------------------------------------------------------------

/// An XA file: a header that may lie (channels, decoded size, block align) over block
/// data of any bytes, so filters 4–15 occur too.
fn xa() -> impl Strategy<Value = Vec<u8>> {
    let channels = prop_oneof![8 => 1u16..3, 2 => 3u16..9, 1 => Just(0u16), 1 => Just(9u16), 1 => Just(65_535u16)];
    let rate = prop_oneof![6 => Just(22_050u32), 1 => Just(1u32), 1 => any::<u32>()];
    let frames = prop_oneof![6 => 0u32..2_000, 1 => Just(u32::MAX / 16), 1 => any::<u32>()];
    (
        channels,
        rate,
        frames,
        prop_oneof![6 => Just(None), 1 => any::<u16>().prop_map(Some)],
        proptest::collection::vec(any::<u8>(), 0..2_000),
    )
        .prop_map(|(channels, rate, frames, align, data)| {
            let align = align.unwrap_or(channels.wrapping_mul(2));
            let mut out = b"XAJ\0".to_vec();
            out.extend(frames.wrapping_mul(u32::from(align)).to_le_bytes());
            out.extend(1u16.to_le_bytes());
            out.extend(channels.to_le_bytes());
            out.extend(rate.to_le_bytes());
            out.extend(rate.wrapping_mul(u32::from(align)).to_le_bytes());
            out.extend(align.to_le_bytes());
            out.extend(16u16.to_le_bytes());
            out.extend(data);
            out
        })
}

// --- edits ------------------------------------------------------------------------------

/// One change to an audio file.
#[derive(Debug, Clone)]
enum Edit {
    /// Set the `which`-th header field to a value chosen by `how`.
    Field { which: usize, how: u8, random: u64 },
    /// Flip a byte in the first kilobyte.
    FlipHeader { at: usize, value: u8 },
    /// Flip a byte anywhere.
    Flip { at: usize, value: u8 },
    /// Cut the file.
    Truncate(usize),
    /// Repeat a block of the file many times (up to `bytes`).
    Repeat {
        from: usize,
        len: usize,
        bytes: usize,
    },
}

fn edit() -> impl Strategy<Value = Edit> {
    let index = || any::<u32>().prop_map(|i| i as usize);
    prop_oneof![
        8 => (index(), any::<u8>(), any::<u64>()).prop_map(|(which, how, random)| Edit::Field { which, how, random }),
        3 => (index(), any::<u8>()).prop_map(|(at, value)| Edit::FlipHeader { at, value }),
        2 => (index(), any::<u8>()).prop_map(|(at, value)| Edit::Flip { at, value }),
        1 => index().prop_map(Edit::Truncate),
        1 => (index(), 1usize..4096, crate::mutate::growth(crate::mutate::GROWTH_MAX))
            .prop_map(|(from, len, bytes)| Edit::Repeat { from, len, bytes }),
    ]
}

fn value_for(width: u32, how: u8, random: u64) -> u64 {
    let max = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    match how % 8 {
        0 => 0,
        1 => 1,
        2 => max,
        3 => max - 1,
        4 => 1u64 << (width - 1),
        5 => 2,
        _ => random & max,
    }
}

fn apply(file: &[u8], edits: &[Edit], fix_crcs: bool) -> Vec<u8> {
    let mut b = file.to_vec();
    for edit in edits {
        match *edit {
            Edit::Field { which, how, random } => {
                let fields = fields_of(&b);
                if let Some(&f) = fields.get(which % fields.len().max(1)) {
                    set(&mut b, f, value_for(f.width, how, random));
                }
            }
            Edit::FlipHeader { at, value } => {
                let n = b.len().min(1024);
                if n > 0 {
                    b[at % n] ^= value | 1;
                }
            }
            Edit::Flip { at, value } => {
                if !b.is_empty() {
                    let n = b.len();
                    b[at % n] ^= value | 1;
                }
            }
            Edit::Truncate(at) => b.truncate(at % (b.len() + 1)),
            Edit::Repeat { from, len, bytes } => {
                if b.is_empty() {
                    continue;
                }
                let start = from % b.len();
                let end = (start + len).min(b.len());
                let block = b[start..end].to_vec();
                let mut grown = Vec::with_capacity(bytes);
                while grown.len() < bytes {
                    grown.extend_from_slice(&block);
                }
                b.splice(end..end, grown);
            }
        }
    }
    if fix_crcs && b.starts_with(b"OggS") {
        fix_ogg_crcs(&mut b);
    }
    b
}

fn strategy() -> BoxedStrategy<Input> {
    let seed = prop_oneof![
        2 => wav().prop_map(|b| ("made.wav".to_string(), b)),
        1 => flac().prop_map(|b| ("made.flac".to_string(), b)),
        1 => xa().prop_map(|b| ("made.xa".to_string(), b)),
        5 => proptest::sample::select(SEEDS).prop_map(|(n, b)| (n.to_string(), b.to_vec())),
    ];
    (
        seed,
        proptest::collection::vec(edit(), 0..4),
        prop_oneof![4 => Just(true), 1 => Just(false)],
    )
        .prop_map(|((name, file), edits, fix)| Input::single(&name, apply(&file, &edits, fix)))
        .boxed()
}

fn run(input: &Input) -> Result<(), String> {
    let Some((name, bytes)) = input.files.first() else {
        return Ok(());
    };
    // Any other limit keeps its default.
    #[allow(clippy::needless_update)]
    let limits = DecodeLimits {
        max_frames: MAX_FRAMES,
        ..DecodeLimits::default()
    };
    let _ = probe(name, bytes);
    if let Ok(decoded) = decode(name, bytes, &limits) {
        let frames = decoded.buffer.frames() as u64;
        if frames > MAX_FRAMES {
            return Err(format!(
                "decoded {frames} frames, more than the limit of {MAX_FRAMES}"
            ));
        }
        if decoded.buffer.sample_rate == 0 || !(1..=2).contains(&decoded.buffer.channels) {
            return Err(format!(
                "decoded to {} channel(s) at {} Hz",
                decoded.buffer.channels, decoded.buffer.sample_rate
            ));
        }
    }
    Ok(())
}

/// Audio headers.
pub const TARGET: Target = Target {
    name: "audio",
    about: "WAV/FLAC/Ogg/MP3/XA with damaged headers into audio::decode and probe",
    cases: 800,
    memory: MEMORY,
    time: TIME,
    strategy,
    run,
};
