//! Reading QA scripts: every assertion family, bursts, and mistakes at their column.

use super::*;
use std::path::Path;

fn read(text: &str) -> (QaScript, Vec<crate::toolchain::diag::Diagnostic>) {
    parse_qa(text, Path::new("suite.qa"))
}

fn one(assertion: &str) -> Assertion {
    let (script, problems) = read(&format!("1.0 expect {assertion}\n"));
    assert!(problems.is_empty(), "{assertion}: {problems:#?}");
    assert_eq!(script.expectations.len(), 1);
    assert_eq!(script.expectations[0].text, assertion);
    script.expectations[0].assertion.clone()
}

fn problem(line: &str) -> (u32, String) {
    let (_, problems) = read(line);
    assert_eq!(problems.len(), 1, "{line}: {problems:#?}");
    (problems[0].column, problems[0].message.clone())
}

#[test]
fn trigger_voice_and_view_assertions_read() {
    let at_least = |value| Bound {
        op: Compare::AtLeast,
        value,
    };
    assert_eq!(
        one("started vox_laugh @3 within 100ms"),
        Assertion::Started {
            event: "vox_laugh".into(),
            object: Some(3),
            within_ms: Some(100.0)
        }
    );
    assert_eq!(
        one("started ui_click"),
        Assertion::Started {
            event: "ui_click".into(),
            object: None,
            within_ms: None
        }
    );
    assert_eq!(
        one("refused phone_ring"),
        Assertion::Refused {
            event: "phone_ring".into()
        }
    );
    assert_eq!(
        one("stolen door_open"),
        Assertion::Stolen {
            track: "door_open".into()
        }
    );
    assert_eq!(
        one("not stolen"),
        Assertion::NotStolen { min_priority: None }
    );
    assert_eq!(
        one("not stolen priority >= 40"),
        Assertion::NotStolen {
            min_priority: Some(40)
        }
    );
    assert_eq!(one("voices >= 4"), Assertion::Voices(at_least(4.0)));
    assert_eq!(
        one("gain @3 < 0.5"),
        Assertion::Gain {
            object: 3,
            bound: Bound {
                op: Compare::Less,
                value: 0.5
            }
        }
    );
    assert_eq!(
        one("pan @5 <= -0.25"),
        Assertion::Pan {
            object: 5,
            bound: Bound {
                op: Compare::AtMost,
                value: -0.25
            }
        }
    );
}

#[test]
fn sounding_fault_level_and_count_assertions_read() {
    let at_least = |value| Bound {
        op: Compare::AtLeast,
        value,
    };
    assert_eq!(
        one("playing track piano_play"),
        Assertion::Playing {
            what: Sounding::Track("piano_play".into()),
            playing: true
        }
    );
    assert_eq!(
        one("silent music"),
        Assertion::Playing {
            what: Sounding::Music,
            playing: false
        }
    );
    assert_eq!(
        one("playing station action"),
        Assertion::Playing {
            what: Sounding::Station("action".into()),
            playing: true
        }
    );
    assert_eq!(
        one("silent sample sounds/baby/cry_1.wav"),
        Assertion::Playing {
            what: Sounding::Sample("sounds/baby/cry_1.wav".into()),
            playing: false
        }
    );
    assert_eq!(
        one("picks hl_baby_cry norepeat"),
        Assertion::PicksNoRepeat {
            list: "hl_baby_cry".into()
        }
    );
    assert_eq!(one("no fault"), Assertion::NoFault);
    assert_eq!(
        one("fault divide-by-zero at piano.src:31"),
        Assertion::Fault {
            kind: "divide-by-zero".into(),
            at: Some(("piano.src".into(), 31))
        }
    );
    assert_eq!(one("peak below -1"), Assertion::PeakBelow { dbfs: -1.0 });
    assert_eq!(
        one("loudness == -23"),
        Assertion::Loudness(Bound {
            op: Compare::Equal,
            value: -23.0
        })
    );
    assert_eq!(
        one("count steals > 0"),
        Assertion::Count {
            what: Counted::Steals,
            bound: Bound {
                op: Compare::Greater,
                value: 0.0
            }
        }
    );
    assert_eq!(
        one("count world >= 1"),
        Assertion::Count {
            what: Counted::Kind(TraceKind::World),
            bound: at_least(1.0)
        }
    );
}

#[test]
fn a_burst_becomes_its_commands_and_everything_stays_in_time_order() {
    let (script, problems) = read(
        "# a burst of clicks\n0.5 repeat 3 every 50ms sev ui_click\n0.6 sev vox_laugh @3\n0.7 expect voices >= 1\n",
    );
    assert!(problems.is_empty(), "{problems:#?}");
    let times: Vec<f64> = script.commands.iter().map(|c| c.time).collect();
    assert_eq!(times.len(), 4);
    assert!((times[0] - 0.5).abs() < 1e-9 && (times[1] - 0.55).abs() < 1e-9);
    assert!((times[2] - 0.6).abs() < 1e-9 && (times[3] - 0.6).abs() < 1e-9);
    assert_eq!(script.commands[0].line, 2);
    // At the same time, lines run in the order of the file.
    assert_eq!(script.commands[2].line, 2);
    assert_eq!(script.commands[3].line, 3);
    assert_eq!(script.expectations[0].line, 4);
}

#[test]
fn mistakes_say_where_and_what() {
    let (column, message) = problem("1.0 expect strated ui_click\n");
    assert_eq!(column, 12);
    assert!(message.contains("did you mean `started`?"), "{message}");
    let (column, message) = problem("1.0 expect voices => 3\n");
    assert_eq!(column, 19);
    assert!(message.contains("not an operator"), "{message}");
    let (column, message) = problem("1.0 expect count stels > 1\n");
    assert_eq!(column, 18);
    assert!(message.contains("did you mean `steals`?"), "{message}");
    let (column, message) = problem("1.0 expect fault divide-by-zer\n");
    assert_eq!(column, 18);
    assert!(
        message.contains("did you mean `divide-by-zero`?"),
        "{message}"
    );
    let (column, message) = problem("1.0 expect gain 3x < 1\n");
    assert_eq!(column, 17);
    assert!(message.contains("not an object"), "{message}");
    let (column, message) = problem("1.0 expect no fault now\n");
    assert_eq!(column, 21);
    assert!(message.contains("one word too many"), "{message}");
    let (column, message) = problem("1.0 repeat 3 every 50 sev ui_click\n");
    assert_eq!(column, 20);
    assert!(message.contains("milliseconds"), "{message}");
    let (column, message) = problem("1.0 repeat 3 every 50ms sev\n");
    assert!(column >= 25, "{column}: {message}");
    let (column, _) = problem("1.0 expect\n");
    assert_eq!(column, 11);
    // A script line's own mistakes are the command language's.
    let (column, message) = problem("1.0 sevv ui_click\n");
    assert_eq!(column, 5);
    assert!(message.contains("sev"), "{message}");
}

#[test]
fn a_script_may_set_its_voice_limit_first() {
    let (script, problems) = read("0 set voices 4\n0 sev vox laugh @3\n");
    assert!(problems.is_empty(), "{problems:#?}");
    assert_eq!(script.voices, Some(4));
    let (column, message) = problem("0 sev vox laugh @3\n0 set voices 4\n");
    assert_eq!(column, 3);
    assert!(message.contains("a setting comes first"), "{message}");
    let (column, message) = problem("0 set voices 0\n");
    assert_eq!(column, 14);
    assert!(message.contains("not a voice limit"), "{message}");
    let (column, message) = problem("0 set seed 4\n");
    assert_eq!(column, 7);
    assert!(message.contains("cannot be set"), "{message}");
}

#[test]
fn a_script_may_set_its_cache_budget_first() {
    let (script, problems) = read("0 set cache 1.5\n0 set voices 4\n0 sev vox laugh @3\n");
    assert!(problems.is_empty(), "{problems:#?}");
    assert_eq!(script.cache_budget, Some(1_572_864));
    assert_eq!(script.voices, Some(4));
    let (column, message) = problem("0 set cache 0\n");
    assert_eq!(column, 13);
    assert!(message.contains("not a cache budget in MiB"), "{message}");
    let (_, message) = problem("0 set cache lots\n");
    assert!(
        message.contains("`lots` is not a cache budget"),
        "{message}"
    );
}

#[test]
fn capacity_misses_are_counted_apart_from_misses() {
    let (script, problems) =
        read("1 expect count capacity-misses >= 2\n1 expect count misses > 0\n");
    assert!(problems.is_empty(), "{problems:#?}");
    assert_eq!(script.expectations.len(), 2);
}
