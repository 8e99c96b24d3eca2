//! Wildcard patterns over resource names, and tables that pick the most specific
//! matching pattern (used for loaders and for priorities).
//!
//! `*` matches any run of characters, `/` included (`sfx/*` covers `sfx/a/b.wav`); `?`
//! matches exactly one character; everything else matches itself, case-insensitively
//! (a pattern is lower-cased and its `\` turned into `/` like a name).
//!
//! **Specificity** of a pattern is the number of literal characters in it (neither `*`
//! nor `?`): `music/*.ogg` (10) is more specific than `*.ogg` (4), which is more specific
//! than `*` (0). When several patterns match a name the most specific wins; among equally
//! specific ones the one registered last wins, so a later registration can override an
//! earlier one.

/// One step of a compiled pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    /// `*`: any run of characters, possibly empty.
    Star,
    /// `?`: exactly one character.
    One,
    /// A character that must appear as it is.
    Literal(char),
}

/// A compiled wildcard pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    text: String,
    tokens: Vec<Token>,
    specificity: usize,
}

impl Pattern {
    /// Compiles `pattern`: `\` becomes `/`, letters become lower case, empty and `.`
    /// components are dropped (as in names), and runs of `*` collapse into one.
    pub fn new(pattern: &str) -> Self {
        // Tidied like a name (empty and `.` components dropped), so `./sfx//*.wav`
        // means `sfx/*.wav`.
        let slashed = pattern.replace('\\', "/");
        let tidy = slashed
            .split('/')
            .filter(|component| !component.is_empty() && *component != ".")
            .collect::<Vec<_>>()
            .join("/");
        let mut text = String::with_capacity(tidy.len());
        let mut tokens = Vec::with_capacity(tidy.len());
        for c in tidy.chars().flat_map(char::to_lowercase) {
            let token = match c {
                '*' => Token::Star,
                '?' => Token::One,
                other => Token::Literal(other),
            };
            if token == Token::Star && tokens.last() == Some(&Token::Star) {
                continue;
            }
            tokens.push(token);
            text.push(c);
        }
        let specificity = tokens
            .iter()
            .filter(|t| matches!(t, Token::Literal(_)))
            .count();
        Self {
            text,
            tokens,
            specificity,
        }
    }

    /// The compiled pattern as text (lower case, `/` separators).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Number of literal characters: higher means more specific.
    pub fn specificity(&self) -> usize {
        self.specificity
    }

    /// True when the whole of `name` matches. `name` should already be normalised
    /// (lower case); see [`super::normalize_name`].
    pub fn matches(&self, name: &str) -> bool {
        // Iterative matcher with one backtrack point (the last `*`): O(pattern × name)
        // at worst, no recursion, so hostile patterns cannot blow the stack.
        let tokens = &self.tokens;
        let mut t = 0usize;
        let mut n = 0usize;
        let mut star: Option<(usize, usize)> = None;
        loop {
            let next = name.get(n..).and_then(|s| s.chars().next());
            match (tokens.get(t), next) {
                (Some(Token::Star), _) => {
                    t += 1;
                    star = Some((t, n));
                }
                (Some(Token::One), Some(c)) => {
                    t += 1;
                    n += c.len_utf8();
                }
                (Some(Token::Literal(l)), Some(c)) if *l == c => {
                    t += 1;
                    n += c.len_utf8();
                }
                (None, None) => return true,
                _ => {
                    // Mismatch: let the last `*` swallow one more character and retry.
                    let Some((after_star, from)) = star else {
                        return false;
                    };
                    let Some(c) = name.get(from..).and_then(|s| s.chars().next()) else {
                        return false;
                    };
                    let resume = from + c.len_utf8();
                    star = Some((after_star, resume));
                    t = after_star;
                    n = resume;
                }
            }
        }
    }
}

/// True when `name` (normalised) matches `pattern`; compiles the pattern each call, so
/// keep a [`Pattern`] when matching many names.
pub fn wildcard_match(pattern: &str, name: &str) -> bool {
    Pattern::new(pattern).matches(name)
}

/// Values keyed by pattern; a lookup returns the value of the most specific matching
/// pattern, ties going to the one set last.
#[derive(Debug, Clone)]
pub(crate) struct PatternTable<T> {
    entries: Vec<(Pattern, u64, T)>,
    next_seq: u64,
}

impl<T> Default for PatternTable<T> {
    fn default() -> Self {
        Self {
            entries: Vec::new(),
            next_seq: 0,
        }
    }
}

impl<T> PatternTable<T> {
    /// Sets the value for `pattern`, replacing an earlier value for the same pattern;
    /// either way it now counts as the latest registration.
    pub(crate) fn set(&mut self, pattern: Pattern, value: T) {
        self.entries
            .retain(|(p, _, _)| p.as_str() != pattern.as_str());
        self.entries.push((pattern, self.next_seq, value));
        self.next_seq += 1;
    }

    /// The entry of the most specific pattern matching `name`.
    pub(crate) fn best(&self, name: &str) -> Option<(&Pattern, &T)> {
        self.entries
            .iter()
            .filter(|(p, _, _)| p.matches(name))
            .max_by_key(|(p, seq, _)| (p.specificity(), *seq))
            .map(|(p, _, v)| (p, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn stars_and_question_marks() {
        assert!(wildcard_match("*", ""));
        assert!(wildcard_match("*", "sfx/boom.wav"));
        assert!(wildcard_match("*.wav", "sfx/boom.wav"));
        assert!(!wildcard_match("*.wav", "sfx/boom.ogg"));
        assert!(wildcard_match("sfx/*", "sfx/a/b.wav"));
        assert!(wildcard_match("sfx/b??m.wav", "sfx/boom.wav"));
        assert!(!wildcard_match("sfx/b?m.wav", "sfx/boom.wav"));
        assert!(wildcard_match("*o*o*", "boom"));
        assert!(!wildcard_match("*o*o*o*", "boom"));
        assert!(wildcard_match("a*b*c", "axxbyyc"));
        assert!(!wildcard_match("a*b*c", "axxbyy"));
        assert!(wildcard_match("?", "é"));
    }

    #[test]
    fn patterns_are_case_insensitive_and_take_backslashes() {
        assert!(wildcard_match(r"SFX\*.WAV", "sfx/boom.wav"));
        assert!(wildcard_match("./music/*", "music/theme.ogg"));
        assert!(wildcard_match(r".\Music\\*.OGG", "music/theme.ogg"));
    }

    #[test]
    fn specificity_counts_literals() {
        assert_eq!(Pattern::new("*").specificity(), 0);
        assert_eq!(Pattern::new("*.ogg").specificity(), 4);
        assert_eq!(Pattern::new("music/*.ogg").specificity(), 10);
        assert_eq!(Pattern::new("a?c").specificity(), 2);
        assert_eq!(Pattern::new("**a**").as_str(), "*a*");
    }

    #[test]
    fn table_picks_most_specific_then_latest() {
        let mut table = PatternTable::default();
        table.set(Pattern::new("*"), 0);
        table.set(Pattern::new("*.wav"), 1);
        table.set(Pattern::new("music/*"), 2);
        assert_eq!(table.best("sfx/boom.wav").map(|(_, v)| *v), Some(1));
        assert_eq!(table.best("music/a.ogg").map(|(_, v)| *v), Some(2));
        assert_eq!(table.best("x.txt").map(|(_, v)| *v), Some(0));
        // "????.ogg" ties with "*.ogg" (4 literals each); it was set later, so it wins.
        table.set(Pattern::new("*.ogg"), 3);
        table.set(Pattern::new("????.ogg"), 4);
        assert_eq!(table.best("abcd.ogg").map(|(_, v)| *v), Some(4));
        // Setting a pattern again replaces it and makes it the latest.
        table.set(Pattern::new("*.ogg"), 5);
        assert_eq!(table.best("abcd.ogg").map(|(_, v)| *v), Some(5));
    }

    proptest! {
        #[test]
        fn arbitrary_patterns_never_panic(pattern in ".{0,40}", name in ".{0,40}") {
            let _ = wildcard_match(&pattern, &name);
        }

        #[test]
        fn literal_pattern_matches_itself(name in "[a-zA-Z0-9/._]{0,30}") {
            // Patterns compare against normalised names.
            if let Ok(normal) = crate::sound::cache::normalize_name(&name) {
                prop_assert!(wildcard_match(&name, &normal));
                prop_assert!(wildcard_match(&normal, &normal));
                prop_assert!(wildcard_match("*", &normal));
            }
        }
    }
}
