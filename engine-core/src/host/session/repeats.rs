//! The later runs of a `repeat` given to a running session (the console's, `hitbench
//! play`'s): the first runs at once, each later one at the first tick at or after its
//! time — from the first run's time on, `ms` apart, so they never drift — as a script's
//! expanded `repeat` lines run.

use super::Session;
use crate::host::command::Command;
use crate::runtime::clock::SampleTime;

/// A `repeat` with runs still to come.
#[derive(Debug, Clone)]
pub(super) struct Repeating {
    /// When the first run happened.
    start: SampleTime,
    /// Milliseconds between two runs.
    every_ms: f64,
    /// The next run's number (the first is 0) and how many there are.
    next: u32,
    count: u32,
    /// What runs.
    command: Command,
}

impl Repeating {
    /// When the next run is due, at `rate` samples per second.
    fn due(&self, rate: u32) -> SampleTime {
        let offset = f64::from(self.next) * self.every_ms * f64::from(rate) / 1000.0;
        SampleTime::from_samples(self.start.samples() + offset.round() as u64)
    }
}

impl Session {
    /// `repeat`: runs `command` now and the other `count - 1` times later; the reply is
    /// the first run's. A first run that fails is the reply, and nothing more runs.
    pub(super) fn start_repeat(
        &mut self,
        count: u32,
        every_ms: f64,
        command: &Command,
    ) -> Result<String, String> {
        let reply = self.execute(command)?;
        if count > 1 {
            self.repeats.push(Repeating {
                start: self.engine.now(),
                every_ms,
                next: 1,
                count,
                command: command.clone(),
            });
        }
        Ok(format!(
            "{reply} (run 1 of {count}, then every {every_ms} ms)"
        ))
    }

    /// Runs the repeats due by now, earliest first (on a tie, the one given first).
    pub(super) fn run_due_repeats(&mut self) {
        let rate = self.engine.clock().sample_rate();
        let now = self.engine.now();
        while let Some(index) = self
            .repeats
            .iter()
            .enumerate()
            .filter(|(_, r)| r.due(rate) <= now)
            .min_by_key(|(i, r)| (r.due(rate), *i))
            .map(|(i, _)| i)
        {
            let command = self.repeats[index].command.clone();
            // A later run that fails (its object gone meanwhile) is in the trace like any
            // command's; the console had its reply with the first run.
            let _ = self.execute(&command);
            let repeat = &mut self.repeats[index];
            repeat.next += 1;
            if repeat.next >= repeat.count {
                self.repeats.remove(index);
            }
        }
    }
}
