//! Writing a capture as a session runs. The session hands what it has to a thread of
//! the capture's own ("hitbench-capture") — commands, records (gathered into hand-overs
//! of [`GATHER`]), keyframes — and goes on; that thread encodes them (names by
//! their index in the capture's name table, [`names`](crate::runtime::trace::names))
//! and writes the file, so the session neither encodes nor waits for the disk.
//!
//! The session does nothing per record but gather it: records are moved (one copy, in
//! bulk) out of the engine's batch into a hand-over buffer of the writer's own, and the
//! emptied batch is freed on the session's thread. The engine's next records so go into
//! memory only its own core has held. Were the engine's batches handed over instead,
//! the session would write its next records into memory the capture's thread had just
//! read, and on a machine whose cores are far apart every such record waits for the
//! other core to give up those cache lines (measured on a 2-core virtual machine, in the
//! minutes when its cores were far apart: dispatch took 55–83 % longer while capturing,
//! and 11–19 % longer with the copy; when they are close, both cost about the same).
//!
//! The capture's thread never touches a reference count the engine uses: the engine
//! clones its names and its voice table into every record, and a count written from two
//! cores makes every clone on the session's thread wait for the other core. So the
//! capture's thread compares each verdict's voice table with the seats it wrote last by
//! value ([`TableWriter`](super::tables::TableWriter)), reads names by their address,
//! finds the earlier record a record repeats by comparing the two where they are
//! (`repeats`), and gives each hand-over back to the session once it has written the
//! next (whose records may repeat its own); the session's thread keeps the buffer,
//! records and all, for records to come, the oldest first. It drops a buffer's records
//! just before it fills the buffer again, not when it gets the buffer back: a few
//! milliseconds of records (the capture's thread works in bursts) are more than the
//! core's cache holds, so the buffer comes back from memory either way, and dropping
//! the old records then brings in the very lines the new ones are written to — one trip
//! to memory instead of two (measured: the capture's cost on the session's thread a
//! median of 3.6 % against 6.0 % side by side; taking the buffer given back last
//! instead of the oldest, 5.3 % against 3.4 %). At most [`QUEUE`] hand-overs wait: a
//! capture that cannot keep up slows the session down rather than filling memory.
//!
//! The capture's thread looks for work every [`POLL`] rather than waiting to be woken:
//! waking it at each hand-over cost the session's thread a system call each time
//! (measured: 22–28 % of dispatch against 2–5 %), and looking every 0.2 ms read the
//! records while they were still in the session's core's own cache (5–9 %); every 1 ms
//! or 0.5 ms was no better (3.3–6.7 % and 5.3–7.9 % against 3.3–7.6 % in the same
//! minutes). Looking less often with a longer queue (4 or 8 ms, 128 or 256 hand-overs)
//! made no difference that showed.
//!
//! On the 2-core virtual machine this is measured on, some minutes make the cores far
//! apart: then a thread that merely reads every record on the other core (no encoding,
//! nothing written) costs the session 5–8 % and takes three times as long, and the
//! capture's thread itself takes 1.8 times as long and costs the session 13–18 %; a
//! thread that only computes, as busy as the capture's, costs nothing then. What the
//! capture costs in those minutes is the records crossing between cores. `bench vm`
//! measures how far apart the cores are beside each pair of runs (a cache line's round
//! trip between two threads): 43–130 ns in some minutes, 350–550 ns in others, when the
//! capture costs 15–24 % (and 1–4 % near, though some near minutes cost 8–14 % too).
//! Reusing a buffer only once 700 others were filled after it (36 MB, more than the
//! other core's last-level cache holds, so its copies are gone and the session's writes
//! need not reach across to invalidate them) cost 13–16 % far apart, but 5–9 % near:
//! not worth it. Nor was gathering records with non-temporal stores (past the caches,
//! so no line need be taken back): 4–8 % near against 1–3 %, and no less far apart.
//!
//! Nor, so far, handing over fewer bytes. On a machine whose cores were 120–240 ns
//! apart throughout (dispatch 0.28–0.47 µs an event), where this writer cost 6–13 %: a
//! throwaway that packed each record into 64 bytes of plain numbers (no names, nothing
//! the capture could write) for a thread that only read them cost 0.6–7 %. Made real —
//! names as indices in a table of the session's own, found by address in a
//! direct-mapped cache; a verdict's voice table as one of 64 slots sent once; lists
//! copied; other kinds in full as postcard; the capture's thread unpacking into records
//! of its own `Arc`s so it counted no reference the engine counts — it cost 5.5–11 %
//! against this writer's 9.4–13 % in the same minutes, 2.4–7.6 % with the capture's
//! thread reading nothing: packing takes about 170 instructions a record on the
//! session's thread (callgrind), where a copy of the record is one `memcpy`, and the
//! capture's thread, rebuilding every record, worked 53–65 % as long as the session
//! instead of 22 %. A point or two, for a second form of every common record kept in
//! step with the first: not kept.
//!
//! Nor finding repeats on the session's thread (the last record of each key kept
//! there, a repeat handed over as 32 bytes and dropped at once, only the others whole):
//! the capture's thread then worked 11–13 % as long as the session, but the session
//! paid 24–30 % of dispatch against this writer's 7–11 % — about 390 instructions a
//! record (callgrind: the key, the comparison, moving each record into the table of
//! last ones, a copy of each that repeats none), where this writer's copy is a share of
//! one `memcpy`. On that machine each instruction a record costs the session's thread
//! about a tenth of a percent of dispatch.

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
