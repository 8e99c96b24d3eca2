//! `hitbench render --loudness` and `hitbench compare` on renders of the demo tour: the
//! loudness figures are plausible, a render does not differ from itself, another seed or
//! a changed script differs from a time on, and bad files are errors naming them.

use hitbench_tests::{Run, TempDir, hitbench, workspace};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Seconds of the tour rendered: the UI sounds, the first voices.
const SECONDS: &str = "4";

fn text(path: &Path) -> String {
    path.display().to_string()
}

/// Renders the demo tour (or `script`) to `out`, with `extra` options; the run must succeed.
fn render(script: Option<&Path>, out: &Path, extra: &[&str]) -> Run {
    let demo = workspace().join("projects/demo");
    render_project(&demo, script, out, extra)
}

/// Renders `script` (the demo tour when `None`) against `project` to `out`, for
/// [`SECONDS`]; the run must succeed.
fn render_project(project: &Path, script: Option<&Path>, out: &Path, extra: &[&str]) -> Run {
    let tour = workspace().join("projects/demo/tour.txt");
    let script = script.unwrap_or(&tour);
    let (project, script, out) = (text(project), text(script), text(out));
    let mut args = vec![
        "render",
        &project,
        "--script",
        &script,
        "-o",
        &out,
        "--duration",
        SECONDS,
    ];
    args.extend_from_slice(extra);
    let run = hitbench(&args);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}\n{}", run.out, run.err);
    run
}

fn compare(a: &Path, b: &Path) -> Run {
    hitbench(&["compare", &text(a), &text(b)])
}

/// The number on the line `<what>: <number> <unit>` of `out`, or `None` for `-inf`.
fn figure(out: &str, what: &str) -> Option<f64> {
    let line = out
        .lines()
        .map(str::trim_start)
        .find_map(|l| l.strip_prefix(&format!("{what}: ")))
        .unwrap_or_else(|| panic!("no `{what}` line in:\n{out}"));
    let number = line.split_whitespace().next().unwrap_or("");
    if number == "-inf" {
        return None;
    }
    Some(
        number
            .parse()
            .unwrap_or_else(|_| panic!("`{what}` is not a number: {line}")),
    )
}

/// The time of `first difference at <t> s` in `out`.
fn first_difference(out: &str) -> f64 {
    let rest = out
        .lines()
        .find_map(|l| l.strip_prefix("first difference at "))
        .unwrap_or_else(|| panic!("no first difference in:\n{out}"));
    let seconds = rest.split_whitespace().next().unwrap_or("");
    assert!(
        seconds.split('.').nth(1).is_some_and(|ms| ms.len() == 3),
        "to the millisecond: {rest}"
    );
    seconds.parse().unwrap()
}

#[test]
fn render_loudness_prints_plausible_figures() {
    let dir = TempDir::new("loudness-render");
    let run = render(None, &dir.join("tour.wav"), &["--loudness"]);
    let integrated = figure(&run.out, "integrated loudness").expect("the tour is heard");
    let short_term = figure(&run.out, "max short-term loudness").expect("heard");
    let momentary = figure(&run.out, "max momentary loudness").expect("heard");
    let true_peak = figure(&run.out, "true peak").expect("heard");
    assert!((-50.0..-5.0).contains(&integrated), "{}", run.out);
    // The loudest 3 s and 400 ms are at least as loud as the whole, within the gating.
    assert!(short_term >= integrated - 1.0, "{}", run.out);
    assert!(momentary >= short_term - 0.5, "{}", run.out);
    assert!((-40.0..=3.0).contains(&true_peak), "{}", run.out);
    // The true peak is at least the sample peak the render line prints.
    let sample_peak: f64 = run
        .out
        .lines()
        .find_map(|l| l.split("peak ").nth(1)?.strip_suffix(" dBFS"))
        .expect("the render line's peak")
        .parse()
        .unwrap();
    assert!(true_peak >= sample_peak - 0.1, "{}", run.out);
    // Without --loudness, no figures.
    let plain = render(None, &dir.join("plain.wav"), &[]);
    assert!(!plain.out.contains("LUFS"), "{}", plain.out);
}

#[test]
fn render_loudness_of_silence_says_silent() {
    // An empty project: nothing plays, not even the world's ambience.
    let dir = TempDir::new("loudness-silent");
    let project = dir.join("project");
    std::fs::create_dir(&project).unwrap();
    let script = dir.join("quiet.txt");
    std::fs::write(&script, "0.0 quietall\n").unwrap();
    let run = render_project(
        &project,
        Some(&script),
        &dir.join("quiet.wav"),
        &["--loudness"],
    );
    assert!(
        run.out.contains("integrated loudness: -inf LUFS (silent)"),
        "{}",
        run.out
    );
    assert!(
        run.out.contains("true peak: -inf dBTP (silent)"),
        "{}",
        run.out
    );
    assert!(!run.out.contains("NaN"), "{}", run.out);
}

#[test]
fn a_render_compared_with_itself_does_not_differ() {
    let dir = TempDir::new("compare-same");
    let a = dir.join("a.wav");
    let b = dir.join("b.wav");
    render(None, &a, &[]);
    render(None, &b, &[]);
    for (x, y) in [(&a, &a), (&a, &b)] {
        let run = compare(x, y);
        assert_eq!(run.code, ExitCode::SUCCESS, "{}\n{}", run.out, run.err);
        assert!(
            run.out.contains("no difference above -60.0 dBFS"),
            "{}",
            run.out
        );
        assert!(
            figure(&run.out, "integrated loudness").is_some(),
            "{}",
            run.out
        );
        assert!(run.out.contains("integrated +0.0 LU"), "{}", run.out);
    }
}

#[test]
fn another_seed_differs_from_a_time_on() {
    let dir = TempDir::new("compare-seed");
    let a = dir.join("a.wav");
    let b = dir.join("b.wav");
    render(None, &a, &[]);
    render(None, &b, &["--seed", "7"]);
    let run = compare(&a, &b);
    assert_eq!(run.code, ExitCode::from(1), "{}\n{}", run.out, run.err);
    let at = first_difference(&run.out);
    assert!((0.0..4.0).contains(&at), "{}", run.out);
}

#[test]
fn a_changed_script_differs_where_it_changed() {
    let dir = TempDir::new("compare-script");
    let tour = std::fs::read_to_string(workspace().join("projects/demo/tour.txt")).unwrap();
    // Without the third UI sound, at 0.8 s.
    let changed: String = tour
        .lines()
        .filter(|l| !l.starts_with("0.8 "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_ne!(
        changed.len(),
        tour.len() + 1,
        "the tour has a line at 0.8 s"
    );
    let script = dir.join("changed.txt");
    std::fs::write(&script, changed).unwrap();
    let a = dir.join("a.wav");
    let b = dir.join("b.wav");
    render(None, &a, &[]);
    render(Some(&script), &b, &[]);
    let run = compare(&a, &b);
    assert_eq!(run.code, ExitCode::from(1), "{}\n{}", run.out, run.err);
    let at = first_difference(&run.out);
    assert!((0.8..0.85).contains(&at), "{}", run.out);
    // A render cut shorter differs where it ends.
    let short = dir.join("short.wav");
    let demo = text(&workspace().join("projects/demo"));
    let tour = text(&workspace().join("projects/demo/tour.txt"));
    let cut = hitbench(&[
        "render",
        &demo,
        "--script",
        &tour,
        "-o",
        &text(&short),
        "--duration",
        "3",
    ]);
    assert_eq!(cut.code, ExitCode::SUCCESS, "{}", cut.err);
    let run = compare(&a, &short);
    assert_eq!(run.code, ExitCode::from(1), "{}\n{}", run.out, run.err);
    assert_eq!(first_difference(&run.out), 3.0, "{}", run.out);
    assert!(run.out.contains("short.wav ends there"), "{}", run.out);
}

#[test]
fn compare_of_missing_damaged_or_unlike_files_exits_2_naming_them() {
    let dir = TempDir::new("compare-bad");
    let a = dir.join("a.wav");
    render(None, &a, &[]);
    let bytes = std::fs::read(&a).unwrap();
    let cut = dir.join("cut.wav");
    std::fs::write(&cut, &bytes[..bytes.len() / 3]).unwrap();
    let garbage = dir.join("garbage.wav");
    std::fs::write(&garbage, b"RIFF\x10\x00\x00\x00WAVEjunkjunkjunk").unwrap();
    let other_rate = dir.join("44k.wav");
    render(None, &other_rate, &["--rate", "44100"]);
    let missing: PathBuf = dir.join("missing.wav");
    for (bad, why) in [
        (&missing, "does not exist"),
        (&cut, "damaged"),
        (&garbage, "WAV"),
        (&other_rate, "sample rates differ"),
    ] {
        for run in [compare(&a, bad), compare(bad, &a)] {
            assert_eq!(run.code, ExitCode::from(2), "{}\n{}", run.out, run.err);
            assert!(run.err.contains(&text(bad)), "{}", run.err);
            assert!(run.err.contains(why), "{why}: {}", run.err);
            assert!(run.out.is_empty(), "{}", run.out);
        }
    }
}

#[test]
fn compare_usage_mistakes_exit_2_and_help_lists_it() {
    let dir = TempDir::new("compare-usage");
    let a = text(&dir.join("a.wav"));
    for args in [
        vec!["compare"],
        vec!["compare", &a],
        vec!["compare", &a, &a, &a],
        vec!["compare", &a, &a, "--threshold", "loud"],
        vec!["compare", &a, &a, "--threshold", "6"],
        vec!["compare", &a, &a, "--window", "0"],
        vec!["compare", &a, &a, "--window", "5000"],
    ] {
        let run = hitbench(&args);
        assert_eq!(run.code, ExitCode::from(2), "{args:?}: {}", run.err);
        assert!(run.err.contains("hitbench: error:"), "{}", run.err);
    }
    let help = hitbench(&["help"]).out;
    assert!(help.contains("compare <a.wav> <b.wav> [--threshold <dB>] [--window <ms>]"));
    assert!(help.contains("--loudness"));
}

#[test]
fn the_threshold_and_window_are_options() {
    let dir = TempDir::new("compare-options");
    let a = dir.join("a.wav");
    let b = dir.join("b.wav");
    render(None, &a, &[]);
    render(None, &b, &["--seed", "7"]);
    let (a, b) = (text(&a), text(&b));
    let strict = hitbench(&["compare", &a, &b, "--threshold", "-60"]);
    let lax = hitbench(&["compare", &a, &b, "--threshold=-3", "--window", "50"]);
    assert_eq!(strict.code, ExitCode::from(1), "{}", strict.err);
    // The seeds' different picks are far below full scale: nothing passes −3 dBFS.
    assert_eq!(lax.code, ExitCode::SUCCESS, "{}\n{}", lax.out, lax.err);
    assert!(
        lax.out
            .contains("no difference above -3.0 dBFS, the RMS of a - b over 50 ms"),
        "{}",
        lax.out
    );
    assert!(lax.out.contains("largest difference: "), "{}", lax.out);
}
