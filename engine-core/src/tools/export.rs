//! `hitbench decode`: an audio file decoded as the engine decodes it and written as 16-bit
//! PCM WAV at the file's own sample rate and channels.
//!
//! The file goes through the engine's streaming decoder ([`StreamDecoder`]), one block at
//! a time, so a long file takes little memory; the output has the channels the engine
//! plays (1 for mono, 2 for everything else: more than two are downmixed to stereo as
//! they play), and 16-bit input comes out sample for sample ([`Quantize::Exact`]). A
//! damaged file is an error, never a WAV of what came before the damage. The output
//! follows the output rule (`fsrules::output`): only a regular file that is not the
//! input is replaced, and only once the new one is complete, so a failure leaves no
//! half-written file and never replaces one that was there. Its length is bounded by what a WAV file holds
//! ([`WavSpec::max_frames`], 4 GiB of data).
//!
//! [`Quantize::Exact`]: crate::sound::output::Quantize::Exact

use crate::sound::audio::decode::{AudioInfo, DecodeError, StreamDecoder};
use crate::sound::output::{WavError, WavSpec, WavWriter};
use crate::toolchain::fsrules::{Output, OutputError};
use std::path::{Path, PathBuf};

/// Frames decoded and written at a time.
const BLOCK_FRAMES: usize = 16_384;

/// What [`decode_to_wav`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exported {
    /// What the input's headers said.
    pub info: AudioInfo,
    /// Frames written.
    pub frames: u64,
}

/// Why a file could not be decoded to WAV. Each names the file.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The input could not be opened, read or decoded.
    #[error("{}", super::compare::decode_message(path, error))]
    Decode {
        /// The input.
        path: PathBuf,
        /// Why (not a `source`: the message already holds it, once).
        error: DecodeError,
    },
    /// The input is damaged: its audio breaks off before its end.
    #[error("{}: damaged: {why}", path.display())]
    Damaged {
        /// The input.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// The output could not be written (or would hold more than a WAV file may).
    #[error(transparent)]
    Write(#[from] WavError),
}

/// Decodes `input` and writes it to `output` as 16-bit PCM WAV; see the module.
pub fn decode_to_wav(input: &Path, output: &Path) -> Result<Exported, ExportError> {
    let decode = |error| ExportError::Decode {
        path: input.to_path_buf(),
        error,
    };
    let mut stream = StreamDecoder::open(input).map_err(decode)?;
    refuse_damage(&stream)?;
    let info = stream.info().clone();
    let spec = WavSpec::decoded(info.sample_rate, info.channels);
    let file = Output::create(output, &[input]).map_err(|e| match e {
        OutputError::Io { source, .. } => WavError::Create {
            path: output.to_path_buf(),
            source,
        },
        refusal => WavError::Refused(refusal),
    })?;
    let mut writer = WavWriter::new_with(file, output, spec, u64::MAX)?;
    let channels = usize::from(info.channels.max(1));
    let mut block = Vec::with_capacity(BLOCK_FRAMES * channels);
    loop {
        block.clear();
        let read = stream
            .read(&mut block, BLOCK_FRAMES)
            .map_err(|error| ExportError::Decode {
                path: stream.path().to_path_buf(),
                error,
            })?;
        refuse_damage(&stream)?;
        if read == 0 {
            break;
        }
        writer.write(&block)?;
    }
    let frames = writer.finish()?;
    Ok(Exported { info, frames })
}

/// A damaged input is an error, not decoded up to the damage.
fn refuse_damage(stream: &StreamDecoder) -> Result<(), ExportError> {
    match stream.partial() {
        Some(why) => Err(ExportError::Damaged {
            path: stream.path().to_path_buf(),
            why: why.to_owned(),
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Dir(PathBuf);

    impl Dir {
        fn new(tag: &str) -> Self {
            let dir =
                std::env::temp_dir().join(format!("hitbench-export-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Self(dir)
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn fixture(name: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/audio")
            .join(name)
    }

    #[test]
    fn a_sixteen_bit_wav_comes_out_byte_for_byte_after_the_header() {
        let dir = Dir::new("wav");
        let input = fixture("sfx/lbreakout2_excellent_voice.wav");
        let output = dir.0.join("out.wav");
        let done = decode_to_wav(&input, &output).unwrap();
        assert_eq!((done.frames, done.info.channels), (12_375, 1));
        let written = std::fs::read(&output).unwrap();
        let original = std::fs::read(&input).unwrap();
        let data = |b: &[u8]| {
            let at = b.windows(4).position(|w| w == b"data").unwrap() + 8;
            b[at..at + 12_375 * 2].to_vec()
        };
        assert_eq!(data(&written), data(&original));
        assert_eq!(written.len(), 44 + 12_375 * 2);
        let left: Vec<_> = std::fs::read_dir(&dir.0).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary file left behind");
    }

    #[test]
    fn a_damaged_file_writes_nothing_and_keeps_what_was_there() {
        let dir = Dir::new("damaged");
        let output = dir.0.join("out.wav");
        std::fs::write(&output, b"before").unwrap();
        let input = fixture("damaged/truncated_wav_lbreakout2_exp.wav");
        let e = decode_to_wav(&input, &output).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("{}: damaged: ", input.display())),
            "{e}"
        );
        assert_eq!(std::fs::read(&output).unwrap(), b"before");
        assert_eq!(std::fs::read_dir(&dir.0).unwrap().count(), 1);
        let missing = decode_to_wav(&dir.0.join("none.xa"), &output)
            .unwrap_err()
            .to_string();
        assert!(missing.contains("none.xa"), "{missing}");
    }

    #[test]
    fn an_output_that_cannot_be_made_is_named() {
        let input = fixture("xa/lbreakout2_excellent_voice.xa");
        let output = Path::new("/nonexistent-folder/out.wav");
        let e = decode_to_wav(&input, output).unwrap_err().to_string();
        assert!(e.contains("/nonexistent-folder/out.wav"), "{e}");
    }
}
