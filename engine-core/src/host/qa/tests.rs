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
    assert!(message.contains("write `50ms`"), "{message}");
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
    // Nothing, or less than a byte once rounded, is no budget (as `BudgetMB` and
    // `--cache-mb` say).
    for nothing in ["0", "-0", "0.0", "0.0000001", "-5", "65537"] {
        let (column, message) = problem(&format!("0 set cache {nothing}\n"));
        assert_eq!(column, 13, "{nothing}");
        assert!(
            message.contains("not a cache budget in MiB"),
            "{nothing}: {message}"
        );
    }
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

#[test]
fn a_savelot_line_has_no_place_in_a_qa_script() {
    // It used to be read, and then refused silently when the script ran.
    for text in [
        "0 move 1 2 2\n0.5 savelot\n",
        "0 move 1 2 2\n0.5 savelot home.lot\n",
        "0 move 1 2 2\n0.5 repeat 2 every 10ms savelot\n",
    ] {
        let (_, problems) = read(text);
        assert!(!problems.is_empty(), "{text}");
        for problem in &problems {
            assert_eq!(problem.line, 2, "{text}: {problem}");
            assert_eq!(
                problem.code,
                crate::toolchain::diag::DiagCode::SavelotNotAllowed
            );
            assert!(problem.message.contains("never saves the lot"), "{problem}");
        }
    }
}

/// A trigger of `event` at 1 s that Box-X or the one-copy rule decided as `kind`.
fn decided(kind: crate::runtime::DecisionKind, event: &str) -> crate::runtime::TraceRecord {
    use crate::runtime::DecisionKind as D;
    use crate::runtime::trace::{Occupant, TraceEvent as E, VoiceTable};
    use crate::runtime::{HookEvent, SampleTime, TraceRecord};
    use std::sync::Arc;
    let time = SampleTime::from_samples(48_000);
    let track: Arc<str> = Arc::from("t_track");
    let lowest = Occupant {
        voice: 0,
        track: Arc::from("t_low"),
        priority: 10,
        age: 4800,
    };
    let occupants = VoiceTable::of(std::slice::from_ref(&lowest), time);
    let voice = Some(0);
    let (what, voice) = match kind {
        D::Started => (
            E::Started {
                track: Arc::clone(&track),
                voice: 0,
                priority: 20,
                in_use: 1,
                capacity: 4,
            },
            voice,
        ),
        D::Stole => (
            E::Stole {
                track: Arc::clone(&track),
                priority: 20,
                victim: lowest,
                occupants,
                capacity: 1,
            },
            voice,
        ),
        D::Refused => (
            E::Refused {
                track: Arc::clone(&track),
                priority: 5,
                lowest,
                occupants,
                capacity: 1,
            },
            None,
        ),
        D::Joined => (
            E::Joined {
                object: 2,
                track: Arc::clone(&track),
                voice: 0,
                owners: vec![1, 2],
            },
            voice,
        ),
        D::AlreadyPlaying => (
            E::AlreadyPlaying {
                track: Arc::clone(&track),
                voice: 0,
            },
            voice,
        ),
        D::TookOver => (
            E::Interrupted {
                track: Arc::clone(&track),
                voice: 0,
                finish_loops: false,
            },
            voice,
        ),
        D::NoTrack => (
            E::NoTrack {
                event: Arc::from(event),
                track_id: 0x99,
            },
            None,
        ),
        D::UnknownEvent => (
            E::UnknownEvent {
                name: Arc::from(event),
            },
            None,
        ),
        D::World => (
            E::HandedToWorld(HookEvent::TurnOn {
                event: event.to_string(),
                station: 28,
                object: Some(4),
            }),
            None,
        ),
    };
    let mut record = TraceRecord::new(time, TraceKind::Voice, what);
    record.event = Some(Arc::from(event));
    record.track = Some(track);
    record.object = Some(2);
    record.voice = voice;
    record
}

/// Each kind of decision has one word, and the trace's sentence,
/// the verdict the Why panel shows and QA's `actually:` all say it.
#[test]
fn every_decision_says_its_one_word_in_the_trace_why_and_qa() {
    use crate::runtime::DecisionKind;
    use crate::tools::why::decisions;
    let project = crate::toolchain::project::Project::default();
    let world = crate::world::director::WorldView::default();
    let output = crate::host::offline::OutputSoFar {
        peak: 0.0,
        loudness: None,
    };
    let mut words = std::collections::BTreeSet::new();
    for kind in DecisionKind::ALL {
        let word = kind.name();
        assert!(words.insert(word), "`{word}` names two kinds");
        let record = decided(kind, "ev_decided");
        assert_eq!(record.what.decision(), Some(kind));
        let trace = record.what.to_string();
        assert!(
            trace.starts_with(word),
            "{kind:?}: the trace says `{trace}`"
        );
        let records = [record];
        let why = decisions(&records);
        assert_eq!(why.len(), 1, "{kind:?}: {why:?}");
        assert_eq!(why[0].verdict.kind(), kind);
        let sentence = why[0].verdict.sentence();
        assert!(
            sentence.starts_with(word),
            "{kind:?}: Why says `{sentence}`"
        );
        let heard = heard::HeardNotes::default();
        let moment = check::Moment {
            records: &records,
            project: &project,
            rate: 48_000,
            busy: 0,
            tracks: &[],
            world: &world,
            output: &output,
            heard: &heard,
        };
        let started = Assertion::Started {
            event: "ev_decided".into(),
            object: None,
            within_ms: None,
        };
        let actual = check::check(&started, &moment).actual;
        assert!(actual.starts_with(word), "{kind:?}: QA says `{actual}`");
    } // The records that give the same verdicts as those above say their word too.
    use crate::runtime::trace::TraceEvent as E;
    use std::sync::Arc;
    let track: Arc<str> = Arc::from("t_track");
    for what in [
        E::AlreadyOwner {
            object: 2,
            track: Arc::clone(&track),
            voice: 0,
        },
        E::PlaysItself {
            track: Arc::clone(&track),
            voice: 0,
        },
        E::NoCode {
            track: Arc::clone(&track),
            address: 0x40,
        },
        E::WorldVoiceTaken {
            who: crate::runtime::voices::WorldVoice::Music,
            voice: 3,
            priority: 32,
            in_use: 4,
            capacity: 16,
        },
    ] {
        let word = what.decision().unwrap().name();
        let trace = what.to_string();
        assert!(trace.starts_with(word), "the trace says `{trace}`");
    }
}

#[test]
fn a_script_of_any_size_is_read_within_bounds() {
    use crate::host::command::{MAX_SCRIPT_COMMANDS, MAX_SCRIPT_PROBLEMS};
    // A million bad lines: the first hundred said, and the rest not read.
    let bad = "0 frobnicate the thing\n".repeat(1_000_000);
    let (_, problems) = read(&bad);
    assert_eq!(problems.len(), MAX_SCRIPT_PROBLEMS + 1);
    let last = problems.last().unwrap();
    assert!(
        last.message.contains("the rest of the script was not read"),
        "{}",
        last.message
    );
    assert_eq!(last.line as usize, MAX_SCRIPT_PROBLEMS);
    // More expectations than a script holds: read no further, said at the line.
    let many = "0 expect voices >= 0\n".repeat(MAX_EXPECTATIONS + 10);
    let (script, problems) = read(&many);
    assert_eq!(script.expectations.len(), MAX_EXPECTATIONS);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].line as usize, MAX_EXPECTATIONS + 1);
    // More commands than a script makes (a `repeat` counts each run): likewise.
    let lines = MAX_SCRIPT_COMMANDS / 10_000 + 5;
    let bursts = "0 repeat 10000 every 1ms hour 12\n".repeat(lines);
    let (script, problems) = read(&bursts);
    assert!(script.commands.len() <= MAX_SCRIPT_COMMANDS);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].message.contains("more than 200000 commands"),
        "{}",
        problems[0].message
    );
}
