//! The project linter behind `hitbench check`: problems that load fine but make a
//! project sound wrong — unbound names, missing or undecodable samples, tracks, patches
//! and hit lists nobody uses, events that lead nowhere, tables that refer to nothing,
//! definitions repeated in one directory, and the design document's "common mistake": a
//! sound controlled by the wrong option (control group).
//!
//! [`check`] returns only the linter's own diagnostics, which never repeat one of
//! [`Project::diagnostics`]. [`findings`] returns everything one command shows, sorted by
//! file and line: the load diagnostics (each given the rule it belongs to, see
//! [`classify`]), the linter's, and the world's (`world.ini`, the lot file). Every
//! finding names a [`Lint`], and `docs/check.md` describes each rule.
//!
//! Every sample a patch uses is decoded from end to end with the engine's own decoder
//! (a chunk at a time, up to the decoder's length ceiling): a lint may take a moment, and
//! a damaged file is found before a player hears it.
//!
//! The heuristics are deliberately conservative: a rule that guesses (unused code, wrong
//! group) stays quiet whenever the project gives it a reason to doubt.
//!
//! One file per family of rules: `samples`, `unused`, `definitions`, `groups`, `cycles`;
//! `load` turns load diagnostics into findings; `facts` is what the code refers to,
//! gathered once; `lint` the rules' names and [`Finding`].

use crate::runtime::hash::FastSet;
use crate::toolchain::diag::Diagnostic;
use crate::toolchain::project::Project;
use facts::CodeFacts;
use load::LoadFindings;
use std::collections::{BTreeSet, HashSet};
use std::ffi::OsStr;
use std::path::PathBuf;

mod cycles;

pub use cycles::MAX_CYCLE_SEARCHES;
mod definitions;
mod facts;
mod groups;
mod judging;
mod lint;
mod load;
mod samples;
mod unused;

pub use groups::group_from_name;
pub use judging::SampleJudging;
pub use lint::{Finding, Lint};
pub use load::classify;

/// Instructions the `play-cycle` rule follows from one track's entry before it gives up
/// (generated code can be large; a cycle further in is not seen).
pub const CYCLE_WALK_LIMIT: usize = 20_000;

/// The linter's own diagnostics for a loaded project (none of them repeats a load
/// diagnostic), sorted by file and line.
pub fn check(project: &Project) -> Vec<Diagnostic> {
    lints(project).into_iter().map(|f| f.diagnostic).collect()
}

/// The linter's own findings, sorted by file and line.
pub fn lints(project: &Project) -> Vec<Finding> {
    let facts = CodeFacts::gather(project);
    let mut found = own_lints(project, &facts, None);
    sort(&mut found);
    found
}

/// The linter's own findings: the `bad-sample` rule's first (taking the verdicts of a
/// `judging` begun during the load, after every other rule ran, so the judging has
/// the longest start), then the others'.
fn own_lints(
    project: &Project,
    facts: &CodeFacts<'_>,
    judging: Option<SampleJudging>,
) -> Vec<Finding> {
    let mut rest = Vec::new();
    unused::unused_tracks(project, facts, &mut rest);
    unused::unused_sounds(project, facts, &mut rest);
    definitions::tracks_without_code(project, facts, &mut rest);
    groups::wrong_groups(project, facts, &mut rest);
    definitions::dangling_references(project, &mut rest);
    definitions::duplicate_definitions(project, &mut rest);
    cycles::play_cycles(project, facts, &mut rest);
    cycles::hit_list_cycles(project, &mut rest);
    let judged = judging.map(SampleJudging::finish);
    let mut found = Vec::with_capacity(rest.len());
    samples::bad_samples(project, &mut found, judged.as_ref());
    found.extend(rest);
    found
}

/// Sorts by file, line and column (stable: findings at one place keep their order) and
/// drops exact repeats.
fn sort(found: &mut Vec<Finding>) {
    found.sort_by(|a, b| a.position().cmp(&b.position()));
    let mut seen = HashSet::new();
    found.retain(|f| seen.insert((f.lint, f.diagnostic.clone())));
}

/// Everything `hitbench check` shows, sorted by file and line: the load diagnostics
/// (each with its rule, see [`classify`], and a suggestion where one is obvious) and the
/// linter's own findings.
///
/// A load warning the linter considers an error is raised to an error here: a missing
/// sample of a patch that is in use, and an event whose track nobody defines.
pub fn findings(project: &Project) -> Vec<Finding> {
    findings_with(project, None)
}

/// [`findings`], with the samples judged by `judging` (begun while `project` loaded:
/// [`SampleJudging`]) rather than judged now. The same findings, sooner.
pub fn findings_judged(project: &Project, judging: SampleJudging) -> Vec<Finding> {
    findings_with(project, Some(judging))
}

fn findings_with(project: &Project, judging: Option<SampleJudging>) -> Vec<Finding> {
    let facts = CodeFacts::gather(project);
    let load = LoadFindings::new(project, &facts);
    let mut all: Vec<Finding> = project
        .diagnostics
        .iter()
        .map(|d| load.finding(d))
        .collect();
    // The world's before the samples' (which wait for the judging), in the same order.
    let world = world_findings(project);
    all.extend(own_lints(project, &facts, judging));
    all.extend(world);
    sort(&mut all);
    all
}

/// The problems of the project's world: every data directory's `world.ini`, the lot file
/// it names, the stations', music and ambience files — what the workbench and the
/// renderer would report when they load the world.
fn world_findings(project: &Project) -> Vec<Finding> {
    /// Rate and seed only shape playback, not what is read.
    const RATE: u32 = 48_000;
    let director = crate::world::director::WorldDirector::load(project, RATE, 0);
    director
        .diagnostics()
        .iter()
        .map(|d| Finding {
            lint: Lint::World,
            diagnostic: d.clone(),
        })
        .collect()
}

/// How many files the project was read from (sources and the files they include,
/// built sets, tables, event lists and samples).
pub fn files_checked(project: &Project) -> usize {
    // By the paths' bytes (each file's path is spelled one way throughout a load), with
    // the engine's fast hash: `Path`'s own hash walks its parts, which for 100,000
    // samples costs more than the count is worth.
    let mut files: FastSet<&OsStr> = FastSet::default();
    files.reserve(project.inputs.samples.len() + project.inputs.pieces.len());
    for piece in &project.inputs.pieces {
        files.insert(piece.path.as_os_str());
        files.extend(piece.stamps.iter().map(|s| s.path.as_os_str()));
    }
    files.extend(project.inputs.samples.iter().map(|s| s.path.as_os_str()));
    files.extend(project.samples.iter().map(|s| s.as_os_str()));
    let mut world: BTreeSet<PathBuf> = project
        .dirs
        .iter()
        .map(|dir| dir.join(crate::world::settings::FILE_NAME))
        .filter(|file| file.is_file())
        .collect();
    let (ini, mut ignored) = crate::world::settings::WorldIni::load(&project.dirs);
    world.extend(crate::world::lot::Lot::file_in_settings(&ini, &mut ignored));
    world.retain(|file| !files.contains(file.as_os_str()));
    files.len() + world.len()
}
