//! `--plugin DIR` on every command that loads a project: a plug-in folder that defines
//! a chime is loaded after the project by `check`, `render`, `play`, `test` and
//! `replay`; a folder that is not there is an error naming it.

use hitbench_tests::{TempDir, hitbench, workspace};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// A plug-in folder defining the event `plug_chime` (one note of its own sample).
fn plugin(dir: &TempDir) -> PathBuf {
    let plug = dir.join("plug");
    std::fs::create_dir_all(&plug).unwrap();
    std::fs::write(
        plug.join("chime.src"),
        "LAYOUT ts1\n\
         LIST [Patch] 3001=0,plug_chime,\"chime.wav\",0,0,0,0,0\n\
         LIST [EventMapping] plug_chime=kSndobPlay,0x3000,0,0,0,0\n\
         LIST [Track] 0x3000=0,plug_chime,1024,kArgsNormal,duckpri_normal,kGroupSfx,spl_normal,@0,3001,60\n\
         BINARY [\n\
         plug_chime\n\
         \tloadl patch #3001\n\
         \tnote_on v1\n\
         \twait_samp\n\
         \tend\n\
         ]\n",
    )
    .unwrap();
    std::fs::copy(
        workspace().join("projects/demo/sounds/ui/money.wav"),
        plug.join("chime.wav"),
    )
    .unwrap();
    plug
}

fn text(path: &Path) -> String {
    path.display().to_string()
}

#[test]
fn every_command_loads_plugin_folders() {
    let dir = TempDir::new("plugins");
    let plug = text(&plugin(&dir));
    let demo = text(&workspace().join("projects/demo"));
    let script = dir.join("chime.txt");
    std::fs::write(&script, "0 ui plug_chime\n").unwrap();
    let script = text(&script);
    let wav = text(&dir.join("out.wav"));

    // check: the plug-in's source and sample read too.
    let without = hitbench(&["check", &demo]);
    let with = hitbench(&["check", &demo, "--plugin", &plug]);
    let files = |out: &str| {
        out.lines()
            .last()
            .and_then(|l| l.split(" in ").nth(1))
            .and_then(|l| l.split_whitespace().next())
            .and_then(|n| n.parse::<usize>().ok())
    };
    assert_eq!(
        files(&with.out)
            .zip(files(&without.out))
            .map(|(a, b)| a - b),
        Some(2),
        "{}\n{}",
        with.out,
        without.out
    );

    // render: the chime plays with the plug-in, is unknown without it.
    let notes = |out: &str| {
        out.split(" note(s) played")
            .next()
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|n| n.parse::<usize>().ok())
    };
    let with = hitbench(&[
        "render", &demo, "--script", &script, "-o", &wav, "--plugin", &plug,
    ]);
    assert_eq!(with.code, ExitCode::SUCCESS, "{}\n{}", with.out, with.err);
    assert!(
        with.out.contains("plug_chime: started on voice"),
        "{}",
        with.out
    );
    let without = hitbench(&["render", &demo, "--script", &script, "-o", &wav]);
    assert!(without.out.contains("unknown event"), "{}", without.out);
    assert_eq!(
        notes(&with.out),
        notes(&without.out).map(|n| n + 1),
        "the chime is one note more:\n{}\n{}",
        with.out,
        without.out
    );

    // play, on the null output.
    let run = hitbench(&[
        "play",
        &demo,
        "--script",
        &script,
        "--null-audio",
        "--tail",
        "0.3",
        "--plugin",
        &plug,
    ]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}\n{}", run.out, run.err);
    assert!(
        run.out.contains("plug_chime: started on voice"),
        "{}",
        run.out
    );

    // test: a script that expects the chime, given as a file outside the project.
    let qa = dir.join("chime.qa");
    std::fs::write(&qa, "0 ui plug_chime\n0.1 expect started plug_chime\n").unwrap();
    let run = hitbench(&["test", &demo, &text(&qa), "--plugin", &plug]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}\n{}", run.out, run.err);
    assert!(run.out.contains("1 passed, 0 failed"), "{}", run.out);
    let run = hitbench(&["test", &demo, &text(&qa)]);
    assert!(run.out.contains("0 passed, 1 failed"), "{}", run.out);

    // replay: a capture made with the plug-in replays the same against its own folders
    // (the plug-in among them), differs against the bare demo, matches with it again.
    let cap = text(&dir.join("chime.hbcap"));
    let run = hitbench(&[
        "render",
        &demo,
        "--script",
        &script,
        "-o",
        &wav,
        "--plugin",
        &plug,
        "--capture",
        &cap,
    ]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}\n{}", run.out, run.err);
    let run = hitbench(&["replay", &cap, "--diff"]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}\n{}", run.out, run.err);
    let run = hitbench(&["replay", &cap, "--project", &demo, "--diff"]);
    assert_eq!(run.code, ExitCode::from(1), "{}\n{}", run.out, run.err);
    let run = hitbench(&[
        "replay",
        &cap,
        "--project",
        &demo,
        "--plugin",
        &plug,
        "--diff",
    ]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}\n{}", run.out, run.err);

    // A plug-in folder that is not there.
    let missing = text(&dir.join("nowhere"));
    for command in [
        vec!["check", &demo, "--plugin", &missing],
        vec![
            "render", &demo, "--script", &script, "-o", &wav, "--plugin", &missing,
        ],
        vec!["test", &demo, "--plugin", &missing],
        vec!["replay", &cap, "--plugin", &missing, "--diff"],
    ] {
        let run = hitbench(&command);
        // The command line is wrong (for `replay --diff`: it cannot compare).
        assert_eq!(run.code, ExitCode::from(2), "{command:?}");
        assert!(
            run.err
                .contains(&format!("no such plug-in folder: `{missing}`")),
            "{command:?}: {}",
            run.err
        );
    }
}
