//! The `hitbench` binary: the workbench window, or a command-line tool when given a
//! command (`hitbench help` lists them).

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    hitbench::cli::main(&args)
}
