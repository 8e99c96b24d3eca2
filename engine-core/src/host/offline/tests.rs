//! Offline runs: lengths a WAV file cannot hold refused up front, runs without a file
//! held to no WAV size.

use super::*;
use std::time::Duration;

/// Runs a render on its own thread; `None` if it has not ended within `limit` (the
/// thread is left to the process's end).
fn render_within(
    options: RenderOptions,
    out: &Path,
    limit: Duration,
) -> Option<Result<RenderReport, RenderError>> {
    let out = out.to_path_buf();
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(render(Project::default(), &[], &out, options));
    });
    receive.recv_timeout(limit).ok()
}

#[test]
fn a_render_longer_than_a_wav_can_hold_is_refused_up_front() {
    // 10^7 s at 48 kHz is 1.9 TB of 16-bit stereo: it used to render until the disk
    // was full (or its 32-bit sizes wrapped). /dev/null keeps the unfixed run harmless.
    let options = RenderOptions {
        duration: Some(1e7),
        ..RenderOptions::default()
    };
    let result = render_within(options, Path::new("/dev/null"), Duration::from_secs(20))
        .expect("refused at once, not rendered");
    let message = result.expect_err("too long for a WAV file").to_string();
    assert!(message.contains("/dev/null"), "{message}");
    assert!(message.contains("4 GiB"), "{message}");
    // Refused before the file is created.
    let out = std::env::temp_dir().join(format!("hitbench-too-long-{}.wav", std::process::id()));
    let result = render_within(options, &out, Duration::from_secs(20)).expect("at once");
    assert!(result.is_err());
    assert!(!out.exists());
}

#[test]
fn a_run_without_a_file_is_not_held_to_a_wav_files_size() {
    use crate::host::command::MAX_SCRIPT_SECONDS;
    // A script as long as scripts may be (a day), a line at its last second: past
    // what a WAV file holds at 48 kHz (22,370 s), which a render refuses and a replay
    // or a QA script, writing nothing, need not.
    let (script, problems) = crate::host::command::parse_script(
        &format!("{MAX_SCRIPT_SECONDS} quietall\n"),
        Path::new("day.txt"),
    );
    assert!(problems.is_empty(), "{problems:?}");
    let options = RenderOptions::default();
    let frames = length_without_file(&script, &options).expect("a day runs without a file");
    assert_eq!(frames, ((MAX_SCRIPT_SECONDS + 3.0) * 48_000.0) as u64);
    assert!(matches!(
        length(&script, Path::new("day.wav"), &options),
        Err(RenderError::TooLong { .. })
    ));
    let endless = RenderOptions {
        duration: Some(f64::INFINITY),
        ..options
    };
    assert!(matches!(
        length_without_file(&[], &endless),
        Err(RenderError::Endless { .. })
    ));
}
