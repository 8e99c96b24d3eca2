//! Tests of the public decoding API across formats: robustness against random and mutated
//! input (property tests), files on disk and streaming.

use super::compressed::tests::silent_mp3;
use super::wav::tests::simple;
use super::*;
use proptest::prelude::*;

/// A scratch folder for files this test writes, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("hitbench-decode-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What every successful decode must look like, whatever the input.
fn assert_sane(d: &Decoded) {
    assert!(matches!(d.buffer.channels, 1 | 2));
    assert_eq!(d.buffer.channels, d.info.channels);
    assert_eq!(d.buffer.sample_rate, d.info.sample_rate);
    assert!(d.buffer.sample_rate > 0);
    assert_eq!(d.buffer.data.len() % usize::from(d.buffer.channels), 0);
    assert!(d.buffer.data.iter().all(|s| (-1.0..=1.0).contains(s)));
}

/// Decodes and probes `bytes`; both must return (not panic), and any audio must be sane.
fn try_everything(bytes: &[u8]) {
    let limits = DecodeLimits {
        max_frames: 1 << 20,
        ..DecodeLimits::default()
    };
    if let Ok(d) = decode("fuzz", bytes, &limits) {
        assert_sane(&d);
    }
    let _ = probe("fuzz", bytes);
}

/// Well-formed WAVs of assorted encodings and shapes.
fn valid_wav() -> impl Strategy<Value = Vec<u8>> {
    let encodings = prop::sample::select(vec![
        (1u16, 8u16),
        (1, 16),
        (1, 24),
        (1, 32),
        (3, 32),
        (3, 64),
        (6, 8),
        (7, 8),
    ]);
    (
        encodings,
        1u16..=6,
        MIN_SAMPLE_RATE..=96_000,
        prop::collection::vec(any::<u8>(), 0..600),
    )
        .prop_map(|((tag, bits), channels, rate, data)| simple(tag, channels, rate, bits, &data))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        try_everything(&bytes);
    }

    #[test]
    fn arbitrary_bytes_behind_magic_numbers_never_panic(
        magic in prop::sample::select(vec![
            &b"RIFF\x24\x00\x00\x00WAVEfmt "[..],
            b"OggS\x00\x02",
            b"fLaC",
            b"ID3\x03\x00\x00\x00\x00\x00\x00",
            b"\xFF\xFB\x90\xC4",
        ]),
        tail in prop::collection::vec(any::<u8>(), 0..4096),
    ) {
        let mut bytes = magic.to_vec();
        bytes.extend(tail);
        try_everything(&bytes);
    }

    #[test]
    fn damaged_wavs_never_panic(
        wav in valid_wav(),
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..8),
        cut in any::<prop::sample::Index>(),
        do_cut in any::<bool>(),
    ) {
        let mut bytes = wav;
        for (at, value) in flips {
            let i = at.index(bytes.len());
            bytes[i] = value;
        }
        if do_cut {
            bytes.truncate(cut.index(bytes.len() + 1));
        }
        try_everything(&bytes);
    }

    #[test]
    fn damaged_mp3s_never_panic(
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..16),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut bytes = silent_mp3(12);
        for (at, value) in flips {
            let i = at.index(bytes.len());
            bytes[i] = value;
        }
        bytes.truncate(cut.index(bytes.len() + 1).max(1));
        try_everything(&bytes);
    }

    #[test]
    fn s16_samples_round_trip(values in prop::collection::vec(any::<i16>(), 0..500), stereo in any::<bool>()) {
        let channels = if stereo { 2 } else { 1 };
        let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let d = decode("x.wav", &simple(1, channels, 22050, 16, &data), &DecodeLimits::default()).unwrap();
        let whole = values.len() / usize::from(channels) * usize::from(channels);
        let expected: Vec<f32> = values[..whole].iter().map(|&v| f32::from(v) / 32768.0).collect();
        prop_assert_eq!(d.buffer.data, expected);
        prop_assert_eq!(d.info.frames, Some((values.len() / usize::from(channels)) as u64));
    }
}

#[test]
fn stream_decoder_can_move_to_the_audio_thread() {
    fn assert_send<T: Send + 'static>() {}
    assert_send::<StreamDecoder>();
    assert_send::<Decoded>();
    assert_send::<DecodeError>();
}

#[test]
fn decode_file_names_the_path_when_it_cannot_read() {
    let e = decode_file(
        Path::new("/nonexistent/hitbench/a.wav"),
        &DecodeLimits::default(),
    )
    .unwrap_err();
    assert!(matches!(e, DecodeError::Io { .. }));
    assert!(
        e.to_string()
            .starts_with("cannot read `/nonexistent/hitbench/a.wav`: "),
        "{e}"
    );
    let e = StreamDecoder::open(Path::new("/nonexistent/hitbench/b.ogg")).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("cannot read `/nonexistent/hitbench/b.ogg`: "),
        "{e}"
    );
}

#[test]
fn decode_file_reads_from_disk() {
    let dir = TempDir::new("file");
    let path = dir.file("beep.wav", &simple(1, 1, 8000, 8, &[128, 255]));
    let d = decode_file(&path, &DecodeLimits::default()).unwrap();
    assert_eq!(d.buffer.data, vec![0.0, 127.0 / 128.0]);
}

#[test]
fn extension_is_only_a_hint() {
    // An MP3 named .wav and a WAV named .ogg decode as what they are.
    let mp3 = decode("music.wav", &silent_mp3(4), &DecodeLimits::default()).unwrap();
    assert_eq!(mp3.info.format, AudioFormat::Mp3);
    let wav = decode(
        "sound.ogg",
        &simple(1, 1, 8000, 8, &[128]),
        &DecodeLimits::default(),
    )
    .unwrap();
    assert_eq!(
        wav.info.format,
        AudioFormat::Wav {
            encoding: WavEncoding::PcmU8
        }
    );
}

#[test]
fn default_limit_is_ten_minutes_at_48k() {
    assert_eq!(DecodeLimits::default().max_frames, 28_800_000);
    let e = DecodeError::TooLong {
        max_frames: 480_000,
        sample_rate: 48_000,
    };
    assert_eq!(
        e.to_string(),
        "the audio is longer than the limit of 480000 frames (10.0 s at 48000 Hz); stream it instead"
    );
}

#[test]
fn probe_reads_headers_of_compressed_files() {
    let info = probe("x.mp3", &silent_mp3(10)).unwrap();
    assert_eq!(
        (info.format, info.sample_rate, info.channels, info.bits),
        (AudioFormat::Mp3, 44100, 1, None)
    );
}

#[test]
fn compressed_stream_matches_whole_decode_and_rewinds() {
    let dir = TempDir::new("mp3");
    let bytes = silent_mp3(30);
    let path = dir.file("loop.mp3", &bytes);
    let whole = decode("loop.mp3", &bytes, &DecodeLimits::default()).unwrap();
    let mut s = StreamDecoder::open(&path).unwrap();
    assert_eq!(s.info().format, AudioFormat::Mp3);
    for _ in 0..2 {
        let mut out = Vec::new();
        loop {
            let n = s.read(&mut out, 1000).unwrap();
            assert!(n <= 1000);
            if n == 0 {
                break;
            }
        }
        assert_eq!(out.len(), whole.buffer.data.len());
        assert_eq!(s.read(&mut out, 1000).unwrap(), 0, "stays at the end");
        s.rewind().unwrap();
    }
    assert_eq!(s.partial(), None);
}

#[test]
fn streaming_a_damaged_wav_reports_partial() {
    let dir = TempDir::new("partial");
    let mut wav = simple(1, 1, 8000, 8, &[128; 100]);
    wav.truncate(wav.len() - 40);
    let path = dir.file("cut.wav", &wav);
    let mut s = StreamDecoder::open(&path).unwrap();
    let mut out = Vec::new();
    assert_eq!(s.read(&mut out, 1000).unwrap(), 60);
    assert_eq!(
        s.partial(),
        Some("data chunk says 100 bytes but only 60 are in the file")
    );
}

#[test]
fn a_file_opened_already_is_read_no_further_than_its_given_length() {
    let dir = TempDir::new("opened");
    let wav = simple(1, 1, 8000, 8, &[128; 100]);
    let path = dir.file("whole.wav", &wav);
    let len = wav.len() as u64;
    let opened = |len| scan_opened(&path, File::open(&path).unwrap(), len, u64::MAX);
    // Its whole length: what opening it by name finds.
    assert_eq!(opened(len).unwrap(), scan_file(&path, u64::MAX).unwrap());
    // A length seen before the file grew: the audio past it is not read.
    let short = opened(len - 40).unwrap();
    assert_eq!(short.frames, 60);
    assert_eq!(
        short.partial.as_deref(),
        Some("data chunk says 100 bytes but only 60 are in the file")
    );
}

#[test]
fn streaming_garbage_is_an_error_at_open() {
    let dir = TempDir::new("garbage");
    let path = dir.file("junk.mp3", b"this is not audio at all");
    assert!(matches!(
        StreamDecoder::open(&path),
        Err(DecodeError::Unrecognised {
            expected: Some("MP3"),
            ..
        })
    ));
    let empty = dir.file("empty.wav", b"");
    assert!(matches!(
        StreamDecoder::open(&empty),
        Err(DecodeError::Empty)
    ));
}
