//! No module cycles inside engine-core: for every module, the modules directly inside it
//! never depend on one another in a circle. Dependencies are read from the code (`use`
//! trees expanded, and `crate::…` and `super::…` paths in the code), comments and strings
//! aside. A child using its parent or its parent's items is not a dependency between
//! siblings; a parent using its children is the parent's business.

use super::code_only;
use hitbench_tests::workspace;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The module a source file is: `runtime/engine/tick.rs` → `runtime::engine::tick`,
/// `runtime/engine/mod.rs` → `runtime::engine`, `lib.rs` → the crate root.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).unwrap_or(file);
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The paths of a `use` tree (`a::{b, c::d as e, f::*}` → `a::b`, `a::c::d`, `a::f`).
fn expand_use(tree: &str) -> Vec<Vec<String>> {
    // Drop `as name` renames, then every space.
    let mut words: Vec<&str> = Vec::new();
    let mut tokens = tree.split_whitespace();
    while let Some(token) = tokens.next() {
        if token == "as" {
            // The new name, and what follows it glued on (`v,` or `v}`).
            if let Some(name) = tokens.next() {
                words.push(name.trim_start_matches(|c: char| c.is_alphanumeric() || c == '_'));
            }
        } else {
            words.push(token);
        }
    }
    let tree: String = words.concat();
    let mut out = Vec::new();
    expand_into(&tree, &mut Vec::new(), &mut out);
    out
}

fn expand_into(tree: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let Some(open) = tree.find('{') else {
        let mut full = prefix.clone();
        full.extend(
            tree.split("::")
                .filter(|s| !s.is_empty() && *s != "*" && *s != "self")
                .map(str::to_string),
        );
        out.push(full);
        return;
    };
    let head: Vec<String> = tree[..open]
        .split("::")
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let depth_before = prefix.len();
    prefix.extend(head);
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                expand_into(&inner[start..i], prefix, out);
                start = i + 1;
            }
            _ => {}
        }
    }
    if start < inner.len() {
        expand_into(&inner[start..], prefix, out);
    }
    prefix.truncate(depth_before);
}

/// Every path `code` names through `crate::` or `super::`, made absolute.
fn references(code: &str, here: &[String]) -> Vec<Vec<String>> {
    let absolute = |path: Vec<String>| -> Option<Vec<String>> {
        let mut parts = path.into_iter();
        let mut base: Vec<String> = match parts.next()?.as_str() {
            "crate" => Vec::new(),
            "super" => here[..here.len().saturating_sub(1)].to_vec(),
            _ => return None,
        };
        for part in parts {
            if part == "super" {
                base.pop();
            } else {
                base.push(part);
            }
        }
        Some(base)
    };
    let mut out = Vec::new();
    let mut rest = code;
    // `use` trees (which may span lines).
    while let Some(at) = rest.find("use ") {
        let before = rest[..at].chars().last();
        let after = &rest[at + 4..];
        let Some(end) = after.find(';') else { break };
        if before.is_none_or(|c| !c.is_alphanumeric() && c != '_') {
            out.extend(expand_use(&after[..end]).into_iter().filter_map(absolute));
        }
        rest = &after[end..];
    }
    // Paths written in the code.
    let bytes = code.as_bytes();
    for start in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(found) = code[from..].find(start) {
            let at = from + found;
            from = at + start.len();
            let glued = at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
            // `super::super::x` is one path, found at its first `super`.
            if glued || code[..at].ends_with("::") {
                continue;
            }
            let path: Vec<String> = code[at..]
                .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .next()
                .unwrap_or("")
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            out.extend(absolute(path));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// For each module, the dependencies between the modules directly inside it.
fn sibling_edges(src: &Path) -> BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> {
    let mut edges: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for file in super::sources(src) {
        let here = module_of(src, &file);
        let code = code_only(&std::fs::read_to_string(&file).unwrap());
        for target in references(&code, &here) {
            let Some(split) = here.iter().zip(&target).position(|(a, b)| a != b) else {
                continue;
            };
            edges
                .entry(here[..split].to_vec())
                .or_default()
                .entry(here[split].clone())
                .or_default()
                .insert(target[split].clone());
        }
    }
    edges
}

/// The cycles among `graph`'s nodes, each as `a → b → … → a`.
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut found = BTreeSet::new();
    for start in graph.keys() {
        // Depth-first search for a path back to `start`.
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((node, path)) = stack.pop() {
            for next in graph.get(&node).into_iter().flatten() {
                if next == start {
                    let mut cycle = path.clone();
                    // Report each cycle once, from its smallest name.
                    let first = cycle.iter().min().cloned().unwrap_or_default();
                    let at = cycle.iter().position(|n| *n == first).unwrap_or(0);
                    cycle.rotate_left(at);
                    cycle.push(first);
                    found.insert(cycle.join(" → "));
                } else if seen.insert(next.clone()) {
                    let mut longer = path.clone();
                    longer.push(next.clone());
                    stack.push((next.clone(), longer));
                }
            }
        }
    }
    found.into_iter().collect()
}

#[test]
fn engine_core_has_no_module_cycles() {
    let src = workspace().join("engine-core/src");
    let mut offenders = Vec::new();
    for (parent, graph) in sibling_edges(&src) {
        let place = if parent.is_empty() {
            "crate".to_string()
        } else {
            parent.join("::")
        };
        for cycle in cycles(&graph) {
            offenders.push(format!("in {place}: {cycle}"));
        }
    }
    super::assert_none(&offenders, "module cycles in engine-core (break each one)");
}

#[test]
fn the_cycle_rule_sees_use_trees_and_paths() {
    let paths = expand_use("crate::runtime::{engine::{Engine, tick}, sink::*, vm as v}");
    let shown: Vec<String> = paths.iter().map(|p| p.join("::")).collect();
    assert_eq!(
        shown,
        [
            "crate::runtime::engine::Engine",
            "crate::runtime::engine::tick",
            "crate::runtime::sink",
            "crate::runtime::vm"
        ]
    );
    let here: Vec<String> = ["runtime", "engine", "tick"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let code = "use super::host;\nfn f() { crate::world::view::place(); super::super::vm::run(); }";
    let refs: Vec<String> = references(code, &here)
        .iter()
        .map(|p| p.join("::"))
        .collect();
    assert_eq!(
        refs,
        [
            "runtime::engine::host",
            "runtime::vm::run",
            "world::view::place"
        ]
    );
    let mut graph = BTreeMap::new();
    graph.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    graph.insert("b".to_string(), BTreeSet::from(["c".to_string()]));
    graph.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    graph.insert("d".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(cycles(&graph), ["a → b → c → a"]);
}
