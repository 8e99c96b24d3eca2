//! One word for each decision: a trace holding one trigger of every
//! kind of Box-X / one-copy decision, read by the Traces panel — filtered by decision kind,
//! each kind's toggle named by its word and its rows' sentences starting with it — and by
//! the Why panel, whose tag on each decision is the same word.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use egui_kittest::kittest::{NodeT, Queryable};
use engine_core::runtime::trace::{Occupant, TraceEvent, VoiceTable};
use engine_core::runtime::{DecisionKind, HookEvent, SampleTime, TraceKind, TraceRecord};
use panels::{ContextData, TracesPanel, WhyPanel, WhyTarget};
use std::collections::VecDeque;
use std::sync::Arc;

use crate::common;

/// The event of the trigger decided as `kind`: `ev_started`, `ev_already_playing`, ….
fn event_of(kind: DecisionKind) -> String {
    format!("ev_{}", kind.name().replace(' ', "_"))
}

/// A trigger at `seconds` that was decided as `kind`, and a note record about something
/// else (no decision) after it.
fn trigger(kind: DecisionKind, seconds: u64) -> [TraceRecord; 2] {
    use DecisionKind as D;
    use TraceEvent as E;
    let time = SampleTime::from_samples(seconds * 48_000);
    let event = event_of(kind);
    let track: Arc<str> = Arc::from(format!("t_{event}"));
    let lowest = Occupant {
        voice: 1,
        track: Arc::from("t_low"),
        priority: 10,
        age: 4800,
    };
    let occupants = VoiceTable::of(std::slice::from_ref(&lowest), time);
    let what = match kind {
        D::Started => E::Started {
            track: Arc::clone(&track),
            voice: 0,
            priority: 20,
            in_use: 2,
            capacity: 4,
        },
        D::Stole => E::Stole {
            track: Arc::clone(&track),
            priority: 20,
            victim: lowest,
            occupants,
            capacity: 2,
        },
        D::Refused => E::Refused {
            track: Arc::clone(&track),
            priority: 5,
            lowest,
            occupants,
            capacity: 2,
        },
        D::Joined => E::Joined {
            object: 2,
            track: Arc::clone(&track),
            voice: 0,
            owners: vec![1, 2],
        },
        D::AlreadyPlaying => E::AlreadyPlaying {
            track: Arc::clone(&track),
            voice: 0,
        },
        D::TookOver => E::Interrupted {
            track: Arc::clone(&track),
            voice: 0,
            finish_loops: false,
        },
        D::NoTrack => E::NoTrack {
            event: Arc::from(event.as_str()),
            track_id: 0x99,
        },
        D::UnknownEvent => E::UnknownEvent {
            name: Arc::from(event.as_str()),
        },
        D::World => E::HandedToWorld(HookEvent::TurnOn {
            event: event.clone(),
            station: 28,
            object: Some(4),
        }),
    };
    let mut decided = TraceRecord::new(time, TraceKind::Voice, what);
    decided.event = Some(Arc::from(event.as_str()));
    decided.track = Some(track);
    decided.object = Some(2);
    let other = TraceRecord::new(
        time,
        TraceKind::Print,
        E::Print {
            name: "v1".into(),
            value: 3,
            place: None,
        },
    );
    [decided, other]
}

/// One trigger of every kind, a second apart.
fn trace() -> VecDeque<TraceRecord> {
    DecisionKind::ALL
        .iter()
        .zip(1..)
        .flat_map(|(kind, seconds)| trigger(*kind, seconds))
        .collect()
}

#[test]
fn traces_filter_by_decision_kind_named_by_its_one_word() {
    let cx = ContextData {
        trace: trace(),
        ..ContextData::default()
    };
    let all = cx.trace.len();
    let mut harness =
        common::harness_in_panel(TracesPanel::default(), cx, egui::vec2(1000.0, 700.0));
    harness.run();
    // The filter's menu, open while its boxes are ticked.
    harness.get_by_label("Decisions: any").click();
    harness.run();
    for kind in DecisionKind::ALL {
        let word = kind.name();
        harness.get_by_label(word).click();
        harness.run();
        harness.run();
        harness.get_by_label_contains(&format!("Showing 1 of {all} record(s)"));
        // The one row left is the trigger decided so, and its sentence starts with the word.
        let event = event_of(kind);
        let text = harness
            .get_by_label_contains(&event)
            .accesskit_node()
            .label()
            .unwrap_or_default();
        assert!(
            text.contains(&format!("object=2 {word}")),
            "{kind:?}: the row says `{text}`"
        );
        // Its toggle off again: every record.
        harness.get_by_label(word).click();
        harness.run();
        harness.run();
        harness.get_by_label_contains(&format!("Showing {all} of {all} record(s)"));
    }
    // Two kinds at once: the records of either.
    harness.get_by_label(DecisionKind::Stole.name()).click();
    harness.get_by_label(DecisionKind::Refused.name()).click();
    harness.run();
    harness.run();
    harness.get_by_label_contains(&format!("Showing 2 of {all} record(s)"));
    harness.get_by_label("Decisions: stole, refused");
    let filter = &harness.state().panel.filter;
    let shown: Vec<_> = harness
        .state()
        .cx
        .trace
        .iter()
        .filter(|r| filter.matches(r))
        .filter_map(|r| r.what.decision())
        .collect();
    assert_eq!(shown, [DecisionKind::Stole, DecisionKind::Refused]);
}

#[test]
fn why_tags_each_decision_with_the_word_the_trace_uses() {
    for kind in DecisionKind::ALL {
        let mut panel = WhyPanel::default();
        panel.target = Some(WhyTarget::Event(event_of(kind)));
        let cx = ContextData {
            trace: trace(),
            ..ContextData::default()
        };
        let mut harness = common::harness_in_panel(panel, cx, egui::vec2(800.0, 500.0));
        harness.run();
        let decisions = harness.state().panel.decisions();
        assert_eq!(decisions.len(), 1, "{kind:?}");
        assert_eq!(decisions[0].verdict.kind(), kind);
        harness.get_by_label(kind.name());
        harness.get_by_label_contains(&decisions[0].verdict.sentence());
    }
}
