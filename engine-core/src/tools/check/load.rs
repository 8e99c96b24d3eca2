//! The loader's and assembler's diagnostics as findings: which rule each belongs to
//! (from its code), raised to errors where the linter knows they matter, and a "did you
//! mean" where the project has an obvious candidate. Only codes and the diagnostics'
//! facts (subject, section, suggestion) are read, never a message's words.

use super::facts::CodeFacts;
use super::lint::{Finding, Lint};
use super::unused::sound_refs;
use crate::toolchain::diag::{DiagCode, Diagnostic, Severity};
use crate::toolchain::project::Project;
use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// Patches without a sample, by where they are defined (the place of their load
/// warning), and every sound something refers to: what [`LoadFindings::finding`] needs to
/// tell a missing sample that matters from one that does not.
pub(super) struct LoadFindings<'p> {
    project: &'p Project,
    facts: &'p CodeFacts<'p>,
    used: HashSet<u32>,
    sampleless: HashMap<(&'p Path, u32), Vec<u32>>,
    /// The project's sample files, indexed when a missing sample first needs them.
    samples: OnceCell<SampleNames>,
}

impl<'p> LoadFindings<'p> {
    pub(super) fn new(project: &'p Project, facts: &'p CodeFacts<'p>) -> Self {
        let mut sampleless: HashMap<(&Path, u32), Vec<u32>> = HashMap::new();
        for p in project.patches.values().filter(|p| p.file.is_none()) {
            sampleless
                .entry((&*p.origin.file, p.origin.line))
                .or_default()
                .push(p.id);
        }
        Self {
            project,
            facts,
            used: sound_refs(project, facts),
            sampleless,
            samples: OnceCell::new(),
        }
    }

    /// A load diagnostic as a finding: its rule ([`classify`]), raised to an error when
    /// the linter considers it one (a missing sample of a patch in use, an event whose
    /// track nobody defines), reworded where the loader's words say less than the
    /// linter knows, and with a suggestion where one is obvious.
    pub(super) fn finding(&self, d: &Diagnostic) -> Finding {
        let project = self.project;
        let lint = classify(d);
        let mut diagnostic = d.clone();
        let raise = match lint {
            Lint::EventWithoutTrack => true,
            Lint::MissingSample => self
                .sampleless
                .get(&(d.file.as_path(), d.line))
                .is_some_and(|ids| {
                    ids.iter().any(|id| {
                        self.used.contains(id) || self.facts.computed_patches.contains(id)
                    })
                }),
            _ => false,
        };
        if raise {
            diagnostic.severity = Severity::Error;
        }
        if lint == Lint::EventWithoutTrack
            && let Some(event) = d.subject().and_then(|name| project.event(name))
        {
            diagnostic.message = format!(
                "event `{}` plays track {} (0x{:x}), which no [Track] table, export table \
                 or label defines: the event does nothing",
                event.name, event.track_id, event.track_id
            );
        }
        if lint == Lint::DuplicateDefinition
            && let Some(message) = set_again(project, d)
        {
            diagnostic.message = message;
        }
        if diagnostic.suggestion().is_none()
            && let Some(hint) = suggestion(project, &diagnostic, &self.samples)
        {
            diagnostic.message.push_str(&hint.text);
            diagnostic = diagnostic.with_suggestion(Some(hint.name));
        }
        Finding { lint, diagnostic }
    }
}

/// The rule a load diagnostic belongs to, from its code ([`Lint::of`]);
/// [`Lint::Load`] for a code no other rule takes.
pub fn classify(diagnostic: &Diagnostic) -> Lint {
    Lint::of(diagnostic.code)
}

/// The table parser's "`key` is set again in \[Section\] on line N" names a line of the
/// table document; for `LIST` lines of a source that is not a line of the file, so this
/// says the source line of the definition that won instead.
fn set_again(project: &Project, d: &Diagnostic) -> Option<String> {
    if d.file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("hot"))
    {
        return None;
    }
    let key = d.subject()?;
    let section = d.section()?;
    let id = || -> Option<u32> {
        let value = crate::toolchain::formats::number::parse_int(key).or_else(|| match project
            .value(key)?
            .value
        {
            crate::toolchain::project::NameValue::Value(v) => Some(v),
            crate::toolchain::project::NameValue::Code(_) => None,
        })?;
        u32::try_from(value).ok()
    };
    let winner = match section.to_ascii_lowercase().as_str() {
        "patch" => &project.patches.get(&id()?)?.origin,
        "track" => &project.tracks.get(&id()?)?.origin,
        "globalhitlist" => &project.hit_lists.get(&id()?)?.origin,
        "eventmapping" => &project.event(key)?.origin,
        _ => return None,
    };
    let later = if *winner.file == *d.file && winner.line > d.line {
        format!("on line {}", winner.line)
    } else {
        "later".to_string()
    };
    Some(format!(
        "`{key}` is set again in [{section}] {later}; this earlier definition is ignored"
    ))
}

/// What the linter suggests: the name meant, and the words added to the message.
struct Hint {
    name: String,
    text: String,
}

impl Hint {
    /// " (did you mean `name`?)".
    fn name(name: &str) -> Self {
        Self {
            name: name.to_string(),
            text: format!(" (did you mean `{name}`?)"),
        }
    }
}

/// A "did you mean" for a load diagnostic that suggests nothing yet, when the project
/// has an obvious candidate for its subject.
fn suggestion(project: &Project, d: &Diagnostic, samples: &OnceCell<SampleNames>) -> Option<Hint> {
    let subject = d.subject()?;
    match d.code {
        DiagCode::UnboundSymbol | DiagCode::UnknownSubroutine => {
            let name = subject;
            // A `[Track]` subroutine must be a label; other names may be values too.
            let labels_only = d.code == DiagCode::UnknownSubroutine;
            let mut names: Vec<&str> = project.labels.values().map(|n| &*n.name).collect();
            if !labels_only {
                names.extend(project.values.values().map(|n| &*n.name));
                names.extend(crate::toolchain::symbols::CONSTANTS.iter().map(|(n, _)| *n));
            }
            names.retain(|n| !n.eq_ignore_ascii_case(name));
            let best = crate::toolchain::suggest::closest(name, names.iter().copied())?;
            Some(Hint::name(best))
        }
        DiagCode::MissingSample | DiagCode::SampleRefused => {
            let samples = samples.get_or_init(|| SampleNames::new(project));
            similar_sample(samples, subject).map(|s| Hint::name(&s))
        }
        DiagCode::EventWithoutTrack => {
            let event = project.event(subject)?;
            let track = project
                .track_by_name(&event.name)
                .filter(|t| t.id != event.track_id)
                .or_else(|| {
                    let names = project.tracks.values().map(|t| &*t.name);
                    let best = crate::toolchain::suggest::closest(&event.name, names)?;
                    project.track_by_name(best)
                })?;
            Some(Hint {
                name: track.name.to_string(),
                text: format!(
                    " (did you mean track 0x{:x} `{}`, defined at {}?)",
                    track.id, track.name, track.origin
                ),
            })
        }
        _ => None,
    }
}

/// The project's sample files by resource name, file name and lower-case stem — built
/// once per check, however many samples are missing.
struct SampleNames {
    /// Resource names, in the project's order.
    names: Vec<String>,
    /// The file name of each.
    file_names: Vec<String>,
    /// The first name of each lower-case stem.
    by_stem: HashMap<String, usize>,
}

impl SampleNames {
    fn new(project: &Project) -> Self {
        let names: Vec<String> = project
            .samples
            .iter()
            .filter_map(|f| crate::toolchain::project::resource_name(f, &project.dirs))
            .collect();
        let file_names: Vec<String> = names
            .iter()
            .map(|n| n.rsplit('/').next().unwrap_or(n).to_string())
            .collect();
        let mut by_stem = HashMap::new();
        for (index, name) in file_names.iter().enumerate() {
            let stem = name.rsplit_once('.').map_or(name.as_str(), |(s, _)| s);
            by_stem.entry(stem.to_ascii_lowercase()).or_insert(index);
        }
        Self {
            names,
            file_names,
            by_stem,
        }
    }
}

/// A sample file of the project like the missing `text` (as a patch wrote it): the same
/// name with another extension, else a close name; written the way the patch writes
/// paths.
fn similar_sample(samples: &SampleNames, text: &str) -> Option<String> {
    let wanted = crate::toolchain::formats::hot::hot_path_to_relative(text);
    let wanted_name = wanted.file_name()?.to_string_lossy().to_string();
    let wanted_stem = wanted.file_stem()?.to_string_lossy().to_ascii_lowercase();
    let index = match samples.by_stem.get(&wanted_stem) {
        Some(&index) => index,
        None => {
            let names = samples.file_names.iter().map(String::as_str);
            let best = crate::toolchain::suggest::closest(&wanted_name, names)?;
            samples.file_names.iter().position(|name| name == best)?
        }
    };
    let found = samples.names.get(index)?.clone();
    Some(if text.contains('\\') {
        found.replace('/', "\\")
    } else {
        found
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_diagnostics_are_classified_by_code() {
        let d = |code| Diagnostic::error(code, Path::new("a"), 1, 0, "");
        for (code, lint) in [
            (DiagCode::UnboundSymbol, Lint::UnboundSymbol),
            (DiagCode::UnknownSubroutine, Lint::UnboundSymbol),
            (DiagCode::MissingSample, Lint::MissingSample),
            (DiagCode::SampleRefused, Lint::MissingSample),
            (DiagCode::SampleOutsideData, Lint::MissingSample),
            (DiagCode::EventWithoutTrack, Lint::EventWithoutTrack),
            (DiagCode::DuplicateKey, Lint::DuplicateDefinition),
            (DiagCode::UnknownOpcode, Lint::Load),
            (DiagCode::LabelAsNumber, Lint::Load),
        ] {
            assert_eq!(classify(&d(code)), lint, "{code}");
        }
    }
}
