//! Every command that writes a file, over what it must not replace: a device (through a
//! link), a named pipe without a reader (which must not block it) and one of the
//! command's own inputs. Each is refused with the path named, exit status 2, and the
//! thing that was there stays as it was.

use hitbench_tests::{TempDir, hitbench, hitbench_within, mkfifo, workspace};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

fn text(path: &Path) -> String {
    path.display().to_string()
}

/// The inputs the commands read, made once in `dir`.
struct Inputs {
    demo: String,
    script: PathBuf,
    qa: PathBuf,
    wav: PathBuf,
    hit: PathBuf,
    source: PathBuf,
    capture: PathBuf,
}

impl Inputs {
    fn new(dir: &TempDir) -> Self {
        let demo = text(&workspace().join("projects/demo"));
        let script = dir.join("script.txt");
        std::fs::write(&script, "0.0 ui ui click\n").unwrap();
        let qa = dir.join("click.qa");
        std::fs::write(&qa, "0.0 ui ui click\n0.1 expect playing ui\n").unwrap();
        let source = dir.join("seed_tracks.src");
        for name in ["seed_tracks.src", "generic.src"] {
            let from = workspace().join("projects/seed-examples").join(name);
            std::fs::copy(from, dir.join(name)).unwrap();
        }
        let built = dir.join("built");
        let run = hitbench(&["asm", &text(&source), "-o", &text(&built)]);
        assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.err);
        let wav = dir.join("click.wav");
        let capture = dir.join("click.hbcap");
        let run = hitbench(&[
            "render",
            &demo,
            "--script",
            &text(&script),
            "--duration",
            "0.2",
            "-o",
            &text(&wav),
            "--capture",
            &text(&capture),
        ]);
        assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.err);
        Self {
            demo,
            script,
            qa,
            wav,
            hit: built.join("seed_tracks.hit"),
            source,
            capture,
        }
    }
}

/// One command that writes `out`: its arguments, the output's path as it names it and
/// an input of its own.
struct Writer {
    name: &'static str,
    args: Vec<String>,
    own_input: PathBuf,
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

/// Every output-writing command, writing `out` (for `asm`, a folder it writes
/// `seed_tracks.hit` and the rest into: `out` is then that file's path).
fn writers(inputs: &Inputs, out: &Path) -> Vec<Writer> {
    let out_text = text(out);
    let rendered = text(&out.with_file_name("rendered.wav"));
    let asm_dir = text(out.parent().unwrap());
    let demo = inputs.demo.as_str();
    let script = text(&inputs.script);
    vec![
        Writer {
            name: "decode -o",
            args: strings(&["decode", &text(&inputs.wav), "-o", &out_text]),
            own_input: inputs.wav.clone(),
        },
        Writer {
            name: "disasm -o",
            args: strings(&["disasm", &text(&inputs.hit), "-o", &out_text]),
            own_input: inputs.hit.clone(),
        },
        Writer {
            name: "render -o",
            args: strings(&["render", demo, "--script", &script, "-o", &out_text]),
            own_input: inputs.script.clone(),
        },
        Writer {
            name: "render --capture",
            args: strings(&[
                "render",
                demo,
                "--script",
                &script,
                "-o",
                &rendered,
                "--capture",
                &out_text,
            ]),
            own_input: inputs.script.clone(),
        },
        Writer {
            name: "play --capture",
            args: strings(&[
                "play",
                demo,
                "--script",
                &script,
                "--tail",
                "0.1",
                "--null-audio",
                "--capture",
                &out_text,
            ]),
            own_input: inputs.script.clone(),
        },
        Writer {
            name: "test --junit",
            args: strings(&["test", demo, &text(&inputs.qa), "--junit", &out_text]),
            own_input: inputs.qa.clone(),
        },
        Writer {
            name: "capture-text -o",
            args: strings(&["capture-text", &text(&inputs.capture), "-o", &out_text]),
            own_input: inputs.capture.clone(),
        },
        Writer {
            name: "asm -o",
            args: strings(&["asm", &text(&inputs.source), "-o", &asm_dir]),
            own_input: inputs.source.clone(),
        },
    ]
}

/// Runs `writer` and expects a refusal naming `shown` with `reason`, exit status 2.
fn expect_refused(writer: &Writer, shown: &Path, reason: &str) {
    let run = hitbench_within(&writer.args, Duration::from_secs(60))
        .unwrap_or_else(|| panic!("{}: blocked on {}", writer.name, shown.display()));
    assert_eq!(
        run.code,
        ExitCode::from(2),
        "{}: {}\n{}\n{}",
        writer.name,
        shown.display(),
        run.out,
        run.err
    );
    let said = format!("{} {reason}", shown.display());
    assert!(
        run.err.contains(&said),
        "{}: wanted `{said}` in\n{}",
        writer.name,
        run.err
    );
}

#[cfg(unix)]
#[test]
fn no_command_writes_over_a_device_a_pipe_or_its_own_input() {
    use std::os::unix::fs::FileTypeExt as _;
    let dir = TempDir::new("outputs");
    let inputs = Inputs::new(&dir);
    let targets = dir.join("targets");
    std::fs::create_dir_all(&targets).unwrap();

    // A device, through a link: the link stays a link to it.
    let device = targets.join("seed_tracks.hit");
    std::os::unix::fs::symlink("/dev/null", &device).unwrap();
    for writer in writers(&inputs, &device) {
        expect_refused(&writer, &device, "is a device, not a regular file");
        assert!(
            std::fs::symlink_metadata(&device)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }
    std::fs::remove_file(&device).unwrap();

    // A named pipe nobody reads: never opened, never replaced.
    let pipe = targets.join("seed_tracks.hit");
    mkfifo(&pipe);
    for writer in writers(&inputs, &pipe) {
        expect_refused(&writer, &pipe, "is a named pipe (FIFO), not a regular file");
        assert!(std::fs::metadata(&pipe).unwrap().file_type().is_fifo());
    }
    std::fs::remove_file(&pipe).unwrap();

    // The command's own input, as the output.
    for writer in writers(&inputs, &targets.join("unused")) {
        let input = &writer.own_input;
        let before = std::fs::read(input).unwrap();
        let mut own = writer.args.clone();
        let at = own.iter().position(|a| *a == text(&targets.join("unused")));
        let shown = match at {
            Some(at) => {
                own[at] = text(input);
                input.clone()
            }
            // `asm`: the source named like one of its outputs, in the folder written.
            None => {
                let renamed = input.with_extension("hit");
                std::fs::copy(input, &renamed).unwrap();
                let at = own.iter().position(|a| *a == text(input)).unwrap();
                own[at] = text(&renamed);
                let dir_at = own.len() - 1;
                own[dir_at] = text(renamed.parent().unwrap());
                renamed
            }
        };
        let own_writer = Writer {
            name: writer.name,
            args: own,
            own_input: shown.clone(),
        };
        let before_shown = std::fs::read(&shown).unwrap();
        expect_refused(&own_writer, &shown, "is the same file as the input");
        assert_eq!(std::fs::read(input).unwrap(), before, "{}", writer.name);
        assert_eq!(
            std::fs::read(&shown).unwrap(),
            before_shown,
            "{}",
            writer.name
        );
    }
}
