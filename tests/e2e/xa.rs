//! The Sims' XA sounds through the command line: `probe` shows them with their rate,
//! channels and length, and names what is wrong with a damaged one; a project whose patch
//! is an `.xa` passes `check` and plays it in a render; a damaged one is a `check` error
//! naming the file.

use hitbench_tests::{TempDir, hitbench, workspace};
use std::path::PathBuf;
use std::process::ExitCode;

/// The XA fixtures (`tests/fixtures/audio/xa/README.md` says what each is).
pub fn xa_fixture(name: &str) -> PathBuf {
    workspace().join("tests/fixtures/audio/xa").join(name)
}

#[test]
fn probe_shows_xa_files_and_says_what_is_wrong_with_damaged_ones() {
    let files = [
        "lbreakout2_excellent_voice.xa",
        "freedink_secret.xa",
        "damaged_truncated.xa",
        "damaged_zero_channels.xa",
    ]
    .map(|name| xa_fixture(name).display().to_string());
    let mut args = vec!["probe"];
    args.extend(files.iter().map(String::as_str));
    let run = hitbench(&args);
    let lines: Vec<&str> = run.out.lines().collect();
    assert_eq!(
        lines,
        [
            format!("{}\tXA ADPCM\t22050\t1\t4\t12375\t0.561224", files[0]),
            format!("{}\tXA ADPCM\t22050\t2\t4\t31041\t1.407755", files[1]),
            format!(
                "{}\terror\tinvalid XA file: the data ends before the frames the header \
                 promises: 31041 frames of 2 channel(s) take 33260 bytes after the 24-byte \
                 header, but the file holds only 2976 (cut short?)",
                files[2]
            ),
            format!(
                "{}\terror\tinvalid XA file: the header says 0 channels; XA has 1 to 8",
                files[3]
            ),
        ]
    );
    assert_eq!(run.code, ExitCode::from(1), "damaged files: exit status 1");
}

/// A project with one event, `voice`, that plays the sample file `sample` (copied from
/// the XA fixture `fixture`).
fn voice_project(temp: &TempDir, fixture: &str) -> PathBuf {
    let dir = temp.join("voice");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(xa_fixture(fixture), dir.join("voice.xa")).unwrap();
    std::fs::write(
        dir.join("voice.src"),
        "LAYOUT ts1\n\
         LIST [Patch] 1=0,voice,\"voice.xa\",0,0,0,0,0\n\
         LIST [EventMapping] voice=kSndobPlay,0x100,0,0,0,0\n\
         LIST [Track] 0x100=0,voice,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,1,60\n\
         BINARY [\n\
         voice\n\
         \tloadl patch #1\n\
         \tnote_on v1\n\
         \twait_samp\n\
         \tend\n\
         ]\n",
    )
    .unwrap();
    dir
}

#[test]
fn an_xa_patch_checks_clean_and_plays_in_a_render() {
    let temp = TempDir::new("xa-play");
    let project = voice_project(&temp, "freedink_secret.xa");
    let project_arg = project.display().to_string();
    let check = hitbench(&["check", &project_arg]);
    assert_eq!(
        check.code,
        ExitCode::SUCCESS,
        "{}\n{}",
        check.out,
        check.err
    );
    let script = temp.join("script.txt");
    std::fs::write(&script, "0.0 ui voice\n").unwrap();
    let out = temp.join("voice.wav");
    let run = hitbench(&[
        "render",
        &project_arg,
        "--script",
        &script.display().to_string(),
        "-o",
        &out.display().to_string(),
        "--duration",
        "2",
    ]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}\n{}", run.out, run.err);
    assert!(run.out.contains("voice: started on voice"), "{}", run.out);
    let mut reader = hound::WavReader::open(&out).unwrap();
    let samples: Vec<i16> = reader.samples::<i16>().map(Result::unwrap).collect();
    // The jingle lasts 1.41 s: heard within its length, silent after it.
    let heard = |from: f64, to: f64| {
        let range = (from * 96_000.0) as usize..(to * 96_000.0) as usize;
        samples[range]
            .iter()
            .map(|s| s.unsigned_abs())
            .max()
            .unwrap()
    };
    assert!(heard(0.0, 1.4) > 1000, "the XA sound is heard");
    assert_eq!(heard(1.5, 2.0), 0, "and ends with the file");
}

#[test]
fn a_damaged_xa_patch_is_a_check_error_naming_the_file() {
    let temp = TempDir::new("xa-damaged");
    let project = voice_project(&temp, "damaged_truncated.xa");
    let check = hitbench(&["check", &project.display().to_string()]);
    assert_eq!(
        check.code,
        ExitCode::from(1),
        "{}\n{}",
        check.out,
        check.err
    );
    let line = check
        .out
        .lines()
        .find(|l| l.contains("bad-sample"))
        .unwrap_or_else(|| panic!("no bad-sample finding:\n{}", check.out));
    assert!(line.contains("voice.xa"), "{line}");
    assert!(
        line.contains("the data ends before the frames the header promises"),
        "{line}"
    );
}
