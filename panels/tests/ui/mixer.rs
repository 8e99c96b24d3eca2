//! The Mixer panel under egui_kittest: sliders send `volume …` lines only when a change
//! is finished (not while dragging), the asked-for value stays until the engine shows
//! it, and the meters, output and load are shown.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use engine_core::host::command::{Command, VolumeTarget};
use engine_core::host::live::LiveSnapshot;
use engine_core::runtime::sink::ControlGroup;
use engine_core::sound::mixer::MixerSnapshot;
use engine_core::sound::server::MonitorTarget;
use panels::{ContextData, MixerPanel};

use crate::common;
type State = common::State<MixerPanel>;

fn mixer() -> MixerSnapshot {
    MixerSnapshot {
        master: 0.9,
        groups: [1.0, 0.8, 0.6],
        reverb: 0.35,
        peaks: [0.5, 0.25, 0.9, 0.71],
        position: 48_000 * 75,
        render_ns: 180_000,
        load: 0.018,
        voices: 6,
        underruns: 2,
        dropped: 0,
        clipped: 17,
        momentary: [-18.0, -30.0, -80.0, -16.5],
        short_term: [-20.0, -31.5, -120.0, -18.25],
        rms: [0.1, 0.05, 0.0, 0.2],
        overs: [0, 3, 0, 0],
    }
}

fn lit(harness: &Harness<'_, State>, name: &str) -> bool {
    harness
        .get_by_role_and_label(Role::Button, name)
        .accesskit_node()
        .toggled()
        == Some(egui::accesskit::Toggled::True)
}

#[test]
fn loudness_rms_and_clip_lights_show_and_a_clip_light_stays_until_clicked() {
    let mut harness = harness();
    harness.run();
    harness.get_by_label("M -18.0 LUFS");
    harness.get_by_label("S -20.0 LUFS");
    harness.get_by_label("S -18.2 LUFS");
    // Below −70 LUFS (VOX) reads as silence.
    harness.get_by_label("M -inf LUFS");
    harness.get_by_label("S -inf LUFS");
    harness.get_by_label("RMS -20.0 dB");
    harness.get_by_label("RMS -inf dB");
    // Music went over full scale, the output was soft-clipped: their lights are lit.
    assert!(lit(&harness, "Music clip") && lit(&harness, "Master clip"));
    assert!(!lit(&harness, "FX clip") && !lit(&harness, "VOX clip"));
    harness
        .get_by_role_and_label(Role::Button, "Music clip")
        .click();
    harness.run();
    harness.run();
    assert!(!lit(&harness, "Music clip"), "a click clears the light");
    assert!(lit(&harness, "Master clip"));
    // It stays clear until the bus goes over again.
    harness.run();
    assert!(!lit(&harness, "Music clip"));
    harness.state_mut().cx.live.mixer.overs[1] = 5;
    harness.run();
    assert!(lit(&harness, "Music clip"));
    assert!(harness.state().commands.is_empty(), "meters send nothing");
}

#[test]
fn mute_and_solo_per_group_send_their_commands_and_show_while_active() {
    let mut harness = harness();
    harness.run();
    // Nothing muted: the banner's row says so, its Clear all greyed (the row is always
    // there, so the strips never move).
    harness.get_by_label("Nothing muted or soloed");
    assert!(
        harness
            .get_by_label("Clear all")
            .accesskit_node()
            .is_disabled()
    );
    harness
        .get_by_role_and_label(Role::Button, "Mute music")
        .click();
    harness.run();
    harness
        .get_by_role_and_label(Role::Button, "Solo vox")
        .click();
    harness.run();
    let lines: Vec<String> = harness.state().commands.iter().map(common::line).collect();
    assert_eq!(lines, ["mute music", "solo vox"]);
    // The engine says Music is muted and VOX soloed: the toggles and the banner show it.
    let monitor = &mut harness.state_mut().cx.live.monitor;
    monitor.set(false, MonitorTarget::Group(ControlGroup::Music), true);
    monitor.set(true, MonitorTarget::Group(ControlGroup::Vox), true);
    harness.state_mut().commands.clear();
    harness.run();
    assert!(lit(&harness, "Mute music") && lit(&harness, "Solo vox"));
    assert!(!lit(&harness, "Mute fx") && !lit(&harness, "Solo music"));
    harness.get_by_label("muted: music; soloed: vox");
    harness.remove_cursor();
    harness.run();
    harness.snapshot("mixer_monitoring");
    // Clicking a lit toggle takes it back; Clear all clears everything.
    harness
        .get_by_role_and_label(Role::Button, "Mute music")
        .click();
    harness.run();
    harness.get_by_label("Clear all").click();
    harness.run();
    let lines: Vec<String> = harness.state().commands.iter().map(common::line).collect();
    assert_eq!(lines, ["mute music off", "monitor clear"]);
}

pub(crate) fn harness() -> Harness<'static, State> {
    let mut panel = MixerPanel::default();
    panel.output = "null output (no sound card)".into();
    let cx = ContextData {
        live: LiveSnapshot {
            now: engine_core::runtime::SampleTime::from_samples(48_000 * 75),
            mixer: mixer(),
            ..LiveSnapshot::default()
        },
        ..ContextData::default()
    };
    common::harness(panel, cx, egui::vec2(460.0, 420.0))
}

/// The volumes the panel set, as (target, value).
fn volumes(harness: &Harness<'_, State>) -> Vec<(VolumeTarget, f32)> {
    harness
        .state()
        .commands
        .iter()
        .map(|c| match common::engine_command(c) {
            Some(Command::Volume { target, value }) => (target, value),
            _ => panic!("unexpected command {c:?}"),
        })
        .collect()
}

#[test]
fn meters_output_and_load_are_shown() {
    let mut harness = harness();
    harness.run();
    harness.get_by_label("null output (no sound card)");
    harness.get_by_label("48000 Hz");
    // Peaks on a dB scale: FX 0.5 → −6 dB, Music 0.25 → −12 dB, master 0.71 → −3 dB.
    harness.get_by_label("peak -6.0 dB");
    harness.get_by_label("peak -12.0 dB");
    harness.get_by_label("peak -0.9 dB");
    harness.get_by_label("peak -3.0 dB");
    // Volumes with their gain in dB.
    harness.get_by_label("0.80 (-1.9 dB)");
    harness.get_by_label("0.90 (-0.9 dB)");
    harness.get_by_label("1.8 % (180 µs per block)");
    harness.get_by_label("17");
    harness.get_by_label("1:15.0");
    for name in ["FX volume", "Music volume", "VOX volume", "Master volume"] {
        harness.get_by_role_and_label(Role::Slider, name);
    }
    assert!(volumes(&harness).is_empty(), "nothing sent by just looking");
    harness.remove_cursor();
    harness.run();
    harness.snapshot("mixer");
}

#[test]
fn setting_a_slider_sends_one_volume_line() {
    let mut harness = harness();
    harness.run();
    harness
        .get_by_role_and_label(Role::Slider, "Music volume")
        .set_value_accesskit(0.5);
    harness.run();
    let music = VolumeTarget::Group(ControlGroup::Music);
    assert_eq!(volumes(&harness), [(music, 0.5)]);
    let lines: Vec<String> = harness.state().commands.iter().map(common::line).collect();
    assert_eq!(lines, ["volume music 0.5"]);
    // A few more frames send nothing more, and the slider keeps the value asked for
    // while the engine has not applied it yet.
    harness.run();
    harness.run();
    assert_eq!(volumes(&harness), [(music, 0.5)]);
    harness.get_by_label("0.50 (-6.0 dB)");
    // The engine applies it: the snapshot now says 0.5.
    harness.state_mut().cx.live.mixer.groups[1] = 0.5;
    harness.run();
    harness.get_by_label("0.50 (-6.0 dB)");
    // A change made elsewhere (the console) shows at once.
    harness.state_mut().cx.live.mixer.groups[1] = 0.25;
    harness.run();
    harness.get_by_label("0.25 (-12.0 dB)");
    assert_eq!(volumes(&harness).len(), 1);
}

#[test]
fn dragging_a_slider_sends_only_when_let_go() {
    let mut harness = harness();
    harness.run();
    let rect = harness
        .get_by_role_and_label(Role::Slider, "Master volume")
        .rect();
    let start = rect.center();
    let end = egui::pos2(start.x, rect.bottom() - 2.0);
    harness.hover_at(start);
    harness.run();
    harness.drag_at(start);
    harness.run();
    for step in 1..=4 {
        let t = step as f32 / 4.0;
        harness.hover_at(start.lerp(end, t));
        harness.run();
    }
    assert!(volumes(&harness).is_empty(), "nothing sent while dragging");
    harness.drop_at(end);
    harness.run();
    let sent = volumes(&harness);
    assert_eq!(sent.len(), 1, "{sent:?}");
    let (target, value) = sent[0];
    assert_eq!(target, VolumeTarget::Master);
    assert!(value < 0.2, "dragged to the bottom: {value}");
}

#[test]
fn decibels_and_meter_heights() {
    assert_eq!(panels::mixer::db_text(1.0), "0.0 dB");
    assert_eq!(panels::mixer::db_text(0.0), "-inf dB");
    assert_eq!(panels::mixer::meter_fraction(0.0), 0.0);
    assert_eq!(panels::mixer::meter_fraction(4.0), 1.0);
    let half = panels::mixer::meter_fraction(0.5);
    assert!(half > 0.8 && half < 0.85, "{half}");
}
