//! A render reports its progress as it goes and can be cancelled: the callback sees the
//! frames done rise to the total, and a render it cancels ends with an error naming the
//! file, which is never left half written (a file that was there stays as it was). A project load counts the files it finds and reads, and a
//! cancelled one gives nothing.

use crate::support::looping_tracks;
use engine_core::host::command::parse_script;
use engine_core::host::offline::{
    Flow, RenderError, RenderOptions, RenderProgress, Taps, render_tapped,
};
use engine_core::toolchain::project::Project;
use std::path::Path;

fn options() -> RenderOptions {
    RenderOptions {
        duration: Some(2.0),
        ..RenderOptions::default()
    }
}

#[test]
fn progress_rises_to_the_total_and_the_file_is_whole() {
    let p = looping_tracks("progress-whole", &[40], 1024, "");
    let (script, problems) = parse_script("0 ui t0\n", Path::new("s.txt"));
    assert!(problems.is_empty());
    let out = p.path().join("out.wav");
    let mut seen: Vec<RenderProgress> = Vec::new();
    let mut ignore = |_| {};
    let mut progress = |at: RenderProgress| {
        seen.push(at);
        Flow::Continue
    };
    let taps = Taps {
        progress: Some(&mut progress),
        ..Taps::records(&mut ignore)
    };
    let report = render_tapped(Project::load(p.path()), &script, &out, options(), taps).unwrap();
    assert_eq!(report.frames, 96_000);
    // About 60 calls per rendered second, rising, each with the same total.
    assert!(seen.len() >= 100, "{} calls", seen.len());
    assert!(seen.windows(2).all(|w| w[0].frames < w[1].frames));
    assert!(seen.iter().all(|at| at.total_frames == 96_000));
    let last = seen.last().unwrap();
    assert_eq!(last.frames, 96_000);
    assert_eq!(last.fraction(), 1.0);
    assert!((seen[seen.len() / 2].fraction() - 0.5).abs() < 0.05);
    assert!(out.is_file());
}

/// Renders `ui t0` of `p` to `out`, cancelled once a quarter is done: the error and how
/// many times the progress callback was called.
fn cancelled_at_a_quarter(p: &Path, out: &Path) -> (RenderError, usize) {
    let (script, _) = parse_script("0 ui t0\n", Path::new("s.txt"));
    let mut calls = 0;
    let mut ignore = |_| {};
    let mut progress = |at: RenderProgress| {
        calls += 1;
        if at.fraction() >= 0.25 {
            Flow::Cancel
        } else {
            Flow::Continue
        }
    };
    let taps = Taps {
        progress: Some(&mut progress),
        ..Taps::records(&mut ignore)
    };
    let error = render_tapped(Project::load(p), &script, out, options(), taps).unwrap_err();
    (error, calls)
}

#[test]
fn a_cancelled_render_stops_there_and_leaves_no_file() {
    let p = looping_tracks("progress-cancel", &[40], 1024, "");
    let out = p.path().join("out.wav");
    let (error, calls) = cancelled_at_a_quarter(p.path(), &out);
    match &error {
        RenderError::Cancelled { path, seconds } => {
            assert_eq!(path, &out);
            assert!((0.5..0.6).contains(seconds), "{seconds}");
        }
        other => panic!("not a cancel: {other}"),
    }
    assert!(error.to_string().contains("out.wav"), "{error}");
    assert!(error.to_string().contains("cancelled"), "{error}");
    // It stopped at the first answer to cancel, and the unfinished file is gone.
    assert!(calls < 40, "{calls} calls");
    assert!(!out.exists());
    assert_no_temporary_files(p.path());
}

/// A render that fails (here: cancelled) leaves the file that was at its output as it
/// was, never a partial one and never nothing.
#[test]
fn a_failed_render_leaves_the_old_file_whole() {
    let p = looping_tracks("progress-cancel-old", &[40], 1024, "");
    let out = p.path().join("out.wav");
    std::fs::write(&out, b"the render before").unwrap();
    let (error, _) = cancelled_at_a_quarter(p.path(), &out);
    assert!(matches!(error, RenderError::Cancelled { .. }), "{error}");
    assert_eq!(std::fs::read(&out).unwrap(), b"the render before");
    assert_no_temporary_files(p.path());
}

fn assert_no_temporary_files(dir: &Path) {
    let left: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_watched_load_counts_every_file_and_a_cancelled_one_gives_nothing() {
    use engine_core::toolchain::project::LoadWatch;
    let p = looping_tracks("load-watch", &[40, 41], 1024, "");
    let dirs = [p.path().to_path_buf()];
    let watch = LoadWatch::default();
    let project = Project::load_dirs_watched(&dirs, &watch).expect("not cancelled");
    assert_eq!(project.tracks.len(), Project::load_dirs(&dirs).tracks.len());
    // The source and the sample: found, then read.
    assert!(watch.found() >= 2, "{}", watch.found());
    assert_eq!(watch.read(), watch.found());
    assert_eq!(watch.fraction(), 1.0);

    let cancelled = LoadWatch::default();
    cancelled.cancel();
    assert!(Project::load_dirs_watched(&dirs, &cancelled).is_none());
    assert_eq!(cancelled.read(), 0, "nothing read after the cancel");
    assert_eq!(cancelled.fraction(), 0.0);
}
