//! The command language's grammar in one table: [`COMMANDS`] holds every command's word,
//! aliases, argument syntax, help line, how many arguments it takes and the function that
//! reads them. [`parse`], the completion words ([`WORDS`]), the `help` text
//! ([`help_lines`]), the "did you mean" hint and the arity errors all come from it, so
//! a new command is one row here and one argument reader.

use super::Command;
use super::line::{Line, ParseError, error, split_words};
use super::{arguments as engine, debug_arguments as debug, repeat, world_arguments as world};
use Arity::{AtMost, Rest};

/// How many arguments a command takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arity {
    /// At most this many words; one more is an "unexpected" error.
    AtMost(usize),
    /// Any number: the command reads the rest of the line.
    Rest,
}

/// One command of the language.
pub struct CommandSpec {
    /// The command word.
    pub name: &'static str,
    /// Other words for the same command, completed and listed by `help`.
    pub aliases: &'static [&'static str],
    /// Words accepted for it but neither completed nor listed (`?` for `help`).
    pub hidden: &'static [&'static str],
    /// The argument syntax after the word, as `help` shows it.
    pub args: &'static str,
    /// What it does, as `help` says it.
    pub help: &'static str,
    /// How many arguments it takes.
    pub arity: Arity,
    /// Reads the arguments into a command.
    read: fn(&Line<'_>) -> Result<Command, ParseError>,
}

impl CommandSpec {
    /// The command's syntax as `help` lists it: the word, then the arguments.
    fn syntax(&self, word: &str) -> String {
        if self.args.is_empty() {
            word.to_owned()
        } else {
            format!("{word} {}", self.args)
        }
    }

    fn is_called(&self, word: &str) -> bool {
        self.name == word || self.aliases.contains(&word) || self.hidden.contains(&word)
    }
}

const fn spec(
    name: &'static str,
    args: &'static str,
    help: &'static str,
    arity: Arity,
    read: fn(&Line<'_>) -> Result<Command, ParseError>,
) -> CommandSpec {
    CommandSpec {
        name,
        aliases: &[],
        hidden: &[],
        args,
        help,
        arity,
        read,
    }
}

/// Every command, in the order `help` lists them.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        aliases: &["soundevent"],
        ..spec(
            "sev",
            "<event…> [@object]",
            "play an event from the controlled character (or @object); `sev ui moneyback` = ui_moneyback",
            Rest,
            engine::sound_event,
        )
    },
    spec(
        "ui",
        "<event…>",
        "play an event as a UI sound (no source object)",
        Rest,
        engine::ui_sound,
    ),
    spec(
        "quiet",
        "<object>",
        "quiet everything an object is playing",
        AtMost(1),
        engine::quiet,
    ),
    spec(
        "quietall",
        "",
        "quiet everything",
        AtMost(0),
        engine::quiet_all,
    ),
    spec(
        "control",
        "<object>",
        "choose the controlled character (the source of `sev`)",
        AtMost(1),
        engine::control,
    ),
    spec(
        "field",
        "<object> <field> <value>",
        "set a data field (gender, creativity, neat, playful, … or a number)",
        AtMost(3),
        engine::field,
    ),
    spec(
        "trace",
        "events|samples|tracks|all on|off",
        "switch a trace",
        AtMost(2),
        engine::trace,
    ),
    spec(
        "volume",
        "fx|music|vox|master <0..1>",
        "set an option volume or the master volume",
        AtMost(2),
        engine::volume,
    ),
    spec(
        "view",
        "<x> <y>",
        "centre the camera on a lot tile",
        AtMost(2),
        world::view,
    ),
    spec(
        "scroll",
        "<dx> <dy>",
        "scroll the view by pixels (x right, y down)",
        AtMost(2),
        world::scroll,
    ),
    spec(
        "zoom",
        "in|out|1|2|3",
        "zoom the camera (1 near … 3 far)",
        AtMost(1),
        world::zoom,
    ),
    spec(
        "rotate",
        "left|right|0-3",
        "rotate the view by quarter turns",
        AtMost(1),
        world::rotate,
    ),
    spec(
        "floor",
        "<n>",
        "show another floor (0 ground)",
        AtMost(1),
        world::floor,
    ),
    spec(
        "hour",
        "<h>",
        "set the hour of day (14, 14.5 or 14:30): the night loop, the score",
        AtMost(1),
        world::hour,
    ),
    spec(
        "mode",
        "<music mode>",
        "live, buy, build, neighborhood, publish, load, credits, options, family",
        AtMost(1),
        world::mode,
    ),
    spec(
        "move",
        "<object> <x> <y> [floor]",
        "move an object on the lot",
        AtMost(4),
        world::move_object,
    ),
    spec(
        "room",
        "<tiles>",
        "size of the room around the character (small rooms add reverb)",
        AtMost(1),
        world::room,
    ),
    spec(
        "turnon",
        "<object> <station>",
        "turn a radio or TV on, tuned to a station code",
        AtMost(2),
        world::turn_on,
    ),
    spec(
        "turnoff",
        "<object>",
        "turn a radio or TV off",
        AtMost(1),
        world::turn_off,
    ),
    spec(
        "select",
        "<object…>",
        "play the selection sound for these objects (world.ini [ServerSounds] Select, the two-groups rule)",
        Rest,
        world::select,
    ),
    spec(
        "sound",
        "<name> [@object]",
        "play a sound of the server's own (world.ini [ServerSounds]): volume from the object's distance",
        AtMost(2),
        world::sound,
    ),
    spec(
        "world",
        "",
        "camera, music, ambience, stations, every object's volume and pan and why",
        AtMost(0),
        world::describe,
    ),
    spec(
        "savelot",
        "[file]",
        "save the lot (objects, camera, hour, mode)",
        AtMost(1),
        world::save_lot,
    ),
    CommandSpec {
        hidden: &["?"],
        ..spec(
            "help",
            "[command]",
            "list the commands, or say what one does",
            AtMost(1),
            help,
        )
    },
    spec(
        "play",
        "<patch id|patch name|sample file>",
        "audition one patch or sample once as a UI sound",
        Rest,
        engine::play,
    ),
    spec(
        "stop",
        "",
        "stop the auditions: every sample `play` started and every UI sound (what objects say plays on)",
        AtMost(0),
        engine::stop,
    ),
    spec(
        "why",
        "<event…> | @object",
        "why it was (not) heard: the latest decisions about an event or object, with every voice compared and each note's gain",
        Rest,
        engine::why,
    ),
    spec(
        "break",
        "<file>:<line> | <track> [if <register> <op> <value>] | on|off fault",
        "set a breakpoint (alone: list them); `break on fault` pauses at a fault",
        Rest,
        debug::read_break,
    ),
    spec(
        "delete",
        "<n>|all",
        "delete a breakpoint, or all",
        AtMost(1),
        debug::read_delete,
    ),
    spec(
        "enable",
        "<n>",
        "turn a breakpoint on",
        AtMost(1),
        debug::read_enable,
    ),
    spec(
        "disable",
        "<n>",
        "turn a breakpoint off",
        AtMost(1),
        debug::read_disable,
    ),
    spec(
        "continue",
        "",
        "go on until the next breakpoint",
        AtMost(0),
        debug::read_go_on,
    ),
    spec(
        "step",
        "",
        "run the paused track to its next source line (into calls)",
        AtMost(0),
        debug::read_go_on,
    ),
    spec(
        "next",
        "",
        "run the paused track to its next source line, over calls",
        AtMost(0),
        debug::read_go_on,
    ),
    spec(
        "stepi",
        "",
        "run one instruction of the paused track",
        AtMost(0),
        debug::read_go_on,
    ),
    spec(
        "towait",
        "",
        "run the paused track until it is about to wait (or end)",
        AtMost(0),
        debug::read_go_on,
    ),
    spec(
        "regs",
        "",
        "the paused track's registers",
        AtMost(0),
        debug::read_regs,
    ),
    spec(
        "set",
        "<register> <value>",
        "write a register of the paused track",
        AtMost(2),
        debug::read_set,
    ),
    spec(
        "reload",
        "",
        "read the project again from disk and apply it as a hot reload (changed tracks restart)",
        AtMost(0),
        engine::reload,
    ),
    spec(
        "plugin",
        "add|remove <folder>",
        "load a plug-in folder over the project from now on, or stop loading it; nothing restarts that it leaves alone",
        Rest,
        engine::plugin,
    ),
    spec(
        "mute",
        "fx|music|vox | track <id> | object <id> | voice <slot> [off]",
        "silence what you listen to (a group, a track, an object's sounds, a voice slot); nothing the engine decides changes",
        AtMost(3),
        engine::mute,
    ),
    spec(
        "solo",
        "fx|music|vox | track <id> | object <id> | voice <slot> [off]",
        "hear only what is soloed (and not muted)",
        AtMost(3),
        engine::solo,
    ),
    spec(
        "monitor",
        "[clear]",
        "say what is muted and soloed; `monitor clear` unmutes and unsolos everything",
        AtMost(1),
        engine::monitor,
    ),
    spec(
        "tune",
        "track|patch|event <id|name> <field> <value>",
        "give a track's (volume priority duck group args spl hitlist patch), patch's (looped piano) or event's (type track) field a new value, live; files are not changed",
        AtMost(4),
        engine::tune,
    ),
    spec(
        "voices",
        "<n>",
        "set the Box-X voice limit (1 to 1024) from now on; below the voices in use, the lowest priorities stop",
        AtMost(1),
        engine::voices,
    ),
    spec(
        "repeat",
        "<n> every <ms>ms <command>",
        "run a command n times (1 to 10,000), ms apart, the first now",
        Rest,
        read_repeat,
    ),
];

const fn word_count(specs: &[CommandSpec]) -> usize {
    let mut count = 0;
    let mut i = 0;
    while i < specs.len() {
        count += 1 + specs[i].aliases.len();
        i += 1;
    }
    count
}

const fn collect_words<const N: usize>(specs: &[CommandSpec]) -> [&'static str; N] {
    let mut words = [""; N];
    let mut n = 0;
    let mut i = 0;
    while i < specs.len() {
        words[n] = specs[i].name;
        n += 1;
        let mut j = 0;
        while j < specs[i].aliases.len() {
            words[n] = specs[i].aliases[j];
            n += 1;
            j += 1;
        }
        i += 1;
    }
    words
}

const WORD_ARRAY: [&str; word_count(COMMANDS)] = collect_words(COMMANDS);

/// Every command word (names and aliases, in [`COMMANDS`] order), for completion.
pub const WORDS: &[&str] = &WORD_ARRAY;

/// The `help` listing: (syntax, what it does) per command word, aliases saying which
/// command they stand for.
pub fn help_lines() -> Vec<(String, String)> {
    COMMANDS.iter().flat_map(spec_lines).collect()
}

/// `help <command>`: the lines of the command `name` (its word in the grammar) and its
/// aliases; none for a word that is not a command's.
pub fn help_lines_of(name: &str) -> Vec<(String, String)> {
    COMMANDS
        .iter()
        .filter(|spec| spec.name == name)
        .flat_map(spec_lines)
        .collect()
}

/// One command's lines of the listing: its syntax and help, then each alias's.
fn spec_lines(spec: &CommandSpec) -> Vec<(String, String)> {
    std::iter::once((spec.syntax(spec.name), spec.help.to_owned()))
        .chain(
            spec.aliases
                .iter()
                .map(|alias| (spec.syntax(alias), format!("the same as {}", spec.name))),
        )
        .collect()
}

/// `help [command]`: any of its words (`soundevent`, `?`) names the command.
fn help(line: &Line<'_>) -> Result<Command, ParseError> {
    let Some((column, word)) = line.arg(0) else {
        return Ok(Command::Help(None));
    };
    match lookup(word) {
        Some(spec) => Ok(Command::Help(Some(spec.name.to_owned()))),
        None => {
            let hint = did_you_mean(&word.to_ascii_lowercase());
            Err(error(
                column,
                format!("`{word}` is not a command{hint}; `help` lists them"),
            ))
        }
    }
}

/// `repeat <n> every <ms>ms <command>`: the words before the command
/// ([`repeat::head`]), then the command, read by this table — never another `repeat`,
/// refused before it is read, so a line of nested repeats is not read level by level.
fn read_repeat(line: &Line<'_>) -> Result<Command, ParseError> {
    let head = repeat::head(line)?;
    let (column, word) = head.command;
    if lookup(word).is_some_and(|spec| spec.name == "repeat") {
        return Err(error(
            column,
            "a `repeat` cannot repeat a `repeat`: write the commands it would run",
        ));
    }
    let text = line.rest_from(3).unwrap_or_default();
    // The command's own mistakes, at their column in the whole line.
    let command = parse(text)
        .map_err(|e| error(e.column + column - 1, e.message))?
        .ok_or_else(|| line.missing(repeat::USAGE))?;
    Ok(Command::Repeat {
        count: head.count,
        every_ms: head.every_ms,
        command: Box::new(command),
    })
}

/// ` (did you mean `quietall`?)` for the command word closest to `word`, if one is close.
fn did_you_mean(word: &str) -> String {
    crate::toolchain::suggest::closest(word, WORDS.iter().copied())
        .map(|w| format!(" (did you mean `{w}`?)"))
        .unwrap_or_default()
}

/// The command a word names (case-insensitive), if any.
pub fn lookup(word: &str) -> Option<&'static CommandSpec> {
    let word = word.to_ascii_lowercase();
    COMMANDS.iter().find(|spec| spec.is_called(&word))
}

/// Parses one command line (no time). Blank lines and comments are `Ok(None)`.
pub fn parse(line: &str) -> Result<Option<Command>, ParseError> {
    let code = line.split(['#', ';']).next().unwrap_or("");
    let words = split_words(code);
    let Some(line) = Line::new(code, &words) else {
        return Ok(None);
    };
    let Some(spec) = lookup(line.head) else {
        let other = line.head.to_ascii_lowercase();
        let hint = did_you_mean(&other);
        return Err(error(
            line.head_column,
            format!("unknown command `{other}`{hint}; `help` lists the commands"),
        ));
    };
    let command = (spec.read)(&line)?;
    if let AtMost(count) = spec.arity
        && let Some((column, extra)) = line.arg(count)
    {
        return Err(error(
            column,
            format!("unexpected `{extra}` after the command"),
        ));
    }
    Ok(Some(command))
}
