//! `.hot` files ("HIT Options Table", hit-reference §2.3): a lossless INI document, an edit
//! API that rewrites only the lines it changes, and typed views of the sections HIT reads.
//!
//! The document model is line based. The input is split at `\n`; every line keeps its raw
//! bytes and its ending (LF, CRLF or none at end of file), so [`HotDocument::to_bytes`]
//! gives back the parsed bytes exactly, whatever they were (invalid UTF-8, NULs, a BOM,
//! mixed endings). Each line is classified as blank, comment, `[section]` header,
//! `key=value` entry or "unparsed"; unparsed lines are kept and reported as warnings by the
//! typed view of the section they are in.
//!
//! Matching rules, chosen to behave like the INI readers that filled dictionaries from
//! these files:
//! - section names and keys compare ASCII case-insensitively and keep their spelling;
//! - a section header that appears again continues the same logical section;
//! - a key that appears twice is kept twice, and the **last** occurrence is the effective
//!   one ([`HotDocument::get`], the typed views, [`HotDocument::set`]);
//! - entries before the first header belong to the section named `""`.
//!
//! Line syntax: a comment line starts (after blanks) with `;`, `#` or `//`. A header is
//! `[Name]`, optionally followed by blanks and a `;` or `#` comment. An entry is split at
//! the first `=`; key and value are trimmed of ASCII whitespace, and a `;` outside double
//! quotes that follows a blank starts a trailing comment that is not part of the value
//! (`a=b;c` has the value `b;c`, `a=b ;c` has the value `b`). A UTF-8 BOM at the start of
//! the file is kept but not seen by the parser. Columns count characters from 1, a tab
//! counting as one and the BOM not at all.
//!
//! The parts: `line` reads one line's syntax; `document` is the lossless document and
//! its queries, `edit` its edit API; `tables` holds the typed values the views give,
//! `views` reads them section by section (with `fields`, the value syntax, and
//! `track_patch`, the `[Track]` and `[Patch]` entries field by field).

mod document;
mod edit;
mod fields;
mod line;
mod tables;
mod track_patch;
mod views;

#[cfg(test)]
mod tests;

pub use crate::toolchain::formats::text::IdRef;
pub use document::HotDocument;
pub use edit::HotEditError;
pub use fields::IdRefError;
pub use line::{HotEntry, HotLine, HotLineKind, LineEnding};
pub use tables::{
    Equate, EventMapping, GlobalHitListDef, HotOptions, HotTables, PatchDef, TrackDataEntry,
    TrackDef, equate_value, hot_path_to_relative, resolve_equate,
};

/// Section of label → number constants usable as event types.
pub const SECTION_EQUATES: &str = "EventMappingEquate";
/// Section of file options (`Version`, `LoadPriority`).
pub const SECTION_OPTIONS: &str = "Options";
/// Section assigning sound / hit list IDs to subroutine addresses.
pub const SECTION_TRACK_DATA: &str = "TrackData";
/// TS1 section mapping event names to an event type and a track.
pub const SECTION_EVENT_MAPPING: &str = "EventMapping";
/// TS1 section defining tracks.
pub const SECTION_TRACK: &str = "Track";
/// TS1 section defining patches (sound files).
pub const SECTION_PATCH: &str = "Patch";
/// TS1 section defining global hit lists.
pub const SECTION_GLOBAL_HIT_LIST: &str = "GlobalHitList";
