//! The streamer: long files (music, radio, any sound too large to hold in memory) are
//! decoded into a ring per stream, which the mixer's voice reads
//! (`crate::sound::mixer::stream::StreamReader`). The audio thread never touches a file.
//!
//! Live, a streaming thread keeps the rings filled ([`Streamer::start`]). Offline rendering
//! has no time to wait for a thread and must give the same output every time, so there the
//! rings are filled on the caller's thread, at fixed points: [`Streamer::inline`] and
//! [`Streamer::pump`], called once per tick before the mixer renders it.

use crate::sound::audio::decode::DecodeError;
use crate::sound::mixer::stream::{Shared, StreamReader};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

/// Something that produces interleaved frames on demand (a file decoder).
pub trait FrameSource: Send {
    /// Frames per second.
    fn sample_rate(&self) -> u32;
    /// 1 or 2.
    fn channels(&self) -> u16;
    /// Appends up to `max_frames` frames to `out`; returns how many (0 at the end).
    fn read(&mut self, out: &mut Vec<f32>, max_frames: usize) -> Result<usize, DecodeError>;
    /// Goes back to the start (for looping).
    fn rewind(&mut self) -> Result<(), DecodeError>;
}

/// Why a stream could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// The source could not be read or decoded.
    #[error(transparent)]
    Source(#[from] DecodeError),
    /// The streaming thread has stopped, so nothing would fill the ring.
    #[error("the streaming thread has stopped")]
    Stopped,
}

/// One stream the streaming thread fills.
struct Job {
    source: Box<dyn FrameSource>,
    ring: rtrb::Producer<f32>,
    shared: Arc<Shared>,
    looping: bool,
    scratch: Vec<f32>,
    error: Option<DecodeError>,
}

impl Drop for Job {
    fn drop(&mut self) {
        // Nobody fills the ring any more (its streamer is gone): the voice ends where the
        // ring ends instead of waiting for more forever.
        self.shared.finished.store(true, Ordering::Release);
    }
}

impl Job {
    /// Decodes as much as the ring has room for. Returns false when the job is over.
    fn fill(&mut self) -> bool {
        if self.shared.abandoned.load(Ordering::Acquire) {
            return false;
        }
        if self.shared.finished.load(Ordering::Acquire) {
            return !self.ring.is_abandoned();
        }
        let channels = usize::from(self.source.channels().max(1));
        loop {
            let room = self.ring.slots() / channels;
            if room < 256 {
                return true;
            }
            self.scratch.clear();
            match self.source.read(&mut self.scratch, room.min(4096)) {
                Ok(0) => {
                    if self.looping && self.source.rewind().is_ok() {
                        continue;
                    }
                    self.shared.finished.store(true, Ordering::Release);
                    return true;
                }
                Ok(frames) => {
                    for sample in self.scratch.iter().take(frames * channels) {
                        if self.ring.push(*sample).is_err() {
                            break;
                        }
                    }
                    self.shared
                        .decoded
                        .fetch_add(frames as u64, Ordering::Relaxed);
                }
                Err(e) => {
                    self.error = Some(e);
                    self.shared.finished.store(true, Ordering::Release);
                    return true;
                }
            }
        }
    }
}

/// Who fills the rings.
enum Filler {
    /// The streaming thread.
    Thread {
        jobs: Option<mpsc::Sender<Job>>,
        thread: Option<JoinHandle<()>>,
    },
    /// The owner, through [`Streamer::pump`].
    Inline { jobs: Vec<Job> },
}

/// Keeps every open stream's ring filled: a streaming thread, or the owner's thread.
pub struct Streamer {
    filler: Filler,
    /// Seconds of audio each ring holds.
    pub buffer_seconds: f32,
}

impl Streamer {
    /// Starts the streaming thread.
    pub fn start() -> std::io::Result<Self> {
        let (send, receive) = mpsc::channel::<Job>();
        let thread = std::thread::Builder::new()
            .name("hitbench-stream".into())
            .spawn(move || run(receive))?;
        Ok(Self {
            filler: Filler::Thread {
                jobs: Some(send),
                thread: Some(thread),
            },
            buffer_seconds: 2.0,
        })
    }

    /// A streamer without a thread: the rings are filled by [`pump`](Self::pump), so
    /// what the mixer reads depends only on when `pump` is called (deterministic offline
    /// rendering).
    pub fn inline() -> Self {
        Self {
            filler: Filler::Inline { jobs: Vec::new() },
            buffer_seconds: 2.0,
        }
    }

    /// Fills every stream's ring as far as it has room, and forgets the streams whose
    /// readers are gone. Only inline streamers need it; a threaded one does it by itself.
    pub fn pump(&mut self) {
        if let Filler::Inline { jobs } = &mut self.filler {
            jobs.retain_mut(Job::fill);
        }
    }

    /// Streams still open (inline streamers; a threaded one reports 0).
    pub fn open_streams(&self) -> usize {
        match &self.filler {
            Filler::Inline { jobs } => jobs.len(),
            Filler::Thread { .. } => 0,
        }
    }

    /// Opens a stream from a source: the returned reader goes to the mixer in a start
    /// command. The ring is filled before this returns, so playback starts at once.
    pub fn open(
        &mut self,
        mut source: Box<dyn FrameSource>,
        looping: bool,
    ) -> Result<StreamReader, StreamError> {
        let channels = source.channels().clamp(1, 2);
        let rate = source.sample_rate().max(1);
        let capacity =
            ((rate as f32 * self.buffer_seconds) as usize).max(4096) * usize::from(channels);
        let (producer, consumer) = rtrb::RingBuffer::new(capacity);
        let shared = Arc::new(Shared::default());
        let mut job = Job {
            source: {
                // Prefill on the caller's thread so the first block has audio.
                let _ = source.rewind();
                source
            },
            ring: producer,
            shared: Arc::clone(&shared),
            looping,
            scratch: Vec::with_capacity(4096 * 2),
            error: None,
        };
        job.fill();
        if let Some(error) = job.error.take() {
            return Err(StreamError::Source(error));
        }
        let reader = StreamReader::new(consumer, shared, rate, channels);
        match &mut self.filler {
            Filler::Thread {
                jobs: Some(jobs), ..
            } => jobs.send(job).map_err(|_| StreamError::Stopped)?,
            Filler::Thread { jobs: None, .. } => return Err(StreamError::Stopped),
            Filler::Inline { jobs } => jobs.push(job),
        }
        Ok(reader)
    }
}

impl Drop for Streamer {
    fn drop(&mut self) {
        if let Filler::Thread { jobs, thread } = &mut self.filler {
            *jobs = None;
            if let Some(thread) = thread.take() {
                let _ = thread.join();
            }
        }
    }
}

fn run(receive: mpsc::Receiver<Job>) {
    let mut jobs: Vec<Job> = Vec::new();
    loop {
        // Wait for work when idle; otherwise poll new jobs and refill every 5 ms.
        let timeout = if jobs.is_empty() {
            Duration::from_millis(200)
        } else {
            Duration::from_millis(5)
        };
        match receive.recv_timeout(timeout) {
            Ok(job) => jobs.push(job),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            // The streamer is gone (its server was dropped): the streams end where their
            // rings end, and dropping the streamer does not wait for a looping one.
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
        }
        while let Ok(job) = receive.try_recv() {
            jobs.push(job);
        }
        jobs.retain_mut(Job::fill);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A source counting 0, 1, 2, … up to `len` frames, mono.
    struct Counter {
        next: usize,
        len: usize,
    }

    impl FrameSource for Counter {
        fn sample_rate(&self) -> u32 {
            1000
        }
        fn channels(&self) -> u16 {
            1
        }
        fn read(&mut self, out: &mut Vec<f32>, max_frames: usize) -> Result<usize, DecodeError> {
            let n = max_frames.min(self.len - self.next);
            out.extend((self.next..self.next + n).map(|v| v as f32));
            self.next += n;
            Ok(n)
        }
        fn rewind(&mut self) -> Result<(), DecodeError> {
            self.next = 0;
            Ok(())
        }
    }

    #[test]
    fn streams_every_frame_in_order_then_drains() {
        let mut streamer = Streamer::start().expect("thread");
        let mut reader = streamer
            .open(
                Box::new(Counter {
                    next: 0,
                    len: 10_000,
                }),
                false,
            )
            .expect("opens");
        let mut frame = [0.0; 2];
        let mut expected = 0;
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while !reader.drained() && std::time::Instant::now() < deadline {
            while reader.next_frame(&mut frame) {
                assert_eq!(frame, [expected as f32, expected as f32]);
                expected += 1;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(expected, 10_000);
    }

    #[test]
    fn looping_streams_go_round() {
        let mut streamer = Streamer::start().expect("thread");
        let mut reader = streamer
            .open(Box::new(Counter { next: 0, len: 100 }), true)
            .expect("opens");
        let mut frame = [0.0; 2];
        let mut seen = Vec::new();
        while seen.len() < 250 {
            if reader.next_frame(&mut frame) {
                seen.push(frame[0] as usize);
            } else {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        assert!(seen.iter().enumerate().all(|(i, v)| *v == i % 100));
    }

    #[test]
    fn an_inline_streamer_fills_only_when_pumped() {
        let mut streamer = Streamer::inline();
        let mut reader = streamer
            .open(
                Box::new(Counter {
                    next: 0,
                    len: 10_000,
                }),
                false,
            )
            .expect("opens");
        let mut frame = [0.0; 2];
        let mut expected = 0;
        // The ring (4096 frames at this rate) was filled on opening, and only then.
        while reader.next_frame(&mut frame) {
            expected += 1;
        }
        assert_eq!(expected, 4096);
        for _ in 0..2 {
            streamer.pump();
            while reader.next_frame(&mut frame) {
                assert_eq!(frame[0], expected as f32);
                expected += 1;
            }
        }
        assert_eq!(expected, 10_000);
        streamer.pump();
        assert!(reader.drained());
        assert_eq!(streamer.open_streams(), 1);
        drop(reader);
        streamer.pump();
        assert_eq!(
            streamer.open_streams(),
            0,
            "a stream nobody reads is forgotten"
        );
    }

    #[test]
    fn dropping_the_streamer_ends_its_streams_without_waiting_for_them() {
        for threaded in [true, false] {
            let mut streamer = if threaded {
                Streamer::start().expect("thread")
            } else {
                Streamer::inline()
            };
            let mut reader = streamer
                .open(Box::new(Counter { next: 0, len: 100 }), true)
                .expect("opens");
            // A looping stream never ends by itself; the join must not wait for it.
            drop(streamer);
            let mut frame = [0.0; 2];
            while reader.next_frame(&mut frame) {}
            assert!(reader.drained(), "threaded {threaded}");
        }
    }
}
