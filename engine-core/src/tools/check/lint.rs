//! The linter's rules ([`Lint`], each with the name `hitbench check` prints) and a
//! [`Finding`]: a diagnostic with the rule that found it, printed like rustc's.

use crate::toolchain::diag::{Diagnostic, printable};
use crate::toolchain::project::{Origin, TrackDef};
use std::fmt;
use std::path::Path;

/// A rule of the linter. Its [`name`](Lint::name) is what `hitbench check` prints in
/// brackets after each diagnostic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lint {
    /// A load problem that belongs to no other rule (a source that does not assemble, a
    /// table line that does not parse, …).
    Load,
    /// A name used but defined nowhere: an `EXTERN`/`.sym` import left unbound, a
    /// `[Track]` subroutine that is no label, a table name that is no value.
    UnboundSymbol,
    /// A `[Patch]` whose sample file is not in the data directories.
    MissingSample,
    /// A sample file that exists but does not decode (or is damaged).
    BadSample,
    /// A track no event maps to and no code plays.
    UnusedTrack,
    /// A patch no track, hit list or code refers to.
    UnusedPatch,
    /// A hit list no track, other hit list or code refers to.
    UnusedHitList,
    /// An event whose track no table, export table or label defines.
    EventWithoutTrack,
    /// A track with no code at its entry and nothing to play without code.
    TrackWithoutCode,
    /// A track whose control group disagrees with what its names or samples say it is.
    WrongGroup,
    /// A hit list entry, or a track's patch or hit list, that is neither a patch nor a
    /// hit list.
    DanglingReference,
    /// An event, track, patch or hit list defined twice in one data directory.
    DuplicateDefinition,
    /// A problem in the world around the sounds: a `world.ini` value, the lot file it
    /// names, a station, music or ambience file.
    World,
    /// Tracks that start one another with `play_trk` without waiting in between (or a
    /// track that allows several copies and starts itself).
    PlayCycle,
    /// A hit list that contains itself, directly or through lists inside it.
    HitListCycle,
}

impl Lint {
    /// Every rule, in the order `docs/check.md` lists them.
    pub const ALL: [Lint; 15] = [
        Lint::Load,
        Lint::UnboundSymbol,
        Lint::MissingSample,
        Lint::BadSample,
        Lint::UnusedTrack,
        Lint::UnusedPatch,
        Lint::UnusedHitList,
        Lint::EventWithoutTrack,
        Lint::TrackWithoutCode,
        Lint::WrongGroup,
        Lint::DanglingReference,
        Lint::DuplicateDefinition,
        Lint::World,
        Lint::PlayCycle,
        Lint::HitListCycle,
    ];

    /// The rule's name as printed: `unbound-symbol`, `wrong-group`, …
    pub fn name(self) -> &'static str {
        match self {
            Lint::Load => "load",
            Lint::UnboundSymbol => "unbound-symbol",
            Lint::MissingSample => "missing-sample",
            Lint::BadSample => "bad-sample",
            Lint::UnusedTrack => "unused-track",
            Lint::UnusedPatch => "unused-patch",
            Lint::UnusedHitList => "unused-hit-list",
            Lint::EventWithoutTrack => "event-without-track",
            Lint::TrackWithoutCode => "track-without-code",
            Lint::WrongGroup => "wrong-group",
            Lint::DanglingReference => "dangling-reference",
            Lint::DuplicateDefinition => "duplicate-definition",
            Lint::World => "world",
            Lint::PlayCycle => "play-cycle",
            Lint::HitListCycle => "hit-list-cycle",
        }
    }

    /// The rule with this name.
    pub fn from_name(name: &str) -> Option<Lint> {
        Lint::ALL.into_iter().find(|l| l.name() == name)
    }
}

impl fmt::Display for Lint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A diagnostic with the rule that found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The rule.
    pub lint: Lint,
    /// Where and what.
    pub diagnostic: Diagnostic,
}

impl Finding {
    pub(super) fn error(lint: Lint, at: &Origin, message: impl Into<String>) -> Self {
        Self {
            lint,
            diagnostic: Diagnostic::error(&at.file, at.line, 0, message),
        }
    }

    pub(super) fn warning(lint: Lint, at: &Origin, message: impl Into<String>) -> Self {
        Self {
            lint,
            diagnostic: Diagnostic::warning(&at.file, at.line, 0, message),
        }
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.diagnostic.is_error()
    }

    pub(super) fn position(&self) -> (&Path, u32, u32) {
        (
            self.diagnostic.file.as_path(),
            self.diagnostic.line,
            self.diagnostic.column,
        )
    }
}

impl fmt::Display for Finding {
    /// `file:line:col: error|warning[rule]: message`, like rustc and gcc (so editors can
    /// jump to it), leaving out an unknown line or column.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = &self.diagnostic;
        write!(f, "{}", printable(&d.file.display().to_string()))?;
        if d.line > 0 {
            write!(f, ":{}", d.line)?;
            if d.column > 0 {
                write!(f, ":{}", d.column)?;
            }
        }
        write!(
            f,
            ": {}[{}]: {}",
            d.severity,
            self.lint,
            printable(&d.message)
        )
    }
}

/// How a finding names a track: `track 4096 (0x1000) `name``.
pub(super) fn track_title(track: &TrackDef) -> String {
    format!("track {} (0x{:x}) `{}`", track.id, track.id, track.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_have_unique_names() {
        for lint in Lint::ALL {
            assert_eq!(Lint::from_name(lint.name()), Some(lint));
        }
    }
}
