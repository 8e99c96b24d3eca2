//! The command line: `hitbench <command> [options]`. Each command is one module with a
//! `run` function; this module dispatches and owns the exit-status convention
//! (0 = success, 1 = the input has errors, 2 = the command line is wrong).

mod args;
mod asm;
mod bench;
mod disasm;
mod paths;

use std::process::ExitCode;

pub use args::Args;

/// Exit status when the input (a source, a project, a sample) has errors.
pub const EXIT_INPUT_ERRORS: u8 = 1;
/// Exit status when the command line itself is wrong.
pub const EXIT_USAGE: u8 = 2;

const HELP: &str = "\
HitBench — a workbench for HIT-style game audio

Usage: hitbench [command] [options]

Commands:
  asm <source> [-o <dir>] [--layout ts1|tso] [-I <dir>]...
        Assemble Maxis MakeTrax source into <dir>/<stem>.hit, .hsm, .hot, .hdb
        and .sym (default <dir>: the source's folder). Diagnostics are printed as
        file:line:col: error|warning: message. Exit status 1 if there are errors.
  disasm <file.hit> [--hsm <file.hsm>] [--hdb <file.hdb>] [--layout ts1|tso] [-o <file>]
        Turn a .hit back into MakeTrax source that reassembles byte for byte.
        A .hsm/.hdb next to the .hit is used for label names when not given.
        Writes to standard output without -o.
  bench asm
        Measure assembler throughput (source lines per second) on a generated
        100,000-line source. Build with --release for meaningful figures.
  help  Show this text.
";

/// Runs the command line; `args` excludes the program name.
pub fn main(args: &[String]) -> ExitCode {
    let mut args = Args::new(args);
    let command = args.next_positional();
    let result = match command.as_deref() {
        None | Some("help" | "--help" | "-h") => {
            print!("{HELP}");
            Ok(ExitCode::SUCCESS)
        }
        Some("--version" | "-V") => {
            println!("hitbench {}", env!("CARGO_PKG_VERSION"));
            Ok(ExitCode::SUCCESS)
        }
        Some("asm") => asm::run(&mut args),
        Some("disasm") => disasm::run(&mut args),
        Some("bench") => bench::run(&mut args),
        Some(other) => Err(args::usage(format!(
            "unknown command `{other}` (try `hitbench help`)"
        ))),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("hitbench: error: {error:#}");
            if error.downcast_ref::<args::UsageError>().is_some() {
                ExitCode::from(EXIT_USAGE)
            } else {
                ExitCode::from(EXIT_INPUT_ERRORS)
            }
        }
    }
}
