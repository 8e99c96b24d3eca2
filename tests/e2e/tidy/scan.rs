//! Reading Rust source for the tidy rules: the code with comments and strings blanked
//! out, and where each function starts and ends.

/// The code of a Rust source with the insides of comments, string literals and
/// character literals blanked out (line breaks kept, so lines still count), so that a
/// scan of the code sees no brace, `fn` or name that is only written in a comment or a
/// string.
pub fn code_only(text: &str) -> String {
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
pub fn function_spans(code: &str) -> Vec<(String, usize, usize)> {
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
