//! What a tester did by hand, as a QA script: the console lines that ran (each at the
//! engine's time) become the script's commands, timed from the first; the decisions they
//! caused, in the typed record, are offered as expectations to tick — `started` or
//! `refused` for each trigger, and at the end `no fault` and how many steals and
//! refusals there were. The workbench's "Save console history as QA script…" shows the
//! offers and writes [`Recording::script`].

use super::check::count;
use super::{Counted, parse_qa};
use crate::host::command::{self, Command};
use crate::runtime::{SampleTime, TraceRecord};
use crate::tools::why::{Verdict, decisions};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

/// A console line run on the engine by hand.
#[derive(Debug, Clone, PartialEq)]
pub struct HandLine {
    /// The line.
    pub line: String,
    /// The engine's sample time when it ran.
    pub at: SampleTime,
    /// True when the engine ran it (false: it answered with a problem).
    pub ok: bool,
}

/// An expectation offered for the script.
#[derive(Debug, Clone, PartialEq)]
pub struct Offer {
    /// Seconds from the script's start.
    pub seconds: f64,
    /// The assertion, as after `expect`.
    pub assertion: String,
    /// What was seen that makes it hold, in words.
    pub seen: String,
    /// Ticked: it goes into the script.
    pub ticked: bool,
    /// The command whose decision it checks (an index into [`Recording::commands`]), if
    /// one: left out with it.
    pub line: Option<usize>,
}

/// The lines of a console history that make a script, and the expectations offered.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Recording {
    /// The commands: seconds from the first, and the line.
    pub commands: Vec<(f64, String)>,
    /// Commands the tester leaves out of the script (indices into `commands`): neither
    /// they nor the expectations about them are written.
    pub dropped: BTreeSet<usize>,
    /// Lines left out, and why.
    pub skipped: Vec<(String, String)>,
    /// The expectations offered, in time order.
    pub offers: Vec<Offer>,
}

/// How long after a trigger its `started`/`refused` is checked, seconds.
const SETTLE: f64 = 0.05;

/// Makes a [`Recording`] of `history` (oldest first) with `records`, the trace since
/// (or before) its first line, at `rate` samples per second. Lines that the engine
/// refused, that are not commands, or that only open the Why panel are left out.
pub fn record(history: &[HandLine], records: &[TraceRecord], rate: u32) -> Recording {
    let rate_f = f64::from(rate.max(1));
    let mut recording = Recording::default();
    let mut ran: Vec<(SampleTime, Command)> = Vec::new();
    for hand in history {
        let skip = |why: &str| (hand.line.clone(), why.to_string());
        match command::parse(&hand.line) {
            _ if !hand.ok => recording.skipped.push(skip("the engine refused it")),
            Ok(Some(Command::Why(_))) => recording.skipped.push(skip("it only opens Why")),
            Ok(Some(command)) => ran.push((hand.at, command)),
            Ok(None) => {}
            Err(_) => recording.skipped.push(skip("not a command")),
        }
    }
    let Some(&(first, _)) = ran.first() else {
        return recording;
    };
    let seconds = |at: SampleTime| {
        let s = at.samples().saturating_sub(first.samples()) as f64 / rate_f;
        (s * 1000.0).round() / 1000.0
    };
    recording.commands = ran
        .iter()
        .map(|(at, command)| (seconds(*at), command.to_string()))
        .collect();
    let last = ran.last().map_or(first, |(at, _)| *at);
    let window: Vec<TraceRecord> = records
        .iter()
        .filter(|r| r.time >= first)
        .cloned()
        .collect();
    // Each trigger a line caused: at the line's own time, of an event the line names.
    let triggers: Vec<_> = decisions(&window)
        .into_iter()
        .filter_map(|d| {
            let line = ran.iter().position(|(at, command)| {
                *at == d.time
                    && command
                        .to_string()
                        .to_ascii_lowercase()
                        .contains(&d.event.to_ascii_lowercase())
            })?;
            Some((line, d))
        })
        .collect();
    for (i, (line, d)) in triggers.iter().enumerate() {
        let at = seconds(d.time);
        let check_at = ((at + SETTLE) * 1000.0).round() / 1000.0;
        // "The last trigger" must still be this one when it is checked.
        let again = triggers[i + 1..]
            .iter()
            .any(|(_, later)| later.event == d.event && seconds(later.time) <= check_at);
        if again {
            continue;
        }
        let object = d.object.map_or(String::new(), |o| format!(" @{o}"));
        let assertion = match d.verdict {
            Verdict::Started { .. }
            | Verdict::Stole { .. }
            | Verdict::Joined { .. }
            | Verdict::AlreadyPlaying { .. } => format!("started {}{object}", d.event),
            Verdict::Refused { .. } => format!("refused {}", d.event),
            _ => continue,
        };
        recording.offers.push(Offer {
            seconds: check_at,
            assertion,
            seen: d.verdict.sentence(),
            ticked: true,
            line: Some(*line),
        });
    }
    // At the end: what went wrong (or did not), and how crowded it got.
    let end_time = SampleTime::from_samples(last.samples() + u64::from(rate.max(1)));
    let end_records: Vec<TraceRecord> = window
        .iter()
        .filter(|r| r.time <= end_time)
        .cloned()
        .collect();
    let end = seconds(end_time);
    let faults = count(&end_records, Counted::Faults);
    recording.offers.push(if faults == 0 {
        Offer {
            seconds: end,
            assertion: "no fault".into(),
            seen: "no track faulted".into(),
            ticked: true,
            line: None,
        }
    } else {
        Offer {
            seconds: end,
            assertion: format!("count faults == {faults}"),
            seen: format!("{faults} fault(s)"),
            ticked: false,
            line: None,
        }
    });
    for (what, name) in [(Counted::Steals, "steals"), (Counted::Refusals, "refusals")] {
        let n = count(&end_records, what);
        recording.offers.push(Offer {
            seconds: end,
            assertion: format!("count {name} == {n}"),
            seen: format!("{n} {name} by a second after the last line"),
            ticked: false,
            line: None,
        });
    }
    recording
}

impl Recording {
    /// True if command `index` goes into the script (it was not left out).
    pub fn keeps(&self, index: usize) -> bool {
        !self.dropped.contains(&index)
    }

    /// True if `offer` can go into the script: the command it checks was not left out.
    pub fn offer_applies(&self, offer: &Offer) -> bool {
        offer.line.is_none_or(|line| self.keeps(line))
    }

    /// The script: a comment saying where it came from, then the commands kept and the
    /// ticked expectations about them in time order (an expectation after the commands
    /// of its time).
    pub fn script(&self, origin: &str) -> String {
        let kept = (0..self.commands.len()).filter(|i| self.keeps(*i)).count();
        let mut out = format!(
            "# {origin}\n# Recorded from the console: {kept} line(s); times are seconds from the \
             first,\n# on a fresh engine.\n"
        );
        let mut lines: Vec<(f64, u8, String)> = self
            .commands
            .iter()
            .enumerate()
            .filter(|(i, _)| self.keeps(*i))
            .map(|(_, (s, line))| (*s, 0, line.clone()))
            .chain(
                self.offers
                    .iter()
                    .filter(|o| o.ticked && self.offer_applies(o))
                    .map(|o| (o.seconds, 1, format!("expect {}", o.assertion))),
            )
            .collect();
        lines.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for (seconds, _, line) in lines {
            let _ = writeln!(out, "{seconds:.3} {line}");
        }
        out
    }

    /// Checks that [`script`](Self::script) reads back as a QA script (it always should;
    /// a line that does not is named with its problem).
    pub fn check(&self, file: &Path) -> Result<(), String> {
        let (_, problems) = parse_qa(&self.script(""), file);
        match problems.first() {
            None => Ok(()),
            Some(problem) => Err(problem.to_string()),
        }
    }
}
