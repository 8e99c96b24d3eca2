//! Reading a `.qa` script: the lines of a render script, bursts and expectations.

use super::{
    Assertion, Bound, Compare, Counted, Expectation, NameKind, NameRef, QaScript, Sounding,
};
use crate::host::command::line::split_words;
use crate::host::command::{
    Command, ScriptLine, ScriptProblems, WorldCommand, add_commands, line_commands, script_lines,
};
use crate::runtime::vm::FaultKind;
use crate::toolchain::diag::{DiagCode, Diagnostic};
use crate::toolchain::suggest::closest;
use crate::world::cache_settings::{MAX_CACHE_MB, budget_bytes};
use std::path::Path;

/// Every assertion word after `expect`.
const ASSERTIONS: [&str; 17] = [
    "started", "heard", "refused", "stolen", "not", "voices", "gain", "pan", "playing", "silent",
    "picks", "no", "fault", "peak", "loudness", "reverb", "room",
];
/// What `playing` and `silent` take.
const SOUNDING: [&str; 7] = [
    "track", "station", "music", "sample", "ambience", "night", "river",
];
/// … and `count`.
const COUNT: &str = "count";

/// The most expectations one QA script holds: far more than a suite's script checks,
/// and a bound on what a script file of any size asks of memory (each is checked and
/// reported).
pub const MAX_EXPECTATIONS: usize = 100_000;

/// Reads a QA script: commands (a `repeat` line expanded into its commands) and
/// expectations, and its problems with their file, line and column (after
/// [`MAX_SCRIPT_PROBLEMS`](crate::host::command::MAX_SCRIPT_PROBLEMS) the rest is not
/// read). A script with more than
/// [`MAX_SCRIPT_COMMANDS`](crate::host::command::MAX_SCRIPT_COMMANDS) commands or
/// [`MAX_EXPECTATIONS`] expectations is read no further.
pub fn parse_qa(text: &str, file: &Path) -> (QaScript, Vec<Diagnostic>) {
    let mut script = QaScript::default();
    let mut problems = ScriptProblems::default();
    for line in script_lines(text, file) {
        let line = match line {
            Ok(line) => line,
            Err(d) => {
                problems.push(d);
                continue;
            }
        };
        if script.expectations.len() >= MAX_EXPECTATIONS {
            problems.push(Diagnostic::error(
                DiagCode::BadCommand,
                file,
                line.line,
                0,
                format!(
                    "the script holds more than {MAX_EXPECTATIONS} expectations here; it is \
                     read no further: split it"
                ),
            ));
            break;
        }
        let result = match line.rest.split_whitespace().next() {
            Some("expect") => expectation(&line).map(|e| script.expectations.push(e)),
            Some("set") => setting(&line, &script).map(|setting| match setting {
                Setting::Voices(n) => script.voices = Some(n),
                Setting::Cache(bytes) => script.cache_budget = Some(bytes),
            }),
            _ => match line_commands(&line, file) {
                Ok(more) => {
                    if let Err(d) = add_commands(&mut script.commands, more, file, line.line) {
                        problems.push(d);
                        break;
                    }
                    Ok(())
                }
                Err(d) => Err((d.column, d.message)),
            },
        };
        if let Err((column, message)) = result {
            problems.push(Diagnostic::error(
                DiagCode::BadCommand,
                file,
                line.line,
                column,
                message,
            ));
        }
        if problems.is_full() {
            break;
        }
    }
    // A QA run leaves the project's files as they are.
    for c in &script.commands {
        if matches!(c.command, Command::World(WorldCommand::SaveLot(_))) {
            problems.push(Diagnostic::error(
                DiagCode::SavelotNotAllowed,
                file,
                c.line,
                0,
                "a QA script never saves the lot: `savelot` has no place in it (its run \
                 leaves the project's files as they are)",
            ));
        }
    }
    script
        .commands
        .sort_by(|a, b| a.time.total_cmp(&b.time).then(a.line.cmp(&b.line)));
    (script, problems.into_vec(file))
}

/// A problem: its 1-based column in the line and what is wrong.
type Problem = (u32, String);

/// The words of what follows the time, with their columns in the whole line.
fn words<'a>(line: &ScriptLine<'a>) -> Vec<(u32, &'a str)> {
    split_words(line.rest)
        .into_iter()
        .map(|(column, word)| (column + line.rest_column - 1, word))
        .collect()
}

/// What a `set` line sets.
enum Setting {
    /// `set voices <n>`: the Box-X voice limit.
    Voices(usize),
    /// `set cache <MiB>`: the cache budget, in bytes.
    Cache(usize),
}

/// `set voices <n>` or `set cache <MiB>`: at time 0, before the first command.
fn setting(line: &ScriptLine<'_>, script: &QaScript) -> Result<Setting, Problem> {
    let words = words(line);
    let usage =
        "write `0 set voices <n>` (1 to 1024) or `0 set cache <MiB>` before the first command";
    let end = words
        .last()
        .map_or(line.rest_column, |(c, w)| c + w.len() as u32);
    if line.time != 0.0 || !script.commands.is_empty() {
        return Err((line.rest_column, format!("a setting comes first: {usage}")));
    }
    match (words.get(1), words.get(2), words.get(3)) {
        (Some((_, "voices")), Some((column, n)), None) => n
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=1024).contains(n))
            .map(Setting::Voices)
            .ok_or_else(|| (*column, format!("`{n}` is not a voice limit: {usage}"))),
        (Some((_, "cache")), Some((column, mb)), None) => mb
            .parse::<f64>()
            .ok()
            .and_then(budget_bytes)
            .map(Setting::Cache)
            .ok_or_else(|| {
                (
                    *column,
                    format!(
                        "`{mb}` is not a cache budget in MiB (more than 0, at most {MAX_CACHE_MB})"
                    ),
                )
            }),
        (Some((column, word)), _, _) if *word != "voices" && *word != "cache" => {
            Err((*column, format!("`{word}` cannot be set: {usage}")))
        }
        _ => Err((end, usage.to_string())),
    }
}

/// `expect <assertion>`.
fn expectation(line: &ScriptLine<'_>) -> Result<Expectation, Problem> {
    let words = words(line);
    let after = &words[1..];
    let text = after
        .first()
        .map(|(column, _)| {
            let start = usize::try_from(column - line.rest_column).unwrap_or(0);
            line.rest.chars().skip(start).collect::<String>()
        })
        .unwrap_or_default();
    let end = words
        .last()
        .map_or(line.rest_column, |(c, w)| c + w.len() as u32);
    let mut reader = Reader {
        words: after,
        end,
        names: Vec::new(),
    };
    let assertion = reader.assertion()?;
    Ok(Expectation {
        time: line.time,
        line: line.line,
        text: text.trim().to_string(),
        assertion,
        names: reader.names,
    })
}

/// The words of an assertion, read one after the other.
struct Reader<'w, 'a> {
    words: &'w [(u32, &'a str)],
    end: u32,
    /// The names read so far, with their columns.
    names: Vec<NameRef>,
}

impl<'a> Reader<'_, 'a> {
    fn word(&self, index: usize, wanted: &str) -> Result<(u32, &'a str), Problem> {
        self.words
            .get(index)
            .copied()
            .ok_or_else(|| (self.end, format!("missing {wanted}")))
    }

    fn nothing_after(&self, index: usize) -> Result<(), Problem> {
        match self.words.get(index) {
            Some((column, word)) => Err((*column, format!("`{word}` is one word too many here"))),
            None => Ok(()),
        }
    }

    /// Notes that the word at `column` names a `kind`.
    fn named(&mut self, kind: NameKind, column: u32, text: &str) {
        self.names.push(NameRef {
            kind,
            text: text.to_string(),
            column,
        });
    }

    fn assertion(&mut self) -> Result<Assertion, Problem> {
        let (column, head) = self.word(
            0,
            "an assertion after `expect`, e.g. `expect started ui_click`",
        )?;
        let assertion = match head {
            "started" => {
                let (event, object, within_ms) = self.trigger()?;
                Assertion::Started {
                    event,
                    object,
                    within_ms,
                }
            }
            "heard" => {
                let (event, object, within_ms) = self.trigger()?;
                Assertion::Heard {
                    event,
                    object,
                    within_ms,
                }
            }
            "refused" => Assertion::Refused {
                event: self.name(1, NameKind::Event)?,
            },
            "stolen" => Assertion::Stolen {
                track: self.name(1, NameKind::Track)?,
            },
            "not" => self.not_stolen()?,
            "voices" => Assertion::Voices(self.bound(1)?),
            "reverb" => Assertion::Reverb(self.bound(1)?),
            "room" => {
                let (column, _) = self.word(1, "a room's name, or `none`")?;
                let name: Vec<&str> = self.words.iter().skip(1).map(|(_, w)| *w).collect();
                let name = name.join(" ");
                let none = name.eq_ignore_ascii_case("none");
                if !none {
                    self.named(NameKind::Room, column, &name);
                }
                Assertion::Room {
                    name: (!none).then_some(name),
                }
            }
            "gain" | "pan" => self.level(head == "gain")?,
            "playing" | "silent" => self.playing(head == "playing")?,
            "picks" => self.picks()?,
            "no" => {
                let (c, w) = self.word(1, "`fault` after `no`")?;
                if w != "fault" {
                    return Err((
                        c,
                        format!("`expect no {w}`: only `expect no fault` is known"),
                    ));
                }
                self.nothing_after(2)?;
                Assertion::NoFault
            }
            "fault" => self.fault()?,
            "peak" => self.peak()?,
            "loudness" => Assertion::Loudness(self.bound(1)?),
            COUNT => self.count()?,
            other => {
                let hint = closest(other, ASSERTIONS.iter().copied().chain([COUNT]))
                    .map(|m| format!(" (did you mean `{m}`?)"))
                    .unwrap_or_default();
                return Err((
                    column,
                    format!(
                        "unknown assertion `{other}`{hint}; docs/qa.md lists them: started, \
                         heard, refused, stolen, not stolen, voices, gain, pan, playing, silent, picks, \
                         no fault, fault, peak below, loudness, count"
                    ),
                ));
            }
        };
        Ok(assertion)
    }

    /// A name of `kind` at `index`, the last word.
    fn name(&mut self, index: usize, kind: NameKind) -> Result<String, Problem> {
        let (column, name) = self.word(index, &format!("a {}", kind.what()))?;
        self.nothing_after(index + 1)?;
        self.named(kind, column, name);
        Ok(name.to_string())
    }

    /// `<op> <number>` from `index`, the last words.
    fn bound(&self, index: usize) -> Result<Bound, Problem> {
        let (op_column, op_text) = self.word(index, "an operator (<, <=, ==, >=, >)")?;
        let op = Compare::from_symbol(op_text).ok_or_else(|| {
            (
                op_column,
                format!("`{op_text}` is not an operator: write <, <=, ==, >= or >"),
            )
        })?;
        let value = self.number(index + 1)?;
        self.nothing_after(index + 2)?;
        Ok(Bound { op, value })
    }

    fn number(&self, index: usize) -> Result<f64, Problem> {
        let (column, text) = self.word(index, "a number")?;
        text.parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| (column, format!("`{text}` is not a number")))
    }

    fn object(&mut self, index: usize) -> Result<i32, Problem> {
        let (column, text) = self.word(index, "an object, `@<id>`")?;
        let id = text
            .strip_prefix('@')
            .unwrap_or(text)
            .parse()
            .map_err(|_| {
                (
                    column,
                    format!("`{text}` is not an object: write `@<id>`, e.g. `@3`"),
                )
            })?;
        self.named(NameKind::Object, column, text);
        Ok(id)
    }

    /// `<event> [@object] [within <ms>ms]` after `started` or `heard`.
    fn trigger(&mut self) -> Result<(String, Option<i32>, Option<f64>), Problem> {
        let (event_column, event) = self.word(1, "an event")?;
        self.named(NameKind::Event, event_column, event);
        let mut index = 2;
        let mut object = None;
        if self
            .words
            .get(index)
            .is_some_and(|(_, w)| w.starts_with('@'))
        {
            object = Some(self.object(index)?);
            index += 1;
        }
        let mut within_ms = None;
        if let Some((column, word)) = self.words.get(index).copied() {
            if word != "within" {
                return Err((
                    column,
                    format!("`{word}`: after the event come `@<object>` and `within <ms>ms`"),
                ));
            }
            let (ms_column, ms_text) = self.word(index + 1, "a time such as `100ms`")?;
            within_ms = Some(
                ms_text
                    .strip_suffix("ms")
                    .and_then(|n| n.parse::<f64>().ok())
                    .filter(|v| v.is_finite() && *v >= 0.0)
                    .ok_or_else(|| {
                        (
                            ms_column,
                            format!("`{ms_text}` is not a time in milliseconds such as `100ms`"),
                        )
                    })?,
            );
            index += 2;
        }
        self.nothing_after(index)?;
        Ok((event.to_string(), object, within_ms))
    }

    /// `not stolen [priority >= n]`.
    fn not_stolen(&self) -> Result<Assertion, Problem> {
        let (column, word) = self.word(1, "`stolen` after `not`")?;
        if word != "stolen" {
            return Err((
                column,
                format!("`expect not {word}`: only `expect not stolen` is known"),
            ));
        }
        let min_priority = match self.words.get(2).copied() {
            None => None,
            Some((column, "priority")) => {
                let bound = self.bound(3)?;
                if bound.op != Compare::AtLeast || bound.value.fract() != 0.0 {
                    return Err((
                        column,
                        "write `not stolen priority >= <n>` with a whole number".into(),
                    ));
                }
                Some(bound.value as i32)
            }
            Some((column, word)) => {
                return Err((
                    column,
                    format!("`{word}`: write `not stolen` or `not stolen priority >= <n>`"),
                ));
            }
        };
        Ok(Assertion::NotStolen { min_priority })
    }

    /// `gain @<object> <op> <value>` or `pan …`.
    fn level(&mut self, gain: bool) -> Result<Assertion, Problem> {
        let object = self.object(1)?;
        let bound = self.bound(2)?;
        Ok(if gain {
            Assertion::Gain { object, bound }
        } else {
            Assertion::Pan { object, bound }
        })
    }

    /// `playing|silent track <name> | station <name> | music | sample <name>`.
    fn playing(&mut self, playing: bool) -> Result<Assertion, Problem> {
        let (column, kind) = self.word(
            1,
            "what: `track <name>`, `station <name>`, `music`, `sample <name>`, `ambience`, `night loop` or `river`",
        )?;
        let what = match kind {
            "music" | "ambience" | "river" => {
                self.nothing_after(2)?;
                match kind {
                    "music" => Sounding::Music,
                    "ambience" => Sounding::Ambience,
                    _ => Sounding::River,
                }
            }
            "night" => {
                let (column, word) = self.word(2, "`loop` after `night`")?;
                if word != "loop" {
                    return Err((column, format!("`night {word}`: write `night loop`")));
                }
                self.nothing_after(3)?;
                Sounding::NightLoop
            }
            "track" => Sounding::Track(self.name(2, NameKind::Track)?),
            "station" => Sounding::Station(self.name(2, NameKind::Station)?),
            "sample" => Sounding::Sample(self.name(2, NameKind::Sample)?),
            other => {
                let hint = closest(other, SOUNDING.into_iter())
                    .map(|m| format!(" (did you mean `{m}`?)"))
                    .unwrap_or_default();
                return Err((
                    column,
                    format!(
                        "`{other}` cannot play{hint}: write track, station, music, sample, ambience, night loop or river"
                    ),
                ));
            }
        };
        Ok(Assertion::Playing { what, playing })
    }

    /// `picks <hit list> norepeat`.
    fn picks(&mut self) -> Result<Assertion, Problem> {
        let (list_column, list) = self.word(1, "a hit list")?;
        self.named(NameKind::HitList, list_column, list);
        let (column, word) = self.word(2, "`norepeat`")?;
        if word != "norepeat" {
            return Err((
                column,
                format!("`{word}`: only `picks <hit list> norepeat` is known"),
            ));
        }
        self.nothing_after(3)?;
        Ok(Assertion::PicksNoRepeat {
            list: list.to_string(),
        })
    }

    /// `fault <kind> [at <file:line>]`.
    fn fault(&mut self) -> Result<Assertion, Problem> {
        let (column, kind) = self.word(1, "a fault kind, e.g. `divide-by-zero`")?;
        if !FaultKind::NAMES.contains(&kind) {
            let hint = closest(kind, FaultKind::NAMES.iter().copied())
                .map(|m| format!(" (did you mean `{m}`?)"))
                .unwrap_or_default();
            return Err((column, format!("unknown fault kind `{kind}`{hint}")));
        }
        let at = match self.words.get(2).copied() {
            None => None,
            Some((_, "at")) => {
                let (place_column, place) = self.word(3, "a place, `<file>:<line>`")?;
                let (file, line) = place
                    .rsplit_once(':')
                    .and_then(|(f, l)| Some((f, l.parse::<u32>().ok()?)))
                    .filter(|(f, _)| !f.is_empty())
                    .ok_or_else(|| (place_column, format!("`{place}` is not `<file>:<line>`")))?;
                self.nothing_after(4)?;
                self.named(NameKind::SourceFile, place_column, file);
                Some((file.to_string(), line))
            }
            Some((column, word)) => {
                return Err((
                    column,
                    format!("`{word}`: after the kind comes `at <file>:<line>`"),
                ));
            }
        };
        Ok(Assertion::Fault {
            kind: kind.to_string(),
            at,
        })
    }

    /// `peak below <dBFS>`.
    fn peak(&self) -> Result<Assertion, Problem> {
        let (column, word) = self.word(1, "`below <dBFS>`")?;
        if word != "below" {
            return Err((column, format!("`{word}`: write `peak below <dBFS>`")));
        }
        let dbfs = self.number(2)?;
        self.nothing_after(3)?;
        Ok(Assertion::PeakBelow { dbfs })
    }

    /// `count <what> <op> <n>`.
    fn count(&self) -> Result<Assertion, Problem> {
        let (column, name) = self.word(1, "what to count, e.g. `steals`")?;
        let what = Counted::from_name(name).ok_or_else(|| {
            let kinds = crate::runtime::TraceKind::ALL.map(|k| k.name());
            let hint = closest(name, Counted::NAMES.iter().copied().chain(kinds))
                .map(|m| format!(" (did you mean `{m}`?)"))
                .unwrap_or_default();
            (
                column,
                format!(
                    "cannot count `{name}`{hint}: count {} or a trace kind",
                    Counted::NAMES.join(", ")
                ),
            )
        })?;
        Ok(Assertion::Count {
            what,
            bound: self.bound(2)?,
        })
    }
}
