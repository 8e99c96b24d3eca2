//! `docs/diagnostics.md` against the code: every `DiagCode` is documented there once,
//! with what it means and its fix, nothing else is, and no two codes share a name.

use engine_core::toolchain::diag::DiagCode;
use hitbench_tests::workspace;
use std::collections::{BTreeSet, HashMap};

/// The documented codes: each list line "- `name` — what it means. Fix: …", by name, with
/// its line.
fn documented() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(workspace().join("docs/diagnostics.md")).unwrap();
    text.lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("- `")?;
            let (name, _) = rest.split_once('`')?;
            Some((name.to_string(), line.to_string()))
        })
        .collect()
}

#[test]
fn every_diagnostic_code_is_documented_once() {
    let documented = documented();
    let mut count: HashMap<&str, usize> = HashMap::new();
    for (name, line) in &documented {
        *count.entry(name.as_str()).or_default() += 1;
        assert!(
            line.contains(" — ") && line.contains(" Fix: "),
            "docs/diagnostics.md: `{name}` needs `— what it means. Fix: …` on its line:\n{line}"
        );
    }
    let twice: Vec<&&str> = count
        .iter()
        .filter(|(_, n)| **n > 1)
        .map(|(k, _)| k)
        .collect();
    assert!(twice.is_empty(), "documented more than once: {twice:?}");
    let undocumented: Vec<&str> = DiagCode::ALL
        .iter()
        .map(|c| c.name())
        .filter(|name| !count.contains_key(name))
        .collect();
    assert!(
        undocumented.is_empty(),
        "add a line for each to docs/diagnostics.md: {undocumented:?}"
    );
    let unknown: Vec<&str> = count
        .keys()
        .copied()
        .filter(|name| DiagCode::from_name(name).is_none())
        .collect();
    assert!(unknown.is_empty(), "documented but no code: {unknown:?}");
}

#[test]
fn diagnostic_code_names_are_unique_and_kebab_case() {
    let names: BTreeSet<&str> = DiagCode::ALL.iter().map(|c| c.name()).collect();
    assert_eq!(names.len(), DiagCode::ALL.len(), "two codes share a name");
    for name in names {
        assert!(
            name.split('-')
                .all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase())),
            "`{name}` is not kebab-case"
        );
    }
}
