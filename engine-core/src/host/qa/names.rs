//! The names a QA script's expectations use, checked against the project before it runs:
//! an expectation about an event, track, station, sample, hit list, object, room or
//! source file the project does not have can never hold (or never fail) for the reason
//! its author meant, so it is an error at its line and column, with the closest name the
//! project has.
//!
//! Samples are named as the project names them: a patch's name, its path as the source
//! writes it (`sounds\tone.wav`), or a sample file's path in a data folder with either
//! slash, in any case (`toolchain::project::sample_key`).

use super::{NameKind, NameRef, QaScript};
use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::toolchain::project::{NameValue, Project, resource_name, sample_key};
use crate::toolchain::suggest::closest;
use crate::world::director::WorldDirector;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Everything a project has that an expectation may name.
#[derive(Debug, Clone, Default)]
pub struct KnownNames {
    events: Vec<String>,
    tracks: Vec<String>,
    stations: Vec<String>,
    /// Every way a sample may be named, as written (for suggestions) …
    samples: Vec<String>,
    /// … and as [`sample_key`]s.
    sample_keys: HashSet<String>,
    hit_lists: HashSet<u32>,
    hit_list_names: Vec<(String, u32)>,
    objects: Vec<i32>,
    rooms: Vec<String>,
    files: Vec<PathBuf>,
}

impl KnownNames {
    /// What `project` has: its tables and code, and its world (`world.ini`, the lot,
    /// the stations) read as a session reads them.
    pub fn of(project: &Project) -> Self {
        let world = WorldDirector::load(project, 48_000, 0);
        let mut samples = Vec::new();
        for patch in project.patches.values() {
            samples.push(patch.name.to_string());
            samples.push(patch.path_text.to_string());
            if let Some(resource) = &patch.resource {
                samples.push(resource.to_string());
            }
        }
        samples.extend(
            project
                .samples
                .iter()
                .filter_map(|file| resource_name(file, &project.dirs)),
        );
        samples.sort();
        samples.dedup();
        let sample_keys = samples.iter().map(|s| sample_key(s)).collect();
        let hit_list_names = project
            .values
            .values()
            .filter_map(|def| match def.value {
                NameValue::Value(v) => u32::try_from(v)
                    .ok()
                    .filter(|id| project.hit_lists.contains_key(id))
                    .map(|id| (def.name.to_string(), id)),
                NameValue::Code(_) => None,
            })
            .collect();
        Self {
            events: project.events.keys().cloned().collect(),
            tracks: project
                .tracks
                .values()
                .map(|t| t.name.to_string())
                .collect(),
            stations: world.stations().all().map(|s| s.def.name()).collect(),
            samples,
            sample_keys,
            hit_lists: project.hit_lists.keys().copied().collect(),
            hit_list_names,
            objects: world.lot.objects.objects().map(|o| o.id).collect(),
            rooms: world.lot.rooms.iter().map(|r| r.name.clone()).collect(),
            files: project
                .units
                .iter()
                .flat_map(|u| u.files.iter().cloned())
                .collect(),
        }
    }

    /// Whether the project has `name` of `kind`; if not, the closest name it has, if
    /// one is close, and what it has otherwise (for the message).
    fn find(&self, kind: NameKind, name: &str) -> Result<(), Missing> {
        let in_list = |list: &[String]| list.iter().any(|n| n.eq_ignore_ascii_case(name));
        let suggest =
            |list: &[String]| closest(name, list.iter().map(String::as_str)).map(str::to_string);
        let missing = |list: &[String]| Missing {
            suggestion: suggest(list),
            has: list.len(),
        };
        match kind {
            NameKind::Event if in_list(&self.events) => Ok(()),
            NameKind::Event => Err(missing(&self.events)),
            NameKind::Track if in_list(&self.tracks) => Ok(()),
            NameKind::Track => Err(missing(&self.tracks)),
            NameKind::Station if in_list(&self.stations) => Ok(()),
            NameKind::Station => Err(missing(&self.stations)),
            NameKind::Room if in_list(&self.rooms) => Ok(()),
            NameKind::Room => Err(missing(&self.rooms)),
            NameKind::Sample if self.sample_keys.contains(&sample_key(name)) => Ok(()),
            NameKind::Sample => {
                // Suggest among the same spelling of paths the author used.
                let key = sample_key(name);
                let suggestion = closest(&key, self.samples.iter().map(String::as_str))
                    .map(|s| s.replace('\\', "/"));
                Err(Missing {
                    suggestion,
                    has: self.samples.len(),
                })
            }
            NameKind::HitList => {
                let found = match name.parse::<u32>() {
                    Ok(id) => self.hit_lists.contains(&id),
                    Err(_) => self
                        .hit_list_names
                        .iter()
                        .any(|(n, _)| n.eq_ignore_ascii_case(name)),
                };
                if found {
                    return Ok(());
                }
                let names: Vec<String> =
                    self.hit_list_names.iter().map(|(n, _)| n.clone()).collect();
                Err(Missing {
                    suggestion: suggest(&names),
                    has: self.hit_lists.len(),
                })
            }
            NameKind::Object => {
                let id = name.strip_prefix('@').unwrap_or(name).parse::<i32>().ok();
                if id.is_some_and(|id| self.objects.contains(&id)) {
                    return Ok(());
                }
                let mut ids = self.objects.clone();
                ids.sort_unstable();
                let list: Vec<String> = ids.iter().map(|id| format!("@{id}")).collect();
                Err(Missing {
                    suggestion: (!list.is_empty()).then(|| list.join(", ")),
                    has: list.len(),
                })
            }
            NameKind::SourceFile => {
                let wanted = Path::new(name);
                if self.files.iter().any(|f| f.ends_with(wanted)) {
                    return Ok(());
                }
                let names: Vec<String> = self
                    .files
                    .iter()
                    .filter_map(|f| f.file_name())
                    .map(|n| n.to_string_lossy().into_owned())
                    .collect();
                Err(missing(&names))
            }
        }
    }
}

/// A name the project does not have.
struct Missing {
    /// The closest name it has (for objects: every object of the lot).
    suggestion: Option<String>,
    /// How many of that kind it has.
    has: usize,
}

/// Every name in `script`'s expectations that `known` does not have, as an error at its
/// line and column in `file`, with a suggestion when the project has a close name.
pub fn check_names(script: &QaScript, file: &Path, known: &KnownNames) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    for expectation in &script.expectations {
        for NameRef { kind, text, column } in &expectation.names {
            let Err(missing) = known.find(*kind, text) else {
                continue;
            };
            let what = kind.what();
            let hint = match (kind, &missing.suggestion) {
                (NameKind::Object, Some(all)) => format!(" (the lot's objects: {all})"),
                (_, Some(name)) => format!(" (did you mean `{name}`?)"),
                (_, None) if missing.has == 0 => format!(": it has no {what}s"),
                (_, None) => String::new(),
            };
            let message = format!("the project has no {what} `{text}`{hint}");
            let suggestion = missing.suggestion.filter(|_| *kind != NameKind::Object);
            problems.push(
                Diagnostic::error(
                    DiagCode::UnknownName,
                    file,
                    expectation.line,
                    *column,
                    message,
                )
                .with_subject(text.clone())
                .with_suggestion(suggestion),
            );
        }
    }
    problems
}
