//! The ambience on a recording sink: the night loop following the hour, reverb in small
//! rooms, the freshness score at its tempo, freshness, 3D placement, on/off, and broken
//! scores (no audio needed: the commands tell).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use engine_core::runtime::SampleTime;
use engine_core::runtime::sink::{ControlGroup, RecordingSink, SoundCommand};
use engine_core::runtime::trace::AmbienceEvent;
use engine_core::toolchain::diag::Severity;
use engine_core::world::ambience::{Ambience, AmbienceSettings};
use engine_core::world::settings::WorldIni;
use engine_core::world::sound::NoteIds;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

const RATE: u32 = 48_000;
/// One tick of 10 ms.
const TICK: u64 = 480;

/// A temporary project folder with short generated WAVs.
struct Project(PathBuf);

impl Project {
    fn new(tag: &str, wavs: &[&str], files: &[(&str, &str)], ini: &str) -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "hitbench-ambience-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for wav in wavs {
            let path = dir.join(wav);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            write_wav(&path);
        }
        for (name, text) in files {
            let path = dir.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        std::fs::write(dir.join("world.ini"), ini).unwrap();
        Self(dir)
    }

    fn dirs(&self) -> Vec<PathBuf> {
        vec![self.0.clone()]
    }

    fn settings(&self) -> AmbienceSettings {
        let (ini, problems) = WorldIni::load(&self.dirs());
        assert!(problems.is_empty(), "{problems:?}");
        let (settings, problems) = AmbienceSettings::from_ini(&ini);
        assert!(problems.is_empty(), "{problems:?}");
        settings
    }

    fn ambience(&self, seed: u64) -> Ambience {
        let (ambience, problems) = Ambience::new(self.settings(), &self.dirs(), seed, RATE);
        assert!(problems.is_empty(), "{problems:?}");
        ambience
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A 10 ms mono 16-bit sine.
fn write_wav(path: &Path) {
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: RATE,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut writer = hound::WavWriter::create(path, spec).unwrap();
    for i in 0..480 {
        let v = (f32::sin(i as f32 * 0.1) * 8000.0) as i16;
        writer.write_sample(v).unwrap();
    }
    writer.finalize().unwrap();
}

/// A score: header with `tempo`, `beats` per bar and `cols` steps, then the rows.
fn score(tempo: u32, beats: u32, cols: u32, rows: &[String]) -> String {
    let mut text = format!(
        "version 7\n# vol pri min max rows cols tempo BPB SelX SelY QuanX QuanY DifX DifY\n\
         test\t1024\t1\t0\t0\t{}\t{cols}\t{tempo}\t{beats}\t0\t0\t-\t-\t0\t0\n",
        rows.len()
    );
    for row in rows {
        text.push_str(row);
        text.push('\n');
    }
    text
}

/// What a note row says, with defaults for the rest.
#[derive(Clone)]
struct R {
    label: &'static str,
    volume: i32,
    lr: i32,
    fb: i32,
    step: i32,
    every: i32,
    probability: i32,
    loop_count: i32,
    loop_flag: i32,
    group: i32,
    stereo: i32,
    fade_in: i32,
    file: &'static str,
}

impl R {
    fn new(label: &'static str, file: &'static str) -> Self {
        Self {
            label,
            volume: 1024,
            lr: 512,
            fb: 512,
            step: 0,
            every: 0,
            probability: 100,
            loop_count: 0,
            loop_flag: 0,
            group: 0,
            stereo: 0,
            fade_in: 0,
            file,
        }
    }

    fn text(&self) -> String {
        // label vol rand LR FB rand2 fin fout dly rand3 loop loop? quant prob pL pH fast
        // group stereo file
        format!(
            "{}\t{}\t0\t{}\t{}\t0\t{}\t100\t{}\t0\t{}\t{}\t{}\t{}\t1.0\t1.0\t0\t{}\t{}\t{}",
            self.label,
            self.volume,
            self.lr,
            self.fb,
            self.fade_in,
            self.step,
            self.loop_count,
            self.loop_flag,
            self.every,
            self.probability,
            self.group,
            self.stereo,
            self.file
        )
    }
}

/// A decoded Start.
#[derive(Debug, Clone, PartialEq)]
struct Start {
    note: u64,
    at: u64,
    file: String,
    gain: f32,
    pan: f32,
    looping: bool,
    reverb: bool,
    group: ControlGroup,
}

fn starts(sink: &RecordingSink) -> Vec<Start> {
    sink.commands
        .iter()
        .filter_map(|c| match c {
            SoundCommand::Start {
                note,
                at,
                sample,
                gain,
                pan,
                looping,
                reverb,
                group,
                ..
            } => Some(Start {
                note: *note,
                at: (*at).samples(),
                file: Path::new(sample.path.as_ref())
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
                gain: gain.get(),
                pan: pan.get(),
                looping: *looping,
                reverb: *reverb,
                group: *group,
            }),
            _ => None,
        })
        .collect()
}

fn stop_at(sink: &RecordingSink, note: u64) -> Option<u64> {
    sink.commands.iter().find_map(|c| match c {
        SoundCommand::Stop { note: n, at } if *n == note => Some(at.samples()),
        _ => None,
    })
}

fn gains(sink: &RecordingSink, note: u64) -> Vec<(u64, f32, u32)> {
    sink.commands
        .iter()
        .filter_map(|c| match c {
            SoundCommand::SetGain {
                note: n,
                at,
                gain,
                ramp,
            } if *n == note => Some((at.samples(), gain.get(), *ramp)),
            _ => None,
        })
        .collect()
}

/// Updates tick by tick over `[from, until)`.
/// The ambience's news as the trace prints it.
fn sentences(news: Vec<AmbienceEvent>) -> Vec<String> {
    news.iter().map(ToString::to_string).collect()
}

fn run(
    ambience: &mut Ambience,
    from: u64,
    until: u64,
    sink: &mut RecordingSink,
    ids: &mut NoteIds,
) {
    let mut t = from;
    while t < until {
        ambience.update(
            SampleTime::from_samples(t),
            SampleTime::from_samples(t + TICK),
            sink,
            ids,
        );
        t += TICK;
    }
}

const NIGHT_INI: &str = "[Ambience]\nNightLoop = amb/crickets.wav\n";

#[test]
fn the_night_loop_plays_from_six_in_the_evening_to_six_in_the_morning() {
    let project = Project::new("night", &["amb/crickets.wav"], &[], NIGHT_INI);
    let mut ambience = project.ambience(1);
    let (mut sink, mut ids) = (RecordingSink::default(), NoteIds::default());
    ambience.set_enabled(true, SampleTime::from_samples(0), &mut sink, &mut ids);
    ambience.set_hour(17.0, SampleTime::from_samples(100), &mut sink, &mut ids);
    assert!(sink.commands.is_empty(), "{:?}", sink.commands);
    assert!(!ambience.describe().night);

    // No updates between the hour changes: the game sits idle.
    ambience.set_hour(18.0, SampleTime::from_samples(1000), &mut sink, &mut ids);
    let s = starts(&sink);
    assert_eq!(s.len(), 1, "{s:?}");
    let looped = &s[0];
    assert_eq!(looped.file, "crickets.wav");
    assert!(looped.looping && !looped.reverb);
    assert_eq!(
        (looped.at, looped.group, looped.gain),
        (1000, ControlGroup::Fx, 0.0)
    );
    assert_eq!(
        gains(&sink, looped.note),
        vec![(1000, 0.8, 2 * RATE)],
        "fades in to Volume over Fade"
    );
    let state = ambience.describe();
    assert!(state.night && state.night_loop_playing);
    let news = sentences(ambience.take_news());
    assert!(
        news.iter().any(|n| n == "night loop on (18:00)"),
        "{news:?}"
    );

    ambience.set_hour(23.0, SampleTime::from_samples(2000), &mut sink, &mut ids);
    ambience.set_hour(2.0, SampleTime::from_samples(3000), &mut sink, &mut ids);
    assert_eq!(starts(&sink).len(), 1, "no second start during the night");
    assert_eq!(stop_at(&sink, looped.note), None);

    ambience.set_hour(6.0, SampleTime::from_samples(4000), &mut sink, &mut ids);
    assert_eq!(starts(&sink).len(), 1);
    assert_eq!(
        gains(&sink, looped.note).last(),
        Some(&(4000, 0.0, 2 * RATE)),
        "a fade, not a cut"
    );
    assert_eq!(
        stop_at(&sink, looped.note),
        Some(4000 + u64::from(2 * RATE))
    );
    assert!(!ambience.describe().night_loop_playing);
    assert!(
        sentences(ambience.take_news())
            .iter()
            .any(|n| n == "night loop off (06:00)")
    );
    let mut dummy = RecordingSink::default();
    assert!(ambience.note_ended(
        looped.note,
        SampleTime::from_samples(200_000),
        &mut dummy,
        &mut ids
    ));
    assert!(!ambience.note_ended(
        looped.note + 100,
        SampleTime::from_samples(200_000),
        &mut dummy,
        &mut ids
    ));
}

#[test]
fn night_hours_come_from_world_ini_and_need_the_ambience_on() {
    let project = Project::new(
        "nighthours",
        &["amb/crickets.wav"],
        &[],
        "[Ambience]\nNightLoop = amb/crickets.wav\nNightStart = 20\nNightEnd = 4.5\nFade = 0.5\n",
    );
    let settings = project.settings();
    assert_eq!((settings.night_start, settings.night_end), (20.0, 4.5));
    let mut ambience = project.ambience(1);
    let (mut sink, mut ids) = (RecordingSink::default(), NoteIds::default());
    // Off (edit family, credits…): night falls, nothing plays.
    ambience.set_hour(21.0, SampleTime::from_samples(0), &mut sink, &mut ids);
    assert!(sink.commands.is_empty());
    // On at night: the loop starts at once.
    ambience.set_enabled(true, SampleTime::from_samples(10), &mut sink, &mut ids);
    assert_eq!(starts(&sink).len(), 1);
    let note = starts(&sink)[0].note;
    ambience.set_hour(4.0, SampleTime::from_samples(20), &mut sink, &mut ids);
    assert_eq!(stop_at(&sink, note), None);
    ambience.set_hour(4.5, SampleTime::from_samples(30), &mut sink, &mut ids);
    assert_eq!(stop_at(&sink, note), Some(30 + u64::from(RATE / 2)));
    ambience.set_hour(19.9, SampleTime::from_samples(40), &mut sink, &mut ids);
    assert_eq!(starts(&sink).len(), 1);
    ambience.set_hour(20.0, SampleTime::from_samples(50), &mut sink, &mut ids);
    assert_eq!(starts(&sink).len(), 2);
    // Turning the ambience off at night fades the loop out.
    let second = starts(&sink)[1].note;
    ambience.set_enabled(false, SampleTime::from_samples(60), &mut sink, &mut ids);
    assert_eq!(stop_at(&sink, second), Some(60 + u64::from(RATE / 2)));
    assert!(!ambience.describe().night_loop_playing);
}

/// A project with one score `amb/score.fsc` and the given WAVs and settings.
fn score_project(tag: &str, wavs: &[&str], fsc: &str, extra_ini: &str) -> Project {
    Project::new(
        tag,
        wavs,
        &[("amb/score.fsc", fsc)],
        &format!("[Ambience]\nScore = amb/score.fsc\n{extra_ini}"),
    )
}

#[test]
fn reverb_only_in_a_small_room_and_score_notes_send_to_it() {
    let fsc = score(120, 4, 4, &[R::new("bird", "bird").text()]);
    let project = score_project(
        "reverb",
        &["amb/bird_1.wav"],
        &fsc,
        "SmallRoom = 10\nReverb = 0.3\n",
    );
    let mut ambience = project.ambience(1);
    assert_eq!(ambience.reverb_level(), 0.0, "no room yet: outdoors");
    ambience.set_room(8.0);
    assert_eq!(ambience.reverb_level(), 0.3);
    ambience.set_room(10.0);
    assert_eq!(ambience.reverb_level(), 0.3);
    ambience.set_room(30.0);
    assert_eq!(ambience.reverb_level(), 0.0);
    ambience.set_room(0.0);
    assert_eq!(ambience.reverb_level(), 0.0, "0 tiles: outdoors");
    ambience.set_room(6.0);
    assert_eq!(ambience.describe().reverb, 0.3);
    assert_eq!(ambience.describe().room_tiles, Some(6.0));

    let defaults = AmbienceSettings::default();
    assert_eq!((defaults.small_room, defaults.reverb), (12.0, 0.6));

    let (mut sink, mut ids) = (RecordingSink::default(), NoteIds::default());
    ambience.set_enabled(true, SampleTime::from_samples(0), &mut sink, &mut ids);
    run(&mut ambience, 0, u64::from(RATE) * 2, &mut sink, &mut ids);
    let s = starts(&sink);
    assert!(!s.is_empty());
    assert!(
        s.iter()
            .all(|s| s.reverb && s.group == ControlGroup::Fx && !s.looping),
        "{s:?}"
    );
}

#[test]
fn the_score_plays_at_its_tempo() {
    // 120 bpm, 4 beats per bar, 8 steps: a step is an eighth note, 12000 samples at
    // 48 kHz; a bar is 96000 samples.
    let mut once = R::new("once", "once.wav");
    once.step = 3;
    let mut every = R::new("every", "every.wav");
    every.step = 1;
    every.every = 2;
    let mut never = R::new("never", "never.wav");
    never.probability = 0;
    let fsc = score(120, 4, 8, &[once.text(), every.text(), never.text()]);
    let project = score_project(
        "tempo",
        &["amb/once.wav", "amb/every.wav", "amb/never.wav"],
        &fsc,
        "",
    );
    let mut ambience = project.ambience(5);
    let summary = ambience.describe().score.unwrap();
    assert_eq!(
        (
            summary.tempo_bpm,
            summary.beats_per_bar,
            summary.steps_per_bar
        ),
        (120, 4, 8)
    );
    assert!((summary.step_seconds - 0.25).abs() < 1e-12);
    let (mut sink, mut ids) = (RecordingSink::default(), NoteIds::default());
    ambience.set_enabled(true, SampleTime::from_samples(0), &mut sink, &mut ids);
    run(&mut ambience, 0, 96_000 * 3, &mut sink, &mut ids);
    let times = |file: &str| -> Vec<u64> {
        starts(&sink)
            .iter()
            .filter(|s| s.file == file)
            .map(|s| s.at)
            .collect()
    };
    assert_eq!(times("once.wav"), [36_000, 132_000, 228_000]);
    let mut expected = Vec::new();
    for bar in 0..3u64 {
        for step in [1u64, 3, 5, 7] {
            expected.push(bar * 96_000 + step * 12_000);
        }
    }
    assert_eq!(times("every.wav"), expected);
    assert!(times("never.wav").is_empty(), "probability 0 never plays");
    // Updating the same window again schedules nothing twice.
    let before = sink.commands.len();
    ambience.update(
        SampleTime::from_samples(36_000 - 10),
        SampleTime::from_samples(36_000 + 10),
        &mut sink,
        &mut ids,
    );
    assert_eq!(sink.commands.len(), before);
    // An odd tempo: 7 bpm, 3 beats, 5 steps — steps at round(k × 48000·60·3 / 35).
    let fsc = score(
        7,
        3,
        5,
        &[{
            let mut r = R::new("r", "once.wav");
            r.every = 1;
            r.text()
        }],
    );
    let project = score_project("oddtempo", &["amb/once.wav"], &fsc, "");
    let mut ambience = project.ambience(5);
    let (mut sink, mut ids) = (RecordingSink::default(), NoteIds::default());
    ambience.set_enabled(true, SampleTime::from_samples(0), &mut sink, &mut ids);
    let until = 48_000 * 60;
    // Ticks of an odd length, so steps fall anywhere inside them.
    let mut t = 0;
    while t < until {
        ambience.update(
            SampleTime::from_samples(t),
            SampleTime::from_samples(t + 997),
            &mut sink,
            &mut ids,
        );
        t += 997;
    }
    let got: Vec<u64> = starts(&sink).iter().map(|s| s.at).collect();
    let want: Vec<u64> = (0..)
        .map(|k: u64| (k * 48_000 * 60 * 3 * 2 + 35) / 70)
        .take_while(|t| *t < until)
        .collect();
    assert_eq!(got, want);
}

#[test]
fn probability_is_a_percentage() {
    let mut half = R::new("half", "half.wav");
    half.every = 1;
    half.probability = 50;
    let mut always = R::new("always", "always.wav");
    always.every = 1;
    always.probability = 100;
    let fsc = score(240, 4, 4, &[half.text(), always.text()]);
    let project = score_project("prob", &["amb/half.wav", "amb/always.wav"], &fsc, "");
    let mut ambience = project.ambience(9);
    let (mut sink, mut ids) = (RecordingSink::default(), NoteIds::default());
    ambience.set_enabled(true, SampleTime::from_samples(0), &mut sink, &mut ids);
    // 240 bpm: a step every 12000 samples; 400 steps.
    run(&mut ambience, 0, 400 * 12_000, &mut sink, &mut ids);
    let count = |file: &str| starts(&sink).iter().filter(|s| s.file == file).count();
    assert_eq!(count("always.wav"), 400);
    let half = count("half.wav");
    assert!((150..250).contains(&half), "{half}");
}

/// The file stems a kind played, in order.
fn picks(seed: u64) -> Vec<String> {
    let mut bird = R::new("bird", "bird");
    bird.every = 1;
    let fsc = score(240, 4, 4, &[bird.text()]);
    let project = score_project(
        "fresh",
        &[
            "amb/bird_1.wav",
            "amb/bird_2.wav",
            "amb/bird_3.wav",
            "amb/bird/chirp.wav",
            "amb/birds/not_a_bird.wav",
            "amb/dog_1.wav",
        ],
        &fsc,
        "Freshness = 3\n",
    );
    let mut ambience = project.ambience(seed);
    let (mut sink, mut ids) = (RecordingSink::default(), NoteIds::default());
    ambience.set_enabled(true, SampleTime::from_samples(0), &mut sink, &mut ids);
    run(&mut ambience, 0, 40 * 12_000, &mut sink, &mut ids);
    let news = sentences(ambience.take_news());
    assert!(
        news.iter().any(|n| n.contains("(freshness skipped ")),
        "{news:?}"
    );
    starts(&sink).into_iter().map(|s| s.file).collect()
}

#[test]
fn freshness_avoids_the_last_picks_of_a_kind() {
    let a = picks(1);
    assert_eq!(a.len(), 40);
    let mut distinct = a.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(
        distinct,
        ["bird_1.wav", "bird_2.wav", "bird_3.wav", "chirp.wav"],
        "the label finds bird_* and the files of a sub-directory named bird"
    );
    for i in 1..a.len() {
        for back in 1..=3.min(i) {
            assert_ne!(
                a[i],
                a[i - back],
                "pick {i} repeats pick {}: {a:?}",
                i - back
            );
        }
    }
    assert_eq!(picks(1), a, "same seed, same sequence");
    assert_ne!(picks(2), a, "another seed, another sequence");
}

#[test]
fn freshness_with_few_alternatives_and_groups() {
    // Two rows of one group are alternatives: each step at most one of them plays, and
    // they share the kind's memory.
    let mut a = R::new("a", "dog");
    a.every = 1;
    a.group = 7;
    let mut b = R::new("b", "dog");
    b.every = 1;
    b.group = 7;
    b.lr = 700;
    // A kind with one file plays it every time.
    let mut solo = R::new("solo", "plane.wav");
    solo.every = 2;
    let fsc = score(240, 4, 4, &[a.text(), b.text(), solo.text()]);
    let project = score_project(
        "groups",
        &["amb/dog_a.wav", "amb/dog_b.wav", "amb/plane.wav"],
        &fsc,
        "Freshness = 5\n",
    );
    let mut ambience = project.ambience(3);
    let (mut sink, mut ids) = (RecordingSink::default(), NoteIds::default());
    ambience.set_enabled(true, SampleTime::from_samples(0), &mut sink, &mut ids);
    run(&mut ambience, 0, 20 * 12_000, &mut sink, &mut ids);
    let s = starts(&sink);
    let dogs: Vec<&Start> = s.iter().filter(|s| s.file.starts_with("dog")).collect();
    assert_eq!(dogs.len(), 20, "one of the group per step");
    for pair in dogs.windows(2) {
        assert_ne!(pair[0].file, pair[1].file, "freshness across the group");
    }
    let pans: Vec<bool> = dogs.iter().map(|d| d.pan > 0.0).collect();
    assert!(
        pans.contains(&true) && pans.contains(&false),
        "both rows play"
    );
    assert_eq!(s.iter().filter(|s| s.file == "plane.wav").count(), 10);
}

#[test]
fn the_score_is_placed_in_3d_around_the_listener() {
    let mut right = R::new("right", "right.wav");
    right.lr = 768;
    right.step = 0;
    let mut left = R::new("left", "left.wav");
    left.lr = 256;
    left.step = 1;
    let mut near = R::new("near", "near.wav");
    near.fb = 600;
    near.step = 2;
    let mut far = R::new("far", "far.wav");
    far.fb = 900;
    far.step = 3;
    let mut gone = R::new("gone", "gone.wav");
    gone.lr = 1024;
    gone.fb = 1024;
    gone.step = 0;
    let mut wide = R::new("wide", "wide.wav");
    wide.stereo = 1;
    wide.lr = 1024;
    wide.step = 1;
    let rows: Vec<String> = [right, left, near, far, gone, wide]
        .iter()
        .map(R::text)
        .collect();
    let fsc = score(240, 4, 4, &rows);
    let project = score_project(
        "3d",
        &[
            "amb/right.wav",
            "amb/left.wav",
            "amb/near.wav",
            "amb/far.wav",
            "amb/gone.wav",
            "amb/wide.wav",
        ],
        &fsc,
        "Volume = 1\nDistance = 40\n",
    );
    let mut ambience = project.ambience(1);
    ambience.set_listener([10.0, 20.0]);
    let (mut sink, mut ids) = (RecordingSink::default(), NoteIds::default());
    ambience.set_enabled(true, SampleTime::from_samples(0), &mut sink, &mut ids);
    run(&mut ambience, 0, 4 * 12_000, &mut sink, &mut ids);
    let s = starts(&sink);
    let get = |file: &str| s.iter().find(|s| s.file == file).cloned();
    let right = get("right.wav").unwrap();
    let left = get("left.wav").unwrap();
    assert!(right.pan > 0.9, "{right:?}");
    assert!(left.pan < -0.9, "{left:?}");
    assert!((right.gain - 0.5).abs() < 1e-4, "20 tiles of 40: half gain");
    let near = get("near.wav").unwrap();
    let far = get("far.wav").unwrap();
    assert!(near.gain > far.gain && far.gain > 0.0, "{near:?} {far:?}");
    assert!(near.pan.abs() < 1e-4);
    assert!(get("gone.wav").is_none(), "beyond Distance: not started");
    let wide = get("wide.wav").unwrap();
    assert_eq!(
        (wide.gain, wide.pan),
        (1.0, 1.0),
        "a stereo row is not placed"
    );
    let news = sentences(ambience.take_news());
    assert!(
        news.iter().any(|n| n.contains("out of earshot")),
        "{news:?}"
    );
    assert!(
        news.iter()
            .any(|n| n.starts_with("ambience: right at (30.0, 20.0) gain 0.50 pan 1.00")),
        "{news:?}"
    );
    // The listener moves onto the right-hand sound: it gets louder and centred.
    sink.commands.clear();
    ambience.set_listener([30.0, 20.0]);
    ambience.update(
        SampleTime::from_samples(48_000),
        SampleTime::from_samples(48_000 + TICK),
        &mut sink,
        &mut ids,
    );
    let followed = sink.commands.iter().any(|c| {
        matches!(c, SoundCommand::SetGain { note, gain, .. } if *note == right.note && (gain.get() - 1.0).abs() < 1e-4)
    });
    let centred = sink.commands.iter().any(|c| {
        matches!(c, SoundCommand::SetPan { note, pan, .. } if *note == right.note && pan.get().abs() < 1e-4)
    });
    assert!(followed && centred, "{:?}", sink.commands);
    assert!(
        !sink
            .commands
            .iter()
            .any(|c| c.note() == wide.note && !matches!(c, SoundCommand::Start { .. })),
        "the stereo row does not follow"
    );
}

#[test]
fn off_fades_out_and_stops_scheduling_on_resumes() {
    let mut hum = R::new("hum", "hum.wav");
    hum.every = 1;
    hum.loop_flag = 1;
    hum.loop_count = 1;
    hum.fade_in = 50;
    let fsc = score(240, 4, 4, &[hum.text()]);
    let project = score_project(
        "onoff",
        &["amb/hum.wav", "amb/crickets.wav"],
        &fsc,
        "NightLoop = amb/crickets.wav\nFade = 1\n",
    );
    let mut ambience = project.ambience(1);
    let (mut sink, mut ids) = (RecordingSink::default(), NoteIds::default());
    run(&mut ambience, 0, 48_000, &mut sink, &mut ids);
    assert!(
        sink.commands.is_empty(),
        "off until the mode plan turns it on"
    );
    ambience.set_enabled(true, SampleTime::from_samples(48_000), &mut sink, &mut ids);
    ambience.set_hour(22.0, SampleTime::from_samples(48_000), &mut sink, &mut ids);
    run(&mut ambience, 48_000, 96_000, &mut sink, &mut ids);
    let s = starts(&sink);
    let hums: Vec<&Start> = s.iter().filter(|s| s.file == "hum.wav").collect();
    // A looping row held for 2 steps: it starts on every other step.
    assert_eq!(
        hums.iter().map(|h| h.at).collect::<Vec<_>>(),
        [48_000, 72_000]
    );
    let first = hums[0];
    assert!(first.looping && first.gain == 0.0, "fades in: {first:?}");
    let g = gains(&sink, first.note);
    assert_eq!(
        g[0],
        (48_000, 1.0 * 0.8, 2_400),
        "50 ms fade in to its gain"
    );
    assert_eq!(
        g[1],
        (72_000, 0.0, 4_800),
        "100 ms fade out after two steps"
    );
    assert_eq!(stop_at(&sink, first.note), Some(76_800));
    let sounding = ambience.describe().sounding;
    assert_eq!(sounding, 2);

    sink.commands.clear();
    ambience.set_enabled(false, SampleTime::from_samples(96_000), &mut sink, &mut ids);
    let second = hums[1].note;
    assert_eq!(gains(&sink, second), vec![(96_000, 0.0, 48_000)]);
    assert_eq!(stop_at(&sink, second), Some(144_000));
    assert!(!ambience.describe().night_loop_playing);
    assert_eq!(ambience.describe().sounding, 0);
    run(&mut ambience, 96_000, 192_000, &mut sink, &mut ids);
    assert!(starts(&sink).is_empty(), "no scheduling while off");

    ambience.set_enabled(true, SampleTime::from_samples(192_000), &mut sink, &mut ids);
    run(&mut ambience, 192_000, 240_000, &mut sink, &mut ids);
    let s = starts(&sink);
    assert_eq!(s.iter().filter(|s| s.file == "crickets.wav").count(), 1);
    assert_eq!(
        s.iter()
            .filter(|s| s.file == "hum.wav")
            .map(|s| s.at)
            .collect::<Vec<_>>(),
        [192_000, 216_000],
        "resumes on the same grid"
    );
    let mut dummy = RecordingSink::default();
    assert!(ambience.note_ended(
        second,
        SampleTime::from_samples(240_000),
        &mut dummy,
        &mut ids
    ));
    assert!(dummy.commands.is_empty());
}

#[test]
fn day_and_night_rows_follow_the_hour() {
    let mut day = R::new("daybirds", "lark.wav");
    day.every = 1;
    let mut night = R::new("night owl", "owl.wav");
    night.every = 1;
    let fsc = score(240, 4, 4, &[day.text(), night.text()]);
    let project = score_project("daynight", &["amb/lark.wav", "amb/owl.wav"], &fsc, "");
    let mut ambience = project.ambience(1);
    let (mut sink, mut ids) = (RecordingSink::default(), NoteIds::default());
    ambience.set_enabled(true, SampleTime::from_samples(0), &mut sink, &mut ids);
    ambience.set_hour(12.0, SampleTime::from_samples(0), &mut sink, &mut ids);
    run(&mut ambience, 0, 48_000, &mut sink, &mut ids);
    ambience.set_hour(20.0, SampleTime::from_samples(48_000), &mut sink, &mut ids);
    run(&mut ambience, 48_000, 96_000, &mut sink, &mut ids);
    let s = starts(&sink);
    assert!(
        s.iter()
            .filter(|s| s.at < 48_000)
            .all(|s| s.file == "lark.wav")
    );
    assert!(
        s.iter()
            .filter(|s| s.at >= 48_000)
            .all(|s| s.file == "owl.wav")
    );
    assert_eq!(s.len(), 8);
}

#[test]
fn a_broken_row_is_reported_and_the_rest_still_play() {
    let good = R::new("good", "good.wav");
    let mut other = R::new("other", "other.wav");
    other.step = 1;
    let mut missing = R::new("missing", "nothing_like_this");
    missing.step = 2;
    let broken = "broken\t1024\t0\t512";
    let fsc = score(
        240,
        4,
        4,
        &[
            good.text(),
            broken.to_string(),
            other.text(),
            missing.text(),
            {
                let mut rest = R::new("rest", "NONE");
                rest.step = 3;
                rest.text()
            },
        ],
    );
    let project = score_project("broken", &["amb/good.wav", "amb/other.wav"], &fsc, "");
    let (mut ambience, problems) = Ambience::new(project.settings(), &project.dirs(), 1, RATE);
    let score_file = project.0.join("amb/score.fsc");
    let error = problems
        .iter()
        .find(|d| d.severity == Severity::Error)
        .unwrap();
    assert_eq!(
        (error.file.as_path(), error.line),
        (score_file.as_path(), 5)
    );
    assert!(error.message.contains("expected 20"), "{}", error.message);
    let warning = problems
        .iter()
        .find(|d| d.message.contains("nothing_like_this"))
        .unwrap();
    assert_eq!((warning.severity, warning.line), (Severity::Warning, 7));
    assert_eq!(problems.len(), 2, "{problems:?}");
    let (mut sink, mut ids) = (RecordingSink::default(), NoteIds::default());
    ambience.set_enabled(true, SampleTime::from_samples(0), &mut sink, &mut ids);
    run(&mut ambience, 0, 48_000, &mut sink, &mut ids);
    let files: Vec<String> = starts(&sink).into_iter().map(|s| s.file).collect();
    assert_eq!(files, ["good.wav", "other.wav"]);
}

#[test]
fn missing_or_unreadable_scores_are_clear_diagnostics() {
    let project = Project::new(
        "missing",
        &["amb/crickets.wav"],
        &[("amb/bad.fsc", "not a score at all\n")],
        "[Ambience]\nScore = amb/nowhere.fsc\nNightLoop = amb/crickets.wav\nReverb = 2\nFreshness = many\n",
    );
    let (ini, _) = WorldIni::load(&project.dirs());
    let (settings, problems) = AmbienceSettings::from_ini(&ini);
    assert_eq!(problems.len(), 3, "{problems:?}");
    let score = &problems[0];
    assert_eq!(
        (score.file.as_path(), score.line),
        (project.0.join("world.ini").as_path(), 2)
    );
    assert!(
        score.message.contains("nowhere.fsc") && score.message.contains("does not exist"),
        "{}",
        score.message
    );
    assert!(problems[1].message.contains("out of range"));
    assert!(problems[2].message.contains("`Freshness` must be a number"));
    assert_eq!(settings.score, None);
    assert_eq!((settings.reverb, settings.freshness), (0.6, 3));
    assert!(
        settings.night_loop.is_some(),
        "the rest of the settings stand"
    );

    // Settings made by hand with a missing file: Ambience::new says so.
    let by_hand = AmbienceSettings {
        score: Some(project.0.join("amb/gone.fsc")),
        ..settings.clone()
    };
    let (mut ambience, problems) = Ambience::new(by_hand, &project.dirs(), 1, RATE);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0]
            .message
            .contains("cannot read the ambience score")
    );
    assert!(problems[0].file.ends_with("amb/gone.fsc"));
    assert!(ambience.describe().score.is_none());
    // No score: the night loop still plays.
    let (mut sink, mut ids) = (RecordingSink::default(), NoteIds::default());
    ambience.set_enabled(true, SampleTime::from_samples(0), &mut sink, &mut ids);
    ambience.set_hour(23.0, SampleTime::from_samples(0), &mut sink, &mut ids);
    run(&mut ambience, 0, 48_000, &mut sink, &mut ids);
    assert_eq!(starts(&sink).len(), 1);

    // A file that is no score: reported, no score.
    let garbage = AmbienceSettings {
        score: Some(project.0.join("amb/bad.fsc")),
        ..settings
    };
    let (ambience, problems) = Ambience::new(garbage, &project.dirs(), 1, RATE);
    assert!(
        problems
            .iter()
            .any(|d| d.message.contains("no usable header")),
        "{problems:?}"
    );
    assert!(ambience.describe().score.is_none());
}

#[test]
fn same_seed_and_calls_give_the_same_commands() {
    let mut bird = R::new("bird", "bird");
    bird.every = 1;
    bird.probability = 60;
    let mut dog = R::new("dog", "dog");
    dog.step = 2;
    dog.lr = 900;
    let fsc = score(200, 3, 6, &[bird.text(), dog.text()]);
    let wavs = [
        "amb/bird_1.wav",
        "amb/bird_2.wav",
        "amb/bird_3.wav",
        "amb/dog_1.wav",
        "amb/dog_2.wav",
        "amb/crickets.wav",
    ];
    let render = |seed: u64| {
        let project = score_project("determinism", &wavs, &fsc, "NightLoop = amb/crickets.wav\n");
        let mut ambience = project.ambience(seed);
        let (mut sink, mut ids) = (RecordingSink::default(), NoteIds::default());
        ambience.set_enabled(true, SampleTime::from_samples(0), &mut sink, &mut ids);
        ambience.set_hour(17.5, SampleTime::from_samples(0), &mut sink, &mut ids);
        run(&mut ambience, 0, 96_000, &mut sink, &mut ids);
        ambience.set_listener([5.0, -3.0]);
        ambience.set_hour(18.5, SampleTime::from_samples(96_000), &mut sink, &mut ids);
        run(&mut ambience, 96_000, 480_000, &mut sink, &mut ids);
        // Paths differ between projects; compare file names.
        let commands: Vec<String> = sink
            .commands
            .iter()
            .map(|c| match c {
                SoundCommand::Start { sample, .. } => {
                    let name = Path::new(sample.path.as_ref())
                        .file_name()
                        .unwrap()
                        .to_string_lossy()
                        .into_owned();
                    format!("{c:?}").replace(&*sample.path.to_string_lossy(), &name)
                }
                other => format!("{other:?}"),
            })
            .collect();
        (commands, sentences(ambience.take_news()))
    };
    let (a, news_a) = render(11);
    let (b, news_b) = render(11);
    assert_eq!(a, b);
    assert_eq!(news_a, news_b);
    assert_ne!(render(12).0, a);
}

#[test]
fn the_example_score_in_the_docs_plays() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/ambience.md"))
        .unwrap();
    let after = doc.split("## Example score").nth(1).unwrap();
    let fsc = after
        .split("```")
        .nth(1)
        .unwrap()
        .trim_start_matches('\n')
        .to_string();
    let project = score_project(
        "docs",
        &[
            "amb/bird_1.wav",
            "amb/bird_2.wav",
            "amb/bird_3.wav",
            "amb/dog_1.wav",
            "amb/dog_2.wav",
            "amb/car_1.wav",
            "amb/plane_1.wav",
        ],
        &fsc,
        "",
    );
    let mut ambience = project.ambience(4);
    let summary = ambience.describe().score.unwrap();
    assert_eq!((summary.rows, summary.steps_per_bar), (4, 8));
    assert!((summary.step_seconds - 0.5).abs() < 1e-12);
    let (mut sink, mut ids) = (RecordingSink::default(), NoteIds::default());
    ambience.set_enabled(true, SampleTime::from_samples(0), &mut sink, &mut ids);
    run(&mut ambience, 0, u64::from(RATE) * 600, &mut sink, &mut ids);
    let s = starts(&sink);
    for kind in ["bird", "dog", "car", "plane"] {
        assert!(
            s.iter().any(|s| s.file.starts_with(kind)),
            "{kind} never played"
        );
    }
    let step = u64::from(RATE) / 2;
    assert!(
        s.iter()
            .filter(|s| s.file.starts_with("car"))
            .all(|s| s.looping && s.at % (8 * step) == 5 * step),
        "cars loop from step 5"
    );
    assert!(
        s.iter()
            .filter(|s| s.file.starts_with("plane"))
            .all(|s| s.pan == 0.0 && s.looping),
        "the plane is a centred stereo loop"
    );
}
