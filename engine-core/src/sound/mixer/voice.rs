//! One mixer voice: what it plays, its [`Playhead`], and what is scheduled for it (its
//! start, gain and pan changes, its stop). A voice renders itself, one segment at a time
//! between the frames where something is scheduled for it; the mixer's block loop
//! ([`super::render`]) only asks it where the next segment ends and where it goes.
//!
//! Nothing here allocates, locks or does IO: it runs on the audio thread.

use super::command::VoiceSource;
use crate::runtime::sink::NoteId;

pub use super::playhead::{ONE, Playhead, Ramp, Run, frac};

/// A parameter change waiting for its time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pending {
    /// When it starts.
    pub at: u64,
    /// Target value.
    pub value: f32,
    /// Ramp frames.
    pub ramp: u32,
}

/// Left and right gains for a pan: constant power for mono sources, balance for stereo.
pub fn pan_gains(pan: f32, stereo: bool) -> (f32, f32) {
    let pan = pan.clamp(-1.0, 1.0);
    if stereo {
        ((1.0 - pan).min(1.0), (1.0 + pan).min(1.0))
    } else {
        let angle = (pan + 1.0) * std::f32::consts::FRAC_PI_4;
        (angle.cos(), angle.sin())
    }
}

/// A voice.
#[derive(Debug)]
pub struct Voice {
    /// The note it plays.
    pub note: NoteId,
    /// What it plays (`None` for a free slot).
    pub source: Option<VoiceSource>,
    /// Frame at which it starts.
    pub start_at: u64,
    /// Has it started (telemetry sent)?
    pub started: bool,
    /// Where it reads, how fast, how loud and where it sits.
    pub playhead: Playhead,
    /// Bus index (a group's, or the room bus).
    pub group: usize,
    /// A scheduled gain change.
    pub pending_gain: Option<Pending>,
    /// A scheduled pan change.
    pub pending_pan: Option<Pending>,
    /// When the stop fade starts.
    pub stop_at: Option<u64>,
    /// Fading out: the voice ends when the gain ramp reaches 0.
    pub stopping: bool,
    /// Its output level in the segment rendered last (see [`Voice::render`]).
    pub level: f32,
}

impl Voice {
    /// A free slot.
    pub fn empty() -> Self {
        Self {
            note: 0,
            source: None,
            start_at: 0,
            started: false,
            playhead: Playhead::default(),
            group: 0,
            pending_gain: None,
            pending_pan: None,
            stop_at: None,
            stopping: false,
            level: 0.0,
        }
    }

    /// A voice that plays `source` for `note` from frame `at`, on bus `group`.
    pub fn start(
        note: NoteId,
        at: u64,
        source: VoiceSource,
        playhead: Playhead,
        group: usize,
    ) -> Self {
        Self {
            note,
            source: Some(source),
            start_at: at,
            playhead,
            group,
            ..Self::empty()
        }
    }

    /// True if the slot plays something.
    pub fn active(&self) -> bool {
        self.source.is_some()
    }

    /// True if what it plays has two channels.
    fn stereo(&self) -> bool {
        match &self.source {
            Some(VoiceSource::Sample(s)) => s.samples().is_some_and(|b| b.channels == 2),
            Some(VoiceSource::Stream(s)) => s.channels == 2,
            None => false,
        }
    }

    /// Starts the voice if its frame comes before `block_end`: at its frame, or at `t` if
    /// that has passed (a late start begins at once). Returns the frame it starts at and
    /// how many frames late that is; `None` if it starts in a later block.
    pub fn begin(&mut self, t: u64, block_end: u64) -> Option<(u64, u64)> {
        if self.start_at >= block_end {
            return None;
        }
        let begin = self.start_at.max(t);
        self.started = true;
        Some((begin, begin.saturating_sub(self.start_at)))
    }

    /// Applies what is due at frame `t`: a gain change, a pan change, the start of the
    /// stop fade (`stop_fade` frames long).
    pub fn apply_due(&mut self, t: u64, stop_fade: u32) {
        if let Some(p) = self.pending_gain.filter(|p| p.at <= t) {
            self.playhead.gain.to(p.value, p.ramp);
            self.pending_gain = None;
        }
        if let Some(p) = self.pending_pan.filter(|p| p.at <= t) {
            let (l, r) = pan_gains(p.value, self.stereo());
            self.playhead.left.to(l, p.ramp);
            self.playhead.right.to(r, p.ramp);
            self.pending_pan = None;
        }
        if self.stop_at.is_some_and(|s| s <= t) && !self.stopping {
            self.stopping = true;
            self.pending_gain = None;
            self.playhead.gain.to(0.0, stop_fade);
        }
    }

    /// True once a stopped voice has faded to silence: it is over.
    pub fn faded_out(&self) -> bool {
        self.stopping && self.playhead.gain.left == 0
    }

    /// Where the segment that starts at `t` ends: the next frame something is scheduled
    /// for the voice, the end of its stop fade, or `block_end`.
    pub fn segment_end(&self, t: u64, block_end: u64) -> u64 {
        let mut until = block_end;
        for at in [
            self.pending_gain.map(|p| p.at),
            self.pending_pan.map(|p| p.at),
            self.stop_at.filter(|_| !self.stopping),
        ]
        .into_iter()
        .flatten()
        {
            if at > t && at < until {
                until = at;
            }
        }
        if self.stopping {
            until = until.min(t + u64::from(self.playhead.gain.left));
        }
        until
    }

    /// Renders `frames` frames into `out` (stereo interleaved). Returns `Some(n)` when
    /// what it plays ended after `n` of them (0 for a sample that is not audio).
    pub fn render(&mut self, out: &mut [f32], frames: usize) -> Option<usize> {
        let playhead = &mut self.playhead;
        match &mut self.source {
            Some(VoiceSource::Sample(resource)) => {
                let Some(sample) = resource.samples() else {
                    return Some(0);
                };
                let channels = usize::from(sample.channels.max(1));
                self.level = level_estimate(playhead, &sample.data, channels, frames);
                match playhead.render_sample(&sample.data, channels, out, frames) {
                    Run::Done => None,
                    Run::Ended(n) => Some(n),
                }
            }
            Some(VoiceSource::Stream(stream)) => {
                // A stream's samples are in its ring: its gain and pan stand for its level.
                self.level = playhead.gain.value * playhead.left.value.max(playhead.right.value);
                playhead.render_stream(stream, out, frames)
            }
            None => Some(0),
        }
    }
}

/// Reads kept for a segment's level estimate.
const LEVEL_READS: u64 = 8;

/// How loud a voice plays the next `frames` frames, without rendering them: the RMS of a
/// few source frames spread over the stretch it will read, times its gain and its louder
/// side's pan gain. A handful of reads per segment, so the meters cost nothing per frame.
fn level_estimate(playhead: &Playhead, data: &[f32], channels: usize, frames: usize) -> f32 {
    // Mono and stereo are told apart so the common cases divide by no variable.
    let sum_and_count = match channels {
        1 => squares(playhead, data, 1, frames),
        2 => squares(playhead, data, 2, frames),
        n => squares(playhead, data, n.max(1), frames),
    };
    let Some((sum, count)) = sum_and_count else {
        return 0.0;
    };
    let rms = (sum / (count.max(1) as f32 * channels as f32)).sqrt();
    rms * playhead.gain.value * playhead.left.value.max(playhead.right.value)
}

/// The sum of squares of up to [`LEVEL_READS`] frames spread over the stretch `frames`
/// output frames will read, and how many frames that is (`None`: nothing to read).
#[inline(always)]
fn squares(
    playhead: &Playhead,
    data: &[f32],
    channels: usize,
    frames: usize,
) -> Option<(f32, u32)> {
    let len = (data.len() / channels) as u64;
    if len == 0 || frames == 0 {
        return None;
    }
    let first = playhead.pos >> 32;
    let span = ((frames as u64).saturating_mul(playhead.step) >> 32).max(1);
    let stride = (span / LEVEL_READS).max(1);
    let mut sum = 0.0f32;
    let mut count = 0u32;
    let mut at = first;
    while at < first + span && count < LEVEL_READS as u32 {
        // Only a looping voice's reads wrap: no division otherwise.
        let frame = if at < len { at } else { at % len } as usize * channels;
        for c in 0..channels {
            let s = data.get(frame + c).copied().unwrap_or(0.0);
            sum += s * s;
        }
        count += 1;
        at += stride;
    }
    Some((sum, count))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pan_laws() {
        let (l, r) = pan_gains(0.0, false);
        assert!((l - r).abs() < 1e-6 && (l * l + r * r - 1.0).abs() < 1e-5);
        assert_eq!(pan_gains(-1.0, true), (1.0, 0.0));
        assert_eq!(pan_gains(0.0, true), (1.0, 1.0));
        let (l, r) = pan_gains(1.0, false);
        assert!(l.abs() < 1e-6 && (r - 1.0).abs() < 1e-6);
    }
}
