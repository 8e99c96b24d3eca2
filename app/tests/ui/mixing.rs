//! Mute, solo and the meters in the workbench on the demo, with the live engine on the
//! null output: the Mixer's M and S per option group, the Voices panel's per slot, the
//! Lot view's per object; the status bar says what is monitored and clears it all; the
//! meters show the piano on the FX bus and its silence while VOX is soloed; a clip
//! light stays lit until clicked.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common::{open_demo, screenshot, show, type_line, until};
use egui::accesskit::Role;
use egui_kittest::kittest::Queryable;
use engine_core::runtime::sink::ControlGroup;
use engine_core::sound::server::MonitorTarget;
use hitbench::workbench::Workbench;
use hitbench::workbench::dock::Pane;

fn muted(wb: &Workbench, target: MonitorTarget) -> bool {
    wb.live().monitor.muted.contains(&target)
}

fn soloed(wb: &Workbench, target: MonitorTarget) -> bool {
    wb.live().monitor.soloed.contains(&target)
}

fn piano_slot(wb: &Workbench) -> Option<usize> {
    wb.live()
        .voice_slots
        .iter()
        .find(|v| v.occupant.as_ref().is_some_and(|o| o.track == 0x2200))
        .map(|v| v.slot)
}

#[test]
fn mute_and_solo_per_group_voice_and_object_show_in_the_status_bar_and_clear_all_at_once() {
    let (mut harness, _config) = open_demo("mixing-monitor");
    let fx = MonitorTarget::Group(ControlGroup::Fx);
    let vox = MonitorTarget::Group(ControlGroup::Vox);
    type_line(&mut harness, "sev piano play @1");
    until(&mut harness, "the piano plays", |wb| {
        piano_slot(wb).is_some()
    });
    until(
        &mut harness,
        "the FX meter and the piano's slot show it",
        |wb| {
            let slot = piano_slot(wb).unwrap_or(usize::MAX);
            let level = wb.live().voice_levels.get(slot).copied().unwrap_or(0.0);
            wb.live().mixer.rms[0] > 0.001 && wb.live().mixer.short_term[0] > -70.0 && level > 0.001
        },
    );

    // Mixer: mute FX, then solo VOX.
    show(&mut harness, Pane::Mixer);
    harness
        .get_by_role_and_label(Role::Button, "Mute fx")
        .click();
    harness.run();
    until(&mut harness, "FX is muted", |wb| muted(wb, fx));
    // The status bar, the Mixer and the console's reply say it.
    assert_eq!(harness.get_all_by_label("muted: fx").count(), 3);
    harness
        .get_by_role_and_label(Role::Button, "Solo vox")
        .click();
    harness.run();
    until(&mut harness, "VOX is soloed", |wb| soloed(wb, vox));
    until(
        &mut harness,
        "the FX bus and the piano's slot fall silent while VOX is soloed",
        |wb| {
            let slot = piano_slot(wb).unwrap_or(usize::MAX);
            let level = wb.live().voice_levels.get(slot).copied().unwrap_or(1.0);
            wb.live().mixer.rms[0] < 1e-5 && level < 1e-6
        },
    );
    assert!(
        harness
            .state()
            .live()
            .voice_slots
            .iter()
            .any(|v| v.occupant.is_some()),
        "monitoring changes what is heard, not what plays"
    );
    assert_eq!(
        harness.get_all_by_label("muted: fx; soloed: vox").count(),
        3
    );
    screenshot(&mut harness, "mixer-monitoring.png");

    // Voices: mute the piano's slot.
    show(&mut harness, Pane::Voices);
    let slot = piano_slot(harness.state()).unwrap();
    harness
        .get_by_role_and_label(Role::Button, &format!("Mute voice {slot}"))
        .click();
    harness.run();
    until(&mut harness, "the piano's voice slot is muted", |wb| {
        muted(wb, MonitorTarget::Voice(slot))
    });

    // Lot view: solo what Bob (object 1) says.
    show(&mut harness, Pane::Lot);
    harness
        .get_by_role_and_label(Role::Button, "Bob Newbie")
        .click();
    harness.run();
    harness
        .get_by_role_and_label(Role::Button, "Solo object 1")
        .click();
    harness.run();
    until(&mut harness, "Bob is soloed", |wb| {
        soloed(wb, MonitorTarget::Object(1))
    });

    // One Clear all undoes everything; the banner goes.
    harness
        .get_all_by_label("Clear all")
        .next()
        .unwrap()
        .click();
    harness.run();
    until(&mut harness, "nothing is monitored", |wb| {
        !wb.live().monitor.is_active()
    });
    assert!(harness.query_by_label("Clear all").is_none());
    until(
        &mut harness,
        "the piano is heard again on the FX meter",
        |wb| wb.live().mixer.rms[0] > 0.001,
    );
}
