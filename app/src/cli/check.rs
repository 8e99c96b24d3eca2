//! `hitbench check`: load a project and lint it — every load diagnostic, then the
//! linter's own (`engine_core::check`), each as `file:line:col: severity: message [rule]`,
//! then a summary line. Exit status 1 on errors (or, with `--strict`, on warnings too).

use super::Io;
use super::args::{Args, usage};
use engine_core::check;
use engine_core::project::Project;
use std::path::PathBuf;
use std::process::ExitCode;

/// Runs `hitbench check <project> [<more data dirs>...] [--strict]`.
pub fn run(args: &mut Args, io: &mut Io<'_>) -> anyhow::Result<ExitCode> {
    let strict = args.flag(&["--strict"]);
    let mut dirs = Vec::new();
    while let Some(dir) = args.next_positional() {
        dirs.push(PathBuf::from(dir));
    }
    args.finish()?;
    if dirs.is_empty() {
        return Err(usage(
            "check needs a project folder: hitbench check <project> [<more data dirs>...] [--strict]",
        ));
    }
    let missing: Vec<String> = dirs
        .iter()
        .filter(|d| !d.is_dir())
        .map(|d| format!("`{}`", d.display()))
        .collect();
    if !missing.is_empty() {
        return Err(anyhow::anyhow!(
            "no such project folder: {}",
            missing.join(", ")
        ));
    }

    let project = Project::load_dirs(&dirs);
    let findings = check::findings(&project);
    for finding in &findings {
        writeln!(io.out, "{finding}")?;
    }
    let errors = findings.iter().filter(|f| f.is_error()).count();
    let warnings = findings.len() - errors;
    let names: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    if findings.is_empty() {
        writeln!(io.out, "{}: clean", names.join(", "))?;
    } else {
        writeln!(
            io.out,
            "{errors} error(s), {warnings} warning(s) in {}",
            names.join(", ")
        )?;
    }
    Ok(if errors > 0 || (strict && warnings > 0) {
        ExitCode::from(super::EXIT_INPUT_ERRORS)
    } else {
        ExitCode::SUCCESS
    })
}
