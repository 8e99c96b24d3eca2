//! The mixer's loudness meters (what the Mixer panel shows) against the render's own
//! EBU R 128 measurement (`hitbench render --loudness`, the `ebur128` crate) over the
//! whole demo tour: the largest short-term and momentary loudness the output meter
//! showed agree within 0.5 LU.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use engine_core::host::command::parse_script;
use engine_core::host::keyframe::Keyframe;
use engine_core::host::offline::{RenderOptions, Taps, render_tapped};
use engine_core::toolchain::project::Project;
use std::path::Path;

#[test]
fn the_output_meter_agrees_with_the_renders_loudness_on_the_demo_tour() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../projects/demo");
    let project = Project::load(&root);
    let text = std::fs::read_to_string(root.join("tour.txt")).unwrap();
    let (script, problems) = parse_script(&text, &root.join("tour.txt"));
    assert!(problems.is_empty(), "{problems:#?}");
    let wav = std::env::temp_dir().join(format!("hitbench-meters-{}.wav", std::process::id()));
    let options = RenderOptions {
        loudness: true,
        ..RenderOptions::default()
    };
    let (mut short_term, mut momentary) = (f32::MIN, f32::MIN);
    let mut groups_heard = [false; 3];
    let mut keyframe = |k: Keyframe| {
        short_term = short_term.max(k.mixer.short_term[3]);
        momentary = momentary.max(k.mixer.momentary[3]);
        for (heard, level) in groups_heard.iter_mut().zip(k.mixer.short_term) {
            *heard |= level > -70.0;
        }
    };
    let mut records = |_| {};
    let taps = Taps {
        record: &mut records,
        keyframe: Some(&mut keyframe),
        progress: None,
    };
    let report = render_tapped(project, &script, &wav, options, taps).unwrap();
    let _ = std::fs::remove_file(&wav);
    let loudness = report.loudness.unwrap();
    let reference = loudness.max_short_term.db().unwrap();
    assert!(
        (f64::from(short_term) - reference).abs() < 0.5,
        "meter's largest short-term {short_term} LUFS, the render's {reference} LUFS"
    );
    // The momentary value moves fast and the keyframes look every 0.25 s: the meter's
    // largest reading is at most the render's and not far below it.
    let reference = loudness.max_momentary.db().unwrap();
    assert!(
        f64::from(momentary) < reference + 0.5 && f64::from(momentary) > reference - 3.0,
        "meter's largest momentary {momentary} LUFS, the render's {reference} LUFS"
    );
    assert_eq!(groups_heard, [true; 3], "the tour sounds in every group");
}
