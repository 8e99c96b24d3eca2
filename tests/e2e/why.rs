//! `why` in scripts: `hitbench render` and `play` print the explanation of the latest
//! decisions about an event or an object — the verdict, each note's gain factor by factor
//! — and a misspelt event or an object not on the lot is an error with a suggestion.

use hitbench_tests::{Run, TempDir, hitbench, workspace};
use std::process::ExitCode;

fn demo() -> String {
    workspace().join("projects/demo").display().to_string()
}

/// Runs `command` (render or play) on the demo with `script`.
fn run(command: &str, tag: &str, script: &str) -> Run {
    let dir = TempDir::new(tag);
    let path = dir.join("script.txt");
    std::fs::write(&path, script).unwrap();
    let (script, out) = (path.display().to_string(), dir.join("out.wav"));
    let out = out.display().to_string();
    let project = demo();
    let mut args = vec![command, &project, "--script", &script];
    match command {
        "render" => args.extend(["-o", &out, "--duration", "2"]),
        _ => args.extend(["--tail", "0", "--null-audio"]),
    }
    hitbench(&args)
}

#[test]
fn a_render_script_with_why_prints_the_explanation() {
    let run = run(
        "render",
        "why-render",
        "0.0 sev vox greet @2\n\
         0.0 move 3 30 10\n\
         0.0 sev vox laugh @3\n\
         0.5 why vox greet\n\
         0.5 why @3\n\
         0.6 why vox gret\n\
         0.6 why @99\n",
    );
    assert_eq!(run.code, ExitCode::SUCCESS, "{}\n{}", run.out, run.err);
    let out = &run.out;
    // Betty's greeting: a free voice and a note whose factors multiply to its gain.
    assert!(
        out.contains("line 4: why vox_greet: 1 trigger(s) so far; the latest:"),
        "{out}"
    );
    assert!(out.contains("`vox_greet` from object 2"), "{out}");
    assert!(out.contains("started on free voice"), "{out}");
    assert!(
        out.contains("× external volume 1.000 × ducking 1.000"),
        "{out}"
    );
    // The child, moved far out of view, laughed unheard: the factor is named.
    assert!(out.contains("line 5: why @3: 1 trigger(s) so far"), "{out}");
    assert!(out.contains("inaudible: the external volume is 0"), "{out}");
    // Mistakes are answered like other commands' (the render goes on).
    assert!(
        out.contains("line 6: error: unknown event `vox_gret` (did you mean `vox_greet`?)"),
        "{out}"
    );
    assert!(
        out.contains("line 7: error: there is no object 99 on the lot (on the lot: @1, @2"),
        "{out}"
    );
}

#[test]
fn a_play_script_with_why_prints_the_explanation() {
    let run = run(
        "play",
        "why-play",
        "0.0 sev vox greet @2\n0.3 why vox greet\n",
    );
    assert_eq!(run.code, ExitCode::SUCCESS, "{}\n{}", run.out, run.err);
    assert!(
        run.out
            .contains(":2: why vox_greet: 1 trigger(s) so far; the latest:"),
        "{}",
        run.out
    );
    assert!(run.out.contains("× external volume"), "{}", run.out);
}
