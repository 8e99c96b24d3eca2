//! The one error type of the resource cache: every failure names the resource or file and
//! says what went wrong, so a sound designer can read it in the workbench's log.

use crate::sound::audio::BudgetError;
use std::path::PathBuf;

/// Why the cache could not open a resource file or hand out a resource.
///
/// Errors are `Clone` because the cache remembers a failed load and hands the same error
/// to everyone who asks again (until `forget_failure` or a reload).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum CacheError {
    /// The name tries to leave its pack or directory (`..`, absolute path, drive letter, outward symlink).
    #[error("resource name '{name}' escapes its pack or directory: {reason}")]
    Escape {
        /// The name as it was asked for (shortened if very long).
        name: String,
        /// What makes it escape.
        reason: String,
    },
    /// The name can never name a resource (empty, too long, NUL character).
    #[error("invalid resource name '{name}': {reason}")]
    InvalidName {
        /// The name as it was asked for (shortened if very long).
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// No resource file holds a resource of this name.
    #[error("resource '{name}' is not in any resource file")]
    NotFound {
        /// The normalised name.
        name: String,
    },
    /// The resource exists but its bytes could not be read.
    #[error("cannot read resource '{name}' from {}: {message}", path.display())]
    Read {
        /// The normalised name.
        name: String,
        /// The directory or zip pack it was read from.
        path: PathBuf,
        /// What the file system or the zip reader said.
        message: String,
    },
    /// The loader chosen for the resource refused its bytes.
    #[error("loader for '{loader}' could not load resource '{name}': {message}")]
    Load {
        /// The normalised name.
        name: String,
        /// The pattern of the loader that was chosen.
        loader: String,
        /// What the loader said.
        message: String,
    },
    /// The resource would take more memory than one resource may (a sound that long is
    /// streamed instead of cached).
    #[error("resource '{name}' is too large to hold in memory: {message}")]
    TooLarge {
        /// The normalised name.
        name: String,
        /// What it would take and the limit, as the loader said.
        message: String,
    },
    /// The budget could not make room for the resource: the memory is taken by resources
    /// in use. Forgotten at the next tick, when it may fit.
    #[error("resource '{name}' was not loaded: {detail}")]
    OverBudget {
        /// The normalised name.
        name: String,
        /// What it needed and where the budget went.
        detail: BudgetError,
    },
    /// A directory given to `add_directory` cannot be used.
    #[error("cannot use {} as a resource directory: {message}", path.display())]
    Directory {
        /// The directory as given.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A zip pack given to `add_zip` is missing or damaged.
    #[error("cannot open zip pack {}: {message}", path.display())]
    Zip {
        /// The pack as given.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The background loader thread is not running, so nothing can be queued on it.
    #[error(
        "the resource loader thread is not running, so '{name}' cannot be loaded in the background"
    )]
    LoaderStopped {
        /// The name or pattern that was to be loaded.
        name: String,
    },
}

/// At most this many characters of a refused name go into an error message: a name
/// made of megabytes of garbage should not make a log line of megabytes.
const SHOWN_NAME_CHARS: usize = 200;

/// The part of a refused name worth showing in a message.
pub(crate) fn shown(name: &str) -> String {
    if name.chars().count() <= SHOWN_NAME_CHARS {
        name.to_owned()
    } else {
        let mut short: String = name.chars().take(SHOWN_NAME_CHARS).collect();
        short.push('…');
        short
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_resource_and_the_problem() {
        let e = CacheError::Read {
            name: "sfx/boom.wav".into(),
            path: PathBuf::from("/data/level1.zip"),
            message: "unexpected end of file".into(),
        };
        let text = e.to_string();
        assert!(text.contains("sfx/boom.wav"), "{text}");
        assert!(text.contains("/data/level1.zip"), "{text}");
        assert!(text.contains("unexpected end of file"), "{text}");
    }

    #[test]
    fn long_names_are_shortened_in_messages() {
        let long = "x".repeat(10_000);
        let s = shown(&long);
        assert_eq!(s.chars().count(), SHOWN_NAME_CHARS + 1);
        assert_eq!(shown("short"), "short");
    }
}
