//! Capture, replay and why on the demo tour: the tour captured while it renders replays
//! without a difference; with 4 voices the busy moment steals; a copy of the demo with a
//! hit list edited picks other cries; `why` explains a played trigger (its gain's named
//! contributions multiplying to the total) and a stealing one; a
//! damaged capture is an error naming its line.

use hitbench_tests::{Run, TempDir, copy_dir, hitbench, workspace};
use std::path::Path;
use std::process::ExitCode;

fn text(path: &Path) -> String {
    path.display().to_string()
}

fn run(args: &[&str]) -> Run {
    hitbench(args)
}

/// Renders `script` against the demo into `wav`, capturing to `cap`; the run must succeed.
fn render_captured(script: &Path, wav: &Path, cap: &Path) -> Run {
    let demo = workspace().join("projects/demo");
    let render = run(&[
        "render",
        &text(&demo),
        "--script",
        &text(script),
        "-o",
        &text(wav),
        "--capture",
        &text(cap),
    ]);
    assert_eq!(
        render.code,
        ExitCode::SUCCESS,
        "{}\n{}",
        render.out,
        render.err
    );
    render
}

#[test]
fn the_tour_captures_replays_explains_and_shows_what_an_edit_changed() {
    let dir = TempDir::new("capture");
    let demo = workspace().join("projects/demo");
    let tour = demo.join("tour.txt");
    let (wav, cap) = (dir.join("t.wav"), dir.join("t.hbcap"));
    let render = run(&[
        "render",
        &text(&demo),
        "--script",
        &text(&tour),
        "-o",
        &text(&wav),
        "--capture",
        &text(&cap),
    ]);
    assert_eq!(
        render.code,
        ExitCode::SUCCESS,
        "{}\n{}",
        render.out,
        render.err
    );
    assert!(
        render.out.contains(&format!("captured {}", cap.display())),
        "{}",
        render.out
    );
    let bytes = std::fs::metadata(&cap).unwrap().len();
    assert!(bytes < 5 << 20, "a capture of the tour is {bytes} bytes");

    let same = run(&["replay", &text(&cap), "--diff"]);
    assert_eq!(same.code, ExitCode::SUCCESS, "{}\n{}", same.out, same.err);
    assert!(same.out.contains("no decision differs"), "{}", same.out);

    let fewer = run(&["replay", &text(&cap), "--diff", "--voices", "4"]);
    assert_eq!(
        fewer.code,
        ExitCode::from(1),
        "{}\n{}",
        fewer.out,
        fewer.err
    );
    // With 4 voices the lot's ambience (which holds a voice like a track, at priority
    // 16) is the first to go, then the oldest track of the lowest priority.
    for line in [
        "105.067 s `vox_greet` @1: stole voice 0 from `[ambience]` now, started on voice 4 before",
        "105.100 s `vox_laugh` @3: stole voice 1 from `door_open` now, started on voice 5 before",
    ] {
        assert!(fewer.out.contains(line), "{line}\n{}", fewer.out);
    }

    // A copy of the demo whose baby has only two cries: the picks change.
    let copy = dir.join("demo");
    copy_dir(&demo, &copy);
    let source = copy.join("baby.src");
    let edited = std::fs::read_to_string(&source)
        .unwrap()
        .replace("hl_baby_cry=2201-2203", "hl_baby_cry=2201-2202");
    std::fs::write(&source, edited).unwrap();
    let edit = run(&["replay", &text(&cap), "--project", &text(&copy), "--diff"]);
    assert_eq!(edit.code, ExitCode::from(1), "{}\n{}", edit.out, edit.err);
    assert!(
        edit.out.contains("project changed: baby.src"),
        "{}",
        edit.out
    );
    // Each pick and note that differs says which of the trigger's it is (the crying
    // track picks and plays a cry several times), a note when it plays.
    for line in [
        "24.500 s `baby_cry` @9: pick 1 from hit list 230: 2202 now, 2203 before",
        "24.500 s `baby_cry` @9: pick 3 from hit list 230: 2202 now, 2203 before",
        "24.500 s `baby_cry` @9: note 1 at 24.500 s plays `sounds/baby/cry_2.wav` now, \
         `sounds/baby/cry_3.wav` before",
    ] {
        assert!(edit.out.contains(line), "{line}\n{}", edit.out);
    }
    assert!(edit.out.contains(" in 3 trigger(s)"), "{}", edit.out);

    // The capture cut off half way (as a crash would leave it): it still replays, and
    // only what it recorded is compared — its script's later inputs, written ahead, are
    // not taken for triggers that went missing.
    let bytes = std::fs::read(&cap).unwrap();
    let half = dir.join("half.hbcap");
    std::fs::write(&half, &bytes[..bytes.len() / 2]).unwrap();
    let same = run(&["replay", &text(&half), "--diff"]);
    assert_eq!(same.code, ExitCode::SUCCESS, "{}\n{}", same.out, same.err);
    assert!(same.out.contains("no decision differs"), "{}", same.out);
    assert!(
        same.out
            .contains(&format!("{} was cut off (it has no end)", half.display())),
        "{}",
        same.out
    );
    let edit = run(&["replay", &text(&half), "--project", &text(&copy), "--diff"]);
    assert_eq!(edit.code, ExitCode::from(1), "{}\n{}", edit.out, edit.err);
    assert!(
        edit.out
            .contains("24.500 s `baby_cry` @9: pick 1 from hit list 230: 2202 now, 2203 before"),
        "{}",
        edit.out
    );
    assert!(!edit.out.contains("105."), "{}", edit.out);
    let late = run(&["why", &text(&half), "80"]);
    assert_eq!(late.code, ExitCode::SUCCESS, "{}", late.err);
    assert!(
        late.err.contains(&format!(
            "{} was cut off (it has no end) at ",
            half.display()
        )) && late.err.contains(", before 80 s: the last triggers in it"),
        "{}",
        late.err
    );

    let why = run(&["why", &text(&cap), "vox_laugh"]);
    assert_eq!(why.code, ExitCode::SUCCESS, "{}\n{}", why.out, why.err);
    assert!(why.out.contains("`vox_laugh` from object 3"), "{}", why.out);
    // Voice 5: the lot's ambience holds one of the five busy before it.
    assert!(why.out.contains("started on free voice 5"), "{}", why.out);
    // The played laugh's gain: every named contribution, multiplying to the total.
    let equations = crate::why::gain_equations(&why.out);
    assert!(!equations.is_empty(), "{}", why.out);
    crate::why::assert_products_match(&equations);
    let laugh = crate::why::names(&equations[0].1);
    assert_eq!(laugh[0], "track volume", "{}", why.out);
    assert!(laugh[1].starts_with("fade ("), "{}", why.out);
    assert_eq!(laugh[2..4], ["zoom", "floor"], "{}", why.out);
    assert_eq!(
        laugh[laugh.len() - 3..],
        ["ducking", "group VOX", "master"],
        "{}",
        why.out
    );
    assert!(why.out.contains("from the screen (x "), "{}", why.out);
    // The baby crying from the fade band: a fade below 1, and still the product.
    let cry = run(&["why", &text(&cap), "baby_cry"]);
    assert_eq!(cry.code, ExitCode::SUCCESS, "{}\n{}", cry.out, cry.err);
    let equations = crate::why::gain_equations(&cry.out);
    crate::why::assert_products_match(&equations);
    assert!(
        equations.iter().any(|(total, factors)| *total < 1.0
            && factors
                .iter()
                .any(|(name, value)| name == "fade (fading)" && *value < 1.0)),
        "{}",
        cry.out
    );

    // The same capture as JSON lines reads back as the same capture.
    let jsonl = dir.join("t.jsonl");
    let as_text = run(&["capture-text", &text(&cap), "-o", &text(&jsonl)]);
    assert_eq!(as_text.code, ExitCode::SUCCESS, "{}", as_text.err);
    let lines: Vec<String> = std::fs::read_to_string(&jsonl)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert!(lines[0].starts_with("{\"line\":\"header\""), "{}", lines[0]);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("\"NoteStarted\"") && l.contains("\"track_volume\"")),
        "a note with its gain, factor by factor"
    );
    let from_text = run(&["replay", &text(&jsonl), "--diff"]);
    assert_eq!(
        from_text.code,
        ExitCode::SUCCESS,
        "{}\n{}",
        from_text.out,
        from_text.err
    );

    // A damaged line of the text names the file and the line.
    let damaged = dir.join("damaged.jsonl");
    let mut damaged_lines = lines.clone();
    damaged_lines[3] = "{\"line\": \"record\", \"time\": ".to_string();
    std::fs::write(&damaged, damaged_lines.join("\n")).unwrap();
    let bad = run(&["replay", &text(&damaged), "--diff"]);
    assert_eq!(bad.code, ExitCode::from(2), "{}\n{}", bad.out, bad.err);
    assert!(
        bad.err.contains(&format!("{}:4:", damaged.display())),
        "{}",
        bad.err
    );
}

/// A compact capture damaged inside a frame, or with a frame longer than allowed, is
/// an error naming the file, the frame and where it starts; one cut off in the middle
/// of a frame reads as a capture without its end.
#[test]
fn damaged_compact_captures_name_the_frame_and_cut_off_ones_still_read() {
    let dir = TempDir::new("capture-damage");
    let script = dir.join("short.txt");
    std::fs::write(
        &script,
        "0.0 sev vox_laugh @3\n0.5 sev baby_cry @9\n2.0 quietall\n",
    )
    .unwrap();
    let (wav, cap) = (dir.join("s.wav"), dir.join("s.hbcap"));
    render_captured(&script, &wav, &cap);
    let bytes = std::fs::read(&cap).unwrap();
    assert!(bytes.starts_with(b"hbcap\0"), "a compact capture");

    // The second frame's length (right after the magic and the header frame).
    let header_len = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
    let second = 8 + 4 + header_len;
    let mut too_long = bytes.clone();
    too_long[second..second + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    let path = dir.join("too_long.hbcap");
    std::fs::write(&path, &too_long).unwrap();
    let bad = run(&["why", &text(&path), "vox_laugh"]);
    assert_ne!(bad.code, ExitCode::SUCCESS);
    assert!(
        bad.err
            .contains(&format!("{}: frame 2 (at byte {second})", path.display())),
        "{}",
        bad.err
    );

    // Garbage inside the second frame.
    let mut garbage = bytes.clone();
    for byte in &mut garbage[second + 4..second + 8] {
        *byte = 0xff;
    }
    let path = dir.join("garbage.hbcap");
    std::fs::write(&path, &garbage).unwrap();
    let bad = run(&["replay", &text(&path)]);
    assert_eq!(bad.code, ExitCode::from(2), "{}\n{}", bad.out, bad.err);
    assert!(
        bad.err.contains(&format!("{}: frame 2", path.display())),
        "{}",
        bad.err
    );

    // Cut off in the middle of the last frames: what is whole still explains.
    let path = dir.join("cut.hbcap");
    std::fs::write(&path, &bytes[..bytes.len() - 7]).unwrap();
    let cut = run(&["why", &text(&path), "vox_laugh"]);
    assert_eq!(cut.code, ExitCode::SUCCESS, "{}\n{}", cut.out, cut.err);
    assert!(cut.out.contains("`vox_laugh` from object 3"), "{}", cut.out);
}

#[test]
fn why_at_a_time_explains_the_latest_trigger_and_says_when_there_is_none() {
    let dir = TempDir::new("capture-why");
    let script = dir.join("busy.txt");
    std::fs::write(
        &script,
        "0.0 sev door open @1\n0.02 sev piano play @2\n0.04 sev baby cry @9\n0.06 sev vox greet @1\n0.1 sev vox laugh @3\n",
    )
    .unwrap();
    let (wav, cap) = (dir.join("b.wav"), dir.join("b.hbcap"));
    render_captured(&script, &wav, &cap);
    let why = run(&["why", &text(&cap), "0.05"]);
    assert_eq!(why.code, ExitCode::SUCCESS, "{}\n{}", why.out, why.err);
    assert!(why.out.contains("`baby_cry` from object 9"), "{}", why.out);
    let none = run(&["why", &text(&cap), "no_such_event"]);
    assert_eq!(none.code, ExitCode::from(1), "{}\n{}", none.out, none.err);
    assert!(
        none.err.contains("no trigger of `no_such_event`"),
        "{}",
        none.err
    );
    // What it has is listed; a misspelt name gets the one meant.
    assert!(
        none.err
            .contains("it has triggers of 6 event(s): Ambience, baby_cry, door_open, piano_play"),
        "{}",
        none.err
    );
    let typo = run(&["why", &text(&cap), "piano_plya"]);
    assert_eq!(typo.code, ExitCode::from(1));
    assert!(
        typo.err.contains("did you mean `piano_play`?"),
        "{}",
        typo.err
    );
    // A time after the capture's end says so, and explains the last triggers.
    let late = run(&["why", &text(&cap), "500"]);
    assert_eq!(late.code, ExitCode::SUCCESS, "{}", late.err);
    assert!(
        late.err.contains("before 500 s: the last triggers in it"),
        "{}",
        late.err
    );
    assert!(
        late.out.contains("`vox_laugh` from object 3"),
        "{}",
        late.out
    );
}
