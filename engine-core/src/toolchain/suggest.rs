//! "Did you mean …?" suggestions for misspelled names.

/// The candidate closest to `name` by edit distance (case-insensitive, `_` and space
/// treated alike), if it is close enough to be a plausible typo.
pub fn closest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let wanted = fold(name);
    let limit = (wanted.len() / 3).max(1);
    candidates
        // The distance is at least the difference in length: most candidates of a long
        // list are left out before it is computed.
        .filter(|c| c.len().abs_diff(wanted.len()) <= limit)
        .map(|c| (distance(&wanted, &fold(c)), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

fn fold(text: &str) -> Vec<u8> {
    text.bytes()
        .map(|b| {
            if b == b' ' {
                b'_'
            } else {
                b.to_ascii_lowercase()
            }
        })
        .collect()
}

/// Levenshtein distance.
fn distance(a: &[u8], b: &[u8]) -> usize {
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, &ca) in a.iter().enumerate() {
        current[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_near_names_only() {
        let names = ["note_on", "note_off", "smart_setlist", "loadl"];
        assert_eq!(closest("noteon", names.iter().copied()), Some("note_on"));
        assert_eq!(closest("LOADL", names.iter().copied()), Some("loadl"));
        assert_eq!(
            closest("smart_setlst", names.iter().copied()),
            Some("smart_setlist")
        );
        assert_eq!(closest("xyzzy", names.iter().copied()), None);
        assert_eq!(distance(b"kitten", b"sitting"), 3);
    }
}
