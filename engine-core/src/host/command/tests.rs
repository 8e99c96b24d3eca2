//! Tests of the command language: every command parses, mistakes say where and what,
//! scripts have times and report lines.

use super::*;
use crate::runtime::sink::ControlGroup;
use std::path::Path;

fn ok(line: &str) -> Command {
    parse(line)
        .unwrap_or_else(|e| panic!("{line}: {e}"))
        .unwrap_or(Command::Help(None))
}

#[test]
fn sev_joins_words() {
    assert_eq!(
        ok("sev ui moneyback"),
        Command::SoundEvent {
            name: "ui_moneyback".into(),
            object: None
        }
    );
    assert_eq!(
        ok("soundevent vox laugh @3"),
        Command::SoundEvent {
            name: "vox_laugh".into(),
            object: Some(3)
        }
    );
    assert_eq!(
        ok("UI ui_click"),
        Command::UiSound {
            name: "ui_click".into()
        }
    );
}

#[test]
fn every_command_parses() {
    assert_eq!(ok("quiet 4"), Command::Quiet(4));
    assert_eq!(ok("quietall"), Command::QuietAll);
    assert_eq!(ok("stop"), Command::Stop);
    assert_eq!(ok("control 2"), Command::Control(2));
    assert_eq!(
        ok("field 2 neat 40"),
        Command::Field {
            object: 2,
            field: 20,
            value: 40
        }
    );
    assert_eq!(
        ok("trace samples off"),
        Command::Trace {
            target: TraceTarget::Samples,
            on: false
        }
    );
    assert_eq!(
        ok("volume vox 0.5"),
        Command::Volume {
            target: VolumeTarget::Group(ControlGroup::Vox),
            value: 0.5
        }
    );
    assert_eq!(ok("help"), Command::Help(None));
    // Any of a command's words names it, as its own word.
    assert_eq!(ok("help why"), Command::Help(Some("why".into())));
    assert_eq!(ok("HELP soundevent"), Command::Help(Some("sev".into())));
    assert_eq!(ok("help ?"), Command::Help(Some("help".into())));
    let unknown = parse("help quiteall").unwrap_err();
    assert_eq!(unknown.column, 6);
    assert_eq!(
        unknown.message,
        "`quiteall` is not a command (did you mean `quietall`?); `help` lists them"
    );
    assert!(parse("help why now").is_err(), "help takes one word");
    assert_eq!(ok("reload"), Command::Reload);
    assert!(parse("reload now").is_err(), "reload takes nothing");
    assert_eq!(ok("play 100"), Command::Play("100".into()));
    assert_eq!(
        ok("PLAY sounds/baby cry.wav"),
        Command::Play("sounds/baby cry.wav".into())
    );
    assert!(parse("play").unwrap_err().message.contains("play needs"));
    assert_eq!(parse("  # just a comment"), Ok(None));
}

#[test]
fn mistakes_say_where_and_what() {
    let e = parse("sev").unwrap_err();
    assert!(e.message.contains("needs an event name"));
    let e = parse("quiet x").unwrap_err();
    assert_eq!(e.column, 7);
    let e = parse("volme fx 1").unwrap_err();
    assert!(e.message.contains("did you mean `volume`"), "{}", e.message);
    let e = parse("volume fx loud").unwrap_err();
    assert_eq!(e.column, 11);
    let e = parse("quietall now").unwrap_err();
    assert!(e.message.contains("unexpected `now`"));
    let e = parse("field 1 charm 3").unwrap_err();
    assert!(e.message.contains("unknown field `charm`"));
}

#[test]
fn voices_sets_the_voice_limit_and_says_the_range() {
    assert_eq!(ok("voices 4"), Command::Voices(4));
    assert_eq!(ok("VOICES 1024"), Command::Voices(1024));
    for (line, column) in [("voices 0", 8), ("voices 1025", 8), ("voices four", 8)] {
        let e = parse(line).unwrap_err();
        assert_eq!(e.column, column, "{line}");
        assert!(
            e.message.contains("from 1 to 1024"),
            "{line}: {}",
            e.message
        );
    }
    assert!(parse("voices").unwrap_err().message.contains("voices <n>"));
    assert!(
        parse("voices 4 5")
            .unwrap_err()
            .message
            .contains("unexpected")
    );
}

#[test]
fn repeat_is_one_command_for_the_console_and_its_commands_in_a_script() {
    assert_eq!(
        ok("repeat 3 every 50ms sev ui click @2"),
        Command::Repeat {
            count: 3,
            every_ms: 50.0,
            command: Box::new(Command::SoundEvent {
                name: "ui_click".into(),
                object: Some(2)
            })
        }
    );
    // Mistakes are at their column in the line, the command's own ones too.
    for (line, column, words) in [
        ("repeat 3 every 50 sev ui_click", 16, "`50` needs its unit"),
        ("repeat 0 every 50ms quietall", 8, "from 1 to 10000"),
        ("repeat 10001 every 50ms quietall", 8, "from 1 to 10000"),
        ("repeat 3 each 50ms quietall", 10, "`every`"),
        (
            "repeat 3 every 50ms sevv ui_click",
            21,
            "did you mean `sev`",
        ),
        ("repeat 3 every 50ms quiet x", 27, "not an object ID"),
        (
            "repeat 2 every 5ms repeat 2 every 5ms quietall",
            20,
            "cannot repeat",
        ),
        ("repeat 3 every 50ms", 20, "repeat <n> every <ms>ms"),
        // Each wrong time says what is wrong with it.
        ("repeat 3 every 0ms quietall", 16, "no time apart"),
        ("repeat 3 every -5ms quietall", 16, "no time apart"),
        ("repeat 3 every 0.0ms quietall", 16, "no time apart"),
        ("repeat 3 every infms quietall", 16, "is no time"),
        ("repeat 3 every NaNms quietall", 16, "is no time"),
        ("repeat 3 every 50 quietall", 16, "write `50ms`"),
        (
            "repeat 3 every fastms quietall",
            16,
            "not a time in milliseconds",
        ),
    ] {
        let e = parse(line).unwrap_err();
        assert_eq!(e.column, column, "{line}: {}", e.message);
        assert!(e.message.contains(words), "{line}: {}", e.message);
    }
    // A line of a thousand nested repeats is refused at the second, not read through.
    let nested = "repeat 2 every 5ms ".repeat(1000) + "quietall";
    assert_eq!(parse(&nested).unwrap_err().column, 20);
    // A script expands it into its commands, in time order with the other lines.
    let text = "1.0 repeat 3 every 250ms ui ui_click\n1.2 quietall\n";
    let (commands, d) = parse_script(text, Path::new("burst.txt"));
    assert!(d.is_empty(), "{d:?}");
    let timed: Vec<(f64, u32)> = commands.iter().map(|c| (c.time, c.line)).collect();
    assert_eq!(timed, [(1.0, 1), (1.2, 2), (1.25, 1), (1.5, 1)]);
    let (_, d) = parse_script(
        "1.0 repeat 3 every 50 ui ui_click\n",
        Path::new("burst.txt"),
    );
    assert_eq!((d[0].line, d[0].column), (1, 20), "{d:?}");
    // Its last run must be within the day a script may last, as every line's time.
    let (commands, d) = parse_script(
        "0 quietall\n80000 repeat 10000 every 1000ms quietall\n",
        Path::new("burst.txt"),
    );
    assert_eq!(commands.len(), 1, "{d:?}");
    assert_eq!((d.len(), d[0].line), (1, 2), "{d:?}");
    assert!(d[0].message.contains("past the 86400 s"), "{d:?}");
}

#[test]
fn scripts_have_times_and_report_lines() {
    let text = "# tour\n0.0 ui ui_click\n1.5 sev vox laugh @2 ; comment\n\nx quietall\n1.0 quietall\n2 nonsense\n";
    let (commands, d) = parse_script(text, Path::new("tour.txt"));
    assert_eq!(commands.len(), 2);
    assert_eq!(commands[1].time, 1.5);
    assert_eq!(commands[1].line, 3);
    let places: Vec<(u32, u32)> = d.iter().map(|d| (d.line, d.column)).collect();
    assert_eq!(places, vec![(5, 1), (6, 1), (7, 3)]);
    assert!(d[1].message.contains("earlier than the line before"));
}

#[test]
fn script_times_must_be_finite_and_within_the_maximum() {
    // A line at 1e308 s used to render until the disk was full.
    let text = "0 quietall\n86400 quietall\n86400.5 quietall\n1e308 quietall\ninf quietall\nNaN quietall\n";
    let (commands, d) = parse_script(text, Path::new("long.txt"));
    assert_eq!(commands.len(), 2, "{d:?}");
    let lines: Vec<u32> = d.iter().map(|d| d.line).collect();
    assert_eq!(lines, vec![3, 4, 5, 6], "{d:?}");
    for diagnostic in &d {
        assert!(diagnostic.is_error());
        assert_eq!(diagnostic.file, Path::new("long.txt"));
    }
    assert!(
        d[0].message.contains("24 h") && d[0].message.contains("--duration"),
        "{}",
        d[0].message
    );
}

#[test]
fn completion_words_come_from_the_table_in_order() {
    let expected = [
        "sev",
        "soundevent",
        "ui",
        "quiet",
        "quietall",
        "control",
        "field",
        "trace",
        "volume",
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
        "select",
        "sound",
        "world",
        "savelot",
        "help",
        "play",
        "stop",
        "why",
        "break",
        "delete",
        "enable",
        "disable",
        "continue",
        "step",
        "next",
        "stepi",
        "towait",
        "regs",
        "set",
        "reload",
        "plugin",
        "mute",
        "solo",
        "monitor",
        "tune",
        "voices",
        "repeat",
    ];
    assert_eq!(WORDS, expected);
    for word in WORDS {
        assert!(grammar::lookup(word).is_some(), "{word}");
    }
    assert_eq!(grammar::lookup("?").map(|s| s.name), Some("help"));
}

#[test]
fn help_lists_every_command_and_alias() {
    let lines = help_lines();
    assert_eq!(lines.len(), WORDS.len());
    assert_eq!(
        lines[1],
        (
            "soundevent <event…> [@object]".to_owned(),
            "the same as sev".to_owned()
        )
    );
    assert_eq!(
        lines[4],
        ("quietall".to_owned(), "quiet everything".to_owned())
    );
    for ((syntax, _), word) in lines.iter().zip(WORDS) {
        assert!(syntax.starts_with(word), "{syntax}");
    }
}

#[test]
fn help_of_one_command_says_its_syntax_what_it_does_and_its_aliases() {
    let lines = help_lines_of("sev");
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].0.starts_with("sev <event…>"), "{lines:?}");
    assert_eq!(
        lines[1],
        (
            "soundevent <event…> [@object]".to_owned(),
            "the same as sev".to_owned()
        )
    );
    assert_eq!(help_lines_of("help")[0].0, "help [command]");
    assert!(help_lines_of("frob").is_empty());
}

#[test]
fn a_word_past_a_commands_arity_is_unexpected() {
    let full = [
        "quiet 1",
        "quietall",
        "control 1",
        "field 1 neat 3",
        "trace all on",
        "volume fx 1",
        "view 1 2",
        "scroll 1 2",
        "zoom in",
        "rotate left",
        "floor 1",
        "hour 12",
        "mode buy",
        "move 1 2 3 0",
        "room 3",
        "turnon 1 28",
        "turnoff 1",
        "world",
        "savelot x.lot",
        "help why",
    ];
    for line in full {
        assert!(parse(line).is_ok(), "{line}");
        let e = parse(&format!("{line} extra")).unwrap_err();
        assert!(e.message.contains("unexpected `extra`"), "{line}: {e}");
    }
    // `sev`, `ui` and `play` read the rest of the line.
    assert_eq!(ok("play a b c"), Command::Play("a b c".into()));
}

#[test]
fn why_asks_about_an_event_or_an_object() {
    assert_eq!(
        ok("why vox greet"),
        Command::Why(Subject::Event("vox_greet".into()))
    );
    assert_eq!(ok("WHY @2"), Command::Why(Subject::Object(2)));
    for (line, column, says) in [
        ("why", 4, "why needs an event or an @object"),
        ("why @x", 5, "`@x` is not an object"),
        ("why @2 vox", 8, "not both"),
        ("why vox @2", 9, "not both"),
    ] {
        let e = parse(line).expect_err(line);
        assert_eq!(e.column, column, "{line}: {e}");
        assert!(e.message.contains(says), "{line}: {e}");
    }
}

#[test]
fn quiet_says_per_track_what_it_did() {
    use crate::runtime::engine::Quieted;
    let report = [
        Quieted {
            track: "vox_greet".into(),
            ended: true,
            left: Vec::new(),
        },
        Quieted {
            track: "tv_show".into(),
            ended: false,
            left: vec![1, 3],
        },
    ];
    assert_eq!(
        execute::quiet_reply(2, &report),
        "quieted object 2: `vox_greet` ended (its last owner); `tv_show` plays on for @1, @3"
    );
    assert_eq!(execute::quiet_reply(2, &[]), "object 2 was saying no track");
}
