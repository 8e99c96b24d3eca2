//! Writing a capture as a session runs. The session hands what it has to a thread of
//! the capture's own ("hitbench-capture") — commands, records (gathered into hand-overs
//! of [`GATHER`]), keyframes — and goes on; that thread encodes them (names by their
//! index in the capture's name table, [`names`](crate::runtime::trace::names)) and writes
//! the file, so the session neither encodes nor waits for the disk.
//!
//! What crosses between the two threads is kept to what must, because on a machine whose
//! cores are far apart every cache line that crosses costs the session:
//! - the session only gathers: records are moved in bulk out of the engine's batch into a
//!   hand-over buffer of the writer's own (the engine's next records go into memory only
//!   its core has held), and it drops a returned buffer's old records just before it
//!   fills the buffer again (one trip to memory, not two);
//! - the capture's thread never touches a reference count the engine uses: it compares
//!   each verdict's voice table with the seats it wrote last by value
//!   ([`TableWriter`](super::tables::TableWriter)), reads names by their address, and finds
//!   the earlier record a record repeats where both are;
//! - it looks for work every [`POLL`] rather than being woken (a wake-up is a system call
//!   on the session's thread at each hand-over);
//! - at most [`QUEUE`] hand-overs wait: a capture that cannot keep up slows the session
//!   down rather than filling memory.
//!
//! The measurements behind each choice, and the designs tried and not kept, are in
//! `docs/perf/capture.md`.

use super::binary::{FrameRef, MAGIC};
use super::repeats::{EntriesRef, RecordState, Window};
use super::tables::each_with_delta;
use super::{CaptureError, Header, MAX_FRAME_BYTES, MAX_HEADER_BYTES};
use crate::host::keyframe::Keyframe;
use crate::runtime::clock::SampleTime;
use crate::runtime::trace::names::Writing;
use crate::runtime::trace::{TraceRecord, without_tables};
use crate::toolchain::fsrules::Output;
use serde::Serialize;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, SyncSender, TryRecvError, channel, sync_channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Bytes of encoded frames written to the file at once.
const CHUNK: usize = 1 << 18;
/// Hand-overs waiting at most before the session waits for the capture.
const QUEUE: usize = 64;
/// Records the session gathers before it hands them over (each hand-over is a channel
/// send, and a batch given back to drop); a command, a keyframe or the end hands over
/// what is gathered first. With [`QUEUE`], room for 16 k records: several polls' worth
/// at millions of events a second.
const GATHER: usize = 256;
/// How often the capture's thread looks for work when it has none.
const POLL: Duration = Duration::from_millis(2);

/// What the session hands to the capture's thread, in the order it happened.
enum Job {
    Input { seconds: f64, command: String },
    Records(Gathered),
    Keyframe(Box<Keyframe>),
    End(SampleTime),
}

/// Records gathered for one hand-over.
type Gathered = Vec<TraceRecord>;

/// Hand-over buffers given back and kept for records to come, their old records still
/// in them: as many as can be out at once (queued, being written, kept for repeats),
/// so none is freed (and its memory given to the engine) while capturing.
const SPARE: usize = QUEUE + 3;
/// A buffer that grew past this many records (a tick of thousands) is not kept.
const SPARE_ROOM: usize = 4 * GATHER;

/// A capture written in full.
#[derive(Debug, Clone, Copy)]
pub struct Finished {
    /// How long the capture's thread worked — encoding and writing, not waiting for
    /// work: what a capture costs beyond the session's own thread.
    pub busy: Duration,
}

/// Writes a capture as the session runs (`docs/capture.md`). Dropping it without
/// [`finish`](Self::finish) leaves a capture without its end, which still reads.
pub struct CaptureWriter {
    path: PathBuf,
    jobs: Option<SyncSender<Job>>,
    /// Records gathered, not yet handed over.
    gathered: Gathered,
    /// Hand-overs the capture's thread is done with, to keep here.
    done: Receiver<Gathered>,
    /// Given-back hand-over buffers, for records to come (at most [`SPARE`]), oldest
    /// first; their records are dropped when the buffer is taken.
    spare: VecDeque<Gathered>,
    thread: Option<JoinHandle<Result<Duration, CaptureError>>>,
}

impl CaptureWriter {
    /// Starts `path` under the output rule (`fsrules::output`: only a regular file is
    /// replaced, and only when the capture's thread has written everything — at
    /// [`finish`](Self::finish), or at a drop, leaving a capture without its end), writes
    /// the header and starts the capture's thread.
    pub fn create(path: &Path, header: &Header) -> Result<Self, CaptureError> {
        let io = |source| CaptureError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut file = Output::create(path, &[]).map_err(|e| CaptureError::from_output(path, e))?;
        let mut frames = Frames::new(path);
        frames.bytes.extend_from_slice(MAGIC);
        frames.frame(&FrameRef::Header(header), MAX_HEADER_BYTES)?;
        file.write_all(&frames.bytes).map_err(io)?;
        frames.bytes.clear();
        let (jobs, queued) = sync_channel(QUEUE);
        let (give_back, done) = channel();
        let thread = std::thread::Builder::new()
            .name("hitbench-capture".into())
            .spawn(move || encode_and_write(file, frames, &queued, &give_back))
            .map_err(io)?;
        Ok(Self {
            path: path.to_path_buf(),
            jobs: Some(jobs),
            gathered: Gathered::default(),
            done,
            spare: VecDeque::new(),
            thread: Some(thread),
        })
    }

    /// Writes a command given at `seconds` (after every record handed over before it).
    pub fn input(&mut self, seconds: f64, command: String) -> Result<(), CaptureError> {
        self.hand_over(Job::Input { seconds, command })
    }

    /// Writes a record.
    pub fn record(&mut self, record: TraceRecord) -> Result<(), CaptureError> {
        self.room().push(record);
        self.hand_over_if_full()
    }

    /// Writes records, in order. They move into the writer's own buffer; `records`
    /// itself is freed here.
    pub fn records(&mut self, mut records: Vec<TraceRecord>) -> Result<(), CaptureError> {
        if records.is_empty() {
            return Ok(());
        }
        self.room().append(&mut records);
        self.hand_over_if_full()
    }

    /// The buffer records are gathered in: a spare one when the last was handed over,
    /// its old records dropped now (so its memory is in the cache as it is filled).
    fn room(&mut self) -> &mut Gathered {
        if self.gathered.capacity() == 0 {
            self.gathered = match self.spare.pop_front() {
                Some(mut spare) => {
                    spare.clear();
                    spare
                }
                None => Vec::with_capacity(2 * GATHER),
            };
        }
        &mut self.gathered
    }

    /// Hands the records gathered over once there are [`GATHER`] of them.
    fn hand_over_if_full(&mut self) -> Result<(), CaptureError> {
        if self.gathered.len() < GATHER {
            return Ok(());
        }
        self.hand_over_gathered()
    }

    /// Writes a keyframe of the inspectors' views.
    pub fn keyframe(&mut self, keyframe: Keyframe) -> Result<(), CaptureError> {
        self.hand_over(Job::Keyframe(Box::new(keyframe)))
    }

    /// Writes the end, waits until everything is on disk and says whether it all was;
    /// if it was, how long the capture's thread worked.
    pub fn finish(mut self, at: SampleTime) -> Result<Finished, CaptureError> {
        self.hand_over(Job::End(at))?;
        self.jobs = None;
        self.join().map(|busy| Finished { busy })
    }

    /// Hands the records gathered to the capture's thread.
    fn hand_over_gathered(&mut self) -> Result<(), CaptureError> {
        let gathered = std::mem::take(&mut self.gathered);
        self.send(Job::Records(gathered))
    }

    /// Hands a job to the capture's thread after the records gathered before it.
    fn hand_over(&mut self, job: Job) -> Result<(), CaptureError> {
        if !self.gathered.is_empty() {
            self.hand_over_gathered()?;
        }
        self.send(job)
    }

    /// Sends a job, first keeping the buffers the capture's thread gave back.
    fn send(&mut self, job: Job) -> Result<(), CaptureError> {
        while let Ok(gathered) = self.done.try_recv() {
            // The records go on the session's thread, when the buffer is used again
            // (`room`); a buffer not kept goes now.
            if self.spare.len() < SPARE && gathered.capacity() <= SPARE_ROOM {
                self.spare.push_back(gathered);
            }
        }
        let sent = self
            .jobs
            .as_ref()
            .is_some_and(|jobs| jobs.send(job).is_ok());
        if sent {
            return Ok(());
        }
        // The capture's thread stopped: its error says why.
        self.jobs = None;
        self.join()?;
        Err(CaptureError::Io {
            path: self.path.clone(),
            source: std::io::Error::other("the capture was already finished"),
        })
    }

    fn join(&mut self) -> Result<Duration, CaptureError> {
        let Some(thread) = self.thread.take() else {
            return Ok(Duration::ZERO);
        };
        let joined = thread.join().unwrap_or_else(|_| {
            Err(CaptureError::Io {
                path: self.path.clone(),
                source: std::io::Error::other("the capture's thread panicked"),
            })
        });
        while let Ok(gathered) = self.done.try_recv() {
            drop(gathered);
        }
        joined
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
        // What was handed over is written; the capture is left without its end.
        if !self.gathered.is_empty() {
            let _ = self.hand_over_gathered();
        }
        self.jobs = None;
        let _ = self.join();
    }
}

/// The next job; `None` once the session is done. Without one, the thread sleeps for
/// [`POLL`] and looks again, so it works in bursts of whatever piled up. It is not woken
/// per hand-over (the session would pay a system call for each), and it does not spin:
/// a spinning thread takes time from the session's even on another core when the two
/// share a physical core, as threads do with SMT and virtual machines' cores often do.
fn next_job(queued: &Receiver<Job>) -> Option<Job> {
    loop {
        match queued.try_recv() {
            Ok(job) => return Some(job),
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) => std::thread::sleep(POLL),
        }
    }
}

/// The capture's thread: encodes each job in order, writes full chunks to the file and
/// gives each batch of records back.
fn encode_and_write(
    mut file: Output,
    mut frames: Frames,
    queued: &Receiver<Job>,
    give_back: &Sender<Gathered>,
) -> Result<Duration, CaptureError> {
    let path = frames.path.clone();
    let io = |source| CaptureError::Io {
        path: path.clone(),
        source,
    };
    let names = Writing::start();
    let mut state = RecordState::default();
    // The hand-over before the one being written, kept for the records it holds to be
    // repeated (`repeats`), and where its records and the next ones start.
    let mut previous: Option<Gathered> = None;
    let mut previous_start = 0;
    let mut written = 0;
    let mut busy = Duration::ZERO;
    while let Some(job) = next_job(queued) {
        let start = Instant::now();
        match job {
            Job::Input { seconds, command } => frames.frame(
                &FrameRef::Input {
                    seconds,
                    command: &command,
                },
                MAX_FRAME_BYTES,
            )?,
            Job::Records(gathered) => {
                let window = Window {
                    previous: previous.as_deref().unwrap_or_default(),
                    previous_start,
                    current: &gathered,
                    current_start: written,
                };
                for start in (0..gathered.len()).step_by(GATHER) {
                    let range = start..gathered.len().min(start + GATHER);
                    frames.records(window, range, &mut state, &names)?;
                }
                previous_start = written;
                written += gathered.len() as u64;
                // The session may have finished already; then the records just go.
                if let Some(done) = previous.replace(gathered) {
                    let _ = give_back.send(done);
                }
            }
            Job::Keyframe(keyframe) => frames.with_names(&names, |frames| {
                frames.frame(&FrameRef::Keyframe(&keyframe), MAX_FRAME_BYTES)
            })?,
            Job::End(at) => frames.frame(&FrameRef::End { at }, MAX_FRAME_BYTES)?,
        }
        if frames.bytes.len() >= CHUNK {
            file.write_all(&frames.bytes).map_err(io)?;
            frames.bytes.clear();
        }
        busy += start.elapsed();
    }
    if let Some(done) = previous {
        let _ = give_back.send(done);
    }
    let start = Instant::now();
    file.write_all(&frames.bytes).map_err(io)?;
    file.commit()
        .map_err(|e| CaptureError::from_output(&path, e))?;
    Ok(busy + start.elapsed())
}

/// Frames encoded into a buffer.
struct Frames {
    bytes: Vec<u8>,
    path: PathBuf,
}

impl Frames {
    fn new(path: &Path) -> Self {
        Self {
            bytes: Vec::with_capacity(CHUNK + CHUNK / 4),
            path: path.to_path_buf(),
        }
    }

    /// The window's records `range` as one frame, each a repeat of an earlier record
    /// or after the change of the voice table to write before it if there is one — or,
    /// should that frame be too long, each record in full in a frame of its own, after
    /// a table frame when the table changed.
    fn records(
        &mut self,
        window: Window<'_>,
        range: Range<usize>,
        state: &mut RecordState,
        names: &Writing,
    ) -> Result<(), CaptureError> {
        self.with_names(names, |frames| {
            let before = state.tables.clone();
            let batch = FrameRef::Entries(EntriesRef {
                window,
                range: range.clone(),
                state: RefCell::new(&mut *state),
            });
            if let Fit::Written = without_tables(|| frames.frame_within(&batch, MAX_FRAME_BYTES))? {
                return Ok(());
            }
            // The records the attempt took for repeats keep their places: each is still
            // written, in full, where the attempt would have put it.
            state.tables = before;
            each_with_delta(
                &window.current[range],
                &mut state.tables,
                |delta, record| {
                    if let Some(delta) = delta {
                        frames.frame(&FrameRef::Table(delta), MAX_FRAME_BYTES)?;
                    }
                    without_tables(|| frames.frame(&FrameRef::Record(record), MAX_FRAME_BYTES))
                },
            )
        })
    }

    /// Writes frames with `write`; names used for the first time go in a names frame
    /// before them.
    fn with_names(
        &mut self,
        names: &Writing,
        write: impl FnOnce(&mut Self) -> Result<(), CaptureError>,
    ) -> Result<(), CaptureError> {
        let start = self.bytes.len();
        write(self)?;
        let new = names.take_new();
        if new.is_empty() {
            return Ok(());
        }
        let written = self.bytes.split_off(start);
        // In frames of at most half the limit's worth of text (a name longer than the
        // limit fails as too long).
        let mut first = 0;
        let mut text = 0;
        for (i, name) in new.iter().enumerate() {
            if text + name.len() > MAX_FRAME_BYTES / 2 && i > first {
                self.frame(&FrameRef::Names(&new[first..i]), MAX_FRAME_BYTES)?;
                (first, text) = (i, 0);
            }
            text += name.len();
        }
        self.frame(&FrameRef::Names(&new[first..]), MAX_FRAME_BYTES)?;
        self.bytes.extend_from_slice(&written);
        Ok(())
    }

    /// One frame: its length, then its postcard bytes.
    fn frame(&mut self, frame: &impl Serialize, limit: usize) -> Result<(), CaptureError> {
        match self.frame_within(frame, limit)? {
            Fit::Written => Ok(()),
            Fit::TooLong(len) => Err(self.error(format!(
                "a frame of {len} bytes; at most {limit} are allowed"
            ))),
        }
    }

    /// One frame if it is at most `limit` bytes long; a longer one is not written.
    fn frame_within(&mut self, frame: &impl Serialize, limit: usize) -> Result<Fit, CaptureError> {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(&[0; 4]);
        let bytes = std::mem::take(&mut self.bytes);
        self.bytes =
            postcard::serialize_with_flavor(frame, Append(bytes)).map_err(|e| self.error(e))?;
        let len = self.bytes.len() - start - 4;
        if len > limit {
            self.bytes.truncate(start);
            return Ok(Fit::TooLong(len));
        }
        self.bytes[start..start + 4].copy_from_slice(&(len as u32).to_le_bytes());
        Ok(Fit::Written)
    }

    fn error(&self, why: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> CaptureError {
        CaptureError::Io {
            path: self.path.clone(),
            source: std::io::Error::other(why),
        }
    }
}

/// Whether a frame was written.
enum Fit {
    Written,
    /// Not written: it would have been this many bytes long.
    TooLong(usize),
}

/// Postcard's output into the end of a buffer, whole slices at a time (its `Extend`
/// flavour copies byte by byte, which cost more than the encoding itself).
struct Append(Vec<u8>);

impl postcard::ser_flavors::Flavor for Append {
    type Output = Vec<u8>;

    #[inline]
    fn try_extend(&mut self, data: &[u8]) -> postcard::Result<()> {
        // Most pieces are a varint of one to five bytes: pushed one by one they cost
        // less than a call to `memcpy` each.
        if data.len() <= 8 {
            self.0.extend(data.iter().copied());
        } else {
            self.0.extend_from_slice(data);
        }
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
