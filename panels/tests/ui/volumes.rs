//! Volumes in dB beside the raw value: every panel that shows or edits
//! a volume — the Properties panel's volume field and its saved value, the Browser's
//! tracks, the Voices panel's gains, the Lot view's object details, the track threads'
//! volume registers — shows its level in dB beside it, converted by the project's one
//! conversion (`Gain::from_hit_volume`, `Gain::db_text`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable;
use engine_core::runtime::Gain;
use engine_core::tools::properties::Property;
use panels::{SnapshotData, SnapshotDiff};

/// A HIT volume (0–1024) as a panel must show it: the value, its dB beside.
fn raw(volume: i32) -> String {
    format!("{volume} ({})", Gain::from_hit_volume(volume).db_text())
}

/// A gain (0–1, more amplifies) as a panel must show it: the factor, its dB beside.
fn factor(gain: f32) -> String {
    format!("{gain:.2} ({})", Gain::new(gain).db_text())
}

#[test]
fn every_raw_volume_is_shown_with_its_db_beside_it() {
    // Properties: the track's volume 512 being edited, saved 1024; snapshots A and B
    // differing in it.
    let snapshots = SnapshotData {
        stored: [Some(1), Some(1)],
        active: None,
        diff: vec![SnapshotDiff {
            target: "track 0x2200 piano_play".into(),
            property: Property::Volume,
            values: ["512".into(), "800".into()],
        }],
    };
    let mut properties = crate::properties::harness(crate::properties::track_sheet(), snapshots);
    properties.run();
    properties.get_by_label(&Gain::from_hit_volume(512).db_text());
    properties.get_by_label_contains(&format!("saved {}", raw(1024)));
    properties.get_by_label(&raw(512));
    properties.get_by_label(&raw(800));

    // Browser: each track's volume (the events folded, so the tracks are in view).
    let mut browser = crate::browser::harness();
    browser
        .state_mut()
        .panel
        .set_collapsed(panels::browser::Category::Events, true);
    browser.run();
    let tracks: Vec<(u32, i32)> = browser
        .state()
        .cx
        .project
        .tracks
        .values()
        .map(|t| (t.id, t.volume))
        .collect();
    let mut seen = 0;
    for (id, volume) in tracks {
        let name = format!("Play track 0x{id:x}");
        if browser
            .query_by_role_and_label(Role::Button, &name)
            .is_none()
        {
            continue; // scrolled out of view
        }
        seen += 1;
        assert!(
            browser
                .query_all_by_label_contains(&format!("volume {}", raw(volume)))
                .next()
                .is_some(),
            "track 0x{id:x}: volume {volume} without its dB"
        );
    }
    assert!(seen > 0, "no track in view");

    // Voices: each occupant's gain (the music at 0.70).
    let mut voices = crate::voices::harness();
    voices.run();
    voices.get_by_label(&factor(0.7));

    // Lot view: the selected TV's volume.
    let mut lot = crate::lot::harness();
    lot.run();
    lot.get_by_role_and_label(Role::Button, "Living room TV")
        .click();
    lot.run();
    let volume = crate::lot::object(&lot, 4).1.volume;
    let shown = format!("volume {}", factor(Gain::from_hit_volume(volume).get()));
    assert!(
        lot.query_all_by_label_contains(&shown).next().is_some(),
        "the Lot view does not say `{shown}`"
    );

    // Track threads: the `vol` register of the music thread (1024).
    let mut threads = crate::threads::harness(None);
    threads.run();
    threads.get_by_label("#0").click();
    threads.run();
    threads.get_by_label("vol");
    threads.get_by_label(&raw(1024));
}
