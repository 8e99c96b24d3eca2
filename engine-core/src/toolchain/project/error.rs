//! Why a table entry does not resolve: a name that gives no number, a number that is no
//! 32-bit ID, a track subroutine that is not in the loaded code. Each message names the
//! field and the text or number at fault; the loader turns it into a diagnostic at the
//! entry's line, with the code and the name at fault as facts.

use crate::toolchain::diag::{DiagCode, Diagnostic};
use std::path::Path;

/// Why a name gives no number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NameProblem {
    /// The name is a code label where a number is needed.
    #[error("is a code label, not a number")]
    CodeLabel,
    /// No equate, constant or project name has the name.
    #[error("is not defined (no equate, constant or name has it)")]
    Undefined,
}

/// Why a field of a table entry does not resolve.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// The field holds a name that gives no number.
    #[error("{what} `{name}`: {problem}")]
    Name {
        /// The field: "track ID", "patch ID", "event type"…
        what: &'static str,
        /// The name written.
        name: String,
        /// Why it gives no number.
        problem: NameProblem,
    },
    /// The number is not a 32-bit unsigned ID.
    #[error("{what} {value} is out of range (0 to 4294967295)")]
    OutOfRange {
        /// The field.
        what: &'static str,
        /// The number.
        value: i64,
    },
    /// A `[Track]` subroutine name that is no label of any loaded code.
    #[error("track {track}: subroutine `{label}` is not a label in any loaded code")]
    UnknownSubroutine {
        /// The track ID.
        track: u32,
        /// The subroutine name.
        label: String,
    },
    /// A `[Track]` subroutine address in a table that belongs to no `.hit`.
    #[error("track {track}: subroutine address {address} needs the .hit the table belongs to")]
    AddressWithoutCode {
        /// The track ID.
        track: u32,
        /// The address written.
        address: i64,
    },
    /// A `[Track]` subroutine address past the end of its `.hit`.
    #[error("track {track}: subroutine address {address} is outside the code")]
    AddressOutsideCode {
        /// The track ID.
        track: u32,
        /// The address written.
        address: i64,
    },
}

impl ResolveError {
    /// The diagnostic code of this kind of problem.
    pub fn code(&self) -> DiagCode {
        match self {
            ResolveError::Name {
                problem: NameProblem::Undefined,
                ..
            } => DiagCode::UnboundSymbol,
            ResolveError::Name {
                problem: NameProblem::CodeLabel,
                ..
            } => DiagCode::LabelAsNumber,
            ResolveError::OutOfRange { .. } => DiagCode::NumberOutOfRange,
            ResolveError::UnknownSubroutine { .. } => DiagCode::UnknownSubroutine,
            ResolveError::AddressWithoutCode { .. } | ResolveError::AddressOutsideCode { .. } => {
                DiagCode::BadSubroutineAddress
            }
        }
    }

    /// The name at fault, as written.
    pub fn subject(&self) -> Option<&str> {
        match self {
            ResolveError::Name { name, .. } => Some(name),
            ResolveError::UnknownSubroutine { label, .. } => Some(label),
            _ => None,
        }
    }

    /// As an error at `file:line:column`, with its code and subject.
    pub fn diagnostic(&self, file: &Path, line: u32, column: u32) -> Diagnostic {
        let d = Diagnostic::error(self.code(), file, line, column, self.to_string());
        match self.subject() {
            Some(subject) => d.with_subject(subject),
            None => d,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_field_and_what_is_wrong() {
        let undefined = ResolveError::Name {
            what: "track ID",
            name: "kNope".into(),
            problem: NameProblem::Undefined,
        };
        assert_eq!(
            undefined.to_string(),
            "track ID `kNope`: is not defined (no equate, constant or name has it)"
        );
        let label = ResolveError::Name {
            what: "patch ID",
            name: "main".into(),
            problem: NameProblem::CodeLabel,
        };
        assert_eq!(
            label.to_string(),
            "patch ID `main`: is a code label, not a number"
        );
        let range = ResolveError::OutOfRange {
            what: "hit list ID",
            value: -1,
        };
        assert_eq!(
            range.to_string(),
            "hit list ID -1 is out of range (0 to 4294967295)"
        );
        let subroutine = ResolveError::UnknownSubroutine {
            track: 7,
            label: "gone".into(),
        };
        assert_eq!(
            subroutine.to_string(),
            "track 7: subroutine `gone` is not a label in any loaded code"
        );
    }
}
