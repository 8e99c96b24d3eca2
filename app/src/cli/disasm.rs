//! `hitbench disasm`: turn a `.hit` back into MakeTrax source.

use super::Io;
use super::args::{Args, usage};
use anyhow::Context as _;
use engine_core::toolchain::disasm::{self, DisasmOptions};
use engine_core::toolchain::formats::hdb::HdbFile;
use engine_core::toolchain::formats::hit::HitFile;
use engine_core::toolchain::formats::hsm::HsmFile;
use engine_core::toolchain::formats::sym::SymFile;
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

    let bytes =
        std::fs::read(&hit_path).with_context(|| format!("cannot read {}", hit_path.display()))?;
    let hit = HitFile::from_bytes(bytes).with_context(|| format!("{}", hit_path.display()))?;

    let hsm = load_side_file(hsm_path, &hit_path, "hsm", io, HsmFile::parse)?;
    let hdb = load_side_file(hdb_path, &hit_path, "hdb", io, HdbFile::parse)?;
    let sym = load_side_file(sym_path, &hit_path, "sym", io, SymFile::parse)?;
    let source = disasm::disassemble_linked(
        &hit,
        hsm.as_ref(),
        hdb.as_ref(),
        sym.as_ref(),
        DisasmOptions { layout },
    );
    match out {
        Some(path) => std::fs::write(&path, source)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => io.out.write_all(source.as_bytes())?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Reads a `.hsm`/`.hdb` given on the command line (an error if unreadable) or found
/// next to the `.hit` (skipped if absent). Its diagnostics are printed as warnings: the
/// disassembly only uses it for names.
fn load_side_file<T>(
    given: Option<PathBuf>,
    hit_path: &Path,
    extension: &str,
    io: &mut Io<'_>,
    parse: impl Fn(&str, &Path) -> (T, Vec<engine_core::toolchain::diag::Diagnostic>),
) -> anyhow::Result<Option<T>> {
    let (path, required) = match given {
        Some(path) => (path, true),
        None => (hit_path.with_extension(extension), false),
    };
    let text = match std::fs::read(&path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(_) if !required => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let (value, diagnostics) = parse(&text, &path);
    for diagnostic in diagnostics {
        writeln!(io.err, "{diagnostic}")?;
    }
    Ok(Some(value))
}
