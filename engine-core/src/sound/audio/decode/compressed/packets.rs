//! Decoding packet by packet: each step reads and decodes one packet inside
//! `catch_unwind`, skips damaged packets (up to a limit in a row), notices gaps in the
//! timestamps, and keeps the account of the damage that [`Compressed::partial`] reports.

use std::panic::{AssertUnwindSafe, catch_unwind};

use symphonia::core::errors::Error as SymphoniaError;

use super::super::DecodeError;
use super::super::mix::Mix;
use super::readers::{describe, panic_message};
use super::{Compressed, State, positions};

/// Undecodable packets in a row after which a stream is given up.
const MAX_BAD_PACKETS_IN_A_ROW: u32 = 64;
/// Packets in a row that yield no audio after which a stream is given up (a real stream has
/// a few header packets; this stops a reader that never ends from spinning).
const MAX_IDLE_STEPS: u32 = 10_000;

/// How one step of decoding went.
enum Step {
    /// A packet was decoded (its audio, possibly none, is pending).
    Audio,
    /// A packet was passed over (another track, or damaged).
    Skipped,
    /// The stream ended normally.
    End,
    /// The stream cannot go on; why.
    Fail(String),
    /// Symphonia panicked; the message.
    Crash(String),
}

impl Compressed<'_> {
    /// Reads and decodes one packet.
    fn step(&mut self) -> Step {
        let packet = match self.reader.next_packet() {
            Ok(Some(p)) => p,
            Ok(None) => return Step::End,
            Err(e) => return Step::Fail(describe(&e)),
        };
        if packet.track_id != self.track_id {
            return Step::Skipped;
        }
        if self.track_ts_in_frames {
            let start = packet.pts.get();
            if let Some(expected) = self.expected_ts.filter(|&e| start > e) {
                self.gaps = self.gaps.saturating_add(1);
                let missing = u64::try_from(start.saturating_sub(expected)).unwrap_or(0);
                self.gap_frames = self.gap_frames.saturating_add(missing);
                if self.gaps == 1 {
                    self.first_gap_at = expected;
                }
            }
            let span = packet
                .trim_start
                .get()
                .saturating_add(packet.dur.get())
                .saturating_add(packet.trim_end.get());
            self.expected_ts = Some(start.saturating_add(i64::try_from(span).unwrap_or(i64::MAX)));
        }
        match self.decoder.decode(&packet) {
            Ok(buf) => {
                let spec = buf.spec();
                if spec.rate() != self.info.sample_rate {
                    return Step::Fail(format!(
                        "the sample rate changes partway, from {} to {} Hz",
                        self.info.sample_rate,
                        spec.rate()
                    ));
                }
                let key = (spec.channels().count(), positions(spec.channels()));
                buf.copy_to_vec_interleaved(&mut self.scratch);
                if key != self.mix_key {
                    self.mix = Mix::new(key.0, usize::from(self.info.channels), key.1);
                    self.mix_key = key;
                }
                self.pending.clear();
                self.pending_pos = 0;
                if key.0 > 0 {
                    self.mix.apply(&self.scratch, &mut self.pending);
                }
                self.bad_in_a_row = 0;
                Step::Audio
            }
            // A damaged packet: skip it, the next one may be fine.
            Err(e @ (SymphoniaError::DecodeError(_) | SymphoniaError::IoError(_))) => {
                self.bad_packets = self.bad_packets.saturating_add(1);
                self.bad_in_a_row = self.bad_in_a_row.saturating_add(1);
                let text = describe(&e);
                if self.bad_in_a_row >= MAX_BAD_PACKETS_IN_A_ROW {
                    return Step::Fail(format!(
                        "{} packets in a row could not be decoded (the last: {text})",
                        self.bad_in_a_row
                    ));
                }
                self.first_bad.get_or_insert(text);
                Step::Skipped
            }
            Err(e) => Step::Fail(describe(&e)),
        }
    }

    /// Makes sure output is pending; false once the stream is over.
    pub(super) fn fill(&mut self) -> bool {
        while self.pending_pos >= self.pending.len() {
            if self.state != State::Running {
                return false;
            }
            let step = catch_unwind(AssertUnwindSafe(|| self.step()))
                .unwrap_or_else(|payload| Step::Crash(panic_message(payload.as_ref())));
            match step {
                Step::Audio if self.pending.is_empty() => self.idle(),
                Step::Audio => self.idle_steps = 0,
                Step::Skipped => self.idle(),
                Step::End => self.end(),
                Step::Fail(m) => self.state = State::Failed(m),
                Step::Crash(m) => self.state = State::Crashed(m),
            }
            self.update_partial();
        }
        true
    }

    /// The stream ended normally; a FLAC stream that ends short of what its header promised
    /// was cut off at a frame boundary.
    fn end(&mut self) {
        self.state = match self.promised_frames {
            Some(promised) if self.frames_out + self.pending_frames() < promised => {
                State::Failed(format!(
                    "the stream header says {promised} frames but the stream ends after {} (cut \
                     short?)",
                    self.frames_out + self.pending_frames()
                ))
            }
            _ => State::Ended,
        };
    }

    fn pending_frames(&self) -> u64 {
        let rest = self.pending.len().saturating_sub(self.pending_pos);
        (rest / usize::from(self.info.channels).max(1)) as u64
    }

    fn idle(&mut self) {
        self.idle_steps += 1;
        if self.idle_steps >= MAX_IDLE_STEPS {
            self.state = State::Failed(format!("no audio in {MAX_IDLE_STEPS} packets in a row"));
        }
    }

    fn update_partial(&mut self) {
        let skipped = self.first_bad.as_ref().map(|first| {
            format!(
                "{} damaged packet(s) were skipped (the first: {first})",
                self.bad_packets
            )
        });
        let gaps = (self.gaps > 0).then(|| {
            format!(
                "{} frames are missing in {} place(s), the first at {:.2} s (damaged data was \
                 dropped)",
                self.gap_frames,
                self.gaps,
                self.first_gap_at as f64 / f64::from(self.info.sample_rate.max(1))
            )
        });
        let skipped = match (skipped, gaps) {
            (Some(a), Some(b)) => Some(format!("{a}; {b}")),
            (a, b) => a.or(b),
        };
        let stopped = match &self.state {
            State::Running | State::Ended => None,
            State::Failed(m) => Some(format!("decoding stopped early: {m}")),
            State::Crashed(m) => Some(format!("the decoder crashed partway ({m})")),
        };
        self.partial = match (stopped, skipped) {
            (Some(a), Some(b)) => Some(format!("{a}; also {b}")),
            (a, b) => a.or(b),
        };
    }

    /// The error for a stream that ended without a single frame.
    pub(super) fn nothing_decoded(&self) -> Option<DecodeError> {
        let format = self.kind.name();
        match &self.state {
            State::Failed(m) => Some(DecodeError::NoAudio {
                format,
                detail: m.clone(),
            }),
            State::Crashed(m) => Some(DecodeError::DecoderCrashed {
                format,
                message: m.clone(),
            }),
            State::Running | State::Ended => None,
        }
    }
}
