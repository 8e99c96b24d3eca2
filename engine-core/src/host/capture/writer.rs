//! Writing a capture as a session runs. Records are encoded on the session's thread
//! while they are still in its cache (a record handed to another thread to encode costs
//! more in cache traffic than the encoding itself), into a buffer of frames; full
//! buffers go to a thread of the capture's own ("hitbench-capture") that writes them to
//! the file, so the session never waits for the disk. At most [`QUEUE`] buffers wait:
//! a disk that cannot keep up slows the session down rather than filling memory.

use super::binary::{FrameRef, MAGIC, Tables, restore};
use super::{CaptureError, Header, MAX_FRAME_BYTES, MAX_HEADER_BYTES};
use crate::host::keyframe::Keyframe;
use crate::runtime::clock::SampleTime;
use crate::runtime::trace::TraceRecord;
use serde::Serialize;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, SyncSender, channel, sync_channel};
use std::thread::JoinHandle;

/// Bytes of frames handed to the writer thread at once.
const CHUNK: usize = 1 << 18;
/// Chunks waiting at most before the session waits for the disk.
const QUEUE: usize = 16;

/// Writes a capture as the session runs (`docs/capture.md`). Dropping it without
/// [`finish`](Self::finish) leaves a capture without its end, which still reads.
pub struct CaptureWriter {
    path: PathBuf,
    frames: Frames,
    chunks: Option<SyncSender<Vec<u8>>>,
    /// Chunks the writer thread is done with, to fill again.
    empty: Receiver<Vec<u8>>,
    thread: Option<JoinHandle<Result<(), CaptureError>>>,
}

impl CaptureWriter {
    /// Creates `path`, writes the header and starts the writer thread.
    pub fn create(path: &Path, header: &Header) -> Result<Self, CaptureError> {
        let io = |source| CaptureError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut file = File::create(path).map_err(io)?;
        let mut frames = Frames::new(path);
        frames.bytes.extend_from_slice(MAGIC);
        frames.frame(&FrameRef::Header(header), MAX_HEADER_BYTES)?;
        file.write_all(&frames.bytes).map_err(io)?;
        frames.bytes.clear();
        let (chunks, full) = sync_channel(QUEUE);
        let (give_back, empty) = channel();
        let thread = std::thread::Builder::new()
            .name("hitbench-capture".into())
            .spawn({
                let path = path.to_path_buf();
                move || write_chunks(file, &path, &full, &give_back)
            })
            .map_err(io)?;
        Ok(Self {
            path: path.to_path_buf(),
            frames,
            chunks: Some(chunks),
            empty,
            thread: Some(thread),
        })
    }

    /// Writes a command given at `seconds` (after every record handed over before it).
    pub fn input(&mut self, seconds: f64, command: String) -> Result<(), CaptureError> {
        self.frames.frame(
            &FrameRef::Input {
                seconds,
                command: &command,
            },
            MAX_FRAME_BYTES,
        )?;
        self.hand_over_when_full()
    }

    /// Writes a record.
    pub fn record(&mut self, mut record: TraceRecord) -> Result<(), CaptureError> {
        self.frames.record(&mut record)?;
        self.hand_over_when_full()
    }

    /// Writes records, in order.
    pub fn records(&mut self, mut records: Vec<TraceRecord>) -> Result<(), CaptureError> {
        for record in &mut records {
            self.frames.record(record)?;
        }
        self.hand_over_when_full()
    }

    /// Writes a keyframe of the inspectors' views.
    pub fn keyframe(&mut self, keyframe: &Keyframe) -> Result<(), CaptureError> {
        self.frames
            .frame(&FrameRef::Keyframe(keyframe), MAX_FRAME_BYTES)?;
        self.hand_over_when_full()
    }

    /// Writes the end, waits until everything is on disk and says whether it all was.
    pub fn finish(mut self, at: SampleTime) -> Result<(), CaptureError> {
        self.frames.frame(&FrameRef::End { at }, MAX_FRAME_BYTES)?;
        self.hand_over()?;
        self.chunks = None;
        self.join()
    }

    fn hand_over_when_full(&mut self) -> Result<(), CaptureError> {
        if self.frames.bytes.len() >= CHUNK {
            self.hand_over()?;
        }
        Ok(())
    }

    /// Sends the frames so far to the writer thread and takes an empty buffer back.
    fn hand_over(&mut self) -> Result<(), CaptureError> {
        if self.frames.bytes.is_empty() {
            return Ok(());
        }
        let next = self
            .empty
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(CHUNK + CHUNK / 4));
        let chunk = std::mem::replace(&mut self.frames.bytes, next);
        let sent = self
            .chunks
            .as_ref()
            .is_some_and(|chunks| chunks.send(chunk).is_ok());
        if sent {
            return Ok(());
        }
        // The writer stopped: its error says why.
        self.chunks = None;
        self.join()?;
        Err(CaptureError::Io {
            path: self.path.clone(),
            source: std::io::Error::other("the capture was already finished"),
        })
    }

    fn join(&mut self) -> Result<(), CaptureError> {
        let Some(thread) = self.thread.take() else {
            return Ok(());
        };
        thread.join().unwrap_or_else(|_| {
            Err(CaptureError::Io {
                path: self.path.clone(),
                source: std::io::Error::other("the capture's writer thread panicked"),
            })
        })
    }
}

impl std::fmt::Debug for CaptureWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaptureWriter")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl Drop for CaptureWriter {
    fn drop(&mut self) {
        // What was recorded is written; the capture is left without its end.
        let _ = self.hand_over();
        self.chunks = None;
        let _ = self.join();
    }
}

/// The writer thread: chunks into the file, each buffer given back to be filled again.
fn write_chunks(
    mut file: File,
    path: &Path,
    full: &Receiver<Vec<u8>>,
    give_back: &Sender<Vec<u8>>,
) -> Result<(), CaptureError> {
    let io = |source| CaptureError::Io {
        path: path.to_path_buf(),
        source,
    };
    for mut chunk in full {
        file.write_all(&chunk).map_err(io)?;
        chunk.clear();
        // The session may have finished already; then the buffer just goes.
        let _ = give_back.send(chunk);
    }
    file.flush().map_err(io)
}

/// Frames encoded into a buffer.
struct Frames {
    bytes: Vec<u8>,
    path: PathBuf,
    table: Tables,
}

impl Frames {
    fn new(path: &Path) -> Self {
        Self {
            bytes: Vec::with_capacity(CHUNK + CHUNK / 4),
            path: path.to_path_buf(),
            table: Tables::default(),
        }
    }

    /// A record; a verdict's voice table as a change of the table before it.
    fn record(&mut self, record: &mut TraceRecord) -> Result<(), CaptureError> {
        let Some((table, delta)) = self.table.strip(record) else {
            return self.frame(&FrameRef::Record(record), MAX_FRAME_BYTES);
        };
        if let Some(delta) = delta {
            self.frame(&FrameRef::Table(&delta), MAX_FRAME_BYTES)?;
        }
        let written = self.frame(&FrameRef::Record(record), MAX_FRAME_BYTES);
        restore(record, table);
        written
    }

    /// One frame: its length, then its postcard bytes.
    fn frame(&mut self, frame: &impl Serialize, limit: usize) -> Result<(), CaptureError> {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(&[0; 4]);
        let bytes = std::mem::take(&mut self.bytes);
        self.bytes = postcard::serialize_with_flavor(frame, Append(bytes)).map_err(|e| {
            CaptureError::Io {
                path: self.path.clone(),
                source: std::io::Error::other(e),
            }
        })?;
        let len = self.bytes.len() - start - 4;
        if len > limit {
            self.bytes.truncate(start);
            return Err(CaptureError::Io {
                path: self.path.clone(),
                source: std::io::Error::other(format!(
                    "a frame of {len} bytes; at most {limit} are allowed"
                )),
            });
        }
        self.bytes[start..start + 4].copy_from_slice(&(len as u32).to_le_bytes());
        Ok(())
    }
}

/// Postcard's output into the end of a buffer, whole slices at a time (its `Extend`
/// flavour copies byte by byte, which cost more than the encoding itself).
struct Append(Vec<u8>);

impl postcard::ser_flavors::Flavor for Append {
    type Output = Vec<u8>;

    #[inline]
    fn try_extend(&mut self, data: &[u8]) -> postcard::Result<()> {
        self.0.extend_from_slice(data);
        Ok(())
    }

    #[inline]
    fn try_push(&mut self, data: u8) -> postcard::Result<()> {
        self.0.push(data);
        Ok(())
    }

    fn finalize(self) -> postcard::Result<Vec<u8>> {
        Ok(self.0)
    }
}
