//! Resource names: one normal form for what callers, directories and zip packs call a
//! resource, and refusal of every name that tries to leave its pack or directory.
//!
//! The normal form is: `/` as the only separator (`\` is turned into `/`), lower case,
//! no leading `./`, no empty or `.` components. Artists type `SFX\Boom.WAV`, code says
//! `sfx/boom.wav`; both must find the same bytes, so names are case-insensitive.
//!
//! Refused as [`CacheError::Escape`]: any `..` component, an absolute path (`/etc/passwd`,
//! `\\server\share`), a drive letter (`C:\x`, `c:x`) and any other `:` (on Windows it
//! names a drive or an alternate data stream). Refused as [`CacheError::InvalidName`]: the
//! empty name, a name that is nothing but separators and dots, a NUL character, and
//! names longer than [`MAX_NAME_LEN`] bytes.

use std::borrow::Cow;

use super::error::{CacheError, shown};

/// Longest name accepted, in bytes. Real resource names are far shorter; refusing
/// longer ones keeps garbage out of the cache's bookkeeping.
pub const MAX_NAME_LEN: usize = 1024;

/// Brings `name` to the normal form, or says why it is refused.
///
/// Borrows when `name` is already normal, so a cache hit with a normal name does not
/// allocate.
///
/// ```text
/// .\SFX\Boom.WAV  ->  sfx/boom.wav
/// ../secret.wav    ->  Escape error
/// ```
pub fn normalize_name(name: &str) -> Result<Cow<'_, str>, CacheError> {
    if is_normal(name) {
        Ok(Cow::Borrowed(name))
    } else {
        normalize_slow(name).map(Cow::Owned)
    }
}

/// True when `name` is already in the normal form (and so accepted as it is).
///
/// Runs on every cache hit, so it only flags, quickly, what *might* be wrong: a byte
/// that is upper case, `\`, `:`, NUL or non-ASCII; a `/` or `.` starting a component;
/// a trailing `/`. Only flagged names (rare: `.hidden` files, non-ASCII names) take the
/// exact, slower check.
fn is_normal(name: &str) -> bool {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes.len() > MAX_NAME_LEN {
        return false;
    }
    // Two branch-free folds the compiler can vectorise: bad bytes, then a `/` followed
    // by `/` or `.`; plus the ends.
    let mut flagged = bytes.iter().fold(false, |flagged, &b| {
        flagged | b.is_ascii_uppercase() | (b == b'\\') | (b == b':') | (b == 0) | (b >= 0x80)
    });
    flagged |= bytes.windows(2).fold(false, |flagged, pair| {
        flagged | matches!(pair, [b'/', b'/' | b'.'])
    });
    flagged |= matches!(bytes.first(), Some(b'/' | b'.')) | matches!(bytes.last(), Some(b'/'));
    !flagged || is_normal_exact(name)
}

/// The exact check behind [`is_normal`], character by character.
fn is_normal_exact(name: &str) -> bool {
    name.split('/').all(|component| {
        !component.is_empty()
            && component != "."
            && component != ".."
            && component.chars().all(|c| {
                if c.is_ascii() {
                    !c.is_ascii_uppercase() && c != '\\' && c != ':' && c != '\0'
                } else {
                    is_own_lowercase(c)
                }
            })
    })
}

/// True when lower-casing `c` leaves it as it is.
fn is_own_lowercase(c: char) -> bool {
    let mut lower = c.to_lowercase();
    lower.next() == Some(c) && lower.next().is_none()
}

/// The allocating path: rewrites separators, case and dots, refusing escapes.
fn normalize_slow(name: &str) -> Result<String, CacheError> {
    let invalid = |reason: &str| CacheError::InvalidName {
        name: shown(name),
        reason: reason.to_owned(),
    };
    let escape = |reason: &str| CacheError::Escape {
        name: shown(name),
        reason: reason.to_owned(),
    };
    if name.is_empty() {
        return Err(invalid("the name is empty"));
    }
    if name.len() > MAX_NAME_LEN {
        return Err(invalid("the name is longer than 1024 bytes"));
    }
    if name.contains('\0') {
        return Err(invalid("the name contains a NUL character"));
    }
    let slashed = name.replace('\\', "/");
    if slashed.starts_with('/') {
        return Err(escape("it is an absolute path"));
    }
    let mut out = String::with_capacity(slashed.len());
    for (index, component) in slashed.split('/').enumerate() {
        match component {
            "" | "." => continue,
            ".." => return Err(escape("it has a '..' component")),
            _ => {}
        }
        if component.contains(':') {
            let mut chars = component.chars();
            let drive = index == 0
                && chars.next().is_some_and(|c| c.is_ascii_alphabetic())
                && chars.next() == Some(':');
            return Err(escape(if drive {
                "it starts with a drive letter"
            } else {
                "it contains ':', which names a drive or an alternate data stream"
            }));
        }
        if !out.is_empty() {
            out.push('/');
        }
        // Per character, not `str::to_lowercase`: the context rule for a final sigma
        // would make the result depend on neighbours and break idempotence.
        out.extend(component.chars().flat_map(char::to_lowercase));
    }
    if out.is_empty() {
        return Err(invalid("the name has no file component"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn norm(name: &str) -> Result<String, CacheError> {
        normalize_name(name).map(Cow::into_owned)
    }

    #[test]
    fn normal_names_are_borrowed() {
        assert!(matches!(
            normalize_name("sfx/boom.wav"),
            Ok(Cow::Borrowed("sfx/boom.wav"))
        ));
        assert!(matches!(normalize_name("été/ça.wav"), Ok(Cow::Borrowed(_))));
    }

    #[test]
    fn case_backslashes_and_dots_are_normalised() {
        assert_eq!(norm(r"SFX\Boom.WAV").unwrap(), "sfx/boom.wav");
        assert_eq!(norm("./sfx/boom.wav").unwrap(), "sfx/boom.wav");
        assert_eq!(norm(r".\.\Music\\Theme.OGG").unwrap(), "music/theme.ogg");
        assert_eq!(norm("a/./b//c/").unwrap(), "a/b/c");
        assert_eq!(norm("ÉTÉ.WAV").unwrap(), "été.wav");
    }

    #[test]
    fn escapes_are_refused() {
        for name in [
            "../x",
            "sfx/../../x",
            "a/..",
            "/etc/passwd",
            r"\\server\share\x.wav",
            r"C:\x",
            "c:x",
            "C:/x",
            "boom.wav:stream",
        ] {
            match norm(name) {
                Err(CacheError::Escape { .. }) => {}
                other => panic!("{name:?} gave {other:?}"),
            }
        }
    }

    #[test]
    fn nonsense_is_invalid() {
        for name in ["", ".", "./", "a\0b", &"x".repeat(MAX_NAME_LEN + 1)] {
            match norm(name) {
                Err(CacheError::InvalidName { .. }) => {}
                other => panic!("{name:?} gave {other:?}"),
            }
        }
    }

    #[test]
    fn error_messages_say_what_is_wrong() {
        let text = norm("../x").unwrap_err().to_string();
        assert!(text.contains("'../x'") && text.contains(".."), "{text}");
        let text = norm(r"C:\x").unwrap_err().to_string();
        assert!(text.contains("drive letter"), "{text}");
    }

    proptest! {
        #[test]
        fn arbitrary_names_never_panic_and_never_escape(name in any::<String>()) {
            if let Ok(n) = normalize_name(&name) {
                prop_assert!(!n.is_empty());
                prop_assert!(!n.starts_with('/'));
                prop_assert!(!n.contains('\\') && !n.contains(':') && !n.contains('\0'));
                prop_assert!(n.split('/').all(|c| !c.is_empty() && c != "." && c != ".."));
                // The normal form is a fixed point: normalising again borrows it unchanged.
                let again = normalize_name(&n);
                prop_assert!(matches!(again, Ok(Cow::Borrowed(s)) if s == &*n));
            }
        }

        #[test]
        fn fast_check_agrees_with_the_slow_path(
            name in prop_oneof![any::<String>(), "[a-zA-Z./\\\\:é]{0,12}"],
        ) {
            let slow = normalize_slow(&name);
            let borrowed = slow.as_deref().ok() == Some(name.as_str());
            prop_assert_eq!(is_normal(&name), borrowed, "{:?} -> {:?}", name, slow);
        }

        #[test]
        fn path_like_names_never_escape(
            parts in proptest::collection::vec("(\\.\\.|\\.|[A-Za-z]{1,3}|[A-Za-z]:|)", 1..6),
            sep in "[/\\\\]",
        ) {
            let name = parts.join(&sep);
            if let Ok(n) = normalize_name(&name) {
                prop_assert!(!parts.iter().any(|p| p == ".."));
                prop_assert!(n.split('/').all(|c| c != ".." && !c.contains(':')));
            }
        }
    }
}
