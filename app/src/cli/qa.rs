//! `hitbench test`: a project's QA scripts (`qa/*.qa`, or the files given) run offline,
//! in parallel across the machine's cores, reported in a stable order; JUnit XML for CI
//! systems.

use super::args::usage;
use super::progress::Bar;
use super::render::{load_project, plugin_dirs};
use super::{EXIT_INPUT_ERRORS, Io};
use engine_core::host::qa::{ScriptRun, run_files, suite_files};
use engine_core::toolchain::fsrules;
use engine_core::toolchain::project::Project;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;

/// Runs `hitbench test <project> [files…] [--junit out.xml]`.
pub fn run(args: &mut super::Args, io: &mut Io<'_>) -> anyhow::Result<ExitCode> {
    let junit = args.value(&["--junit"])?.map(PathBuf::from);
    let plugins = plugin_dirs(args)?;
    let cache_budget = super::render::cache_budget(args)?;
    let dir = args.next_positional().map(PathBuf::from).ok_or_else(|| {
        usage("test needs a project folder: hitbench test <project> [files.qa…] [--junit out.xml]")
    })?;
    // A file given is found as given, else inside the project (`qa/ui_sounds.qa`).
    let mut files: Vec<PathBuf> = std::iter::from_fn(|| args.next_positional())
        .map(PathBuf::from)
        .map(|file| {
            let inside = dir.join(&file);
            if !file.exists() && inside.exists() {
                inside
            } else {
                file
            }
        })
        .collect();
    args.finish()?;
    super::render::project_folder(&dir)?;
    if files.is_empty() {
        files =
            suite_files(&dir).map_err(|e| anyhow::anyhow!("cannot list the QA scripts: {e}"))?;
        if files.is_empty() {
            writeln!(io.err, "hitbench: {} has no qa/*.qa scripts", dir.display())?;
            return Ok(ExitCode::from(EXIT_INPUT_ERRORS));
        }
    }
    if let Some(path) = &junit {
        let inputs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
        super::paths::check_output(path, &inputs)?;
    }
    let project = load_project(&dir, &plugins, io)?;
    let bar = Bar::new(
        io,
        &format!("testing {}", dir.display()),
        files.len() as u64,
    );
    let runs = run_all(&project, &files, cache_budget, &bar);
    drop(bar);
    let mut failed = 0;
    for (file, result) in files.iter().zip(&runs) {
        failed += usize::from(!result.passed());
        report(file, result, io)?;
    }
    writeln!(io.out, "{} passed, {failed} failed", runs.len() - failed)?;
    if let Some(path) = &junit {
        let inputs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
        fsrules::write_output(path, &inputs, junit_xml(&files, &runs).as_bytes())
            .map_err(super::paths::output_error)?;
        writeln!(io.out, "wrote {}", path.display())?;
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_INPUT_ERRORS)
    })
}

/// Every script, on as many threads as the machine has cores; results in `files`' order.
/// `bar` steps as each script ends.
fn run_all(
    project: &Project,
    files: &[PathBuf],
    cache_budget: Option<usize>,
    bar: &Bar,
) -> Vec<ScriptRun> {
    let results: Mutex<Vec<Option<ScriptRun>>> =
        Mutex::new(std::iter::repeat_with(|| None).take(files.len()).collect());
    let done = |index: usize, run: ScriptRun| {
        if let Ok(mut results) = results.lock() {
            results[index] = Some(run);
        }
        bar.step();
    };
    let cancel = AtomicBool::new(false);
    run_files(project, files, false, cache_budget, &cancel, &done);
    results
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .into_iter()
        .map(|r| r.unwrap_or_else(|| ScriptRun::Broken(vec!["the script's run stopped".into()])))
        .collect()
}

/// One line for the script; for each failed expectation its place, what was expected,
/// what was, when, and the decision behind it.
fn report(file: &Path, run: &ScriptRun, io: &mut Io<'_>) -> anyhow::Result<()> {
    let name = file.display();
    match run {
        ScriptRun::Broken(problems) => {
            writeln!(io.out, "FAIL {name}: cannot run")?;
            for problem in problems {
                writeln!(io.out, "  {problem}")?;
            }
        }
        ScriptRun::Ran(report, _) => {
            let failures: Vec<_> = report.failures().collect();
            if failures.is_empty() {
                let total = report.results.len();
                writeln!(io.out, "ok   {name}: {total} expectation(s)")?;
            } else {
                writeln!(io.out, "FAIL {name}: {}", report.summary())?;
            }
            for failure in failures {
                let seconds = failure.at.samples() as f64 / f64::from(report.rate.max(1));
                // Trouble from the project as loaded stands at no line of the script.
                let place = match failure.expectation.line {
                    0 => name.to_string(),
                    line => format!("{name}:{line}"),
                };
                writeln!(
                    io.out,
                    "  {place}: {}\n    actually: {} (at {seconds:.3} s)",
                    failure.label(),
                    failure.outcome.actual
                )?;
                if let Some(decision) = &failure.outcome.decision {
                    for line in decision.explain(report.rate) {
                        writeln!(io.out, "    why: {line}")?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// The runs as JUnit XML: one test suite, one test case per expectation (or one per
/// script that could not run).
fn junit_xml(files: &[PathBuf], runs: &[ScriptRun]) -> String {
    let mut cases = String::new();
    let (mut tests, mut failures) = (0, 0);
    for (file, run) in files.iter().zip(runs) {
        let class = escape(&file.display().to_string());
        match run {
            ScriptRun::Broken(problems) => {
                tests += 1;
                failures += 1;
                let _ = write!(
                    cases,
                    "    <testcase classname=\"{class}\" name=\"(script)\">\n      <failure message=\"cannot run\">{}</failure>\n    </testcase>\n",
                    escape(&problems.join("\n"))
                );
            }
            ScriptRun::Ran(report, _) => {
                for result in &report.results {
                    tests += 1;
                    let name = escape(&format!("{}: {}", result.expectation.line, result.label()));
                    if result.outcome.passed {
                        let _ = writeln!(
                            cases,
                            "    <testcase classname=\"{class}\" name=\"{name}\"/>"
                        );
                    } else {
                        failures += 1;
                        let _ = write!(
                            cases,
                            "    <testcase classname=\"{class}\" name=\"{name}\">\n      <failure message=\"{}\"/>\n    </testcase>\n",
                            escape(&result.outcome.actual)
                        );
                    }
                }
            }
        }
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites tests=\"{tests}\" failures=\"{failures}\">\n  <testsuite name=\"hitbench qa\" tests=\"{tests}\" failures=\"{failures}\">\n{cases}  </testsuite>\n</testsuites>\n"
    )
}

/// `text` safe inside XML attributes and elements.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && !matches!(c, '\n' | '\t' | '\r') => {}
            c => out.push(c),
        }
    }
    out
}
