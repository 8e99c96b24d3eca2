//! `hitbench disasm`: turn a `.hit` back into MakeTrax source. Every file it reads (the
//! `.hit`, `--hsm`, `--hdb`, `--sym` or the side files found beside the `.hit`) follows
//! the rules `INCLUDE` follows: a regular file (never a named pipe or device, which are
//! not opened to wait on) of at most [`MAX_TEXT_FILE_BYTES`]; links named on the command
//! line are followed. `-o` follows the output rule: never over a device, a pipe or one of
//! the files read.

use super::Io;
use super::args::{Args, usage};
use engine_core::toolchain::disasm::{self, DisasmOptions};
use engine_core::toolchain::formats::hdb::HdbFile;
use engine_core::toolchain::formats::hit::HitFile;
use engine_core::toolchain::formats::hsm::HsmFile;
use engine_core::toolchain::formats::sym::SymFile;
use engine_core::toolchain::fsrules::{self, LinkPolicy, MAX_TEXT_FILE_BYTES, ReadRules, Refusal};
use engine_core::toolchain::registers::Layout;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Runs `hitbench disasm <file.hit> [--hsm f] [--hdb f] [--sym f] [--layout l] [-o <file>]`.
pub fn run(args: &mut Args, io: &mut Io<'_>) -> anyhow::Result<ExitCode> {
    let out = args.value(&["-o", "--output"])?.map(PathBuf::from);
    let hsm_path = args.value(&["--hsm"])?.map(PathBuf::from);
    let hdb_path = args.value(&["--hdb"])?.map(PathBuf::from);
    let sym_path = args.value(&["--sym"])?.map(PathBuf::from);
    let layout = match args.value(&["--layout"])? {
        Some(text) => Some(text.parse::<Layout>().map_err(usage)?),
        None => None,
    };
    let hit_path = args
        .next_positional()
        .map(PathBuf::from)
        .ok_or_else(|| usage("disasm needs a .hit file: hitbench disasm <file.hit>"))?;
    args.finish()?;

    let bytes = read(&hit_path)?;
    let hit =
        HitFile::from_bytes(bytes).map_err(|e| anyhow::anyhow!("{}: {e}", hit_path.display()))?;

    let mut inputs = vec![hit_path.clone()];
    let hsm = load_side_file(hsm_path, &hit_path, "hsm", io, &mut inputs, HsmFile::parse)?;
    let hdb = load_side_file(hdb_path, &hit_path, "hdb", io, &mut inputs, HdbFile::parse)?;
    let sym = load_side_file(sym_path, &hit_path, "sym", io, &mut inputs, SymFile::parse)?;
    let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    if let Some(path) = &out {
        super::paths::check_output(path, &inputs)?;
    }
    let source = disasm::disassemble_linked(
        &hit,
        hsm.as_ref(),
        hdb.as_ref(),
        sym.as_ref(),
        DisasmOptions { layout },
    );
    match out {
        Some(path) => fsrules::write_output(&path, &inputs, source.as_bytes())
            .map_err(super::paths::output_error)?,
        None => io.out.write_all(source.as_bytes())?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Reads a file disasm was given, under the rules `INCLUDE` follows (see the module).
fn read(path: &Path) -> Result<Vec<u8>, Refusal> {
    ReadRules::for_file(path)
        .with_links(LinkPolicy::FollowAnywhere)
        .with_max_bytes(MAX_TEXT_FILE_BYTES)
        .read(path)
}

/// Reads a `.hsm`/`.hdb`/`.sym` given on the command line (an error if it cannot be
/// read) or found next to the `.hit` (skipped if absent; an error if something is there
/// that may not be read). Its diagnostics are printed as warnings: the disassembly only
/// uses it for names. The file read is added to `inputs`.
fn load_side_file<T>(
    given: Option<PathBuf>,
    hit_path: &Path,
    extension: &str,
    io: &mut Io<'_>,
    inputs: &mut Vec<PathBuf>,
    parse: impl Fn(&str, &Path) -> (T, Vec<engine_core::toolchain::diag::Diagnostic>),
) -> anyhow::Result<Option<T>> {
    let (path, required) = match given {
        Some(path) => (path, true),
        None => (hit_path.with_extension(extension), false),
    };
    let text = match read(&path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(Refusal::NotFound { .. }) if !required => return Ok(None),
        Err(refusal) => return Err(refusal.into()),
    };
    inputs.push(path.clone());
    let (value, diagnostics) = parse(&text, &path);
    for diagnostic in diagnostics {
        writeln!(io.err, "{diagnostic}")?;
    }
    Ok(Some(value))
}
