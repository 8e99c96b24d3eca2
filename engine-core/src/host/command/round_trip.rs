//! Tests of commands written back as lines (`Display`): every command the grammar reads
//! prints as a line that reads back as the same command — samples of every row of the
//! grammar table with edge values, lines spelt other ways (aliases, `18:30`, `@3`,
//! field names, hex), and generated commands.

use super::*;
use crate::runtime::sink::ControlGroup;
use crate::sound::server::MonitorTarget;
use crate::tools::properties::PropertyTarget;
use crate::world::music::MusicMode;
use proptest::prelude::*;
use std::path::PathBuf;

/// `parse(&command.to_string())` is the command again.
fn assert_round_trip(command: &Command) {
    let line = command.to_string();
    assert_eq!(parse(&line), Ok(Some(command.clone())), "`{line}`");
}

fn world(command: WorldCommand) -> Command {
    Command::World(command)
}

/// Odd but valid numbers: zero of both signs, the smallest and largest, thirds and
/// tenths that have no short binary form.
const ODD_NUMBERS: [f32; 10] = [
    0.0,
    -0.0,
    12.73,
    -3.25,
    1.0 / 3.0,
    0.1 + 0.2,
    1e-7,
    f32::MIN_POSITIVE,
    f32::MAX,
    f32::MIN,
];

fn engine_samples() -> Vec<Command> {
    let mut samples = Vec::new();
    for (name, object) in [
        ("ui_moneyback", None),
        ("vox_laugh", Some(3)),
        ("Tv_On_Action", Some(-7)),
        ("__", Some(ObjectId::MAX)),
        ("a.b-c", Some(ObjectId::MIN)),
        ("café_crème", Some(0)),
        ("x@y", None),
    ] {
        samples.push(Command::SoundEvent {
            name: name.into(),
            object,
        });
        samples.push(Command::UiSound { name: name.into() });
        samples.push(Command::Why(Subject::Event(name.into())));
    }
    for object in [0, 12, -1, ObjectId::MAX, ObjectId::MIN] {
        samples.push(Command::Quiet(object));
        samples.push(Command::Control(object));
        samples.push(Command::Why(Subject::Object(object)));
    }
    samples.push(Command::QuietAll);
    samples.push(Command::Stop);
    for field in 0..32 {
        for value in [0, 40, -5, i32::MAX, i32::MIN] {
            samples.push(Command::Field {
                object: 2,
                field,
                value,
            });
        }
    }
    for target in [
        TraceTarget::Events,
        TraceTarget::Samples,
        TraceTarget::Tracks,
        TraceTarget::All,
    ] {
        samples.push(Command::Trace { target, on: true });
        samples.push(Command::Trace { target, on: false });
    }
    let groups = ControlGroup::ALL.map(VolumeTarget::Group);
    for target in groups.into_iter().chain([VolumeTarget::Master]) {
        for value in [
            0.0,
            0.01,
            0.5,
            1.0 / 3.0,
            std::f32::consts::FRAC_1_SQRT_2,
            1.0,
            4.0,
            f32::MIN_POSITIVE,
        ] {
            samples.push(Command::Volume { target, value });
        }
    }
    samples.push(Command::Help(None));
    samples.push(Command::Help(Some("why".to_owned())));
    samples.push(Command::Reload);
    for (add, dir) in [(true, "plugins/holiday"), (false, "my plugins/x")] {
        samples.push(Command::Plugin {
            add,
            dir: dir.into(),
        });
    }
    samples.extend(debug_samples().into_iter().map(Command::Debug));
    for target in [
        MonitorTarget::Group(ControlGroup::Fx),
        MonitorTarget::Group(ControlGroup::Music),
        MonitorTarget::Group(ControlGroup::Vox),
        MonitorTarget::Track(0x2200),
        MonitorTarget::Object(3),
        MonitorTarget::Voice(15),
    ] {
        for (solo, on) in [(false, true), (false, false), (true, true), (true, false)] {
            samples.push(Command::Monitor(MonitorCommand::Set { solo, target, on }));
        }
    }
    samples.push(Command::Monitor(MonitorCommand::Clear));
    samples.push(Command::Monitor(MonitorCommand::Show));
    for target in [
        PropertyTarget::Track(0x2400),
        PropertyTarget::Patch(0),
        PropertyTarget::Event("door_open".into()),
    ] {
        for &property in target.properties() {
            for value in [0, 1, 1024, -3, i64::from(u32::MAX)] {
                samples.push(Command::Tune {
                    target: target.clone(),
                    property,
                    value,
                });
            }
        }
    }
    for target in [
        "100",
        "0x64",
        "baby_cry",
        "sounds/baby cry.wav",
        "sounds/ünï  cödé\t2.ogg",
        "@3",
        "sev ui x",
        "C:\\sounds\\a.wav",
    ] {
        samples.push(Command::Play(target.into()));
    }
    samples
}

/// `voices` and `repeat`: what a tester gives a running session.
fn tester_samples() -> Vec<Command> {
    let mut samples = Vec::new();
    for count in [1, 4, 16, 1024] {
        samples.push(Command::Voices(count));
    }
    for (count, every_ms, command) in [
        (1, 50.0, Command::QuietAll),
        (
            10,
            30.0,
            Command::UiSound {
                name: "ui_click".into(),
            },
        ),
        (10_000, 1.0 / 3.0, Command::Voices(3)),
        (2, 0.25, Command::Monitor(MonitorCommand::Clear)),
        (7, 1e6, Command::Play("sounds/baby cry.wav".into())),
    ] {
        samples.push(Command::Repeat {
            count,
            every_ms,
            command: Box::new(command),
        });
    }
    samples
}

fn world_samples() -> Vec<Command> {
    let mut samples = Vec::new();
    for (x, y) in ODD_NUMBERS.into_iter().zip(ODD_NUMBERS.into_iter().rev()) {
        samples.push(world(WorldCommand::View { x, y }));
        samples.push(world(WorldCommand::Scroll { dx: x, dy: y }));
        for floor in [None, Some(0), Some(-1), Some(i32::MAX)] {
            samples.push(world(WorldCommand::Move {
                object: 4,
                x,
                y,
                floor,
            }));
        }
    }
    for step in [ZoomStep::In, ZoomStep::Out]
        .into_iter()
        .chain((1..=3).map(ZoomStep::Level))
    {
        samples.push(world(WorldCommand::Zoom(step)));
    }
    for turn in [Turn::Left, Turn::Right]
        .into_iter()
        .chain((0..4).map(Turn::To))
    {
        samples.push(world(WorldCommand::Rotate(turn)));
    }
    for floor in [0, 1, -1, i32::MAX, i32::MIN] {
        samples.push(world(WorldCommand::Floor(floor)));
    }
    for hour in [0.0, 6.25, 18.5, 14.0 + 20.0 / 60.0, 23.99, 24.0] {
        samples.push(world(WorldCommand::Hour(hour)));
    }
    for mode in MusicMode::ALL {
        samples.push(world(WorldCommand::Mode(mode)));
    }
    for tiles in [0.0, 2.5, 1.0 / 3.0, 1e9, f32::MAX] {
        samples.push(world(WorldCommand::Room(tiles)));
    }
    let kact = u32::from_le_bytes(*b"KACT");
    for station in [28, 0, 260, kact, u32::MAX] {
        samples.push(world(WorldCommand::TurnOn { object: 5, station }));
    }
    samples.push(world(WorldCommand::TurnOff { object: 5 }));
    samples.push(world(WorldCommand::Select(vec![1])));
    samples.push(world(WorldCommand::Select(vec![3, -2, 7])));
    samples.push(world(WorldCommand::Sound {
        name: "yes".into(),
        object: None,
    }));
    samples.push(world(WorldCommand::Sound {
        name: "ack_2".into(),
        object: Some(4),
    }));
    samples.push(world(WorldCommand::Describe));
    samples.push(world(WorldCommand::SaveLot(None)));
    for path in [
        "x.lot",
        "../up.lot",
        "/abs/lots/a.lot",
        "lots\\b.lot",
        "lót.lot",
    ] {
        samples.push(world(WorldCommand::SaveLot(Some(PathBuf::from(path)))));
    }
    samples
}

#[test]
fn every_sample_of_every_command_reads_back_the_same() {
    let samples: Vec<Command> = engine_samples()
        .into_iter()
        .chain(tester_samples())
        .chain(world_samples())
        .collect();
    for command in &samples {
        assert_round_trip(command);
    }
    // Every row of the grammar table has samples: a new command without them fails here.
    for spec in COMMANDS {
        assert!(
            samples
                .iter()
                .any(|c| c.to_string().split(' ').next() == Some(spec.name)),
            "no sample of `{}`",
            spec.name
        );
    }
}

#[test]
fn numbers_are_written_exactly_not_rounded() {
    let view = world(WorldCommand::View {
        x: 12.734_567,
        y: 1.0 / 3.0,
    });
    assert_eq!(view.to_string(), "view 12.734567 0.33333334");
    assert_eq!(
        world(WorldCommand::View { x: 3.5, y: 4.0 }).to_string(),
        "view 3.5 4"
    );
    assert_eq!(
        Command::Volume {
            target: VolumeTarget::Group(ControlGroup::Music),
            value: 0.5,
        }
        .to_string(),
        "volume music 0.5"
    );
    assert_eq!(world(WorldCommand::Hour(18.5)).to_string(), "hour 18.5");
}

#[test]
fn lines_spelt_other_ways_print_as_one_spelling() {
    for (typed, printed) in [
        ("soundevent vox laugh @3", "sev vox_laugh @3"),
        ("SEV ui moneyback", "sev ui_moneyback"),
        ("sev tv_on_action @4 # from the TV", "sev tv_on_action @4"),
        ("ui ui click", "ui ui_click"),
        ("quiet @4", "quiet 4"),
        ("control @@2", "control 2"),
        ("field 2 NEAT 40", "field 2 neat 40"),
        ("field 2 20 +7", "field 2 neat 7"),
        ("field 1 25 -3", "field 1 25 -3"),
        ("trace event ON", "trace events on"),
        ("trace ALL off", "trace all off"),
        ("volume FX 0.50", "volume fx 0.5"),
        ("volume master 1e0", "volume master 1"),
        ("view 3.50 4.00", "view 3.5 4"),
        ("scroll -200 0.0", "scroll -200 0"),
        ("zoom +", "zoom in"),
        ("zoom -", "zoom out"),
        ("zoom far", "zoom 3"),
        ("zoom near", "zoom 1"),
        ("rotate", "rotate right"),
        ("rotate ccw", "rotate left"),
        ("rotate 2", "rotate 2"),
        ("floor +1", "floor 1"),
        ("hour 18:30", "hour 18.5"),
        ("hour 06", "hour 6"),
        ("mode hood", "mode neighborhood"),
        ("mode 1", "mode buy"),
        ("mode EditFamily", "mode family"),
        ("move @1 11.00 9.00", "move 1 11 9"),
        ("move 1 2 3 -1", "move 1 2 3 -1"),
        ("room 2.50", "room 2.5"),
        ("turnon 5 0x1C", "turnon 5 28"),
        ("turnon 5 KACT", "turnon 5 1413693771"),
        ("turnoff @5", "turnoff 5"),
        ("select @1 @2", "select 1 2"),
        ("sound YES 3", "sound yes @3"),
        ("WORLD", "world"),
        ("savelot x.lot ; keep", "savelot x.lot"),
        ("?", "help"),
        ("play   sounds/a b.wav  ", "play sounds/a b.wav"),
        ("play 0x64", "play 0x64"),
        ("why vox greet # the greeting", "why vox_greet"),
        ("WHY @@3", "why @3"),
        ("why @+4", "why @4"),
    ] {
        let command = parse(typed)
            .unwrap_or_else(|e| panic!("{typed}: {e}"))
            .unwrap_or_else(|| panic!("{typed}: no command"));
        assert_eq!(command.to_string(), printed, "{typed}");
        assert_round_trip(&command);
    }
}

/// An event name as the grammar reads one: a word, not starting with `@`.
fn event_name() -> impl Strategy<Value = String> {
    "[A-Za-z0-9_.é-][A-Za-z0-9_.@é-]{0,24}"
}

/// A finite number, often a small one with a fraction.
fn number() -> impl Strategy<Value = f32> {
    prop_oneof![
        -100.0f32..100.0,
        any::<f32>().prop_filter("finite", |v| v.is_finite()),
    ]
}

/// A `play` target: the rest of a line, without comments or surrounding whitespace.
fn play_target() -> impl Strategy<Value = String> {
    "[^#;\\s\\p{C}]([^#;\\p{C}]{0,30}[^#;\\s\\p{C}])?"
}

fn engine_command() -> impl Strategy<Value = Command> {
    let targets = [
        TraceTarget::Events,
        TraceTarget::Samples,
        TraceTarget::Tracks,
        TraceTarget::All,
    ];
    let volumes = [
        VolumeTarget::Group(ControlGroup::Fx),
        VolumeTarget::Group(ControlGroup::Music),
        VolumeTarget::Group(ControlGroup::Vox),
        VolumeTarget::Master,
    ];
    prop_oneof![
        (event_name(), proptest::option::of(any::<ObjectId>()))
            .prop_map(|(name, object)| Command::SoundEvent { name, object }),
        event_name().prop_map(|name| Command::UiSound { name }),
        any::<ObjectId>().prop_map(Command::Quiet),
        Just(Command::QuietAll),
        Just(Command::Stop),
        any::<ObjectId>().prop_map(Command::Control),
        (any::<ObjectId>(), 0u8..32, any::<i32>()).prop_map(|(object, field, value)| {
            Command::Field {
                object,
                field,
                value,
            }
        }),
        (proptest::sample::select(targets.to_vec()), any::<bool>())
            .prop_map(|(target, on)| Command::Trace { target, on }),
        (proptest::sample::select(volumes.to_vec()), 0.0f32..=4.0)
            .prop_map(|(target, value)| Command::Volume { target, value }),
        Just(Command::Help(None)),
        proptest::sample::select(COMMANDS.iter().map(|s| s.name).collect::<Vec<_>>())
            .prop_map(|name| Command::Help(Some(name.to_owned()))),
        Just(Command::Reload),
        proptest::sample::select(debug_samples()).prop_map(Command::Debug),
        play_target().prop_map(Command::Play),
        event_name().prop_map(|name| Command::Why(Subject::Event(name))),
        any::<ObjectId>().prop_map(|object| Command::Why(Subject::Object(object))),
    ]
}

/// One of each debugger command, with conditions of every comparison.
fn debug_samples() -> Vec<DebugCommand> {
    use crate::runtime::debug::{BreakAt, CmpOp, Condition, StepKind};
    use crate::runtime::engine::GoOn;
    let mut out = vec![
        DebugCommand::Break {
            at: BreakAt::Line {
                file: "piano.src".into(),
                line: 31,
            },
            condition: None,
        },
        DebugCommand::Break {
            at: BreakAt::Track("piano_play".into()),
            condition: None,
        },
        DebugCommand::BreakOnFault(true),
        DebugCommand::BreakOnFault(false),
        DebugCommand::List,
        DebugCommand::Delete(None),
        DebugCommand::Delete(Some(3)),
        DebugCommand::Enable(2, true),
        DebugCommand::Enable(2, false),
        DebugCommand::Regs,
        DebugCommand::Set {
            register: "v1".into(),
            value: -7,
        },
    ];
    for how in [
        GoOn::Continue,
        GoOn::Step(StepKind::Instruction),
        GoOn::Step(StepKind::Into),
        GoOn::Step(StepKind::Over),
        GoOn::Step(StepKind::ToWait),
    ] {
        out.push(DebugCommand::GoOn(how));
    }
    for (_, op) in CmpOp::ALL {
        out.push(DebugCommand::Break {
            at: BreakAt::Line {
                file: "sub/dir/baby.src".into(),
                line: 7,
            },
            condition: Some(Condition {
                register: "arg2".into(),
                op,
                value: i32::MIN,
            }),
        });
    }
    out
}

fn world_command() -> impl Strategy<Value = WorldCommand> {
    prop_oneof![
        (number(), number()).prop_map(|(x, y)| WorldCommand::View { x, y }),
        (number(), number()).prop_map(|(dx, dy)| WorldCommand::Scroll { dx, dy }),
        prop_oneof![
            Just(ZoomStep::In),
            Just(ZoomStep::Out),
            (1u8..=3).prop_map(ZoomStep::Level)
        ]
        .prop_map(WorldCommand::Zoom),
        prop_oneof![
            Just(Turn::Left),
            Just(Turn::Right),
            (0u8..4).prop_map(Turn::To)
        ]
        .prop_map(WorldCommand::Rotate),
        any::<i32>().prop_map(WorldCommand::Floor),
        (0.0f32..=24.0).prop_map(WorldCommand::Hour),
        proptest::sample::select(MusicMode::ALL.to_vec()).prop_map(WorldCommand::Mode),
        (
            any::<ObjectId>(),
            number(),
            number(),
            proptest::option::of(any::<i32>())
        )
            .prop_map(|(object, x, y, floor)| WorldCommand::Move {
                object,
                x,
                y,
                floor
            }),
        number().prop_map(|tiles| WorldCommand::Room(tiles.abs())),
        prop_oneof![
            (any::<ObjectId>(), any::<u32>())
                .prop_map(|(object, station)| WorldCommand::TurnOn { object, station }),
            any::<ObjectId>().prop_map(|object| WorldCommand::TurnOff { object }),
            prop::collection::vec(any::<ObjectId>(), 1..4).prop_map(WorldCommand::Select),
            ("[a-z][a-z0-9_]{0,8}", prop::option::of(any::<ObjectId>()))
                .prop_map(|(name, object)| WorldCommand::Sound { name, object }),
            Just(WorldCommand::Describe),
            proptest::option::of("[^#;\\s\\p{C}]{1,30}".prop_map(PathBuf::from))
                .prop_map(WorldCommand::SaveLot),
        ],
    ]
}

proptest! {
    #[test]
    fn generated_commands_read_back_the_same(
        command in prop_oneof![engine_command(), world_command().prop_map(Command::World)]
    ) {
        let line = command.to_string();
        prop_assert_eq!(parse(&line), Ok(Some(command)), "`{}`", line);
    }
}
