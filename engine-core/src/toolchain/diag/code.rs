//! [`DiagCode`]: the stable, machine-readable name of each kind of problem a diagnostic
//! reports. Readers (`check`'s rules, the Problems panel's filter) match on it, never on
//! a message's words; `docs/diagnostics.md` says what each one means and how to fix it.

use std::fmt;

/// Declares [`DiagCode`] with each variant's kebab-case name and one-line summary (its
/// doc comment), and [`DiagCode::ALL`].
macro_rules! codes {
    ($(#[doc = $doc:literal] $variant:ident => $name:literal,)*) => {
        /// What kind of problem a diagnostic reports. The [`name`](DiagCode::name) is
        /// stable: tools and people may match on it, so a variant is never renamed.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum DiagCode {
            $(#[doc = $doc] $variant,)*
        }

        impl DiagCode {
            /// Every code, in the order `docs/diagnostics.md` lists them.
            pub const ALL: &'static [DiagCode] = &[$(DiagCode::$variant,)*];

            /// The stable name: `unbound-symbol`, `file-too-large`, …
            pub fn name(self) -> &'static str {
                match self {
                    $(DiagCode::$variant => $name,)*
                }
            }

            /// What the code means, in one sentence (`docs/diagnostics.md` adds the fix).
            pub fn summary(self) -> &'static str {
                match self {
                    $(DiagCode::$variant => $doc.trim_ascii(),)*
                }
            }
        }
    };
}

codes! {
    // Files and folders.
    /// A file or folder that should be read is not there.
    FileNotFound => "file-not-found",
    /// The file system refused to read a file or folder.
    UnreadableFile => "unreadable-file",
    /// A file larger than the limit for its kind.
    FileTooLarge => "file-too-large",
    /// A folder, pipe or device where a regular file was expected.
    NotARegularFile => "not-a-regular-file",
    /// A file where a folder was expected.
    NotAFolder => "not-a-folder",
    /// A path outside every folder HitBench may read there.
    OutsideAllowedFolders => "outside-allowed-folders",
    /// A link leading out of the folder it is in.
    LinkOutside => "link-outside",
    /// A link to nothing.
    DanglingLink => "dangling-link",
    /// A link back into a folder above it.
    LinkLoop => "link-loop",
    /// A folder nested deeper than a walk goes.
    FolderTooDeep => "folder-too-deep",
    /// A file that changed while it was being opened.
    FileChanged => "file-changed",
    /// A data directory that does not exist or is not a folder.
    MissingDataDir => "missing-data-dir",
    // What a file is.
    /// A file whose first line or header is not its format's.
    BadHeader => "bad-header",
    /// A format version this build does not read.
    UnsupportedVersion => "unsupported-version",
    /// A `.hit` file that is not valid compiled code.
    BadHitFile => "bad-hit-file",
    // Text syntax shared by the formats.
    /// A line that does not have its format's shape.
    BadSyntax => "bad-syntax",
    /// A field that must be a number is not one.
    BadNumber => "bad-number",
    /// A number outside the range its field allows.
    NumberOutOfRange => "number-out-of-range",
    /// A required field or value is missing.
    MissingField => "missing-field",
    /// More fields or words than the line takes.
    ExtraField => "extra-field",
    /// An empty field or list entry.
    EmptyField => "empty-field",
    /// A record kind the format does not have.
    UnknownRecord => "unknown-record",
    /// A key the section does not have.
    UnknownKey => "unknown-key",
    /// A word that is none of the values its field takes.
    UnknownValue => "unknown-value",
    /// Two parts of one value that disagree.
    InconsistentValue => "inconsistent-value",
    /// A number that is used as the nearest value its type holds, not as written.
    InexactNumber => "inexact-number",
    /// Records, ranges or times out of the order the format needs.
    OutOfOrder => "out-of-order",
    /// A key or ID set twice in one table; one definition wins.
    DuplicateKey => "duplicate-key",
    // The assembler.
    /// A mnemonic that is no instruction.
    UnknownOpcode => "unknown-opcode",
    /// An instruction with too many or too few operands.
    OperandCount => "operand-count",
    /// An operand of the wrong kind or out of range for its slot.
    BadOperand => "bad-operand",
    /// A name used but defined nowhere.
    UnboundSymbol => "unbound-symbol",
    /// A label or name defined twice in one source.
    DuplicateLabel => "duplicate-label",
    /// A name that clashes with a built-in mnemonic, register or constant.
    ReservedName => "reserved-name",
    /// A `BINARY [` … `]` block opened, closed or left open in the wrong place.
    BlockStructure => "block-structure",
    /// A directive written without what it needs.
    BadDirective => "bad-directive",
    /// An `INCLUDE`, `SYMBOLFILE` or `INIFILE` whose file is nowhere to be found.
    MissingInclude => "missing-include",
    /// A file that includes itself, directly or through others.
    IncludeCycle => "include-cycle",
    /// `INCLUDE` nested deeper than the limit.
    IncludeTooDeep => "include-too-deep",
    /// A source longer, with its includes, than the limit.
    SourceTooLong => "source-too-long",
    /// Code larger than a `.hit` can address.
    CodeTooLarge => "code-too-large",
    /// An export table (`ENTP`) that is not closed by `EENT`.
    UnclosedExportTable => "unclosed-export-table",
    /// A `LAYOUT` directive overridden by the `--layout` option.
    LayoutOverridden => "layout-overridden",
    /// A name declared `EXTERN` that the same source defines too.
    ExternDefinedHere => "extern-defined-here",
    /// A label nothing defines while an `INCLUDE` is missing: a late-bound import.
    LateBoundImport => "late-bound-import",
    // Loading a project.
    /// An import of a `.sym` that points outside its code or source list.
    BadImport => "bad-import",
    /// A `[Track]` subroutine that is no label of any loaded code.
    UnknownSubroutine => "unknown-subroutine",
    /// A `[Track]` subroutine address outside its code, or without code.
    BadSubroutineAddress => "bad-subroutine-address",
    /// A code label where a number is needed.
    LabelAsNumber => "label-as-number",
    /// A number where a code label is needed.
    NumberAsLabel => "number-as-label",
    /// A patch whose sample file is not found.
    MissingSample => "missing-sample",
    /// A patch whose sample file is there but may not be read.
    SampleRefused => "sample-refused",
    /// A patch whose sample file is outside the data directories.
    SampleOutsideData => "sample-outside-data",
    /// A patch's path with folders is not there; a file of the same name elsewhere plays.
    SampleFoundByName => "sample-found-by-name",
    /// An event whose track no table, export table or label defines.
    EventWithoutTrack => "event-without-track",
    /// A hit list or range that expands to more IDs than the limit.
    TooManyIds => "too-many-ids",
    /// A hit list with no entries.
    EmptyHitList => "empty-hit-list",
    /// A lot's controlled character that is not on the lot.
    UnknownObject => "unknown-object",
    /// A lot's controlled character that is not a person.
    WrongObjectKind => "wrong-object-kind",
    /// A changed file that does not load; its last good version stays in use.
    KeptLastGood => "kept-last-good",
    // The linter's own rules.
    /// A sample file that does not decode, or is damaged.
    BadSample => "bad-sample",
    /// A track no event maps to and no code plays.
    UnusedTrack => "unused-track",
    /// A patch nothing refers to.
    UnusedPatch => "unused-patch",
    /// A hit list nothing refers to.
    UnusedHitList => "unused-hit-list",
    /// A track with no code and nothing to play without it.
    TrackWithoutCode => "track-without-code",
    /// A track in a control group its names or samples contradict.
    WrongGroup => "wrong-group",
    /// A reference to something that is neither a patch nor a hit list.
    DanglingReference => "dangling-reference",
    /// An event, track, patch or hit list defined twice in one data directory.
    DuplicateDefinition => "duplicate-definition",
    /// Tracks starting one another with `play_trk` without waiting.
    PlayCycle => "play-cycle",
    /// A hit list that contains itself.
    HitListCycle => "hit-list-cycle",
    // Scripts.
    /// A script or console command that does not parse.
    BadCommand => "bad-command",
    /// A `savelot` in a script that may not save the lot.
    SavelotNotAllowed => "savelot-not-allowed",
    /// A QA expectation naming something the project does not have.
    UnknownName => "unknown-name",
}

impl DiagCode {
    /// The code with this name.
    pub fn from_name(name: &str) -> Option<DiagCode> {
        DiagCode::ALL.iter().copied().find(|c| c.name() == name)
    }
}

impl fmt::Display for DiagCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn names_are_unique_kebab_case_and_round_trip() {
        let mut seen = HashSet::new();
        for &code in DiagCode::ALL {
            let name = code.name();
            assert!(seen.insert(name), "{name} twice");
            assert!(
                !name.is_empty()
                    && name
                        .split('-')
                        .all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase())),
                "{name} is not kebab-case"
            );
            assert_eq!(DiagCode::from_name(name), Some(code));
        }
    }
}
