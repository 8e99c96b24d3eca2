//! A capture as JSON lines: one JSON object per [`Line`], each with a `line` field
//! saying what it is. Captures are written compactly; this form is for reading them with
//! other tools (`hitbench capture-text`), and reads back like the compact one.

use super::{Assembler, Capture, CaptureError, Header, Line, MAX_FRAME_BYTES, MAX_HEADER_BYTES};
use std::io::{BufRead, Read, Write};
use std::path::Path;

/// Reads a capture in JSON lines. Every line is bounded (the header by
/// [`MAX_HEADER_BYTES`], the others by [`MAX_FRAME_BYTES`]) before it is held whole.
pub(super) fn read(path: &Path, mut reader: impl BufRead) -> Result<Capture, CaptureError> {
    let bad = |line: usize, why: String| CaptureError::Bad {
        path: path.to_path_buf(),
        line,
        why,
    };
    let mut assembler = Assembler::default();
    let mut text = Vec::new();
    let mut seen_header = false;
    for number in 1.. {
        let limit = if seen_header {
            MAX_FRAME_BYTES
        } else {
            MAX_HEADER_BYTES
        };
        text.clear();
        let read = reader
            .by_ref()
            .take(limit as u64 + 1)
            .read_until(b'\n', &mut text)
            .map_err(|source| CaptureError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        if read == 0 {
            break;
        }
        if text.last() == Some(&b'\n') {
            text.pop();
        }
        if text.len() > limit {
            return Err(bad(number, format!("a line of more than {limit} bytes")));
        }
        if text.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let line: Line = serde_json::from_slice(&text)
            .map_err(|e| bad(number, format!("not a capture line: {e}")))?;
        seen_header = true;
        assembler.push(line).map_err(|e| bad(number, e))?;
    }
    assembler
        .finish()
        .ok_or_else(|| bad(1, "an empty file, not a capture".into()))
}

/// Writes `capture` as JSON lines: the header, the inputs and records in time order (an
/// input before the records of the same time), the keyframes, and the end if it has
/// one.
pub fn write_text(capture: &Capture, out: &mut dyn Write) -> std::io::Result<()> {
    let mut line = |line: &Line| -> std::io::Result<()> {
        serde_json::to_writer(&mut *out, line).map_err(std::io::Error::other)?;
        out.write_all(b"\n")
    };
    line(&Line::Header(Header::clone(&capture.header)))?;
    let rate = f64::from(capture.header.sample_rate.max(1));
    let mut records = capture.records.iter().peekable();
    for (seconds, command) in &capture.inputs {
        while let Some(record) = records.next_if(|r| (r.time.samples() as f64) < seconds * rate) {
            line(&Line::Record(record.clone()))?;
        }
        line(&Line::Input {
            seconds: *seconds,
            command: command.clone(),
        })?;
    }
    for record in records {
        line(&Line::Record(record.clone()))?;
    }
    for keyframe in &capture.keyframes {
        line(&Line::Keyframe(Box::new(keyframe.clone())))?;
    }
    if let Some(at) = capture.end {
        line(&Line::End { at })?;
    }
    Ok(())
}
