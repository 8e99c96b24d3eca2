//! The command language: render/console scripts of `<seconds> <command>` lines with every
//! command, right and wrong arguments, times that go back, are huge or are not numbers.
//! Each case parses the script, and every line on its own as the console would.

use crate::harness::{Input, MIB, MemoryBound, Target};
use crate::mutate;
use crate::words::{comment, ending, join, name, number};
use engine_core::host::command::{parse, parse_hour, parse_script};
use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;
use std::path::Path;
use std::time::Duration;

/// Memory bound: commands and diagnostics per line, as the other text targets.
pub const MEMORY: MemoryBound = MemoryBound {
    per_byte: 64,
    per_line: 1024,
    fixed: 16 * MIB,
};
/// Time limit of one case (debug build).
pub const TIME: Duration = Duration::from_secs(10);

const MUTATIONS: usize = 4;

/// The demo's render script: a real file.
const TOUR: &[u8] = include_bytes!("../../../projects/demo/tour.txt");

fn arg() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (0u32..12).prop_map(|n| n.to_string()),
        2 => name(),
        1 => number(),
        1 => (0u32..12).prop_map(|n| format!("@{n}")),
        1 => proptest::sample::select(&["on", "off", "in", "out", "left", "right", "fx", "music", "vox", "master", "all", "events", "18:30", "24:00", "-1", "1e308", "NaN"][..]).prop_map(str::to_string),
    ]
}

/// One command with arguments (for the console and scripts).
pub fn command() -> impl Strategy<Value = String> {
    let word = proptest::sample::select(
        &[
            "sev",
            "soundevent",
            "ui",
            "quiet",
            "quietall",
            "control",
            "field",
            "trace",
            "volume",
            "help",
            "play",
            "view",
            "scroll",
            "zoom",
            "rotate",
            "floor",
            "hour",
            "mode",
            "move",
            "room",
            "turnon",
            "turnoff",
            "world",
            "savelot",
            "SEV",
            "qiet",
        ][..],
    );
    (word, proptest::collection::vec(arg(), 0..5))
        .prop_map(|(w, args)| format!("{w} {}", args.join(" ")))
}

fn time() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => (0u32..600).prop_map(|t| format!("{}.{}", t / 10, t % 10)),
        1 => number(),
        1 => proptest::sample::select(&["1e308", "inf", "NaN", "-0", "1e-300", "86400000"][..]).prop_map(str::to_string),
    ]
}

fn script_line() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => (time(), command(), proptest::sample::select(&[" ", "  ", "\t"][..]))
            .prop_map(|(t, c, s)| format!("{t}{s}{c}")),
        1 => comment(),
        1 => (time(), command()).prop_map(|(t, c)| format!("{t} {c} # why")),
    ]
}

fn strategy() -> BoxedStrategy<Input> {
    let generated = (proptest::collection::vec(script_line(), 0..30), ending())
        .prop_map(|(lines, e)| join(&lines, e, true));
    mutate::mutated(
        prop_oneof![5 => generated, 1 => Just(TOUR.to_vec())],
        MUTATIONS,
    )
    .prop_map(|b| Input::single("script.txt", b))
    .boxed()
}

fn run(input: &Input) -> Result<(), String> {
    let text = String::from_utf8_lossy(input.first()).into_owned();
    let (commands, _) = parse_script(&text, Path::new("script.txt"));
    let mut last = 0.0f64;
    for c in &commands {
        if !c.time.is_finite() || c.time < last {
            return Err(format!(
                "line {}: time {} accepted after {last}",
                c.line, c.time
            ));
        }
        last = c.time;
    }
    for line in text.lines() {
        let _ = parse(line);
        if let Some(word) = line.split_whitespace().last() {
            let _ = parse_hour(word);
        }
    }
    Ok(())
}

/// Render and console scripts.
pub const TARGET: Target = Target {
    name: "script",
    about: "scripts into command::parse_script, lines into command::parse",
    cases: 300,
    memory: MEMORY,
    time: TIME,
    strategy,
    run,
};
