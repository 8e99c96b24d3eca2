//! Reading an XA file's blocks a run at a time, from memory or from disk, into output
//! frames: the whole-file decode and the streaming decoder both go through [`XaReader`].

use super::super::detect::io_err;
use super::super::mix::{Mix, output_channels};
use super::super::source::ByteSource;
use super::super::{AudioInfo, DecodeError};
use super::adpcm::{self, BLOCK_FRAMES, Channel};
use super::{FORMAT, HEADER_BYTES, MAX_CHANNELS, XaHeader};

/// Blocks read and decoded per step: 14,336 frames, at most 61,440 bytes of data.
const BLOCKS_PER_STEP: u64 = 512;

/// Reads the blocks of an XA file from `S` and hands out interleaved output frames.
pub(crate) struct XaReader<S> {
    src: S,
    header: XaHeader,
    mix: Mix,
    /// Each channel's predictor.
    states: [Channel; MAX_CHANNELS as usize],
    /// Next block to read.
    next_block: u64,
    /// Blocks that can be read (fewer when the data turned out damaged).
    end_block: u64,
    /// Frames handed out since opening or rewinding.
    frames_out: u64,
    bytes: Vec<u8>,
    samples: Vec<i16>,
    scratch: Vec<f32>,
    /// Output samples decoded and not yet handed out, from `pending_pos`.
    pending: Vec<f32>,
    pending_pos: usize,
    partial: Option<String>,
}

impl<S: ByteSource> XaReader<S> {
    /// Reads the header of the file in `src` and checks that its data is all there.
    pub(crate) fn open(mut src: S) -> Result<Self, DecodeError> {
        let header = XaHeader::read(&mut src)?;
        header.check_complete(src.len())?;
        let channels = usize::from(header.channels);
        Ok(Self {
            src,
            mix: Mix::new(channels, usize::from(output_channels(header.channels)), 0),
            states: [Channel::default(); MAX_CHANNELS as usize],
            next_block: 0,
            end_block: header.frames.div_ceil(BLOCK_FRAMES as u64),
            frames_out: 0,
            bytes: Vec::new(),
            samples: Vec::new(),
            scratch: Vec::new(),
            pending: Vec::new(),
            pending_pos: 0,
            partial: None,
            header,
        })
    }

    /// The checked header.
    pub(crate) fn header(&self) -> &XaHeader {
        &self.header
    }

    /// What the header says.
    pub(crate) fn info(&self) -> AudioInfo {
        self.header.info()
    }

    /// `Some(why)` once the data turned out damaged (the audio before it was delivered).
    pub(crate) fn partial(&self) -> Option<&str> {
        self.partial.as_deref()
    }

    /// Goes back to the first frame; every pass yields the same samples.
    pub(crate) fn rewind(&mut self) {
        self.states = [Channel::default(); MAX_CHANNELS as usize];
        self.next_block = 0;
        self.frames_out = 0;
        self.pending.clear();
        self.pending_pos = 0;
        if self.partial.is_none() {
            self.end_block = self.header.frames.div_ceil(BLOCK_FRAMES as u64);
        }
    }

    /// Appends up to `max_frames` output frames to `out` and returns how many; fewer only at
    /// the end. An error only when the data is damaged before its first frame.
    pub(crate) fn read(
        &mut self,
        out: &mut Vec<f32>,
        max_frames: usize,
    ) -> Result<usize, DecodeError> {
        let channels = usize::from(output_channels(self.header.channels));
        let mut done = 0usize;
        while done < max_frames && self.fill()? {
            let rest = self.pending.get(self.pending_pos..).unwrap_or(&[]);
            let take = (rest.len() / channels).min(max_frames - done);
            out.extend_from_slice(rest.get(..take * channels).unwrap_or(&[]));
            self.pending_pos += take * channels;
            done += take;
            self.frames_out += take as u64;
        }
        if self.frames_out == 0
            && let Some(why) = &self.partial
        {
            return Err(DecodeError::NoAudio {
                format: FORMAT,
                detail: why.clone(),
            });
        }
        Ok(done)
    }

    /// Makes sure output is pending; false once the audio is over.
    fn fill(&mut self) -> Result<bool, DecodeError> {
        while self.pending_pos >= self.pending.len() {
            if self.next_block >= self.end_block {
                return Ok(false);
            }
            self.step()?;
        }
        Ok(true)
    }

    /// Reads and decodes the next run of blocks into `pending`.
    fn step(&mut self) -> Result<(), DecodeError> {
        let channels = u64::from(self.header.channels);
        let block_frames = BLOCK_FRAMES as u64;
        let whole = adpcm::block_bytes(block_frames, channels);
        let first = self.next_block;
        let blocks = BLOCKS_PER_STEP
            .min(self.end_block.saturating_sub(first))
            .max(1);
        // Frames of a block: 28, but fewer in the last one.
        let total = self.header.frames;
        let frames_of = |block: u64| total.saturating_sub(block * block_frames).min(block_frames);
        let last = first + blocks - 1;
        let wanted = (blocks - 1) * whole + adpcm::block_bytes(frames_of(last), channels);
        self.bytes
            .resize(usize::try_from(wanted).unwrap_or_default(), 0);
        let got = self
            .src
            .read_at(HEADER_BYTES + first * whole, &mut self.bytes)
            .map_err(io_err)?;
        self.samples.clear();
        let count = usize::from(self.header.channels);
        let mut at = 0usize;
        for block in first..=last {
            let frames = frames_of(block);
            let size = usize::try_from(adpcm::block_bytes(frames, channels)).unwrap_or(usize::MAX);
            let end = at.saturating_add(size);
            let Some(bytes) = self.bytes.get(at..end).filter(|_| end <= got) else {
                // The file got shorter since it was opened: end here.
                let why = "the file got shorter while it was being read".to_string();
                self.stop(block, why);
                break;
            };
            let states = self.states.get_mut(..count).unwrap_or_default();
            let frames = usize::try_from(frames).unwrap_or(BLOCK_FRAMES);
            if let Err(bad) = adpcm::decode_block(bytes, frames, states, &mut self.samples) {
                let why = format!(
                    "channel {} of the block at byte {} names filter {}; XA has filters 0 to 3",
                    bad.channel + 1,
                    HEADER_BYTES + block * whole,
                    bad.filter
                );
                self.stop(block, why);
                break;
            }
            at = end;
            self.next_block = block + 1;
        }
        self.scratch.clear();
        self.scratch
            .extend(self.samples.iter().map(|&s| f32::from(s) / 32_768.0));
        self.pending.clear();
        self.pending_pos = 0;
        self.mix.apply(&self.scratch, &mut self.pending);
        Ok(())
    }

    /// Ends the audio before `block`, damaged for the reason given.
    fn stop(&mut self, block: u64, why: String) {
        self.end_block = block;
        self.next_block = block;
        let frame = block * BLOCK_FRAMES as u64;
        self.partial = Some(format!(
            "decoding stopped at frame {frame} of {}: {why}",
            self.header.frames
        ));
    }
}
