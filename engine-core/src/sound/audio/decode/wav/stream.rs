//! Streaming a WAV file's `data` chunk from disk, one block of frames at a time.

use super::super::detect::io_err;
use super::super::mix::Mix;
use super::super::source::{ByteSource, FileSource};
use super::super::{AudioInfo, DecodeError};
use super::chunks::{WavLayout, parse};
use super::encoding::decode_frames;

/// Streams the `data` chunk of a WAV file from disk.
pub(crate) struct WavStream {
    src: FileSource,
    layout: WavLayout,
    mix: Mix,
    /// Next frame to deliver.
    next_frame: u64,
    /// Frames that can be delivered (may shrink if the file does).
    end_frame: u64,
    bytes: Vec<u8>,
    scratch: Vec<f32>,
    partial: Option<String>,
}

impl WavStream {
    pub(crate) fn new(mut src: FileSource) -> Result<Self, DecodeError> {
        let layout = parse(&mut src)?;
        let partial = layout.partial_message();
        if layout.frames == 0 && partial.is_some() {
            return Err(layout.no_audio());
        }
        Ok(Self {
            mix: layout.mix(),
            end_frame: layout.frames,
            src,
            layout,
            next_frame: 0,
            bytes: Vec::new(),
            scratch: Vec::new(),
            partial,
        })
    }

    pub(crate) fn info(&self) -> AudioInfo {
        self.layout.info()
    }

    pub(crate) fn partial(&self) -> Option<&str> {
        self.partial.as_deref()
    }

    pub(crate) fn rewind(&mut self) {
        self.next_frame = 0;
    }

    pub(crate) fn read(
        &mut self,
        out: &mut Vec<f32>,
        max_frames: usize,
    ) -> Result<usize, DecodeError> {
        let frame_bytes = self.layout.fmt.frame_bytes();
        let mut done = 0usize;
        while done < max_frames && self.next_frame < self.end_frame {
            let block = self.layout.fmt.block_frames();
            let want = (max_frames - done)
                .min(block)
                .min(usize::try_from(self.end_frame - self.next_frame).unwrap_or(block));
            let nbytes = usize::try_from(frame_bytes).unwrap_or(0) * want;
            self.bytes.resize(nbytes, 0);
            let offset = self.layout.data_start + self.next_frame * frame_bytes;
            let got = self.src.read_at(offset, &mut self.bytes).map_err(io_err)?;
            let whole = got as u64 / frame_bytes.max(1);
            let used = usize::try_from(whole * frame_bytes).unwrap_or(0);
            decode_frames(
                &self.layout.fmt,
                &self.mix,
                self.bytes.get(..used).unwrap_or(&[]),
                &mut self.scratch,
                out,
            );
            self.next_frame += whole;
            done += usize::try_from(whole).unwrap_or(0);
            if got < nbytes {
                // The file got shorter since it was opened: end here.
                self.end_frame = self.next_frame;
                self.partial = Some(format!(
                    "the file got shorter while it was being streamed (ends after frame {})",
                    self.next_frame
                ));
            }
        }
        Ok(done)
    }
}
