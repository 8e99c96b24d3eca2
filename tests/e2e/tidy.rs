//! Tidy rules for the whole workspace (rust-analyzer style): checked by plain tests so
//! they hold on every run.

use hitbench_tests::workspace;
use std::path::{Path, PathBuf};
use std::process::Command;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if name == "target" || name.to_string_lossy().starts_with('.') {
            continue;
        }
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_source_file_starts_with_a_doc_line() {
    let mut files = Vec::new();
    rust_files(&workspace(), &mut files);
    assert!(files.len() > 20, "found only {} files", files.len());
    let offenders: Vec<String> = files
        .iter()
        .filter(|path| {
            let text = std::fs::read_to_string(path).unwrap();
            !text.starts_with("//! ")
        })
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        offenders.is_empty(),
        "these files must start with a `//! ` line saying what they are:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn engine_core_does_not_depend_on_a_ui_toolkit() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "tree",
            "-p",
            "engine-core",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--locked",
            "--offline",
        ])
        .current_dir(workspace())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let tree = String::from_utf8_lossy(&output.stdout);
    for ui_crate in ["egui", "eframe", "epaint", "winit", "wgpu", "rfd"] {
        let found = tree
            .lines()
            .any(|l| l.split_whitespace().next() == Some(ui_crate));
        assert!(!found, "engine-core depends on {ui_crate}:\n{tree}");
    }
}

#[test]
fn readme_quick_start_is_the_two_commands() {
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let start = readme
        .find("## Quick start")
        .expect("README has a Quick start section");
    let section = &readme[start..];
    let end = section[3..].find("\n## ").map_or(section.len(), |i| i + 3);
    let commands: Vec<&str> = section[..end]
        .lines()
        .filter(|l| l.starts_with("./"))
        .collect();
    assert_eq!(commands, ["./run.sh", "./test.sh"]);
    let ci = std::fs::read_to_string(workspace().join(".ci/run")).unwrap();
    assert!(ci.contains("./test.sh"));
}

// ---- Size and style rules, by folder. Each scanner takes a source folder and returns
// its offenders as `path:line …` lines, so a rule can be turned on for another crate by
// calling it with that crate's folder.

/// The largest a source file may be, in lines.
const MAX_FILE_LINES: usize = 800;
/// The longest a function may be, in lines from `fn` to its closing brace.
const MAX_FUNCTION_LINES: usize = 120;

/// The source folders the size and style rules hold for.
fn ruled_folders() -> Vec<PathBuf> {
    vec![workspace().join("panels/src")]
}

/// The `.rs` files under `dir`, sorted.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    files.sort();
    files
}

/// `path` relative to the workspace, for messages.
fn shown(path: &Path) -> String {
    let root = workspace();
    path.strip_prefix(&root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The code of a Rust source with the insides of comments, string literals and
/// character literals blanked out (line breaks kept, so lines still count), so that a
/// scan of the code sees no brace, `fn` or name that is only written in a comment or a
/// string.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let at = |i: usize, s: &str| {
        s.chars()
            .enumerate()
            .all(|(k, c)| chars.get(i + k) == Some(&c))
    };
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let word_start = i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        if at(i, "//") {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if at(i, "/*") {
            let mut depth = 0;
            while i < chars.len() {
                if at(i, "/*") {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if at(i, "*/") {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if let Some((prefix, hashes)) = raw_string_prefix(&chars[i..]).filter(|_| word_start)
        {
            // r"…", r#"…"#, br##"…"##: ends at a quote followed by as many #s.
            let close = format!("\"{}", "#".repeat(hashes));
            out.extend(chars[i..i + prefix].iter());
            i += prefix;
            while i < chars.len() && !at(i, &close) {
                out.push(blank(chars[i]));
                i += 1;
            }
            out.push_str(&close);
            i += close.len();
        } else if c == '"' {
            out.push('"');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                let escaped = chars[i] == '\\';
                out.push(blank(chars[i]));
                i += 1;
                if escaped && i < chars.len() {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
            out.push('"');
            i += 1;
        } else if c == '\'' && chars.get(i + 1) == Some(&'\\') {
            // An escaped character literal: '\n', '\'', '\u{7f}'.
            let end = (i + 3..chars.len())
                .find(|&k| chars[k] == '\'')
                .unwrap_or(chars.len() - 1);
            out.push_str(&" ".repeat(end + 1 - i));
            i = end + 1;
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            out.push_str("   ");
            i += 3;
        } else {
            // Code, or the quote of a lifetime ('a, 'static).
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The length of a raw string's opening (`r"`, `r#"`, `br##"`) at the start of `chars`,
/// and how many `#`s it has.
fn raw_string_prefix(chars: &[char]) -> Option<(usize, usize)> {
    let r = match chars {
        ['r', ..] => 1,
        ['b', 'r', ..] => 2,
        _ => return None,
    };
    let hashes = chars[r..].iter().take_while(|c| **c == '#').count();
    (chars.get(r + hashes) == Some(&'"')).then_some((r + hashes + 1, hashes))
}

/// Each function with a body in `code` (a source passed through [`code_only`]): its
/// name, the line its `fn` is on (1-based) and its length in lines, from that line to
/// the line of its closing brace.
fn function_spans(code: &str) -> Vec<(String, usize, usize)> {
    let bytes = code.as_bytes();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let line_of = |i: usize| code[..i].bytes().filter(|b| *b == b'\n').count() + 1;
    let mut spans = Vec::new();
    for (start, _) in code.match_indices("fn") {
        let before = start.checked_sub(1).map(|i| bytes[i]);
        let after = bytes.get(start + 2).copied();
        if before.is_some_and(is_word) || !after.is_some_and(|b| b.is_ascii_whitespace()) {
            continue;
        }
        let rest = code[start + 2..].trim_start();
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            continue; // a function pointer type: `fn(u32) -> u32`
        }
        // The body opens at the first `{` outside the parameter list and array types;
        // a `;` first means a declaration without a body.
        let mut depth = 0i32;
        let mut open = None;
        for (i, b) in bytes.iter().enumerate().skip(start) {
            match b {
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                b';' if depth == 0 => break,
                b'{' if depth == 0 => {
                    open = Some(i);
                    break;
                }
                _ => {}
            }
        }
        let Some(open) = open else { continue };
        let mut braces = 0i32;
        let close = bytes[open..].iter().position(|b| {
            match b {
                b'{' => braces += 1,
                b'}' => braces -= 1,
                _ => {}
            }
            braces == 0
        });
        let end = close.map_or(code.len(), |c| open + c);
        let first = line_of(start);
        spans.push((name, first, line_of(end) - first + 1));
    }
    spans
}

/// The files under `dir` longer than `max` lines: `path: N lines`.
fn long_files(dir: &Path, max: usize) -> Vec<String> {
    sources(dir)
        .iter()
        .filter_map(|path| {
            let lines = std::fs::read_to_string(path).unwrap().lines().count();
            (lines > max).then(|| format!("{}: {lines} lines", shown(path)))
        })
        .collect()
}

/// The functions under `dir` longer than `max` lines: `path:line fn name: N lines`.
fn long_functions(dir: &Path, max: usize) -> Vec<String> {
    let mut out = Vec::new();
    for path in sources(dir) {
        let code = code_only(&std::fs::read_to_string(&path).unwrap());
        for (name, line, lines) in function_spans(&code) {
            if lines > max {
                out.push(format!("{}:{line} fn {name}: {lines} lines", shown(&path)));
            }
        }
    }
    out
}

/// Where code under `dir` (comments and strings aside) contains `needle`, except in the
/// files named in `except`: `path:line`.
fn code_mentions(dir: &Path, needle: &str, except: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for path in sources(dir) {
        if path
            .file_name()
            .is_some_and(|name| except.iter().any(|e| name == *e))
        {
            continue;
        }
        let code = code_only(&std::fs::read_to_string(&path).unwrap());
        for (number, line) in code.lines().enumerate() {
            if line.contains(needle) {
                out.push(format!("{}:{}", shown(&path), number + 1));
            }
        }
    }
    out
}

/// Where code under `dir` makes a colour (`Color32::…`, `Hsva::…`, `Rgba::…`) outside
/// a file called `theme` (`theme.rs`): `path:line`.
fn colours_outside_theme(dir: &Path, theme: &str) -> Vec<String> {
    let mut out = Vec::new();
    for maker in ["Color32::", "Hsva::", "Rgba::"] {
        out.extend(code_mentions(dir, maker, &[theme]));
    }
    out.sort();
    out.dedup();
    out
}

/// Where code under `dir` silences clippy's `lint` (`allow` or `expect`): `path:line`.
fn silenced_lints(dir: &Path, lint: &str) -> Vec<String> {
    code_mentions(dir, &format!("clippy::{lint}"), &[])
}

fn assert_none(offenders: &[String], rule: &str) {
    assert!(offenders.is_empty(), "{rule}:\n{}", offenders.join("\n"));
}

#[test]
fn no_source_file_is_over_800_lines() {
    for dir in ruled_folders() {
        assert_none(
            &long_files(&dir, MAX_FILE_LINES),
            "split these files by job (at most 800 lines; most under 400)",
        );
    }
}

#[test]
fn no_function_is_over_120_lines() {
    for dir in ruled_folders() {
        assert_none(
            &long_functions(&dir, MAX_FUNCTION_LINES),
            "split these functions into named helpers (at most 120 lines)",
        );
    }
}

#[test]
fn panel_colours_come_from_the_theme() {
    assert_none(
        &colours_outside_theme(&workspace().join("panels/src"), "theme.rs"),
        "name these colours in panels/src/theme.rs and use them from there",
    );
}

#[test]
fn no_code_allows_too_many_arguments() {
    for dir in ruled_folders() {
        assert_none(
            &silenced_lints(&dir, "too_many_arguments"),
            "group these arguments into a struct instead of allowing too_many_arguments",
        );
    }
}

#[test]
fn the_scanners_see_code_not_comments_or_strings() {
    let source = r##"
/// fn in_a_doc() {
fn first(x: [u8; 3]) -> &'static str {
    let c = '{';
    let s = "} fn not_code() {";
    let r = r#"}"# ;
    /* { nested /* } */ still a comment } */
    let f: fn(u32) -> u32 = |v| v;
    "Color32::from_rgb"
}

trait T {
    fn declared(&self);
}

fn second<'a>(a: &'a str) -> &'a str {
    a
}
"##;
    let code = code_only(source);
    assert_eq!(code.lines().count(), source.lines().count());
    assert!(!code.contains("Color32"));
    let spans = function_spans(&code);
    assert_eq!(
        spans,
        [("first".to_string(), 3, 8), ("second".to_string(), 16, 3)]
    );
}

/// The rows of ARCHITECTURE.md's "Resource limits" table: (constant cell, value cell).
fn limits_table() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(workspace().join("ARCHITECTURE.md")).unwrap();
    let section = text
        .split("\n## Resource limits\n")
        .nth(1)
        .expect("ARCHITECTURE.md has a `## Resource limits` section");
    let section = section.split("\n## ").next().unwrap_or(section);
    section
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| limit ") && !l.starts_with("|---"))
        .map(|l| {
            let cells: Vec<&str> = l.split(" | ").collect();
            assert_eq!(cells.len(), 4, "a row has 4 cells: {l}");
            (cells[2].to_string(), cells[1].to_string())
        })
        .collect()
}

/// The whole numbers written in a cell (`1,048,576` is one number).
fn numbers(cell: &str) -> Vec<u64> {
    cell.replace(',', "")
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect()
}

#[test]
fn limits_table_matches_the_code() {
    use engine_core::runtime::EngineConfig;
    use engine_core::sound::audio::decode::{
        DecodeLimits, MAX_SAMPLE_BYTES, MAX_SAMPLE_RATE, MIN_SAMPLE_RATE,
    };
    let engine = EngineConfig::default();
    let session = engine_core::host::session::SessionConfig::default();
    let code: Vec<(&str, u64)> = vec![
        (
            "EngineConfig::fuel_per_tick",
            u64::from(engine.fuel_per_tick),
        ),
        (
            "EngineConfig::chain_fuel_per_tick",
            u64::from(engine.chain_fuel_per_tick),
        ),
        (
            "runtime::engine::START_FUEL",
            u64::from(engine_core::runtime::engine::START_FUEL),
        ),
        ("EngineConfig::tick_fuel", engine.tick_fuel),
        (
            "runtime::vm::MAX_CALL_DEPTH",
            engine_core::runtime::vm::MAX_CALL_DEPTH as u64,
        ),
        (
            "runtime::vm::MAX_STACK_DEPTH",
            engine_core::runtime::vm::MAX_STACK_DEPTH as u64,
        ),
        (
            "runtime::MAX_LIST_DEPTH",
            engine_core::runtime::MAX_LIST_DEPTH as u64,
        ),
        (
            "formats::hitlist::MAX_RANGE_LEN",
            engine_core::toolchain::formats::hitlist::MAX_RANGE_LEN,
        ),
        (
            "formats::hitlist::MAX_LIST_IDS",
            engine_core::toolchain::formats::hitlist::MAX_LIST_IDS,
        ),
        (
            "project::MAX_HIT_LIST_IDS",
            engine_core::toolchain::project::MAX_HIT_LIST_IDS,
        ),
        (
            "runtime::vm::MAX_LOCAL_LIST_IDS",
            engine_core::runtime::vm::MAX_LOCAL_LIST_IDS as u64,
        ),
        (
            "runtime::vm::LIST_ENTRIES_PER_FUEL",
            engine_core::runtime::vm::LIST_ENTRIES_PER_FUEL as u64,
        ),
        (
            "asm::MAX_INCLUDE_DEPTH",
            engine_core::toolchain::asm::MAX_INCLUDE_DEPTH as u64,
        ),
        (
            "asm::MAX_EXPANDED_LINES",
            engine_core::toolchain::asm::MAX_EXPANDED_LINES as u64,
        ),
        (
            "fsrules::MAX_TEXT_FILE_BYTES",
            engine_core::toolchain::fsrules::MAX_TEXT_FILE_BYTES,
        ),
        (
            "fsrules::MAX_WALK_DEPTH",
            engine_core::toolchain::fsrules::MAX_WALK_DEPTH as u64,
        ),
        (
            "cache::MAX_RESOURCE_BYTES",
            engine_core::sound::cache::MAX_RESOURCE_BYTES,
        ),
        ("audio::decode::MAX_SAMPLE_BYTES", MAX_SAMPLE_BYTES as u64),
        (
            "DecodeLimits::max_frames",
            DecodeLimits::default().max_frames,
        ),
        ("audio::decode::MIN_SAMPLE_RATE", u64::from(MIN_SAMPLE_RATE)),
        ("MAX_SAMPLE_RATE", u64::from(MAX_SAMPLE_RATE)),
        (
            "server::STREAM_BYTES",
            engine_core::sound::server::STREAM_BYTES,
        ),
        (
            "server::MUSIC_STREAM_FILE_BYTES",
            engine_core::sound::server::MUSIC_STREAM_FILE_BYTES,
        ),
        (
            "cache::DEFAULT_BUDGET",
            engine_core::sound::cache::DEFAULT_BUDGET as u64,
        ),
        (
            "SessionConfig::cache_budget",
            (session.cache_budget >> 20) as u64,
        ),
        (
            "cache::MAX_NAME_LEN",
            engine_core::sound::cache::MAX_NAME_LEN as u64,
        ),
        (
            "command::MAX_SCRIPT_SECONDS",
            engine_core::host::command::MAX_SCRIPT_SECONDS as u64,
        ),
        (
            "output::WAV_MAX_FRAMES",
            engine_core::sound::output::WAV_MAX_FRAMES,
        ),
        ("EngineConfig::trace_capacity", engine.trace_capacity as u64),
        (
            "check::CYCLE_WALK_LIMIT",
            engine_core::tools::check::CYCLE_WALK_LIMIT as u64,
        ),
        (
            "check::MAX_CYCLE_SEARCHES",
            engine_core::tools::check::MAX_CYCLE_SEARCHES as u64,
        ),
    ];
    let table = limits_table();
    for (constant, value) in &code {
        let row = table
            .iter()
            .find(|(c, _)| c.contains(&format!("{constant}`")))
            .unwrap_or_else(|| panic!("no row names `{constant}` in the limits table"));
        assert!(
            numbers(&row.1).contains(value),
            "the limits table says `{}` for `{constant}`, but the code has {value}",
            row.1
        );
    }
    for (constants, _) in &table {
        assert!(
            code.iter()
                .any(|(c, _)| constants.contains(&format!("{c}`"))),
            "the limits table row for {constants} is not checked against the code"
        );
    }
}
