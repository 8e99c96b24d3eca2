//! The Why panel under egui_kittest, on a hand-built trace of a four-voice engine: a
//! refusal lists every voice compared with the lowest highlighted; a played note shows
//! its gain as the product of its named contributions (track volume, the view's fade,
//! zoom and floor, ducking, option group, master), each with its dB, and its pan with
//! where it came from; a silent note says which factor silenced it; targets by event,
//! object, voice and record pick the right decisions, newest first, and records arriving
//! later are picked up.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use engine_core::runtime::ControlGroup;
use engine_core::runtime::trace::{
    EndReason, ExternalVolume, GainParts, Occupant, PanParts, PanSource, ScreenArea, TraceEvent,
    ViewLevels, VoiceTable,
};
use engine_core::runtime::{Gain, Pan, SampleTime, TraceKind, TraceRecord, TraceSwitches};
use engine_core::tools::why::Verdict;
use panels::{ContextData, WhyPanel, WhyTarget};
use std::collections::VecDeque;
use std::sync::Arc;

use crate::common;
type State = common::State<WhyPanel>;

const RATE: f64 = 48_000.0;

fn at(seconds: f64) -> SampleTime {
    SampleTime::from_samples((seconds * RATE) as u64)
}

/// A record about `event`'s track `track` from `object` on `voice`.
fn rec(
    seconds: f64,
    kind: TraceKind,
    (event, track, object): (&str, &str, Option<i32>),
    voice: Option<usize>,
    what: TraceEvent,
) -> TraceRecord {
    TraceRecord {
        time: at(seconds),
        kind,
        event: Some(Arc::from(event)),
        track: Some(Arc::from(track)),
        object,
        voice,
        note: None,
        what,
    }
}

fn started(
    seconds: f64,
    who: (&str, &str, Option<i32>),
    voice: usize,
    priority: i32,
) -> TraceRecord {
    let what = TraceEvent::Started {
        track: Arc::from(who.1),
        voice,
        priority,
        in_use: voice + 1,
        capacity: 4,
    };
    rec(seconds, TraceKind::Voice, who, Some(voice), what)
}

/// The view's factors of an object at screen x 768 of 1024 (pan R 0.50).
fn view(area: ScreenArea, fade: f32, zoom: f32) -> ViewLevels {
    ViewLevels {
        area,
        fade: Gain::new(fade),
        zoom: Gain::new(zoom),
        floor: Gain::UNITY,
        screen_x: 768.0,
        screen_width: 1024.0,
        pan_range: 1.0,
    }
}

/// A note with the gain `gain`; its pan is R 0.50, from the screen when the view
/// decided its volume, else as triggered.
fn note(
    seconds: f64,
    who: (&str, &str, Option<i32>),
    voice: usize,
    gain: GainParts,
) -> TraceRecord {
    let source = match gain.external {
        ExternalVolume::View { factors, .. } => PanSource::Screen(factors),
        _ => PanSource::Trigger,
    };
    let what = TraceEvent::NoteStarted {
        note: 1,
        patch: 0x2041,
        patch_name: Arc::from("greet"),
        sample: Arc::from(format!("{}.wav", who.1)),
        gain: Box::new(gain),
        pan: Box::new(PanParts {
            value: Pan::new(0.5),
            source,
        }),
        looping: false,
        cents: 0,
    };
    rec(seconds, TraceKind::Sample, who, Some(voice), what)
}

/// Betty's greeting: track volume 0.75, half faded, zoom 0.875, in the VOX group at 0.5
/// with the master at 0.8.
fn greeting_gain() -> GainParts {
    GainParts {
        track_volume: Gain::new(0.75),
        external: ExternalVolume::View {
            factors: view(ScreenArea::Fading, 0.5, 0.875),
            volume: Gain::new(0.4375),
        },
        ducking: Gain::UNITY,
        group: ControlGroup::Vox,
        group_volume: Gain::new(0.5),
        master: Gain::new(0.8),
    }
}

/// The TV, past the silent edge.
fn tv_gain() -> GainParts {
    GainParts {
        track_volume: Gain::UNITY,
        external: ExternalVolume::View {
            factors: view(ScreenArea::Silent, 0.0, 1.0),
            volume: Gain::SILENT,
        },
        ducking: Gain::UNITY,
        group: ControlGroup::Fx,
        group_volume: Gain::UNITY,
        master: Gain::UNITY,
    }
}

/// The baby, a UI-style trigger at 0.8, ducked to half.
fn baby_gain() -> GainParts {
    GainParts {
        track_volume: Gain::UNITY,
        external: ExternalVolume::Trigger(Gain::new(0.8)),
        ducking: Gain::new(0.5),
        group: ControlGroup::Fx,
        group_volume: Gain::UNITY,
        master: Gain::UNITY,
    }
}

fn occupant(voice: usize, track: &str, priority: i32, seconds: f64) -> Occupant {
    Occupant {
        voice,
        track: Arc::from(track),
        priority,
        age: (seconds * RATE) as u64,
    }
}

const GREET: (&str, &str, Option<i32>) = ("vox_greet", "vox_greet_adult", Some(2));
const TV: (&str, &str, Option<i32>) = ("tv_on", "tv_news", Some(4));
const MUSIC: (&str, &str, Option<i32>) = ("music_live", "music_a", Some(3));
const PIANO: (&str, &str, Option<i32>) = ("piano_play", "piano_skill2", Some(5));
const PHONE: (&str, &str, Option<i32>) = ("sfx_phone_ring", "phone_ring", Some(9));
const BABY: (&str, &str, Option<i32>) = ("baby_cry", "baby_cry", Some(21));

/// Four voices: Betty greets (a pick, a note heard at 0.131), the TV comes on silent (outside
/// the fade), music and the piano fill the voices, the phone is refused at 5 s, and the
/// baby steals the TV's voice at 6 s.
fn trace() -> VecDeque<TraceRecord> {
    let occupants = vec![
        occupant(0, "vox_greet_adult", 20, 4.0),
        occupant(1, "tv_news", 15, 3.0),
        occupant(2, "music_a", 40, 2.0),
        occupant(3, "piano_skill2", 30, 1.5),
    ];
    let pick = TraceEvent::Pick {
        list: 18,
        index: 2,
        value: 3,
        excluded: vec![5],
    };
    vec![
        started(1.0, GREET, 0, 20),
        rec(1.0, TraceKind::Pick, GREET, Some(0), pick),
        note(1.0, GREET, 0, greeting_gain()),
        started(2.0, TV, 1, 15),
        note(2.0, TV, 1, tv_gain()),
        started(3.0, MUSIC, 2, 40),
        started(3.5, PIANO, 3, 30),
        rec(
            5.0,
            TraceKind::Voice,
            PHONE,
            None,
            TraceEvent::Refused {
                track: Arc::from("phone_ring"),
                priority: 5,
                lowest: occupants[1].clone(),
                occupants: VoiceTable::of(&occupants, at(5.0)),
                capacity: 4,
            },
        ),
        rec(
            6.0,
            TraceKind::Voice,
            BABY,
            Some(1),
            TraceEvent::Stole {
                track: Arc::from("baby_cry"),
                priority: 50,
                victim: occupant(1, "tv_news", 15, 4.0),
                occupants: VoiceTable::of(&occupants, at(6.0)),
                capacity: 4,
            },
        ),
        rec(
            6.0,
            TraceKind::Track,
            TV,
            Some(1),
            TraceEvent::Ended(EndReason::Stolen),
        ),
        started(6.0, BABY, 1, 50),
        note(6.0, BABY, 1, baby_gain()),
    ]
    .into()
}

pub(crate) fn harness_on(target: WhyTarget) -> Harness<'static, State> {
    harness_after(target, 0)
}

/// The same, `dropped` records having left the front of the trace before.
fn harness_after(target: WhyTarget, dropped: u64) -> Harness<'static, State> {
    let mut cx = ContextData {
        trace: trace(),
        trace_dropped: dropped,
        ..ContextData::default()
    };
    cx.live.trace_switches = TraceSwitches::ALL;
    let mut panel = WhyPanel::default();
    panel.target = Some(target);
    common::harness_in_panel(panel, cx, egui::vec2(760.0, 560.0))
}

fn shows(harness: &Harness<'_, State>, text: &str) -> usize {
    harness.query_all_by_label_contains(text).count()
}

#[test]
fn a_refusal_lists_every_voice_compared_with_the_lowest_highlighted() {
    let mut harness = harness_on(WhyTarget::Event("sfx_phone_ring".into()));
    harness.run();
    harness.get_by_label("Why: event `sfx_phone_ring`");
    harness.get_by_label("refused");
    harness.get_by_label_contains(
        "refused: all 4 voices busy and its priority 5 is not above the lowest playing, \
         `tv_news` on voice 1 with priority 15",
    );
    harness.get_by_label("Voices compared:");
    for header in ["Voice", "Track", "Priority", "Age"] {
        harness.get_by_label(header);
    }
    for (track, priority, age) in [
        ("vox_greet_adult", "20", "4.00 s"),
        ("tv_news", "15", "3.00 s"),
        ("music_a", "40", "2.00 s"),
        ("piano_skill2", "30", "1.50 s"),
    ] {
        harness.get_by_label(track);
        harness.get_by_label(priority);
        harness.get_by_label(age);
    }
    // One row is the lowest: the TV's, which the phone would have had to beat.
    assert_eq!(
        shows(&harness, "lowest"),
        2,
        "the sentence and the row's mark"
    );
    harness.get_by_label("· not heard");
    let decisions = harness.state().panel.decisions();
    assert_eq!(decisions.len(), 1);
    assert!(matches!(
        decisions[0].verdict,
        Verdict::Refused { priority: 5, .. }
    ));
}

#[test]
fn a_played_note_shows_its_factors_multiplying_to_its_gain() {
    let mut harness = harness_on(WhyTarget::Event("VOX_GREET".into()));
    harness.run();
    harness.get_by_label("started");
    harness.get_by_label("· heard");
    harness.get_by_label_contains("started on free voice 0 (priority 20");
    harness.get_by_label("hit list 18: picked 3; excluded 5 (picked last time)");
    harness.get_by_label("note at 1.000 s: `vox_greet_adult.wav` (patch 8257)");
    let rows = [
        ("track volume", "0.750", "-2.5 dB"),
        ("fade (fading)", "0.500", "-6.0 dB"),
        ("zoom", "0.875", "-1.2 dB"),
        ("floor", "1.000", "+0.0 dB"),
        ("ducking", "1.000", "+0.0 dB"),
        ("group VOX", "0.500", "-6.0 dB"),
        ("master", "0.800", "-1.9 dB"),
    ];
    let mut product = 1.0;
    for (name, value, db) in rows {
        harness.get_by_label(name);
        assert!(
            harness.query_all_by_label(value).count() >= 1,
            "{name} {value}"
        );
        assert!(harness.query_all_by_label(db).count() >= 1, "{name} {db}");
        product *= value.parse::<f64>().unwrap();
    }
    // One row per factor, each after the first behind a ×; no other factor is shown.
    assert_eq!(harness.get_all_by_label("×").count(), rows.len() - 1);
    assert_eq!(shows(&harness, "trigger volume"), 0);
    harness.get_by_label("=");
    harness.get_by_label("gain");
    harness.get_by_label("0.131");
    harness.get_by_label("-17.6 dB");
    // The factors shown multiply to the gain shown (to its three decimals).
    assert!((product - 0.131).abs() < 0.0005, "{product}");
    harness.get_by_label("pan");
    harness.get_by_label("R 0.50");
    harness.get_by_label("from the screen (x 768 of 1024 px, pan range 1.00)");
    assert_eq!(shows(&harness, "inaudible"), 0);
}

#[test]
fn a_silent_note_says_which_factor_silenced_it() {
    let mut harness = harness_on(WhyTarget::Object(4));
    harness.run();
    harness.get_by_label("started");
    assert_eq!(
        harness.get_all_by_label("silent").count(),
        2,
        "the factor and the gain"
    );
    harness.get_by_label("fade (silent)");
    harness.get_by_label_contains(
        "inaudible: fade (silent) is 0: the object is outside the view's fade",
    );
    harness.get_by_label("ended at 6.000 s: its voice was stolen");
}

#[test]
fn a_voice_shows_what_played_on_it_stole_it_and_was_refused_over_it_newest_first() {
    let mut harness = harness_on(WhyTarget::Voice(1));
    harness.run();
    let events: Vec<&str> = harness
        .state()
        .panel
        .decisions()
        .iter()
        .map(|d| &*d.event)
        .collect();
    assert_eq!(events, ["baby_cry", "sfx_phone_ring", "tv_on"]);
    harness.get_by_label("3 decision(s), newest first");
    harness.get_by_label("stole");
    harness.get_by_label_contains("stole voice 1 from `tv_news`");
    // The thief's note: 1.0 × 0.8 × 0.5.
    harness.get_by_label("0.400");
}

#[test]
fn a_records_trigger_is_the_one_decision_it_belongs_to() {
    // Record 1 is the greeting's pick; the numbers count the records dropped before.
    let mut harness = harness_after(WhyTarget::Record(11), 10);
    harness.run();
    let decisions = harness.state().panel.decisions();
    assert_eq!(decisions.len(), 1);
    assert_eq!(&*decisions[0].event, "vox_greet");
    harness.get_by_label("Why: the trigger of trace record 11");
}

#[test]
fn records_arriving_later_are_picked_up() {
    let mut harness = harness_on(WhyTarget::Event("sfx_phone_ring".into()));
    harness.run();
    assert_eq!(harness.state().panel.decisions().len(), 1);
    let again = harness.state().cx.trace[7].clone();
    let mut later = again;
    later.time = at(7.0);
    harness.state_mut().cx.trace.push_back(later);
    harness.run();
    assert_eq!(harness.state().panel.decisions().len(), 2);
    harness.get_by_label("2 decision(s), newest first");
    assert_eq!(harness.state().panel.decisions()[0].time, at(7.0));
}

#[test]
fn without_a_target_it_says_how_to_pick_one() {
    let mut harness = common::harness(
        WhyPanel::default(),
        ContextData::default(),
        egui::vec2(600.0, 200.0),
    );
    harness.run();
    harness.get_by_label_contains("type `why <event>` or `why @object` in the console");
}

#[test]
fn snapshot_of_a_refusal_and_a_steal() {
    let mut harness = harness_on(WhyTarget::Voice(1));
    harness.run();
    harness.snapshot("why");
}

/// A looping track picks from its hit list on every round; the Why
/// panel folds the picks into one line ("40 hit-list picks"), so the note's gain
/// breakdown stays in view; unfolding lists them.
#[test]
fn a_looping_tracks_picks_are_folded_so_the_gain_stays_in_view() {
    let mut records: Vec<TraceRecord> = vec![started(1.0, GREET, 0, 20)];
    records.push(note(1.0, GREET, 0, greeting_gain()));
    for round in 0..40u32 {
        let pick = TraceEvent::Pick {
            list: 18,
            index: (round % 3) as usize,
            value: 100 + round % 3,
            excluded: vec![100 + (round + 2) % 3],
        };
        let seconds = 1.0 + f64::from(round) * 0.5;
        records.push(rec(seconds, TraceKind::Pick, GREET, Some(0), pick));
    }
    let mut cx = ContextData {
        trace: records.into(),
        ..ContextData::default()
    };
    cx.live.trace_switches = TraceSwitches::ALL;
    let mut panel = WhyPanel::default();
    panel.target = Some(WhyTarget::Event("vox_greet".into()));
    let height = 560.0;
    let mut harness = common::harness_in_panel(panel, cx, egui::vec2(760.0, height));
    harness.run();
    assert_eq!(harness.state().panel.decisions()[0].picks.len(), 40);
    // Folded: one line for the picks, the gain breakdown on screen.
    harness.get_by_label_contains("40 hit-list picks");
    assert!(
        shows(&harness, "hit list 18: picked") == 0,
        "the picks are folded"
    );
    let gain = harness.get_by_label("gain");
    assert!(
        gain.rect().bottom() <= height,
        "the gain breakdown is out of view at {:?}",
        gain.rect()
    );
    // Unfolded: every pick.
    harness.get_by_label_contains("40 hit-list picks").click();
    harness.run();
    harness.run();
    assert!(shows(&harness, "hit list 18: picked") >= 10);
}
