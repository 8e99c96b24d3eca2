//! `why` in scripts: `hitbench render` and `play` print the explanation of the latest
//! decisions about an event or an object — the verdict, each note's gain as its named
//! contributions multiplying to the total — and a misspelt event or an object not on the
//! lot is an error with a suggestion. [`gain_equations`] reads those products back for
//! these tests and the capture's.

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

/// The gain lines of an explanation (`gain 0.051 = track volume 0.750 × fade (fading)
/// 0.973 × … (-25.9 dB)`): each total with its named factors, as printed.
pub fn gain_equations(out: &str) -> Vec<(f64, Vec<(String, f64)>)> {
    out.lines()
        .filter_map(|line| {
            let (_, rest) = line.split_once(" gain ")?;
            let (total, rest) = rest.split_once(" = ")?;
            let total: f64 = total.parse().ok()?;
            let (factors, _db) = rest.rsplit_once(" (")?;
            let factors = factors
                .split(" × ")
                .map(|f| {
                    let (name, value) = f.rsplit_once(' ').unwrap();
                    (name.to_string(), value.parse::<f64>().unwrap())
                })
                .collect();
            Some((total, factors))
        })
        .collect()
}

/// Asserts that each printed product of factors is its printed total, to the three
/// decimals every number is printed with.
pub fn assert_products_match(equations: &[(f64, Vec<(String, f64)>)]) {
    const HALF: f64 = 0.0005;
    for (total, factors) in equations {
        let low: f64 = factors.iter().map(|(_, v)| (v - HALF).max(0.0)).product();
        let high: f64 = factors.iter().map(|(_, v)| v + HALF).product();
        assert!(
            low - HALF <= *total && *total <= high + HALF,
            "{total} is not the product of {factors:?}"
        );
    }
}

/// The names of an equation's factors.
pub fn names(factors: &[(String, f64)]) -> Vec<&str> {
    factors.iter().map(|(n, _)| n.as_str()).collect()
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
    let equations = gain_equations(out);
    assert!(equations.len() >= 2, "{out}");
    assert_products_match(&equations);
    // Betty's greeting is placed by the view and sung in the VOX group.
    let greet = names(&equations[0].1);
    assert_eq!(greet[0], "track volume", "{out}");
    assert!(greet[1].starts_with("fade ("), "{out}");
    assert_eq!(greet[2..4], ["zoom", "floor"], "{out}");
    assert_eq!(
        greet[greet.len() - 3..],
        ["ducking", "group VOX", "master"],
        "{out}"
    );
    assert!(out.contains("from the screen (x "), "{out}");
    // The child, moved far out of view, laughed unheard: the factor is named.
    assert!(out.contains("line 5: why @3: 1 trigger(s) so far"), "{out}");
    assert!(out.contains("× fade (silent) 0.000 ×"), "{out}");
    assert!(
        out.contains("inaudible: fade (silent) is 0: the object is outside the view's fade"),
        "{out}"
    );
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
    assert!(run.out.contains("× zoom "), "{}", run.out);
    assert_products_match(&gain_equations(&run.out));
}
