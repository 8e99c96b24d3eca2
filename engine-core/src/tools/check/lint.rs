//! The linter's rules ([`Lint`], each with the name `hitbench check` prints), which
//! rule each diagnostic code belongs to ([`Lint::of`]), and a [`Finding`]: a diagnostic
//! with its rule, printed like rustc's with the code at the end.

use crate::toolchain::diag::{DiagCode, Diagnostic, printable, write_place};
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

    /// The rule a diagnostic of kind `code` belongs to: the loader's unbound names,
    /// missing samples, events without a track and keys set twice have rules of their
    /// own, as has every code the linter itself reports; anything else is
    /// [`Lint::Load`]. (The world's diagnostics are [`Lint::World`] whatever their
    /// code: that rule is about where they come from.)
    pub fn of(code: DiagCode) -> Lint {
        use DiagCode as C;
        match code {
            C::UnboundSymbol | C::UnknownSubroutine => Lint::UnboundSymbol,
            C::MissingSample | C::SampleRefused | C::SampleOutsideData => Lint::MissingSample,
            C::EventWithoutTrack => Lint::EventWithoutTrack,
            C::DuplicateKey | C::DuplicateDefinition => Lint::DuplicateDefinition,
            C::BadSample => Lint::BadSample,
            C::UnusedTrack => Lint::UnusedTrack,
            C::UnusedPatch => Lint::UnusedPatch,
            C::UnusedHitList => Lint::UnusedHitList,
            C::TrackWithoutCode => Lint::TrackWithoutCode,
            C::WrongGroup => Lint::WrongGroup,
            C::DanglingReference => Lint::DanglingReference,
            C::PlayCycle => Lint::PlayCycle,
            C::HitListCycle => Lint::HitListCycle,
            _ => Lint::Load,
        }
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
    /// A diagnostic under the rule its code belongs to ([`Lint::of`]).
    pub fn new(diagnostic: Diagnostic) -> Self {
        Self {
            lint: Lint::of(diagnostic.code),
            diagnostic,
        }
    }

    pub(super) fn error(code: DiagCode, at: &Origin, message: impl Into<String>) -> Self {
        Self::new(Diagnostic::error(code, &at.file, at.line, 0, message))
    }

    pub(super) fn warning(code: DiagCode, at: &Origin, message: impl Into<String>) -> Self {
        Self::new(Diagnostic::warning(code, &at.file, at.line, 0, message))
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
    /// `file:line:col: error|warning[rule]: message [code]`, like rustc and gcc (so
    /// editors can jump to it), leaving out an unknown line or column.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = &self.diagnostic;
        write_place(f, d)?;
        write!(
            f,
            ": {}[{}]: {} [{}]",
            d.severity,
            self.lint,
            printable(&d.message),
            d.code
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

    /// Every rule but `load` and `world` is the rule of the code of the same name, so a
    /// finding's code and rule never disagree about what the linter found.
    #[test]
    fn each_rule_has_the_code_of_its_name() {
        for lint in Lint::ALL {
            match DiagCode::from_name(lint.name()) {
                Some(code) => assert_eq!(Lint::of(code), lint, "{code}"),
                None => assert!(matches!(lint, Lint::Load | Lint::World), "{lint}"),
            }
        }
    }
}
