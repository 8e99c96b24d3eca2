//! The `bad-sample` rule's work begun while the project still loads. Decoding every
//! sample is most of what `check` does after a load, and it needs only the sample files
//! and what the load saw at each, which the load knows before it resolves its tables
//! (a [`SamplesFound`](crate::toolchain::project::SamplesFound) hook). So `hitbench
//! check` starts a [`SampleJudging`] from that hook: a thread of its own judges the
//! files while the load resolves and the other rules run, then the rule's own thread
//! joins in for what is left ([`SampleJudging::finish`]) and the rule takes each verdict
//! instead of judging the file again. Every sample found is judged, used or not; the
//! rule reports only those a patch uses, as it would have.
//!
//! Here too: how one file is judged ([`verdict`]), whenever it is.

use crate::sound::audio::decode::{DecodeError, DecodeLimits, scan_opened};
use crate::toolchain::fsrules::{Checked, MAX_RESOURCE_BYTES, ReadRules, Refusal, SeenMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;

/// Why a sample file does not decode. The finding that reports it names the patch and
/// the file; this says what is wrong with it.
#[derive(Debug, thiserror::Error)]
pub(super) enum Undecodable {
    /// Part of it decodes, then it is damaged.
    #[error("it is damaged ({0})")]
    Damaged(String),
    /// It decodes to nothing.
    #[error("it holds no audio")]
    Empty,
    /// A pack's entry that cannot be read (encrypted, damaged, too large).
    #[error("{0}")]
    Unreadable(String),
    /// A pack's entry too long to decode whole: a loose file that long is streamed, a
    /// pack's entry cannot be.
    #[error(
        "it is longer than a sample decoded whole may be ({0} frames) and would have to be \
         streamed, and a sample in a pack is never streamed: unpack it into the data folder"
    )]
    PackedTooLong(u64),
    /// It cannot be opened or not a frame decodes.
    #[error(transparent)]
    Decode(#[from] DecodeError),
}

/// Decodes a sample file from end to end (through the engine's own decoder, one chunk at
/// a time, up to the decoder's length ceiling).
fn decode_whole(file: &Path, checked: &Checked) -> Result<(), Undecodable> {
    let opened = checked.open().map_err(|e| {
        Undecodable::from(DecodeError::Io {
            path: file.to_path_buf(),
            source: e,
        })
    })?;
    match scan_opened(
        file,
        opened,
        checked.len,
        DecodeLimits::default().max_frames,
    ) {
        Ok(scanned) => match scanned.partial {
            Some(why) => Err(Undecodable::Damaged(why)),
            None if scanned.frames == 0 => Err(Undecodable::Empty),
            None => Ok(()),
        },
        // Longer than a sample may be held: it streams, and what was read decoded.
        Err(DecodeError::TooLong { .. }) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// What the rule finds of one sample file (not in a pack): refused by the cache's rules,
/// or decoded, whole or not.
#[derive(Debug)]
pub(super) enum Verdict {
    Refused(Refusal),
    Decoded(Result<(), Undecodable>),
}

/// The cache's rules: a sample is only opened if the cache would serve it. They take
/// what the load saw at each sample (`seen`) instead of looking again.
pub(super) fn sample_rules(dirs: &[PathBuf], seen: Arc<SeenMap>) -> ReadRules {
    ReadRules::within(dirs)
        .with_max_bytes(MAX_RESOURCE_BYTES)
        .remembering_folders()
        .knowing(seen)
}

/// Judges one sample file (not in a pack).
pub(super) fn verdict(file: &Path, rules: &ReadRules) -> Verdict {
    match rules.check(file) {
        Err(refusal) => Verdict::Refused(refusal),
        Ok(checked) => Verdict::Decoded(decode_whole(file, &checked)),
    }
}

/// Sample files being judged on a thread of their own ([`start`](Self::start)). Dropped
/// without `finish`, it stops that thread after the file in hand.
#[derive(Debug)]
pub struct SampleJudging {
    work: Arc<Work>,
    helper: Option<JoinHandle<()>>,
}

/// The files, sorted by their paths' bytes, and their verdicts as they come.
#[derive(Debug)]
struct Work {
    files: Vec<Arc<Path>>,
    rules: ReadRules,
    /// The next file nobody took yet.
    next: AtomicUsize,
    stop: AtomicBool,
    /// `None` for a file that decodes whole (most of them: a slot stays small).
    verdicts: Vec<OnceLock<Option<Box<Verdict>>>>,
}

/// The verdict on a file that decodes whole.
static GOOD: Verdict = Verdict::Decoded(Ok(()));

impl Work {
    /// Judges files, the next one nobody took each time, until none is left.
    fn help(&self) {
        while !self.stop.load(Ordering::Relaxed) {
            let index = self.next.fetch_add(1, Ordering::Relaxed);
            let (Some(file), Some(slot)) = (self.files.get(index), self.verdicts.get(index)) else {
                return;
            };
            let judged = match verdict(file, &self.rules) {
                Verdict::Decoded(Ok(())) => None,
                other => Some(Box::new(other)),
            };
            let _ = slot.set(judged);
        }
    }
}

impl SampleJudging {
    /// Starts judging `samples` (as found by a load of `dirs`; `seen` is what the load
    /// saw at them) on a `hitbench-check` thread, under the rules the `bad-sample` rule
    /// uses. Where no thread can be started, the work waits for `finish`.
    pub fn start(dirs: &[PathBuf], samples: &[Arc<Path>], seen: &Arc<SeenMap>) -> Self {
        let mut files = samples.to_vec();
        files.sort_unstable_by(|a, b| a.as_os_str().cmp(b.as_os_str()));
        files.dedup_by(|a, b| a.as_os_str() == b.as_os_str());
        let verdicts = std::iter::repeat_with(OnceLock::new)
            .take(files.len())
            .collect();
        let work = Arc::new(Work {
            files,
            rules: sample_rules(dirs, Arc::clone(seen)),
            next: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            verdicts,
        });
        let helper = {
            let work = Arc::clone(&work);
            std::thread::Builder::new()
                .name("hitbench-check".into())
                .spawn(move || work.help())
                .ok()
        };
        Self { work, helper }
    }

    /// Judges what is left on this thread too, waits for the other and gives every
    /// verdict.
    pub(super) fn finish(mut self) -> Judged {
        self.work.help();
        self.join();
        Judged {
            work: Arc::clone(&self.work),
        }
    }

    fn join(&mut self) {
        if let Some(helper) = self.helper.take()
            && let Err(panic) = helper.join()
        {
            std::panic::resume_unwind(panic);
        }
    }
}

impl Drop for SampleJudging {
    fn drop(&mut self) {
        self.work.stop.store(true, Ordering::Relaxed);
        if let Some(helper) = self.helper.take() {
            let _ = helper.join();
        }
    }
}

/// The verdicts of a [`SampleJudging`], by file.
#[derive(Debug)]
pub(super) struct Judged {
    work: Arc<Work>,
}

impl Judged {
    /// The verdict on `file`, if it was among the files judged.
    pub(super) fn get(&self, file: &Path) -> Option<&Verdict> {
        let work = &*self.work;
        let index = work
            .files
            .binary_search_by(|f| f.as_os_str().cmp(file.as_os_str()))
            .ok()?;
        Some(work.verdicts.get(index)?.get()?.as_deref().unwrap_or(&GOOD))
    }
}
