//! The loader's and assembler's diagnostics as findings: which rule each belongs to
//! (read from their wording), raised to errors where the linter knows they matter, and a
//! "did you mean" where the project has an obvious candidate.

use super::facts::CodeFacts;
use super::lint::{Finding, Lint};
use super::unused::sound_refs;
use crate::toolchain::diag::{Diagnostic, Severity};
use crate::toolchain::project::Project;
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
}

impl<'p> LoadFindings<'p> {
    pub(super) fn new(project: &'p Project, facts: &'p CodeFacts<'p>) -> Self {
        let mut sampleless: HashMap<(&Path, u32), Vec<u32>> = HashMap::new();
        for p in project.patches.values().filter(|p| p.file.is_none()) {
            sampleless
                .entry((p.origin.file.as_path(), p.origin.line))
                .or_default()
                .push(p.id);
        }
        Self {
            project,
            facts,
            used: sound_refs(project, facts),
            sampleless,
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
            && let Some(event) = quoted(&d.message).and_then(|name| project.event(name))
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
        if let Some(hint) = suggestion(project, lint, &diagnostic.message) {
            diagnostic.message.push_str(&hint);
        }
        Finding { lint, diagnostic }
    }
}

/// The rule a load diagnostic belongs to, read from the loader's and assembler's
/// wording; [`Lint::Load`] for anything else.
pub fn classify(diagnostic: &Diagnostic) -> Lint {
    let m = diagnostic.message.as_str();
    if m.contains("cannot bind `")
        || (m.starts_with("undefined ") && m.contains('`'))
        || m.contains("is not a label in any loaded code")
        || m.contains("is not defined (no equate, constant or name has it)")
        || m.contains(": unknown name(s) ")
    {
        Lint::UnboundSymbol
    } else if (m.contains("sample file `") && m.ends_with("not found"))
        || (m.contains("sample file `") && m.contains("` is refused ("))
        || m.contains("is outside the data directories")
    {
        Lint::MissingSample
    } else if m.contains("which no table, export table or label defines") {
        Lint::EventWithoutTrack
    } else if m.contains("` is set again in [") {
        Lint::DuplicateDefinition
    } else {
        Lint::Load
    }
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
    let key = quoted(&d.message)?;
    let section = d.message.split("in [").nth(1)?.split(']').next()?;
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
    let later = if winner.file == d.file && winner.line > d.line {
        format!("on line {}", winner.line)
    } else {
        "later".to_string()
    };
    Some(format!(
        "`{key}` is set again in [{section}] {later}; this earlier definition is ignored"
    ))
}

/// The first name in backquotes in a message.
fn quoted(message: &str) -> Option<&str> {
    let start = message.find('`')? + 1;
    let len = message.get(start..)?.find('`')?;
    message.get(start..start + len)
}

/// A " (did you mean …?)" for a load diagnostic, when the project has an obvious
/// candidate and the message does not already suggest one.
fn suggestion(project: &Project, lint: Lint, message: &str) -> Option<String> {
    if message.contains("did you mean") {
        return None;
    }
    match lint {
        Lint::UnboundSymbol => {
            let name = quoted(message)?;
            let labels_only = message.contains("is not a label");
            let mut names: Vec<&str> = project.labels.values().map(|n| n.name.as_str()).collect();
            if !labels_only {
                names.extend(project.values.values().map(|n| n.name.as_str()));
                names.extend(crate::toolchain::symbols::CONSTANTS.iter().map(|(n, _)| *n));
            }
            names.retain(|n| !n.eq_ignore_ascii_case(name));
            let best = crate::toolchain::suggest::closest(name, names.iter().copied())?;
            Some(format!(" (did you mean `{best}`?)"))
        }
        Lint::MissingSample if message.contains("sample file `") => {
            let text = message
                .split("sample file `")
                .nth(1)
                .and_then(|rest| rest.split('`').next())?;
            similar_sample(project, text).map(|s| format!(" (did you mean `{s}`?)"))
        }
        Lint::EventWithoutTrack => {
            let event = project.event(quoted(message)?)?;
            let track = project
                .track_by_name(&event.name)
                .filter(|t| t.id != event.track_id)
                .or_else(|| {
                    let names = project.tracks.values().map(|t| t.name.as_str());
                    let best = crate::toolchain::suggest::closest(&event.name, names)?;
                    project.track_by_name(best)
                })?;
            Some(format!(
                " (did you mean track 0x{:x} `{}`, defined at {}?)",
                track.id, track.name, track.origin
            ))
        }
        _ => None,
    }
}

/// A sample file of the project like the missing `text` (as a patch wrote it): the same
/// name with another extension, else a close name; written the way the patch writes
/// paths.
fn similar_sample(project: &Project, text: &str) -> Option<String> {
    let wanted = crate::toolchain::formats::hot::hot_path_to_relative(text);
    let wanted_name = wanted.file_name()?.to_string_lossy().to_string();
    let wanted_stem = wanted.file_stem()?.to_string_lossy().to_ascii_lowercase();
    let names: Vec<String> = project
        .samples
        .iter()
        .filter_map(|f| crate::toolchain::project::resource_name(f, &project.dirs))
        .collect();
    let file_name = |n: &str| n.rsplit('/').next().unwrap_or(n).to_string();
    let same_stem = names.iter().find(|n| {
        let name = file_name(n);
        let stem = name.rsplit_once('.').map_or(name.as_str(), |(s, _)| s);
        stem.eq_ignore_ascii_case(&wanted_stem)
    });
    let found = match same_stem {
        Some(n) => n.clone(),
        None => {
            let by_name: Vec<(String, &String)> = names.iter().map(|n| (file_name(n), n)).collect();
            let best = crate::toolchain::suggest::closest(
                &wanted_name,
                by_name.iter().map(|(name, _)| name.as_str()),
            )?;
            by_name
                .iter()
                .find(|(name, _)| name == best)
                .map(|(_, n)| (*n).clone())?
        }
    };
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
    fn load_diagnostics_are_classified() {
        let d = |m: &str| Diagnostic::error(Path::new("a"), 1, 0, m);
        assert_eq!(
            classify(&d(
                "cannot bind `x` (used by a.src at offset 3): no data directory defines it"
            )),
            Lint::UnboundSymbol
        );
        assert_eq!(classify(&d("undefined label `x`")), Lint::UnboundSymbol);
        assert_eq!(
            classify(&d("patch 5 (x): sample file `gone.wav` not found")),
            Lint::MissingSample
        );
        assert_eq!(
            classify(&d(
                "event `e` refers to track 7, which no table, export table or label defines"
            )),
            Lint::EventWithoutTrack
        );
        assert_eq!(classify(&d("unknown mnemonic `foo`")), Lint::Load);
    }
}
